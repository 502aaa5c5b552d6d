// FpgaTarget: the `fpga` target — the same HLS kernels as fpga-sim, written as a Vitis project (kernels,
// XRT host program, link configuration, Makefile: codegen/fpga/FpgaProject.h) by `dcw codegen --target
// fpga -o DIR`. It builds nothing here: a bitstream needs Vitis and XRT, which DCW's machines lack, so a
// build says so and points at fpga-sim, which runs the same kernels in C-simulation.
#pragma once

#include "codegen/Target.h"

namespace dcw::codegen {

class FpgaTarget final : public Target {
public:
  std::string_view name() const override { return "fpga"; }
  std::string_view description() const override {
    return "a Vitis project: HLS kernels, an XRT host program, link configuration and Makefile (built with Vitis, not here)";
  }
  std::string_view implementationTarget() const override { return "fpga"; }
  bool available(std::string* whyNot) const override;
  bool ownsSchedule(ir::Schedule s) const override;
  bool ownsStorage(ir::StorageType s) const override;
  Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const override;
  Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const override;
};

} // namespace dcw::codegen
