#include "core/expansions/ExpandPass.h"

#include "core/edit/Editor.h"
#include "core/expansions/Expansion.h"
#include "core/expansions/Implementations.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"

#include <optional>

namespace dcw::expansions {

using namespace dcw::ir;

namespace {

Expected<void> expandWith(edit::Editor& editor, LibraryNode& node, const ExpansionInfo& info);

// What `info` expands the node into (nothing is changed; an expansion refuses before it edits).
Expected<std::unique_ptr<Sdfg>> expansionOf(const LibraryNode& node, const ExpansionInfo& info) {
  const std::string path = pathOf(node);
  if (node.opaque)
    return fail(path + " (" + node.className() + ")", "op " + node.className() + " has no known schema and cannot be run");
  const State& st = *node.parent();
  ExpansionContext ctx(*owningSdfg(&st), st, node, path);
  return info.fn(ctx);
}

struct Found {
  State* state = nullptr;
  LibraryNode* node = nullptr;
};

// The library nodes of the states of `root` and of the SDFGs nested in them (not of library nodes'
// subgraphs: those are expanded with their node), in walk order: a state's nodes in order, a nested
// SDFG's where its node stands. Without recursion, since expanded If/Loop bodies nest as deep as the
// model's subgraphs (1,000 levels and more).
void collect(Sdfg& root, std::vector<Found>& out) {
  struct Frame {
    std::vector<State*> states;
    size_t state = 0;
    std::optional<OwnedList<Node>::const_iterator> next; // in states[state]
  };
  std::vector<Frame> stack;
  stack.push_back({root.allStates()});
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.state == f.states.size()) {
      stack.pop_back();
      continue;
    }
    State* st = f.states[f.state];
    if (!f.next) f.next = st->nodes().begin();
    if (*f.next == st->nodes().end()) {
      ++f.state;
      f.next.reset();
      continue;
    }
    Node* n = (*f.next)++->get();
    if (auto* l = dynamic_cast<LibraryNode*>(n)) out.push_back({st, l});
    if (auto* ns = dynamic_cast<NestedSdfgNode*>(n)) stack.push_back({ns->sdfg().allStates()}); // f is not used after this
  }
}

// How deep library nodes' subgraphs (and nested SDFGs) nest below `root`, without recursion.
int subgraphNesting(const Sdfg& root) {
  std::vector<std::pair<const Sdfg*, int>> todo{{&root, 0}};
  int deepest = 0;
  while (!todo.empty()) {
    auto [s, level] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, level);
    for (State* st : s->allStates())
      for (auto& n : st->nodes()) {
        if (auto* l = dynamic_cast<const LibraryNode*>(n.get()))
          for (auto& g : l->subgraphs()) todo.emplace_back(g.sdfg.get(), level + 1);
        if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) todo.emplace_back(&ns->sdfg(), level + 1);
      }
  }
  return deepest;
}

// Rounds an expansion may take beyond the model's own nesting before it counts as one that keeps
// producing library nodes.
constexpr int kExpansionRounds = 64;

} // namespace

Expected<void> expandNode(Sdfg& root, ElementId id, const std::string& implementation) {
  edit::Editor editor(root);
  auto* lib = dynamic_cast<LibraryNode*>(root.findElement(id));
  if (!lib) return fail("element " + std::to_string(id), "is not a library node of this model");
  return expandNode(editor, *lib, implementation);
}

Expected<void> expandNode(edit::Editor& editor, LibraryNode& node, const std::string& implementation) {
  if (!node.parent()) return fail("element " + std::to_string(node.id()), "is not a library node of this model");
  const ExpansionInfo* info = registry().find(node.domain, node.opType, implementation);
  if (!info) {
    // The same refusal as for a node's own choice: names the alternatives with their targets.
    return unknownImplementation(node, implementation, pathOf(node));
  }
  return expandWith(editor, node, *info);
}

