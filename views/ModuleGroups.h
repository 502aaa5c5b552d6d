// ModuleGroups: which module group each top-level node of a state belongs to — the model's module
// hierarchy (`encoder/layers.0/self_attn`) read from node names (core/ir/ModulePath) — with each group's
// op, parameter and FLOP counts and its address (`main/state0/module:encoder/layers.0`, which scripts,
// `set` and `apply` take). The canvas draws them as collapsible boxes (VisualGraph), the outline as
// rows, search finds them by name: one grouping for all three.
//
// Rules: an op goes to its module's innermost group of two ops or more; an array to the deepest module
// all its producers and readers share (a module's internal tensors sit inside it, its outputs outside);
// a constant (a weight) to the module of its readers; a model input to none. A group's parameters are
// the elements of the distinct constant (or folded) arrays its ops read.
#pragma once

#include "core/ir/Element.h"

#include <QString>

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace dcw::ir {
class Node;
class Sdfg;
class State;
} // namespace dcw::ir

namespace dcw::views {

struct ModuleGroup {
  QString path;             // "encoder/layers.0"
  int parent = -1;          // enclosing group (index into the list), -1: the state
  int ops = 0;
  int64_t params = 0;
  double flops = 0;         // of its ops, when given FLOPs per op
  ir::ElementId id = ir::kNoId; // stable across builds and edits that keep the state and the path
  QString address;              // "main/state0/module:encoder/layers.0" (core/ir/ModulePath)
  QString name() const { return path.section(QLatin1Char('/'), -1); }
  QString counts() const; // "12 ops · 7.09 M params · 14.2 MFLOPs"
};

struct ModuleGroups {
  std::vector<ModuleGroup> list;                                  // parents before their children
  std::unordered_map<ir::ElementId, int> of;                      // top-level node -> innermost group
  // A node or a group -> the groups holding it, outermost first.
  std::unordered_map<ir::ElementId, std::vector<ir::ElementId>> chain;
  bool empty() const { return list.empty(); }
};

// The groups of `top` (a state's top-level nodes, in order). `hidden`: nodes drawn inside their readers
// (folded constants), grouped with nothing but counted as their readers' parameters; `flops`: FLOPs per
// op, or null.
ModuleGroups groupByModule(const ir::State& st, const ir::Sdfg& sdfg, const std::vector<const ir::Node*>& top,
                           const std::unordered_set<ir::ElementId>& hidden,
                           const std::unordered_map<ir::ElementId, double>* flops);

// The id of the group at `modulePath` in state `state` (bit 63 set: never an IR id).
ir::ElementId moduleGroupId(ir::ElementId state, const QString& modulePath);

} // namespace dcw::views
