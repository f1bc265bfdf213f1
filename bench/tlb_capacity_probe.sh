#!/usr/bin/env bash
# Issue 16 probe: why the L2 TLB's capacity, counted pass by pass, moves between processes.
# Runs bench/gpu/tlb_l2_capacity_per_access.yaml (every sample stored to global memory as
# the topology's tlb_sets step does) and bench/gpu/tlb_l2_capacity_on_chip.yaml (samples in
# shared memory until the timed window ends) in one process, N processes in a row, and
# prints per process and spec the tlb_overflow reading and the misses of every counted
# pass at each slot count.
#
# Usage (from the repository root): bench/tlb_capacity_probe.sh [-n N] [--device D]
# Binary: bench/find_dissect.sh. Environment: OUT (default /tmp/dissect-session/out; writes
# tlb_capacity.txt there), WORK (the bundles; default /tmp/dissect-session/work).
set -uo pipefail
RUNS=3 DEVICE=0
while (($#)); do
  case $1 in
    -n) RUNS=${2:?-n needs a number}; shift 2 ;;
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "tlb_capacity_probe: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN
OUT=${OUT:-/tmp/dissect-session/out} WORK=${WORK:-/tmp/dissect-session/work}
mkdir -p "$OUT" "$WORK/tlb_capacity"
status=0
for ((i = 1; i <= RUNS; i++)); do
  dir=$WORK/tlb_capacity/run$i
  rm -rf "$dir"
  "$BIN" run --device "$DEVICE" -q -o "$dir" "$ROOT/bench/gpu/tlb_l2_capacity_per_access.yaml" \
    "$ROOT/bench/gpu/tlb_l2_capacity_on_chip.yaml" > "$WORK/tlb_capacity/run$i.log" 2>&1 || status=1
done
python3 - "$WORK/tlb_capacity" "$RUNS" << 'PY' | tee "$OUT/tlb_capacity.txt"
import json, os, sys
root, runs = sys.argv[1], int(sys.argv[2])
for i in range(1, runs + 1):
    for spec in ("tlb_l2_capacity_per_access", "tlb_l2_capacity_on_chip"):
        path = os.path.join(root, f"run{i}", spec, "findings.json")
        try:
            data = json.load(open(path))
        except (OSError, ValueError) as e:
            print(f"process {i} {spec}: no findings ({e})")
            continue
        for f in data.get("findings", data if isinstance(data, list) else []):
            if f.get("analyzer") != "tlb_overflow":
                continue
            print(f"process {i} {spec}: {f.get('value')} | {f.get('summary')}")
            ev = f.get("evidence", {})
            cells = [f"{p['slots']}:{'/'.join(str(m) for m in p['misses_per_pass'])}" for p in ev.get("points", [])]
            print("  misses per counted pass:", " ".join(cells))
PY
exit $status
