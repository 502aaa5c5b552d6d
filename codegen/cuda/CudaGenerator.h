// CudaGenerator: the CUDA target's generator. One CUDA translation unit (program.cu) with the C ABI of
// codegen/GeneratedCode.h: host code is the CPU generator's (control flow, host maps with OpenMP,
// nested SDFGs that run between kernels), and on the GPU:
//  - every gpu_device map becomes a kernel (`__global__`, one per map) and a launch in the host code:
//    the map's leading parameters whose ranges do not depend on each other are linearised onto the grid
//    (any number of dimensions; 256 threads a block, a grid-stride loop past 2^20 blocks), the rest and
//    every map inside run as loops in each thread;
//  - a tasklet outside maps that touches GPU data runs as a kernel of one thread;
//  - copies between host and GPU memory, and contiguous ones within the GPU, are cudaMemcpyAsync; other
//    copies within the GPU a copy kernel;
//  - transients in GPU global memory come from a device pool (zeroed on the stream), transients inside
//    a kernel are thread-local arrays;
//  - write-conflict resolution in kernels is atomic where two threads may write the same element
//    (atomicAdd for sums, compare-and-swap loops for the rest, with the CPU's semantics).
// Everything runs on one stream, created when the program first runs; every launch and API call is
// checked and a failure names the element. Host and device memory are kept apart: a host element that
// touches GPU memory, or a kernel that touches host memory, is refused naming both.
// Instrumented programs time kernels, GPU copies and GPU library calls with CUDA events on the stream
// (their own track, "GPU stream 0", on the host's clock); states and nested SDFGs on the host, waiting
// for the stream before they end, so their time includes the GPU work they queued.
#pragma once

#include "codegen/GeneratedCode.h"
#include "core/support/Expected.h"

#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct CudaOptions {
  Instrumentation instrument;
};

// One kernel of the program: the element it comes from and its function.
struct CudaKernel {
  ir::ElementId element = ir::kNoId;
  std::string path;
  std::string function;
};

struct CudaProgram {
  GeneratedCode code;
  std::vector<CudaKernel> kernels; // in the order they appear
};

Expected<CudaProgram> generateCuda(const ir::Sdfg& sdfg, const CudaOptions& options = {});

} // namespace dcw::codegen
