// Pure expansions of the ONNX reductions (see Ops.h). Every reduction is an initialising map that
// writes the identity into the result (or an accumulator transient), then one map over the whole
// input whose tasklet writes into the result with write-conflict resolution (sum, prod, max, min),
// then, where needed, a map that finishes the result (mean, sqrt, log):
//
//   ReduceSum/SumSquare/L1/L2/Mean/LogSum   data[d0..dn] -> reduced[kept dims] (keepdims: reduced dims 1)
//   ReduceMax/Min/Prod                      same, WCR max/min/prod
//   ReduceLogSumExp                         max pass first: m + log(sum(exp(x - m)))   (stable)
//   ArgMax/ArgMin                           max/min pass, then WCR min (first) or max (select_last_index)
//                                           of the indices that reach it
//   TopK                                    rank[j] = #{k beating j} (WCR sum over pairs), then each output
//                                           position r sums the element whose rank is r (exactly one)
//
// Axes: the attribute (before opset 13, and for all but ReduceSum up to 17) or ReduceSum's `axes` input
// from 13. A constant `axes` is used as is; otherwise the reduced axes are recovered from the input and
// output shapes, and where several sets of axes fit those shapes, every candidate is computed and the
// one the runtime `axes` names is kept (a tasklet compares the axes values; the others add identity).
// TopK's k is the output's extent along the axis (known from shape inference), so K need not be a
// constant. float16/bfloat16 accumulate in float32. Preconditions: tensors of known rank.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"

#include <functional>

namespace dcw::expansions {

namespace {

using namespace ew;
using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

bool sameShape(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) return false;
  return true;
}

// Which axes a reduction reduces: one set, or (runtime `axes` input) several candidates.
struct AxesPlan {
  bool noop = false;                       // noop_with_empty_axes and no axes: output = input
  std::vector<std::vector<bool>> sets;     // one entry: static; several: chosen at run time
  bool keepdims = true;
  size_t runtimeCount = 0;                 // length of the runtime axes input (0: static)
};

Expected<AxesPlan> planAxes(const ExpansionContext& ctx, const std::string& in, const std::string& out) {
  const auto& shape = ctx.in(in)->shape;
  const auto& outShape = ctx.out(out)->shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  AxesPlan p;
  p.keepdims = ctx.attrInt("keepdims", 1) != 0;
  bool noopEmpty = ctx.attrInt("noop_with_empty_axes", 0) != 0;
  std::optional<std::vector<int64_t>> axes;
  if (ctx.hasIn("axes")) {
    if (auto c = ctx.constantInts("axes")) axes = *c;
    else if (ctx.in("axes")->shape.size() == 1 && ctx.in("axes")->shape[0] == Expr(0)) axes = std::vector<int64_t>{};
  } else {
    axes = ctx.attrInts("axes");
  }
  if (axes) {
    if (axes->empty()) {
      if (noopEmpty) {
        p.noop = true;
        return p;
      }
      p.sets.push_back(std::vector<bool>(size_t(rank), true));
      return p;
    }
    std::vector<bool> red(size_t(rank), false);
    for (int64_t a : *axes) {
      auto n = normalizeAxis(a, rank);
      if (!n) return ctx.error("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
      red[size_t(*n)] = true;
    }
    p.sets.push_back(red);
    return p;
  }
  // Runtime axes: recover the candidates from the shapes.
  const auto& ashape = ctx.in("axes")->shape;
  if (ashape.size() != 1 || !ashape[0].isConstant())
    return ctx.error("the axes input is not a constant and its length is unknown",
                     "make axes a constant (an initializer) or give it a static length");
  int64_t m = *ashape[0].constantValue();
  if (m > rank) return ctx.error("the axes input names more axes than the input has");
  std::vector<std::vector<bool>> cands;
  auto isOne = [&](size_t k) { return shape[k] == Expr(1); };
  for (uint64_t mask = 0; mask < (uint64_t(1) << rank); ++mask) {
    if (__builtin_popcountll(mask) != m) continue;
    std::vector<bool> red(static_cast<size_t>(rank));
    for (int64_t k = 0; k < rank; ++k) red[size_t(k)] = (mask >> k) & 1;
    if (!sameShape(reducedShape(shape, red, p.keepdims), outShape)) continue;
    // Candidates that differ only in size-1 dims compute the same values in the same layout.
    bool dup = false;
    for (auto& c : cands) {
      bool same = true;
      for (size_t k = 0; k < red.size(); ++k)
        if (!isOne(k) && c[k] != red[k]) same = false;
      if (same) dup = true;
    }
    if (!dup) cands.push_back(red);
  }
  if (cands.empty())
    return ctx.error("no choice of " + std::to_string(m) + " axes reduces " + ctx.in(in)->typeString() + " to " +
                     ctx.out(out)->typeString());
  if (cands.size() > 16)
    return ctx.error("the axes input is not a constant and " + std::to_string(cands.size()) +
                         " sets of axes fit the shapes; too many to compute them all",
                     "make axes a constant (an initializer)");
  p.sets = cands;
  if (cands.size() > 1) p.runtimeCount = size_t(m);
  return p;
}

// A reduction's arithmetic.
struct ReduceOp {
  std::string wcr;                                              // sum, prod, max, min
  std::function<std::string(DType)> identity;                   // initial value, typed
  std::function<std::string(const std::string&, DType)> term;   // what each element contributes
  // Finishes the accumulator (acc, element count, type); empty: the accumulator is the result.
  std::function<std::string(const std::string&, const std::string&, DType)> finish;
  bool maxShift = false;                                        // LogSumExp: subtract the max first
};

ReduceOp reduceOp(const std::string& op) {
  auto zero = [](DType t) { return literal(0, t); };
  auto same = [](const std::string& x, DType) { return x; };
  ReduceOp r{"sum", zero, same, {}, false};
  if (op == "ReduceMax") r = {"max", lowest, same, {}, false};
  else if (op == "ReduceMin") r = {"min", highest, same, {}, false};
  else if (op == "ReduceProd") r = {"prod", [](DType t) { return literal(1, t); }, same, {}, false};
  else if (op == "ReduceSumSquare") r.term = [](const std::string& x, DType) { return x + " * " + x; };
  else if (op == "ReduceL1") r.term = [](const std::string& x, DType) { return "abs(" + x + ")"; };
  else if (op == "ReduceL2") {
    r.term = [](const std::string& x, DType) { return x + " * " + x; };
    r.finish = [](const std::string& a, const std::string&, DType t) {
      return ir::isFloating(t) ? "sqrt(" + a + ")" : castTo(t, "sqrt(float64(" + a + "))");
    };
  } else if (op == "ReduceLogSum") {
    r.finish = [](const std::string& a, const std::string&, DType t) {
      return ir::isFloating(t) ? "log(" + a + ")" : castTo(t, "log(float64(" + a + "))");
    };
  } else if (op == "ReduceMean") {
    r.finish = [](const std::string& a, const std::string& n, DType t) { return a + " / " + castTo(t, n); };
  } else if (op == "ReduceLogSumExp") {
    r.maxShift = true;
    r.term = [](const std::string& x, DType) { return "exp(" + x + " - shift)"; };
    r.finish = [](const std::string& a, const std::string&, DType) { return "shift + log(" + a + ")"; };
  }
  return r;
}

Result expandReduce(const ExpansionContext& ctx, const std::string& op) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("data") || !ctx.hasOut("reduced")) return ctx.error("data and reduced must be connected");
  DCW_TRY(auto plan, planAxes(ctx, "data", "reduced"));
  const auto& in = *ctx.in("data");
  const auto& out = *ctx.out("reduced");
  DType inT = in.dtype, outT = out.dtype, at = computeType(outT);
  if (inT == DType::String || inT == DType::Bool) return ctx.error("cannot reduce values of type " + typeName(inT));
  SdfgBuilder b(ctx);
  auto inParams = fullRangeParams(in.shape);
  std::string x = inT == at ? "x" : castTo(at, "x");

