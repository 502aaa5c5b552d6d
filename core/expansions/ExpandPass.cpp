#include "core/expansions/ExpandPass.h"

#include "core/expansions/Expansion.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

struct Found {
  State* state = nullptr;
  LibraryNode* node = nullptr;
};

void collect(Sdfg& s, std::vector<Found>& out) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* l = dynamic_cast<LibraryNode*>(n.get())) out.push_back({st, l});
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) collect(ns->sdfg(), out);
    }
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

} // namespace

Expected<void> expandNode(Sdfg& root, ElementId id, const std::string& implementation) {
  auto* lib = dynamic_cast<LibraryNode*>(root.findElement(id));
  if (!lib || !lib->parent()) return fail("element " + std::to_string(id), "is not a library node of this model");
  State& st = *lib->parent();
  Sdfg* owner = owningSdfg(&st);
  const std::string path = pathOf(root, id);
  const ExpansionInfo* info = registry().find(lib->domain, lib->opType, implementation);
  if (!info) {
    auto impls = registry().implementations(lib->domain, lib->opType);
    return fail(path + " (" + lib->className() + ")",
                "op " + lib->className() + " has no '" + implementation + "' implementation" +
                    (impls.empty() ? " (DCW cannot run this op yet)" : "; available: " + joined(impls)),
                impls.empty() ? "replace the op, or wait for its implementation" : "choose one of the available implementations");
  }
  if (lib->opaque)
    return fail(path + " (" + lib->className() + ")", "op " + lib->className() + " has no known schema and cannot be run");
  ExpansionContext ctx(*owner, st, *lib, path);
  auto nested = info->fn(ctx);
  if (!nested) return nested.takeError();

  // Put a NestedSdfgNode with the same label and connected connectors in the library node's place.
  std::string label = lib->label();
  auto node = std::make_unique<NestedSdfgNode>(label + "__expanding", std::move(*nested));
  Sdfg& inner = node->sdfg();
  for (auto& c : lib->inConnectors())
    if (inner.findData(c.name)) node->addIn(c);
  for (auto& c : lib->outConnectors())
    if (inner.findData(c.name)) node->addOut(c);
  for (auto& [name, type] : inner.symbols()) node->symbolMapping[name] = sym::Expr::symbol(name);
  inner.metadata["expanded_from"] = lib->className();
  inner.metadata["implementation"] = implementation;

  std::vector<std::unique_ptr<DataflowEdge>> edges;
  for (auto* e : st.inEdges(lib->id())) edges.push_back(st.removeEdge(e->id()));
  for (auto* e : st.outEdges(lib->id())) edges.push_back(st.removeEdge(e->id()));
  ElementId oldId = lib->id();
  st.removeNode(oldId);
  Node* placed = st.addNode(std::move(node));
  st.relabel(*placed, label);
  for (auto& e : edges) {
    bool in = e->dst == oldId;
    const std::string& conn = in ? e->dstConnector : e->srcConnector;
    if (!inner.findData(conn)) continue; // an unconnected optional connector
    if (in) e->dst = placed->id();
    else e->src = placed->id();
    e->setId(kNoId);
    st.addEdge(std::move(e));
  }
  return {};
}

Expected<ExpandReport> expandAll(Sdfg& root, const std::string& implementation) {
  ExpandReport report;
  for (int round = 0; round < 64; ++round) {
    std::vector<Found> found;
    collect(root, found);
    if (found.empty()) return report;
    for (auto& f : found) {
      if (auto r = expandNode(root, f.node->id(), implementation); !r) return r.takeError();
      ++report.expanded;
    }
  }
  return fail(root.name(), "expansion did not finish after 64 rounds", "an expansion keeps producing library nodes");
}

} // namespace dcw::expansions
