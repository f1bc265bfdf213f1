#!/usr/bin/env bash
# Installs the Debian packages dissect builds with, when they are missing.
# Run as root (or it prints the command to run). The CUDA toolkit (nvcc, NVRTC,
# headers, the driver stub) is expected under /usr/local/cuda or on PATH.
set -euo pipefail

packages=(cmake make g++ pkg-config libyaml-cpp-dev libboost-program-options-dev doctest-dev
          nlohmann-json3-dev libfmt-dev gnuplot-nox clang libclang-rt-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "install-deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "install-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps: run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: the CUDA toolkit was not found (no nvcc on PATH or in /usr/local/cuda/bin)." >&2
  echo "install-deps: dissect needs its headers, NVRTC and the driver-API headers; install CUDA 12.x or 13.x." >&2
  exit 1
fi
