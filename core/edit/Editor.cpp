#include "core/edit/Editor.h"

#include "core/ir/AccessNode.h"

#include <algorithm>
#include <cassert>

namespace dcw::edit {

using namespace dcw::ir;

void Journal::rollbackTo(size_t mark) {
  while (edits_.size() > mark) {
    edits_.back()->undo();
    edits_.pop_back();
  }
}

JournalStats Journal::stats() const {
  JournalStats st;
  for (auto& e : edits_) switch (e->kind()) {
    case Edit::Kind::NodeAdded: ++st.nodesAdded; break;
    case Edit::Kind::NodeRemoved: ++st.nodesRemoved; break;
    case Edit::Kind::EdgeAdded: ++st.edgesAdded; break;
    case Edit::Kind::EdgeRemoved: ++st.edgesRemoved; break;
    case Edit::Kind::DataAdded: ++st.dataAdded; break;
    case Edit::Kind::DataRemoved: ++st.dataRemoved; break;
    case Edit::Kind::BlockAdded: ++st.blocksAdded; break;
    case Edit::Kind::BlockRemoved: ++st.blocksRemoved; break;
    case Edit::Kind::Other: ++st.other; break;
    }
  return st;
}

std::string JournalStats::str() const {
  std::string s;
  auto part = [&](int n, const char* sign, const char* one, const char* many) {
    if (n <= 0) return;
    s += (s.empty() ? "" : ", ") + std::string(sign) + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  part(nodesAdded, "+", "node", "nodes");
  part(nodesRemoved, "\u2212", "node", "nodes");
  part(edgesAdded, "+", "edge", "edges");
  part(edgesRemoved, "\u2212", "edge", "edges");
  part(dataAdded, "+", "data container", "data containers");
  part(dataRemoved, "\u2212", "data container", "data containers");
  part(blocksAdded, "+", "state or region", "states or regions");
  part(blocksRemoved, "\u2212", "state or region", "states or regions");
  part(other, "", "property change", "property changes");
  return s.empty() ? "no change" : s;
}

void Journal::undo() {
  for (auto it = edits_.rbegin(); it != edits_.rend(); ++it) (*it)->undo();
  if (root && nextIdBefore != kNoId) root->resetNextId(nextIdBefore);
}

void Journal::redo() {
  for (auto& e : edits_) e->redo();
  if (root && nextIdAfter != kNoId) root->resetNextId(nextIdAfter);
}

namespace {

// An element that is in its container while `present` and held by the edit otherwise. `position` is
// where its container puts it back: an index, or for a state's nodes and edges the element that
// followed it (State::NodePlace, EdgePlace).
template <class Container, class Elem, class Position = size_t>
struct Presence : Edit {
  Presence(ir::JournalKey key, Container* c, Elem* raw, Position position, std::unique_ptr<Elem> held)
      : key(key), container(c), raw(raw), position(position), held(std::move(held)) {}
  void take() { held = detach(); }
  void give() {
    assert(held);
    attach(std::move(held));
  }
  virtual std::unique_ptr<Elem> detach() = 0;
  virtual void attach(std::unique_ptr<Elem> e) = 0;
  ir::JournalKey key;
  Container* container;
  Elem* raw;
  Position position;
  std::unique_ptr<Elem> held;
};

template <class Base>
struct Added : Base {
  using Base::Base;
  void undo() override { this->take(); }
  void redo() override { this->give(); }
  Edit::Kind kind() const override { return Base::kAdded; }
};
template <class Base>
struct Removed : Base {
  using Base::Base;
  void undo() override { this->give(); }
  void redo() override { this->take(); }
  Edit::Kind kind() const override { return Base::kRemoved; }
};

struct NodeP : Presence<State, Node, State::NodePlace> {
  using Presence::Presence;
  static constexpr Edit::Kind kAdded = Edit::Kind::NodeAdded, kRemoved = Edit::Kind::NodeRemoved;
  std::unique_ptr<Node> detach() override { return container->detachNode(key, raw->id(), &position); }
  void attach(std::unique_ptr<Node> n) override { container->attachNode(key, std::move(n), position); }
};
struct EdgeP : Presence<State, DataflowEdge, State::EdgePlace> {
  using Presence::Presence;
  static constexpr Edit::Kind kAdded = Edit::Kind::EdgeAdded, kRemoved = Edit::Kind::EdgeRemoved;
  std::unique_ptr<DataflowEdge> detach() override { return container->detachEdge(key, raw->id(), &position); }
  void attach(std::unique_ptr<DataflowEdge> e) override { container->attachEdge(key, std::move(e), position); }
};
struct DataP : Presence<Sdfg, DataDescriptor> {
  using Presence::Presence;
  static constexpr Edit::Kind kAdded = Edit::Kind::DataAdded, kRemoved = Edit::Kind::DataRemoved;
  std::unique_ptr<DataDescriptor> detach() override { return container->detachData(key, raw->name(), &position); }
  void attach(std::unique_ptr<DataDescriptor> d) override { container->attachData(key, std::move(d), position); }
};
struct BlockP : Presence<ControlFlowRegion, ControlFlowBlock> {
  using Presence::Presence;
  static constexpr Edit::Kind kAdded = Edit::Kind::BlockAdded, kRemoved = Edit::Kind::BlockRemoved;
  std::unique_ptr<ControlFlowBlock> detach() override { return container->detachBlock(key, raw->id(), &position); }
  void attach(std::unique_ptr<ControlFlowBlock> b) override { container->attachBlock(key, std::move(b), position); }
};
struct IEdgeP : Presence<ControlFlowRegion, InterstateEdge> {
  using Presence::Presence;
  static constexpr Edit::Kind kAdded = Edit::Kind::EdgeAdded, kRemoved = Edit::Kind::EdgeRemoved;
  std::unique_ptr<InterstateEdge> detach() override { return container->detachEdge(key, raw->id(), &position); }
  void attach(std::unique_ptr<InterstateEdge> e) override { container->attachEdge(key, std::move(e), position); }
};

struct NodeLabelEdit : Edit {
  NodeLabelEdit(Node* n, std::string label) : node(n), other(std::move(label)) { swap(); }
  void undo() override { swap(); }
  void redo() override { swap(); }
  void swap() {
    std::string cur = node->label();
    if (node->parent()) node->parent()->relabel(*node, other);
    else node->setLabel(other);
    other = std::move(cur);
  }
  Node* node;
  std::string other;
};

struct ElementLabelEdit : Edit {
  ElementLabelEdit(Element* e, std::string label) : element(e), other(std::move(label)) { swap(); }
  void undo() override { swap(); }
  void redo() override { swap(); }
  void swap() {
    std::string cur = element->label();
    element->setLabel(other);
    other = std::move(cur);
  }
  Element* element;
  std::string other;
};

// An access node's data and label changed together; undo gives back both as they were (the old label
// need not be the old data's name: labels are unique in a state, e.g. "X" and "X_1" for two nodes of X).
struct AccessDataEdit : Edit {
  AccessDataEdit(AccessNode* n, std::string data, std::string label) : node(n), otherData(std::move(data)), otherLabel(std::move(label)) {
    swap();
  }
  void undo() override { swap(); }
  void redo() override { swap(); }
  void swap() {
    std::string data = node->data(), label = node->label();
    node->setData(otherData);
    if (node->parent()) node->parent()->relabel(*node, otherLabel);
    else node->setLabel(otherLabel);
    otherData = std::move(data);
    otherLabel = std::move(label);
  }
  AccessNode* node;
  std::string otherData, otherLabel;
};

// A symbol added (`added`) or removed (otherwise).
struct SymbolEdit : Edit {
  SymbolEdit(Sdfg* s, std::string name, DType t, bool added) : sdfg(s), name(std::move(name)), type(t), added(added) {
    redo();
  }
  void undo() override { apply(!added); }
  void redo() override { apply(added); }
  void apply(bool present) {
    if (present) sdfg->addSymbol(name, type);
    else sdfg->removeSymbol(name);
  }
  Sdfg* sdfg;
  std::string name;
  DType type;
  bool added;
};

} // namespace

Editor::Editor(Sdfg& root) : root_(root) {
  journal_.root = &root_;
  journal_.nextIdBefore = root_.peekNextId();
}

Node* Editor::addNode(State& st, std::unique_ptr<Node> node) {
  if (!node->label().empty()) node->setLabel(st.uniqueNodeLabel(node->label()));
  Node* raw = st.addNode(std::move(node));
  record(std::make_unique<Added<NodeP>>(JournalKey(), &st, raw, nullptr, nullptr)); // last: nothing follows it
  return raw;
}

void Editor::removeNode(State& st, ElementId id) {
  Node* n = st.node(id);
  assert(n);
  for (auto* e : st.inEdges(id)) removeEdge(st, e->id());
  for (auto* e : st.outEdges(id)) removeEdge(st, e->id());
  auto r = std::make_unique<Removed<NodeP>>(JournalKey(), &st, n, nullptr, nullptr);
  r->take();
  record(std::move(r));
}

DataflowEdge* Editor::addEdge(State& st, const Node& src, std::string srcConn, const Node& dst, std::string dstConn,
                              Memlet memlet) {
  DataflowEdge* e = st.addEdge(src, std::move(srcConn), dst, std::move(dstConn), std::move(memlet));
  record(std::make_unique<Added<EdgeP>>(JournalKey(), &st, e, nullptr, nullptr)); // last: nothing follows it
  return e;
}

void Editor::removeEdge(State& st, ElementId id) {
  DataflowEdge* e = st.edge(id);
  assert(e);
  auto r = std::make_unique<Removed<EdgeP>>(JournalKey(), &st, e, nullptr, nullptr);
  r->take();
  record(std::move(r));
}

void Editor::addInConnector(Node& n, Connector c) {
  auto v = n.inConnectors();
  v.push_back(std::move(c));
  setValue(n.inConnectors(), std::move(v));
}

void Editor::addOutConnector(Node& n, Connector c) {
  auto v = n.outConnectors();
  v.push_back(std::move(c));
  setValue(n.outConnectors(), std::move(v));
}

void Editor::removeInConnector(Node& n, const std::string& name) {
  auto v = n.inConnectors();
  std::erase_if(v, [&](auto& c) { return c.name == name; });
  setValue(n.inConnectors(), std::move(v));
}

void Editor::removeOutConnector(Node& n, const std::string& name) {
  auto v = n.outConnectors();
  std::erase_if(v, [&](auto& c) { return c.name == name; });
  setValue(n.outConnectors(), std::move(v));
}

DataDescriptor* Editor::addData(Sdfg& sdfg, std::unique_ptr<DataDescriptor> desc) {
  DataDescriptor* d = sdfg.addData(std::move(desc));
  if (!d) return nullptr;
  record(std::make_unique<Added<DataP>>(JournalKey(), &sdfg, d, sdfg.data().size() - 1, nullptr));
  return d;
}

DataDescriptor* Editor::addTransient(Sdfg& sdfg, const std::string& name, DType dtype, std::vector<sym::Expr> shape) {
  auto d = std::make_unique<DataDescriptor>(name);
  d->dataKind = shape.empty() ? DataKind::Scalar : DataKind::Array;
  d->dtype = dtype;
  d->strides = DataDescriptor::contiguousStrides(shape);
  d->shape = std::move(shape);
  d->transient = true;
  return addData(sdfg, std::move(d));
}

void Editor::removeData(Sdfg& sdfg, const std::string& name) {
  DataDescriptor* d = sdfg.findData(name);
  assert(d);
  auto r = std::make_unique<Removed<DataP>>(JournalKey(), &sdfg, d, 0, nullptr);
  r->take();
  record(std::move(r));
}

void Editor::addSymbol(Sdfg& sdfg, const std::string& name, DType type) {
  if (sdfg.symbols().count(name)) return;
  record(std::make_unique<SymbolEdit>(&sdfg, name, type, true));
}

void Editor::removeSymbol(Sdfg& sdfg, const std::string& name) {
  auto it = sdfg.symbols().find(name);
  if (it == sdfg.symbols().end()) return;
  record(std::make_unique<SymbolEdit>(&sdfg, name, it->second, false));
}

ControlFlowBlock* Editor::addBlock(ControlFlowRegion& region, std::unique_ptr<ControlFlowBlock> block) {
  bool hadStart = region.startBlock() != kNoId;
  if (!block->label().empty()) block->setLabel(region.uniqueBlockLabel(block->label()));
  ControlFlowBlock* b = region.addBlock(std::move(block));
  record(std::make_unique<Added<BlockP>>(JournalKey(), &region, b, region.blocks().size() - 1, nullptr));
  if (!hadStart) { // addBlock made it the start block behind the journal's back: record that too
    region.setStartBlock(kNoId);
    setStartBlock(region, b->id());
  }
  return b;
}

State* Editor::addState(ControlFlowRegion& region, const std::string& label) {
  return static_cast<State*>(addBlock(region, std::make_unique<State>(label.empty() ? "state" : label)));
}

void Editor::removeBlock(ControlFlowRegion& region, ElementId id) {
  ControlFlowBlock* b = region.block(id);
  assert(b);
  for (auto* e : region.inEdges(id)) removeInterstateEdge(region, e->id());
  for (auto* e : region.outEdges(id)) removeInterstateEdge(region, e->id());
  auto r = std::make_unique<Removed<BlockP>>(JournalKey(), &region, b, 0, nullptr);
  r->take();
  record(std::move(r));
  if (region.startBlock() == id)
    setStartBlock(region, region.blocks().empty() ? kNoId : region.blocks().front()->id());
}

InterstateEdge* Editor::addInterstateEdge(ControlFlowRegion& region, ElementId src, ElementId dst, sym::Expr condition) {
  InterstateEdge* e = region.addEdge(src, dst, std::move(condition));
  record(std::make_unique<Added<IEdgeP>>(JournalKey(), &region, e, region.edges().size() - 1, nullptr));
  return e;
}

void Editor::removeInterstateEdge(ControlFlowRegion& region, ElementId id) {
  InterstateEdge* e = nullptr;
  for (auto& x : region.edges())
    if (x->id() == id) e = x.get();
  assert(e);
  auto r = std::make_unique<Removed<IEdgeP>>(JournalKey(), &region, e, 0, nullptr);
  r->take();
  record(std::move(r));
}

namespace {
struct StartEdit : Edit {
  StartEdit(ControlFlowRegion* r, ElementId id) : region(r), other(id) { swap(); }
  void undo() override { swap(); }
  void redo() override { swap(); }
  void swap() {
    ElementId cur = region->startBlock();
    region->setStartBlock(other);
    other = cur;
  }
  ControlFlowRegion* region;
  ElementId other;
};
} // namespace

void Editor::setStartBlock(ControlFlowRegion& region, ElementId id) {
  if (region.startBlock() == id) return;
  record(std::make_unique<StartEdit>(&region, id));
}

void Editor::relabel(Element& e, std::string label) {
  if (e.label() == label) return;
  if (auto* n = dynamic_cast<Node*>(&e)) record(std::make_unique<NodeLabelEdit>(n, std::move(label)));
  else record(std::make_unique<ElementLabelEdit>(&e, std::move(label)));
}

void Editor::setAccessData(AccessNode& n, const std::string& data) {
  if (n.data() == data && n.label() == data) return;
  // The label is the data's name, made unique in the state when another node has it already.
  std::string label = data;
  if (auto* st = n.parent(); st && st->nodeByLabel(data) && st->nodeByLabel(data) != &n) label = st->uniqueNodeLabel(data);
  if (n.data() == data && n.label() == label) return;
  record(std::make_unique<AccessDataEdit>(&n, data, std::move(label)));
}

void Editor::rollbackTo(size_t mark) {
  journal_.rollbackTo(mark);
  if (mark == 0) root_.resetNextId(journal_.nextIdBefore);
}

Journal Editor::takeJournal() {
  Journal out = std::move(journal_);
  out.nextIdAfter = root_.peekNextId();
  journal_ = Journal();
  journal_.root = &root_;
  journal_.nextIdBefore = root_.peekNextId();
  return out;
}

} // namespace dcw::edit
