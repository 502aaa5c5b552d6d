#include "transforms/catalogue/MapFlatten.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "transforms/Binding.h"
#include "transforms/OptionList.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The positions in the map of the parameters `params` names, or why they cannot be merged.
Expected<std::vector<size_t>> positions(const MapEntry& me, const std::string& params, const std::string& path) {
  const auto names = listItems(params);
  if (names.size() < 2)
    return fail(path, "params names " + std::to_string(names.size()) + " parameter(s); merging needs two or more of " +
                          joinListItems(me.params));
  std::vector<size_t> pos;
  for (const auto& n : names) {
    auto it = std::find(me.params.begin(), me.params.end(), n);
    if (it == me.params.end()) return fail(path, "params names '" + n + "', which is no parameter of the map (" + joinListItems(me.params) + ")");
    size_t k = static_cast<size_t>(it - me.params.begin());
    if (std::find(pos.begin(), pos.end(), k) != pos.end()) return fail(path, "params names '" + n + "' twice");
    pos.push_back(k);
  }
  for (size_t k : pos) {
    const Range& r = me.range[k];
    if (r.begin != sym::Expr(0) || r.step != sym::Expr(1))
      return fail(path, "the range of '" + me.params[k] + "' is " + r.str() + "; only ranges 0:N with step 1 merge");
  }
  for (size_t k = 0; k < me.params.size(); ++k) {
    const Range& r = me.range[k];
    for (size_t q = 0; q < me.params.size(); ++q) {
      const bool merged = std::find(pos.begin(), pos.end(), q) != pos.end();
      const bool mergedRange = std::find(pos.begin(), pos.end(), k) != pos.end();
      if (!merged && !mergedRange) continue;
      for (auto* e : {&r.begin, &r.end, &r.step})
        if (e->freeSymbols().count(me.params[q]))
          return fail(path, "the range of '" + me.params[k] + "' (" + r.str() + ") depends on '" + me.params[q] + "'",
                      "only parameters whose ranges are independent of each other merge");
    }
  }
  return pos;
}

// Each merged parameter as a digit of the new one, most significant first: p // (s1*...*sn), then
// (p // (s2*...*sn)) % s1, ..., p % sn.
std::map<std::string, sym::Expr> digits(const MapEntry& me, const std::vector<size_t>& pos, const sym::Expr& p) {
  std::map<std::string, sym::Expr> values;
  sym::Expr below(1);
  for (size_t i = pos.size(); i-- > 0;) {
    const sym::Expr size = me.range[pos[i]].end;
    const sym::Expr q = below == sym::Expr(1) ? p : sym::floorDiv(p, below);
    values[me.params[pos[i]]] = i == 0 ? q : sym::mod(q, size);
    below = below * size;
  }
  return values;
}

// Whether merging the parameters `run` (most significant first) keeps memlet `m` one contiguous range:
// it names none of them, or indexes them whole, in this order, as consecutive dimensions k, k+1, ... of
// its array, where each one after the first spans its dimension and steps over the next one's extent.
bool keepsContiguous(const Memlet& m, const DataDescriptor& d, const MapEntry& me, const std::vector<std::string>& run) {
  std::set<std::string> names(run.begin(), run.end());
  auto namesAny = [&](const sym::Expr& e) {
    for (auto& s : e.freeSymbols())
      if (names.count(s)) return true;
    return false;
  };
  if (m.otherSubset)
    for (auto& r : m.otherSubset->ranges())
      if (namesAny(r.begin) || namesAny(r.end)) return false;
  const auto& ranges = m.subset.ranges();
  size_t first = ranges.size();
  for (size_t k = 0; k < ranges.size() && first == ranges.size(); ++k)
    if (namesAny(ranges[k].begin) || namesAny(ranges[k].end)) first = k;
  if (first == ranges.size()) return true;
  if (first + run.size() > ranges.size() || ranges.size() != d.shape.size()) return false;
  if (d.channelBlock > 0) return false; // channels in blocks: no two dims are one run of elements
  const auto strides = d.elementStrides();
  for (size_t i = 0; i < run.size(); ++i) {
    const Range& r = ranges[first + i];
    if (!r.isIndex() || r.begin != sym::Expr::symbol(run[i])) return false;
    if (i == 0) continue;
    auto it = std::find(me.params.begin(), me.params.end(), run[i]);
    if (it == me.params.end()) return false;
    const sym::Expr extent = me.range[static_cast<size_t>(it - me.params.begin())].end;
    if (d.shape[first + i] != extent) return false;
    if (strides[first + i - 1] != strides[first + i] * d.shape[first + i]) return false;
  }
  for (size_t k = first + run.size(); k < ranges.size(); ++k)
    if (namesAny(ranges[k].begin) || namesAny(ranges[k].end)) return false;
  return true;
}

} // namespace

const Pattern& MapFlatten::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> MapFlatten::options() const {
  return {{"params", OptionSpec::Type::Text, "", "the parameters to merge, comma-separated, most significant first (e.g. o0,o1)", {}}};
}

