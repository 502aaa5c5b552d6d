// Control flow of an SDFG: a region is a graph of blocks (states, loops, conditionals) connected by
// interstate edges that carry a condition and symbol assignments. A LoopRegion is a region whose body
// repeats (init; condition; update on its loop variable); a ConditionalRegion picks the first branch
// whose condition holds (a branch without condition is the `else`). The SDFG itself is the root region.
//
// Mutators come in two kinds, here and in State.h and Sdfg.h: the building API (add/remove/set on
// IR under construction, which no History holds yet) and the journal primitives, which only the
// editor can call (JournalKey). A model held by a History changes only through edit::Editor.
#pragma once

#include "core/ir/Element.h"
#include "core/ir/JournalKey.h"
#include "core/symbolic/Expr.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcw::ir {

class ControlFlowRegion;
class Sdfg;
class State;
struct CloneAccess; // Clone.cpp

class ControlFlowBlock : public Element {
public:
  using Element::Element;
  // The region (or, for a BranchRegion, the ConditionalRegion) that holds this block.
  ControlFlowBlock* parent() const { return parent_; }
  void setParent(ControlFlowBlock* b) { parent_ = b; }
  Sdfg* sdfg() const; // the SDFG this block belongs to

private:
  ControlFlowBlock* parent_ = nullptr;
};

class InterstateEdge : public Element {
public:
  InterstateEdge() : Element(ElementKind::InterstateEdge) {}
  ElementId src = kNoId;
  ElementId dst = kNoId;
  sym::Expr condition = sym::Expr(1);                 // 1 = unconditional
  std::vector<std::pair<std::string, sym::Expr>> assignments; // symbol := expression, in order
  bool isUnconditional() const { return condition == sym::Expr(1); }
};

class ControlFlowRegion : public ControlFlowBlock {
public:
  explicit ControlFlowRegion(ElementKind kind, std::string label = {}) : ControlFlowBlock(kind, std::move(label)) {}
  ~ControlFlowRegion() override;

  const std::vector<std::unique_ptr<ControlFlowBlock>>& blocks() const { return blocks_; }
  const std::vector<std::unique_ptr<InterstateEdge>>& edges() const { return edges_; }

  // --- building (IR under construction; a live model goes through edit::Editor: addBlock, addState,
  // removeBlock, addInterstateEdge, removeInterstateEdge, setStartBlock, set(...)) -----------------
  ControlFlowBlock* addBlock(std::unique_ptr<ControlFlowBlock> block);
  State* addState(std::string label);  // convenience; the first block added becomes the start block
  InterstateEdge* addEdge(ElementId src, ElementId dst, sym::Expr condition = sym::Expr(1));
  InterstateEdge* addEdge(std::unique_ptr<InterstateEdge> edge);
  std::unique_ptr<ControlFlowBlock> removeBlock(ElementId id); // also removes its interstate edges
  std::unique_ptr<InterstateEdge> removeEdge(ElementId id);
  // --- journal primitives (edit::Editor only, see JournalKey.h) -------------------------------------
  // Out and back in at the same position, ids unchanged. detachBlock requires the block to have no
  // interstate edges left; it leaves the start block alone.
  std::unique_ptr<ControlFlowBlock> detachBlock(JournalKey, ElementId id, size_t* position);
  ControlFlowBlock* attachBlock(JournalKey, std::unique_ptr<ControlFlowBlock> block, size_t position);
  std::unique_ptr<InterstateEdge> detachEdge(JournalKey, ElementId id, size_t* position);
  InterstateEdge* attachEdge(JournalKey, std::unique_ptr<InterstateEdge> edge, size_t position);

  // --- queries ----------------------------------------------------------------------------------

  ControlFlowBlock* block(ElementId id) const;
  ControlFlowBlock* blockByLabel(std::string_view label) const;
  ElementId startBlock() const { return start_; }
  void setStartBlock(ElementId id) { start_ = id; } // building; a live model: Editor::setStartBlock
  std::vector<InterstateEdge*> outEdges(ElementId block) const;
  std::vector<InterstateEdge*> inEdges(ElementId block) const;
  std::string uniqueBlockLabel(const std::string& base) const;

private:
  friend struct CloneAccess; // appends copied blocks as they are; the copy's ids are put back in one pass
  std::vector<std::unique_ptr<ControlFlowBlock>> blocks_;
  std::vector<std::unique_ptr<InterstateEdge>> edges_;
  ElementId start_ = kNoId;
};

class LoopRegion : public ControlFlowRegion {
public:
  explicit LoopRegion(std::string label) : ControlFlowRegion(ElementKind::LoopRegion, std::move(label)) {}
  std::string loopVariable;             // may be empty (a while-loop)
  sym::Expr init = sym::Expr(0);
  sym::Expr condition = sym::Expr(1);
  sym::Expr update = sym::Expr(0);      // new value of the loop variable after each iteration
};

// One branch of a ConditionalRegion.
class BranchRegion : public ControlFlowRegion {
public:
  explicit BranchRegion(std::string label) : ControlFlowRegion(ElementKind::BranchRegion, std::move(label)) {}
  std::optional<sym::Expr> condition;   // nullopt: else
};

class ConditionalRegion : public ControlFlowBlock {
public:
  explicit ConditionalRegion(std::string label) : ControlFlowBlock(ElementKind::ConditionalRegion, std::move(label)) {}
  ~ConditionalRegion() override;
  const std::vector<std::unique_ptr<BranchRegion>>& branches() const { return branches_; }
  BranchRegion* addBranch(std::unique_ptr<BranchRegion> branch);

private:
  std::vector<std::unique_ptr<BranchRegion>> branches_;
};

// The names that the control flow in and below `b` reads: interstate conditions and assignments, loop
// bounds and updates, branch conditions (symbols, and data read as symbols). Nested SDFGs not included.
std::set<std::string> namesReadByControlFlow(const ControlFlowBlock& b);

} // namespace dcw::ir
