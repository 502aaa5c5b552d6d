// Executor: runs a program built for a target (codegen/Target.h) — loads the library, then for each
// call checks the inputs against the program's arguments (dtype, rank, dims), binds the symbols from
// the input dims, allocates the outputs and calls the program. Models reach it through the pipeline
// (pipeline/Pipeline.h); `create` is the short path for an SDFG that is already fully expanded.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/Target.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/LoadedProgram.h"
#include "codegen/run/StringStages.h"
#include "codegen/run/WorkerProcess.h"
#include "core/ir/Tensor.h"
#include "core/support/FreeCores.h"

#include <map>
#include <memory>
#include <vector>

namespace dcw::codegen {

struct RunOptions {
  std::string target = "cpu";
  int threads = 0;          // 0: the cores other processes leave free, each run (all for a profiled run)
  GenerateOptions generate; // including instrumentation
  CompileOptions compile;
  // In a worker process (WorkerProcess.h: a crash or hang of the program cannot take the caller down)
  // or loaded into this process (profiling reads the program's event buffer, so it runs in process).
  bool isolated = false;
  WorkerLimits limits;                        // with `isolated`
  std::shared_ptr<std::atomic<bool>> cancel;  // with `isolated`: set, the running program is killed
  // The string ops the host runs around the program (StringStages.h); null or empty: none.
  std::shared_ptr<const StringStages> stringStages;
};

class Executor {
public:
  // `sdfg` must be fully expanded (see expansions::expandAll); it must outlive the executor. Checks the
  // target owns every schedule and storage, generates, builds and loads.
  static Expected<std::unique_ptr<Executor>> create(const ir::Sdfg& sdfg, const RunOptions& options = {});
  // Loads a library built from `code` (the pipeline's last step).
  static Expected<std::unique_ptr<Executor>> load(const ir::Sdfg& sdfg, GeneratedCode code, CompiledLibrary library,
                                                  const RunOptions& options = {});

  const GeneratedCode& code() const { return code_; }
  const CompiledLibrary& library() const { return library_; }
  // The loaded program (its profiling ABI when generated with instrumentation); in process only.
  const LoadedProgram& program() const { return *program_; }
  bool isolated() const { return worker_ != nullptr; }
  // The worker running the program (isolated executors; for tests and diagnostics).
  const WorkerProcess* worker() const { return worker_.get(); }
  const ir::Sdfg& sdfg() const { return *sdfg_; }
  // Inputs in Sdfg::inputs order; outputs in Sdfg::outputs order (with string stages: the model's, the
  // first of each; the host runs the string ops before and after the program).
  // With `capture` (an instrumented program), the timing events of this run come back into it.
  Expected<std::vector<ir::Tensor>> run(const std::vector<ir::Tensor>& inputs, ProfileCapture* capture = nullptr) const;
  // The number of elements an instrumented program times (0: not instrumented).
  Expected<size_t> profiledElements() const;
  // What the program wrote to stderr since the last call, in a worker process (isolated executors; it
  // is also passed on to this process's stderr); empty in process, where it goes to stderr directly.
  std::string takeProgramMessages() const { return worker_ ? worker_->takeMessages() : std::string(); }
  // Symbol values bound by the last successful run (for reports).
  const std::map<std::string, int64_t>& lastSymbols() const { return symbols_; }

private:
  Executor() = default;
  const ir::Sdfg* sdfg_ = nullptr;
  GeneratedCode code_;
  CompiledLibrary library_;
  std::shared_ptr<LoadedProgram> program_;
  std::unique_ptr<WorkerProcess> worker_;
  mutable size_t capacity_ = 0; // the in-process program's event capacity, once set
  int threads_ = 0;
  // With no thread count fixed (threads 0, no OMP_NUM_THREADS): each run's, from the free cores
  // (core/support/FreeCores.h); a profiled run keeps all cores, as its elements' figures are read so.
  bool followFreeCores_ = false;
  mutable FreeCores freeCores_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::shared_ptr<const StringStages> stages_;
  Expected<std::vector<ir::Tensor>> runProgram(const std::vector<ir::Tensor>& inputs, ProfileCapture* capture) const;
  Expected<std::vector<ir::Tensor>> runWithStringStages(const std::vector<ir::Tensor>& inputs, ProfileCapture* capture) const;
  Expected<void> checkMemory(const std::map<std::string, int64_t>& syms) const;
  Expected<void> bindValueSymbols(const std::vector<ir::Tensor>& inputs, std::map<std::string, int64_t>& syms) const;
  Expected<void> checkDims(const std::map<std::string, int64_t>& syms) const;
  // The path of an element of the program by id (for messages about where it stopped).
  std::string elementPath(int64_t id) const;
  mutable std::map<std::string, int64_t> symbols_;
};

} // namespace dcw::codegen
