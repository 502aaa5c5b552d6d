// SyntheticExpansion: stand-in `pure` implementations for benchmarks and tests until the lowering
// registry (core/expansions) exists — for a library node, an SDFG with one access node per input, a
// map over the output's shape holding one tasklet, and the output's access node. It has the size
// and shape a real elementwise expansion has, so canvas figures on "fully expanded" models are
// meaningful. Expansions are built on first request and owned by the provider; their ids are taken
// above every id of the model, so they never collide with it.
#pragma once

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <map>
#include <memory>

namespace dcw::bench {

class SyntheticExpansions {
public:
  explicit SyntheticExpansions(const ir::Sdfg& model) : next_(model.root()->peekNextId() + 1000000) {}

  const ir::Sdfg* get(const ir::LibraryNode& l) {
    auto it = cache_.find(l.id());
    if (it != cache_.end()) return it->second.get();
    auto s = std::make_unique<ir::Sdfg>("pure_" + l.label());
    ir::State* st = s->addState("expansion");
    std::vector<ir::AccessNode*> ins;
    std::vector<sym::Expr> outShape{sym::Expr::symbol("N")};
    s->addSymbol("N");
    for (auto& c : l.inConnectors()) {
      if (c.optional) continue;
      s->addArray(c.name, ir::DType::Float32, outShape);
      ins.push_back(st->add<ir::AccessNode>(c.name));
    }
    std::string outName = l.outConnectors().empty() ? "out" : l.outConnectors()[0].name;
    if (s->findData(outName)) outName += "_out";
    s->addArray(outName, ir::DType::Float32, outShape);
    auto* entry = st->add<ir::MapEntry>("map_" + l.opType);
    entry->params = {"i"};
    entry->range = ir::Subset({ir::Range::full(sym::Expr::symbol("N"))});
    auto* exit = st->add<ir::MapExit>("map_" + l.opType + "_exit");
    auto* t = st->add<ir::Tasklet>(l.opType, "y = f(x)");
    auto* out = st->add<ir::AccessNode>(outName);
    ir::Subset one({ir::Range::index(sym::Expr::symbol("i"))});
    for (auto* a : ins) {
      st->addEdge(*a, "", *entry, "IN_" + a->data(), ir::Memlet::full(a->data(), outShape));
      st->addEdge(*entry, "OUT_" + a->data(), *t, "x_" + a->data(), ir::Memlet::simple(a->data(), one));
    }
    st->addEdge(*t, "y", *exit, "IN_y", ir::Memlet::simple(outName, one));
    st->addEdge(*exit, "OUT_y", *out, "", ir::Memlet::full(outName, outShape));
    entry->exitId = exit->id();
    exit->entryId = entry->id();
    // Fresh ids above the model's: renumber this standalone SDFG from next_.
    s->resetNextId(next_);
    s->reassignIds();
    next_ = s->peekNextId() + 1;
    const ir::Sdfg* raw = s.get();
    cache_.emplace(l.id(), std::move(s));
    return raw;
  }

private:
  ir::ElementId next_;
  std::map<ir::ElementId, std::unique_ptr<ir::Sdfg>> cache_;
};

} // namespace dcw::bench
