#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the browser test's tools
# (Chromium, chromedriver, Selenium; quick when already there), then runs
# every Rust test (unit, end-to-end, the browser test) and the referee's
# Python tests (run by cargo test too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-test-deps.sh
cargo test --locked "$@"
