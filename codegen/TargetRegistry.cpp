// The one list of code-generation targets. A new target: a Target subclass in its folder and one
// line here; `--target`, the pipeline and the app pick it up from this list.
#include "codegen/Target.h"

#include "codegen/cpu/CpuTarget.h"
#include "codegen/cuda/CudaTarget.h"
#include "codegen/fpga/FpgaTarget.h"

namespace dcw::codegen {

const std::vector<const Target*>& targets() {
  static const CpuTarget cpu;
  static const FpgaTarget fpgaSim(HlsOptions::Output::Simulation);
  static const FpgaTarget fpga(HlsOptions::Output::Project);
  static const CudaTarget cuda(false);
  static const CudaTarget cudaSim(true);
  static const std::vector<const Target*> list = {&cpu, &cuda, &cudaSim, &fpgaSim, &fpga};
  return list;
}

const Target* findTarget(std::string_view name) {
  for (const Target* t : targets())
    if (t->name() == name) return t;
  return nullptr;
}

std::vector<std::string> targetNames() {
  std::vector<std::string> out;
  for (const Target* t : targets()) out.emplace_back(t->name());
  return out;
}

Expected<const Target*> requireTarget(std::string_view name) {
  const Target* t = findTarget(name);
  if (!t) {
    std::string known;
    for (auto& n : targetNames()) known += (known.empty() ? "" : ", ") + n;
    return fail("--target " + std::string(name), "no such target", "the targets are: " + known);
  }
  std::string why;
  if (!t->available(&why)) return fail("--target " + std::string(name), "the target is not available on this machine: " + why);
  return t;
}

} // namespace dcw::codegen
