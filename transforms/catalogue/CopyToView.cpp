#include "transforms/catalogue/CopyToView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"
#include "core/ir/View.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct Plan {
  State* state = nullptr;
  const MapEntry* entry = nullptr;
  const AccessNode* input = nullptr;  // the access node the map reads (the source array, or a view of it)
  const AccessNode* source = nullptr; // the access node of the array the new view shows
  const AccessNode* output = nullptr; // S's
  DataDescriptor* target = nullptr;   // S
  const DataDescriptor* array = nullptr;
  Subset block;                       // the part of `array` S shows
};

std::string trimmed(std::string s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == ';')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

// The element offset of `index` in a row-major array of `shape`.
sym::Expr rowMajorOffset(const Subset& index, const std::vector<sym::Expr>& shape) {
  const auto strides = DataDescriptor::contiguousStrides(shape);
  sym::Expr off(0);
  for (size_t k = 0; k < index.rank(); ++k) off = off + index[k].begin * strides[k];
  return off;
}

// The elements [offset, offset + count) of a row-major array of `shape` as a block of its dims: dims
// before some dim j one index each, dim j a range, dims after it whole. nullopt when they are none.
std::optional<Subset> blockOf(int64_t offset, int64_t count, const std::vector<int64_t>& shape) {
  const size_t r = shape.size();
  for (size_t j = 0; j < r; ++j) {
    int64_t inner = 1;
    for (size_t k = j + 1; k < r; ++k) inner *= shape[k];
    if (inner == 0 || offset % inner || count % inner) continue;
    const int64_t first = (offset / inner) % shape[j], n = count / inner;
    if (n < 1 || first + n > shape[j]) continue;
    std::vector<Range> ranges(r);
    int64_t rest = offset / inner / shape[j];
    for (size_t k = j; k-- > 0;) {
      ranges[k] = Range::index(sym::Expr(rest % shape[k]));
      rest /= shape[k];
    }
    if (rest != 0) return std::nullopt; // past the end
    ranges[j] = Range{sym::Expr(first), sym::Expr(first + n), sym::Expr(1)};
    for (size_t k = j + 1; k < r; ++k) ranges[k] = Range::full(sym::Expr(shape[k]));
    return Subset(ranges);
  }
  return std::nullopt;
}

