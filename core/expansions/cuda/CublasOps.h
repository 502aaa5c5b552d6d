// The `cublas` implementations (C++ tasklets on the host calling cuBLAS on GPU memory; target cuda; not
// differentiable): MatMul and Gemm as one cublasSgemm / cublasSgemmStridedBatched each. registerCublas
// registers them; cublasEnvironment* give the environment's text (Environments.cpp lists it).
#pragma once

#include <string>

namespace dcw::expansions {
class ExpansionRegistry;
}

namespace dcw::expansions::cuda {

void registerCublas(ExpansionRegistry& r);

// The `cublas` environment: one handle per loaded program, created on the first call (so a program
// loads where no GPU is and says so when it runs), set to the program's stream at every call, and a
// gemm helper that throws with cuBLAS's status string when a call fails.
std::string cublasGlobals();
std::string cublasTeardown();

} // namespace dcw::expansions::cuda
