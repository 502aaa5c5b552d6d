// RtlFloatCores: the text of codegen/fpga/rtl/dcw_float32.vh — Verilog functions for IEEE-754 binary32
// add, subtract, multiply, compare and int64 conversions, equal bit for bit to g++'s float arithmetic —
// embedded at build time, so that RtlGenerator pastes them into every loop module that computes in
// floating point and a generated Verilog file stays self-contained.
#pragma once

#include <string_view>

namespace dcw::codegen {

std::string_view rtlFloatCores();

} // namespace dcw::codegen