  if (plan.noop) { // noop_with_empty_axes: the output is the input, elementwise finished
    ReduceOp r = reduceOp(op);
    std::string v = r.maxShift ? x : r.term(x, at); // a one-element LogSumExp is x itself
    if (r.finish && !r.maxShift) v = r.finish(v, "1", at);
    broadcastMap(b, "reduce_noop", {{"x", "data"}}, "y = " + convert(v, at, outT), {{"y", "reduced"}});
    return b.finish();
  }
  for (auto& set : plan.sets)
    if (reducedShape(in.shape, set, plan.keepdims).size() != out.shape.size())
      return ctx.error("output rank " + std::to_string(out.shape.size()) + " does not match the reduction of " + in.typeString());

  ReduceOp r = reduceOp(op);
  bool finishing = bool(r.finish);
  std::string acc = finishing || at != outT ? b.transient("acc", at, out.shape) : "reduced";

  std::string shift;
  if (r.maxShift) {
    if (plan.sets.size() != 1) return ctx.error("ReduceLogSumExp with runtime axes is not supported");
    const auto& set = plan.sets.front();
    shift = b.transient("max", at, out.shape);
    fill(b, "init_max", shift, lowest(at));
    b.nextState("reduce_max");
    b.mappedTasklet("max", inParams, {{"x", "data", indexList(in.shape.size())}}, "m = " + x,
                    {{"m", shift, reducedSubset(set, plan.keepdims), "max"}});
    b.nextState("reduce_init");
  }
  fill(b, "init", acc, r.identity(at));
  b.nextState("reduce");
  for (size_t c = 0; c < plan.sets.size(); ++c) {
    const auto& set = plan.sets[c];
    std::vector<TaskletIn> ins{{"x", "data", indexList(in.shape.size())}};
    std::string code;
    if (r.maxShift) {
      ins.push_back({"m", shift, reducedSubset(set, plan.keepdims)});
      // An all-(-inf) or +inf slice keeps its max out of the exponent (exp(-inf - -inf) is nan).
      code += "let shift = isinf(m) ? " + literal(0, at) + " : m\n";
    }
    std::string term = r.term(x, at);
    if (plan.runtimeCount) {
      // Candidate c contributes only when the runtime axes are exactly its reduced axes.
      int64_t rank = static_cast<int64_t>(in.shape.size());
      std::string match;
      for (int64_t k = 0; k < rank; ++k) {
        if (in.shape[size_t(k)] == Expr(1)) continue;
        std::string named;
        for (size_t j = 0; j < plan.runtimeCount; ++j) {
          std::string a = "ax" + std::to_string(j);
          named += (j ? " || " : "") + a + " == " + std::to_string(k) + " || " + a + " == " + std::to_string(k - rank);
        }
        match += std::string(match.empty() ? "" : " && ") + (set[size_t(k)] ? "(" : "!(") + named + ")";
      }
      if (match.empty()) match = "true";
      for (size_t j = 0; j < plan.runtimeCount; ++j) ins.push_back({"ax" + std::to_string(j), "axes", std::to_string(j)});
      term = "(" + match + ") ? " + term + " : " + r.identity(at);
    }
    b.mappedTasklet("reduce", inParams, ins, code + "a = " + term, {{"a", acc, reducedSubset(set, plan.keepdims), r.wcr}});
  }
  if (acc != "reduced") {
    b.nextState("finish");
    std::string v = "a";
    if (finishing) {
      sym::Expr n = reducedCount(in.shape, plan.sets.front());
      v = r.finish("a", n.str(), at);
    }
    std::vector<TaskletIn> ins{{"a", acc, indexList(out.shape.size())}};
    std::string code;
    if (r.maxShift) {
      ins.push_back({"m", shift, indexList(out.shape.size())});
      code += "let shift = isinf(m) ? " + literal(0, at) + " : m\n";
    }
    b.mappedTasklet("finish", fullRangeParams(out.shape), ins, code + "y = " + convert(v, at, outT),
                    {{"y", "reduced", indexList(out.shape.size())}});
  }
  return b.finish();
}

