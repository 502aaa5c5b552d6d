#include "transforms/catalogue/GraphTools.h"

#include "core/ir/AccessNode.h"
#include "core/ir/ControlFlow.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"

#include <cctype>
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

bool containsIdentifier(const std::string& code, const std::string& id) {
  auto isId = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = code.find(id); p != std::string::npos; p = code.find(id, p + 1)) {
    bool before = p > 0 && isId(code[p - 1]);
    bool after = p + id.size() < code.size() && isId(code[p + id.size()]);
    if (!before && !after) return true;
  }
  return false;
}

const DataDescriptor* viewJoinedTo(const Sdfg& sdfg, const State& st, const AccessNode& node) {
  const DataDescriptor* own = sdfg.findData(node.data());
  auto viewAt = [&](ElementId id) -> const DataDescriptor* {
    auto* o = dynamic_cast<const AccessNode*>(st.node(id));
    const DataDescriptor* d = o ? sdfg.findData(o->data()) : nullptr;
    return d && d != own && d->dataKind == DataKind::View ? d : nullptr;
  };
  for (auto* e : st.outEdges(node.id()))
    if (auto* d = viewAt(e->dst)) return d;
  for (auto* e : st.inEdges(node.id()))
    if (auto* d = viewAt(e->src)) return d;
  return nullptr;
}

std::set<std::string> symbolsInUse(const Sdfg& s) {
  std::set<std::string> used = namesReadByControlFlow(s);
  auto add = [&](const std::set<std::string>& names) { used.insert(names.begin(), names.end()); };
  for (auto& d : s.data()) add(d->freeSymbols());
  for (State* st : s.allStates()) {
    for (auto& n : st->nodes()) {
      if (auto* me = dynamic_cast<const MapEntry*>(n.get())) {
        add(me->range.freeSymbols());
      } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) {
        for (auto& [inner, outer] : ns->symbolMapping) add(outer.freeSymbols());
      } else if (auto* lib = dynamic_cast<const LibraryNode*>(n.get())) {
        for (auto& g : lib->subgraphs()) // a body sees the enclosing graph's symbols by name
          for (auto& [name, type] : g.sdfg->symbols()) used.insert(name);
      } else if (auto* t = dynamic_cast<const Tasklet*>(n.get())) {
        if (t->language == TaskletLanguage::Dcw)
          if (auto program = tasklet::parse(t->code, t->label())) {
            for (auto& name : tasklet::readNames(*program)) used.insert(name);
            continue;
          }
        for (auto& [name, type] : s.symbols()) // C++, or code that does not parse: the symbols it names as words
          if (containsIdentifier(t->code, name)) used.insert(name);
      }
    }
    for (auto& e : st->edges()) {
      add(e->memlet.subset.freeSymbols());
      if (e->memlet.otherSubset) add(e->memlet.otherSubset->freeSymbols());
      add(e->memlet.volume.freeSymbols());
    }
  }
  return used;
}

bool namedInControlFlow(const Sdfg& s, const std::string& name) {
  // The control flow of `s` and of every SDFG nested in its nodes, without visiting dataflow edges
  // or data (asked for every candidate of a pass, a walk of every element cost a whole model each).
  auto has = [&](const sym::Expr& x) { return x.freeSymbols().count(name) > 0; };
  std::vector<const ControlFlowBlock*> open{&s};
  while (!open.empty()) {
    const ControlFlowBlock* b = open.back();
    open.pop_back();
    switch (b->kind()) {
    case ElementKind::State:
      for (auto& n : static_cast<const State*>(b)->nodes()) {
        if (n->kind() == ElementKind::NestedSdfg) open.push_back(&static_cast<const NestedSdfgNode&>(*n).sdfg());
        else if (n->kind() == ElementKind::LibraryNode)
          for (auto& g : static_cast<const LibraryNode&>(*n).subgraphs()) open.push_back(g.sdfg.get());
      }
      continue;
    case ElementKind::ConditionalRegion:
      for (auto& br : static_cast<const ConditionalRegion*>(b)->branches()) open.push_back(br.get());
      continue;
    case ElementKind::LoopRegion: {
      auto* l = static_cast<const LoopRegion*>(b);
      if (has(l->init) || has(l->condition) || has(l->update)) return true;
      break;
    }
    case ElementKind::BranchRegion: {
      auto* br = static_cast<const BranchRegion*>(b);
      if (br->condition && has(*br->condition)) return true;
      break;
    }
    default:
      break;
    }
    auto* r = dynamic_cast<const ControlFlowRegion*>(b);
    if (!r) continue;
    for (auto& ie : r->edges()) {
      if (has(ie->condition)) return true;
      for (auto& [k, v] : ie->assignments)
        if (k == name || has(v)) return true;
    }
    for (auto& blk : r->blocks()) open.push_back(blk.get());
  }
  return false;
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
