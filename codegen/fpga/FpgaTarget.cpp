#include "codegen/fpga/FpgaTarget.h"

#include "codegen/fpga/FpgaSimTarget.h"
#include "codegen/fpga/HlsGenerator.h"

namespace dcw::codegen {

bool FpgaTarget::available(std::string* whyNot) const {
  (void)whyNot; // writing the project needs nothing; building it is refused in build()
  return true;
}

bool FpgaTarget::ownsSchedule(ir::Schedule s) const { return fpgaOwnsSchedule(s); }
bool FpgaTarget::ownsStorage(ir::StorageType s) const { return fpgaOwnsStorage(s); }

Expected<GeneratedCode> FpgaTarget::generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const {
  HlsOptions o;
  o.output = HlsOptions::Output::Project;
  o.instrument = options.instrument;
  auto p = generateHls(sdfg, o);
  if (!p) return p.takeError();
  return std::move(p->code);
}

Expected<CompiledLibrary> FpgaTarget::build(const GeneratedCode& code, const CompileOptions& options) const {
  (void)code;
  (void)options;
  return fail("--target fpga", "building for an FPGA needs Vitis (v++) and XRT, which DCW does not run",
              "write the Vitis project with `dcw codegen --target fpga -o DIR` and build it where Vitis is installed (make); "
              "run the same kernels here in C-simulation with --target fpga-sim");
}

} // namespace dcw::codegen
