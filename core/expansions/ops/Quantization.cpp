// Pure expansions of the quantization ops (see Ops.h). Rounding is round-half-to-even (the tasklet
// `round`), saturation clamps to the range of the quantized type before the cast.
//
//   QuantizeLinear         x [..] , y_scale, y_zero_point? -> y [..] (type of y_zero_point, uint8 without)
//                          y = saturate(round(x / s) + zp); s and zp per tensor (one element) or per
//                          axis (1-D of the length of dim `axis`, default 1, read at that map index).
//   DequantizeLinear       x [..], x_scale, x_zero_point? -> y [..] (type of x_scale)
//                          y = (x - zp) * s, per tensor or per axis as above.
//   DynamicQuantizeLinear  x float32 [..] -> y uint8 [..], y_scale [], y_zero_point []
//                          lo = min(0, min x), hi = max(0, max x) (WCR min/max into transients seeded 0),
//                          s = (hi - lo) / 255 (1/255 when hi == lo), zp = round(clamp(-lo / s, 0, 255)),
//                          y = saturate(round(x / s) + zp).
//   MatMulInteger          A [.., M, K], B [.., K, N], a_zero_point? (one or [M]), b_zero_point? (one or [N])
//                          -> Y int32 = sum_k (A - azp) * (B - bzp): zero fill, then a map over Y and K with
//                          WCR sum (batch dims broadcast as in MatMul; 1-D A or B as in numpy).
//   QLinearMatMul          the MatMulInteger product into an int32 transient, then
//                          y = saturate(round(acc * (a_scale * b_scale / y_scale)) + y_zero_point)
//                          (a_scale/a_zero_point per tensor or per row [M], b's per tensor or per column [N]).
//   ConvInteger            x [N, C, D..], w [M, C/group, K..], x_zero_point?, w_zero_point? (one or [M])
//                          -> y int32: the Conv map nest (WCR sum) of (x - xzp) * (w - wzp); padded
//                          positions contribute 0 (they read as the zero point).
//   QLinearConv            the ConvInteger sum (+ B int32 [M]) into an int32 transient, then
//                          y = saturate(round(acc * (x_scale * w_scale[m] / y_scale)) + y_zero_point).
// Requantization multiplies in float64 (the ONNX reference promotes the int32 accumulator so).
// Preconditions: ranks known; block quantization (block_size != 0) and float8 types are refused.
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
using th::join;
using th::Shape;

// The range of a quantized integer type, as float literals for clamping.
std::optional<std::pair<std::string, std::string>> qrange(DType t) {
  switch (t) {
  case DType::UInt8: return std::pair<std::string, std::string>{"0.0", "255.0"};
  case DType::Int8: return std::pair<std::string, std::string>{"-128.0", "127.0"};
  case DType::UInt16: return std::pair<std::string, std::string>{"0.0", "65535.0"};
  case DType::Int16: return std::pair<std::string, std::string>{"-32768.0", "32767.0"};
  case DType::Int32: return std::pair<std::string, std::string>{"-2147483648.0", "2147483647.0"};
  default: return std::nullopt;
  }
}

// `v` (a float expression, already rounded) saturated into `t` and cast.
std::string saturate(const std::string& v, DType t) {
  auto r = qrange(t);
  return ew::castTo(t, "min(max(" + v + ", " + r->first + "), " + r->second + ")");
}

bool oneElement(const ir::DataDescriptor& d) { return d.shape.empty() || th::product(d.shape) == Expr(1); }

// The subset of a quantization parameter (scale or zero point): the whole one-element container, or
// the map index `perIndex` of a 1-D parameter.
Expected<std::string> paramSubset(const ExpansionContext& ctx, const std::string& conn, const std::string& perIndex,
                                  const std::string& what) {
  const auto* d = ctx.in(conn);
  if (!d->rankKnown) return ctx.error("the rank of '" + conn + "' is unknown");
  if (oneElement(*d)) return std::string();
  if (d->shape.size() != 1 || perIndex.empty())
    return ctx.error("'" + conn + "' must be one element or a 1-D tensor " + what,
                     "block quantization is not supported by the pure expansion");
  return perIndex;
}

// Reads `conn` per tensor or at `perIndex`; appends the tasklet input and returns the connector name
// (or `fallback` code when the connector is not connected).
Expected<std::string> readParam(const ExpansionContext& ctx, std::vector<TaskletIn>& ins, const std::string& conn,
                                const std::string& tconn, const std::string& perIndex, const std::string& what,
                                const std::string& fallback) {
  if (!ctx.hasIn(conn)) return fallback;
  DCW_TRY(auto s, paramSubset(ctx, conn, perIndex, what));
  ins.push_back({tconn, conn, s});
  return tconn;
}

