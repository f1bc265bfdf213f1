#!/usr/bin/env bash
# Two dissect builds timed on one device, interleaved: N rounds of bench/topology_time.sh -n 1
# (cold, warm and --fast, each a fresh process, a compile cache of the round's own) for each
# build, A then B in odd rounds and B then A in even ones (a steady drift favours neither).
# A host's speed drifts from lease to lease and within one (a build timed after another on
# the same card runs a few tenths of a second apart by that alone): only runs interleaved so
# compare two builds. Prints every run's row (a run that failed or did not complete is named
# and left out) and, per build, the medians of the warm topology wall, its kernels and
# wall / kernels, and of the --fast process wall (with the report), then B's medians less A's.
#
# Usage (from the repository root):
#   bench/topology_ab.sh [-n N] [-o DIR] A_BIN B_BIN [DEVICE]
# N: rounds per build (default 3). DIR: the runs (default /tmp/dissect-ab). DEVICE: a CUDA
# ordinal or sim:<profile> (default 0). A_ROOT, B_ROOT: checkouts whose specs and templates
# each build reads (default: this repository; a template's parameter table is compiled into
# the binary that fills it).
set -uo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
ROUNDS=3 OUTDIR=/tmp/dissect-ab ARGS=()
while (($#)); do
  case $1 in
    -n) ROUNDS=${2:?-n needs a number}; shift 2 ;;
    -o) OUTDIR=${2:?-o needs a directory}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "topology_ab: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
((${#ARGS[@]} >= 2 && ${#ARGS[@]} <= 3)) || { echo "topology_ab: wants A_BIN B_BIN [DEVICE]" >&2; usage >&2; exit 2; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "topology_ab: -n wants a positive number, not '$ROUNDS'" >&2; exit 2; }
A=${ARGS[0]} B=${ARGS[1]} DEVICE=${ARGS[2]:-0}
for bin in "$A" "$B"; do [ -x "$bin" ] || { echo "topology_ab: '$bin' is not an executable" >&2; exit 2; }; done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd)
status=0

echo "# $(date -u +%FT%TZ) A: $A ($("$A" --version | head -1)), B: $B ($("$B" --version | head -1)); device $DEVICE; $ROUNDS rounds each, interleaved"
for ((r = 1; r <= ROUNDS; r++)); do
  order="a b"
  ((r % 2 == 0)) && order="b a"
  for side in $order; do
    if [ $side = a ]; then bin=$A root=${A_ROOT:-$ROOT}; else bin=$B root=${B_ROOT:-$ROOT}; fi
    rm -rf "${OUTDIR:?}/$side$r"
    DISSECT_BIN=$bin DISSECT_SPECS=$root/specs DISSECT_TEMPLATES=$root/kernels_templates \
      bash "$ROOT/bench/topology_time.sh" -n 1 -o "$OUTDIR/$side$r" "$DEVICE" > "$OUTDIR/$side$r.txt" 2>&1 || status=1
  done
done

python3 - "$OUTDIR" "$ROUNDS" << 'PY'
import json, os, statistics, sys

out, rounds = sys.argv[1], int(sys.argv[2])

def row(d):
    with open(os.path.join(d, "topology.json")) as f:
        t = json.load(f)
    with open(os.path.join(d, "times")) as f:
        t0, t1, _, rc = f.read().split()
    if rc != "0" or t.get("status") != "complete":
        raise ValueError(f"exit {rc}, status {t.get('status')}: left out")
    kernels = sum((e.get("kernel_ms") or 0.0) for e in t.get("experiments", [])) / 1000
    wall = t.get("timings", {}).get("wall_s") or 0.0
    return {"process": float(t1) - float(t0), "wall": wall, "kernels": kernels,
            "ratio": wall / kernels if kernels > 0 else float("nan")}

runs = {"a": {"cold": [], "warm": [], "fast": []}, "b": {"cold": [], "warm": [], "fast": []}}
print(f"{'run':<12} {'process s':>9} {'topology s':>10} {'kernels s':>9} {'wall/kern':>9}")
for r in range(1, rounds + 1):
    for side in ("a", "b"):
        for kind in ("cold", "warm", "fast"):
            d = os.path.join(out, f"{side}{r}", f"round1-{kind}")
            try:
                x = row(d)
            except (OSError, ValueError, KeyError) as e:
                print(f"{side}{r}-{kind:<8} not counted ({e})")
                continue
            runs[side][kind].append(x)
            print(f"{side}{r}-{kind:<8} {x['process']:9.2f} {x['wall']:10.2f} {x['kernels']:9.2f} {x['ratio']:9.3f}")

def med(side, kind, key):
    v = [x[key] for x in runs[side][kind]]
    return statistics.median(v) if v else float("nan")

print(f"\n{'build':<6} {'warm topology s':>15} {'warm kernels s':>14} {'warm wall/kern':>14} {'fast process s':>14}  (medians)")
for side in ("a", "b"):
    print(f"{side.upper():<6} {med(side, 'warm', 'wall'):15.2f} {med(side, 'warm', 'kernels'):14.2f} "
          f"{med(side, 'warm', 'ratio'):14.3f} {med(side, 'fast', 'process'):14.2f}")
print(f"{'B - A':<6} {med('b', 'warm', 'wall') - med('a', 'warm', 'wall'):+15.2f} "
      f"{med('b', 'warm', 'kernels') - med('a', 'warm', 'kernels'):+14.2f} "
      f"{med('b', 'warm', 'ratio') - med('a', 'warm', 'ratio'):+14.3f} "
      f"{med('b', 'fast', 'process') - med('a', 'fast', 'process'):+14.2f}")
PY
exit $status
