// HlsShim: the text of codegen/fpga/shim/dcw_hls_sim.h — DCW's stand-ins for the Vitis HLS headers
// (ap_int, ap_fixed, a bounded hls::stream with deadlock detection, dataflow processing elements as
// threads) — embedded at build time, so that a C-simulation program is one self-contained source
// like every generated program (cached by content, built with nothing but g++).
#pragma once

#include <string_view>

namespace dcw::codegen {

std::string_view hlsShimSource();

} // namespace dcw::codegen
