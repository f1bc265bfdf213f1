#!/usr/bin/env bash
# Where a short per-SM sweep's fixed host cost goes on the GPU machine: runs the 128-point
# benchmark sweeps (bench/gpu/sweep128_*.yaml, warm compile cache) with --timing 2
# and prints each run's host timeline (engine/core/timeline.hpp), under the module-loading
# modes of the driver named in MODES (CUDA_MODULE_LOADING; default LAZY, the driver's own
# default; EAGER loaded the sweep's module no faster on the H100).
# Usage: bench/gpu_timeline.sh [RUNS_DIR] [REPS]   (DISSECT_BIN as for bench/gpu_bench.sh)
set -uo pipefail
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN
RUNS=${1:-/tmp/dissect-timeline}
REPS=${2:-3}
export DISSECT_TEMPLATES=${DISSECT_TEMPLATES:-$ROOT/kernels_templates}
export XDG_CACHE_HOME=$RUNS/cache
mkdir -p "$RUNS"
for sweep in size stride; do
  "$BIN" run --no-analyze -q -o "$RUNS/warmup" "$ROOT/bench/gpu/sweep128_$sweep.yaml" > /dev/null
done
for mode in ${MODES:-LAZY}; do
  for sweep in stride size; do
    for r in $(seq 1 "$REPS"); do
      echo "== $sweep per-SM, CUDA_MODULE_LOADING=$mode, run $r"
      CUDA_MODULE_LOADING=$mode "$BIN" run --timing 2 --no-analyze -q -o "$RUNS/$mode" \
        "$ROOT/bench/gpu/sweep128_$sweep.yaml" 2>&1 | grep -v '^/'
    done
  done
done
