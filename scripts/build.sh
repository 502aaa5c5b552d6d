#!/usr/bin/env bash
# Configures and builds DCW into build/ (Release, Ninja, 2 jobs). Extra arguments go to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "${DCW_JOBS:-2}"
