#include "transforms/catalogue/AccumulateTransient.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/LocalStorageTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct AccumulateTransientPlan {
  DataflowEdge* between = nullptr;  // inner exit -> outer exit, carrying the array
  std::vector<DataflowEdge*> inner; // memlets on the array inside the inner map
  const DataDescriptor* desc = nullptr;
  localstorage::Box box;
  std::vector<sym::Expr> shape;     // constant buffer shape
};

Expected<AccumulateTransientPlan> planAccumulateTransient(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("inner");
  DCW_TRY(auto maps, localstorage::resolveNestedExits(b, path));
  auto [st, ix, ox, inner, outer] = maps;
  const Sdfg& sdfg = *owningSdfg(inner);
  std::string array = t.option(match, "array");
  AccumulateTransientPlan p;
  int count = 0;
  for (auto* e : st->outEdges(ix->id())) {
    if (e->dst != ox->id() || e->memlet.isEmpty()) continue;
    if (array.empty() && !e->memlet.wcr.empty()) array = e->memlet.data;
    if (e->memlet.data != array) continue;
    p.between = e;
    ++count;
  }
  if (!p.between) return fail(path, array.empty() ? "the inner map writes nothing with write-conflict resolution to the outer map" : "the inner map writes no '" + array + "' to the outer map");
  if (count != 1) return fail(path, "the inner map writes '" + array + "' through " + std::to_string(count) + " connectors");
  const std::string& wcr = p.between->memlet.wcr;
  if (wcr.empty()) return fail(path, "'" + array + "' is written without write-conflict resolution", "use OutLocalStorage");
  if (wcr != "sum" && wcr != "prod") return fail(path, "write-conflict resolution '" + wcr + "' is not handled (only sum and prod)");
  DCW_TRY(auto desc, localstorage::bufferableArray(sdfg, array, path));
  p.desc = desc;
  if (!isFloating(p.desc->dtype) && !isInteger(p.desc->dtype)) return fail(path, "'" + array + "' does not hold numbers");
  scope::upstream(*st, *ix, p.between->srcConnector, p.inner);
  std::vector<Subset> direct;
  for (auto* e : p.inner) {
    if (e->memlet.isEmpty()) continue;
    if (e->memlet.data != array) return fail(path, "a memlet inside the inner map names '" + e->memlet.data + "'");
    if (e->memlet.wcr != wcr) return fail(path, "'" + array + "' is written inside the inner map without the same write-conflict resolution");
    if (e->dst == ix->id()) direct.push_back(e->memlet.subset);
  }
  std::vector<DataflowEdge*> chain = p.inner;
  chain.push_back(p.between);
  DCW_CHECK(localstorage::onlyChainTouches(*st, *outer, array, chain, path, "a local accumulator would hide those accesses"));
  auto box = localstorage::boxOver(direct, *inner);
  if (!box) return fail(path, "the region the inner map writes cannot be bounded");
  p.box = *box;
  DCW_TRY(auto shape, localstorage::bufferShape(p.box, *p.desc, *st, *inner, path, array, "written"));
  p.shape = shape;
  return p;
}

} // namespace

const Pattern& AccumulateTransient::pattern() const {
  static const Pattern p = Pattern::dataflow({{"inner", {ElementKind::MapExit}}, {"outer", {ElementKind::MapExit}}}, {{0, 1}});
  return p;
}

std::vector<OptionSpec> AccumulateTransient::options() const {
  return {{"array", OptionSpec::Type::Text, "", "the accumulated container (empty: the first one written with WCR)", {}}};
}

bool AccumulateTransient::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  return holds(b, whyNot) && holds(planAccumulateTransient(*this, match, *b), whyNot);
}

Expected<void> AccumulateTransient::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planAccumulateTransient(*this, match, b));
  auto* ix = b.get<MapExit>("inner");
  auto* ox = b.get<MapExit>("outer");
  State& st = *b.stateOf("inner");
  auto* inner = static_cast<MapEntry*>(st.node(ix->entryId));
  auto* outer = static_cast<MapEntry*>(st.node(ox->entryId));
  Sdfg& sdfg = *owningSdfg(ix);
  const std::string array = p.desc->name();
  const std::string wcr = p.between->memlet.wcr;

  const std::string acc = localstorage::addScopeBuffer(ed, sdfg, *p.desc, array + "_acc", p.shape);

  const auto [region, inBuffer] = localstorage::rangesOf(p.box);

  // The initialising map over the whole buffer, inside the outer map, ordered before the inner map.
  std::vector<std::string> params;
  std::vector<Range> initRange;
  std::vector<Range> index;
  for (size_t k = 0; k < p.shape.size(); ++k) {
    std::string q = scope::freshParam(st, *outer, "acc_i" + std::to_string(k));
    while (std::count(params.begin(), params.end(), q)) q += "_";
    params.push_back(q);
    initRange.push_back(Range::full(p.shape[k]));
    index.push_back(Range::index(sym::Expr::symbol(q)));
  }
  auto* ie = ed.add<MapEntry>(st, acc + "_init_map");
  auto* ixit = ed.add<MapExit>(st, acc + "_init_map");
  ie->params = params;
  ie->range = Subset(initRange);
  ie->schedule = Schedule::Sequential;
  ie->exitId = ixit->id();
  ixit->entryId = ie->id();
  ixit->addIn({"IN_" + acc});
  ixit->addOut({"OUT_" + acc});
  const bool fp = isFloating(p.desc->dtype);
  std::string identity = wcr == "sum" ? (fp ? "0.0" : "0") : (fp ? "1.0" : "1");
  auto* init = ed.add<Tasklet>(st, acc + "_init", "o = " + identity);
  init->addOut({"o"});
  auto* accInit = ed.add<AccessNode>(st, acc);
  ed.addEdge(st, *outer, "", *ie, "", Memlet{});
  ed.addEdge(st, *ie, "", *init, "", Memlet{});
  ed.addEdge(st, *init, "o", *ixit, "IN_" + acc, Memlet::simple(acc, Subset(index)));
  ed.addEdge(st, *ixit, "OUT_" + acc, *accInit, "", Memlet::full(acc, p.shape));
  ed.addEdge(st, *accInit, "", *inner, "", Memlet{});

  // The inner map accumulates into the buffer.
  std::string outConn = p.between->srcConnector, inConn = p.between->dstConnector;
  localstorage::redirectIntoBuffer(ed, p.inner, acc, p.box);
  ed.removeEdge(st, p.between->id());
  auto* accOut = ed.add<AccessNode>(st, acc);
  auto* dst = ed.add<AccessNode>(st, array);
  Memlet toAcc = Memlet::simple(acc, Subset(inBuffer));
  toAcc.wcr = wcr;
  ed.addEdge(st, *ix, outConn, *accOut, "", toAcc);
  Memlet copy = Memlet::simple(acc, Subset(inBuffer));
  copy.otherSubset = Subset(region);
  copy.wcr = wcr;
  ed.addEdge(st, *accOut, "", *dst, "", copy);
  Memlet out = Memlet::simple(array, Subset(region));
  out.wcr = wcr;
  ed.addEdge(st, *dst, "", *ox, inConn, out);
  return {};
}

} // namespace dcw::transforms
