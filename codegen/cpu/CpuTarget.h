// CpuTarget: the `cpu` target — C++17 with OpenMP (CppGenerator), built with the system g++ into a
// shared library (Compiler). It owns the sequential, multicore, unrolled and vectorized schedules and
// host storages (heap, stack, registers); GPU and FPGA schedules and storages are not its own and are
// refused before generation.
#pragma once

#include "codegen/Target.h"

namespace dcw::codegen {

class CpuTarget final : public Target {
public:
  std::string_view name() const override { return "cpu"; }
  std::string_view description() const override { return "C++17 with OpenMP, built with the system g++"; }
  bool available(std::string* whyNot) const override;
  bool ownsSchedule(ir::Schedule s) const override;
  bool ownsStorage(ir::StorageType s) const override;
  Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const override;
  Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const override;
};

} // namespace dcw::codegen
