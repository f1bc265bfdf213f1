#!/usr/bin/env bash
# Puts stripped dissect binaries (built with -DDISSECT_STATIC_DEPS=ON in build-gpu) and
# the data folders into .carry/ (git-ignored), the folder a device run carries along.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/build-gpu}
rm -rf "$ROOT/.carry" && mkdir -p "$ROOT/.carry"
strip -o "$ROOT/.carry/dissect" "$B/dissect"
[ -x "$B/tests/dissect_tests" ] && strip -o "$ROOT/.carry/dissect_tests" "$B/tests/dissect_tests"
du -sh "$ROOT/.carry"
