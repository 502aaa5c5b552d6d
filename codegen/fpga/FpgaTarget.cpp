#include "codegen/fpga/FpgaTarget.h"

namespace dcw::codegen {

std::string_view FpgaTarget::description() const {
  return output_ == HlsOptions::Output::Simulation
             ? "FPGA kernels in the Vitis HLS dialect, run in C-simulation (g++ with DCW's HLS headers): real outputs, no timing"
             : "a Vitis project: HLS kernels, an XRT host program, link configuration and Makefile (built with Vitis, not here)";
}

std::optional<AutoOptimizeProfile> FpgaTarget::autoOptimizeProfile(std::string* whyNot) const {
  if (whyNot)
    *whyNot = "FPGA steps (FpgaTransform, StreamingComposition, ...) are applied by hand or by script; optimize for cpu or cuda";
  return std::nullopt;
}

bool FpgaTarget::available(std::string* whyNot) const {
  // C-simulation needs g++, looked up when building as for the cpu target; writing a project needs
  // nothing, and building one is refused in build().
  (void)whyNot;
  return true;
}

bool FpgaTarget::ownsSchedule(ir::Schedule s) const {
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

bool FpgaTarget::ownsStorage(ir::StorageType s) const {
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

Expected<GeneratedCode> FpgaTarget::generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const {
  HlsOptions o;
  o.output = output_;
  o.instrument = options.instrument;
  auto p = generateHls(sdfg, o);
  if (!p) return p.takeError();
  return std::move(p->code);
}

Expected<CompiledLibrary> FpgaTarget::build(const GeneratedCode& code, const CompileOptions& options) const {
  if (output_ == HlsOptions::Output::Project)
    return fail("--target fpga", "building for an FPGA needs Vitis (v++) and XRT, which DCW does not run",
                "write the Vitis project with `dcw codegen --target fpga -o DIR` and build it where Vitis is installed (make); "
                "run the same kernels here in C-simulation with --target fpga-sim");
  CompileOptions o = options;
  o.flags.push_back("-pthread"); // dataflow processing elements run as threads
  o.flags.push_back("-Wno-unknown-pragmas");
  o.flags.insert(o.flags.end(), code.linkFlags.begin(), code.linkFlags.end());
  return compileShared(code.source, o);
}

} // namespace dcw::codegen
