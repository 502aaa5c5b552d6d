#include "transforms/catalogue/CopyToView.h"

#include "transforms/catalogue/CopyMap.h"

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

struct CopyToViewPlan {
  State* state = nullptr;
  const MapEntry* entry = nullptr;
  const AccessNode* input = nullptr;  // the access node the map reads (the source array, or a view of it)
  const AccessNode* source = nullptr; // the access node of the array the new view shows
  const AccessNode* output = nullptr; // S's
  DataDescriptor* target = nullptr;   // S
  const DataDescriptor* array = nullptr;
  Subset block;                       // the part of `array` S shows
};

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

bool analyseCopyToView(const Match& match, const Sdfg& root, CopyToViewPlan& p, Diagnostics* whyNot) {
  CopyMap c;
  if (!recognizeCopyMap(match, root, c, whyNot)) return false;
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(match.elements.at("entry"), msg, hint);
    return false;
  };
  p.entry = c.entry;
  p.state = c.state;
  p.input = c.input;
  p.output = c.output;
  p.target = c.target;
  Sdfg* sdfg = c.sdfg;
  const DataDescriptor* src = c.source;
  const DataDescriptor& s = *c.target;
  const Memlet& rd = c.read;
  const Memlet& wr = c.write;
  // The source: a row-major array, or a row-major view of one.
  if (!rowMajor(*src)) return fail("'" + src->name() + "' is not row-major (channels-last, or strided)", "its elements are not in S's order");
  p.source = p.input;
  p.array = src;
  sym::Expr srcAt(0); // where the source's first element lies in the array (a view of a block of it)
  if (src->dataKind == DataKind::View) {
    auto vs = viewSource(*sdfg, *src);
    if (!vs) return fail(vs.error().message);
    if (vs->written) return fail("'" + src->name() + "' is written through: it shows elements of '" + vs->array->name() + "' written after it");
    auto at = checkPlainView(*sdfg, *src, *vs);
    if (!at) return fail("'" + src->name() + "' is not a row-major view of the whole of '" + vs->array->name() + "' or of one block of it");
    srcAt = *at;
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
  // In the array's elements: a view of a block of it starts at the block's first element.
  const auto delta =
      (srcAt + rowMajorOffset(rd.subset, src->shape) - rowMajorOffset(wr.subset, s.shape)).substitute(c.fixed).constantValue();
  if (!delta) return fail("the elements it reads are not those it writes moved by one constant offset", "a strided or reordered copy needs its copy");
  const auto count = s.totalSize().constantValue();
  const auto total = a.totalSize().constantValue();
  if (!count || !total || *delta < 0 || *delta + *count > *total) return fail("the elements it reads are not within '" + a.name() + "'");
  auto block = blockOf(*delta, *count, *aShape);
  if (!block) return fail("the elements it reads are not one block of the dims of '" + a.name() + "'");
  p.block = *block;
  // The array must not change while S is read: no access node of it is written but the one read from.
  if (writtenElsewhere(*sdfg, a.name(), p.source))
    return fail("'" + a.name() + "' is written again elsewhere, so a view of it could change under its readers");
  if (graph::namedInControlFlow(*sdfg, a.name())) return fail("control flow names '" + a.name() + "'");
  // S must not be shown by a view of its own (a flatten ReshapeToView made): a view does not show a view.
  for (State* st : sdfg->allStates())
    for (auto& n : st->nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an->data() == s.name())
        if (const DataDescriptor* d = graph::viewJoinedTo(*sdfg, *st, *an))
          return fail("'" + s.name() + "' is shown by the view '" + d->name() + "', and a view cannot show another view",
                      "the copy stays; '" + d->name() + "' shows its result");
  return true;
}

} // namespace

const Pattern& CopyToView::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool CopyToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  CopyToViewPlan p;
  return analyseCopyToView(match, root, p, whyNot);
}

Expected<void> CopyToView::apply(const Match& match, edit::Editor& ed) const {
  CopyToViewPlan p;
  if (auto ok = analyseForApply(analyseCopyToView, match, ed.root(), p, "entry"); !ok) return ok;
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
