// View: see the header.
#include "core/ir/View.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"

namespace dcw::ir {

bool rowMajor(const DataDescriptor& d) {
  if (d.offset != sym::Expr(0) || d.channelBlock > 0) return false;
  return d.strides.empty() || d.strides == DataDescriptor::contiguousStrides(d.shape);
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
  if (in.size() != 1) return bad("is written by " + std::to_string(in.size()) + " edges; a view is fed by exactly one, from the array it shows");
  src.edge = in.front();
  src.viewed = dynamic_cast<const AccessNode*>(src.state->node(src.edge->src));
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
  if (!rowMajor(view)) return bad("is not row-major");
  if (!rowMajor(*src.array)) return bad("shows '" + src.array->name() + "', which is not row-major");
  if (src.array->dtype != view.dtype) return bad("has another element type than '" + src.array->name() + "'");
  const Subset& part = src.edge->memlet.subset;
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

} // namespace dcw::ir
