#include "transforms/ModelCommands.h"

#include "core/edit/ScriptSyntax.h"
#include "core/expansions/Expansion.h"
#include "core/expansions/Implementations.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/ModulePath.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"

#include <optional>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::vector<std::string> scheduleChoices() {
  std::vector<std::string> out;
  for (auto s : {Schedule::Default, Schedule::Sequential, Schedule::CpuMulticore, Schedule::GpuDevice,
                 Schedule::GpuThreadBlock, Schedule::FpgaPipeline, Schedule::Unrolled, Schedule::Vectorized})
    out.emplace_back(scheduleName(s));
  return out;
}
std::vector<std::string> storageChoices() {
  std::vector<std::string> out;
  for (auto s : {StorageType::Default, StorageType::CpuHeap, StorageType::CpuStack, StorageType::Register,
                 StorageType::GpuGlobal, StorageType::GpuShared, StorageType::FpgaGlobal, StorageType::FpgaLocal})
    out.emplace_back(storageName(s));
  return out;
}
std::vector<std::string> lifetimeChoices() {
  std::vector<std::string> out;
  for (auto l : {Lifetime::Scope, Lifetime::State, Lifetime::Sdfg, Lifetime::Persistent, Lifetime::External})
    out.emplace_back(lifetimeName(l));
  return out;
}

std::string shortName(const std::string& path) {
  size_t cut = path.rfind('/');
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The SDFG that declares data `d` (the descriptor has no parent pointer; search from the root).
Sdfg* declaringSdfg(Sdfg& s, const DataDescriptor* d) {
  for (auto& x : s.data())
    if (x.get() == d) return &s;
  for (State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get()))
        if (Sdfg* r = declaringSdfg(ns->sdfg(), d)) return r;
      if (auto* l = dynamic_cast<LibraryNode*>(n.get()))
        for (auto& g : l->subgraphs())
          if (Sdfg* r = declaringSdfg(*g.sdfg, d)) return r;
    }
  return nullptr;
}

// Every access node and memlet of `s` (not of nested SDFGs, whose names are their own) using `name`.
template <class Fn>
void forUses(Sdfg& s, const std::string& name, Fn&& fn) {
  for (State* st : s.allStates())
    for (auto& e : st->edges())
      if (e->memlet.data == name) fn(st, static_cast<Node*>(nullptr), e.get());
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == name) fn(st, n.get(), nullptr);
}

} // namespace

std::vector<PropertyInfo> editableProperties(const Element& e) {
  std::vector<PropertyInfo> out;
  if (auto* me = dynamic_cast<const MapEntry*>(&e))
    out.push_back({"schedule", std::string(scheduleName(me->schedule)), scheduleChoices(), "how the map's iterations run"});
  if (auto* lib = dynamic_cast<const LibraryNode*>(&e)) {
    auto impls = expansions::registry().implementations(lib->domain, lib->opType);
    out.push_back({"implementation", lib->implementation, impls, "the implementation used when the node is expanded"});
  }
  if (auto* d = dynamic_cast<const DataDescriptor*>(&e)) {
    out.push_back({"storage", std::string(storageName(d->storage)), storageChoices(), "where the data lives"});
    out.push_back({"lifetime", std::string(lifetimeName(d->lifetime)), lifetimeChoices(), "how long the data lives"});
  }
  if (auto* t = dynamic_cast<const Tasklet*>(&e)) out.push_back({"code", t->code, {}, "the tasklet's code"});
  return out;
}

std::string SetProperty::scriptLine() const {
  return "set " + edit::quoteValue(path_) + " " + name_ + "=" + edit::quoteValue(value_);
}
std::string SetProperty::title() const {
  auto module = parseModuleAddress(path_);
  return "Set " + name_ + " of " + (module ? "module " + module->module : shortName(path_)) + " to " + value_;
}

namespace {

// Sets property `name` of `e` (at `path`) to `value`, or fails saying why this element does not take it.
Expected<void> setProperty(edit::Editor& ed, Element* e, const std::string& path, const std::string& name, const std::string& value) {
  auto props = editableProperties(*e);
  const PropertyInfo* info = nullptr;
  for (auto& p : props)
    if (p.name == name) info = &p;
  if (!info) {
    std::vector<std::string> names;
    for (auto& p : props) names.push_back(p.name);
    return fail(path, "a " + std::string(elementKindName(e->kind())) + " has no settable property '" + name + "'",
                names.empty() ? "nothing of this element can be set" : "settable here: " + joined(names));
  }
  if (name == "implementation") {
    // The op must have it ("" = the default policy); whether it is for the target the model is built for
    // is checked when it is expanded (a script does not know its target: cublas is for `--target cuda`).
    auto* l = static_cast<LibraryNode*>(e);
    if (!value.empty() && !expansions::registry().find(l->domain, l->opType, value)) return expansions::unknownImplementation(*l, value, path);
  } else if (!info->choices.empty() && std::find(info->choices.begin(), info->choices.end(), value) == info->choices.end())
    return fail(path, "'" + value + "' is not a valid " + name, "choose one of: " + joined(info->choices));
  if (name == "schedule") ed.set(*static_cast<MapEntry*>(e), &MapEntry::schedule, *scheduleFromName(value));
  else if (name == "implementation") ed.set(*static_cast<LibraryNode*>(e), &LibraryNode::implementation, value);
  else if (name == "storage") ed.set(*static_cast<DataDescriptor*>(e), &DataDescriptor::storage, *storageFromName(value));
  else if (name == "lifetime") ed.set(*static_cast<DataDescriptor*>(e), &DataDescriptor::lifetime, *lifetimeFromName(value));
  else if (name == "code") {
    auto* t = static_cast<Tasklet*>(e);
    if (t->language == TaskletLanguage::Dcw)
      DCW_CHECK(tasklet::parse(value, path));
    ed.set(*t, &Tasklet::code, value);
  }
  return {};
}

} // namespace

