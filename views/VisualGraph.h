// VisualGraph: what the canvas shows of an SDFG, as plain data — a tree of visual nodes (the root SDFG,
// its states and regions, the dataflow nodes of each state, map scopes, and the SDFGs inside library
// and nested-SDFG nodes) plus the edges drawn inside each expanded container.
//
// Why a separate tree: the IR is a multigraph of states with implicit map scopes, and the canvas needs
// containers it can collapse and lay out one at a time. Every state, region, map scope, library node
// with a body and nested SDFG is a container; collapsed, it is one box and every edge into its insides
// ends on that box. A library node's `pure` implementation is "just another nested SDFG" shown in
// place: an ExpansionProvider hands the canvas an SDFG for a library node (the lowering registry will
// plug in here) and it is drawn inside the node's box exactly like If/Loop/Scan bodies are.
//
// The tree holds no pointer into the IR (labels are copied), so it can be moved to a worker thread
// for layout while the SDFG stays with the UI thread. Building it is linear in the size of the SDFG.
#pragma once

#include "core/ir/Element.h"
#include "views/ModuleGroups.h"
#include "views/OpCategory.h"

#include <QPainterPath>
#include <QPointF>
#include <QSizeF>
#include <QString>

#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

class QFont;

namespace dcw::ir {
class LibraryNode;
class Sdfg;
} // namespace dcw::ir

namespace dcw::views {

enum class VisualKind : unsigned char {
  Access,      // ellipse
  Tasklet,     // octagon
  MapEntry,    // trapezoid (inside an expanded map scope)
  MapExit,     // inverted trapezoid
  Map,         // a map scope: collapsed, one trapezoid; expanded, a frame holding entry, body, exit
  Library,     // rectangle with the op name
  NestedSdfg,  // framed box
  State,       // framed box
  Loop,
  Conditional,
  Branch,
  Sdfg,        // the root, a nested SDFG's body, a library node's subgraph or expansion
  Group,       // a module of the source model (`layers.0`), from its nodes' names: a framed box
};

// Which containers are open. States, regions and SDFG bodies start open, nodes with insides start
// closed; `expandAll` opens everything that has no explicit setting.
class ExpansionState {
public:
  bool isExpanded(ir::ElementId id, VisualKind kind) const;
  void set(ir::ElementId id, bool expanded) { overrides_[id] = expanded; }
  void clear() { overrides_.clear(); expandAll_ = false; }
  void setExpandAll(bool on) { overrides_.clear(); expandAll_ = on; }
  bool expandAll() const { return expandAll_; }
  // What the user set for `id`, if anything (module groups choose their own default otherwise).
  const bool* explicitSetting(ir::ElementId id) const {
    auto it = overrides_.find(id);
    return it == overrides_.end() ? nullptr : &it->second;
  }

private:
  std::unordered_map<ir::ElementId, bool> overrides_;
  bool expandAll_ = false;
};

struct VisualNode {
  int parent = -1;                   // container (index into nodes), -1 for the root
  int depth = 0;
  ir::ElementId element = ir::kNoId; // the element a click selects
  VisualKind kind = VisualKind::Access;
  QString label;                     // first line (name)
  QString detail;                    // second line (op class, type, ranges)
  QString extra;                     // third line (folded constants), may be empty
  bool expandable = false;
  bool expanded = false;             // a container whose children are shown
  bool constant = false;             // an access node of a constant array
  bool transient = false;
  OpCategory category = OpCategory::Other; // a library node's kind of work (its colour)
  std::vector<int> children;
  std::vector<int> edges;            // edges drawn inside this container
  QSizeF size;                       // leaf: from text; container: set by layout
  QPointF center;                    // set by layout: relative to the parent's content origin
};

struct VisualEdge {
  int src = -1, dst = -1;            // children of `container`
  int container = -1;
  ir::ElementId element = ir::kNoId; // the dataflow or interstate edge (one of them when merged)
  QString label;                     // "X[0:N] · 1×64×56×56", an interstate condition, …
  bool interstate = false;
  bool merged = false;               // stands for several edges into or out of a collapsed scope
  QPainterPath path;                 // set by layout, in the container's content coordinates
  QPointF start, middle, arrowFrom;  // set by layout: where the path starts, its midpoint, 8 units before its end
};

class VisualGraph {
public:
  // The SDFG that implements a library node (its `pure` expansion), or nullptr when there is none.
  // The SDFG must outlive the graphs built from it and its ids must not collide with the model's.
  using ExpansionProvider = std::function<const ir::Sdfg*(const ir::LibraryNode&)>;
  struct Options {
    // Constant arrays as access nodes; else folded into their reader's box (`W 64×3×7×7`), together with
    // Constant ops, the weight preparation on constants (Identity, Cast, reshapes and transposes of
    // constants only, as exporters write them for shared or pre-transposed weights) and shape
    // arithmetic (Shape/Size and the integer ops computing on their results: Reshape targets, Range
    // bounds, position indices), whose results the readers list instead (`shape Concat_output_0 4`).
    bool showConstants = false;
    // A state's nodes grouped by the module their names give (core/ir/ModulePath): a group for every module
    // with two ops or more, with its op and parameter counts; a module alone in its parent starts open,
    // modules with siblings start closed (ResNet's layer1..layer4, BERT's layers.N).
    bool moduleGroups = true;
    ExpansionProvider expansions;
    // Cheap test whether `expansions` has an implementation for a node (called for every library node
    // on every build; the provider itself only for open nodes). Unset: every node may have one.
    std::function<bool(const ir::LibraryNode&)> canExpand;
    // FLOPs of each op under the current symbol values (analysis::Cost), for module groups' totals;
    // none: groups show op and parameter counts only. Owned by the caller, read during build().
    const std::unordered_map<ir::ElementId, double>* flops = nullptr;
  };

