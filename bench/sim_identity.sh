#!/usr/bin/env bash
# Behaviour check for refactorings: runs every spec of the library on every
# simulated profile with two dissect binaries and compares what they measured,
# byte for byte (points.csv and trace.csv of each bundle, and the exit status).
#
#   bench/sim_identity.sh record BINARY OUTDIR    run the library with BINARY, keep the bundles in OUTDIR
#   bench/sim_identity.sh compare OUTDIR_A OUTDIR_B
#   bench/sim_identity.sh BINARY_A BINARY_B        both of the above (scratch folders under $TMPDIR)
#
# Each binary runs with the specs and templates of its own build folder. PROFILES
# (space-separated) and SPECS (a folder or a file list) narrow the run.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
profiles=${PROFILES:-"fermi-gtx560ti kepler-gtx780 maxwell-gtx980 tesla-c2070 h100-sxm"}

record() {  # BINARY OUTDIR
  local bin=$1 out=$2
  mkdir -p "$out"
  local specs
  if [[ -n "${SPECS:-}" ]]; then specs=$SPECS; else
    specs=$(cd "$here" && find specs -name '*.yaml' -not -path 'specs/devices/*' -not -path 'specs/base/*' | sort)
  fi
  for p in $profiles; do
    for s in $specs; do
      local tag=${s//\//_}
      local dir="$out/$p/$tag"
      mkdir -p "$dir"
      # Abstract bases and specs a profile cannot run end with their status, compared too.
      set +e
      "$bin" run "$here/$s" --device "sim:$p" --out "$dir" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
      echo $? >"$dir/status"
      set -e
    done
    echo "sim_identity: $p recorded" >&2
  done
}

compare() {  # A B
  local a=$1 b=$2 diffs=0 files=0
  while IFS= read -r f; do
    rel=${f#"$a"/}
    files=$((files + 1))
    if [[ ! -f "$b/$rel" ]]; then echo "missing in $b: $rel"; diffs=$((diffs + 1)); continue; fi
    cmp -s "$f" "$b/$rel" || { echo "differs: $rel"; diffs=$((diffs + 1)); }
  done < <(find "$a" \( -name points.csv -o -name trace.csv -o -name status \) | sort)
  local nb
  nb=$(find "$b" \( -name points.csv -o -name trace.csv -o -name status \) | wc -l)
  [[ $nb -eq $files ]] || { echo "file counts differ: $files in $a, $nb in $b"; diffs=$((diffs + 1)); }
  echo "sim_identity: $files files compared, $diffs differ"
  [[ $diffs -eq 0 ]]
}

case "${1:-}" in
  record) record "$2" "$3" ;;
  compare) compare "$2" "$3" ;;
  ""|-h|--help) sed -n '2,12p' "$0"; exit 2 ;;
  *)
    work=$(mktemp -d)
    record "$1" "$work/a"
    record "$2" "$work/b"
    compare "$work/a" "$work/b"
    ;;
esac
