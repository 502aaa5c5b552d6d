// View: see the header.
#include "core/ir/View.h"

#include "core/ir/AccessNode.h"
#include "core/ir/ElementAddress.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <cstdlib>

namespace dcw::ir {

bool rowMajor(const DataDescriptor& d) {
  if (d.offset != sym::Expr(0) || d.channelBlock > 0) return false;
  return d.strides.empty() || d.strides == DataDescriptor::contiguousStrides(d.shape);
}

const std::string& ViewStorage::of(const std::string& name) {
  auto [known, fresh] = resolved_.try_emplace(name);
  if (!fresh) return known->second;
  std::string n = name;
  for (int guard = 0; guard < 64; ++guard) {
    const DataDescriptor* d = sdfg_.findData(n);
    if (!d || d->dataKind != DataKind::View) break;
    auto src = viewSource(sdfg_, *d);
    if (!src) break;
    n = src->array->name();
  }
  return known->second = n;
}

Expected<ViewSource> viewSource(const Sdfg& sdfg, const DataDescriptor& view) {
  // The descriptor's path only when something is wrong: it takes an index of the whole model, and
  // validation asks this of every view after every step.
  if (view.dataKind != DataKind::View) return fail(pathOfElement(sdfg, view), "'" + view.name() + "' is not a view");
  auto bad = [&](const std::string& why, const std::string& hint = "a view has one access node, fed by one edge from an access node of the array it shows") {
    return fail(pathOfElement(sdfg, view), "view '" + view.name() + "': " + why, hint);
  };
  if (!view.transient) return bad("a view must be a transient (the model's inputs and outputs are arrays)");
  ViewSource src;
  for (State* st : sdfg.allStates())
    for (auto& n : st->nodes()) {
      auto* a = dynamic_cast<const AccessNode*>(n.get());
      if (!a || a->data() != view.name()) continue;
      if (src.view) return bad("has more than one access node");
      src.view = a;
      src.state = st;
    }
  if (!src.view) return bad("has no access node");
  auto in = src.state->inEdges(src.view->id());
  auto out = src.state->outEdges(src.view->id());
  auto arrayNode = [&](const DataflowEdge* e, bool from) {
    auto* a = dynamic_cast<const AccessNode*>(src.state->node(from ? e->src : e->dst));
    const DataDescriptor* d = a ? sdfg.findData(a->data()) : nullptr;
    return d && d->dataKind == DataKind::Array ? a : nullptr;
  };
  // Written through: its writers feed it, and its one out-edge goes to the array's access node.
  if (out.size() == 1 && !in.empty() && arrayNode(out.front(), false) && !(in.size() == 1 && arrayNode(in.front(), true))) {
    src.written = true;
    src.edge = out.front();
    src.viewed = arrayNode(out.front(), false);
    if (src.state->inEdges(src.viewed->id()).size() != 1)
      return bad("is written through, and '" + src.viewed->data() + "' has other writers in its access node", "the view writes the array's elements alone");
  } else {
    if (in.size() != 1) return bad("is written by " + std::to_string(in.size()) + " edges; a view is fed by exactly one, from the array it shows");
    src.edge = in.front();
    src.viewed = dynamic_cast<const AccessNode*>(src.state->node(src.edge->src));
  }
  if (!src.viewed) return bad("is fed by a node that is not an access node of the array it shows");
  src.array = sdfg.findData(src.viewed->data());
  if (!src.array) return bad("shows '" + src.viewed->data() + "', which is not declared");
  if (src.array->dataKind != DataKind::Array) return bad("shows '" + src.array->name() + "', which is not an array (a view of a view, a stream or a scalar)");
  if (src.edge->memlet.data != src.array->name()) return bad("its edge must carry '" + src.array->name() + "'");
  return src;
}

Expected<sym::Expr> checkPlainView(const Sdfg& sdfg, const DataDescriptor& view, const ViewSource& src) {
  auto bad = [&](const std::string& why) {
    return fail(pathOfElement(sdfg, view), "view '" + view.name() + "': " + why,
                "code generation gives storage to row-major views of a whole array or of one block of it "
                "(ReshapeToView and CopyToView make them)");
  };
  if (src.array->dtype != view.dtype) return bad("has another element type than '" + src.array->name() + "'");
  const Subset& part = src.edge->memlet.subset;
  const bool whole = part.empty() || part == Subset::fullOf(src.array->shape);
  // A row-major view of a whole array stored otherwise (TransposeToView's NHWC view of a channels-last
  // NCHW array) is placed by its strides as a strided view is.
  if (!rowMajor(view) || (whole && !rowMajor(*src.array) && src.array->channelBlock == 0)) {
    // A strided view: every element within the array's storage.
    if (view.channelBlock > 0) return bad("has channels in blocks");
    if (!view.strides.empty() && view.strides.size() != view.shape.size()) return bad("has strides of another rank than its shape");
    if (!whole)
      return bad("is strided, and its edge carries " + part.str() + " of '" + src.array->name() + "', not the whole array");
    auto place = placeOf(view, sym::Expr(0));
    if (!place) return bad("has strides or an offset that are not constants");
    int64_t first = place->offset, last = place->offset;
    for (size_t k = 0; k < view.shape.size(); ++k) {
      auto n = view.shape[k].constantValue();
      if (!n) return bad("has a dim that is not a constant");
      if (*n == 0) return sym::Expr(0);
      (place->strides[k] < 0 ? first : last) += (*n - 1) * place->strides[k];
    }
    // Strides step through plain storage only: blocked channels interleave dims the strides cannot name.
    if (src.array->channelBlock > 0) return bad("shows '" + src.array->name() + "', whose channels lie in blocks of " +
                                                std::to_string(src.array->channelBlock));
    // The array's storage ends after its last element.
    std::vector<sym::Expr> lastIndex;
    for (const auto& n : src.array->shape) lastIndex.push_back(n - sym::Expr(1));
    auto extent = (elementAddress(*src.array, lastIndex) + sym::Expr(1)).constantValue();
    if (!extent) return bad("shows '" + src.array->name() + "', whose storage has no constant extent");
    if (first < 0 || last >= *extent)
      return bad("reaches elements " + std::to_string(first) + " to " + std::to_string(last) + ", outside the " + std::to_string(*extent) +
                 " of '" + src.array->name() + "'");
    return sym::Expr(0);
  }
  if (!rowMajor(*src.array)) return bad("shows '" + src.array->name() + "', which is not row-major");
  if (part.empty() || part == Subset::fullOf(src.array->shape)) {
    if (src.array->totalSize() != view.totalSize())
      return bad("has " + view.totalSize().str() + " elements, '" + src.array->name() + "' has " + src.array->totalSize().str());
    return sym::Expr(0);
  }
  // A block: indices, then one range, then whole dims.
  const auto& shape = src.array->shape;
  if (part.rank() != shape.size()) return bad("its edge's subset has rank " + std::to_string(part.rank()) + ", '" + src.array->name() + "' " + std::to_string(shape.size()));
  size_t k = 0;
  while (k < part.rank() && part[k].isIndex()) ++k;
  for (size_t j = k + 1; j < part.rank(); ++j)
    if (!(part[j] == Range::full(shape[j])))
      return bad("its edge carries " + part.str() + " of '" + src.array->name() + "', which is not one contiguous block");
  if (k < part.rank() && !(part[k].step == sym::Expr(1)))
    return bad("its edge carries " + part.str() + " of '" + src.array->name() + "', which is strided");
  if (part.volume() != view.totalSize())
    return bad("has " + view.totalSize().str() + " elements, its edge carries " + part.volume().str() + " of '" + src.array->name() + "'");
  const auto strides = DataDescriptor::contiguousStrides(shape);
  sym::Expr offset(0);
  for (size_t j = 0; j < part.rank(); ++j) offset = offset + part[j].begin * strides[j];
  return offset;
}

std::optional<StridedPlace> placeOf(const DataDescriptor& view, const sym::Expr& plainOffset) {
  StridedPlace p;
  auto off = (view.offset + plainOffset).constantValue();
  if (!off) return std::nullopt;
  p.offset = *off;
  for (const auto& e : view.elementStrides()) {
    auto v = e.constantValue();
    if (!v) return std::nullopt;
    p.strides.push_back(*v);
  }
  return p;
}

std::optional<StridedPlace> placeThrough(const std::vector<int64_t>& shape, const StridedPlace& inRowMajor,
                                         const std::vector<int64_t>& innerShape, const StridedPlace& inner) {
  const size_t r = innerShape.size();
  if (inner.strides.size() != r || inRowMajor.strides.size() != shape.size()) return std::nullopt;
  const std::vector<int64_t> row = DataDescriptor::contiguousStrides(innerShape);
  const int64_t total = r ? row[0] * innerShape[0] : 1;
  if (inRowMajor.offset < 0 || inRowMajor.offset >= std::max<int64_t>(total, 1)) return std::nullopt;
  // The first element's index in the inner array, and how far each of its dims is stepped.
  std::vector<int64_t> first(r), reach(r, 0);
  for (size_t m = 0; m < r; ++m) first[m] = inRowMajor.offset / row[m] % innerShape[m];
  StridedPlace out;
  out.strides.assign(shape.size(), 0);
  out.offset = inner.offset;
  for (size_t m = 0; m < r; ++m) out.offset += first[m] * inner.strides[m];
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    if (shape[k] == 0) return std::nullopt;
    const int64_t s = inRowMajor.strides[k];
    // The outermost inner dim whose step divides s: s steps that dim by c.
    size_t m = 0;
    while (m < r && (s <= 0 || s % row[m] != 0)) ++m;
    if (m == r) return std::nullopt;
    const int64_t c = s / row[m];
    reach[m] += c * (shape[k] - 1);
    out.strides[k] = c * inner.strides[m];
  }
  for (size_t m = 0; m < r; ++m)
    if (first[m] + reach[m] >= innerShape[m]) return std::nullopt;
  fillUnitStrides(shape, out.strides);
  return out;
}

void fillUnitStrides(const std::vector<int64_t>& shape, std::vector<int64_t>& strides) {
  int64_t span = 1;
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] != 1) span = std::max(span, shape[k] * std::abs(strides[k]));
  for (size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == 1) strides[k] = span;
}

} // namespace dcw::ir