// ArgMax / ArgMin: the extreme value per slice, then the first (or last) index that reaches it.
Result expandArg(const ExpansionContext& ctx, bool isMax) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("data") || !ctx.hasOut("reduced")) return ctx.error("data and reduced must be connected");
  const auto& in = *ctx.in("data");
  const auto& out = *ctx.out("reduced");
  int64_t rank = static_cast<int64_t>(in.shape.size());
  auto axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", 0)) + " is out of range for rank " + std::to_string(rank));
  bool keepdims = ctx.attrInt("keepdims", 1) != 0;
  bool last = ctx.attrInt("select_last_index", 0) != 0;
  std::vector<bool> red(size_t(rank), false);
  red[size_t(*axis)] = true;
  if (reducedShape(in.shape, red, keepdims).size() != out.shape.size())
    return ctx.error("output rank does not match keepdims");
  DType ct = computeType(in.dtype);
  std::string x = in.dtype == ct ? "x" : castTo(ct, "x");
  SdfgBuilder b(ctx);
  auto keep = reducedShape(in.shape, red, true);
  std::string ext = b.transient(isMax ? "max" : "min", ct, keep);
  fill(b, "init_extreme", ext, isMax ? lowest(ct) : highest(ct));
  b.nextState("extreme");
  auto params = fullRangeParams(in.shape);
  std::string all = indexList(size_t(rank));
  b.mappedTasklet("extreme", params, {{"x", "data", all}}, "m = " + x, {{"m", ext, reducedSubset(red, true), isMax ? "max" : "min"}});
  b.nextState("init_index");
  DType ot = out.dtype;
  std::string sentinel = last ? castTo(ot, "-1") : castTo(ot, in.shape[size_t(*axis)].str());
  fill(b, "init_index", "reduced", sentinel);
  b.nextState("index");
  std::string idx = castTo(ot, "i" + std::to_string(*axis));
  b.mappedTasklet("index", params, {{"x", "data", all}, {"m", ext, reducedSubset(red, true)}},
                  "k = " + x + " == m ? " + idx + " : " + sentinel, {{"k", "reduced", reducedSubset(red, keepdims), last ? "max" : "min"}});
  return b.finish();
}

