#!/usr/bin/env bash
# Real-GPU performance targets of the CUDA backend (issue 3), measured with the dissect
# binary itself (never by timed tests):
#   - cold NVRTC compile of one template (<= 300 ms) and a warm cache lookup (<= 5 ms);
#   - a warm-cache 128-point per-SM sweep: share of wall time outside kernels (<= 20 %);
#   - per-SM parallel vs one point at a time for the same sweep (>= 50x on 132 SMs).
# Usage: bench/gpu_bench.sh [RUNS_DIR]   (DISSECT_BIN: the binary; default .carry/dissect,
# else build-gpu/dissect). Prints a table last; every run's bundle stays under RUNS_DIR.
set -uo pipefail
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN
RUNS=${1:-/tmp/dissect-bench}
# Per-SM runs are short (milliseconds), so host noise shows: each runs PER_SM_RUNS times and
# the table takes the run of median wall time (the range is shown beside it).
PER_SM_RUNS=${PER_SM_RUNS:-5}
export DISSECT_TEMPLATES=${DISSECT_TEMPLATES:-$ROOT/kernels_templates}
mkdir -p "$RUNS"
TABLE=$RUNS/bench_table.txt
: > "$TABLE"

# run NAME CACHE_DIR ARGS... : one `dissect run`, its timing line parsed into the table.
run() {
  local name=$1 cache=$2
  shift 2
  local out
  local t0 t1
  t0=$(date +%s%N)
  out=$(XDG_CACHE_HOME=$cache "$BIN" run --timing 1 --no-analyze -q -o "$RUNS/$name" "$@" 2>&1)
  local rc=$?
  t1=$(date +%s%N)
  out="$out
  process wall $(( (t1 - t0) / 1000000 )) ms"
  echo "== $name (rc=$rc)"
  echo "$out" | tail -6
  echo "$out" | grep '^dissect .*timing' > "$RUNS/$name.timing"  # the host-time breakdown, for the table
  # "  wall 123.4 ms, kernels 100.0 ms, compile 0.3 ms, 1 launches"
  echo "$out" | sed -n 's/.*wall \([0-9.]*\) ms, kernels \([0-9.]*\) ms, compile \([0-9.]*\) ms, \([0-9]*\) launches.*/\1 \2 \3 \4/p' |
    tail -1 | while read -r wall kern comp launches; do
      echo "$name $wall $kern $comp $launches" >> "$TABLE"
    done
}

COLD=$(mktemp -d /tmp/dissect-cold-XXXXXX)
WARM=/tmp/dissect-bench-cache
run compile_cold "$COLD" "$ROOT/bench/gpu/compile_probe.yaml"
run compile_warm "$COLD" "$ROOT/bench/gpu/compile_probe.yaml"
rm -rf "$COLD"

# Each sweep with chains of 2^18 and 2^21 loads per point (the spec's default and 8x).
for sweep in size stride; do
  spec=$ROOT/bench/gpu/sweep128_$sweep.yaml
  run "${sweep}_warmup" "$WARM" "$spec"                        # fills the compile cache, warms the GPU clocks
  for it in 262144 2097152; do
    for r in $(seq 1 "$PER_SM_RUNS"); do                                               # per-SM parallel
      run "${sweep}_${it}_per_sm_r$r" "$WARM" "$spec" --set iterations=$it
    done
    run "${sweep}_${it}_serial" "$WARM" "$spec" --set iterations=$it --set parallel=false  # one at a time
  done
done

python3 - "$TABLE" "$RUNS" <<'PY'
import csv, glob, os, re, sys
def medians(run):
    f = glob.glob(os.path.join(sys.argv[2], run, "*", "points.csv"))
    return {r["point_id"]: float(r["lat_median"]) for r in csv.DictReader(open(f[0]))} if f else {}
def breakdown(run):
    # --timing 1 lines of the run (information only: the targets use wall and kernels).
    try:
        text = open(os.path.join(sys.argv[2], run + ".timing")).read()
    except OSError:
        return ""
    want = [r"compile/load ([0-9.]+)", r"host prep ([0-9.]+)", r"device setup ([0-9.]+)",
            r"readback\+samples ([0-9.]+)", r"sink ([0-9.]+)", r"bundle open ([0-9.]+)"]
    found = [re.search(w, text) for w in want]
    return " / ".join(m.group(1) if m else "?" for m in found) if any(found) else ""
rows = {}
for line in open(sys.argv[1]):
    name, wall, kern, comp, launches = line.split()
    rows[name] = (float(wall), float(kern), float(comp), int(launches))
print("\n| measurement | value | target |\n| --- | --- | --- |")
if "compile_cold" in rows:
    print(f"| cold NVRTC compile of one template | {rows['compile_cold'][2]:.1f} ms | <= 300 ms |")
if "compile_warm" in rows:
    print(f"| warm compile-cache lookup | {rows['compile_warm'][2]:.2f} ms | <= 5 ms |")
for sweep in ("size", "stride"):
  for it in ("262144", "2097152"):
    tag = f"{sweep} sweep, chains of {it}"
    reps = sorted((v[0], k) for k, v in rows.items() if k.startswith(f"{sweep}_{it}_per_sm_r"))
    per_sm = reps[len(reps) // 2][1] if reps else None  # the run of median wall time
    p, s = rows.get(per_sm), rows.get(f"{sweep}_{it}_serial")
    if p:
        spread = f" (of {len(reps)} runs: {reps[0][0]:.1f} .. {reps[-1][0]:.1f} ms)" if len(reps) > 1 else ""
        print(f"| {tag}: 128 points per-SM, median run: wall / kernels / compile | {p[0]:.1f} / {p[1]:.1f} / {p[2]:.2f} ms, {p[3]} launch(es){spread} | |")
        shares = sorted(100 * (rows[k][0] - rows[k][1]) / rows[k][0] for _, k in reps)
        print(f"| {tag}: per-SM share of wall time outside kernels, median run | {100*(p[0]-p[1])/p[0]:.1f} % (runs: {shares[0]:.1f} .. {shares[-1]:.1f} %) | <= 20 % |")
        b = breakdown(per_sm)
        if b:
            print(f"| {tag}: per-SM time outside kernels: compile/load / host prep / device setup / readback / "
                  f"sink / bundle open | {b} ms | |")
    if s:
        print(f"| {tag}: one point at a time: wall / kernels | {s[0]:.1f} / {s[1]:.1f} ms, {s[3]} launches | |")
    if p and s:
        ratios = sorted(s[0] / rows[k][0] for _, k in reps)
        print(f"| {tag}: serial wall / per-SM wall, median run (kernels: serial / per-SM) | {s[0]/p[0]:.1f}x ({s[1]/p[1]:.1f}x; runs: {ratios[0]:.1f} .. {ratios[-1]:.1f}x) | >= 50x |")
        a, b = medians(per_sm), medians(f"{sweep}_{it}_serial")
        d = [abs(a[k] - b[k]) / b[k] for k in a if k in b and b[k] > 0]
        if d:
            print(f"| {tag}: per-point latency, per-SM vs serial: median / max relative difference | "
                  f"{100*sorted(d)[len(d)//2]:.2f} % / {100*max(d):.2f} % | same results |")
PY