// ---------------------------------------------------------------------------------------------
// QuantizeLinear / DequantizeLinear

Expected<std::string> axisIndex(const ExpansionContext& ctx, size_t rank) {
  if (ctx.attrInt("block_size", 0) != 0) return ctx.error("block quantization (block_size) is not supported");
  auto axis = th::normAxis(ctx.attrInt("axis", 1), int64_t(rank));
  if (!axis) return std::string(); // only per-tensor parameters fit
  return "i" + std::to_string(*axis);
}

Result expandQuantize(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "x"));
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  if (!ctx.hasIn("y_scale")) return ctx.error("y_scale must be connected");
  DType yt = Y->dtype;
  if (!qrange(yt)) return ctx.error("quantizing to " + std::string(ir::dtypeName(yt)) + " is not supported", "use uint8/int8/uint16/int16");
  const Shape& xs = X->shape;
  DCW_TRY(auto ax, axisIndex(ctx, xs.size()));
  DType ct = ew::computeType(ctx.in("y_scale")->dtype);
  if (!ir::isFloating(ct)) ct = DType::Float32;
  std::vector<TaskletIn> ins{{"x", "x", indexList(xs.size())}};
  DCW_CHECK(readParam(ctx, ins, "y_scale", "s", ax, "along axis", ""));
  DCW_TRY(auto zp, readParam(ctx, ins, "y_zero_point", "zp", ax, "along axis", "0"));
  std::string v = "round(" + ew::castTo(ct, "x") + " / " + ew::castTo(ct, "s") + ") + " + ew::castTo(ct, zp);
  SdfgBuilder b(ctx);
  b.mappedTasklet("quantize", fullRangeParams(xs), ins, "y = " + saturate(v, yt), {{"y", "y", indexList(xs.size()), ""}});
  return b.finish();
}

Result expandDequantize(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "x"));
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  if (!ctx.hasIn("x_scale")) return ctx.error("x_scale must be connected");
  DType yt = Y->dtype;
  if (!ir::isFloating(yt)) return ctx.error("the output must be a floating-point tensor");
  const Shape& xs = X->shape;
  DCW_TRY(auto ax, axisIndex(ctx, xs.size()));
  DType ct = ew::computeType(yt);
  std::vector<TaskletIn> ins{{"x", "x", indexList(xs.size())}};
  DCW_CHECK(readParam(ctx, ins, "x_scale", "s", ax, "along axis", ""));
  DCW_TRY(auto zp, readParam(ctx, ins, "x_zero_point", "zp", ax, "along axis", "0"));
  std::string v = "(" + ew::castTo(ct, "x") + " - " + ew::castTo(ct, zp) + ") * " + ew::castTo(ct, "s");
  SdfgBuilder b(ctx);
  b.mappedTasklet("dequantize", fullRangeParams(xs), ins, "y = " + ew::convert(v, ct, yt), {{"y", "y", indexList(xs.size()), ""}});
  return b.finish();
}

