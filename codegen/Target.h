// Target: one way to turn a fully expanded SDFG into a program — `cpu` (C++/OpenMP), `fpga-sim` (HLS
// kernels in C-simulation), `fpga` (the same kernels as a Vitis project), `cuda` (GPU kernels and host code, built with nvcc). A target says which map schedules and storages it owns, generates the
// sources (one or more files plus a source map from generated lines to element paths), and builds
// them into a loadable library through its toolchain, cached by content. Running is shared: every
// target's build is a shared library with the C ABI in codegen/GeneratedCode.h, loaded by
// LoadedProgram and driven by Executor.
//
// Why an interface and a registry: the pipeline (pipeline/Pipeline.h), the CLI's `--target` and the
// app choose a target by name and never call a generator directly, so a new target is one class and
// one line in codegen/TargetRegistry.cpp. A schedule or storage no target owns is refused before code
// is generated (checkTarget), naming the element — never silently run as something else.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/cpu/Compiler.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/MapNodes.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

// What every target's generator takes.
struct GenerateOptions {
  Instrumentation instrument; // default: nothing (the generated code carries no instrumentation)
};

// What auto-optimization (`dcw optimize`, the app's Auto-optimize) does for a model bound for a
// target: the device its steps place the model on ("cpu"; "cuda": GpuTransform and whole kernels) and
// the implementations it prefers for library nodes, first first (empty: AutoOptimize's own order).
struct AutoOptimizeProfile {
  std::string device = "cpu";
  std::vector<std::string> prefer;
};

class Target {
public:
  virtual ~Target() = default;
  virtual std::string_view name() const = 0;        // stable; used by --target, scripts and reports
  virtual std::string_view description() const = 0;
  // The target that library-node implementations declare they are for (core/expansions: cpu, cuda,
  // fpga): the target itself, or the hardware a variant of it (fpga-sim) stands for.
  virtual std::string_view implementationTarget() const { return name(); }
  // Whether its toolchain is on this machine; `whyNot` says what is missing and how to get it.
  virtual bool available(std::string* whyNot = nullptr) const = 0;
  virtual bool ownsSchedule(ir::Schedule s) const = 0;
  virtual bool ownsStorage(ir::StorageType s) const = 0;
  // How auto-optimization treats a model for this target; nullopt, with the reason in `whyNot`, for a
  // target whose steps are chosen by hand or by script (the FPGA's).
  virtual std::optional<AutoOptimizeProfile> autoOptimizeProfile(std::string* whyNot = nullptr) const {
    (void)whyNot;
    return AutoOptimizeProfile{};
  }
  // Sources for a fully expanded SDFG that checkTarget accepted.
  virtual Expected<GeneratedCode> generate(const ir::Sdfg& sdfg, const GenerateOptions& options) const = 0;
  // Builds the sources into a shared library (cached by a hash of sources and flags).
  virtual Expected<CompiledLibrary> build(const GeneratedCode& code, const CompileOptions& options) const = 0;
};

// Every map schedule and data storage of `sdfg` (nested SDFGs included) that `target` does not own, as
// errors located at the element ("main/state0/Conv_0/conv_map: schedule gpu_device is not supported
// by target cpu; ...").
Diagnostics checkTarget(const ir::Sdfg& sdfg, const Target& target);

// ---- the registry (codegen/TargetRegistry.cpp: the one explicit list) ----
const std::vector<const Target*>& targets();
// nullptr when there is no target of that name.
const Target* findTarget(std::string_view name);
// The target by name, or an error naming the known targets (and why an unavailable one is not here).
Expected<const Target*> requireTarget(std::string_view name);
std::vector<std::string> targetNames();

} // namespace dcw::codegen
