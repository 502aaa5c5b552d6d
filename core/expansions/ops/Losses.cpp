// Pure expansions of the loss functions (see Ops.h). Shapes: scores/log-probabilities [N, C, d1..dk]
// (k >= 0), class indices [N, d1..dk] (int32/int64), optional per-class weights [C].
//
//   NegativeLogLikelihoodLoss   input [N, C, d..], target [N, d..], weight [C]? -> loss
//     per element  l[n, d..] = -input[n, t, d..] * w[t]   with t = target[n, d..], w = 1 without weight;
//                  elements whose t equals ignore_index give 0 and weigh 0.
//     reduction    none -> loss [N, d..] (the map writes l directly)
//                  sum  -> loss [] = sum(l)                          (WCR sum into a transient)
//                  mean -> loss [] = sum(l) / sum(w[t] over kept elements) (two WCR sums, then a divide)
//   SoftmaxCrossEntropyLoss     scores [N, C, d..], labels [N, d..], weights [C]? -> output, log_prob?
//     log_prob = log-softmax of scores over axis 1, max-subtracted: m = max (WCR max), s = sum(exp(x - m))
//     (WCR sum), log_prob = x - m - log(s); then NegativeLogLikelihoodLoss of log_prob as above.
//     The log-probabilities live in a compute-type transient; the log_prob output, when connected, is
//     written by the same map.
// The class index is data: it is read from a single-element memlet of the target, and the class row
// through an array connector over the class axis ([n, 0:C, d..], indexed t * prod(d..)). Indices are
// clamped into [0, C) before the read (ignored or out-of-range indices never read outside the data).
// float16/bfloat16 compute in float32. Preconditions: ranks known, rank >= 2, matching target rank.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions {

