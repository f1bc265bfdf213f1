#!/usr/bin/env bash
# Where a whole `dissect topology` spends its time, step by step: cold (an empty compile
# cache), warm (the cache the cold run filled) and --fast (warm), each a fresh process, and
# per run a table of every step's kernels, compile, analysis, host (the rest of its run) and
# wall, then the totals and the ratio of wall to summed kernel time; last, one row per run
# beside the issue's targets (warm <= 10 s, cold <= 15 s, fast <= 5 s, wall <= 1.5 x kernels).
# All figures of a table come from one run (its topology.json and the process's wall clock).
#
# Usage (from the repository root; any machine: a GPU, or a simulated one):
#   bench/topology_time.sh [-n N] [-o DIR] [--keep] [DEVICE]
# DEVICE: a CUDA ordinal or sim:<profile> (default 0). -n: rounds of cold, warm and fast (default
# 1; the targets want three in a row). -o: where the runs go (default /tmp/dissect-topology-time).
# --keep: keep the step bundles (default: only topology.json, the progress log and the table).
# Binary: bench/find_dissect.sh (DISSECT_BIN, else .carry/dissect, build-gpu/dissect, build/dissect).
#
# The cold run's compile cache is an empty directory (XDG_CACHE_HOME points at it; `dissect
# topology --no-cache` would compile afresh without storing anything, which the warm run needs).
# A run's wall: the process's, with the report; "table" is when the table was printed (the
# report comes after it), topology.json's wall_s the measurements and analyses alone.
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
ROUNDS=1 OUTDIR=/tmp/dissect-topology-time KEEP=0 DEVICE=0
while (($#)); do
  case $1 in
    -n) ROUNDS=${2:?-n needs a number}; shift 2 ;;
    -o) OUTDIR=${2:?-o needs a directory}; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "topology_time: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) DEVICE=$1; shift ;;
  esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "topology_time: -n wants a positive number, not '$ROUNDS'" >&2; exit 2; }
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN
export DISSECT_SPECS=${DISSECT_SPECS:-$ROOT/specs} DISSECT_TEMPLATES=${DISSECT_TEMPLATES:-$ROOT/kernels_templates}
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd)
now() { date +%s.%N; }
status=0
runs=()

# run NAME CACHE_DIR [OPTION...]: one topology in a fresh process into $OUTDIR/NAME.
run() {
  local name=$1 cache=$2
  shift 2
  local dir=$OUTDIR/$name
  rm -rf "$dir" && mkdir -p "$dir"
  local t0 t1
  t0=$(now)
  # The moment the table is printed ("written: ..." follows it), then the report.
  XDG_CACHE_HOME=$cache "$BIN" topology --device "$DEVICE" --out "$dir/topology" "$@" 2> "$dir/progress.txt" |
    while IFS= read -r line; do
      [[ $line == written:* ]] && now > "$dir/table_at"
      printf '%s\n' "$line"
    done > "$dir/table.txt"
  local rc=${PIPESTATUS[0]}
  t1=$(now)
  echo "$t0 $t1 $(cat "$dir/table_at" 2> /dev/null || echo "$t1") $rc" > "$dir/times"
  [ "$rc" = 0 ] || { echo "topology_time: $name: dissect topology exited $rc (see $dir/progress.txt)" >&2; status=1; }
  cp "$dir/topology/topology.json" "$dir/topology.json" 2> /dev/null
  if [ "$KEEP" = 0 ]; then rm -rf "$dir/topology"; fi
  runs+=("$dir")
}

echo "# $(date -u +%FT%TZ) $BIN topology --device $DEVICE; $ROUNDS round(s) of cold, warm, fast; runs under $OUTDIR"
for ((r = 1; r <= ROUNDS; r++)); do
  cache=$OUTDIR/cache$r
  rm -rf "$cache" && mkdir -p "$cache"
  run "round$r-cold" "$cache"
  run "round$r-warm" "$cache"
  run "round$r-fast" "$cache" --fast
  rm -rf "$cache"
done
python3 "$ROOT/bench/topology_time_table.py" "${runs[@]}"
exit $status
