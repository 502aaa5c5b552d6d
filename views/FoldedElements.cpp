#include "views/FoldedElements.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"

#include <functional>
#include <string_view>

namespace dcw::views {

using namespace dcw::ir;

QString dimsText(const std::vector<sym::Expr>& dims) {
  if (dims.empty()) return QStringLiteral("scalar");
  QStringList parts;
  for (auto& d : dims) parts << QString::fromStdString(d.str());
  return parts.join(QChar(0x00D7)); // ×
}

FoldedElements foldIntoReaders(const State& st, const Sdfg& sdfg) {
  FoldedElements out;
  auto& hidden = out.hidden;
  auto& folded = out.listed;
  std::vector<std::pair<const AccessNode*, bool>> shown; // hidden arrays whose readers list them (true: a shape value)
  for (auto& n : st.nodes())
    if (auto* a = dynamic_cast<const AccessNode*>(n.get())) {
      const DataDescriptor* d = sdfg.findData(a->data());
      if (d && d->constant && st.inEdges(a->id()).empty()) {
        hidden.insert(a->id());
        shown.emplace_back(a, false);
      }
    }
  // An op folds when it writes arrays only it writes that are not the model's outputs, and it is
  //  - a Constant op (a constant written as a node);
  //  - weight preparation: a cheap op whose inputs are all hidden (constants, prepared weights);
  //  - shape arithmetic: Shape or Size of anything (they read no data), or integer arithmetic whose
  //    inputs are all hidden — what exporters write to compute Reshape targets, Range bounds and
  //    position indices from dims (`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`).
  // A worklist visits an op again when one of its inputs became hidden, so chains fold whole.
  static const std::unordered_set<std::string_view> kPreparation = {"Identity", "Cast", "Reshape", "Flatten", "Squeeze",
                                                                   "Unsqueeze", "Transpose"};
  static const std::unordered_set<std::string_view> kShapeArithmetic = {
      "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast", "Add", "Sub", "Mul", "Div", "Range", "Reshape", "Equal", "Where",
      "Expand", "Not", "Less", "Greater", "Max", "Min", "Mod", "Floor", "Ceil", "Neg", "Abs", "ConstantOfShape", "ReduceProd", "Tile",
      "Identity", "Transpose", "Flatten", "And", "Or"};
  auto integral = [&](const AccessNode* a) {
    const DataDescriptor* d = sdfg.findData(a->data());
    return d && (isInteger(d->dtype) || d->dtype == DType::Bool);
  };
  std::vector<const LibraryNode*> work;
  for (auto& n : st.nodes())
    if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) work.push_back(l);
  std::reverse(work.begin(), work.end()); // visit in the state's order (producers usually first)
  while (!work.empty()) {
    const LibraryNode* l = work.back();
    work.pop_back();
    if (hidden.count(l->id()) || !l->domain.empty()) continue;
    auto ins = st.inEdges(l->id());
    auto outs = st.outEdges(l->id());
    if (outs.empty()) continue;
    bool outputsOk = true, outputsIntegral = true;
    for (auto* e : outs) {
      auto* a = dynamic_cast<const AccessNode*>(st.node(e->dst));
      const DataDescriptor* d = a ? sdfg.findData(a->data()) : nullptr;
      outputsOk = outputsOk && d && d->transient && st.inEdges(a->id()).size() == 1;
      outputsIntegral = outputsIntegral && a && integral(a);
    }
    if (!outputsOk) continue;
    bool inputsHidden = !ins.empty();
    for (auto* e : ins) inputsHidden = inputsHidden && hidden.count(e->src);
    const std::string_view op = l->opType;
    const bool constant = op == "Constant" && ins.empty();
    const bool preparation = inputsHidden && kPreparation.count(op);
    const bool shape = outputsIntegral && ((op == "Shape" || op == "Size") || (inputsHidden && kShapeArithmetic.count(op)));
    if (!constant && !preparation && !shape) continue;
    hidden.insert(l->id());
    for (auto* e : outs) {
      hidden.insert(e->dst);
      auto* a = static_cast<const AccessNode*>(st.node(e->dst));
      shown.emplace_back(a, shape);
      for (auto* r : st.outEdges(a->id()))
        if (auto* reader = dynamic_cast<const LibraryNode*>(st.node(r->dst))) work.push_back(reader);
    }
  }
  for (auto& [a, isShape] : shown) {
    const DataDescriptor* d = sdfg.findData(a->data());
    const QString text = (isShape ? QStringLiteral("shape ") : QString()) + QString::fromStdString(a->data()) + QLatin1Char(' ') + dimsText(d->shape);
    for (auto* e : st.outEdges(a->id()))
      if (!hidden.count(e->dst)) folded[e->dst].push_back(text);
  }
  // The reader a folded element is shown by: the first node downstream that is not folded.
  std::unordered_map<ElementId, ElementId> memo;
  std::function<ElementId(ElementId)> readerOf = [&](ElementId id) -> ElementId {
    auto [it, fresh] = memo.try_emplace(id, kNoId);
    if (!fresh) return it->second;
    ElementId found = kNoId;
    for (auto* e : st.outEdges(id)) {
      found = hidden.count(e->dst) ? readerOf(e->dst) : e->dst;
      if (found != kNoId) break;
    }
    return memo[id] = found;
  };
  for (ElementId id : hidden)
    if (ElementId r = readerOf(id); r != kNoId) out.reader[id] = r;
  return out;
}

// ---- module groups ----------------------------------------------------------------------------

} // namespace dcw::views
