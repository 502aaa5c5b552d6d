// checkTarget: refuses, before any code is generated, the map schedules and data storages that the
// chosen target does not own (see Target.h), each error located at the element. Paths are indexed at
// the first refusal only: a model the target takes needs none, and the index of a 100,000-node model
// cost as much as the rest of the check.
#include "codegen/Target.h"

#include "core/ir/DataDescriptor.h"
#include "core/ir/Element.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Walk.h"

#include <optional>

namespace dcw::codegen {

namespace {

// "fpga-sim (or fpga)": the other targets that own the schedule or storage, the first as the one to use.
std::string ownersOf(bool schedule, int value, const Target& self) {
  std::vector<std::string> names;
  for (const Target* t : targets()) {
    if (t == &self) continue;
    bool owns = schedule ? t->ownsSchedule(ir::Schedule(value)) : t->ownsStorage(ir::StorageType(value));
    if (owns) names.emplace_back(t->name());
  }
  std::string out = names.empty() ? std::string() : names[0];
  for (size_t k = 1; k < names.size(); ++k) out += (k == 1 ? " (or " : ", ") + names[k];
  if (names.size() > 1) out += ")";
  return out;
}

// "cpu_multicore or sequential": the schedules (other than default) the target owns, for a hint.
std::string ownedSchedules(const Target& target) {
  std::vector<std::string> names;
  for (int v = 0; v <= int(ir::Schedule::Vectorized); ++v)
    if (ir::Schedule(v) != ir::Schedule::Default && target.ownsSchedule(ir::Schedule(v)))
      names.emplace_back(ir::scheduleName(ir::Schedule(v)));
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) out += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return out;
}

} // namespace

Diagnostics checkTarget(const ir::Sdfg& sdfg, const Target& target) {
  Diagnostics out;
  std::optional<ir::PathIndex> index;
  auto pathOf = [&](ir::ElementId id) -> std::string {
    if (!index) index.emplace(sdfg);
    return index->pathOf(id);
  };
  const std::string tname(target.name());
  ir::walk(const_cast<ir::Sdfg&>(sdfg), [&](ir::Element& e) {
    if (auto* me = dynamic_cast<const ir::MapEntry*>(&e)) {
      if (!target.ownsSchedule(me->schedule)) {
        std::string others = ownersOf(true, int(me->schedule), target);
        Diagnostic d = Diagnostic::error(pathOf(me->id()),
                                         "schedule " + std::string(ir::scheduleName(me->schedule)) + " is not supported by target " + tname,
                                         others.empty() ? "no target generates this schedule yet; set the map's schedule to " + ownedSchedules(target)
                                                        : "compile with --target " + others + ", or set the map's schedule to " + ownedSchedules(target));
        d.elementId = std::to_string(me->id());
        out.add(d);
      }
    } else if (auto* d = dynamic_cast<const ir::DataDescriptor*>(&e)) {
      if (!target.ownsStorage(d->storage)) {
        std::string others = ownersOf(false, int(d->storage), target);
        Diagnostic g = Diagnostic::error(pathOf(d->id()),
                                         "storage " + std::string(ir::storageName(d->storage)) + " is not supported by target " + tname,
                                         others.empty() ? "no target allocates this storage yet; set the data's storage to default"
                                                        : "compile with --target " + others + ", or set the data's storage to default");
        g.elementId = std::to_string(d->id());
        out.add(g);
      }
    }
  });
  return out;
}

} // namespace dcw::codegen
