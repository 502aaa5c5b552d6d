#!/usr/bin/env bash
# Installs DCW's build and test dependencies from Debian 12's archive, only those missing, so the
# README's commands and CI work on a fresh machine. Needs root (or sudo) when something is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config ccache
  qt6-base-dev qt6-svg-dev qt6-charts-dev libqt6opengl6-dev                  # GUI (Qt 6.4; Charts needs OpenGL's CMake files)
  libqscintilla2-qt6-dev libgl-dev
  libonnx-dev libprotobuf-dev protobuf-compiler                             # ONNX import
  nlohmann-json3-dev libcli11-dev                                           # JSON, command line
  libgraphviz-dev                                                           # graph layout
  libdnnl-dev ocl-icd-opencl-dev                                            # oneDNN implementations
  libonnx-testdata                                                          # ONNX conformance models
  verilator make                                                            # RTL simulation of FPGA kernels (Verilator builds with make)
  python3 python3-onnx python3-torch python3-torchvision                    # reference models
  clang libclang-rt-14-dev                                                  # libFuzzer target
  xvfb xauth time                                                           # GUI tests, benchmarks
)

# `setup-deps.sh --list` prints the list (scripts/check-deps.py checks it covers what the build used).
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# ONNX Runtime, the peer the comparison tests and benchmarks run (../shared/peers), comes from the npm
# registry: Node.js and npm from Debian when no npm is on the PATH (a Node.js installed otherwise,
# e.g. NodeSource's, which bundles npm, is kept).
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "dcw: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
