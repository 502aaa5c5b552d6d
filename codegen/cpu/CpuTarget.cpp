#include "codegen/cpu/CpuTarget.h"

#include "codegen/cpu/CppGenerator.h"

#include <cstdlib>

namespace dcw::codegen {

bool CpuTarget::available(std::string* whyNot) const {
  // The compiler is looked up when building; a missing one is reported there with the command.
  (void)whyNot;
  return true;
}

bool CpuTarget::ownsSchedule(ir::Schedule s) const {
  switch (s) {
  case ir::Schedule::Default:
  case ir::Schedule::Sequential:
  case ir::Schedule::CpuMulticore:
  case ir::Schedule::Unrolled:
  case ir::Schedule::Vectorized:
    return true;
  case ir::Schedule::GpuDevice:
  case ir::Schedule::GpuThreadBlock:
  case ir::Schedule::FpgaPipeline:
    return false;
  }
  return false;
}

bool CpuTarget::ownsStorage(ir::StorageType s) const {
  switch (s) {
  case ir::StorageType::Default:
  case ir::StorageType::CpuHeap:
  case ir::StorageType::CpuStack:
  case ir::StorageType::Register:
    return true;
  case ir::StorageType::GpuGlobal:
  case ir::StorageType::GpuShared:
  case ir::StorageType::FpgaGlobal:
  case ir::StorageType::FpgaLocal:
    return false;
  }
  return false;
}

Expected<GeneratedCode> CpuTarget::generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const {
  CpuOptions cpu;
  cpu.instrument = options.instrument;
  auto code = generateCpp(sdfg, cpu);
  if (code) code->target = std::string(name());
  return code;
}

Expected<CompiledLibrary> CpuTarget::build(const GeneratedCode& code, const CompileOptions& options) const {
  // The environments of C++ tasklets (e.g. onednn) bring their libraries.
  CompileOptions withLibraries = options;
  withLibraries.flags.insert(withLibraries.flags.end(), code.linkFlags.begin(), code.linkFlags.end());
  return compileShared(code.source, withLibraries);
}

} // namespace dcw::codegen
