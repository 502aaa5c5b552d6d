#include "core/ir/Walk.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dcw::ir {

namespace {

// The walk with a work list instead of recursion: SDFGs nest as deep as the model's subgraphs, and
// more once If/Loop bodies are expanded (an If nest 1,000 deep holds some 2,000 nested SDFGs), and
// every user of the walk (adoption, copies, serialization, checks) would be as deep. A unit of work
// is an element to visit and descend into, or the edges of a state or region, visited after what
// the container holds; units are pushed in reverse so that they run in the recursive walk's order.
struct Work {
  enum class Kind { Element, StateEdges, RegionEdges } kind;
  Element* element;
};

void run(Element& start, const ElementVisitor& fn) {
  std::vector<Work> todo{{Work::Kind::Element, &start}};
  while (!todo.empty()) {
    Work w = todo.back();
    todo.pop_back();
    if (w.kind == Work::Kind::StateEdges) {
      for (auto& e : static_cast<State*>(w.element)->edges()) fn(*e);
      continue;
    }
    if (w.kind == Work::Kind::RegionEdges) {
      for (auto& e : static_cast<ControlFlowRegion*>(w.element)->edges()) fn(*e);
      continue;
    }
    Element& el = *w.element;
    auto regionBody = [&](ControlFlowRegion& r) {
      todo.push_back({Work::Kind::RegionEdges, &r});
      for (auto it = r.blocks().rbegin(); it != r.blocks().rend(); ++it) todo.push_back({Work::Kind::Element, it->get()});
    };
    switch (el.kind()) { // each kind is one class (Element.h), so no cast needs to be tried
    case ElementKind::Sdfg: {
      auto& s = static_cast<Sdfg&>(el);
      fn(s);
      for (auto& d : s.data()) fn(*d);
      regionBody(s);
      break;
    }
    case ElementKind::State: {
      auto& st = static_cast<State&>(el);
      fn(st);
      todo.push_back({Work::Kind::StateEdges, &st});
      const size_t first = todo.size();
      for (auto& n : st.nodes()) todo.push_back({Work::Kind::Element, n.get()});
      std::reverse(todo.begin() + static_cast<std::ptrdiff_t>(first), todo.end());
      break;
    }
    case ElementKind::LoopRegion:
    case ElementKind::BranchRegion: {
      auto& r = static_cast<ControlFlowRegion&>(el);
      fn(r);
      regionBody(r);
      break;
    }
    case ElementKind::ConditionalRegion: {
      auto& c = static_cast<ConditionalRegion&>(el);
      fn(c);
      for (auto it = c.branches().rbegin(); it != c.branches().rend(); ++it) todo.push_back({Work::Kind::Element, it->get()});
      break;
    }
    case ElementKind::NestedSdfg:
      fn(el);
      todo.push_back({Work::Kind::Element, &static_cast<NestedSdfgNode&>(el).sdfg()});
      break;
    case ElementKind::LibraryNode: {
      auto& l = static_cast<LibraryNode&>(el);
      fn(l);
      for (auto it = l.subgraphs().rbegin(); it != l.subgraphs().rend(); ++it) todo.push_back({Work::Kind::Element, it->sdfg.get()});
      break;
    }
    default: fn(el); // the other nodes, data, edges: nothing inside
    }
  }
}

} // namespace

void walk(Node& node, const ElementVisitor& fn) { run(node, fn); }
void walk(ControlFlowBlock& block, const ElementVisitor& fn) { run(block, fn); }
void walk(Sdfg& sdfg, const ElementVisitor& fn) { run(sdfg, fn); }

} // namespace dcw::ir
