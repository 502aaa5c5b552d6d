#include "transforms/catalogue/Vectorization.h"

#include "core/ir/DataDescriptor.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

bool mentions(const sym::Expr& e, const std::string& p) { return e.freeSymbols().count(p) > 0; }

// Why a memlet inside the map is not a unit-stride access in `p` ("" when it is); `varies` tells
// whether it depends on p at all.
std::string strideProblem(const Memlet& m, const std::string& p, const Sdfg& sdfg, bool* varies) {
  *varies = false;
  const DataDescriptor* d = sdfg.findData(m.data);
  if (!d) return "the container " + m.data + " is not declared here";
  const size_t rank = m.subset.rank();
  for (size_t k = 0; k < rank; ++k) {
    const Range& r = m.subset[k];
    if (!mentions(r.begin, p) && !mentions(r.end, p)) continue;
    if (k + 1 != rank) return m.str() + " uses " + p + " outside its last dimension";
    if (!r.isIndex() || r.end != r.begin + sym::Expr(1)) return m.str() + " does not access one element per lane";
    sym::Expr p1 = r.begin.substitute({{p, sym::Expr::symbol(p) + sym::Expr(1)}});
    if (p1 - r.begin != sym::Expr(1)) return m.str() + " does not step by one element per lane";
    if (d->strides.size() != rank || d->strides.back() != sym::Expr(1))
      return "the last dimension of " + m.data + " is not contiguous";
    *varies = true;
  }
  return {};
}

} // namespace

const Pattern& Vectorization::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> Vectorization::options() const {
  return {{"vector_width", OptionSpec::Type::Int, "8", "the number of SIMD lanes (at least 2)", {}}};
}

bool Vectorization::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  auto no = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  if (me->schedule != Schedule::Default && me->schedule != Schedule::Sequential && me->schedule != Schedule::CpuMulticore)
    return no("the map is scheduled as " + std::string(scheduleName(me->schedule)),
              "vectorize default, sequential or CPU multicore maps");
  const int64_t width = std::stoll(option(match, "vector_width"));
  if (width < 2) return no("the vector width must be at least 2");
  const State& st = *me->parent();
  const Sdfg* sdfg = owningSdfg(&st);
  if (!sdfg) return no("the map is not in an SDFG");
  const size_t last = me->params.size() - 1;
  const std::string& p = me->params[last];
  const Range& r = me->range[last];
  if (r.step != sym::Expr(1)) return no("the innermost dimension " + p + " has a non-unit step");
  for (auto& q : me->params)
    if (mentions(r.begin, q) || mentions(r.end, q))
      return no("the range of " + p + " depends on the map parameter " + q);
  auto n = r.size().evaluate({});
  if (!n) return no("the trip count of " + p + " (" + r.str() + ") is not a constant");
  if (*n < width || *n % width != 0)
    return no("the trip count " + std::to_string(*n) + " of " + p + " is not a multiple of the vector width " +
                  std::to_string(width),
              "choose a vector width that divides the trip count (no remainder loop is generated)");

  std::set<ElementId> inside;
  for (Node* node : scope::nodesInside(st, *me)) {
    if (!dynamic_cast<Tasklet*>(node))
      return no("the map body holds " + node->label() + ", which is not a tasklet", "vectorize maps whose body is tasklets only");
    inside.insert(node->id());
  }
  MapExit* mx = scope::exitOf(st, *me);
  std::set<std::string> read, written;
  auto bodyEdges = [&] {
    std::vector<std::pair<const DataflowEdge*, bool>> v; // edge, whether it enters the body
    for (auto& e : st.edges()) {
      bool in = e->src == me->id() && inside.count(e->dst);
      bool out = mx && e->dst == mx->id() && inside.count(e->src);
      if ((in || out) && !e->memlet.isEmpty()) v.push_back({e.get(), in});
    }
    return v;
  }();
  for (auto [e, in] : bodyEdges)
    if (!e->memlet.wcr.empty())
      return no("the body writes " + e->memlet.str() + " with a write-conflict resolution", "lanes must write distinct elements");
  for (auto [e, in] : bodyEdges) {
    const bool out = !in;
    bool varies = false;
    std::string problem = strideProblem(e->memlet, p, *sdfg, &varies);
    if (!problem.empty()) return no(problem, "vectorize maps with unit-stride accesses in the innermost dimension");
    if (out && !varies) return no("every lane writes the same element " + e->memlet.str());
    (in ? read : written).insert(e->memlet.data);
  }
  for (auto& w : written)
    if (read.count(w)) return no("the body both reads and writes " + w, "lanes must not depend on each other");
  return true;
}

Expected<void> Vectorization::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  const int64_t width = std::stoll(option(match, "vector_width"));
  const size_t last = me->params.size() - 1;
  const std::string p = me->params[last];
  const Range r = me->range[last];
  std::string vp = scope::freshParam(st, *me, p + "_vec");
  sym::Expr v = sym::Expr::symbol(vp);
  std::vector<std::string> outerParams(me->params.begin(), me->params.end() - 1);
  outerParams.push_back(vp);
  std::vector<Range> outerRanges(me->range.ranges().begin(), me->range.ranges().end() - 1);
  outerRanges.push_back(Range{r.begin, r.end, sym::Expr(width)});
  scope::wrapInMap(ed, st, *me, me->label() + "_vec", outerParams, Subset(outerRanges), me->schedule);
  ed.set(*me, &MapEntry::params, std::vector<std::string>{p});
  ed.set(*me, &MapEntry::range, Subset({Range{v, v + sym::Expr(width), sym::Expr(1)}}));
  ed.set(*me, &MapEntry::schedule, Schedule::Vectorized);
  return {};
}

} // namespace dcw::transforms