// TopK by ranks: rank[j] counts the elements that come before j in the output order (larger, or equal
// with a smaller index, for largest=1); output position r takes the element of rank r.
Result expandTopK(const ExpansionContext& ctx) {
  DCW_CHECK(requireRanked(ctx));
  if (!ctx.hasIn("X")) return ctx.error("input X is not connected");
  const auto& in = *ctx.in("X");
  const ir::DataDescriptor* outD = ctx.hasOut("Values") ? ctx.out("Values") : ctx.out("Indices");
  if (!outD) return ctx.error("neither Values nor Indices is connected");
  int64_t rank = static_cast<int64_t>(in.shape.size());
  auto axis = normalizeAxis(ctx.attrInt("axis", -1), rank);
  if (!axis) return ctx.error("axis " + std::to_string(ctx.attrInt("axis", -1)) + " is out of range for rank " + std::to_string(rank));
  if (outD->shape.size() != in.shape.size()) return ctx.error("TopK's outputs must have the input's rank");
  size_t ax = size_t(*axis);
  // k is the outputs' extent along the axis (shape inference computed it from K or the attribute).
  Expr k = outD->shape[ax];
  if (auto kc = ctx.constantInts("K"); kc && kc->size() == 1 && k.isConstant() && *k.constantValue() != (*kc)[0])
    return ctx.error("K = " + std::to_string((*kc)[0]) + " does not match the outputs' extent " + k.str());
  bool largest = ctx.attrInt("largest", 1) != 0;
  DType ct = computeType(in.dtype);
  auto conv = [&](const std::string& v) { return in.dtype == ct ? v : castTo(ct, v); };

  SdfgBuilder b(ctx);
  std::string ranks = b.transient("rank", DType::Int64, in.shape);
  fill(b, "init_rank", ranks, "int64(0)");
  b.nextState("rank");
  std::string ia = "i" + std::to_string(ax);
  auto params = fullRangeParams(in.shape);
  params.push_back({"j", ir::Range::full(in.shape[ax])});
  std::string all = indexList(size_t(rank));
  std::string other;
  for (int64_t d = 0; d < rank; ++d) other += std::string(d ? ", " : "") + (size_t(d) == ax ? "j" : "i" + std::to_string(d));
  std::string cmp = largest ? " > " : " < ";
  b.mappedTasklet("rank", params, {{"a", "X", all}, {"c", "X", other}},
                  "let xa = " + conv("a") + "\nlet xc = " + conv("c") + "\nr = (xc" + cmp + "xa || (xc == xa && j < " + ia +
                      ")) ? int64(1) : int64(0)",
                  {{"r", ranks, all, "sum"}});
  b.nextState("init_outputs");
  if (ctx.hasOut("Values")) fill(b, "init_values", "Values", literal(0, ctx.out("Values")->dtype));
  if (ctx.hasOut("Indices")) fill(b, "init_indices", "Indices", castTo(ctx.out("Indices")->dtype, "0"));
  b.nextState("select");
  auto oparams = fullRangeParams(outD->shape);
  oparams.push_back({"j", ir::Range::full(in.shape[ax])});
  std::vector<TaskletIn> ins{{"r", ranks, other}};
  std::vector<TaskletOut> outs;
  std::string code = "let hit = r == int64(" + ia + ")\n";
  if (ctx.hasOut("Values")) {
    DType vt = ctx.out("Values")->dtype;
    ins.push_back({"x", "X", other});
    code += "v = hit ? " + convert("x", in.dtype, vt) + " : " + literal(0, vt) + "\n";
    outs.push_back({"v", "Values", all, "sum"});
  }
  if (ctx.hasOut("Indices")) {
    DType it = ctx.out("Indices")->dtype;
    code += "n = hit ? " + castTo(it, "j") + " : " + castTo(it, "0") + "\n";
    outs.push_back({"n", "Indices", all, "sum"});
  }
  b.mappedTasklet("select", oparams, ins, code, outs);
  return b.finish();
}

} // namespace

void registerReductions(ExpansionRegistry& r) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
    std::string name = op;
    r.add("", name, "pure", [name](const ExpansionContext& ctx) { return expandReduce(ctx, name); },
          "identity-initialised result, one WCR map over data, then a finishing map where needed");
  }
  r.add("", "ArgMax", "pure", [](const ExpansionContext& ctx) { return expandArg(ctx, true); },
        "WCR max per slice, then WCR min (max with select_last_index) of the indices reaching it");
  r.add("", "ArgMin", "pure", [](const ExpansionContext& ctx) { return expandArg(ctx, false); },
        "WCR min per slice, then WCR min (max with select_last_index) of the indices reaching it");
  r.add("", "TopK", "pure", expandTopK, "ranks by pairwise comparison (WCR sum), then output position r sums the element of rank r");
}

} // namespace dcw::expansions
