#!/usr/bin/env bash
# Resumption on a real GPU (issue 19): an interrupted `dissect topology` and an interrupted
# `dissect run`, each continued with --resume, against the same work done without interruption.
#
# Usage (from the repository root, on the GPU machine): bench/gpu_resume_check.sh [--device D]
# Environment: OUT (results, default /tmp/dissect-resume/out), WORK (run directories, default
# /tmp/dissect-resume/work), STEPS (topology steps, default five latency and size steps),
# SPEC (the run's spec, default specs/meltzer/saavedra_ca.yaml: one point at a time, knees found), AFTER
# (seconds before SIGINT; default half the uninterrupted run's time).
#
# Under $OUT: resume.txt (what was done, each command's exit status, the comparison) and the
# topology.json files (uninterrupted.json, resumed.json). Exit 1 when a resumed result differs.
set -uo pipefail
DEVICE=0
while (($#)); do
  case $1 in
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "gpu_resume_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
# shellcheck source=bench/find_dissect.sh
. "$(dirname "$0")/find_dissect.sh"  # ROOT, BIN
OUT=${OUT:-/tmp/dissect-resume/out}
WORK=${WORK:-/tmp/dissect-resume/work}
SPEC=${SPEC:-$ROOT/specs/meltzer/saavedra_ca.yaml}
read -r -a steps <<< "${STEPS:-l1_latency l1_size l2_latency l2_size dram_latency}"
only=()
for s in "${steps[@]}"; do only+=(--only "$s"); done
rm -rf "$WORK" && mkdir -p "$OUT" "$WORK"
export DISSECT_SPECS=$ROOT/specs DISSECT_TEMPLATES=$ROOT/kernels_templates XDG_CACHE_HOME=$WORK/cache
status=0
: > "$OUT/resume.txt"
log() { echo "$*" | tee -a "$OUT/resume.txt"; }
json_status() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "$1" 2> /dev/null; }

# Runs a command; `took` holds its wall time in seconds.
timed() {
  local t0 rc
  t0=$(date +%s%N)
  "$@" > /dev/null
  rc=$?
  took=$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.2f", ns / 1e9 }')
  return $rc
}
# Runs a command and sends it SIGINT after `after` seconds; its exit status.
interrupted() {
  "$@" > /dev/null 2>> "$OUT/resume.txt" &
  local pid=$!
  sleep "$after"
  kill -INT "$pid" 2> /dev/null
  wait "$pid"
}
half() { awk -v t="$1" 'BEGIN { printf "%.2f", t / 2 }'; }

log "# topology: ${steps[*]} on device $DEVICE"
timed "$BIN" topology --device "$DEVICE" "${only[@]}" --no-report -q --out "$WORK/whole"
log "uninterrupted: exit $?, $took s"
after=${AFTER:-$(half "$took")}
interrupted "$BIN" topology --device "$DEVICE" "${only[@]}" --no-report -q --out "$WORK/cut"
log "interrupted after $after s: exit $?, status $(json_status "$WORK/cut/topology.json")"
"$BIN" topology --device "$DEVICE" --resume "$WORK/cut" --no-report -q > /dev/null
log "resumed: exit $?, status $(json_status "$WORK/cut/topology.json")"
cp "$WORK/whole/topology.json" "$OUT/uninterrupted.json"
cp "$WORK/cut/topology.json" "$OUT/resumed.json"
"$BIN" compare "$WORK/whole" "$WORK/cut" --label uninterrupted --label resumed > "$WORK/compare.txt"
tee -a "$OUT/resume.txt" < "$WORK/compare.txt"
grep -qiE 'differ|unstable' "$WORK/compare.txt" && { log "the resumed topology differs"; status=1; }

log "# run: $(basename "$SPEC") on device $DEVICE"
timed "$BIN" run "$SPEC" --device "$DEVICE" -q --out "$WORK/run_whole"
log "uninterrupted: exit $?, $took s"
after=${AFTER:-$(half "$took")}
interrupted "$BIN" run "$SPEC" --device "$DEVICE" -q --out "$WORK/run_cut"
rc=$?
bundle=$(find "$WORK/run_cut" -mindepth 1 -maxdepth 1 -type d | head -1)
log "interrupted after $after s: exit $rc, status $(json_status "$bundle/bundle.json"), $(($(wc -l < "$bundle/points.csv") - 1)) points"
"$BIN" run --resume "$bundle" --device "$DEVICE" -q > /dev/null
log "resumed: exit $?, status $(json_status "$bundle/bundle.json")"
whole=$(find "$WORK/run_whole" -mindepth 1 -maxdepth 1 -type d | head -1)
for b in "$whole" "$bundle"; do
  # Every finding's analyzer, value and unit, in order.
  findings=$("$BIN" analyze "$b" --json 2> /dev/null |
    python3 -c 'import json, sys; print(" ".join("%s=%s%s" % (f["analyzer"], f.get("value"), f.get("unit", "")) for f in map(json.loads, sys.stdin)))')
  log "$(basename "$(dirname "$b")"): $(($(wc -l < "$b/points.csv") - 1)) points; findings: $findings"
  echo "$findings" >> "$WORK/values.txt"
done
[ "$(sort -u "$WORK/values.txt" | wc -l)" = 1 ] || { log "the resumed run's findings differ"; status=1; }
grep -qE '=[0-9]' "$WORK/values.txt" || { log "no finding has a value: the comparison says nothing (choose another SPEC)"; status=1; }
exit $status
