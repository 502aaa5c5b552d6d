#!/usr/bin/env bash
# check_float_cores.sh <repo source dir> <scratch dir>
# Builds tests/fpga/float_cores (the functions of codegen/fpga/rtl/dcw_float32.vh in a Verilated
# module, and a testbench comparing them with native x86 float arithmetic) and runs it. Exits non-zero
# on any mismatch; the testbench prints the first ones (function, hex inputs, expected, got).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 <repo source dir> <scratch dir>" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
mkdir -p "$2"
scratch=$(cd "$2" && pwd)
here="$src/tests/fpga/float_cores"

command -v verilator >/dev/null || { echo "check_float_cores: verilator not found" >&2; exit 2; }

# -O1 for the C++: the model is one small module; -Os/-O2 only lengthen the build. No -ffast-math:
# the testbench's reference arithmetic must be plain IEEE float.
verilator --cc --exe --build -O2 -Wno-fatal -Wno-lint -Wno-style \
  -I"$src/codegen/fpga/rtl" --top-module float_cores_top \
  -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O1 OPT_GLOBAL=-O1" \
  -Mdir "$scratch/obj" -o float_cores_tb \
  "$here/float_cores_top.v" "$here/float_cores_tb.cpp" >"$scratch/build.log" 2>&1 || {
  cat "$scratch/build.log" >&2
  echo "check_float_cores: the Verilator build failed" >&2
  exit 1
}

"$scratch/obj/float_cores_tb"
