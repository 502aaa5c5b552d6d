#include "core/ir/Walk.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

namespace dcw::ir {

void walk(Node& node, const ElementVisitor& fn) {
  fn(node);
  if (auto* n = dynamic_cast<NestedSdfgNode*>(&node)) walk(n->sdfg(), fn);
  if (auto* l = dynamic_cast<LibraryNode*>(&node))
    for (auto& g : l->subgraphs()) walk(*g.sdfg, fn);
}

void walk(ControlFlowBlock& block, const ElementVisitor& fn) {
  if (block.kind() == ElementKind::Sdfg) return walk(static_cast<Sdfg&>(block), fn);
  fn(block);
  if (auto* st = dynamic_cast<State*>(&block)) {
    for (auto& n : st->nodes()) walk(*n, fn);
    for (auto& e : st->edges()) fn(*e);
  } else if (auto* reg = dynamic_cast<ControlFlowRegion*>(&block)) {
    for (auto& b : reg->blocks()) walk(*b, fn);
    for (auto& e : reg->edges()) fn(*e);
  } else if (auto* cond = dynamic_cast<ConditionalRegion*>(&block)) {
    for (auto& b : cond->branches()) walk(*b, fn);
  }
}

void walk(Sdfg& sdfg, const ElementVisitor& fn) {
  fn(sdfg);
  for (auto& d : sdfg.data()) fn(*d);
  for (auto& b : sdfg.blocks()) walk(*b, fn);
  for (auto& e : sdfg.edges()) fn(*e);
}

} // namespace dcw::ir