Expected<void> SetProperty::execute(edit::Editor& ed) const {
  if (parseModuleAddress(path_)) { // every op of a module group that takes the value
    DCW_TRY(auto members, moduleMembers(ed.root(), path_));
    size_t done = 0;
    std::optional<Diagnostic> first;
    for (Node* n : members) {
      auto r = setProperty(ed, n, pathOf(*n), name_, value_);
      if (r) ++done;
      else if (!first) first = r.error();
    }
    if (done > 0) return {};
    return fail(path_, "none of the " + std::to_string(members.size()) + " ops of this module group takes " + name_ + "=" + value_ +
                           "; the first: " + (first->location.empty() ? "" : first->location + ": ") + first->message,
                first->hint);
  }
  DCW_TRY(auto el, resolvePath(ed.root(), path_));
  return setProperty(ed, el, path_, name_, value_);
}

std::string Rename::scriptLine() const { return "rename " + edit::quoteValue(path_) + " " + edit::quoteValue(label_); }
std::string Rename::title() const { return "Rename " + shortName(path_) + " to " + label_; }

Expected<void> Rename::execute(edit::Editor& ed) const {
  DCW_TRY(auto el, resolvePath(ed.root(), path_));
  Element* e = el;
  if (!isValidLabel(label_))
    return fail(path_, "'" + label_ + "' cannot be a label", "use a non-empty name without '/', '->', '=>' or a leading '@'");
  if (auto* n = dynamic_cast<Node*>(e)) {
    if (n->kind() == ElementKind::AccessNode)
      return fail(path_, "an access node is named after its data", "rename the data container (" + shortName(path_) + " as @name)");
    if (n->parent()->nodeByLabel(label_)) return fail(path_, "the state already has a node '" + label_ + "'", "choose another name");
    ed.relabel(*n, label_);
    return {};
  }
  if (auto* b = dynamic_cast<ControlFlowBlock*>(e); b && b->kind() != ElementKind::Sdfg) {
    if (auto* r = dynamic_cast<ControlFlowRegion*>(b->parent()); r && r->blockByLabel(label_))
      return fail(path_, "the region already has a block '" + label_ + "'", "choose another name");
    ed.relabel(*b, label_);
    return {};
  }
  if (auto* d = dynamic_cast<DataDescriptor*>(e)) {
    Sdfg* s = declaringSdfg(ed.root(), d);
    if (!d->transient || !s)
      return fail(path_, "only transient data can be renamed", "arguments are named by the model's interface");
    if (s->findData(label_)) return fail(path_, "the SDFG already has data '" + label_ + "'", "choose another name");
    std::string old = d->name();
    forUses(*s, old, [&](State*, Node* n, DataflowEdge* edge) {
      if (edge) {
        Memlet m = edge->memlet;
        m.data = label_;
        ed.set(*edge, &DataflowEdge::memlet, m);
      } else {
        ed.setAccessData(*static_cast<AccessNode*>(n), label_);
      }
    });
    ed.relabel(*d, label_);
    return {};
  }
  return fail(path_, "a " + std::string(elementKindName(e->kind())) + " cannot be renamed", "rename nodes, states or transient data");
}

std::string Delete::scriptLine() const { return "delete " + edit::quoteValue(path_); }
std::string Delete::title() const { return "Delete " + shortName(path_); }

Expected<void> Delete::execute(edit::Editor& ed) const {
  DCW_TRY(auto el, resolvePath(ed.root(), path_));
  Element* e = el;
  if (auto* n = dynamic_cast<Node*>(e)) {
    State& st = *n->parent();
    if (auto* me = dynamic_cast<MapEntry*>(n)) {
      // A map goes as a whole: entry, exit and everything in its scope.
      DCW_TRY(auto scopes, st.scopeOf());
      std::vector<ElementId> doomed;
      for (auto& [id, scope] : scopes) {
        const MapEntry* s = scope;
        while (s && s != me) s = scopes[s->id()];
        if (s == me && id != me->id()) doomed.push_back(id);
      }
      for (auto id : doomed)
        if (st.node(id)) ed.removeNode(st, id);
      ed.removeNode(st, me->id());
      return {};
    }
    if (n->kind() == ElementKind::MapExit) return fail(path_, "a map exit goes with its map", "delete the map entry");
    ed.removeNode(st, n->id());
    return {};
  }
  if (auto* b = dynamic_cast<ControlFlowBlock*>(e); b && b->kind() != ElementKind::Sdfg) {
    auto* r = dynamic_cast<ControlFlowRegion*>(b->parent());
    if (!r) return fail(path_, "a branch cannot be deleted on its own", "delete the conditional region");
    ed.removeBlock(*r, b->id());
    return {};
  }
  if (auto* d = dynamic_cast<DataDescriptor*>(e)) {
    Sdfg* s = declaringSdfg(ed.root(), d);
    if (!d->transient || !s) return fail(path_, "only transient data can be deleted", "arguments belong to the model's interface");
    bool used = false;
    forUses(*s, d->name(), [&](State*, Node*, DataflowEdge*) { used = true; });
    if (used) return fail(path_, "the data is still used", "delete the nodes that access it first");
    ed.removeData(*s, d->name());
    return {};
  }
  return fail(path_, "a " + std::string(elementKindName(e->kind())) + " cannot be deleted", "delete nodes, states or unused transient data");
}

} // namespace dcw::transforms
