#include "transforms/catalogue/ReshapeToView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/View.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/OpToView.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct ReshapeToViewPlan : OpToView {
  std::vector<ElementId> dropped; // the op's other inputs' access nodes that nothing else uses
};

// The data connector of a reshaping op ("" for an op that is not one).
std::string dataConnector(const LibraryNode& op) {
  if (!op.domain.empty() || op.opaque) return "";
  if (op.opType == "Reshape" || op.opType == "Squeeze" || op.opType == "Unsqueeze") return "data";
  if (op.opType == "Flatten") return "input";
  return "";
}

bool analyseReshapeToView(const Match& match, const Sdfg& root, ReshapeToViewPlan& p, Diagnostics* whyNot) {
  if (!bindOpToView(match, root, "reshape", p, whyNot)) return false;
  const std::string& path = match.elements.at("reshape");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const std::string conn = dataConnector(*p.op);
  if (conn.empty()) return fail("'" + p.op->label() + "' is a " + p.op->className() + ", not a Reshape, Flatten, Squeeze or Unsqueeze");
  if (!checkOpToView(p, conn, path, whyNot)) return false;
  const DataDescriptor& a = *p.array;
  const DataDescriptor& v = *p.view;
  if (!rowMajor(a)) return fail("'" + a.name() + "' is not row-major (channels-last, or strided)", "its reshape reorders the elements: a copy is needed");
  if (!rowMajor(v)) return fail("'" + v.name() + "' is not row-major");
  if (v.totalSize() != a.totalSize())
    return fail("'" + v.name() + "' has " + v.totalSize().str() + " elements, '" + a.name() + "' " + a.totalSize().str());
  // The op's other inputs (shape, axes): their access nodes go too when the op was their only reader.
  const State& st = *p.state;
  p.dropped.clear();
  for (auto* e : st.inEdges(p.op->id())) {
    if (e == p.in) continue;
    auto* other = dynamic_cast<const AccessNode*>(st.node(e->src));
    if (other && st.inEdges(other->id()).empty() && st.outEdges(other->id()).size() == 1) p.dropped.push_back(other->id());
  }
  return true;
}

} // namespace

const Pattern& ReshapeToView::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"input", {ElementKind::AccessNode}}, {"reshape", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}},
      {{0, 1}, {1, 2}});
  return p;
}

bool ReshapeToView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  ReshapeToViewPlan p;
  return analyseReshapeToView(match, root, p, whyNot);
}

Expected<void> ReshapeToView::apply(const Match& match, edit::Editor& ed) const {
  ReshapeToViewPlan p;
  if (auto ok = analyseForApply(analyseReshapeToView, match, ed.root(), p, "reshape"); !ok) return ok;
  // The shape and axes inputs go first: applyOpToView removes the op, and with it their edges.
  for (ElementId id : p.dropped) ed.removeNode(*p.state, id);
  applyOpToView(p, ed);
  return {};
}

} // namespace dcw::transforms
