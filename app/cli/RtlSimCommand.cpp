// `dcw rtl-sim MODEL [--dim N=V] [--script S] [--seed N] [-o DIR]`: C/RTL co-simulation of the model's
// FPGA kernels (codegen/fpga/RtlCosim.h). The model is prepared for target fpga-sim (moved to the
// device whole when it has no device state), its integer pipelined kernels become Verilog that
// Verilator simulates cycle by cycle on random inputs of the seed, the rest run in C-simulation. Prints
// per kernel the measured cycles beside the estimate, and whether the outputs equal C-simulation's.
// Exit status 1 when they differ.
#include "app/cli/Cli.h"

#include "codegen/fpga/RtlCosim.h"
#include "codegen/run/RandomInputs.h"
#include "pipeline/Pipeline.h"

#include <iostream>
#include <memory>

namespace dcw::cli {

std::function<int()> setupRtlSim(CLI::App& sub) {
  struct Opts {
    std::string model, out, script;
    std::vector<std::string> dims;
    uint64_t seed = 1;
    int jobs = 2;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("--dim", o->dims, "Specialize a dynamic dim, NAME=VALUE (RTL fixes every size)");
  sub.add_option("--script", o->script, "Replay this DCW script on the model first (e.g. FPGA transformations)");
  sub.add_option("--seed", o->seed, "Seed of the random inputs (codegen/run/RandomInputs.h)");
  sub.add_option("-o,--output", o->out, "Folder for the Verilog, testbench, builds and runs (kept); default: a temporary folder, removed after");
  sub.add_option("-j,--jobs", o->jobs, "Parallel compile jobs for the Verilated model");
  return [o]() -> int {
    pipeline::Options opts;
    opts.target = "fpga-sim";
    auto dims = specializeFromDimOptions(o->model, o->dims, opts);
    if (!dims) return reportError(dims.error());
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    auto prepared = pipeline::prepare(o->model, steps, opts);
    if (!prepared) return reportError(prepared.error());
    reportWarnings(prepared->model.warnings);
    codegen::RtlCosimOptions co;
    co.jobs = o->jobs;
    co.workDir = o->out;
    std::cerr << "simulating " << o->model
              << (co.workDir.empty() ? std::string() : " (builds and runs in " + co.workDir + ")") << "\n";
    auto report = codegen::cosimulateRtl(
        *prepared->model.sdfg, [&](const codegen::ProgramSignature& sig) { return codegen::randomInputs(sig, o->seed, *dims); }, co);
    if (!report) {
      Diagnostic d = report.error();
      d.location = o->model + ": " + d.location;
      return reportError(d);
    }
    std::cout << codegen::formatCosim(*report);
    return report->differentElements == 0 ? kExitOk : kExitFailure;
  };
}

} // namespace dcw::cli
