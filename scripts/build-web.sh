#!/usr/bin/env bash
# Builds the engine for the browser: target/web/ with the engine compiled
# to WebAssembly (meeple_bg.wasm), its JavaScript glue (meeple.js), the
# worker around it (engine-worker.js), the page's side (engine.js,
# saves-store.js) and a test page (bench.html, bench.js); and the offline
# site, target/web/site/: the GUI's page (src/gui/page) with its table
# compiled into the same meeple_bg.wasm, the engine's files, a web app
# manifest with icons made here (tools/make_icons.py), and a service
# worker (src/web/sw.js) that caches every file for offline use and adds
# the COOP/COEP headers. Any static server serves it.
#
# Installs what it needs, quickly when already there: the Rust target
# wasm32-unknown-unknown (rustup) and wasm-bindgen-cli from crates.io, at
# exactly the version of the wasm-bindgen crate in Cargo.lock, into
# target/tools (nothing system-wide). A fresh install of wasm-bindgen-cli
# compiles for a few minutes.
#
# Usage: bash scripts/build-web.sh [--out DIR] [--dev] [--tools-only]
#   --out DIR     write there instead of target/web
#   --dev         the dev profile (quicker to build, slower to run)
#   --tools-only  only install the target and wasm-bindgen-cli
#                 (scripts/setup-test-deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=target/web
PROFILE=release
TOOLS_ONLY=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$2"; shift 2 ;;
        --dev) PROFILE=dev; shift ;;
        --tools-only) TOOLS_ONLY=1; shift ;;
        *) echo "build-web: unknown argument $1" >&2; exit 2 ;;
    esac
done

TARGET=wasm32-unknown-unknown
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    echo "build-web: installing the Rust target $TARGET (rustup)" >&2
    rustup target add "$TARGET"
fi

# wasm-bindgen-cli must be the version of the crate the engine links.
VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$VERSION" ]; then
    echo "build-web: no wasm-bindgen in Cargo.lock" >&2
    exit 1
fi
TOOLS=target/tools
BINDGEN="$TOOLS/bin/wasm-bindgen"
if [ "$("$BINDGEN" --version 2>/dev/null | awk '{print $2}')" != "$VERSION" ]; then
    echo "build-web: installing wasm-bindgen-cli $VERSION into $TOOLS (cargo install; a few minutes)" >&2
    # Not --locked: the lock file published with wasm-bindgen-cli pins a
    # yanked crate (webpki-roots 1.0.11).
    cargo install --quiet --root "$TOOLS" --version "$VERSION" wasm-bindgen-cli
fi
[ "$TOOLS_ONLY" = 1 ] && exit 0

# The library alone, as a cdylib; a 16 MB stack for the searches'
# recursion (WebAssembly's default is 1 MB; natively the search thread has
# 64 MB).
echo "build-web: compiling the engine ($PROFILE)" >&2
cargo rustc --locked --lib --profile "$PROFILE" --target "$TARGET" --crate-type cdylib -- \
    -C link-arg=-zstack-size=16777216
DIR=$PROFILE
[ "$PROFILE" = dev ] && DIR=debug
WASM="${CARGO_TARGET_DIR:-target}/$TARGET/$DIR/meeple.wasm"

rm -rf "$OUT"
mkdir -p "$OUT"
"$BINDGEN" --target web --no-typescript --out-dir "$OUT" --out-name meeple "$WASM"
cp src/web/engine.js src/web/engine-worker.js src/web/saves-store.js src/web/bench.js src/web/*.html "$OUT"/
SIZE=$(stat -c %s "$OUT/meeple_bg.wasm")
GZ=$(gzip -9 -c "$OUT/meeple_bg.wasm" | wc -c)
echo "build-web: wrote $OUT (meeple_bg.wasm: $SIZE bytes, $GZ gzipped)" >&2

# The offline site: the same page as meeple gui's, marked to use the table
# in the page (net.js), with the manifest linked.
SITE="$OUT/site"
mkdir -p "$SITE"
cp src/gui/page/*.js src/gui/page/style.css "$SITE"/
cp "$OUT"/meeple.js "$OUT"/meeple_bg.wasm "$OUT"/engine.js "$OUT"/engine-worker.js "$OUT"/saves-store.js "$SITE"/
sed -e 's|<html lang="en">|<html lang="en" data-transport="offline">|' \
    -e 's|<link rel="icon" href="data:,">|<link rel="icon" href="icon.svg" type="image/svg+xml"><link rel="manifest" href="manifest.webmanifest"><link rel="apple-touch-icon" href="icon-192.png"><meta name="theme-color" content="#1f4e79">|' \
    src/gui/page/index.html > "$SITE/index.html"
grep -q 'data-transport="offline"' "$SITE/index.html" && grep -q 'manifest.webmanifest' "$SITE/index.html" || {
    echo "build-web: src/gui/page/index.html changed: cannot mark the offline page" >&2
    exit 1
}
python3 scripts/web_icons.py "$SITE"
cat > "$SITE/manifest.webmanifest" <<'MANIFEST'
{
  "name": "meeple: Mastermind, Connect Four and Hive",
  "short_name": "meeple",
  "description": "Play Mastermind, Connect Four and Hive against a strong engine, offline.",
  "start_url": "./",
  "scope": "./",
  "display": "standalone",
  "background_color": "#ffffff",
  "theme_color": "#1f4e79",
  "icons": [
    {"src": "icon.svg", "sizes": "any", "type": "image/svg+xml"},
    {"src": "icon-192.png", "sizes": "192x192", "type": "image/png"},
    {"src": "icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any maskable"}
  ]
}
MANIFEST
# The service worker: its cache named by the site's content, so a new
# build replaces the old files at the next visit.
FILES=$(cd "$SITE" && ls | grep -v '^sw.js$' | sort)
HASH=$(cd "$SITE" && cat $FILES | sha256sum | cut -c1-16)
LIST=$(printf '"./",'; for f in $FILES; do printf '"./%s",' "$f"; done)
sed -e "s|@VERSION@|$HASH|" -e "s|\"@FILES@\"|${LIST%,}|" src/web/sw.js > "$SITE/sw.js"
TOTAL=$(cd "$SITE" && for f in *; do gzip -9 -c "$f" | wc -c; done | awk '{ s += $1 } END { print s }')
echo "build-web: wrote $SITE (the offline site: $TOTAL bytes gzipped, file by file)" >&2
