#!/usr/bin/env bash
# On the GPU machine: `dissect topology` on GPU 0 three times in a row (the
# stability target: same sizes, lines and sets each time) with wall times; each
# run writes its own report (run<i>/report). Expects the carried binary in .carry/
# (scripts/gpu_pack.sh). Full output under $OUT; a short table last.
# Packs: topology_runs.tgz (topology.json, tables, logs of the three runs),
# run1_bundles.tgz (run 1's bundles without traces, and its report),
# run1_traces.tgz (gzipped traces of the steps worth re-analysing offline).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${DISSECT:-$ROOT/.carry/dissect}
OUT=${OUT:-/tmp/dissect-topology}
# A fresh start: a warm device machine keeps /tmp between calls, and old step
# bundles would sit beside the new ones (fresh names: topology_l1_size-2, ...).
mkdir -p "$OUT"
rm -rf "$OUT"/run[0-9] "$OUT"/*.tgz "$OUT"/walls.txt "$OUT"/table*.txt "$OUT"/stderr*.txt
export DISSECT_SPECS=$ROOT/specs DISSECT_TEMPLATES=$ROOT/kernels_templates XDG_CACHE_HOME=$OUT/cache
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$OUT/nvidia-smi.txt" 2>&1
for i in 1 2 3; do
  start=$(date +%s%N)
  "$BIN" topology --device 0 --out "$OUT/run$i" --quiet > "$OUT/table$i.txt" 2> "$OUT/stderr$i.txt"
  rc=$?
  echo "run $i: exit $rc, process wall $(( ($(date +%s%N) - start) / 1000000 )) ms (topology + report)" >> "$OUT/walls.txt"
done
cd "$OUT" || exit 1
traces=()
for s in l1_size texture_size readonly_size l1_line_blocks l2_line_blocks; do
  [ -f "run1/topology_$s/trace.csv" ] && gzip -k "run1/topology_$s/trace.csv" && traces+=("run1/topology_$s/trace.csv.gz")
done
tar czf topology_runs.tgz run*/topology.json table*.txt stderr*.txt walls.txt nvidia-smi.txt
tar czf run1_bundles.tgz --exclude='trace.csv' --exclude='trace.csv.gz' run1
[ ${#traces[@]} -gt 0 ] && tar czf run1_traces.tgz "${traces[@]}"
rm -rf "$OUT/cache"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
runs = [json.load(open(f"{out}/run{i}/topology.json")) for i in (1, 2, 3)]
keys = ["size_bytes", "line_bytes", "fetch_bytes", "sets", "ways", "per_sm", "latency_cycles", "latency_corrected_cycles"]
print("cache        key                        run1        run2        run3")
for c in ["l1", "texture", "readonly", "constant_l1", "constant_l15", "l2", "dram", "shared"]:
    for k in keys:
        vals = [r["caches"].get(c, {}).get(k) for r in runs]
        if any(v is not None for v in vals):
            print(f"{c:12} {k:24} " + " ".join(f"{str(v):>11}" for v in vals))
for i, r in enumerate(runs, 1):
    bw = r.get("bandwidth", {})
    print(f"run{i} bandwidth: " + ", ".join(f"{k} {v.get('value', 0):.1f} {v.get('unit', '')}" for k, v in bw.items()))
for i, r in enumerate(runs, 1):
    print(f"run{i} tlb: {json.dumps(r.get('tlb'))[:300]}")
for i, r in enumerate(runs, 1):
    t = r["timings"]
    st = {}
    for e in r["experiments"]:
        st[e["status"]] = st.get(e["status"], 0) + 1
    print(f"run{i}: wall {t['wall_s']:.1f} s, kernels {t['kernel_ms']:.0f} ms, compile {t['compile_ms']:.0f} ms, {st}")
PY
cat "$OUT/walls.txt"
