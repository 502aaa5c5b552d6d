// Clone: the one deep copy of IR (Sdfg::clone, Node::clone, DataDescriptor::clone, relinkMapCopies;
// declared in Sdfg.h, Node.h, DataDescriptor.h, MapNodes.h).
//
// A copy is exact: every element keeps its id and label, every reference (edge ends, start blocks,
// map entry/exit links) keeps its value, so toJson(*s.clone()) == toJson(s). The copy's structure is
// built first, detached, with no id work: blocks go into their region as they are (CloneAccess)
// instead of being adopted, and SDFGs nested in the copy get no pass of their own. Then one pass
// walks source and copy in the one walk order (core/ir/Walk.h) and puts ids, labels and references
// back. So a copy costs its size: adopting each block and restoring each nested SDFG on the way
// walked every subtree again at each level, and copying a body nested 1,000 deep (an If's
// expansion copies its bodies, which hold the rest of the nest) took time cubic in the depth.
// A copied SDFG is a standalone root whose allocator continues after the source root's, so elements
// added to the copy never collide with copied ids; attaching a copy to a tree renumbers it like any
// other subtree.
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Walk.h"

#include <cassert>

namespace dcw::ir {

// Appends a copied block to a region without adoption or start-block upkeep (restore() sets both).
struct CloneAccess {
  static void appendBlock(ControlFlowRegion& r, std::unique_ptr<ControlFlowBlock> b) {
    b->setParent(&r);
    r.blocks_.push_back(std::move(b));
  }
};

namespace {

// `next` is the next id of the source's root: every copied SDFG, a standalone root until it is
// attached, continues from it (found once per copy, not once per nested SDFG).
std::unique_ptr<ControlFlowBlock> copyBlock(const ControlFlowBlock& b, ElementId next);
std::unique_ptr<Node> copyNode(const Node& n, ElementId next);

// The structure of an SDFG (ids and references are put right by restore()).
std::unique_ptr<Sdfg> copySdfg(const Sdfg& src, ElementId next);

// Blocks and interstate edges of `src` into `dst` (references are put right by restore()).
void copyRegionBody(const ControlFlowRegion& src, ControlFlowRegion& dst, ElementId next) {
  for (auto& b : src.blocks()) CloneAccess::appendBlock(dst, copyBlock(*b, next));
  for (auto& e : src.edges()) {
    auto c = std::make_unique<InterstateEdge>();
    c->src = e->src;
    c->dst = e->dst;
    c->condition = e->condition;
    c->assignments = e->assignments;
    dst.addEdge(std::move(c));
  }
}

// A detached copy of a block (states, loops, conditionals, plain regions).
std::unique_ptr<ControlFlowBlock> copyBlock(const ControlFlowBlock& b, ElementId next) {
  switch (b.kind()) {
  case ElementKind::State: {
    auto& st = static_cast<const State&>(b);
    auto out = std::make_unique<State>(st.label());
    for (auto& n : st.nodes()) out->addNode(copyNode(*n, next)); // detached: no adoption
    for (auto& e : st.edges()) {
      auto c = std::make_unique<DataflowEdge>();
      c->setLabel(e->label());
      c->src = e->src;
      c->srcConnector = e->srcConnector;
      c->dst = e->dst;
      c->dstConnector = e->dstConnector;
      c->memlet = e->memlet;
      out->addEdge(std::move(c));
    }
    return out;
  }
  case ElementKind::LoopRegion: {
    auto& loop = static_cast<const LoopRegion&>(b);
    auto out = std::make_unique<LoopRegion>(loop.label());
    out->loopVariable = loop.loopVariable;
    out->init = loop.init;
    out->condition = loop.condition;
    out->update = loop.update;
    copyRegionBody(loop, *out, next);
    return out;
  }
  case ElementKind::ConditionalRegion: {
    auto& cond = static_cast<const ConditionalRegion&>(b);
    auto out = std::make_unique<ConditionalRegion>(cond.label());
    for (auto& br : cond.branches()) {
      auto c = std::make_unique<BranchRegion>(br->label());
      c->condition = br->condition;
      copyRegionBody(*br, *c, next);
      out->addBranch(std::move(c));
    }
    return out;
  }
  case ElementKind::BranchRegion: {
    auto& br = static_cast<const BranchRegion&>(b);
    auto out = std::make_unique<BranchRegion>(br.label());
    out->condition = br.condition;
    copyRegionBody(br, *out, next);
    return out;
  }
  default: {
    // A nested SDFG is never a block of a region; any other region kind is a plain region.
    assert(b.kind() != ElementKind::Sdfg);
    auto& r = static_cast<const ControlFlowRegion&>(b);
    auto out = std::make_unique<ControlFlowRegion>(r.kind(), r.label());
    copyRegionBody(r, *out, next);
    return out;
  }
  }
}

// Puts the source's ids, labels and references back on the copy (same structure, same walk order).
template <class Tree>
void restore(const Tree& src, Tree& copy) {
  std::vector<Element*> from, to;
  std::vector<State*> states;
  walk(const_cast<Tree&>(src), [&](Element& e) { from.push_back(&e); });
  walk(copy, [&](Element& e) {
    to.push_back(&e);
    if (e.kind() == ElementKind::State) states.push_back(static_cast<State*>(&e));
  });
  assert(from.size() == to.size());
  for (size_t i = 0; i < from.size(); ++i) {
    Element& f = *from[i];
    Element& t = *to[i];
    assert(f.kind() == t.kind());
    t.setId(f.id());
    t.setLabel(f.label());
    if (auto* r = dynamic_cast<ControlFlowRegion*>(&t)) r->setStartBlock(static_cast<const ControlFlowRegion&>(f).startBlock());
    switch (t.kind()) {
    case ElementKind::DataflowEdge:
      static_cast<DataflowEdge&>(t).src = static_cast<const DataflowEdge&>(f).src;
      static_cast<DataflowEdge&>(t).dst = static_cast<const DataflowEdge&>(f).dst;
      break;
    case ElementKind::InterstateEdge:
      static_cast<InterstateEdge&>(t).src = static_cast<const InterstateEdge&>(f).src;
      static_cast<InterstateEdge&>(t).dst = static_cast<const InterstateEdge&>(f).dst;
      break;
    case ElementKind::MapEntry: static_cast<MapEntry&>(t).exitId = static_cast<const MapEntry&>(f).exitId; break;
    case ElementKind::MapExit: static_cast<MapExit&>(t).entryId = static_cast<const MapExit&>(f).entryId; break;
    default: break;
    }
  }
  for (State* st : states) st->reindex(); // after every id and label is back
}

} // namespace

std::unique_ptr<DataDescriptor> DataDescriptor::clone() const {
  auto c = std::make_unique<DataDescriptor>(name());
  c->setId(id());
  c->dataKind = dataKind;
  c->dtype = dtype;
  c->shape = shape;
  c->strides = strides;
  c->offset = offset;
  c->channelBlock = channelBlock;
  c->rankKnown = rankKnown;
  c->wrappers = wrappers;
  c->storage = storage;
  c->memoryBank = memoryBank;
  c->partition = partition;
  c->partitionFactor = partitionFactor;
  c->lifetime = lifetime;
  c->transient = transient;
  c->constant = constant; // shared, immutable payload
  c->sourceName = sourceName;
  return c;
}

namespace {

std::unique_ptr<Sdfg> copySdfg(const Sdfg& src, ElementId next) {
  auto out = std::make_unique<Sdfg>(src.name());
  for (auto& d : src.data()) out->addData(d->clone());
  for (auto& [name, type] : src.symbols()) out->addSymbol(name, type);
  out->inputs = src.inputs;
  out->outputs = src.outputs;
  out->metadata = src.metadata;
  copyRegionBody(src, *out, next);
  out->resetNextId(next);
  return out;
}

std::unique_ptr<Node> copyNode(const Node& n, ElementId next) {
  std::unique_ptr<Node> out;
  switch (n.kind()) {
  case ElementKind::AccessNode: out = std::make_unique<AccessNode>(static_cast<const AccessNode&>(n).data()); break;
  case ElementKind::Tasklet: {
    out = static_cast<const Tasklet&>(n).copyPayload();
    break;
  }
  case ElementKind::MapEntry: {
    auto& m = static_cast<const MapEntry&>(n);
    auto c = std::make_unique<MapEntry>(m.label());
    c->params = m.params;
    c->range = m.range;
    c->schedule = m.schedule;
    c->exitId = m.exitId;
    out = std::move(c);
    break;
  }
  case ElementKind::MapExit: {
    auto c = std::make_unique<MapExit>(n.label());
    c->entryId = static_cast<const MapExit&>(n).entryId;
    out = std::move(c);
    break;
  }
  case ElementKind::LibraryNode: {
    auto& l = static_cast<const LibraryNode&>(n);
    auto c = std::make_unique<LibraryNode>(l.label());
    c->domain = l.domain;
    c->opType = l.opType;
    c->opsetVersion = l.opsetVersion;
    c->implementation = l.implementation;
    c->opaque = l.opaque;
    c->sourceName = l.sourceName;
    c->attributes = l.attributes;
    for (auto& g : l.subgraphs()) c->addSubgraph(g.name, copySdfg(*g.sdfg, next)); // c is detached: no renumbering
    out = std::move(c);
    break;
  }
  case ElementKind::NestedSdfg: {
    auto& ns = static_cast<const NestedSdfgNode&>(n);
    auto c = std::make_unique<NestedSdfgNode>(ns.label(), copySdfg(ns.sdfg(), next));
    c->symbolMapping = ns.symbolMapping;
    out = std::move(c);
    break;
  }
  case ElementKind::Sdfg:
  case ElementKind::State:
  case ElementKind::LoopRegion:
  case ElementKind::ConditionalRegion:
  case ElementKind::BranchRegion:
  case ElementKind::InterstateEdge:
  case ElementKind::Data:
  case ElementKind::DataflowEdge: assert(false && "not a node kind"); return nullptr;
  }
  out->setId(n.id());
  out->setLabel(n.label());
  out->inConnectors() = n.inConnectors();
  out->outConnectors() = n.outConnectors();
  return out;
}

} // namespace

std::unique_ptr<Sdfg> Sdfg::clone() const {
  auto out = copySdfg(*this, peekNextId());
  restore(*this, *out);
  return out;
}

std::unique_ptr<Node> Node::clone() const {
  ElementId next = kNoId; // used only by the SDFGs nested in the node, which share one root
  if (auto* ns = dynamic_cast<const NestedSdfgNode*>(this)) next = ns->sdfg().peekNextId();
  if (auto* l = dynamic_cast<const LibraryNode*>(this); l && !l->subgraphs().empty()) next = l->subgraphs().front().sdfg->peekNextId();
  auto out = copyNode(*this, next);
  restore(*this, *out); // the SDFGs nested in it
  return out;
}

void relinkMapCopies(const std::map<ElementId, Node*>& copies) {
  auto copyOf = [&](ElementId original) -> Node* {
    auto it = copies.find(original);
    return it == copies.end() ? nullptr : it->second;
  };
  for (auto& [original, c] : copies) {
    if (auto* me = dynamic_cast<MapEntry*>(c))
      if (Node* x = copyOf(me->exitId); x && x != c) me->exitId = x->id();
    if (auto* mx = dynamic_cast<MapExit*>(c))
      if (Node* e = copyOf(mx->entryId); e && e != c) mx->entryId = e->id();
  }
}

} // namespace dcw::ir
