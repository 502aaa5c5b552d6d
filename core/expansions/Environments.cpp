// The one explicit list of environments (see Environment.h).
//
//   onednn  oneDNN 2.x (Debian's libdnnl-dev): one CPU engine per loaded program, created by dcw_init,
//           and an in-order stream per thread that runs calls; each oneDNN tasklet's primitive and reordered constant
//           weights are made on its first run and kept while the program is loaded
//           (onednn/OneDnnRuntime.cpp). Its kernels written with AVX-512 intrinsics (the LSTM recurrence's
//           activations) need <immintrin.h>, which only oneDNN programs include: it made up 25 of the 61 MB
//           of every program's precompiled prelude, and loading it cost each 0.07 s of its compile.
// A header named with a trailing '?' is included where the platform has it (`#if __has_include`).
//   cublas  cuBLAS (the CUDA toolkit's libcublas): one handle per loaded program, created on the first
//           call and set to the program's stream (cuda/CublasOps.h); its header comes with the CUDA
//           target's prologue (cuda-sim: DCW's host stand-in of the same calls).
//   cudnn   cuDNN 9 (libcudnn, beside the toolkit or where CPATH/LIBRARY_PATH point): one handle per
//           loaded program and per convolution its descriptors, measured algorithm and workspace,
//           made on the first run (cuda/CudnnOps.h); header and cuda-sim stand-in as cublas's.
#include "core/expansions/Environment.h"
#include "core/expansions/cuda/CublasOps.h"
#include "core/expansions/cuda/CudnnOps.h"
#include "core/expansions/onednn/OneDnnRuntime.h"

namespace dcw::expansions {

const std::vector<Environment>& environments() {
  static const std::vector<Environment> list = [] {
    std::vector<Environment> v;
    v.push_back(Environment{
        "onednn", "cpu", "oneDNN CPU engine and streams (libdnnl)",
        {"dnnl.hpp", "chrono", "cstring", "functional", "immintrin.h?", "memory", "thread", "unordered_map", "vector"},
        {"-Wl,--no-as-needed", "-ldnnl"},
        onednn::runtimeGlobals(), onednn::runtimeInit(), onednn::runtimeTeardown(), onednn::runtimeAttach()});
    v.push_back(Environment{"cublas", "cuda", "cuBLAS handle on the program's stream (libcublas)", {"stdexcept", "string"},
                            {"-lcublas"}, cuda::cublasGlobals(), "", cuda::cublasTeardown()});
    v.push_back(Environment{"cudnn", "cuda", "cuDNN handle on the program's stream, convolutions planned on their first run (libcudnn)",
                            {"stdexcept", "string", "vector"}, {"-lcudnn"}, cuda::cudnnGlobals(), "", cuda::cudnnTeardown()});
    return v;
  }();
  return list;
}

const Environment* findEnvironment(std::string_view name) {
  for (auto& e : environments())
    if (e.name == name) return &e;
  return nullptr;
}

} // namespace dcw::expansions
