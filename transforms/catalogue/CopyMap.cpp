#include "transforms/catalogue/CopyMap.h"

#include "core/ir/Tasklet.h"
#include "core/ir/View.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

} // namespace

bool recognizeCopyMap(const Match& match, const Sdfg& root, CopyMap& c, Diagnostics* whyNot) {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  c.entry = me;
  c.state = me->parent();
  c.sdfg = const_cast<Sdfg*>(owningSdfg(me));
  if (!c.state || !c.sdfg) return fail("the map is in no state");
  State& st = *c.state;
  if (scope::enclosing(st, *me)) return fail("the map is inside another map");
  const MapExit* exit = scope::exitOf(st, *me);
  if (!exit) return fail("the map has no exit");
  // The body: one tasklet `y = x`.
  const auto inside = scope::nodesInside(st, *me);
  const Tasklet* t = inside.size() == 1 ? dynamic_cast<const Tasklet*>(inside.front()) : nullptr;
  if (!t) return fail("the map's body is not one tasklet");
  const auto in = st.inEdges(t->id());
  const auto out = st.outEdges(t->id());
  if (in.size() != 1 || out.size() != 1 || in.front()->src != me->id() || out.front()->dst != exit->id())
    return fail("the tasklet does not read one element from outside the map and write one out of it");
  c.read = in.front()->memlet;
  c.write = out.front()->memlet;
  const Memlet& rd = c.read;
  const Memlet& wr = c.write;
  if (t->language != TaskletLanguage::Dcw || trimmed(t->code) != out.front()->srcConnector + " = " + in.front()->dstConnector)
    return fail("the tasklet does more than copy its input ('" + trimmed(t->code) + "')");
  if (rd.isEmpty() || wr.isEmpty() || !wr.wcr.empty() || rd.dynamic || wr.dynamic) return fail("the copy's memlets are not plain element accesses");
  // One access node on either side.
  const auto outer = st.inEdges(me->id());
  const auto written = st.outEdges(exit->id());
  if (outer.size() != 1 || written.size() != 1) return fail("the map does not read one access node and write one");
  c.input = dynamic_cast<const AccessNode*>(st.node(outer.front()->src));
  c.output = dynamic_cast<const AccessNode*>(st.node(written.front()->dst));
  if (!c.input || !c.output || c.input->data() != rd.data || c.output->data() != wr.data)
    return fail("the map does not read one access node and write one");
  // S: written whole, in its own order.
  c.target = c.sdfg->findData(wr.data);
  c.source = c.sdfg->findData(rd.data);
  if (!c.target || !c.source) return fail("its input or output is not declared");
  const DataDescriptor* src = c.source;
  DataDescriptor& s = *c.target;
  if (s.dataKind != DataKind::Array || !s.transient || s.constant) return fail("'" + s.name() + "' is not a transient array");
  if (!rowMajor(s)) return fail("'" + s.name() + "' is not row-major");
  if (s.dtype != src->dtype) return fail("'" + s.name() + "' has another element type than '" + src->name() + "'");
  const auto sShape = graph::constantShape(s);
  if (!sShape || s.shape.empty()) return fail("'" + s.name() + "' has no constant shape");
  if (wr.subset.rank() != s.shape.size() || rd.subset.rank() != src->shape.size()) return fail("a memlet's rank is not its array's");
  for (size_t k = 0; k < rd.subset.rank(); ++k)
    if (!rd.subset[k].isIndex()) return fail("the copy reads a range of '" + rd.data + "' in dim " + std::to_string(k) + ", not one element");
  std::set<std::string> used;
  for (size_t k = 0; k < wr.subset.rank(); ++k) {
    const Range& r = wr.subset[k];
    if (!r.isIndex()) return fail("the copy writes a range of '" + s.name() + "', not one element");
    if (r.begin == sym::Expr(0) && (*sShape)[k] == 1) continue;
    auto it = r.begin.isSymbol() ? std::find(me->params.begin(), me->params.end(), r.begin.symbolName()) : me->params.end();
    if (it == me->params.end() || !used.insert(*it).second)
      return fail("dim " + std::to_string(k) + " of '" + s.name() + "' is not indexed by a parameter of its own");
    const Range& pr = me->range[size_t(it - me->params.begin())];
    if (!(pr.begin == sym::Expr(0)) || !(pr.step == sym::Expr(1)) || !(pr.end == s.shape[k]))
      return fail("parameter " + *it + " does not span dim " + std::to_string(k) + " of '" + s.name() + "'");
  }
  if (used.size() != me->params.size()) return fail("the map has parameters that index no dim of '" + s.name() + "'");
  if (graph::accessCount(*c.sdfg, s.name()) != 1) return fail("'" + s.name() + "' has more than one access node");
  if (st.inEdges(c.output->id()).size() != 1) return fail("'" + s.name() + "' is written by more than the map");
  if (graph::namedInControlFlow(*c.sdfg, s.name())) return fail("control flow reads '" + s.name() + "'");
  // A parameter of one iteration is its value.
  c.fixed.clear();
  for (size_t k = 0; k < me->params.size(); ++k)
    if (me->range[k].size() == sym::Expr(1)) c.fixed[me->params[k]] = me->range[k].begin;
  return true;
}

bool writtenElsewhere(const Sdfg& sdfg, const std::string& array, const AccessNode* readFrom) {
  for (State* other : sdfg.allStates())
    for (auto& n : other->nodes()) {
      auto* an = dynamic_cast<const AccessNode*>(n.get());
      if (an && an->data() == array && an != readFrom && !other->inEdges(an->id()).empty()) return true;
    }
  return false;
}

} // namespace dcw::transforms
