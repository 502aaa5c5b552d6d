#include "codegen/cuda/CudaTarget.h"

#include "codegen/cuda/CudaGenerator.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace dcw::codegen {

namespace fs = std::filesystem;

std::string findNvcc() {
  std::error_code ec;
  auto executable = [&](const fs::path& p) { return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0; };
  if (const char* n = std::getenv("DCW_NVCC"); n && *n) return executable(n) ? std::string(n) : std::string();
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* h = std::getenv(var); h && *h && executable(fs::path(h) / "bin" / "nvcc")) return (fs::path(h) / "bin" / "nvcc").string();
  if (executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  if (const char* path = std::getenv("PATH")) {
    std::string all = path;
    for (size_t at = 0; at <= all.size();) {
      size_t end = all.find(':', at);
      if (end == std::string::npos) end = all.size();
      if (end > at && executable(fs::path(all.substr(at, end - at)) / "nvcc")) return (fs::path(all.substr(at, end - at)) / "nvcc").string();
      at = end + 1;
    }
  }
  return {};
}

bool gpuPresent(std::string* whyNot) {
  std::error_code ec;
  if (!fs::exists("/dev/nvidia0", ec) && !fs::exists("/dev/nvidiactl", ec)) {
    if (whyNot) *whyNot = "no NVIDIA GPU on this machine (no /dev/nvidia0)";
    return false;
  }
  void* driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) {
    if (whyNot) *whyNot = "the NVIDIA driver's libcuda.so.1 is not installed";
    return false;
  }
  ::dlclose(driver);
  return true;
}

bool cudnnFound() {
  std::error_code ec;
  std::vector<fs::path> dirs;
  if (std::string nvcc = findNvcc(); !nvcc.empty()) dirs.push_back(fs::path(nvcc).parent_path().parent_path() / "include");
  dirs.push_back("/usr/include");
  dirs.push_back("/usr/include/x86_64-linux-gnu");
  for (const char* var : {"CPATH", "CPLUS_INCLUDE_PATH"})
    if (const char* v = std::getenv(var)) {
      std::string all = v;
      for (size_t at = 0; at <= all.size();) {
        size_t end = all.find(':', at);
        if (end == std::string::npos) end = all.size();
        if (end > at) dirs.emplace_back(all.substr(at, end - at));
        at = end + 1;
      }
    }
  for (auto& d : dirs)
    if (fs::is_regular_file(d / "cudnn.h", ec)) return true;
  return false;
}

std::vector<std::string> gpuImplementations(const std::string& target) {
  std::vector<std::string> v{"cublas"};
  if (target == "cuda-sim" || cudnnFound()) v.push_back("cudnn");
  return v;
}

std::optional<AutoOptimizeProfile> CudaTarget::autoOptimizeProfile(std::string*) const {
  return AutoOptimizeProfile{"cuda", gpuImplementations(std::string(name()))};
}

bool CudaTarget::available(std::string* whyNot) const {
  if (simulate_ || !findNvcc().empty()) return true; // cuda-sim: g++, looked up when building
  if (whyNot)
    *whyNot = "the CUDA toolkit's nvcc was not found (looked at $DCW_NVCC, $CUDA_HOME/bin, /usr/local/cuda/bin and the PATH); "
              "install the CUDA toolkit, or run with --target cpu";
  return false;
}

bool CudaTarget::ownsSchedule(ir::Schedule s) const {
  switch (s) {
  case ir::Schedule::Default:
  case ir::Schedule::Sequential:
  case ir::Schedule::CpuMulticore: // host maps between kernels
  case ir::Schedule::Vectorized:
  case ir::Schedule::Unrolled:
  case ir::Schedule::GpuDevice:
  case ir::Schedule::GpuThreadBlock: // refused by the generator, naming the map, until thread-block maps are generated
    return true;
  case ir::Schedule::FpgaPipeline:
    return false;
  }
  return false;
}

