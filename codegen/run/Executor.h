// Executor: runs a fully expanded SDFG on the CPU — generates C++, compiles it (cached), loads it,
// then for each call checks the inputs against the SDFG's arguments (dtype, rank, dims), binds the
// symbols from the input dims, allocates the outputs and calls the program.
#pragma once

#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CppGenerator.h"
#include "codegen/cpu/LoadedProgram.h"
#include "core/ir/Tensor.h"

#include <map>
#include <memory>
#include <vector>

namespace dcw::codegen {

struct RunOptions {
  int threads = 0; // 0: OpenMP's default
  std::map<std::string, int64_t> fixedDims; // specialize dynamic dims (by the model's dim names) before compiling
  CompileOptions compile;
  CpuOptions cpu;  // code generation, including instrumentation (CpuOptions::instrument)
};

class Executor {
public:
  // `sdfg` must be fully expanded (see expansions::expandAll); it must outlive the executor.
  static Expected<std::unique_ptr<Executor>> create(const ir::Sdfg& sdfg, const RunOptions& options = {});

  const GeneratedCode& code() const { return code_; }
  const CompiledLibrary& library() const { return library_; }
  // The loaded program (its profiling ABI when generated with instrumentation).
  const LoadedProgram& program() const { return *program_; }
  const ir::Sdfg& sdfg() const { return *sdfg_; }
  // Inputs in Sdfg::inputs order; outputs in Sdfg::outputs order.
  Expected<std::vector<ir::Tensor>> run(const std::vector<ir::Tensor>& inputs) const;
  // Symbol values bound by the last successful run (for reports).
  const std::map<std::string, int64_t>& lastSymbols() const { return symbols_; }

private:
  Executor() = default;
  const ir::Sdfg* sdfg_ = nullptr;
  GeneratedCode code_;
  CompiledLibrary library_;
  std::shared_ptr<LoadedProgram> program_;
  mutable std::map<std::string, int64_t> symbols_;
};

} // namespace dcw::codegen
