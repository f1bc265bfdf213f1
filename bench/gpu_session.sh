#!/usr/bin/env bash
# One session on a machine with an NVIDIA GPU: the GPU test suite, `dissect topology` N times
# in a row (the stability and time targets), the backend benchmarks (bench/gpu_bench.sh),
# optionally the probe specs of bench/gpu/, and a short table last.
#
# Usage (from the repository root):
#   bench/gpu_session.sh [-n N | --runs N] [--device D] [--cold] [PART...]
# PART: tests | topology | bench | probes | library | time | timeline | summary, or all (the
# default: tests topology bench summary; probes, library, time and timeline only when named).
# time: bench/topology_time.sh -n N (cold, warm and --fast rounds, each a fresh process); with
# BASELINE_BIN, N rounds of each binary interleaved instead (bench/topology_ab.sh; the
# baseline's specs and templates from BASELINE_ROOT, a checkout of its commit), then `dissect
# compare` of the baseline's first warm run and this build's (figures equal within a search
# step, or flagged). timeline: one warm topology and one --fast with DISSECT_CUDA_TIMING=2
# (every run's host timeline). -n: topology runs (default 3; the first runs with an empty
# compile cache, the others warm). --cold: every topology run compiles afresh (--no-cache).
#
# Binary: bench/find_dissect.sh (DISSECT_BIN, else .carry/dissect, build-gpu/dissect,
# build/dissect; scripts/gpu_pack.sh fills .carry/ from a -DDISSECT_STATIC_DEPS=ON build). The GPU
# tests run the dissect_tests beside it (DISSECT_TESTS_BIN to choose another) with
# --test-suite=gpu, the command `ctest -L gpu` runs (a carried build folder's CTestTestfile names
# the build machine's paths, and the device machine may have no cmake); without a test binary,
# `ctest --test-dir DISSECT_BUILD -L gpu`.
# Environment: OUT (results, default /tmp/dissect-session/out), WORK (full run directories, left
# on the machine; default /tmp/dissect-session/work), PROBES (bench/gpu spec names or spec paths
# for `probes`; default the evidence specs of results/h200), LIBRARY (spec-library families for
# `library`; default mei meltzer mt4g coalescing), SPEC_TIMEOUT (seconds per library spec, default 120), DISSECT_CUDA_TIMING=1|2 (each
# run's breakdown or host timeline on its stderr), PER_SM_RUNS (bench/gpu_bench.sh).
#
# Under $OUT: time.txt, time_baseline.txt, time_ab.txt, time_compare.txt and time_runs.tgz (every
# run's topology.json, progress and table); timeline.txt.gz, timeline_fast.txt.gz; tests.txt; topology/run<i>/{topology.json,table.txt,stderr.txt},
# topology/walls.txt, topology/run1_bundles.tgz (run 1's step bundles without traces, report,
# kernel sources, PTX and SASS); bench.md, bench_table.txt; probes.tgz.part-* (the probes'
# bundles, traces gzipped, without kernel sources, PTX and SASS, and logs/<name>.txt);
# library.tgz.part-* (the same for every spec of the library, as `make -C specs` lays them out,
# plus logs/<family>_<name>.txt and times.txt); summary.txt (what is
# printed last: GPU test counts, the benchmark's target table, one row per topology run).
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
RUNS=3 DEVICE=0 COLD=0 PARTS=()
while (($#)); do
  case $1 in
    -n | --runs) RUNS=${2:?-n needs a number}; shift 2 ;;
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    --cold) COLD=1; shift ;;
    -h | --help) usage; exit 0 ;;
    all) PARTS+=(tests topology bench summary); shift ;;
    tests | topology | bench | probes | library | time | timeline | summary) PARTS+=("$1"); shift ;;
    *) echo "gpu_session: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
