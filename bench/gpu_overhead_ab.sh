#!/usr/bin/env bash
# Share of a warm-cache 128-point per-SM sweep's wall time spent outside kernels (the
# target: <= 20 %), for two dissect binaries side by side on the same GPU: runs the size
# and stride sweeps of bench/gpu/ (chains of 2^18 loads) alternately with each binary,
# ROUNDS times, and prints per binary and sweep the median wall, kernel time, share
# outside kernels and the DISSECT_CUDA_TIMING breakdown of the median run.
# Usage: bench/gpu_overhead_ab.sh BIN_A BIN_B [ROUNDS] [RUNS_DIR]
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$1 B=$2 ROUNDS=${3:-7} RUNS=${4:-/tmp/dissect-ab}
export DISSECT_TEMPLATES=${DISSECT_TEMPLATES:-$ROOT/kernels_templates}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/dissect-ab-cache}
rm -rf "$RUNS" && mkdir -p "$RUNS"
LOG=$RUNS/runs.txt
: > "$LOG"

# one TAG BIN SPEC: one run; appends "TAG SPEC wall kernels | breakdown lines" to the log.
# A binary with its own templates next to it (a build folder's share/dissect) runs with
# those: two revisions' binaries may need different helper kernels (scatter.cuh).
one() {
  local out tdir
  tdir=$(dirname "$2")/share/dissect/kernels_templates
  [ -d "$tdir" ] || tdir=$DISSECT_TEMPLATES
  out=$(DISSECT_TEMPLATES=$tdir DISSECT_CUDA_TIMING=1 "$2" run --no-analyze -q -o "$RUNS/$1" "$3" 2>&1)
  local w k
  read -r w k < <(echo "$out" | sed -n 's/.*wall \([0-9.]*\) ms, kernels \([0-9.]*\) ms.*/\1 \2/p' | tail -1)
  echo "$1 $(basename "$3" .yaml) ${w:-nan} ${k:-nan} | $(echo "$out" | grep '^dissect' | tr '\n' ' ')" >> "$LOG"
}

for spec in "$ROOT"/bench/gpu/sweep128_size.yaml "$ROOT"/bench/gpu/sweep128_stride.yaml; do
  one warm_a "$A" "$spec"  # compile caches and GPU clocks warm
  one warm_b "$B" "$spec"
done
for ((r = 0; r < ROUNDS; r++)); do
  for spec in "$ROOT"/bench/gpu/sweep128_size.yaml "$ROOT"/bench/gpu/sweep128_stride.yaml; do
    one a "$A" "$spec"
    one b "$B" "$spec"
  done
done

python3 - "$LOG" "$A" "$B" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    head, _, detail = line.partition("|")
    tag, spec, wall, kern = head.split()
    if tag in ("a", "b"):
        rows.setdefault((tag, spec), []).append((float(wall), float(kern), detail.strip()))
print(f"A = {sys.argv[2]}\nB = {sys.argv[3]}")
print("| binary | sweep | runs | wall ms (median) | kernels ms | outside kernels |")
print("| --- | --- | --- | --- | --- | --- |")
for (tag, spec), v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    v.sort()
    w, k, _ = v[len(v) // 2]
    print(f"| {tag.upper()} | {spec} | {len(v)} | {w:.2f} | {k:.2f} | {100 * (w - k) / w:.1f} % |")
print()
for (tag, spec), v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    print(f"{tag.upper()} {spec} median run: {v[len(v) // 2][2]}")
PY
