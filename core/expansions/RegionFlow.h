// RegionFlow: control flow around SdfgBuilder. The builder appends its states to the root chain;
// RegionFlow moves each new state into the region being built (a loop body, a branch of a
// conditional) and chains it there, so that builder calls compose with loops and conditionals.
// Used by the expansions of recurrent and control-flow ops.
#pragma once

#include "core/expansions/SdfgBuilder.h"
#include "core/ir/ControlFlow.h"
#include "core/ir/Sdfg.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dcw::expansions {

class RegionFlow {
public:
  explicit RegionFlow(SdfgBuilder& b) : b_(b) {
    regions_.push_back(&b.sdfg());
    last_[&b.sdfg()] = &b.state();
    placed_ = &b.state();
  }

  // Places the builder's current state if it is new; call after every builder operation.
  void sync() {
    ir::State* s = &b_.state();
    if (s == placed_) return;
    placed_ = s;
    ir::Sdfg& root = b_.sdfg();
    ir::ControlFlowRegion* cur = regions_.back();
    for (auto* e : root.inEdges(s->id())) root.removeEdge(e->id());
    if (cur != &root) cur->addBlock(root.removeBlock(s->id()));
    chain(s);
  }
  ir::State& newState(const std::string& label = {}) {
    sync();
    b_.nextState(label.empty() ? std::string() : uniqueLabel(label));
    sync();
    return b_.state();
  }
  // The interstate edge that entered the last block placed in the current region (nullptr: none).
  ir::InterstateEdge* lastEdge() const { return lastEdge_; }

  ir::LoopRegion& beginLoop(const std::string& label, const std::string& var, sym::Expr init, sym::Expr cond, sym::Expr update) {
    sync();
    ir::ControlFlowRegion* cur = regions_.back();
    auto* loop = static_cast<ir::LoopRegion*>(cur->addBlock(std::make_unique<ir::LoopRegion>(uniqueLabel(label))));
    loop->loopVariable = var;
    loop->init = std::move(init);
    loop->condition = std::move(cond);
    loop->update = std::move(update);
    chain(loop);
    ir::InterstateEdge* entry = lastEdge_;
    regions_.push_back(loop);
    last_[loop] = nullptr;
    newState(label + "_body");
    lastEdge_ = entry;
    return *loop;
  }
  void endLoop() { endRegion(); }

  ir::ConditionalRegion& beginConditional(const std::string& label) {
    sync();
    ir::ControlFlowRegion* cur = regions_.back();
    cond_ = static_cast<ir::ConditionalRegion*>(cur->addBlock(std::make_unique<ir::ConditionalRegion>(uniqueLabel(label))));
    chain(cond_);
    return *cond_;
  }
  void beginBranch(const std::string& label, std::optional<sym::Expr> condition) {
    sync();
    auto br = std::make_unique<ir::BranchRegion>(label);
    br->condition = std::move(condition);
    ir::BranchRegion* raw = cond_->addBranch(std::move(br));
    regions_.push_back(raw);
    last_[raw] = nullptr;
    newState(label + "_state");
  }
  void endBranch() {
    sync();
    regions_.pop_back();
  }
  void endConditional() { newState("after_" + cond_->label()); }

private:
  void chain(ir::ControlFlowBlock* b) {
    ir::ControlFlowRegion* cur = regions_.back();
    lastEdge_ = nullptr;
    if (ir::ControlFlowBlock* prev = last_[cur]) lastEdge_ = cur->addEdge(prev->id(), b->id());
    last_[cur] = b;
  }
  void endRegion() {
    sync();
    std::string label = regions_.back()->label();
    regions_.pop_back();
    newState("after_" + label);
  }
  std::string uniqueLabel(const std::string& base) {
    int& n = labels_[base];
    return base + (n++ ? "_" + std::to_string(n - 1) : std::string());
  }

  SdfgBuilder& b_;
  std::vector<ir::ControlFlowRegion*> regions_;
  std::map<ir::ControlFlowRegion*, ir::ControlFlowBlock*> last_;
  ir::State* placed_ = nullptr;
  ir::ConditionalRegion* cond_ = nullptr;
  ir::InterstateEdge* lastEdge_ = nullptr;
  std::map<std::string, int> labels_;
};

} // namespace dcw::expansions
