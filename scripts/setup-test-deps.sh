#!/usr/bin/env bash
# Installs what the browser test (tests/gui_browser.rs + tests/browser/) needs:
# Debian's chromium and chromium-driver, and a Python venv with selenium
# under target/browser-venv; and what the cluster test (tests/cluster.rs,
# scripts/test_cluster.py) needs: a Python venv with Dask
# (scripts/requirements-cluster.txt) under target/cluster-venv.
# And what the web test (tests/web.rs) needs to build the engine for the
# browser: the Rust target wasm32-unknown-unknown and wasm-bindgen-cli in
# target/tools (scripts/build-web.sh --tools-only).
# Idempotent: quick when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/browser-venv

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    echo "setup-test-deps: installing chromium and chromium-driver (apt-get)" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver fonts-dejavu-core >/dev/null
fi

if ! "$VENV/bin/python" -c 'import selenium' >/dev/null 2>&1; then
    echo "setup-test-deps: creating $VENV with selenium (pip)" >&2
    mkdir -p target
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check 'selenium>=4.20,<5'
fi
echo "setup-test-deps: chromium $(chromium --version 2>/dev/null | awk '{print $2}'), selenium $("$VENV/bin/python" -c 'import selenium; print(selenium.__version__)')" >&2

CLUSTER_VENV=target/cluster-venv
REQS=scripts/requirements-cluster.txt
# Reinstalled when the requirements file changes (its copy is kept in the venv).
if ! "$CLUSTER_VENV/bin/python" -c 'import distributed' >/dev/null 2>&1 \
    || ! cmp -s "$REQS" "$CLUSTER_VENV/requirements-cluster.txt"; then
    echo "setup-test-deps: creating $CLUSTER_VENV with $REQS (pip)" >&2
    mkdir -p target
    python3 -m venv "$CLUSTER_VENV"
    "$CLUSTER_VENV/bin/pip" install -q --disable-pip-version-check -r "$REQS"
    cp "$REQS" "$CLUSTER_VENV/requirements-cluster.txt"
fi
echo "setup-test-deps: dask $("$CLUSTER_VENV/bin/python" -c 'import distributed; print(distributed.__version__)') in $CLUSTER_VENV" >&2

# The web test's tools (the first time: a few minutes of compiling).
bash scripts/build-web.sh --tools-only
echo "setup-test-deps: target wasm32-unknown-unknown, $(target/tools/bin/wasm-bindgen --version) in target/tools" >&2
