#!/usr/bin/env bash
# Runs bench/gpu/l1_capacity_probe.yaml in five variants on GPU 0 and prints, per
# variant and N, the share of slow (> 100 cycles) samples or the chain's average:
#   seq_fine      sequential s = 32 B, per-access timing, per-SM parallel (the size step)
#   seq_fine_1    the same, one point at a time (parallel: false)
#   seq_fine_768  per-access timing, 768 timed loads: one sample chunk, nothing flushed to
#                 global memory until the chase ends
#   rand_fine     page_random, one random word per 32 B block, per-access timing
#   seq_chain     sequential s = 32 B, chain timing (no sample stores during the chase)
#   seq_fine_cg   sequential, ld.global.cg (L1 bypassed): the L2 baseline
# Usage: OUT=dir bench/gpu/l1_capacity_probe.sh   (DISSECT: the binary, default .carry/dissect)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${DISSECT:-$ROOT/.carry/dissect}
OUT=${OUT:-/tmp/l1-probe}
mkdir -p "$OUT"
export DISSECT_SPECS=$ROOT/specs DISSECT_TEMPLATES=$ROOT/kernels_templates XDG_CACHE_HOME=$OUT/cache
SPEC=$ROOT/bench/gpu/l1_capacity_probe.yaml
run() {
  local name=$1
  shift
  "$BIN" run "$SPEC" --device "${DEVICE:-0}" --out "$OUT/$name" -q "$@" > "$OUT/$name.log" 2>&1 || echo "$name: exit $?"
}
run seq_fine
run seq_fine_1 --set parallel=false
run seq_fine_768 --set iterations=768
run rand_fine --set array.stride=4B --set array.pattern=page_random --set array.page=32B
run seq_chain --set timing.mode=chain --set timing.clock=clock64 --set iterations=65536
run seq_fine_cg --set path=cg --set target=l2
rm -rf "$OUT/cache"
python3 - "$OUT" <<'PY'
import csv, glob, sys
out = sys.argv[1]
names = ["seq_fine", "seq_fine_1", "seq_fine_768", "rand_fine", "seq_chain", "seq_fine_cg"]
table = {}
for n in names:
    for pc in glob.glob(f"{out}/{n}/*/points.csv"):
        for r in csv.DictReader(open(pc)):
            size = int(r["size_bytes"]) // 1024
            v = f"{float(r['lat_mean']):.1f}" + ("c" if r.get("timing_mode") == "chain" else "")
            table.setdefault(size, {})[n] = v
print("mean latency (cycles) per access; chain: average of the chain")
print(f"{'N KiB':>6} " + " ".join(f"{n:>12}" for n in names))
for s in sorted(table):
    print(f"{s:>6} " + " ".join(f"{table[s].get(n, '-'):>12}" for n in names))
PY
