#include "core/ir/Sdfg.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Walk.h"

#include <algorithm>
#include <unordered_map>

namespace dcw::ir {

Sdfg::Sdfg(std::string name) : ControlFlowRegion(ElementKind::Sdfg, std::move(name)), dataIndexRenames_(dataRenameCount()) {
  setId(allocateId());
}
Sdfg::~Sdfg() = default;

void Sdfg::rebuildDataIndex() const {
  dataIndexRenames_ = dataRenameCount();
  dataIndex_.clear();
  dataIndexDuplicates_ = false;
  for (auto& d : data_)
    if (!dataIndex_.emplace(d->name(), d.get()).second) dataIndexDuplicates_ = true; // renamed onto another
}

void Sdfg::dataIndexRemoved(const DataDescriptor& d) {
  std::lock_guard lock(dataIndexMutex_);
  if (dataRenameCount() != dataIndexRenames_ || dataIndexDuplicates_) return rebuildDataIndex();
  dataIndex_.erase(d.name());
}

void Sdfg::refreshDataIndex() const {
  if (dataRenameCount() != dataIndexRenames_) rebuildDataIndex();
}

DataDescriptor* Sdfg::addData(std::unique_ptr<DataDescriptor> desc) {
  std::lock_guard lock(dataIndexMutex_);
  refreshDataIndex();
  if (dataIndex_.count(desc->name())) return nullptr;
  desc->setId(allocateId());
  dataIndex_.emplace(desc->name(), desc.get());
  data_.push_back(std::move(desc));
  return data_.back().get();
}

DataDescriptor* Sdfg::addArray(const std::string& name, DType dtype, std::vector<sym::Expr> shape, bool transient) {
  auto d = std::make_unique<DataDescriptor>(name);
  d->dataKind = DataKind::Array;
  d->dtype = dtype;
  d->strides = DataDescriptor::contiguousStrides(shape);
  d->shape = std::move(shape);
  d->transient = transient;
  return addData(std::move(d));
}

DataDescriptor* Sdfg::addScalar(const std::string& name, DType dtype, bool transient) {
  auto d = std::make_unique<DataDescriptor>(name);
  d->dataKind = DataKind::Scalar;
  d->dtype = dtype;
  d->transient = transient;
  return addData(std::move(d));
}

DataDescriptor* Sdfg::findData(std::string_view name) const {
  std::lock_guard lock(dataIndexMutex_);
  refreshDataIndex();
  auto it = dataIndex_.find(name);
  return it == dataIndex_.end() ? nullptr : it->second;
}

std::unique_ptr<DataDescriptor> Sdfg::removeData(std::string_view name) {
  auto it = std::find_if(data_.begin(), data_.end(), [&](auto& d) { return d->name() == name; });
  if (it == data_.end()) return nullptr;
  auto out = std::move(*it);
  data_.erase(it);
  dataIndexRemoved(*out);
  return out;
}

std::unique_ptr<DataDescriptor> Sdfg::detachData(JournalKey, std::string_view name, size_t* position) {
  auto it = std::find_if(data_.begin(), data_.end(), [&](auto& d) { return d->name() == name; });
  if (it == data_.end()) return nullptr;
  *position = size_t(it - data_.begin());
  auto out = std::move(*it);
  data_.erase(it);
  dataIndexRemoved(*out);
  return out;
}

DataDescriptor* Sdfg::attachData(JournalKey, std::unique_ptr<DataDescriptor> desc, size_t position) {
  DataDescriptor* raw = desc.get();
  data_.insert(data_.begin() + std::min(position, data_.size()), std::move(desc));
  std::lock_guard lock(dataIndexMutex_);
  if (dataRenameCount() != dataIndexRenames_ || dataIndexDuplicates_ || !dataIndex_.emplace(raw->name(), raw).second)
    rebuildDataIndex(); // the position decides which of two equal names comes first
  return raw;
}

Sdfg* Sdfg::root() {
  Sdfg* s = this;
  while (s->parentNode_) {
    Sdfg* up = owningSdfg(s->parentNode_);
    if (!up) break;
    s = up;
  }
  return s;
}

const Sdfg* Sdfg::root() const { return const_cast<Sdfg*>(this)->root(); }

ElementId Sdfg::allocateId() {
  Sdfg* r = root();
  return r->nextId_++;
}

ElementId Sdfg::peekNextId() const { return root()->nextId_; }

void Sdfg::reserveIds(ElementId maxUsed) {
  Sdfg* r = root();
  r->nextId_ = std::max(r->nextId_, maxUsed + 1);
}

namespace {

template <class Subtree>
void adoptInto(Sdfg& owner, Subtree& subtree) {
  // References (edge ends, start blocks, map links) are local to their state or region. They are
  // resolved to pointers before renumbering, so that separately numbered parts of the subtree whose
  // old ids collide (e.g. two SDFGs built apart) cannot be confused, and written back afterwards.
  struct Fix {
    ElementId* slot;
    Element* target;
  };
  std::vector<Fix> fixes;
  // One walk: every element, the references to fix, the start blocks and the states to reindex
  // (four walks of the subtree before; each level of an If nest adopts the rest of the nest).
  std::vector<Element*> elements;
  std::vector<State*> states;
  std::vector<std::pair<ControlFlowRegion*, ControlFlowBlock*>> starts;
  walk(subtree, [&](Element& e) {
    elements.push_back(&e);
    if (auto* r = dynamic_cast<ControlFlowRegion*>(&e)) starts.emplace_back(r, r->block(r->startBlock()));
    if (auto* st = dynamic_cast<State*>(&e)) {
      states.push_back(st);
      std::unordered_map<ElementId, Node*> local;
      for (auto& n : st->nodes()) local.emplace(n->id(), n.get());
      auto at = [&](ElementId id) -> Element* {
        auto it = local.find(id);
        return it == local.end() ? nullptr : it->second;
      };
      for (auto& ed : st->edges()) {
        fixes.push_back({&ed->src, at(ed->src)});
        fixes.push_back({&ed->dst, at(ed->dst)});
      }
      for (auto& n : st->nodes()) {
        if (auto* me = dynamic_cast<MapEntry*>(n.get())) fixes.push_back({&me->exitId, at(me->exitId)});
        if (auto* mx = dynamic_cast<MapExit*>(n.get())) fixes.push_back({&mx->entryId, at(mx->entryId)});
      }
    } else if (auto* r = dynamic_cast<ControlFlowRegion*>(&e)) {
      for (auto& ie : r->edges()) {
        fixes.push_back({&ie->src, r->block(ie->src)});
        fixes.push_back({&ie->dst, r->block(ie->dst)});
      }
    }
  });
  // Ids come from the tree's root, found once: asking the owner per element walked up the whole
  // nesting for each, cubic in the depth of a deeply nested model.
  Sdfg* root = owner.root();
  for (Element* e : elements) e->setId(root->allocateId());
  for (auto& f : fixes)
    if (f.target) *f.slot = f.target->id();
  for (auto& [r, b] : starts)
    if (b) r->setStartBlock(b->id());
  for (State* st : states) st->reindex();
}

} // namespace

void Sdfg::adopt(ControlFlowBlock& subtree) { adoptInto(*this, subtree); }
void Sdfg::adopt(Node& subtree) { adoptInto(*this, subtree); }
void Sdfg::reassignIds() { adoptInto(*this, *this); }

void Sdfg::forEachElement(const std::function<void(Element&)>& fn) { walk(*this, fn); }

void Sdfg::forEachElement(const std::function<void(const Element&)>& fn) const {
  walk(const_cast<Sdfg&>(*this), [&](Element& e) { fn(e); });
}

Element* Sdfg::findElement(ElementId id) {
  Element* found = nullptr;
  walk(*this, [&](Element& e) {
    if (!found && e.id() == id) found = &e;
  });
  return found;
}

const Element* Sdfg::findElement(ElementId id) const { return const_cast<Sdfg*>(this)->findElement(id); }

static void collectStates(const ControlFlowBlock& b, std::vector<State*>& out) {
  if (auto* s = dynamic_cast<const State*>(&b)) {
    out.push_back(const_cast<State*>(s));
  } else if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
    for (auto& c : r->blocks()) collectStates(*c, out);
  } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
    for (auto& br : c->branches()) collectStates(*br, out);
  }
}

