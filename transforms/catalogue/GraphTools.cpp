#include "transforms/catalogue/GraphTools.h"

#include "core/ir/AccessNode.h"
#include "core/ir/ControlFlow.h"

#include <cstring>
#include <deque>

namespace dcw::transforms::graph {

using namespace dcw::ir;

size_t accessCount(const Sdfg& sdfg, const std::string& data) {
  size_t c = 0;
  for (State* st : sdfg.allStates())
    for (auto& n : st->nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an->data() == data) ++c;
  return c;
}

std::optional<std::vector<int64_t>> constantValues(const std::vector<sym::Expr>& exprs) {
  std::vector<int64_t> values;
  for (auto& e : exprs) {
    auto v = e.constantValue();
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

std::optional<std::vector<int64_t>> constantShape(const DataDescriptor& d) { return constantValues(d.shape); }

std::optional<double> scalarConstant(const Sdfg& sdfg, const State& st, const DataflowEdge* e) {
  auto* an = e ? dynamic_cast<const AccessNode*>(st.node(e->src)) : nullptr;
  const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
  const Tensor* t = d && d->constant ? d->constant.get() : nullptr;
  if (!t || !t->bytes || t->elementCount() != 1) return std::nullopt;
  if (t->dtype == DType::Float32 && t->bytes->size() == 4) {
    float f;
    std::memcpy(&f, t->bytes->data(), 4);
    return f;
  }
  if (t->dtype == DType::Float64 && t->bytes->size() == 8) {
    double v;
    std::memcpy(&v, t->bytes->data(), 8);
    return v;
  }
  return std::nullopt;
}

bool namedInControlFlow(const Sdfg& s, const std::string& name) {
  bool found = false;
  auto has = [&](const sym::Expr& x) { return x.freeSymbols().count(name) > 0; };
  s.forEachElement([&](const Element& e) {
    if (found) return;
    if (auto* ie = dynamic_cast<const InterstateEdge*>(&e)) {
      if (has(ie->condition)) found = true;
      for (auto& [k, v] : ie->assignments)
        if (k == name || has(v)) found = true;
    } else if (auto* l = dynamic_cast<const LoopRegion*>(&e)) {
      if (has(l->init) || has(l->condition) || has(l->update)) found = true;
    } else if (auto* b = dynamic_cast<const BranchRegion*>(&e)) {
      if (b->condition && has(*b->condition)) found = true;
    }
  });
  return found;
}

std::string freshDataName(const Sdfg& s, const std::string& base) {
  if (!s.findData(base)) return base;
  for (int i = 1;; ++i)
    if (!s.findData(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}

const DataflowEdge* inEdge(const State& st, const Node& n, const std::string& conn) {
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == conn) return e;
  return nullptr;
}

bool reachesAvoiding(const State& st, ElementId from, ElementId to, const std::set<ElementId>& avoid) {
  std::set<ElementId> seen{from};
  std::deque<ElementId> q{from};
  while (!q.empty()) {
    ElementId n = q.front();
    q.pop_front();
    for (auto* e : st.outEdges(n)) {
      if (avoid.count(e->dst)) continue;
      if (e->dst == to) return true;
      if (seen.insert(e->dst).second) q.push_back(e->dst);
    }
  }
  return false;
}

} // namespace dcw::transforms::graph