  // Container padding and title height, shared by layout and painting.
  static constexpr double kPad = 14;
  static constexpr double kHeader = 24;

  // What a build works out about each state whatever is open (scopes, folded elements, module
  // groups, edge labels), kept between builds of an unchanged model so that opening a group of a 50k-op
  // graph does not work it all out again. Drop it (newMemo) when the model, its expansions or the
  // options change; a state whose node or edge count changed is worked out again anyway.
  struct Memo;
  static std::shared_ptr<Memo> newMemo();
  static VisualGraph build(const ir::Sdfg& root, const ExpansionState& expansion, const Options& options,
                           const QFont& font, Memo* memo = nullptr);

  std::vector<VisualNode> nodes;
  std::vector<VisualEdge> edges;

  int root() const { return nodes.empty() ? -1 : 0; }
  // The visual node showing element `id`, or -1 when it is hidden (inside a collapsed container).
  int find(ir::ElementId id) const;
  // The visual node that shows element `id`: itself, or for a folded constant, weight preparation or
  // shape arithmetic the box that lists it (-1 when neither is visible).
  int shownAs(ir::ElementId id) const;
  bool isContainer(int i) const { return nodes[size_t(i)].expanded; }
  // Visual nodes connected by an edge, in either direction, inside the same container.
  std::vector<int> predecessors(int i) const;
  std::vector<int> successors(int i) const;
  // Top-left of a container's content area relative to the container's own top-left.
  static QPointF contentOrigin() { return QPointF(kPad, kHeader); }
  // Position of node i's top-left in scene coordinates (after layout).
  QPointF scenePos(int i) const;
  size_t visibleNodeCount() const { return nodes.size(); }

  std::unordered_map<ir::ElementId, int> byElement;
  std::unordered_map<ir::ElementId, int> foldedInto; // folded element -> the visual node listing it
  // The module groups holding an element or a group, outermost first (empty when none); a group's id is
  // made from its state and module path (moduleGroupId), so it is the same in every build of the graph.
  std::unordered_map<ir::ElementId, std::vector<ir::ElementId>> groupChain;
  std::vector<ModuleGroup> modules; // every module group of the states shown, open, closed or inside a closed one
  const std::vector<ir::ElementId>& groupsHolding(ir::ElementId id) const;
  static bool isGroupId(ir::ElementId id) { return id >= kGroupIdBase; }
  // The module group with id `id`, or null.
  const ModuleGroup* moduleGroup(ir::ElementId id) const {
    if (!isGroupId(id)) return nullptr;
    for (const ModuleGroup& g : modules)
      if (g.id == id) return &g;
    return nullptr;
  }
  static constexpr ir::ElementId kGroupIdBase = ir::ElementId(1) << 63; // above every IR id (provisional ones start at 2^62)
};

} // namespace dcw::views
