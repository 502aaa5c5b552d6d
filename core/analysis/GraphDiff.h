// GraphDiff: what differs between two SDFGs — two models, or one model at two points of its history —
// node by node, for the app's compare view (Netron's most requested missing feature). Nodes are matched
// by their path (`main/state0/Conv_0`); a node only on the left is removed, only on the right added,
// on both with a different signature changed: its kind, op and implementation, attributes, a tasklet's
// code, a map's ranges and schedule, an array's name, type and shape.
#pragma once

#include "core/ir/Element.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::analysis {

enum class DiffMark : unsigned char { None, Added, Removed, Changed };

struct GraphDiff {
  std::unordered_map<ir::ElementId, DiffMark> left;   // Removed or Changed nodes of the left SDFG
  std::unordered_map<ir::ElementId, DiffMark> right;  // Added or Changed nodes of the right SDFG
  int added = 0, removed = 0, changed = 0, same = 0;
  std::vector<std::string> lines;                     // "+ path", "- path", "~ path: what changed", in path order
};

GraphDiff diffGraphs(const ir::Sdfg& left, const ir::Sdfg& right);

} // namespace dcw::analysis
