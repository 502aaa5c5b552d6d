// Runtime: the text of the small runtime that every generated CPU program includes inline (namespace
// dcw_rt): exact integer helpers for symbolic expressions (floor division and modulo), safe casts
// (NaN -> 0, saturating), round-half-to-even, erf/sigmoid/relu wrappers, float16/bfloat16 conversions
// (uint16 storage, float compute), aligned zero-initialised allocation with RAII ownership, atomic
// min/max, and the error status of a call. It is pasted as text so a compiled program depends on
// nothing but the C++ standard library (and OpenMP when enabled, and glibc's libmvec where the build
// links it: vector forms of the math functions).
#pragma once

#include <string_view>

namespace dcw::codegen {

std::string_view cpuRuntimeSource();
// The same runtime for nvcc: its math part (what tasklets call) callable from CUDA kernels as well.
std::string_view hostDeviceRuntimeSource();
// The pure math part of it alone (exact integer helpers, casts, 16-bit floats, math wrappers, the
// write-conflict min/max), self-contained: what device code (an FPGA project's kernels) includes.
std::string_view kernelMathSource();
// The profiling runtime (namespace dcw_prof): event buffer, timers and perf_event counter reads, pasted
// after cpuRuntimeSource() only into instrumented programs (CpuOptions::instrument).
std::string_view cpuProfileRuntimeSource();

} // namespace dcw::codegen