bool analyse(const Match& match, const Sdfg& root, Plan& p, Diagnostics* whyNot) {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.entry = me;
  p.state = me->parent();
  Sdfg* sdfg = const_cast<Sdfg*>(owningSdfg(me));
  if (!p.state || !sdfg) return fail("the map is in no state");
  State& st = *p.state;
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
  const Memlet& rd = in.front()->memlet;
  const Memlet& wr = out.front()->memlet;
  if (t->language != TaskletLanguage::Dcw || trimmed(t->code) != out.front()->srcConnector + " = " + in.front()->dstConnector)
    return fail("the tasklet does more than copy its input ('" + trimmed(t->code) + "')");
  if (rd.isEmpty() || wr.isEmpty() || !wr.wcr.empty() || rd.dynamic || wr.dynamic) return fail("the copy's memlets are not plain element accesses");
  // One access node on either side.
  const auto outer = st.inEdges(me->id());
  const auto written = st.outEdges(exit->id());
  if (outer.size() != 1 || written.size() != 1) return fail("the map does not read one access node and write one");
  p.input = dynamic_cast<const AccessNode*>(st.node(outer.front()->src));
  p.output = dynamic_cast<const AccessNode*>(st.node(written.front()->dst));
  if (!p.input || !p.output || p.input->data() != rd.data || p.output->data() != wr.data)
    return fail("the map does not read one access node and write one");
  // S: written whole, in its own order.
  p.target = sdfg->findData(wr.data);
  const DataDescriptor* src = sdfg->findData(rd.data);
  if (!p.target || !src) return fail("its input or output is not declared");
  DataDescriptor& s = *p.target;
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
  if (graph::accessCount(*sdfg, s.name()) != 1) return fail("'" + s.name() + "' has more than one access node");
  if (st.inEdges(p.output->id()).size() != 1) return fail("'" + s.name() + "' is written by more than the map");
  if (graph::namedInControlFlow(*sdfg, s.name())) return fail("control flow reads '" + s.name() + "'");
  // The source: a row-major array, or a row-major view of one.
  if (!rowMajor(*src)) return fail("'" + src->name() + "' is not row-major (channels-last, or strided)", "its elements are not in S's order");
  p.source = p.input;
  p.array = src;
  if (src->dataKind == DataKind::View) {
    auto vs = viewSource(*sdfg, *src);
    if (!vs) return fail(vs.error().message);
    if (!checkPlainView(*sdfg, *src, *vs)) return fail("'" + src->name() + "' is not a whole row-major view");
    p.source = vs->viewed;
    p.array = vs->array;
  }
  const DataDescriptor& a = *p.array;
  if (a.dataKind != DataKind::Array || a.constant)
    return fail("'" + a.name() + "' is " + (a.constant ? "a constant (ConstantFolding folds its slices)" : "not an array (a stream or scalar)"));
  if (!rowMajor(a)) return fail("'" + a.name() + "' is not row-major");
  const auto aShape = graph::constantShape(a);
  if (!aShape) return fail("'" + a.name() + "' has no constant shape");
  // The element read is the element written plus one constant (a parameter of one iteration is its
  // value: the difference may name it with different factors).
  std::map<std::string, sym::Expr> fixed;
  for (size_t k = 0; k < me->params.size(); ++k)
    if (me->range[k].size() == sym::Expr(1)) fixed[me->params[k]] = me->range[k].begin;
  const auto delta =
      (rowMajorOffset(rd.subset, src->shape) - rowMajorOffset(wr.subset, s.shape)).substitute(fixed).constantValue();
  if (!delta) return fail("the elements it reads are not those it writes moved by one constant offset", "a strided or reordered copy needs its copy");
  const auto count = s.totalSize().constantValue();
  const auto total = a.totalSize().constantValue();
  if (!count || !total || *delta < 0 || *delta + *count > *total) return fail("the elements it reads are not within '" + a.name() + "'");
  auto block = blockOf(*delta, *count, *aShape);
  if (!block) return fail("the elements it reads are not one block of the dims of '" + a.name() + "'");
  p.block = *block;
  // The array must not change while S is read: no access node of it is written but the one read from.
  for (State* other : sdfg->allStates())
    for (auto& n : other->nodes()) {
      auto* an = dynamic_cast<const AccessNode*>(n.get());
      if (an && an->data() == a.name() && an != p.source && !other->inEdges(an->id()).empty())
        return fail("'" + a.name() + "' is written again elsewhere, so a view of it could change under its readers");
    }
  if (graph::namedInControlFlow(*sdfg, a.name())) return fail("control flow names '" + a.name() + "'");
  return true;
}

} // namespace

const Pattern& CopyToView::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool CopyToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  Plan p;
  return analyse(match, root, p, whyNot);
}

Expected<void> CopyToView::apply(const Match& match, edit::Editor& ed) const {
  Plan p;
  if (auto ok = analyseForApply(analyse, match, ed.root(), p, "entry"); !ok) return ok;
  State& st = *p.state;
  const ElementId input = p.input->id(), source = p.source->id(), output = p.output->id();
  const ElementId exit = p.entry->exitId;
  for (Node* n : scope::nodesInside(st, *p.entry)) ed.removeNode(st, n->id());
  ed.removeNode(st, exit);
  ed.removeNode(st, p.entry->id());
  // A view the copy read through goes with its access node when nothing else reads it.
  if (input != source && st.outEdges(input).empty()) ed.removeNode(st, input);
  ed.addEdge(st, *st.node(source), "", *st.node(output), "", Memlet::simple(p.array->name(), p.block));
  ed.set(*p.target, &DataDescriptor::dataKind, DataKind::View);
  return {};
}

} // namespace dcw::transforms
