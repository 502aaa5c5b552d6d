#include "core/ir/ControlFlow.h"

#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

#include <algorithm>

namespace dcw::ir {

Sdfg* ControlFlowBlock::sdfg() const { return owningSdfg(this); }

ControlFlowRegion::~ControlFlowRegion() = default;
ConditionalRegion::~ConditionalRegion() = default;

// Numbers a freshly attached block: adopted into its SDFG, or provisional while detached.
static void attachIds(ControlFlowBlock* block) {
  if (Sdfg* s = owningSdfg(block)) s->adopt(*block);
  else if (block->id() == kNoId) block->setId(provisionalId());
}

ControlFlowBlock* ControlFlowRegion::addBlock(std::unique_ptr<ControlFlowBlock> block) {
  block->setParent(this);
  if (block->label().empty()) block->setLabel(uniqueBlockLabel(std::string(elementKindName(block->kind()))));
  ControlFlowBlock* raw = block.get();
  blocks_.push_back(std::move(block));
  attachIds(raw);
  if (start_ == kNoId) start_ = blocks_.front()->id();
  return raw;
}

State* ControlFlowRegion::addState(std::string label) {
  if (label.empty()) label = uniqueBlockLabel("state");
  return static_cast<State*>(addBlock(std::make_unique<State>(std::move(label))));
}

InterstateEdge* ControlFlowRegion::addEdge(ElementId src, ElementId dst, sym::Expr condition) {
  auto e = std::make_unique<InterstateEdge>();
  e->src = src;
  e->dst = dst;
  e->condition = std::move(condition);
  return addEdge(std::move(e));
}

InterstateEdge* ControlFlowRegion::addEdge(std::unique_ptr<InterstateEdge> edge) {
  if (edge->id() == kNoId) {
    Sdfg* s = owningSdfg(this);
    edge->setId(s ? s->allocateId() : provisionalId());
  }
  edges_.push_back(std::move(edge));
  return edges_.back().get();
}

std::unique_ptr<ControlFlowBlock> ControlFlowRegion::removeBlock(ElementId id) {
  auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](auto& b) { return b->id() == id; });
  if (it == blocks_.end()) return nullptr;
  std::erase_if(edges_, [&](auto& e) { return e->src == id || e->dst == id; });
  auto out = std::move(*it);
  blocks_.erase(it);
  out->setParent(nullptr);
  if (start_ == id) start_ = blocks_.empty() ? kNoId : blocks_.front()->id();
  return out;
}

std::unique_ptr<InterstateEdge> ControlFlowRegion::removeEdge(ElementId id) {
  auto it = std::find_if(edges_.begin(), edges_.end(), [&](auto& e) { return e->id() == id; });
  if (it == edges_.end()) return nullptr;
  auto out = std::move(*it);
  edges_.erase(it);
  return out;
}

std::unique_ptr<ControlFlowBlock> ControlFlowRegion::detachBlock(JournalKey, ElementId id, size_t* position) {
  auto it = std::find_if(blocks_.begin(), blocks_.end(), [&](auto& b) { return b->id() == id; });
  if (it == blocks_.end()) return nullptr;
  *position = size_t(it - blocks_.begin());
  auto out = std::move(*it);
  blocks_.erase(it);
  out->setParent(nullptr);
  return out;
}

ControlFlowBlock* ControlFlowRegion::attachBlock(JournalKey, std::unique_ptr<ControlFlowBlock> block, size_t position) {
  block->setParent(this);
  ControlFlowBlock* raw = block.get();
  blocks_.insert(blocks_.begin() + std::min(position, blocks_.size()), std::move(block));
  return raw;
}

std::unique_ptr<InterstateEdge> ControlFlowRegion::detachEdge(JournalKey, ElementId id, size_t* position) {
  auto it = std::find_if(edges_.begin(), edges_.end(), [&](auto& e) { return e->id() == id; });
  if (it == edges_.end()) return nullptr;
  *position = size_t(it - edges_.begin());
  auto out = std::move(*it);
  edges_.erase(it);
  return out;
}

InterstateEdge* ControlFlowRegion::attachEdge(JournalKey, std::unique_ptr<InterstateEdge> edge, size_t position) {
  InterstateEdge* raw = edge.get();
  edges_.insert(edges_.begin() + std::min(position, edges_.size()), std::move(edge));
  return raw;
}

ControlFlowBlock* ControlFlowRegion::block(ElementId id) const {
  for (auto& b : blocks_)
    if (b->id() == id) return b.get();
  return nullptr;
}

ControlFlowBlock* ControlFlowRegion::blockByLabel(std::string_view label) const {
  for (auto& b : blocks_)
    if (b->label() == label) return b.get();
  return nullptr;
}

std::vector<InterstateEdge*> ControlFlowRegion::outEdges(ElementId block) const {
  std::vector<InterstateEdge*> out;
  for (auto& e : edges_)
    if (e->src == block) out.push_back(e.get());
  return out;
}

std::vector<InterstateEdge*> ControlFlowRegion::inEdges(ElementId block) const {
  std::vector<InterstateEdge*> out;
  for (auto& e : edges_)
    if (e->dst == block) out.push_back(e.get());
  return out;
}

std::string ControlFlowRegion::uniqueBlockLabel(const std::string& base) const {
  for (size_t i = blocks_.size();; ++i) {
    std::string l = base + std::to_string(i);
    if (!blockByLabel(l)) return l;
  }
}

BranchRegion* ConditionalRegion::addBranch(std::unique_ptr<BranchRegion> branch) {
  branch->setParent(this);
  if (branch->label().empty()) branch->setLabel("branch" + std::to_string(branches_.size()));
  branches_.push_back(std::move(branch));
  attachIds(branches_.back().get());
  return branches_.back().get();
}

std::set<std::string> namesReadByControlFlow(const ControlFlowBlock& top) {
  std::set<std::string> out;
  auto add = [&](const sym::Expr& e) {
    for (auto& n : e.freeSymbols()) out.insert(n);
  };
  std::vector<const ControlFlowBlock*> work{&top};
  while (!work.empty()) {
    const ControlFlowBlock* b = work.back();
    work.pop_back();
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(b)) {
      for (auto& e : r->edges()) {
        add(e->condition);
        for (auto& [n, v] : e->assignments) add(v);
      }
      if (auto* l = dynamic_cast<const LoopRegion*>(r)) {
        add(l->init);
        add(l->condition);
        add(l->update);
      }
      if (auto* br = dynamic_cast<const BranchRegion*>(r); br && br->condition) add(*br->condition);
      for (auto& c : r->blocks()) work.push_back(c.get());
    } else if (auto* c = dynamic_cast<const ConditionalRegion*>(b)) {
      for (auto& br : c->branches()) work.push_back(br.get());
    }
  }
  return out;
}

} // namespace dcw::ir
