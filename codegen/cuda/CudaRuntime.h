// CudaRuntime: the text of the small CUDA runtime every generated CUDA program includes inline after the
// host runtime (namespace dcw_cu): the program's stream, created when it first runs, after checking
// that a GPU is there; error reports that name the element and the failing call; device memory for
// transients from a pool kept while the program is loaded (a block freed at the end of one run serves
// the same size in the next, so repeated runs do not call cudaMalloc); the atomics that
// write-conflict resolution needs in kernels (add natively, everything else by compare-and-swap).
#pragma once

#include <string>
#include <string_view>

namespace dcw::codegen {

// What comes first: cuda_runtime.h (and cublas_v2.h with `cublas`, cudnn.h with `cudnn`), or the host
// stand-ins of cuda-sim (DCW_CUDA_SIM defined): the runtime's calls, cuBLAS's handle and SGEMMs computed
// as cuBLAS defines them (column-major, op(A) m x k, op(B) k x n, C not read when beta is 0), and
// cuDNN's descriptors, convolution (cross-correlation with groups, pads, strides, dilations),
// cudnnAddTensor, pooling, softmax, inference batch normalization and activation computed as cuDNN
// defines them.
std::string cudaHeaderSource(bool cublas, bool cudnn);
// The runtime, after the host runtime.
std::string_view cudaRuntimeSource();
// GPU timing of an instrumented program (events on the stream), after DCW's profiling runtime.
std::string_view cudaProfileSource();

} // namespace dcw::codegen
