// OptimizerStep: the optimizer's update as maps after the backward pass; see OptimizerStep.h.
#include "transforms/autodiff/OptimizerStep.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace dcw::autodiff {

using namespace dcw::ir;

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(17) << v;
  std::string t = s.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";
  return t;
}

std::string uniqueName(const Sdfg& s, const std::string& base) {
  std::string n = base;
  for (int k = 1; s.findData(n); ++k) n = base + "_" + std::to_string(k);
  return n;
}

// A new non-transient array shaped like `like`.
std::string addArgument(edit::Editor& ed, Sdfg& root, const std::string& base, const DataDescriptor& like) {
  auto d = std::make_unique<DataDescriptor>(uniqueName(root, base));
  d->dataKind = like.shape.empty() ? DataKind::Scalar : DataKind::Array;
  d->dtype = like.dtype;
  d->shape = like.shape;
  d->strides = DataDescriptor::contiguousStrides(like.shape);
  d->transient = false;
  return ed.addData(root, std::move(d))->name();
}

// The last block of the root's (linear) control flow: the one without outgoing interstate edges.
ControlFlowBlock* sinkBlock(Sdfg& root) {
  ControlFlowBlock* sink = nullptr;
  for (auto& b : root.blocks())
    if (root.outEdges(b->id()).empty()) {
      if (sink) return nullptr; // several ends: not a chain
      sink = b.get();
    }
  return sink;
}

struct Port {
  std::string connector, data;
};

// One map over the whole of `shape` with one tasklet: element-wise reads and writes (scalars read whole).
void elementwise(edit::Editor& ed, State& st, const Sdfg& root, const std::string& label, const std::vector<sym::Expr>& shape,
                 const std::vector<Port>& ins, const std::string& code, const std::vector<Port>& outs) {
  auto access = [&](const std::string& data) {
    return static_cast<AccessNode*>(ed.addNode(st, std::make_unique<AccessNode>(data)));
  };
  std::vector<Range> idx;
  for (size_t k = 0; k < shape.size(); ++k) idx.push_back(Range::index(sym::Expr::symbol("i" + std::to_string(k))));
  auto subsetOf = [&](const std::string& data) {
    return root.findData(data)->shape.empty() ? Subset() : Subset(idx);
  };
  auto t = std::make_unique<Tasklet>(label, code);
  for (auto& p : ins) t->addIn({p.connector, root.findData(p.data)->dtype});
  for (auto& p : outs) t->addOut({p.connector, root.findData(p.data)->dtype});
  Node* tn = ed.addNode(st, std::move(t));
  if (shape.empty()) {
    for (auto& p : ins) ed.addEdge(st, *access(p.data), "", *tn, p.connector, Memlet::full(p.data, {}));
    for (auto& p : outs) ed.addEdge(st, *tn, p.connector, *access(p.data), "", Memlet::full(p.data, {}));
    return;
  }
  auto me = std::make_unique<MapEntry>(label + "_map");
  auto mx = std::make_unique<MapExit>(label + "_map_exit");
  for (size_t k = 0; k < shape.size(); ++k) me->params.push_back("i" + std::to_string(k));
  me->range = Subset::fullOf(shape);
  me->schedule = Schedule::CpuMulticore;
  for (auto& p : ins) {
    me->addIn({"IN_" + p.connector});
    me->addOut({"OUT_" + p.connector});
  }
  for (auto& p : outs) {
    mx->addIn({"IN_" + p.connector});
    mx->addOut({"OUT_" + p.connector});
  }
  auto* e = static_cast<MapEntry*>(ed.addNode(st, std::move(me)));
  auto* x = static_cast<MapExit*>(ed.addNode(st, std::move(mx)));
  e->exitId = x->id();
  x->entryId = e->id();
  for (auto& p : ins) {
    const DataDescriptor* d = root.findData(p.data);
    ed.addEdge(st, *access(p.data), "", *e, "IN_" + p.connector, Memlet::full(p.data, d->shape));
    ed.addEdge(st, *e, "OUT_" + p.connector, *tn, p.connector, Memlet::simple(p.data, subsetOf(p.data)));
  }
  for (auto& p : outs) {
    const DataDescriptor* d = root.findData(p.data);
    ed.addEdge(st, *tn, p.connector, *x, "IN_" + p.connector, Memlet::simple(p.data, subsetOf(p.data)));
    ed.addEdge(st, *x, "OUT_" + p.connector, *access(p.data), "", Memlet::full(p.data, d->shape));
  }
}

} // namespace

