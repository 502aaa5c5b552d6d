// The training operators of ai.onnx.preview.training that update weights: Adagrad, Momentum (standard
// and Nesterov) and Adam. Each takes a learning rate R and a step count T (scalars), then n tensors
// X_1..X_n, their gradients G_1..G_n and one or two state tensors per X, and returns the new X_i and
// the new state. One map per tensor X_i, elementwise over it (R and T read as scalars):
//
//   Adagrad:  g = norm_coefficient * x + g;  h' = h + g^2
//             x' = x - R / (1 + T * decay_factor) * g / (sqrt(h') + epsilon)
//   Momentum: g = norm_coefficient * x + g;  v' = alpha * v + (T > 0 ? beta : 1) * g
//             standard: x' = x - R * v';  nesterov: x' = x - R * (g + alpha * v')
//   Adam:     g = norm_coefficient * x + g;  v' = alpha * v + (1 - alpha) * g;  h' = beta * h + (1 - beta) * g^2
//             r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
//             x' = (1 - norm_coefficient_post) * (x - r * v' / (sqrt(h') + epsilon))
//
// What the optimizers of `dcw train` compute in generated code too; these make an ONNX training graph
// that carries its own update step runnable as it is.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions {

using namespace dcw::ir;
using ew::number;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

std::string indexOf(size_t rank) {
  std::string s;
  for (size_t k = 0; k < rank; ++k) s += (k ? ", " : "") + std::string("i") + std::to_string(k);
  return s;
}

// The first element of a one-element input (a scalar, or a tensor of shape [1], [1, 1], ...).
Expected<std::string> scalarSubset(const ExpansionContext& ctx, const std::string& conn, const char* what) {
  const DataDescriptor* d = ctx.in(conn);
  if (!d) return ctx.error(std::string(what) + " is missing");
  if (d->totalSize() != sym::Expr(1)) return ctx.error(std::string(what) + " must be a scalar, not " + d->typeString());
  std::string s;
  for (size_t k = 0; k < d->shape.size(); ++k) s += k ? ", 0" : "0";
  return s;
}

// `groups` tensors of state per X (1 for Adagrad and Momentum, 2 for Adam). `update` gives the tasklet
// code from the connector names: x, g, s0 (and s1); r and t; it writes x_new, s0_new (and s1_new).
Result expandOptimizer(const ExpansionContext& ctx, const std::string& label, size_t groups, const std::string& update) {
  const auto ins = ctx.inputs();
  const auto outs = ctx.outputs();
  if (ins.size() < 2 || ins[0] != "R" || ins[1] != "T")
    return ctx.error(ctx.node().opType + " needs its learning rate R and step count T");
  const size_t tensors = ins.size() - 2;
  if (tensors == 0 || tensors % (groups + 2) != 0)
    return ctx.error(ctx.node().opType + " needs X_1..X_n, G_1..G_n and " + std::to_string(groups) +
                     " state tensor(s) per X; it has " + std::to_string(tensors) + " tensor inputs");
  const size_t n = tensors / (groups + 2);
  DCW_TRY(auto rSub, scalarSubset(ctx, "R", "the learning rate R"));
  DCW_TRY(auto tSub, scalarSubset(ctx, "T", "the step count T"));
  if (!ir::isInteger(ctx.in("T")->dtype)) return ctx.error("the step count T must be an integer");
  SdfgBuilder b(ctx);
  for (size_t i = 0; i < n; ++i) {
    const std::string x = ins[2 + i];
    const DataDescriptor* X = ctx.in(x);
    std::vector<TaskletIn> tIns{{"r", "R", rSub}, {"t", "T", tSub}};
    const std::string idx = indexOf(X->shape.size());
    tIns.push_back({"x", x, idx});
    std::vector<std::string> stateIns;
    for (size_t k = 0; k < groups + 1; ++k) {
      const std::string conn = ins[2 + (k + 1) * n + i];
      const DataDescriptor* d = ctx.in(conn);
      if (!d || d->shape != X->shape)
        return ctx.error("input '" + conn + "' must have the shape of '" + x + "' (" + X->typeString() + ")");
      tIns.push_back({k == 0 ? "g" : "s" + std::to_string(k - 1), conn, idx});
    }
    std::vector<TaskletOut> tOuts;
    for (size_t k = 0; k < groups + 1; ++k) {
      const size_t at = k * n + i;
      if (at >= outs.size() || !ctx.hasOut("outputs_" + std::to_string(at))) continue;
      const std::string conn = "outputs_" + std::to_string(at);
      if (ctx.out(conn)->shape != X->shape) return ctx.error("output '" + conn + "' must have the shape of '" + x + "'");
      tOuts.push_back({k == 0 ? "x_new" : "s" + std::to_string(k - 1) + "_new", conn, idx, ""});
    }
    if (tOuts.empty()) continue;
    std::string code = update;
    for (auto& o : tOuts) {
      const DType t = ctx.out(o.data)->dtype;
      code += "\n" + o.connector + " = " + th::castTo(t, o.connector + "_v");
    }
    b.mappedTasklet(label + "_" + std::to_string(i), fullRangeParams(X->shape), tIns, code, tOuts);
  }
  return b.finish();
}

