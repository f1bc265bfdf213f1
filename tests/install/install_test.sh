#!/usr/bin/env bash
# The installed dissect, away from its source tree: `cmake --install` into a
# scratch prefix (then moved: a prefix is relocatable), and the .deb of CPack
# unpacked into a scratch root (dpkg-deb -x). Each binary runs from a scratch
# directory with DISSECT_* unset, must read its templates and specs from where
# it was installed (`dissect --version` says where), and runs a simulated --fast
# topology and an Accel-Sim export there.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
unset DISSECT_SPECS DISSECT_TEMPLATES DISSECT_NO_CACHE
export XDG_CACHE_HOME="$scratch/cache"

fail() { echo "install test: $*" >&2; exit 1; }

run_installed() {  # binary, its share/dissect, a name
  local bin=$1 share=$2 name=$3
  [ -x "$bin" ] || fail "$name: no binary at $bin"
  cd "$scratch"
  local version
  version=$("$bin" --version) || fail "$name: --version failed"
  echo "$version"
  grep -qxF "specs:     $share/specs" <<<"$version" || fail "$name: specs not read from $share/specs"
  grep -qxF "templates: $share/kernels_templates" <<<"$version" || fail "$name: templates not read from $share"
  # NVRTC bundled next to the binary (DISSECT_BUNDLE_NVRTC) is the one it loads.
  local libdir
  libdir=$(dirname "$share")/../lib/dissect
  if ls "$libdir"/libnvrtc.so.* >/dev/null 2>&1; then
    local libs  # not `ldd | grep -q`: grep's early exit would fail the pipe (pipefail)
    libs=$(env -u LD_LIBRARY_PATH ldd "$bin")  # the RUNPATH alone, as an installed binary finds it
    grep -qF "=> $(dirname "$bin")/../lib/dissect/libnvrtc.so" <<<"$libs" \
      || fail "$name: the bundled NVRTC is not the one loaded"
  fi
  "$bin" topology --device sim:h100-sxm --fast --no-report --quiet --out "$scratch/topology-$name" \
    || fail "$name: the simulated topology failed"
  grep -q '^  "status": "complete"' "$scratch/topology-$name/topology.json" || fail "$name: topology incomplete"
  "$bin" export accelsim "$scratch/topology-$name" -o "$scratch/$name.config" || fail "$name: export failed"
  "$bin" export accelsim --check "$scratch/$name.config" || fail "$name: export check failed"
  echo "install test: $name: ok"
}

# 1. cmake --install into a prefix, moved elsewhere.
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
mv "$scratch/prefix" "$scratch/moved"
[ -f "$scratch/moved/share/doc/dissect/README.md" ] || fail "prefix: no README under share/doc/dissect"
[ -f "$scratch/moved/share/doc/dissect/topology.md" ] || fail "prefix: no docs under share/doc/dissect"
[ -f "$scratch/moved/share/dissect/specs/devices/h100-sxm.yaml" ] || fail "prefix: no device profiles"
run_installed "$scratch/moved/bin/dissect" "$scratch/moved/share/dissect" prefix

# 2. The .deb, unpacked into a scratch root.
(cd "$build" && cpack -G DEB -B "$scratch/deb" >/dev/null)
deb=$(ls "$scratch"/deb/*.deb)
dpkg-deb -f "$deb" Package Version Depends
dpkg-deb -x "$deb" "$scratch/root"
run_installed "$scratch/root/usr/bin/dissect" "$scratch/root/usr/share/dissect" deb
