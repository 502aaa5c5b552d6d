// Trainable: constant arrays (weights) become program inputs; see Trainable.h.
#include "transforms/autodiff/Trainable.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"

#include <algorithm>
#include <set>

namespace dcw::autodiff {

using namespace dcw::ir;

namespace {

// Data read by BatchNormalization as its running statistics (inputs 3 and 4: mean and variance).
std::set<std::string> batchNormStatistics(const Sdfg& root) {
  std::set<std::string> out;
  for (State* st : root.allStates())
    for (auto& n : st->nodes()) {
      auto* lib = dynamic_cast<const LibraryNode*>(n.get());
      if (!lib || (lib->opType != "BatchNormalization" && lib->opType != "FusedBatchNormalization") || lib->inConnectors().size() < 5)
        continue;
      for (auto* e : st->inEdges(lib->id())) {
        auto& ins = lib->inConnectors();
        if (e->dstConnector != ins[3].name && e->dstConnector != ins[4].name) continue;
        if (auto* a = dynamic_cast<const AccessNode*>(st->node(e->src))) out.insert(a->data());
      }
    }
  return out;
}

} // namespace

std::vector<std::string> floatConstants(const Sdfg& root, const std::vector<std::string>& frozen) {
  std::set<std::string> skip(frozen.begin(), frozen.end());
  for (auto& s : batchNormStatistics(root)) skip.insert(s);
  std::vector<std::string> out;
  for (auto& d : root.data())
    if (d->constant && isFloating(d->dtype) && !skip.count(d->name())) out.push_back(d->name());
  return out;
}

Expected<TrainableWeights> makeTrainable(edit::Editor& ed, const std::vector<std::string>& names) {
  Sdfg& root = ed.root();
  TrainableWeights out;
  std::vector<std::string> inputs = root.inputs;
  for (auto& n : names) {
    DataDescriptor* d = root.findData(n);
    const std::string where = root.name() + "/@" + n;
    if (!d) return fail(where, "'" + n + "' is not an array of the model", "name an initializer (weight) of the model");
    if (!d->constant)
      return fail(where, "'" + n + "' is not a constant (initializer) of the model", "only initializers are trained");
    if (!isFloating(d->dtype))
      return fail(where, "'" + n + "' has type " + std::string(dtypeName(d->dtype)) + " and cannot be trained",
                  "train floating-point initializers only");
    if (std::find(inputs.begin(), inputs.end(), n) != inputs.end())
      return fail(where, "'" + n + "' is named twice", "name it once");
    out.names.push_back(n);
    out.initial.push_back(*d->constant);
    ed.set(*d, &DataDescriptor::constant, std::shared_ptr<const Tensor>());
    ed.set(*d, &DataDescriptor::transient, false);
    inputs.push_back(n);
  }
  ed.set(root, &Sdfg::inputs, inputs);
  return out;
}

} // namespace dcw::autodiff