Result expandAdagrad(const ExpansionContext& ctx) {
  const std::string nc = number(ctx.attrFloat("norm_coefficient", 0)), eps = number(ctx.attrFloat("epsilon", 0)),
                    decay = number(ctx.attrFloat("decay_factor", 0));
  return expandOptimizer(ctx, "adagrad", 1,
                         "let gr = " + nc + " * x + g\n"
                         "let s0_new_v = s0 + gr * gr\n"
                         "let rate = r / (1.0 + float64(t) * " + decay + ")\n"
                         "let x_new_v = x - rate * gr / (sqrt(s0_new_v) + " + eps + ")");
}

Result expandMomentum(const ExpansionContext& ctx) {
  for (const char* a : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!ctx.hasAttr(a)) return ctx.error(std::string("Momentum needs its attribute '") + a + "'");
  const std::string mode = ctx.attrString("mode", "standard");
  if (mode != "standard" && mode != "nesterov") return ctx.error("Momentum's mode must be 'standard' or 'nesterov', not '" + mode + "'");
  const std::string nc = number(ctx.attrFloat("norm_coefficient", 0)), alpha = number(ctx.attrFloat("alpha", 0)),
                    beta = number(ctx.attrFloat("beta", 0));
  std::string code = "let gr = " + nc + " * x + g\n"
                     "let s0_new_v = " + alpha + " * s0 + select(t > 0, " + beta + ", 1.0) * gr\n";
  code += mode == "standard" ? "let x_new_v = x - r * s0_new_v" : "let x_new_v = x - r * (gr + " + alpha + " * s0_new_v)";
  return expandOptimizer(ctx, "momentum", 1, code);
}

Result expandAdam(const ExpansionContext& ctx) {
  const double alpha = ctx.attrFloat("alpha", 0.9), beta = ctx.attrFloat("beta", 0.999);
  const std::string nc = number(ctx.attrFloat("norm_coefficient", 0)), post = number(ctx.attrFloat("norm_coefficient_post", 0)),
                    eps = number(ctx.attrFloat("epsilon", 1e-6)), a = number(alpha), bt = number(beta);
  return expandOptimizer(ctx, "adam", 2,
                         "let gr = " + nc + " * x + g\n"
                         "let s0_new_v = " + a + " * s0 + " + number(1 - alpha) + " * gr\n"
                         "let s1_new_v = " + bt + " * s1 + " + number(1 - beta) + " * (gr * gr)\n"
                         "let tf = float64(t)\n"
                         "let rate = select(t > 0, r * sqrt(1.0 - pow(" + bt + ", tf)) / (1.0 - pow(" + a + ", tf)), r)\n"
                         "let x_new_v = (1.0 - " + post + ") * (x - rate * (s0_new_v / (sqrt(s1_new_v) + " + eps + ")))");
}

} // namespace

void registerOptimizers(ExpansionRegistry& r) {
  const std::string d = "ai.onnx.preview.training";
  r.add(d, "Adagrad", "pure", expandAdagrad, "x -= R / (1 + T decay) * g / (sqrt(h + g^2) + eps), per tensor");
  r.add(d, "Momentum", "pure", expandMomentum, "v = alpha v + beta g (1 at T = 0); x -= R v, or R (g + alpha v) (nesterov)");
  r.add(d, "Adam", "pure", expandAdam, "bias-corrected first and second moments; x -= r v / (sqrt(h) + eps)");
}

} // namespace dcw::expansions