bool MapFlatten::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  const std::string params = option(match, "params");
  if (params.empty()) {
    if (whyNot) {
      auto suggestion = contiguousParams(match, root);
      whyNot->error(path, "no params given", "set params to two or more of the map's parameters, most significant first" +
                                                 (suggestion ? ", e.g. " + *suggestion : std::string()));
    }
    return false;
  }
  auto pos = positions(*me, params, path);
  if (!pos) {
    if (whyNot) whyNot->error(path, pos.error().message, pos.error().hint);
    return false;
  }
  std::set<std::string> names;
  for (size_t k : *pos) names.insert(me->params[k]);
  const State& st = *me->parent();
  for (Node* n : scope::nodesInside(st, *me)) {
    if (dynamic_cast<LibraryNode*>(n)) {
      if (whyNot) whyNot->error(path, "the map contains the library node " + n->label(), "expand the library node first");
      return false;
    }
    if (auto* t = dynamic_cast<Tasklet*>(n)) {
      std::string problem;
      if (scope::taskletUses(*t, names, &problem)) {
        if (whyNot)
          whyNot->error(path, problem.empty() ? "the tasklet " + t->label() + " uses a merged parameter in its code, which cannot write // or %"
                                              : problem);
        return false;
      }
    }
  }
  return true;
}

Expected<void> MapFlatten::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  DCW_TRY(auto pos, positions(*me, option(match, "params"), match.elements.at("entry")));
  std::string base;
  for (size_t k : pos) base += (base.empty() ? "" : "_") + me->params[k];
  const std::string name = scope::freshParam(st, *me, base);
  const sym::Expr p = sym::Expr::symbol(name);
  sym::Expr count(1);
  for (size_t k : pos) count = count * me->range[k].end;
  DCW_CHECK(scope::substituteInBody(ed, st, *me, digits(*me, pos, p)));
  std::vector<std::string> params;
  std::vector<Range> ranges;
  for (size_t k = 0; k < me->params.size(); ++k) {
    if (k == pos.back()) {
      params.push_back(name);
      ranges.push_back(Range{sym::Expr(0), count, sym::Expr(1)});
    } else if (std::find(pos.begin(), pos.end(), k) == pos.end()) {
      params.push_back(me->params[k]);
      ranges.push_back(me->range[k]);
    }
  }
  ed.set(*me, &MapEntry::params, params);
  ed.set(*me, &MapEntry::range, Subset(ranges));
  return {};
}

bool MapFlatten::pays(const Match& match, const Sdfg& root) {
  auto* me = resolveMapEntry(match, root, "entry", nullptr);
  if (!me) return false;
  auto opt = match.options.find("params");
  if (opt == match.options.end()) return false;
  const auto names = listItems(opt->second);
  auto it = std::find(me->params.begin(), me->params.end(), names.back());
  if (it == me->params.end()) return false;
  auto extent = me->range[static_cast<size_t>(it - me->params.begin())].size().evaluate({});
  if (extent && *extent < 16) return true;
  for (const Memlet* m : scope::bodyMemlets(*me->parent(), *me).all())
    if (!m->wcr.empty()) return true;
  return false;
}

std::optional<std::string> MapFlatten::contiguousParams(const Match& match, const Sdfg& root) {
  auto* me = resolveMapEntry(match, root, "entry", nullptr);
  if (!me || me->params.size() < 2) return std::nullopt;
  const State& st = *me->parent();
  const Sdfg* sdfg = owningSdfg(me);
  if (!sdfg) return std::nullopt;
  for (const Node* n : scope::nodesInside(st, *me))
    if (n->kind() == ElementKind::MapEntry || dynamic_cast<const NestedSdfgNode*>(n) || dynamic_cast<const LibraryNode*>(n))
      return std::nullopt;
  if (!scope::exitOf(st, *me)) return std::nullopt;
  const auto memlets = scope::bodyMemlets(st, *me).all();
  if (memlets.empty()) return std::nullopt;
  std::set<std::string> params(me->params.begin(), me->params.end());
  // Candidates: every run of two or more consecutive whole-parameter indices of some memlet.
  std::vector<std::vector<std::string>> candidates;
  for (const Memlet* m : memlets) {
    const auto& ranges = m->subset.ranges();
    for (size_t a = 0; a < ranges.size(); ++a) {
      std::vector<std::string> run;
      for (size_t k = a; k < ranges.size(); ++k) {
        const Range& r = ranges[k];
        if (!r.isIndex() || !r.begin.isSymbol() || !params.count(r.begin.symbolName())) break;
        if (std::find(run.begin(), run.end(), r.begin.symbolName()) != run.end()) break;
        run.push_back(r.begin.symbolName());
        if (run.size() >= 2) candidates.push_back(run);
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](auto& x, auto& y) { return x.size() > y.size(); });
  bool reduces = false;
  for (const Memlet* m : memlets) reduces = reduces || !m->wcr.empty();
  for (const auto& run : candidates) {
    bool ok = true, used = false;
    for (const Memlet* m : memlets) {
      const DataDescriptor* d = sdfg->findData(m->data);
      if (!d || !keepsContiguous(*m, *d, *me, run)) {
        ok = false;
        break;
      }
      used = used || m->subset.freeSymbols().count(run[0]);
    }
    if (!ok || !used) continue;
    // The outermost parameter runs in parallel: merging it away from the front would put another one
    // there, in a reduction perhaps (its write-conflict resolution would turn into atomics).
    if (reduces && std::find(run.begin(), run.end(), me->params[0]) != run.end()) {
      bool mergedFirst = false;
      for (const auto& q : me->params) {
        if (q == run.back()) mergedFirst = true;
        if (q == run.back() || std::find(run.begin(), run.end(), q) == run.end()) break;
      }
      if (!mergedFirst) continue;
    }
    Match probe = match;
    probe.options["params"] = joinListItems(run);
    if (!positions(*me, probe.options["params"], "")) continue;
    return probe.options["params"];
  }
  return std::nullopt;
}

} // namespace dcw::transforms
