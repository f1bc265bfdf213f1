# shellcheck shell=bash
# Sourced by the GPU scripts of bench/ (gpu_session.sh, gpu_bench.sh, gpu_timeline.sh): sets
# ROOT (the repository) and BIN (the dissect binary: $DISSECT_BIN, else the first of
# .carry/dissect, build-gpu/dissect, build/dissect that exists).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${DISSECT_BIN:-}
if [ -z "$BIN" ]; then
  for b in "$ROOT/.carry/dissect" "$ROOT/build-gpu/dissect" "$ROOT/build/dissect"; do
    [ -x "$b" ] && BIN=$b && break
  done
fi
if [ -z "$BIN" ]; then
  echo "no dissect binary: set DISSECT_BIN, or build one (scripts/gpu_pack.sh puts it in .carry/)" >&2
  exit 2
fi