namespace {

using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

enum class Reduction { None, Sum, Mean };

// Element `idx` of a connector over `n` elements: a one-element memlet is a scalar connector.
std::string element(const std::string& conn, const std::string& idx, const Expr& n) {
  return n == Expr(1) ? conn : conn + "[" + idx + "]";
}

struct NllSpec {
  std::string logp;        // container of log-probabilities [N, C, d..]
  std::string target;      // class indices [N, d..]
  std::string weight;      // "" or per-class weights [C]
  std::string out;         // the loss output
  Reduction reduction = Reduction::Mean;
  std::optional<int64_t> ignoreIndex;
  DType ct = DType::Float32; // compute type
};

// The NLL of `s.logp` at `s.target` into `s.out` (see the header comment).
void emitNll(SdfgBuilder& b, const NllSpec& s) {
  const auto& ls = b.data(s.logp).shape;
  const auto& ts = b.data(s.target).shape;
  DType outT = b.data(s.out).dtype;
  Expr C = ls[1];
  Expr inner = th::product(ls, 2); // stride of the class axis
  size_t tr = ts.size();

  // Map parameters over the target: i0 (batch), i1.. (spatial dims).
  auto params = fullRangeParams(ts);
  std::vector<std::string> lsub{"i0", "0:" + C.str()};
  for (size_t k = 1; k < tr; ++k) lsub.push_back("i" + std::to_string(k));
  std::vector<TaskletIn> ins{{"t", s.target, indexList(tr)}, {"p", s.logp, th::join(lsub)}};
  std::string code = "let c = int64(t); ";
  std::string keep = "c >= 0 && c < " + th::par(C);
  if (s.ignoreIndex) keep = "c != " + th::num(*s.ignoreIndex) + " && " + keep;
  code += "let ok = " + keep + "; let cc = ok ? c : 0; ";
  std::string cl = inner == Expr(1) ? "cc" : "cc * " + th::par(inner);
  std::string wt;
  if (!s.weight.empty()) {
    ins.push_back({"w", s.weight, ""});
    DType wT = b.data(s.weight).dtype;
    wt = "(ok ? " + ew::convert(element("w", "cc", C), ew::computeType(wT), s.ct) + " : " + ew::literal(0, s.ct) + ")";
  } else {
    wt = "(ok ? " + ew::literal(1, s.ct) + " : " + ew::literal(0, s.ct) + ")";
  }
  code += "let wt = " + wt + "; ";
  std::string loss = "-(" + element("p", cl, C) + ") * wt";

  if (s.reduction == Reduction::None) {
    b.mappedTasklet("nll", params, ins, code + "l = " + ew::convert(loss, s.ct, outT), {{"l", s.out, indexList(tr), ""}});
    return;
  }
  std::string acc = b.transient("loss_sum", s.ct, {});
  std::string wsum = s.reduction == Reduction::Mean ? b.transient("weight_sum", s.ct, {}) : "";
  std::vector<TaskletOut> initOuts{{"a", acc, "", ""}};
  std::string initCode = "a = " + ew::literal(0, s.ct);
  if (!wsum.empty()) {
    initOuts.push_back({"ws", wsum, "", ""});
    initCode += "; ws = " + ew::literal(0, s.ct);
  }
  b.mappedTasklet("init_sums", {}, {}, initCode, initOuts);
  b.nextState("nll");
  std::vector<TaskletOut> outs{{"l", acc, "", "sum"}};
  code += "l = " + loss;
  if (!wsum.empty()) {
    outs.push_back({"wo", wsum, "", "sum"});
    code += "; wo = wt";
  }
  b.mappedTasklet("nll", params, ins, code, outs);
  b.nextState("reduce");
  std::vector<TaskletIn> fin{{"a", acc, ""}};
  std::string v = "a";
  if (!wsum.empty()) {
    fin.push_back({"ws", wsum, ""});
    v = "a / ws";
  }
  b.mappedTasklet(s.reduction == Reduction::Mean ? "mean" : "sum", {}, fin, "y = " + ew::convert(v, s.ct, outT),
                  {{"y", s.out, "", ""}});
}

Expected<Reduction> reductionOf(const ExpansionContext& ctx) {
  std::string r = ctx.attrString("reduction", "mean");
  if (r == "none") return Reduction::None;
  if (r == "sum") return Reduction::Sum;
  if (r == "mean") return Reduction::Mean;
  return ctx.error("reduction '" + r + "' is not one of none, sum, mean");
}

// Checks shapes common to both losses: x [N, C, d..], t [N, d..], w [C]?, and the output rank.
Expected<void> checkShapes(const ExpansionContext& ctx, const std::string& x, const std::string& t, const std::string& w,
                           const std::string& out, Reduction red) {
  DCW_TRY(auto X, th::needIn(ctx, x));
  DCW_TRY(auto T, th::needIn(ctx, t));
  DCW_TRY(auto Y, th::needOut(ctx, out));
  size_t r = X->shape.size();
  if (r < 2) return ctx.error("'" + x + "' must have rank >= 2 ([N, C, d1..dk])");
  if (T->shape.size() != r - 1) return ctx.error("'" + t + "' must have rank " + std::to_string(r - 1) + " ([N, d1..dk])");
  if (!ir::isInteger(T->dtype)) return ctx.error("'" + t + "' must hold integer class indices");
  if (ctx.hasIn(w)) {
    DCW_TRY(auto W, th::needIn(ctx, w));
    if (W->shape.size() != 1) return ctx.error("'" + w + "' must be a vector of per-class weights [C]");
  }
  size_t want = red == Reduction::None ? r - 1 : 0;
  if (Y->shape.size() != want)
    return ctx.error("'" + out + "' has rank " + std::to_string(Y->shape.size()) + "; reduction gives rank " + std::to_string(want));
  return {};
}

Result expandNll(const ExpansionContext& ctx) {
  DCW_TRY(auto red, reductionOf(ctx));
  DCW_CHECK(checkShapes(ctx, "input", "target", "weight", "loss", red));
  SdfgBuilder b(ctx);
  NllSpec s;
  s.logp = "input";
  s.target = "target";
  s.weight = ctx.hasIn("weight") ? "weight" : "";
  s.out = "loss";
  s.reduction = red;
  if (ctx.hasAttr("ignore_index")) s.ignoreIndex = ctx.attrInt("ignore_index", 0);
  s.ct = ew::computeType(ctx.in("input")->dtype);
  emitNll(b, s);
  return b.finish();
}

Result expandSce(const ExpansionContext& ctx) {
  DCW_TRY(auto red, reductionOf(ctx));
  DCW_CHECK(checkShapes(ctx, "scores", "labels", "weights", "output", red));
  const auto& xs = ctx.in("scores")->shape;
  size_t r = xs.size();
  DType t = ctx.in("scores")->dtype, ct = ew::computeType(t);
  std::string x = ew::convert("x", t, ct);

  SdfgBuilder b(ctx);
  // Log-softmax over axis 1, max-subtracted.
  std::vector<bool> red1(r, false);
  red1[1] = true;
  auto keepShape = ew::reducedShape(xs, red1, true);
  std::string ks = ew::reducedSubset(red1, true), all = indexList(r);
  auto params = fullRangeParams(xs);
  std::string mx = b.transient("max", ct, keepShape), sum = b.transient("sum", ct, keepShape);
  b.mappedTasklet("init", fullRangeParams(keepShape), {}, "m = " + ew::lowest(ct) + "; s = " + ew::literal(0, ct),
                  {{"m", mx, indexList(r), ""}, {"s", sum, indexList(r), ""}});
  b.nextState("max");
  b.mappedTasklet("max", params, {{"x", "scores", all}}, "m = " + x, {{"m", mx, ks, "max"}});
  b.nextState("sum");
  b.mappedTasklet("sum", params, {{"x", "scores", all}, {"m", mx, ks}}, "s = exp(" + x + " - m)", {{"s", sum, ks, "sum"}});
  b.nextState("log_softmax");
  std::string lp = b.transient("logp", ct, xs);
  std::vector<TaskletOut> outs{{"lp", lp, all, ""}};
  std::string code = "lp = " + x + " - m - log(s)";
  if (ctx.hasOut("log_prob")) {
    DType lt = ctx.out("log_prob")->dtype;
    outs.push_back({"lpo", "log_prob", all, ""});
    code += "; lpo = " + ew::convert("lp", ct, lt);
  }
  b.mappedTasklet("log_softmax", params, {{"x", "scores", all}, {"m", mx, ks}, {"s", sum, ks}}, code, outs);
  b.nextState("loss");

  NllSpec s;
  s.logp = lp;
  s.target = "labels";
  s.weight = ctx.hasIn("weights") ? "weights" : "";
  s.out = "output";
  s.reduction = red;
  if (ctx.hasAttr("ignore_index")) s.ignoreIndex = ctx.attrInt("ignore_index", 0);
  s.ct = ct;
  emitNll(b, s);
  return b.finish();
}

} // namespace

void registerLosses(ExpansionRegistry& r) {
  r.add("", "NegativeLogLikelihoodLoss", "pure", expandNll,
        "map over the target: -input[n, t, d..] * w[t] (0 at ignore_index); sum/mean by WCR sums");
  r.add("", "SoftmaxCrossEntropyLoss", "pure", expandSce,
        "max-subtracted log-softmax over axis 1 into a transient, then the NLL of it");
}

} // namespace dcw::expansions
