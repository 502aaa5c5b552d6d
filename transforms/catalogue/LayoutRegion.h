// LayoutRegion: the analysis and the rewrite that ChannelsLast and BlockedLayout share. Both store an
// activation in another layout than row-major where every node that reads or writes it runs on
// oneDNN and takes that layout as it is, together with the arrays a node ties to it (Add, Sub, Mul,
// Div and Sum run on operands of one layout: their operands of the output's shape form a group).
// Readers that take row-major operands only read a row-major copy, an explicit copy at the region's
// edge (a reorder on the canvas).
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/Sdfg.h"
#include "core/support/Diagnostic.h"
#include "transforms/Match.h"

#include <map>
#include <vector>

namespace dcw::transforms {

// The layout to store: channels-last (block 0) or channels in blocks of `block` (8 or 16).
struct LayoutTarget {
  int block = 0;
};

struct LayoutPlan {
  std::vector<ir::DataDescriptor*> group; // the arrays to change, the matched one first
  // Readers that take row-major operands only, by the access node they read: they read a row-major
  // copy instead (the reorder at the region's edge, explicit on the canvas).
  std::map<ir::ElementId, std::vector<ir::ElementId>> rowMajorReaders; // access node -> its out edges to them
  ir::State* state = nullptr;
  ir::Sdfg* sdfg = nullptr;
};

// Whether the array a (producer -> array) match names, with its group, can be stored in `target`;
// fills `plan` (whyNot gets the first reason when not). Slots: "producer", "array".
bool analyseLayout(const Match& match, const ir::Sdfg& root, const LayoutTarget& target, LayoutPlan& plan, Diagnostics* whyNot);
// Makes the row-major copies the plan names and stores its group in `target`.
void applyLayout(const LayoutPlan& plan, const LayoutTarget& target, edit::Editor& ed);

} // namespace dcw::transforms
