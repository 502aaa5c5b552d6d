#!/usr/bin/env bash
# Configures and builds DCW into build/ (or $DCW_BUILD_DIR; Release, Ninja, 2 jobs). Extra arguments go
# to cmake.
# Compilations go through ccache when it is installed (setup-deps.sh installs it), keyed relative to
# the checkout, so a second clone on the same machine (CI) reuses what the first compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  # pch_defines,time_macros: what ccache needs to cache compilations that use a precompiled header
  # (the test suites', tests/CMakeLists.txt); no source uses __DATE__ or __TIME__.
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
build=${DCW_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" >/dev/null
cmake --build "$build" -j "${DCW_JOBS:-2}"
