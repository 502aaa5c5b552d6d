// FpgaSimTarget: the `fpga-sim` target — the FPGA kernels (codegen/fpga/HlsGenerator.h) run in
// C-simulation: compiled with the system g++ against DCW's stand-ins for the Vitis HLS headers into a
// shared library with the usual C ABI, so `dcw run/compare/test-onnx --target fpga-sim` give the
// kernels' real outputs on any machine. It owns the FPGA schedules and storages plus the sequential
// host's; it measures no time (cycle estimates and RTL simulation say that).
#pragma once

#include "codegen/Target.h"

namespace dcw::codegen {

class FpgaSimTarget final : public Target {
public:
  std::string_view name() const override { return "fpga-sim"; }
  std::string_view description() const override {
    return "FPGA kernels in the Vitis HLS dialect, run in C-simulation (g++ with DCW's HLS headers): real outputs, no timing";
  }
  std::string_view implementationTarget() const override { return "fpga"; }
  bool available(std::string* whyNot) const override;
  bool ownsSchedule(ir::Schedule s) const override;
  bool ownsStorage(ir::StorageType s) const override;
  Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const override;
  Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const override;
};

// The schedules and storages of an FPGA program (kernels and a sequential host), shared by `fpga` and `fpga-sim`.
bool fpgaOwnsSchedule(ir::Schedule s);
bool fpgaOwnsStorage(ir::StorageType s);

} // namespace dcw::codegen
