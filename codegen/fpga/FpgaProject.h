// FpgaProject: the files beside the kernels that make a generated FPGA program a Vitis project a user
// with the vendor tools builds and runs (`dcw codegen --target fpga -o DIR`):
//  - dcw_math.h   the math helpers the kernels call (the CPU runtime's pure part);
//  - dcw_xrt.h    the host's device layer on XRT's native C++ API: global memory as host-mapped
//                 buffer objects in the bank the link configuration gives, each kernel launch
//                 synchronising its buffers to the device before and back after;
//  - link.cfg     one compute unit per kernel, every global-memory argument connected to its bank;
//  - Makefile     v++ compile (one .xo per kernel) and link (the .xclbin), and the host with XRT;
//  - README.md    how to build, the inputs and outputs the host reads and writes.
// Nothing here can be built without Vitis and XRT, which DCW's machines do not have: C-simulation
// (target fpga-sim) is how DCW runs the same kernels.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/fpga/FpgaDevice.h"
#include "codegen/fpga/HlsGenerator.h"
#include "core/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::codegen {

std::string_view xrtHostRuntimeSource();
// The byte size of each argument of `sig`; fails (located at `where`) on a size that is not constant.
Expected<std::vector<int64_t>> argumentBytes(const ProgramSignature& sig, const std::string& where);
// The main() that runs a generated program on raw files, one per argument (inputs and constants read,
// outputs written), then the symbols' values: for the Vitis host (Xrt: after the program in host.cpp,
// the .xclbin opened first) or for a C-simulation build (Simulation: its own file beside the program,
// which calls a `dcw_after_run()` hook when one is linked in). Fails like argumentBytes.
enum class HostMain { Xrt, Simulation };
Expected<std::string> hostMainSource(const ProgramSignature& sig, const std::string& where, HostMain kind);
// The project's further files for the kernels and signature of `program`, for `device`'s platform: the
// link configuration connects each kernel argument to its data's memory bank (HlsKernel::Arg). Fails
// naming the array when its bank is not on the board.
Expected<std::vector<GeneratedFile>> fpgaProjectFiles(const HlsProgram& program, const std::string& modelName,
                                                      const FpgaDevice& device = defaultFpgaDevice());

} // namespace dcw::codegen
