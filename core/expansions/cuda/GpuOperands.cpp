#include "core/expansions/cuda/GpuOperands.h"

#include "core/support/IntList.h"

#include <climits>

namespace dcw::expansions::cuda {

using namespace dcw::ir;

std::string pureHint(const ExpansionContext& ctx) {
  return "choose the `pure` implementation for this node (set " + ctx.path() + " implementation=pure)";
}

Expected<std::vector<int64_t>> knownDims(const ExpansionContext& ctx, const std::string& library, const std::string& op,
                                         const std::string& name, const DataDescriptor& d) {
  const std::string who = library + " " + op;
  if (d.dtype != DType::Float32)
    return ctx.error(who + " supports float32 only; " + name + " is " + std::string(dtypeName(d.dtype)), pureHint(ctx));
  if (!d.rankKnown) return ctx.error(who + " needs the rank of " + name, pureHint(ctx));
  if (!d.strides.empty() && d.strides != DataDescriptor::contiguousStrides(d.shape))
    return ctx.error(who + " needs row-major operands; " + name + " has other strides", pureHint(ctx));
  std::vector<int64_t> v;
  for (auto& e : d.shape) {
    auto c = e.constantValue();
    if (!c) return ctx.error(who + " needs known dims; " + name + " has dim " + e.str(), "give the input shapes, or " + pureHint(ctx));
    if (*c <= 0 || *c > INT_MAX) return ctx.error(who + ": " + name + " has a dim of " + std::to_string(*c), pureHint(ctx));
    v.push_back(*c);
  }
  return v;
}

std::string dimsText(const std::vector<int64_t>& d) { return d.empty() ? "scalar" : joinInts(d, "x"); }

} // namespace dcw::expansions::cuda
