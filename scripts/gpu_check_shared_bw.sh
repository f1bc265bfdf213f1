#!/usr/bin/env bash
# On a GPU machine: is the shared-memory bandwidth figure right? Runs the topology's
# bandwidth_shared step (after shared_banks, for the banks' bound) on every SM, and two
# variants that isolate the question:
#   one_sm     the same sweep on one block (one SM): bytes per cycle per SM must match
#              the all-SM run; its GB/s is one SM's (what the old step reported)
#   u32_index  u32 loads through the general loop (N = 8193 elements is no multiple of
#              32 x ILP: per-load index arithmetic, as the old kernel had): how much of the
#              gap to 128 B/clk/SM is instruction overhead rather than shared memory
# Then prints the findings and the per-SM grid (B/cycle per SM over ILP x warps).
# Usage: DISSECT=build-gpu/dissect OUT=/tmp/x scripts/gpu_check_shared_bw.sh [device]
# Writes $OUT/shared_bw/{topology,one_sm,u32_index}; takes a few seconds.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${DISSECT:-$ROOT/build-gpu/dissect}
OUT=${OUT:-/tmp/dissect-shared-bw}
DEV=${1:-${DEVICE:-0}}
S=$OUT/shared_bw
rm -rf "$S"
mkdir -p "$S"
export DISSECT_SPECS=$ROOT/specs DISSECT_TEMPLATES=$ROOT/kernels_templates XDG_CACHE_HOME=$OUT/cache
SPEC=$ROOT/specs/topology/bandwidth_shared.yaml
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$S/nvidia-smi.txt" 2>&1

"$BIN" topology --device "$DEV" --only shared_banks --only bandwidth_shared --out "$S/topology" --no-report -q \
  > "$S/topology.txt" 2>&1 || echo "topology: exit $? (see $S/topology.txt)"
"$BIN" run "$SPEC" --device "$DEV" --out "$S/one_sm" --set layout.blocks=1 > "$S/one_sm.txt" 2>&1 ||
  echo "one_sm: exit $? (see $S/one_sm.txt)"
SMS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"]["sm_count"])' \
  "$S/topology/topology.json" 2> /dev/null || echo 132)
"$BIN" run "$SPEC" --device "$DEV" --out "$S/u32_index" --set layout.blocks="$SMS" --set "array.size=32772 B" \
  --set 'sweep.element=[u32]' > "$S/u32_index.txt" 2>&1 || echo "u32_index: exit $? (see $S/u32_index.txt)"

python3 - "$S" <<'PY'
import glob, json, os, sys
s = sys.argv[1]
try:
    r = json.load(open(f"{s}/topology/topology.json"))
    d = r["device"]
    print(f"device: {d.get('name')} ({d.get('sm_count')} SMs, {d.get('sm_clock_khz', 0) / 1e6:.2f} GHz rated)")
    b = r.get("bandwidth", {}).get("shared")
    print("topology row:", json.dumps({k: b.get(k) for k in ("value", "unit", "sms", "device_sms",
          "bytes_per_cycle_per_sm", "bound_bytes_per_cycle_per_sm", "share_of_bound", "method")}) if b else "none")
except (OSError, KeyError, ValueError) as e:
    print("no topology.json:", e)
print(f"{'run':10} {'peak':>12} {'SMs':>4} {'B/clk/SM':>9} {'method':10} {'kernel-time':>12}  peak point / per width")
grids = {}
for name in ("topology", "one_sm", "u32_index"):
    fj = sorted(glob.glob(f"{s}/{name}/*bandwidth_shared*/findings.json"))
    if not fj:
        print(f"{name:10} (no findings)")
        continue
    f = next((x for x in json.load(open(fj[-1]))["findings"] if x["analyzer"] == "bandwidth"), None)
    if f is None or f["value"] is None:
        print(f"{name:10} undetermined: {f and f['summary']}")
        continue
    dt = f["details"]
    pk = dt["peak_point"]
    widths = " ".join(f"{el}:{v['bytes_per_cycle_per_sm']:.1f}@ilp{v['ilp']}x{v['warps_per_block']}w"
                      for el, v in dt.get("by_element", {}).items())
    kt = dt.get("kernel_time_gbps")
    print(f"{name:10} {f['value']:>8.1f} {f['unit']:4} {dt.get('sms', '?'):>3} {dt['peak_bytes_per_cycle_per_sm']:>9.1f} "
          f"{dt.get('method', '?'):10} {kt if kt is None else round(kt, 1):>12}  "
          f"{pk.get('element')} ilp{pk['ilp']}x{pk['warps_per_block']}w {widths}")
    if dt.get("note"):
        print(f"{'':10} note: {dt['note']}")
    grids[name] = f["evidence"]["points"]
for name, pts in grids.items():
    print(f"\n{name}: B/cycle per SM over ILP (rows) x warps per block (columns)")
    warps = sorted({p["warps_per_block"] for p in pts})
    print(f"{'':10}" + "".join(f"{w:>8}" for w in warps))
    for el in sorted({p["element"] for p in pts}):
        for ilp in sorted({p["ilp"] for p in pts if p["element"] == el}):
            row = {p["warps_per_block"]: p["bytes_per_cycle_per_sm"] for p in pts
                   if p["element"] == el and p["ilp"] == ilp}
            print(f"{el} ilp{ilp:<3}" + "".join(f"{row[w]:>8.1f}" if w in row else f"{'-':>8}" for w in warps))
PY
