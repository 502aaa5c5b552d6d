#include "transforms/catalogue/FpgaArrayPartition.h"

#include "core/ir/AccessNode.h"
#include "core/ir/DeviceState.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "transforms/Binding.h"

#include <algorithm>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct FpgaArrayPartitionPlan {
  DataDescriptor* data = nullptr;
  PartitionKind kind = PartitionKind::Cyclic;
  int factor = 0;
};

// The largest trip count of an unrolled map whose body reads or writes `data` in `sdfg` (0: none).
int64_t unrolledTrips(const Sdfg& sdfg, const std::string& data) {
  int64_t best = 0;
  for (State* st : sdfg.allStates()) {
    auto scopes = st->scopeOf();
    if (!scopes) continue;
    for (auto& e : st->edges()) {
      if (e->memlet.data != data) continue;
      for (ElementId n : {e->src, e->dst}) {
        auto it = scopes->find(n);
        for (const MapEntry* m = it == scopes->end() ? nullptr : it->second; m; m = scopes->count(m->id()) ? scopes->at(m->id()) : nullptr) {
          if (m->schedule != Schedule::Unrolled) continue;
          int64_t trips = 1;
          for (auto& r : m->range.ranges())
            if (auto c = r.size().constantValue()) trips *= *c;
            else trips = 0;
          best = std::max(best, trips);
        }
      }
    }
  }
  return best;
}

bool analyseFpgaArrayPartition(const Match& match, const Sdfg& root, FpgaArrayPartitionPlan& p, Diagnostics* whyNot) {
  const AccessNode* a = nullptr;
  p.data = resolveAccessData(match, root, "array", whyNot, &a);
  if (!p.data) return false;
  const std::string& path = match.elements.at("array");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const Sdfg* sdfg = owningSdfg(a);
  const DataDescriptor& d = *p.data;
  const State* st = a->parent();
  const bool onChip = d.storage == StorageType::FpgaLocal ||
                      (st && isDeviceState(root, *st) && d.storage != StorageType::FpgaGlobal);
  if (!d.transient || !onChip)
    return fail("'" + d.name() + "' is not in on-chip FPGA memory (it is " + (d.transient ? std::string(storageName(d.storage)) : "an argument") + ")",
                "partition a transient of a kernel (storage fpga_local); global memory is banked with FpgaMemoryBank");
  if (d.dataKind != DataKind::Array) return fail("'" + d.name() + "' is not an array (a stream, view or scalar)");
  auto n = d.totalSize().constantValue();
  if (!n || *n < 2) return fail("'" + d.name() + "' has no known element count of 2 or more", "specialize the model's dimensions (--dim)");
  const std::string kindText = match.options.count("kind") ? match.options.at("kind") : "cyclic";
  auto kind = partitionFromName(kindText);
  if (!kind) return fail("kind=" + kindText + " is not a partition", "choose cyclic, block, complete or none");
  p.kind = *kind;
  p.factor = 0;
  if (p.kind == PartitionKind::Complete && *n > 4096)
    return fail("'" + d.name() + "' has " + std::to_string(*n) + " elements, too many to keep in registers (4,096 at most)",
                "partition it cyclic by the unroll factor");
  if (p.kind == PartitionKind::Cyclic || p.kind == PartitionKind::Block) {
    const std::string text = match.options.count("factor") ? match.options.at("factor") : "0";
    auto factor = wholeNumber(text);
    if (!factor) return fail("factor=" + text + " is not a whole number");
    int64_t f = *factor;
    if (f == 0) {
      f = std::min(unrolledTrips(*sdfg, d.name()), *n);
      if (f < 2) return fail("no unrolled loop accesses '" + d.name() + "', so no factor follows from one", "give factor=N, or unroll a loop over it (MapUnroll)");
    }
    if (f < 2 || f > *n) return fail("factor " + std::to_string(f) + " is not 2 to the " + std::to_string(*n) + " elements of '" + d.name() + "'");
    p.factor = int(f);
  }
  if (p.kind == d.partition && p.factor == d.partitionFactor)
    return fail("'" + d.name() + "' is partitioned so already");
  return true;
}

} // namespace

const Pattern& FpgaArrayPartition::pattern() const {
  static const Pattern p = Pattern::node("array", {ElementKind::AccessNode});
  return p;
}

std::vector<OptionSpec> FpgaArrayPartition::options() const {
  return {{"kind", OptionSpec::Type::Choice, "cyclic", "how elements go to banks: cyclic (k mod factor), block (runs), complete (registers), none",
           {"cyclic", "block", "complete", "none"}},
          {"factor", OptionSpec::Type::Int, "0", "banks for cyclic and block; 0: the largest trip count of an unrolled loop over the array", {}}};
}

bool FpgaArrayPartition::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  FpgaArrayPartitionPlan p;
  return analyseFpgaArrayPartition(match, root, p, whyNot);
}

Expected<void> FpgaArrayPartition::apply(const Match& match, edit::Editor& ed) const {
  FpgaArrayPartitionPlan p;
  if (auto ok = analyseForApply(analyseFpgaArrayPartition, match, ed.root(), p, "array"); !ok) return ok;
  ed.set(*p.data, &DataDescriptor::partition, p.kind);
  ed.set(*p.data, &DataDescriptor::partitionFactor, p.factor);
  return {};
}

} // namespace dcw::transforms
