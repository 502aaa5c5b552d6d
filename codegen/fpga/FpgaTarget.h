// FpgaTarget: the FPGA targets, one class with two outputs of the same HLS kernels
// (codegen/fpga/HlsGenerator.h):
//  - `fpga-sim`: the kernels run in C-simulation, compiled with the system g++ against DCW's
//    stand-ins for the Vitis HLS headers into a shared library with the usual C ABI, so `dcw
//    run/test-onnx/profile --target fpga-sim` give the kernels' real outputs on any machine. It
//    measures no time (cycle estimates and RTL simulation say that).
//  - `fpga`: a Vitis project (kernels, XRT host program, link configuration, Makefile:
//    codegen/fpga/FpgaProject.h), written by `dcw codegen --target fpga -o DIR`. It builds nothing here:
//    a bitstream needs Vitis and XRT, which DCW's machines lack, so a build says so and points at fpga-sim.
// Both own the FPGA schedules and storages plus those of a sequential host; library nodes get their
// implementations for target fpga.
#pragma once

#include "codegen/Target.h"
#include "codegen/fpga/HlsGenerator.h"

namespace dcw::codegen {

class FpgaTarget final : public Target {
public:
  explicit FpgaTarget(HlsOptions::Output output) : output_(output) {}
  std::string_view name() const override { return output_ == HlsOptions::Output::Simulation ? "fpga-sim" : "fpga"; }
  std::string_view description() const override;
  std::string_view implementationTarget() const override { return "fpga"; }
  bool available(std::string* whyNot) const override;
  // None: FPGA steps (FpgaTransform, StreamingComposition, ...) are applied by hand or by script.
  std::optional<AutoOptimizeProfile> autoOptimizeProfile(std::string* whyNot) const override;
  bool ownsSchedule(ir::Schedule s) const override;
  bool ownsStorage(ir::StorageType s) const override;
  Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const override;
  Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const override;

private:
  HlsOptions::Output output_;
};

} // namespace dcw::codegen
