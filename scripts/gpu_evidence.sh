#!/usr/bin/env bash
# Evidence of the CUDA backend on a real GPU (issue 3): environment, the GPU test suite,
# every spec under bench/gpu/, the benchmarks (bench/gpu_bench.sh), and a summary table.
# Usage (repository root, on a machine with a GPU):
#   scripts/gpu_evidence.sh smoke   environment + GPU tests + two small specs
#   scripts/gpu_evidence.sh all     everything
# Binaries: .carry/dissect and .carry/dissect_tests (scripts/gpu_pack.sh makes them), or
# DISSECT_BIN / DISSECT_TESTS_BIN. Results: $OUT (default ./gpu-out): log.txt, summary.md,
# bundles.tar.gz (bundles with trace.csv gzipped).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STAGE=${1:-all}
BIN=${DISSECT_BIN:-$ROOT/.carry/dissect}
TESTS=${DISSECT_TESTS_BIN:-$ROOT/.carry/dissect_tests}
OUT=${OUT:-$ROOT/gpu-out}
RUNS=/tmp/dissect-runs
export DISSECT_TEMPLATES=$ROOT/kernels_templates
export XDG_CACHE_HOME=/tmp/dissect-cache
export DISSECT_CUDA_TIMING=1   # a per-run breakdown of where the wall time goes, on stderr
mkdir -p "$OUT" "$RUNS"
LOG=$OUT/log.txt
exec > >(tee -a "$LOG") 2>&1

echo "### environment"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
ldd "$BIN" | grep -E "nvrtc|not found" || true
"$BIN" --version 2>/dev/null || true
"$BIN" list devices
command -v cuobjdump nvdisasm || true

echo "### GPU tests"
time "$TESTS" --test-suite=gpu 2>&1 | tail -40

specs=(paths_fine l1_latency)
[ "$STAGE" = all ] && specs+=(l1_size_max_l1 l1_size_default l2_latency dram_latency phases_sharing)
for s in "${specs[@]}"; do
  echo "### run bench/gpu/$s.yaml"
  time "$BIN" run -q -o "$RUNS" "$ROOT/bench/gpu/$s.yaml" 2>&1 | tail -8
done

if [ "$STAGE" = all ]; then
  # Spec-library experiments of the other kernel templates (analyzers run offline later).
  for s in mei/shared_latency_stride coalescing/sectors_per_request mei/global_throughput mei/shared_throughput \
           mt4g/sharing_l1_texture mt4g/amount_texture; do
    echo "### run specs/$s.yaml"
    time "$BIN" run -q --no-analyze -o "$RUNS" "$ROOT/specs/$s.yaml" 2>&1 | tail -8
  done
  echo "### benchmarks"
  "$ROOT/bench/gpu_bench.sh" /tmp/dissect-bench 2>&1 | tee "$OUT/bench.md"
  nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
fi

echo "### summary"
python3 "$ROOT/scripts/gpu_summary.py" "$RUNS" > "$OUT/summary.md" 2>&1
# Bundles come back small: traces gzipped, the compile caches left behind.
for t in "$RUNS"/*/trace.csv; do gzip -f "$t"; done
tar czf "$OUT/bundles.tar.gz" -C "$RUNS" . 2>/dev/null
for f in /tmp/dissect-bench/*/*/bundle.json; do d=$(dirname "$f"); rm -f "$d/trace.csv"; done
tar czf "$OUT/bench_bundles.tar.gz" -C /tmp/dissect-bench . 2>/dev/null
ls -la "$OUT"
cat "$OUT/summary.md"
[ -f "$OUT/bench.md" ] && tail -12 "$OUT/bench.md"