Expected<OptimizerArrays> appendOptimizerStep(edit::Editor& ed, const std::vector<std::string>& weights,
                                              const std::vector<std::string>& gradients, const OptimizerConfig& cfg) {
  Sdfg& root = ed.root();
  const std::string where = root.name();
  if (weights.size() != gradients.size())
    return fail(where, "optimizer step: " + std::to_string(weights.size()) + " weights but " + std::to_string(gradients.size()) +
                           " gradients", "give one gradient per weight");
  if (!(cfg.lr > 0)) return fail(where, "optimizer step: the learning rate must be positive", "use for example --lr 0.01");
  for (size_t i = 0; i < weights.size(); ++i) {
    const DataDescriptor* w = root.findData(weights[i]);
    const DataDescriptor* g = root.findData(gradients[i]);
    if (!w || std::find(root.inputs.begin(), root.inputs.end(), weights[i]) == root.inputs.end() || !isFloating(w->dtype))
      return fail(where + "/@" + weights[i], "'" + weights[i] + "' is not a floating-point input of the program",
                  "make the weights inputs first (autodiff::makeTrainable)");
    if (!g || g->shape != w->shape || g->dtype != w->dtype)
      return fail(where + "/@" + gradients[i], "'" + gradients[i] + "' is not a gradient shaped like '" + weights[i] + "'",
                  "differentiate the loss with respect to the weight first");
  }
  ControlFlowBlock* sink = sinkBlock(root);
  if (!sink) return fail(where, "optimizer step: the program's control flow has no single last state", "this is a bug in autodiff");

  OptimizerArrays out;
  std::vector<std::string> inputs = root.inputs, outputs = root.outputs;
  if (cfg.kind == Optimizer::Adam) {
    auto d = std::make_unique<DataDescriptor>(uniqueName(root, "optimizer_step"));
    d->dataKind = DataKind::Scalar;
    d->dtype = DType::Float32;
    d->transient = false;
    out.stepInput = ed.addData(root, std::move(d))->name();
  }
  State* st = ed.addState(root, root.uniqueBlockLabel("optimizer_step"));
  ed.addInterstateEdge(root, sink->id(), st->id());

  const std::string lr = number(cfg.lr), b1 = number(cfg.beta1), b2 = number(cfg.beta2), eps = number(cfg.eps);
  const std::string b1c = number(1 - cfg.beta1), b2c = number(1 - cfg.beta2);
  for (size_t i = 0; i < weights.size(); ++i) {
    const DataDescriptor& w = *root.findData(weights[i]);
    std::string next = addArgument(ed, root, weights[i] + "_next", w);
    out.next.push_back(next);
    outputs.push_back(next);
    std::string label = "update_" + std::to_string(i);
    if (cfg.kind == Optimizer::Sgd) {
      elementwise(ed, *st, root, label, w.shape, {{"w", weights[i]}, {"g", gradients[i]}}, "w_next = w - " + lr + " * g",
                  {{"w_next", next}});
      continue;
    }
    std::string m = addArgument(ed, root, weights[i] + "_adam_m", w), v = addArgument(ed, root, weights[i] + "_adam_v", w);
    std::string mn = addArgument(ed, root, m + "_next", w), vn = addArgument(ed, root, v + "_next", w);
    inputs.push_back(m);
    inputs.push_back(v);
    outputs.push_back(mn);
    outputs.push_back(vn);
    out.stateIn.insert(out.stateIn.end(), {m, v});
    out.stateOut.insert(out.stateOut.end(), {mn, vn});
    std::string code = "let bc1 = 1.0 - pow(" + b1 + ", t)\n"
                       "let bc2 = 1.0 - pow(" + b2 + ", t)\n"
                       "let mm = " + b1 + " * m + " + b1c + " * g\n"
                       "let vv = " + b2 + " * v + " + b2c + " * g * g\n"
                       "m_next = mm\n"
                       "v_next = vv\n"
                       "w_next = w - (" + lr + " / bc1) * mm / (sqrt(vv) / sqrt(bc2) + " + eps + ")";
    elementwise(ed, *st, root, label, w.shape,
                {{"w", weights[i]}, {"g", gradients[i]}, {"m", m}, {"v", v}, {"t", out.stepInput}}, code,
                {{"w_next", next}, {"m_next", mn}, {"v_next", vn}});
  }
  if (cfg.kind == Optimizer::Adam) inputs.push_back(out.stepInput);
  // The gradients are read by the update only: no longer outputs.
  for (auto& g : gradients) {
    outputs.erase(std::remove(outputs.begin(), outputs.end(), g), outputs.end());
    ed.set(*root.findData(g), &DataDescriptor::transient, true);
  }
  ed.set(root, &Sdfg::inputs, inputs);
  ed.set(root, &Sdfg::outputs, outputs);
  return out;
}

} // namespace dcw::autodiff
