// Pure expansions of pooling, as maps with WCR reductions over the window:
//
//   MaxPool      X[N, C, D..] -> Y[N, C, O..] (+ Indices[N, C, O..], int64)
//     Y = lowest; map n, c, o.., k.. : Y[n, c, o..] max= select(inside, X[n, c, o*s + k*d - pad], lowest)
//     Indices = max int; map n, c, o.., k.. : Indices min= select(inside && x == y, flat index of x, max int)
//     (flat index row-major over N*C and the spatial dims, or column-major over the spatial dims when
//     storage_order = 1, as ONNX Runtime computes it — the first maximum wins).
//   AveragePool  sum and count transients accumulated with WCR sum, then Y = sum / count; the count
//     counts positions inside the input, or inside the padded input when count_include_pad = 1.
//   LpPool       Y = (sum over the window of |x|^p)^(1/p).
//   GlobalAveragePool / GlobalMaxPool / GlobalLpPool: the window is the whole spatial extent,
//     Y[N, C, 1..1].
// Positions in the padding (or past the input with ceil_mode) never contribute: the input index is
// clamped into range and the tasklet selects the identity there. Output extents (ceil_mode, auto_pad)
// are read from the output descriptor. Preconditions: ranks known, rank >= 3.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;
using namespace th;

namespace {

enum class PoolKind { Max, Avg, Lp };

// Whether symbolic text may go into tasklet code as it is: the language floors `//` as symbolic dims do,
// but its `%` truncates where sym's is a floor modulo, so a `%` from a dim expression stays out.
bool taskletSafe(const std::string& s) { return s.find('%') == std::string::npos; }

// |x|^p in tasklet code, with the common p written out.
std::string powCode(const std::string& x, int64_t p) {
  if (p == 1) return "abs(" + x + ")";
  if (p == 2) return x + " * " + x;
  return "pow(abs(" + x + "), " + std::to_string(p) + ".0)";
}
std::string rootCode(const std::string& s, int64_t p) {
  if (p == 1) return s;
  if (p == 2) return "sqrt(" + s + ")";
  return "pow(" + s + ", 1.0 / " + std::to_string(p) + ".0)";
}

Expected<std::unique_ptr<Sdfg>> expandPool(const ExpansionContext& ctx, PoolKind kind, bool global) {
  DCW_TRY(auto Xd, needIn(ctx, "X"));
  DCW_TRY(auto Yd, needOut(ctx, "Y"));
  const Shape &xs = Xd->shape, &ys = Yd->shape;
  size_t r = xs.size();
  if (r < 3 || ys.size() != r) return ctx.error("X and Y must have the same rank >= 3 (N, C, spatial dims)");
  size_t nd = r - 2;
  DType yt = Yd->dtype;
  int64_t p = ctx.attrInt("p", int64_t(ctx.attrFloat("p", 2.0))); // LpPool-1 has a float p

  // Window positions: map params k<d> and, per dim, the input position and whether it is inside.
  std::vector<MapParam> outParams = fullRangeParams(ys, "i");
  std::vector<MapParam> params = outParams;
  std::vector<std::string> xi{"i0", "i1"}, inside, insidePadded;
  std::vector<Expr> pos;
  if (global) {
    for (size_t d = 0; d < nd; ++d) {
      params.push_back({"k" + std::to_string(d), Range::full(xs[d + 2])});
      xi.push_back("k" + std::to_string(d));
      pos.push_back(Expr::symbol("k" + std::to_string(d)));
    }
  } else {
    std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
    if (kernel.size() != nd) return ctx.error("kernel_shape must have one value per spatial dim (" + std::to_string(nd) + ")");
    auto w = window(ctx, kernel, Shape(xs.begin() + 2, xs.end()), Shape(ys.begin() + 2, ys.end()));
    if (!w) return w.takeError();
    for (size_t d = 0; d < nd; ++d) {
      std::string ds = std::to_string(d);
      params.push_back({"k" + ds, Range::full(kernel[d])});
      Expr ps = Expr::symbol("i" + std::to_string(d + 2)) * w->strides[d] + Expr::symbol("k" + ds) * w->dilations[d] - w->padBegin[d];
      pos.push_back(ps);
      Expr in = xs[d + 2];
      // The last window position reached: (O-1)*s + (K-1)*d - pad must stay below the input extent.
      Expr last = (ys[d + 2] - 1) * w->strides[d] + (kernel[d] - 1) * w->dilations[d] - w->padBegin[d];
      bool mayLeave = !(w->padBegin[d] == Expr(0)) || sym::proveLess(last, in) != std::optional<bool>(true);
      if (mayLeave) {
        xi.push_back(sym::min(sym::max(ps, Expr(0)), in - 1).str());
        inside.push_back(taskletDim(ps) + " >= 0 && " + taskletDim(ps) + " < " + taskletDim(in));
      } else {
        xi.push_back(ps.str());
      }
      // Inside the padded input: ps >= -pad always holds; past the end padding only with ceil_mode.
      Expr hi = in + w->padEnd[d];
      if (sym::proveLess(last, hi) != std::optional<bool>(true)) insidePadded.push_back(taskletDim(ps) + " < " + taskletDim(hi));
    }
  }
  std::string cond = join(inside, " && ");
  if (!taskletSafe(cond)) return ctx.error("auto_pad on symbolic spatial dims is not supported", "give the input static spatial dims");
  std::string yidx = indexList(r, "i");

  SdfgBuilder b(ctx);
  if (kind == PoolKind::Max) {
    std::string low = lowestLiteral(yt);
    b.mappedTasklet("init", outParams, {}, "y = " + low, {{"y", "Y", yidx, ""}});
    b.mappedTasklet("maxpool", params, {{"x", "X", join(xi)}}, cond.empty() ? "y = x" : "y = select(" + cond + ", x, " + low + ")",
                    {{"y", "Y", yidx, "max"}});
    if (ctx.hasOut("Indices")) {
      // Flat index of the input element at (i0, i1, pos..).
      bool colMajor = ctx.attrInt("storage_order", 0) == 1;
      Expr flat = (Expr::symbol("i0") * xs[1] + Expr::symbol("i1"));
      Expr spatialSize(1), sp(0);
      for (size_t d = 0; d < nd; ++d) spatialSize = spatialSize * xs[d + 2];
      if (colMajor) {
        Expr stride(1);
        for (size_t d = 0; d < nd; ++d) {
          sp = sp + pos[d] * stride;
          stride = stride * xs[d + 2];
        }
      } else {
        for (size_t d = 0; d < nd; ++d) sp = sp * xs[d + 2] + pos[d];
      }
      flat = flat * spatialSize + sp;
      std::string big = highestLiteral(DType::Int64);
      std::string c = (cond.empty() ? "" : cond + " && ") + "x == y";
      std::string fl = flat.str();
      if (!taskletSafe(fl)) return ctx.error("Indices on symbolic padding is not supported");
      b.mappedTasklet("indices_init", outParams, {}, "o = " + big, {{"o", "Indices", yidx, ""}});
      b.mappedTasklet("argmax", params, {{"x", "X", join(xi)}, {"y", "Y", yidx}}, "o = select(" + c + ", int64(" + fl + "), " + big + ")",
                      {{"o", "Indices", yidx, "min"}});
    }
    return b.finish();
  }

  // Sum (of x or |x|^p) over the window, into a transient.
  DType acc = isFloating(yt) ? yt : DType::Float64;
  std::string sum = b.transient("sum", acc, ys);
  std::string zero = literal(0, acc);
  b.mappedTasklet("sum_init", outParams, {}, "s = " + zero, {{"s", sum, yidx, ""}});
  std::string term = kind == PoolKind::Lp ? powCode("x", p) : "x";
  b.mappedTasklet("window_sum", params, {{"x", "X", join(xi)}}, cond.empty() ? "s = " + term : "s = select(" + cond + ", " + term + ", " + zero + ")",
                  {{"s", sum, yidx, "sum"}});
  if (kind == PoolKind::Lp) {
    b.mappedTasklet("root", outParams, {{"s", sum, yidx}}, "y = " + rootCode("s", p), {{"y", "Y", yidx, ""}});
    return b.finish();
  }
  // Average: divide by the number of contributing positions.
  bool includePad = ctx.attrInt("count_include_pad", 0) != 0;
  std::string countCond = includePad ? join(insidePadded, " && ") : cond;
  if (!taskletSafe(countCond)) return ctx.error("auto_pad on symbolic spatial dims is not supported", "give the input static spatial dims");
  if (countCond.empty()) {
    Expr n(1);
    for (size_t d = r; d < params.size(); ++d) n = n * params[d].range.size();
    if (!taskletSafe(n.str())) return ctx.error("the pooling window size is not a simple expression");
    b.mappedTasklet("average", outParams, {{"s", sum, yidx}}, "y = s / " + castTo(acc, n.str()), {{"y", "Y", yidx, ""}});
    return b.finish();
  }
  std::string count = b.transient("count", acc, ys);
  b.mappedTasklet("count_init", outParams, {}, "c = " + zero, {{"c", count, yidx, ""}});
  b.mappedTasklet("window_count", params, {}, "c = select(" + countCond + ", " + literal(1, acc) + ", " + zero + ")",
                  {{"c", count, yidx, "sum"}});
  b.mappedTasklet("average", outParams, {{"s", sum, yidx}, {"c", count, yidx}}, "y = s / c", {{"y", "Y", yidx, ""}});
  return b.finish();
}

} // namespace

void registerPooling(ExpansionRegistry& r) {
  auto reg = [&](const char* op, PoolKind k, bool global, const char* what) {
    r.add("", op, "pure", [k, global](const ExpansionContext& ctx) { return expandPool(ctx, k, global); }, what);
  };
  reg("MaxPool", PoolKind::Max, false, "map over output and window positions with WCR max (and WCR min of the argmax index)");
  reg("AveragePool", PoolKind::Avg, false, "WCR sums of values and of contributing positions, then a dividing map");
  reg("LpPool", PoolKind::Lp, false, "WCR sum of |x|^p over the window, then the p-th root");
  reg("GlobalMaxPool", PoolKind::Max, true, "WCR max over all spatial positions");
  reg("GlobalAveragePool", PoolKind::Avg, true, "WCR sum over all spatial positions, divided by their number");
  reg("GlobalLpPool", PoolKind::Lp, true, "WCR sum of |x|^p over all spatial positions, then the p-th root");
}

} // namespace dcw::expansions
