#include "codegen/fpga/FpgaSimTarget.h"

#include "codegen/fpga/HlsGenerator.h"

namespace dcw::codegen {

bool fpgaOwnsSchedule(ir::Schedule s) {
  switch (s) {
  case ir::Schedule::Default:
  case ir::Schedule::Sequential:
  case ir::Schedule::FpgaPipeline:
  case ir::Schedule::Unrolled:
    return true;
  case ir::Schedule::CpuMulticore:
  case ir::Schedule::Vectorized:
  case ir::Schedule::GpuDevice:
  case ir::Schedule::GpuThreadBlock:
    return false;
  }
  return false;
}

bool fpgaOwnsStorage(ir::StorageType s) {
  switch (s) {
  case ir::StorageType::Default:
  case ir::StorageType::CpuHeap:
  case ir::StorageType::CpuStack:
  case ir::StorageType::Register:
  case ir::StorageType::FpgaGlobal:
  case ir::StorageType::FpgaLocal:
    return true;
  case ir::StorageType::GpuGlobal:
  case ir::StorageType::GpuShared:
    return false;
  }
  return false;
}

bool FpgaSimTarget::available(std::string* whyNot) const {
  (void)whyNot; // g++ is looked up when building, as for the cpu target
  return true;
}

bool FpgaSimTarget::ownsSchedule(ir::Schedule s) const { return fpgaOwnsSchedule(s); }
bool FpgaSimTarget::ownsStorage(ir::StorageType s) const { return fpgaOwnsStorage(s); }

Expected<GeneratedCode> FpgaSimTarget::generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const {
  HlsOptions o;
  o.output = HlsOptions::Output::Simulation;
  o.instrument = options.instrument;
  auto p = generateHls(sdfg, o);
  if (!p) return p.takeError();
  return std::move(p->code);
}

Expected<CompiledLibrary> FpgaSimTarget::build(const GeneratedCode& code, const CompileOptions& options) const {
  CompileOptions o = options;
  o.flags.push_back("-pthread"); // dataflow processing elements run as threads
  o.flags.push_back("-Wno-unknown-pragmas");
  o.flags.insert(o.flags.end(), code.linkFlags.begin(), code.linkFlags.end());
  return compileShared(code.source, o);
}

} // namespace dcw::codegen
