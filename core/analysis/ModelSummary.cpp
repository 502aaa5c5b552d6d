#include "core/analysis/ModelSummary.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Walk.h"

#include <algorithm>
#include <set>

namespace dcw::analysis {

using namespace dcw::ir;

namespace {

bool isOperation(const Node& n) {
  return n.kind() == ElementKind::LibraryNode || n.kind() == ElementKind::Tasklet ||
         n.kind() == ElementKind::NestedSdfg || n.kind() == ElementKind::MapEntry;
}

// Longest chain of operations through a state (access nodes and map exits do not count).
int stateDepth(const State& st) {
  auto order = st.topologicalOrder();
  if (!order) return 0;
  std::map<ElementId, int> depth;
  int best = 0;
  for (Node* n : *order) {
    int d = 0;
    for (auto* e : st.inEdges(n->id())) d = std::max(d, depth[e->src]);
    if (isOperation(*n)) ++d;
    depth[n->id()] = d;
    best = std::max(best, d);
  }
  return best;
}

void visit(const Sdfg& s, int level, ModelSummary& out) {
  out.nesting = std::max(out.nesting, level);
  int depth = 0;
  for (State* st : s.allStates()) {
    ++out.stateCount;
    depth += stateDepth(*st); // states run one after another
    for (auto& n : st->nodes()) {
      if (isOperation(*n)) ++out.nodeCount;
      if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) {
        ++out.opsByType[l->className()];
        if (l->opaque) ++out.opaqueOps;
        for (auto& g : l->subgraphs()) visit(*g.sdfg, level + 1, out);
      } else if (n->kind() == ElementKind::Tasklet) {
        ++out.opsByType["(tasklet)"];
      } else if (n->kind() == ElementKind::MapEntry) {
        ++out.opsByType["(map)"];
      } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) {
        ++out.opsByType["(nested sdfg)"];
        visit(ns->sdfg(), level + 1, out);
      }
    }
  }
  if (level == 0) out.depth = depth;
  for (auto& d : s.data())
    if (d->constant) {
      out.parameterCount += d->constant->elementCount();
      out.parameterBytes += int64_t(d->constant->byteSize());
    }
}

} // namespace

ModelSummary summarize(const Sdfg& sdfg) {
  ModelSummary out;
  out.name = sdfg.name();
  out.inputs = sdfg.inputs;
  out.outputs = sdfg.outputs;
  out.metadata = sdfg.metadata;
  for (auto& [n, t] : sdfg.symbols()) out.symbols[n] = std::string(dtypeName(t));
  std::set<std::string> ins(sdfg.inputs.begin(), sdfg.inputs.end()), outs(sdfg.outputs.begin(), sdfg.outputs.end());
  for (auto& d : sdfg.data()) {
    ArrayInfo a;
    a.name = d->name();
    a.path = sdfg.name() + "/@" + d->name();
    a.dtype = std::string(dtypeName(d->dtype));
    for (auto& w : d->wrappers) a.dtype = std::string(wrapperName(w)) + "<" + a.dtype + ">";
    if (d->rankKnown)
      for (auto& e : d->shape) a.shape.push_back(e.str());
    else
      a.shape.push_back("?");
    a.role = d->constant ? "constant" : ins.count(d->name()) ? "input" : outs.count(d->name()) ? "output"
                                    : d->transient ? "transient" : "argument";
    if (d->rankKnown && d->wrappers.empty()) {
      if (auto v = d->totalSize().constantValue()) {
        a.elements = *v;
        if (dtypeSize(d->dtype) > 0) a.bytes = *v * int64_t(dtypeSize(d->dtype));
      }
    }
    out.arrays.push_back(std::move(a));
  }
  visit(sdfg, 0, out);
  return out;
}

} // namespace dcw::analysis
