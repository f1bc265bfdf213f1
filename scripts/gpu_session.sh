#!/usr/bin/env bash
# One device-machine session: the GPU test suite, the backend benchmarks
# (bench/gpu_bench.sh), the shared-memory bandwidth check (scripts/gpu_check_shared_bw.sh),
# the L1 capacity probe (bench/gpu/l1_capacity_probe.sh) and three topology runs
# (scripts/gpu_topology.sh).
# Everything under $OUT (at most 8 files come back: tests.txt, bench.md,
# bench_bundles.tgz, checks.tgz and the topology packs); the short tables last.
# PARTS picks what runs (default: all of "tests bench checks probes topology"); probes
# are the specs in bench/gpu/ named by PROBES, each run once (bundles in probes.tgz).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/dissect-session}
PARTS=${PARTS:-tests bench checks probes topology}
PROBES=${PROBES:-l1_sets_chain}
mkdir -p "$OUT"
export DISSECT_TEMPLATES=$ROOT/kernels_templates DISSECT_SPECS=$ROOT/specs
want() { [[ " $PARTS " == *" $1 "* ]]; }
if want tests; then
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; \
    "$ROOT/.carry/dissect_tests" --test-suite=gpu 2>&1 | tail -25; } > "$OUT/tests.txt" 2>&1
fi
if want bench; then
  bash "$ROOT/bench/gpu_bench.sh" /tmp/dissect-bench > "$OUT/bench.md" 2>&1
  (cd /tmp/dissect-bench && tar czf "$OUT/bench_bundles.tgz" --exclude='trace.csv' */ 2>/dev/null)
fi
if want checks; then
  DISSECT=$ROOT/.carry/dissect OUT=/tmp/dissect-checks bash "$ROOT/scripts/gpu_check_shared_bw.sh" > /tmp/shared_bw.txt 2>&1
  mv /tmp/shared_bw.txt /tmp/dissect-checks/shared_bw/summary.txt 2>/dev/null
  DISSECT=$ROOT/.carry/dissect OUT=/tmp/dissect-checks/l1_probe bash "$ROOT/bench/gpu/l1_capacity_probe.sh" > /tmp/l1_probe.txt 2>&1
  mv /tmp/l1_probe.txt /tmp/dissect-checks/l1_probe/table.txt 2>/dev/null
  (cd /tmp/dissect-checks && tar czf "$OUT/checks.tgz" --exclude='trace.csv' shared_bw l1_probe 2>/dev/null)
fi
if want probes; then
  for p in $PROBES; do
    "$ROOT/.carry/dissect" run --device 0 -q --no-analyze -o /tmp/dissect-probes "$ROOT/bench/gpu/$p.yaml" > "/tmp/probe_$p.txt" 2>&1
  done
  (cd /tmp/dissect-probes && tar czf "$OUT/probes.tgz" */ 2>/dev/null)
fi
if want topology; then
  OUT=/tmp/dissect-topology bash "$ROOT/scripts/gpu_topology.sh" > "$OUT/topology_summary.txt" 2>&1
  cp /tmp/dissect-topology/*.tgz "$OUT/"
fi
want tests && tail -3 "$OUT/tests.txt"
want bench && sed -n '/^| measurement/,$p' "$OUT/bench.md"
want checks && tail -12 /tmp/dissect-checks/shared_bw/summary.txt && cat /tmp/dissect-checks/l1_probe/table.txt
want topology && cat "$OUT/topology_summary.txt"
exit 0