Result expandDynamicQuantize(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "x"));
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  if (!ctx.hasOut("y_scale") || !ctx.hasOut("y_zero_point")) return ctx.error("y_scale and y_zero_point must be connected");
  DType yt = Y->dtype, st = ctx.out("y_scale")->dtype, zt = ctx.out("y_zero_point")->dtype;
  if (yt != DType::UInt8 || zt != DType::UInt8) return ctx.error("y and y_zero_point must be uint8");
  const Shape& xs = X->shape;
  size_t r = xs.size();
  DType xt = X->dtype, ct = ew::computeType(xt);
  std::string x = ew::convert("x", ew::computeType(xt), ct);

  SdfgBuilder b(ctx);
  std::string lo = b.transient("lo", ct, {}), hi = b.transient("hi", ct, {});
  std::string sc = b.transient("scale", ct, {}), zp = b.transient("zero_point", ct, {});
  b.mappedTasklet("init", {}, {}, "l = " + ew::literal(0, ct) + "; h = " + ew::literal(0, ct), {{"l", lo, "", ""}, {"h", hi, "", ""}});
  b.nextState("range");
  b.mappedTasklet("range", fullRangeParams(xs), {{"x", "x", indexList(r)}}, "l = " + x + "; h = " + x,
                  {{"l", lo, "", "min"}, {"h", hi, "", "max"}});
  b.nextState("parameters");
  b.mappedTasklet("parameters", {}, {{"l", lo, ""}, {"h", hi, ""}},
                  "let s = (h == l ? " + ew::literal(1, ct) + " : h - l) / " + ew::literal(255, ct) + "; "
                  "let z = round(min(max(" + ew::literal(0, ct) + " - l / s, " + ew::literal(0, ct) + "), " + ew::literal(255, ct) + ")); "
                  "so = s; zo = z; ys = " + ew::convert("s", ct, st) + "; yz = " + saturate("z", zt),
                  {{"so", sc, "", ""}, {"zo", zp, "", ""}, {"ys", "y_scale", "", ""}, {"yz", "y_zero_point", "", ""}});
  b.nextState("quantize");
  b.mappedTasklet("quantize", fullRangeParams(xs), {{"x", "x", indexList(r)}, {"s", sc, ""}, {"z", zp, ""}},
                  "y = " + saturate("round(" + x + " / s) + z", yt), {{"y", "y", indexList(r), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Integer matrix products

struct MatMulNames {
  std::string a, b, azp, bzp, y; // connectors of the node
};

struct MatMulIdx {
  std::vector<MapParam> params; // over the output, then k
  std::string ai, bi, yi;       // subsets
  std::string row, col;         // the output's row / column map index ("" when the dim is dropped)
};

Expected<MatMulIdx> matmulIndex(const ExpansionContext& ctx, const MatMulNames& n, const Shape& ys) {
  DCW_TRY(auto A, th::needIn(ctx, n.a));
  DCW_TRY(auto B, th::needIn(ctx, n.b));
  const Shape &as = A->shape, &bs = B->shape;
  size_t ra = as.size(), rb = bs.size(), ry = ys.size();
  if (ra == 0 || rb == 0) return ctx.error("the operands must have rank >= 1");
  size_t extra = (ra > 1) + (rb > 1);
  if (ry < extra) return ctx.error("the output rank does not fit the operands");
  size_t nb = ry - extra;
  MatMulIdx m;
  m.params = fullRangeParams(ys);
  m.params.push_back({"k", ir::Range::full(as[ra - 1])});
  auto batch = [&](const Shape& s, size_t r) {
    std::vector<std::string> idx;
    size_t bd = r >= 2 ? r - 2 : 0;
    for (size_t j = 0; j < bd; ++j) {
      size_t yd = nb - bd + j;
      idx.push_back(s[j] == Expr(1) && ys[yd] != Expr(1) ? "0" : "i" + std::to_string(yd));
    }
    return idx;
  };
  std::vector<std::string> ai = batch(as, ra), bi = batch(bs, rb);
  if (ra > 1) {
    m.row = "i" + std::to_string(nb);
    ai.push_back(m.row);
  }
  ai.push_back("k");
  bi.push_back("k");
  if (rb > 1) {
    m.col = "i" + std::to_string(ry - 1);
    bi.push_back(m.col);
  }
  m.ai = join(ai);
  m.bi = join(bi);
  m.yi = indexList(ry);
  return m;
}

// Writes sum_k (a - azp) * (b - bzp) into the int32 container `acc` (zero fill, then WCR sum).
Expected<void> integerProduct(SdfgBuilder& b, const ExpansionContext& ctx, const MatMulNames& n, const std::string& acc) {
  const Shape& ys = b.data(acc).shape;
  DCW_TRY(auto m, matmulIndex(ctx, n, ys));
  ew::fill(b, "zero", acc, ew::literal(0, b.data(acc).dtype));
  b.nextState("product");
  std::vector<TaskletIn> ins{{"a", n.a, m.ai}, {"b", n.b, m.bi}};
  DCW_TRY(auto az, readParam(ctx, ins, n.azp, "az", m.row, "per row", "0"));
  DCW_TRY(auto bz, readParam(ctx, ins, n.bzp, "bz", m.col, "per column", "0"));
  b.mappedTasklet("product", m.params, ins, "y = (int64(a) - int64(" + az + ")) * (int64(b) - int64(" + bz + "))",
                  {{"y", acc, m.yi, "sum"}});
  return {};
}

Result expandMatMulInteger(const ExpansionContext& ctx) {
  DCW_CHECK(th::needOut(ctx, "Y"));
  SdfgBuilder b(ctx);
  DCW_CHECK(integerProduct(b, ctx, {"A", "B", "a_zero_point", "b_zero_point", "Y"}, "Y"));
  return b.finish();
}

Result expandQLinearMatMul(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  for (const char* c : {"a_scale", "b_scale", "y_scale"})
    if (!ctx.hasIn(c)) return ctx.error(std::string(c) + " must be connected");
  DType yt = Y->dtype;
  if (!qrange(yt)) return ctx.error("the output type must be a quantized integer type");
  const Shape& ys = Y->shape;
  MatMulNames n{"a", "b", "a_zero_point", "b_zero_point", "y"};
  DCW_TRY(auto m, matmulIndex(ctx, n, ys));
  SdfgBuilder b(ctx);
  std::string acc = b.transient("acc", DType::Int32, ys);
  DCW_CHECK(integerProduct(b, ctx, n, acc));
  b.nextState("requantize");
  std::vector<TaskletIn> ins{{"acc", acc, m.yi}};
  DCW_CHECK(readParam(ctx, ins, "a_scale", "as", m.row, "per row", ""));
  DCW_CHECK(readParam(ctx, ins, "b_scale", "bs", m.col, "per column", ""));
  DCW_CHECK(readParam(ctx, ins, "y_scale", "ys", "", "", ""));
  DCW_TRY(auto yz, readParam(ctx, ins, "y_zero_point", "yz", "", "", "0"));
  std::string code = "let f = float32(as) * float32(bs) / float32(ys); "
                     "y = " + saturate("round(float64(acc) * float64(f) + float64(" + yz + "))", yt);
  b.mappedTasklet("requantize", fullRangeParams(ys), ins, code, {{"y", "y", m.yi, ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Integer convolutions

// The Conv map nest of (x - xzp) * (w - wzp) accumulated (WCR sum) into `acc` [N, M, O..], which the
// caller has filled. `xzp`/`wzp` name the zero-point connectors ("" when absent).
Expected<void> integerConv(SdfgBuilder& b, const ExpansionContext& ctx, const std::string& acc, const std::string& xzp,
                           const std::string& wzp) {
  DCW_TRY(auto X, th::needIn(ctx, "x"));
  DCW_TRY(auto W, th::needIn(ctx, "w"));
  const Shape &xs = X->shape, &ws = W->shape, &ys = b.data(acc).shape;
  size_t r = xs.size();
  if (r < 3 || ws.size() != r || ys.size() != r) return ctx.error("x, w and y must have the same rank >= 3 (N, C, spatial dims)");
  size_t nd = r - 2;
  std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
  if (kernel.empty())
    for (size_t k = 0; k < nd; ++k) {
      auto v = ws[k + 2].constantValue();
      if (!v) return ctx.error("the kernel extent is symbolic", "give w a static shape or set kernel_shape");
      kernel.push_back(*v);
    }
  auto w = th::window(ctx, kernel, Shape(xs.begin() + 2, xs.end()), Shape(ys.begin() + 2, ys.end()));
  if (!w) return w.takeError();
  int64_t group = ctx.attrInt("group", 1);
  if (group < 1) return ctx.error("group must be >= 1");
  Expr Cg = ws[1], M = ws[0];
  Expr Mg = group == 1 ? M : sym::floorDiv(M, group);

  std::vector<MapParam> params{{"n", ir::Range::full(ys[0])}, {"m", ir::Range::full(ys[1])}};
  for (size_t d = 0; d < nd; ++d) params.push_back({"o" + std::to_string(d), ir::Range::full(ys[d + 2])});
  params.push_back({"c", ir::Range::full(Cg)});
  for (size_t d = 0; d < nd; ++d) params.push_back({"k" + std::to_string(d), ir::Range::full(kernel[d])});
  Expr m = Expr::symbol("m"), c = Expr::symbol("c");
  std::vector<std::string> xi{"n", (group == 1 ? c : sym::floorDiv(m, Mg) * Cg + c).str()};
  std::vector<std::string> wi{"m", "c"}, yi{"n", "m"}, conds;
  for (size_t d = 0; d < nd; ++d) {
    std::string ds = std::to_string(d);
    Expr pos = Expr::symbol("o" + ds) * w->strides[d] + Expr::symbol("k" + ds) * w->dilations[d] - w->padBegin[d];
    Expr in = xs[d + 2];
    if (!(w->padBegin[d] == Expr(0) && w->padEnd[d] == Expr(0))) {
      xi.push_back(sym::min(sym::max(pos, Expr(0)), in - 1).str());
      std::string p = th::par(pos);
      conds.push_back(p + " >= 0 && " + p + " < " + th::par(in));
    } else {
      xi.push_back(pos.str());
    }
    wi.push_back("k" + ds);
    yi.push_back("o" + ds);
  }
  std::vector<TaskletIn> ins{{"x", "x", join(xi)}, {"w", "w", join(wi)}};
  DCW_TRY(auto xz, readParam(ctx, ins, xzp, "xz", "", "", "0"));
  DCW_TRY(auto wz, readParam(ctx, ins, wzp, "wz", "m", "per output channel", "0"));
  std::string v = "(int64(x) - int64(" + xz + ")) * (int64(w) - int64(" + wz + "))";
  if (!conds.empty()) {
    std::string cond = join(conds, " && ");
    if (cond.find('%') != std::string::npos) // a floor modulo of dims, which tasklet code's % is not
      return ctx.error("symbolic padding with auto_pad on symbolic spatial dims is not supported", "give the input static spatial dims");
    v = "select(" + cond + ", " + v + ", 0)";
  }
  b.mappedTasklet("conv", params, ins, "y = " + v, {{"y", acc, join(yi), "sum"}});
  return {};
}

Result expandConvInteger(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  SdfgBuilder b(ctx);
  ew::fill(b, "zero", "y", ew::literal(0, Y->dtype));
  b.nextState("conv");
  DCW_CHECK(integerConv(b, ctx, "y", "x_zero_point", "w_zero_point"));
  return b.finish();
}

Result expandQLinearConv(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, th::needOut(ctx, "y"));
  for (const char* c : {"x_scale", "w_scale", "y_scale"})
    if (!ctx.hasIn(c)) return ctx.error(std::string(c) + " must be connected");
  DType yt = Y->dtype;
  if (!qrange(yt)) return ctx.error("the output type must be a quantized integer type");
  const Shape& ys = Y->shape;
  size_t r = ys.size();
  if (r < 3) return ctx.error("y must have rank >= 3 (N, M, spatial dims)");
  SdfgBuilder b(ctx);
  std::string acc = b.transient("acc", DType::Int32, ys);
  if (ctx.hasIn("B"))
    b.mappedTasklet("bias", fullRangeParams(ys), {{"bias", "B", "i1"}}, "a = int32(bias)", {{"a", acc, indexList(r), ""}});
  else
    ew::fill(b, "zero", acc, "int32(0)");
  b.nextState("conv");
  DCW_CHECK(integerConv(b, ctx, acc, "x_zero_point", "w_zero_point"));
  b.nextState("requantize");
  std::vector<TaskletIn> ins{{"acc", acc, indexList(r)}};
  DCW_CHECK(readParam(ctx, ins, "x_scale", "xs", "", "", ""));
  DCW_CHECK(readParam(ctx, ins, "w_scale", "ws", "i1", "per output channel", ""));
  DCW_CHECK(readParam(ctx, ins, "y_scale", "ys", "", "", ""));
  DCW_TRY(auto yz, readParam(ctx, ins, "y_zero_point", "yz", "", "", "0"));
  std::string code = "let f = float32(xs) * float32(ws) / float32(ys); "
                     "y = " + saturate("round(float64(acc) * float64(f) + float64(" + yz + "))", yt);
  b.mappedTasklet("requantize", fullRangeParams(ys), ins, code, {{"y", "y", indexList(r), ""}});
  return b.finish();
}

} // namespace

void registerQuantization(ExpansionRegistry& r) {
  r.add("", "QuantizeLinear", "pure", expandQuantize, "y = saturate(round(x / scale) + zero_point), per tensor or per axis");
  r.add("", "DequantizeLinear", "pure", expandDequantize, "y = (x - zero_point) * scale, per tensor or per axis");
  r.add("", "DynamicQuantizeLinear", "pure", expandDynamicQuantize,
        "WCR min/max of x (with 0), uint8 scale and zero point, then quantize");
  r.add("", "MatMulInteger", "pure", expandMatMulInteger, "int32 map over output and K with WCR sum of zero-point-shifted products");
  r.add("", "QLinearMatMul", "pure", expandQLinearMatMul, "integer product (WCR sum) into an int32 transient, then requantize");
  r.add("", "ConvInteger", "pure", expandConvInteger, "Conv map nest with WCR sum of zero-point-shifted products");
  r.add("", "QLinearConv", "pure", expandQLinearConv, "integer Conv map nest (+ B) into an int32 transient, then requantize");
}

} // namespace dcw::expansions
