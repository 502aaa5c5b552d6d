#include "transforms/catalogue/MapDimShuffle.h"

#include "core/ir/AccessNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "transforms/Binding.h"
#include "transforms/OptionList.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The permutation `order` gives (new position -> old position), or why it is none.
Expected<std::vector<size_t>> permutation(const MapEntry& me, const std::string& order, const std::string& path) {
  const auto names = listItems(order);
  if (names.size() != me.params.size())
    return fail(path, "order names " + std::to_string(names.size()) + " parameters for a map of " + std::to_string(me.params.size()) +
                          " (" + joinListItems(me.params) + ")");
  std::vector<size_t> perm;
  std::set<std::string> seen;
  for (const auto& n : names) {
    size_t k = 0;
    while (k < me.params.size() && me.params[k] != n) ++k;
    if (k == me.params.size()) return fail(path, "order names '" + n + "', which is no parameter of the map (" + joinListItems(me.params) + ")");
    if (!seen.insert(n).second) return fail(path, "order names '" + n + "' twice");
    perm.push_back(k);
  }
  // A range may name only parameters that come before it.
  for (size_t pos = 0; pos < perm.size(); ++pos) {
    const Range& r = me.range[perm[pos]];
    for (size_t later = pos + 1; later < perm.size(); ++later) {
      const std::string& p = me.params[perm[later]];
      for (auto* e : {&r.begin, &r.end, &r.step})
        if (e->freeSymbols().count(p))
          return fail(path, "the range of '" + me.params[perm[pos]] + "' (" + r.str() + ") depends on '" + p + "', which the order puts after it");
    }
  }
  return perm;
}

// The dimension of `d` whose stride is 1 (the last one of a row-major array), or none.
std::optional<size_t> unitStrideDim(const DataDescriptor& d) {
  if (d.shape.empty()) return std::nullopt;
  if (d.strides.size() != d.shape.size()) return d.shape.size() - 1;
  if (d.channelBlock > 0) return 1; // the channels of a block are adjacent
  for (size_t k = d.strides.size(); k-- > 0;)
    if (d.strides[k] == sym::Expr(1)) return k;
  return std::nullopt;
}

} // namespace

const Pattern& MapDimShuffle::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> MapDimShuffle::options() const {
  return {{"order", OptionSpec::Type::Text, "", "the map's parameters in their new order, comma-separated (outermost first)", {}}};
}

bool MapDimShuffle::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  if (me->params.size() < 2) {
    if (whyNot) whyNot->error(path, "the map has one parameter: there is no other order");
    return false;
  }
  const std::string order = option(match, "order");
  if (order.empty()) {
    if (whyNot) whyNot->error(path, "no order given", "set order to the parameters in their new order, e.g. " + joinListItems(me->params));
    return false;
  }
  auto perm = permutation(*me, order, path);
  if (!perm) {
    if (whyNot) whyNot->error(path, perm.error().message);
    return false;
  }
  bool moved = false;
  for (size_t k = 0; k < perm->size(); ++k) moved = moved || (*perm)[k] != k;
  if (!moved) {
    if (whyNot) whyNot->error(path, "the order is the map's order already");
    return false;
  }
  return true;
}

Expected<void> MapDimShuffle::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  DCW_TRY(auto perm, permutation(*me, option(match, "order"), match.elements.at("entry")));
  std::vector<std::string> params;
  std::vector<Range> ranges;
  for (size_t k : perm) {
    params.push_back(me->params[k]);
    ranges.push_back(me->range[k]);
  }
  ed.set(*me, &MapEntry::params, params);
  ed.set(*me, &MapEntry::range, Subset(ranges));
  return {};
}

std::optional<std::string> MapDimShuffle::contiguousOrder(const Match& match, const Sdfg& root) {
  auto* me = resolveMapEntry(match, root, "entry", nullptr);
  if (!me || me->params.size() < 2) return std::nullopt;
  const State& st = *me->parent();
  const Sdfg* sdfg = owningSdfg(me);
  if (!sdfg) return std::nullopt;
  // The memlets of the body: the edges leaving the entry and entering the exit (a body without
  // nested maps or SDFGs: its loops are this map's).
  const auto inside = scope::nodesInside(st, *me);
  for (const Node* n : inside)
    if (n->kind() == ElementKind::MapEntry || dynamic_cast<const NestedSdfgNode*>(n)) return std::nullopt;
  const MapExit* exit = scope::exitOf(st, *me);
  if (!exit) return std::nullopt;
  const auto body = scope::bodyMemlets(st, *me);
  const auto memlets = body.boundary();
  if (memlets.empty()) return std::nullopt;
  auto written = [&](const std::string& name) {
    for (const Memlet* m : body.writes)
      if (m->subset.freeSymbols().count(name)) return true;
    return false;
  };
  // A parameter qualifies when every memlet names it only in the index of its array's unit-stride
  // dimension, as the parameter plus terms without it (a convolution window's o1 + k1), or not at all,
  // and some memlet names it so.
  // Of several (a window's o1 and k1 both step X by one), one the written memlets name (o1).
  std::optional<size_t> chosen, unwritten;
  for (size_t p = 0; p < me->params.size() && !chosen; ++p) {
    const std::string& name = me->params[p];
    bool ok = true, used = false;
    for (const Memlet* m : memlets) {
      const DataDescriptor* d = sdfg->findData(m->data);
      if (!d || m->subset.rank() != d->shape.size()) {
        ok = false;
        break;
      }
      const auto unit = unitStrideDim(*d);
      for (size_t k = 0; k < m->subset.rank() && ok; ++k) {
        const Range& r = m->subset[k];
        const bool names = r.begin.freeSymbols().count(name) || r.end.freeSymbols().count(name);
        if (!names) continue;
        // The index steps by one element as the parameter does: the parameter plus terms without it.
        const bool unitStep = r.isIndex() && !(r.begin - sym::Expr::symbol(name)).freeSymbols().count(name);
        if (unit && k == *unit && unitStep) used = true;
        else ok = false;
      }
      if (!ok) break;
    }
    if (ok && used) {
      if (written(name)) chosen = p;
      else if (!unwritten) unwritten = p;
    }
  }
  if (!chosen) chosen = unwritten;
  if (!chosen || *chosen + 1 == me->params.size()) return std::nullopt;
  // Moving the first parameter away makes another one the outermost, parallel loop: not a reduction's
  // (its write-conflict resolution would turn into atomics).
  if (*chosen == 0)
    for (const Memlet* m : memlets)
      if (!m->wcr.empty()) return std::nullopt;
  std::vector<std::string> order;
  for (size_t k = 0; k < me->params.size(); ++k)
    if (k != *chosen) order.push_back(me->params[k]);
  order.push_back(me->params[*chosen]);
  // Only an order the ranges allow.
  if (!permutation(*me, joinListItems(order), "")) return std::nullopt;
  return joinListItems(order);
}

} // namespace dcw::transforms