Expected<void> canExpand(const LibraryNode& node, const std::string& implementation, const std::string& target) {
  if (!node.parent()) return fail(pathOf(node), "is not part of a model");
  DCW_TRY(auto info, chooseImplementation(node, implementation, target, pathOf(node)));
  DCW_TRY(auto nested, expansionOf(node, *info));
  (void)nested;
  return {};
}

namespace {

Expected<void> expandWith(edit::Editor& editor, LibraryNode& node, const ExpansionInfo& infoRef) {
  const ExpansionInfo* info = &infoRef;
  const std::string& implementation = info->implementation;
  auto* lib = &node;
  State& st = *lib->parent();
  DCW_TRY(auto nested, expansionOf(*lib, *info));

  // Put a NestedSdfgNode with the same label and connected connectors in the library node's place.
  std::string label = lib->label();
  auto nsn = std::make_unique<NestedSdfgNode>(label + "__expanding", std::move(nested));
  Sdfg& inner = nsn->sdfg();
  for (auto& c : lib->inConnectors())
    if (inner.findData(c.name)) nsn->addIn(c);
  for (auto& c : lib->outConnectors())
    if (inner.findData(c.name)) nsn->addOut(c);
  for (auto& [name, type] : inner.symbols()) nsn->symbolMapping[name] = sym::Expr::symbol(name);
  inner.metadata["expanded_from"] = lib->className();
  inner.metadata["implementation"] = implementation;

  struct Saved {
    bool in;
    ElementId other;
    std::string otherConn, conn;
    Memlet memlet;
  };
  std::vector<Saved> saved;
  for (auto* e : st.inEdges(lib->id())) saved.push_back({true, e->src, e->srcConnector, e->dstConnector, e->memlet});
  for (auto* e : st.outEdges(lib->id())) saved.push_back({false, e->dst, e->dstConnector, e->srcConnector, e->memlet});
  editor.removeNode(st, lib->id());
  Node* placed = editor.addNode(st, std::move(nsn));
  editor.relabel(*placed, label);
  for (auto& e : saved) {
    if (!inner.findData(e.conn)) continue; // an unconnected optional connector
    Node* other = st.node(e.other);
    if (e.in) editor.addEdge(st, *other, e.otherConn, *placed, e.conn, e.memlet);
    else editor.addEdge(st, *placed, e.conn, *other, e.otherConn, e.memlet);
  }
  return {};
}

} // namespace

Expected<ExpandReport> expandAll(Sdfg& root, const ExpandOptions& options) {
  ExpandReport report;
  // Each round expands what the last one produced: the library nodes an expansion makes and those of
  // the If/Loop/Scan bodies it inlines, one level of subgraph nesting per round.
  const int rounds = kExpansionRounds + subgraphNesting(root);
  for (int round = 0; round < rounds; ++round) {
    std::vector<Found> found;
    collect(root, found);
    if (found.empty()) return report;
    edit::Editor editor(root); // a pass: its journal is not kept
    for (auto& f : found) {
      std::string used;
      if (f.node->implementation.empty())
        for (auto& p : options.prefer) {
          const ExpansionInfo* e = registry().find(f.node->domain, f.node->opType, p);
          // An expansion refuses before it edits anything, so a refusal leaves the node as it was.
          if (e && e->decl.forTarget(options.target) && expandWith(editor, *f.node, *e)) {
            used = p;
            break;
          }
        }
      if (used.empty()) {
        DCW_TRY(auto info, chooseImplementation(*f.node, f.node->implementation, options.target, pathOf(*f.node)));
        DCW_CHECK(expandWith(editor, *f.node, *info));
        used = info->implementation;
      }
      ++report.expanded;
      ++report.byImplementation[used];
    }
  }
  return fail(root.name(), "expansion did not finish after " + std::to_string(rounds) + " rounds",
              "an expansion keeps producing library nodes");
}

} // namespace dcw::expansions
