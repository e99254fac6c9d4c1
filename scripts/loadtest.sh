#!/usr/bin/env bash
# The load test of `meeple gui` and its other figures (scripts/README.md,
# "The GUI server under load"): builds meeple and the load client
# (examples/gui_load, release), then runs the client's command given
# (default: `load`, 16 engine tables at 0.1 s a move, 25 reading spectators
# each and 50 spectators who never read, for 60 s). Bounded: every command
# ends by itself; the client kills the server it started.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example gui_load
if [ "$#" -eq 0 ]; then set -- load; fi
exec target/release/examples/gui_load --meeple target/release/meeple "$@"