((${#PARTS[@]})) || PARTS=(tests topology bench summary)
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "gpu_session: -n wants a positive number, not '$RUNS'" >&2; exit 2; }
want() { [[ " ${PARTS[*]} " == *" $1 "* ]]; }
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN

OUT=${OUT:-/tmp/dissect-session/out}
WORK=${WORK:-/tmp/dissect-session/work}
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd) WORK=$(cd "$WORK" && pwd)
export DISSECT_BIN=$BIN DISSECT_SPECS=$ROOT/specs DISSECT_TEMPLATES=$ROOT/kernels_templates
status=0
smi() {
  command -v nvidia-smi > /dev/null &&
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
}
{ echo "# $(date -u +%FT%TZ) start, binary $BIN"; smi; } > "$OUT/nvidia-smi.txt" 2>&1

if want tests; then
  bindir=$(dirname "$BIN")
  TESTS=${DISSECT_TESTS_BIN:-}
  for t in "$bindir/dissect_tests" "$bindir/tests/dissect_tests"; do
    [ -z "$TESTS" ] && [ -x "$t" ] && TESTS=$t
  done
  if [ -n "$TESTS" ]; then
    echo "# $TESTS --test-suite=gpu" > "$OUT/tests.txt"
    "$TESTS" --test-suite=gpu >> "$OUT/tests.txt" 2>&1 || status=1
  elif command -v ctest > /dev/null; then
    echo "# ctest --test-dir ${DISSECT_BUILD:-$bindir} -L gpu" > "$OUT/tests.txt"
    ctest --test-dir "${DISSECT_BUILD:-$bindir}" -L gpu --output-on-failure >> "$OUT/tests.txt" 2>&1 || status=1
  else
    echo "no dissect_tests beside $BIN and no ctest: GPU tests not run" > "$OUT/tests.txt"
    status=1
  fi
fi

if want topology; then
  T=$OUT/topology
  # A fresh start: a warm machine keeps /tmp between calls, and old step bundles would sit
  # beside the new ones; the compile cache starts empty, so run 1 compiles every kernel.
  rm -rf "$T" "$WORK/topology" && mkdir -p "$T" "$WORK/topology"
  export XDG_CACHE_HOME=$WORK/topology/cache
  cold_flag=()
  ((COLD)) && cold_flag=(--no-cache)
  for i in $(seq 1 "$RUNS"); do
    mkdir -p "$T/run$i"
    t0=$(date +%s%N)
    "$BIN" topology --device "$DEVICE" --out "$WORK/topology/run$i" --quiet "${cold_flag[@]}" \
      > "$T/run$i/table.txt" 2> "$T/run$i/stderr.txt"
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    ((rc)) && status=1
    echo "run $i: exit $rc, process wall $ms ms (topology + report)" >> "$T/walls.txt"
    cp "$WORK/topology/run$i/topology.json" "$T/run$i/" 2> /dev/null
  done
  unset XDG_CACHE_HOME
  [ -d "$WORK/topology/run1" ] && tar czf "$T/run1_bundles.tgz" -C "$WORK/topology" \
    --exclude=trace.csv --exclude=trace.csv.gz --exclude='*.cu' --exclude='*.cuh' --exclude='*.ptx*' \
    --exclude='*.sass*' --exclude=report run1
fi

if want bench; then
  rm -rf "$WORK/bench"
  bash "$ROOT/bench/gpu_bench.sh" "$WORK/bench" > "$OUT/bench.md" 2>&1 || status=1
  cp "$WORK/bench/bench_table.txt" "$OUT/" 2> /dev/null
fi

if want probes; then
  rm -rf "$WORK/probes" "$OUT"/probes* && mkdir -p "$WORK/probes/logs"
  export XDG_CACHE_HOME=$WORK/probes-cache
  for p in ${PROBES:-paths_fine l1_latency l1_size_max_l1 l1_size_default l2_latency dram_latency phases_sharing l1_sets_chain}; do
    spec=$p
    [[ $p == */* || $p == *.yaml ]] || spec=$ROOT/bench/gpu/$p.yaml
    [[ $spec == /* ]] || spec=$ROOT/$spec
    name=$(basename "$spec" .yaml)
    "$BIN" run --device "$DEVICE" -q -o "$WORK/probes" "$spec" > "$WORK/probes/logs/$name.txt" 2>&1 || status=1
  done
  unset XDG_CACHE_HOME
  for t in "$WORK"/probes/*/trace.csv; do [ -f "$t" ] && gzip -f "$t"; done
  # At most 16 MiB a file comes back from the device machine: the archive in 15 MiB parts
  # (cat probes.tgz.part-* | tar xz).
  tar czf - -C "$WORK/probes" --exclude='*.cu' --exclude='*.cuh' --exclude='*.ptx*' --exclude='*.sass*' . \
    2> /dev/null | split -b 15M - "$OUT/probes.tgz.part-"
fi

if want library; then
  # The spec library as a user runs it (`make -C specs mei meltzer ... DEVICE=0`), one spec at a
  # time under a time limit so that one slow spec cannot eat the session; failures are logged and
  # the batch goes on.
  L=$WORK/library
  rm -rf "$L" "$OUT"/library* && mkdir -p "$L/logs"
  export XDG_CACHE_HOME=$WORK/library-cache
  for fam in ${LIBRARY:-mei meltzer mt4g coalescing}; do
    for spec in "$ROOT/specs/$fam"/*.yaml; do
      name=$(basename "$spec" .yaml)
      mkdir -p "$L/$fam"
      t0=$(date +%s%N)
      timeout "${SPEC_TIMEOUT:-120}" "$BIN" run "$spec" --device "$DEVICE" --out "$L/$fam" -q \
        > "$L/logs/${fam}_$name.txt" 2>&1
      rc=$?
      echo "$fam/$name exit $rc $((($(date +%s%N) - t0) / 1000000)) ms" >> "$L/times.txt"
      ((rc)) && status=1
    done
  done
  unset XDG_CACHE_HOME
  find "$L" -name trace.csv -exec gzip -f {} +
  tar czf - -C "$L" --exclude='*.cu' --exclude='*.cuh' --exclude='*.ptx*' --exclude='*.sass*' \
    --exclude=report . 2> /dev/null | split -b 15M - "$OUT/library.tgz.part-"
fi

if want time; then
  rm -rf "$WORK/time" "$OUT"/time.txt "$OUT"/time_* && mkdir -p "$WORK/time"
  if [ -n "${BASELINE_BIN:-}" ]; then
    # Interleaved with the baseline (bench/topology_ab.sh: ABBA rounds; a host drifts by a few
    # tenths of a second from one run to the next, so only interleaved runs compare builds).
    # The baseline reads its own specs and templates (BASELINE_ROOT: a checkout of its
    # commit): a template's parameter table is compiled into the binary that fills it.
    A_ROOT=${BASELINE_ROOT:-$ROOT} bash "$ROOT/bench/topology_ab.sh" -n "$RUNS" -o "$WORK/time/ab" \
      "$BASELINE_BIN" "$BIN" "$DEVICE" > "$OUT/time_ab.txt" 2>&1 || status=1
    for r in $(seq 1 "$RUNS"); do
      cat "$WORK/time/ab/b$r.txt" >> "$OUT/time.txt" 2> /dev/null
      cat "$WORK/time/ab/a$r.txt" >> "$OUT/time_baseline.txt" 2> /dev/null
    done
    "$BIN" compare "$WORK/time/ab/a1/round1-warm" "$WORK/time/ab"/b*/round1-warm > "$OUT/time_compare.txt" 2>&1
  else
    DISSECT_BIN=$BIN bash "$ROOT/bench/topology_time.sh" -n "$RUNS" -o "$WORK/time/current" "$DEVICE" \
      > "$OUT/time.txt" 2>&1 || status=1
  fi
  tar czf "$OUT/time_runs.tgz" -C "$WORK/time" --exclude='cache*' . 2> /dev/null
fi

if want timeline; then
  rm -rf "$WORK/timeline" && mkdir -p "$WORK/timeline"
  export XDG_CACHE_HOME=$WORK/timeline/cache
  "$BIN" topology --device "$DEVICE" --out "$WORK/timeline/cold" --quiet > /dev/null 2>&1 || status=1
  DISSECT_CUDA_TIMING=2 "$BIN" topology --device "$DEVICE" --out "$WORK/timeline/warm" --quiet \
    > /dev/null 2> "$WORK/timeline/timeline.txt" || status=1
  DISSECT_CUDA_TIMING=2 "$BIN" topology --device "$DEVICE" --fast --out "$WORK/timeline/fast" --quiet \
    > /dev/null 2> "$WORK/timeline/timeline_fast.txt" || status=1
  unset XDG_CACHE_HOME
  gzip -c "$WORK/timeline/timeline.txt" > "$OUT/timeline.txt.gz"
  gzip -c "$WORK/timeline/timeline_fast.txt" > "$OUT/timeline_fast.txt.gz"
fi

if want summary; then
  {
    echo "== $(date -u +%FT%TZ) $(smi 2> /dev/null | tail -1)"
    if [ -f "$OUT/tests.txt" ]; then
      echo "== GPU tests"
      grep -E '^\[doctest\] (test cases|Status)|tests passed|tests failed' "$OUT/tests.txt" || tail -3 "$OUT/tests.txt"
    fi
    for f in time_baseline time; do
      [ -f "$OUT/$f.txt" ] || continue
      echo "== bench/topology_time.sh ($f)"
      sed -n '/^run  *process s/,$p' "$OUT/$f.txt"
    done
    if [ -f "$OUT/time_ab.txt" ]; then
      echo "== bench/topology_ab.sh: baseline (A) and this build (B), interleaved"
      sed -n '/^build /,$p' "$OUT/time_ab.txt"
    fi
    if [ -f "$OUT/time_compare.txt" ]; then
      echo "== dissect compare: baseline warm vs current warm runs (rows not stable over the runs)"
      grep -v 'stable over' "$OUT/time_compare.txt" | head -40
    fi
    if [ -f "$OUT/bench.md" ]; then
      echo "== bench/gpu_bench.sh"
      sed -n '/^| measurement/,$p' "$OUT/bench.md"
    fi
    if [ -d "$WORK/probes/logs" ] && want probes; then
      echo "== probes"
      for f in "$WORK"/probes/logs/*.txt; do echo "$(basename "$f" .txt): $(grep -m1 -E 'complete|failed|error' "$f")"; done
    fi
    if [ -f "$WORK/library/times.txt" ] && want library; then
      echo "== spec library (exit, ms)"
      cat "$WORK/library/times.txt"
    fi
    if [ -f "$OUT/topology/walls.txt" ]; then
      echo "== dissect topology --device $DEVICE"
      if command -v python3 > /dev/null; then
        python3 - "$OUT/topology" << 'PY'
import glob, json, os, re, sys
top = sys.argv[1]
walls = {}
for line in open(os.path.join(top, "walls.txt")):
    m = re.match(r"run (\d+): exit (\d+), process wall (\d+) ms", line)
    if m:
        walls[int(m.group(1))] = (int(m.group(2)), int(m.group(3)) / 1000)
def size(c, k):
    v = c.get(k, {}).get("size_bytes")
    return "-" if v is None else str(v)
def lat(c, k):
    v = c.get(k, {}).get("latency_corrected_cycles")
    return "-" if v is None else f"{v:.1f}"
def bw(r, k):
    v = r.get("bandwidth", {}).get(k, {}).get("value")
    return "-" if v is None else f"{v:.0f}"
def tlb_levels(r):
    out = []
    for L in r.get("tlb", {}).get("levels", []):
        e = L.get("entries")
        e = "-".join(map(str, L.get("entries_range", []))) if e is None else str(e)
        reach = L.get("reach_bytes")
        out.append(f"{e}x{reach >> 20}M" if isinstance(reach, int) else f"{e}x?")
    return ",".join(out) or "-"
def page(r):
    p = r.get("tlb", {}).get("page_bytes")
    return "-" if p is None else f"{p >> 10}K"
cols = ["run", "exit", "process s", "wall s", "analysis s", "kernels s", "compile s", "steps",
        "L1 B", "texture B", "read-only B", "const L1 B", "L2 B", "cycles L1/L2/DRAM",
        "GB/s read/write DRAM", "L2", "shared", "TLB levels", "page"]
rows = []
for i in sorted(walls):
    rc, pw = walls[i]
    row = [str(i), str(rc), f"{pw:.1f}"]
    try:
        r = json.load(open(os.path.join(top, f"run{i}", "topology.json")))
    except (OSError, ValueError):
        rows.append(row + ["(no topology.json)"])
        continue
    t, c = r.get("timings", {}), r.get("caches", {})
    ex = r.get("experiments", [])
    done = sum(1 for e in ex if e.get("status") == "complete")
    row += [f"{t.get('wall_s', 0):.1f}", f"{t.get('analysis_ms', 0) / 1000:.1f}",
            f"{t.get('kernel_ms', 0) / 1000:.1f}", f"{t.get('compile_ms', 0) / 1000:.3f}",
            f"{done}/{len(ex)}", size(c, "l1"), size(c, "texture"), size(c, "readonly"),
            size(c, "constant_l1"), size(c, "l2"),
            "/".join(lat(c, k) for k in ("l1", "l2", "dram")),
            f"{bw(r, 'global')}/{bw(r, 'global_write')}", f"{bw(r, 'l2')}/{bw(r, 'l2_write')}",
            f"{bw(r, 'shared')}/{bw(r, 'shared_write')}", tlb_levels(r), page(r)]
    rows.append(row)
width = [max(len(x) for x in col) for col in zip(cols, *[r + [""] * (len(cols) - len(r)) for r in rows])]
for r in [cols] + rows:
    print("  ".join(x.rjust(w) for x, w in zip(r, width)))
PY
      else
        cat "$OUT/topology/walls.txt"
      fi
    fi
  } > "$OUT/summary.txt" 2>&1
  cat "$OUT/summary.txt"
fi
exit $status
