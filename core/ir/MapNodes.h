// MapEntry / MapExit: the two ends of a parametric parallel scope (DaCe's trapezoids). The entry
// owns the map: parameters, their half-open ranges and the schedule; the exit names its entry.
// Nodes between an entry and its exit run once per point of the iteration space.
#pragma once

#include "core/ir/Node.h"
#include "core/ir/Subset.h"

#include <map>
#include <optional>

namespace dcw::ir {

enum class Schedule {
  Default,
  Sequential,
  CpuMulticore,
  GpuDevice,
  GpuThreadBlock,
  FpgaPipeline,
  Unrolled,
  Vectorized, // the innermost loop of the map runs as SIMD lanes (CPU: #pragma omp simd)
};
std::string_view scheduleName(Schedule s);
std::optional<Schedule> scheduleFromName(std::string_view s);

class MapEntry : public Node {
public:
  explicit MapEntry(std::string label) : Node(ElementKind::MapEntry, std::move(label)) {}
  std::vector<std::string> params;
  Subset range;                 // one Range per parameter
  Schedule schedule = Schedule::Default;
  ElementId exitId = kNoId;     // the matching MapExit
};

class MapExit : public Node {
public:
  explicit MapExit(std::string label) : Node(ElementKind::MapExit, std::move(label)) {}
  ElementId entryId = kNoId;    // the matching MapEntry
};

// After copying nodes with Node::clone into a state: `copies` maps each original node's id to its
// copy (or to any node standing in for it). Every copied map entry whose exit was copied too is
// linked to that copy, and the other way round. Only for copies the caller has just created (nodes
// the running command added: the journal holds those very objects, so undo and redo keep the links).
void relinkMapCopies(const std::map<ElementId, Node*>& copies);

} // namespace dcw::ir
