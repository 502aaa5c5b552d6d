// Pure expansions of Softmax, LogSoftmax and Hardmax (see Ops.h). The normalised axes are `axis`
// alone from opset 13 (default -1), and every axis from `axis` on before 13 (the input is seen as a
// 2-D matrix [prod(dims < axis), prod(dims >= axis)], default axis 1). Shapes: input -> output, same.
//
//   Softmax     m = max(x) (WCR max), s = sum(exp(x - m)) (WCR sum), y = exp(x - m) / s
//   LogSoftmax  same m and s, y = x - m - log(s)             (max-subtracted: no overflow)
//   Hardmax     m = max(x), first = min index (row-major over the normalised axes) with x == m
//               (WCR min), y = index == first ? 1 : 0
// Per-slice statistics live in transients shaped like the input with the normalised axes of size 1.
// float16/bfloat16 compute in float32. Preconditions: a tensor of known rank.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"

namespace dcw::expansions {

namespace {

using namespace ew;
using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

enum class Kind { Softmax, LogSoftmax, Hardmax };

Result expandSoftmax(const ExpansionContext& ctx, Kind kind) {
  if (!ctx.hasIn("input") || !ctx.hasOut("output")) return ctx.error("input and output must be connected");
  const auto& in = *ctx.in("input");
  if (!in.wrappers.empty() || !in.rankKnown || !ctx.out("output")->rankKnown)
    return ctx.error("the input is not a tensor of known rank (" + in.typeString() + ")",
                     "give the model static shapes (ONNX shape inference) before expanding");
  int64_t rank = static_cast<int64_t>(in.shape.size());
  bool v13 = ctx.node().opsetVersion >= 13;
  int64_t rawAxis = ctx.attrInt("axis", v13 ? -1 : 1);
  if (rank == 0) return ctx.error("the input must have at least one dimension");
  auto axis = normalizeAxis(rawAxis, rank);
  if (!axis) return ctx.error("axis " + std::to_string(rawAxis) + " is out of range for rank " + std::to_string(rank));
  std::vector<bool> red(size_t(rank), false);
  for (int64_t d = *axis; d < (v13 ? *axis + 1 : rank); ++d) red[size_t(d)] = true;

  DType t = in.dtype, ct = computeType(t), outT = ctx.out("output")->dtype;
  std::string x = t == ct ? "x" : castTo(ct, "x");
  auto keep = reducedShape(in.shape, red, true);
  std::string ks = reducedSubset(red, true);
  std::string all = indexList(size_t(rank));
  auto params = fullRangeParams(in.shape);

  SdfgBuilder b(ctx);
  std::string mx = b.transient("max", ct, keep);
  fill(b, "init_max", mx, lowest(ct));
  std::string sum, first;
  if (kind == Kind::Hardmax) {
    first = b.transient("first", DType::Int64, keep);
    fill(b, "init_first", first, "int64(9223372036854775807)");
  } else {
    sum = b.transient("sum", ct, keep);
    fill(b, "init_sum", sum, literal(0, ct));
  }
  b.nextState("max");
  b.mappedTasklet("max", params, {{"x", "input", all}}, "m = " + x, {{"m", mx, ks, "max"}});

  if (kind == Kind::Hardmax) {
    // Row-major index of the element within its slice.
    Expr lin = 0;
    for (int64_t d = *axis; d < rank; ++d)
      if (red[size_t(d)]) lin = lin * in.shape[size_t(d)] + Expr::symbol("i" + std::to_string(d));
    std::string li = "int64(" + lin.str() + ")";
    b.nextState("first");
    b.mappedTasklet("first", params, {{"x", "input", all}, {"m", mx, ks}}, "k = " + x + " == m ? " + li + " : int64(9223372036854775807)",
                    {{"k", first, ks, "min"}});
    b.nextState("hardmax");
    b.mappedTasklet("hardmax", params, {{"k", first, ks}}, "y = " + li + " == k ? " + literal(1, outT) + " : " + literal(0, outT),
                    {{"y", "output", all}});
    return b.finish();
  }

  b.nextState("sum");
  b.mappedTasklet("sum", params, {{"x", "input", all}, {"m", mx, ks}}, "s = exp(" + x + " - m)", {{"s", sum, ks, "sum"}});
  b.nextState("normalize");
  std::string v = kind == Kind::Softmax ? "exp(" + x + " - m) / s" : x + " - m - log(s)";
  b.mappedTasklet(kind == Kind::Softmax ? "softmax" : "logsoftmax", params, {{"x", "input", all}, {"m", mx, ks}, {"s", sum, ks}},
                  "y = " + convert(v, ct, outT), {{"y", "output", all}});
  return b.finish();
}

} // namespace

void registerSoftmax(ExpansionRegistry& r) {
  r.add("", "Softmax", "pure", [](const ExpansionContext& ctx) { return expandSoftmax(ctx, Kind::Softmax); },
        "max-subtracted: m = max, s = sum(exp(x - m)), y = exp(x - m) / s");
  r.add("", "LogSoftmax", "pure", [](const ExpansionContext& ctx) { return expandSoftmax(ctx, Kind::LogSoftmax); },
        "max-subtracted: y = x - m - log(sum(exp(x - m)))");
  r.add("", "Hardmax", "pure", [](const ExpansionContext& ctx) { return expandSoftmax(ctx, Kind::Hardmax); },
        "y = 1 at the first maximum of each slice, 0 elsewhere");
}

} // namespace dcw::expansions
