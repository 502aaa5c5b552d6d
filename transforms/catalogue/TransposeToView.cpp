#include "transforms/catalogue/TransposeToView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/View.h"
#include "core/support/IntList.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/OpToView.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

using TransposeToViewPlan = OpToView;

std::string str(const std::vector<int64_t>& v) { return "[" + joinInts(v, ", ") + "]"; }

bool analyseTransposeToView(const Match& match, const Sdfg& root, TransposeToViewPlan& p, Diagnostics* whyNot) {
  if (!bindOpToView(match, root, "transpose", p, whyNot)) return false;
  const std::string& path = match.elements.at("transpose");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  if (!p.op->domain.empty() || p.op->opaque || p.op->opType != "Transpose")
    return fail("'" + p.op->label() + "' is a " + p.op->className() + ", not a Transpose");
  if (!checkOpToView(p, "data", path, whyNot)) return false;
  const DataDescriptor& a = *p.array;
  const DataDescriptor& v = *p.view;
  if (a.channelBlock > 0 || v.channelBlock > 0) return fail("'" + (a.channelBlock > 0 ? a.name() : v.name()) + "' has its channels in blocks");
  const auto as = graph::constantValues(a.elementStrides()), vs = graph::constantValues(v.elementStrides());
  const auto ashape = graph::constantShape(a), vshape = graph::constantShape(v);
  const auto ao = a.offset.constantValue(), vo = v.offset.constantValue();
  if (!as || !vs || !ashape || !vshape || !ao || !vo || *ao != 0 || *vo != 0)
    return fail("'" + a.name() + "' or '" + v.name() + "' has a shape, strides or offset that are not known numbers");
  // The permutation: ONNX's default reverses the dims.
  const size_t rank = ashape->size();
  std::vector<int64_t> perm;
  if (const Attribute* attr = p.op->attribute("perm")) {
    const auto* ints = std::get_if<std::vector<int64_t>>(&attr->value);
    if (!ints) return fail("its perm is not a list of ints");
    perm = *ints;
  } else {
    for (size_t k = rank; k-- > 0;) perm.push_back(int64_t(k));
  }
  if (perm.size() != rank || vshape->size() != rank) return fail("its perm does not fit the ranks of '" + a.name() + "' and '" + v.name() + "'");
  for (size_t k = 0; k < rank; ++k) {
    if (perm[k] < 0 || perm[k] >= int64_t(rank)) return fail("its perm " + str(perm) + " names a dim that is not there");
    if ((*vshape)[k] != (*ashape)[size_t(perm[k])]) return fail("'" + v.name() + "' does not have the permuted shape of '" + a.name() + "'");
  }
  // Each element of B where the copy read it: B's stride in dim k is A's in dim perm[k] (a dim of
  // extent 1 has no step).
  std::vector<int64_t> want(rank);
  for (size_t k = 0; k < rank; ++k) want[k] = (*as)[size_t(perm[k])];
  for (size_t k = 0; k < rank; ++k)
    if ((*vshape)[k] > 1 && (*vs)[k] != want[k])
      return fail("'" + v.name() + "' with strides " + str(*vs) + " is not '" + a.name() + "' read in place (that needs strides " + str(want) +
                      "): the transpose reorders the elements",
                  "where its neighbours run on oneDNN, ChannelsLast first stores the NCHW side channels-last");
  return true;
}

} // namespace

const Pattern& TransposeToView::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"input", {ElementKind::AccessNode}}, {"transpose", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool TransposeToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  TransposeToViewPlan p;
  return analyseTransposeToView(match, root, p, whyNot);
}

Expected<void> TransposeToView::apply(const Match& match, edit::Editor& ed) const {
  TransposeToViewPlan p;
  if (auto ok = analyseForApply(analyseTransposeToView, match, ed.root(), p, "transpose"); !ok) return ok;
  applyOpToView(p, ed);
  return {};
}

} // namespace dcw::transforms