std::vector<State*> Sdfg::allStates() const {
  std::vector<State*> out;
  for (auto& b : blocks()) collectStates(*b, out);
  return out;
}

Sdfg* owningSdfg(const ControlFlowBlock* block) {
  while (block) {
    if (block->kind() == ElementKind::Sdfg) return const_cast<Sdfg*>(static_cast<const Sdfg*>(block));
    block = block->parent();
  }
  return nullptr;
}

Sdfg* owningSdfg(const Node* node) { return node ? owningSdfg(node->parent()) : nullptr; }

// --- nodes that own SDFGs ---------------------------------------------------------------------

NestedSdfgNode::NestedSdfgNode(std::string label, std::unique_ptr<Sdfg> sdfg)
    : Node(ElementKind::NestedSdfg, std::move(label)), sdfg_(std::move(sdfg)) {
  sdfg_->setParentNode(this);
}
NestedSdfgNode::~NestedSdfgNode() = default;

LibraryNode::LibraryNode(std::string label) : Node(ElementKind::LibraryNode, std::move(label)) {}
LibraryNode::~LibraryNode() = default;

const Attribute* LibraryNode::attribute(std::string_view name) const {
  for (auto& a : attributes)
    if (a.name == name) return &a;
  return nullptr;
}

std::string LibraryNode::className() const {
  std::string d = domain.empty() || domain == "ai.onnx" ? "" : domain + "::";
  return d + opType;
}

Sdfg* LibraryNode::subgraph(std::string_view name) const {
  for (auto& g : subgraphs_)
    if (g.name == name) return g.sdfg.get();
  return nullptr;
}

Sdfg* LibraryNode::addSubgraph(std::string name, std::unique_ptr<Sdfg> sdfg) {
  sdfg->setParentNode(this);
  Sdfg* raw = sdfg.get();
  subgraphs_.push_back(Subgraph{std::move(name), std::move(sdfg)});
  if (owningSdfg(this)) raw->reassignIds(); // allocates from the root through the parent chain
  return raw;
}

} // namespace dcw::ir
