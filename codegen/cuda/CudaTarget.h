// CudaTarget: the `cuda` target — CUDA C++ (CudaGenerator) built with nvcc into a shared library with the
// same C ABI as every target, loaded and run by the shared executor — and `cuda-sim`, the same program
// built with g++ against DCW's host stand-in for the CUDA runtime (codegen/cuda/CudaRuntime.h): kernels
// run on the CPU, thread after thread, so a machine without a GPU (CI, most laptops) checks what the
// generated kernels compute; it says nothing about time or races. It owns the GPU schedules and
// storages and, for the host code between kernels, the CPU's. nvcc comes from $DCW_NVCC, $CUDA_HOME/bin,
// /usr/local/cuda/bin or the PATH; without it the target is unavailable and says so (DCW itself builds
// and runs without CUDA). Programs are built for the GPU present (-arch=native) or, on a machine without
// one (CI), for sm_80 and sm_90, so that every GPU program compiles everywhere the toolkit is; running
// one needs a GPU and its driver, and a program says so when it starts on a machine without them.
#pragma once

#include "codegen/Target.h"

namespace dcw::codegen {

class CudaTarget final : public Target {
public:
  explicit CudaTarget(bool simulate) : simulate_(simulate) {}
  std::string_view name() const override { return simulate_ ? "cuda-sim" : "cuda"; }
  std::string_view implementationTarget() const override { return "cuda"; }
  std::string_view description() const override {
    return simulate_ ? "the CUDA program with its kernels run on the CPU (g++ with DCW's stand-in for the CUDA runtime): real outputs, no timing"
                     : "CUDA C++: GPU kernels and a host program, built with nvcc";
  }
  bool available(std::string* whyNot) const override;
  // The model onto the GPU, with gpuImplementations().
  std::optional<AutoOptimizeProfile> autoOptimizeProfile(std::string* whyNot) const override;
  bool ownsSchedule(ir::Schedule s) const override;
  bool ownsStorage(ir::StorageType s) const override;
  Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const override;
  Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const override;

private:
  bool simulate_;
};

// nvcc's path, or "" when the CUDA toolkit is not found.
std::string findNvcc();
// Whether this machine has an NVIDIA GPU with its driver (a device node and the driver's library);
// `whyNot` says what is missing. Tests use it to skip running (never compiling) GPU programs.
bool gpuPresent(std::string* whyNot = nullptr);
// Whether cuDNN's header is where nvcc will look: the toolkit's include folder, the system's, or a folder
// of CPATH / CPLUS_INCLUDE_PATH (a pip wheel's, say). Without it the `cudnn` implementations are not
// preferred, so a toolkit without cuDNN still builds every model (convolutions as kernels).
bool cudnnFound();
// The implementations a CUDA target prefers for library nodes without a choice: cuBLAS, and cuDNN where
// it is found (`cuda-sim` always: its stand-in needs no library). The pipeline, `dcw optimize --target`
// and the app's Auto-optimize use this one list.
std::vector<std::string> gpuImplementations(const std::string& target);

} // namespace dcw::codegen
