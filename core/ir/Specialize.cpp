#include "core/ir/Specialize.h"

#include "core/ir/ControlFlow.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

namespace dcw::ir {

namespace {

constexpr const char* kSpecializedPrefix = "specialized:";

struct Substitution {
  std::map<std::string, sym::Expr> values;

  sym::Expr operator()(const sym::Expr& e) const { return e.substitute(values); }

  void region(ControlFlowRegion& r0) const {
    for (auto& e : r0.edges()) {
      e->condition = (*this)(e->condition);
      for (auto& [name, value] : e->assignments) value = (*this)(value);
    }
    if (auto* loop = dynamic_cast<LoopRegion*>(&r0)) {
      loop->init = (*this)(loop->init);
      loop->condition = (*this)(loop->condition);
      loop->update = (*this)(loop->update);
    }
    if (auto* branch = dynamic_cast<BranchRegion*>(&r0); branch && branch->condition)
      branch->condition = (*this)(*branch->condition);
    for (auto& b : r0.blocks()) {
      if (auto* r = dynamic_cast<ControlFlowRegion*>(b.get())) region(*r);
      else if (auto* c = dynamic_cast<ConditionalRegion*>(b.get()))
        for (auto& br : c->branches()) region(*br);
      else if (auto* st = dynamic_cast<State*>(b.get())) state(*st);
    }
  }

  void state(State& st) const {
    for (auto& n : st.nodes()) {
      if (auto* me = dynamic_cast<MapEntry*>(n.get())) me->range = me->range.substituted(values);
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get()))
        for (auto& [inner, outer] : ns->symbolMapping) outer = (*this)(outer);
    }
    for (auto& e : st.edges()) e->memlet = e->memlet.substituted(values);
  }
};

} // namespace

void specializeSymbols(Sdfg& root, const std::map<std::string, int64_t>& values) {
  Substitution s;
  for (auto& [name, v] : values) {
    if (!root.symbols().count(name)) continue;
    s.values.emplace(name, sym::Expr(v));
    root.metadata[kSpecializedPrefix + name] = std::to_string(v);
  }
  if (s.values.empty()) return;
  for (auto& d : root.data()) {
    for (auto& e : d->shape) e = s(e);
    for (auto& e : d->strides) e = s(e);
    d->offset = s(d->offset);
  }
  s.region(root);
}

std::optional<int64_t> specializedValue(const Sdfg& root, const std::string& symbol) {
  auto it = root.metadata.find(kSpecializedPrefix + symbol);
  if (it == root.metadata.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return std::nullopt;
  }
}

} // namespace dcw::ir