bool CudaTarget::ownsStorage(ir::StorageType s) const {
  switch (s) {
  case ir::StorageType::Default:
  case ir::StorageType::CpuHeap:
  case ir::StorageType::CpuStack:
  case ir::StorageType::Register:
  case ir::StorageType::GpuGlobal:
  case ir::StorageType::GpuShared:
    return true;
  case ir::StorageType::FpgaGlobal:
  case ir::StorageType::FpgaLocal:
    return false;
  }
  return false;
}

Expected<GeneratedCode> CudaTarget::generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const {
  CudaOptions o;
  o.instrument = options.instrument;
  auto p = generateCuda(sdfg, o);
  if (!p) return p.takeError();
  p->code.target = std::string(name());
  return std::move(p->code);
}

Expected<CompiledLibrary> CudaTarget::build(const GeneratedCode& code, const CompileOptions& options) const {
  if (simulate_) {
    CompileOptions o = options;
    o.flags.push_back("-DDCW_CUDA_SIM");
    o.flags.push_back("-Wno-unknown-pragmas");
    // The GPU libraries' link flags (-lcublas) are not for the host stand-ins.
    return compileShared(code.source, o);
  }
  const std::string nvcc = findNvcc();
  if (nvcc.empty()) {
    std::string why;
    available(&why);
    return fail("--target cuda", why);
  }
  CompileOptions o;
  o.compiler = nvcc;
  o.cacheDir = options.cacheDir;
  // The source is program.cpp in the build cache: compiled as CUDA all the same (-x cu). The CUDA
  // runtime is linked statically, so a program loads where no toolkit is installed and reports the
  // missing GPU when it runs.
  o.flags = {"-x", "cu", "-O3", "-std=c++17", "--expt-relaxed-constexpr", "-shared", "-Xcompiler", "-fPIC,-fopenmp,-fno-gnu-unique",
             "-Xcudafe", "--diag_suppress=declared_but_not_referenced,--diag_suppress=set_but_not_used"};
  // $DCW_CUDA_ARCHS ("90", "80,90"): the architectures to build for, as when building on one machine for
  // another; else the GPU present, else sm_80 and sm_90.
  std::vector<std::string> archs;
  if (const char* list = std::getenv("DCW_CUDA_ARCHS"); list && *list) {
    std::string all = list;
    for (size_t at = 0; at <= all.size();) {
      size_t end = all.find_first_of(", ;", at);
      if (end == std::string::npos) end = all.size();
      std::string sm = all.substr(at, end - at);
      if (!sm.empty()) {
        if (sm.rfind("sm_", 0) == 0) sm = sm.substr(3);
        if (sm.find_first_not_of("0123456789") != std::string::npos || sm.size() < 2 || sm.size() > 3)
          return fail("DCW_CUDA_ARCHS", "'" + sm + "' is not a GPU architecture", "write compute capabilities as numbers: DCW_CUDA_ARCHS=80,90");
        archs.push_back(sm);
      }
      at = end + 1;
    }
  }
  if (archs.empty() && gpuPresent()) {
    o.flags.push_back("-arch=native");
  } else {
    if (archs.empty()) archs = {"80", "90"};
    for (const std::string& sm : archs) {
      o.flags.push_back("-gencode");
      o.flags.push_back("arch=compute_" + sm + ",code=sm_" + sm);
    }
  }
  o.flags.push_back("-lgomp");
  o.flags.insert(o.flags.end(), code.linkFlags.begin(), code.linkFlags.end());
  // The toolkit's libraries (cuBLAS) found where nvcc's toolkit has them, without LD_LIBRARY_PATH.
  const fs::path lib = fs::path(nvcc).parent_path().parent_path() / "lib64";
  o.flags.push_back("-Xlinker");
  o.flags.push_back("-rpath," + lib.string());
  return compileShared(code.source, o);
}

} // namespace dcw::codegen
