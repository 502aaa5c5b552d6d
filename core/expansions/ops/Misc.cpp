// Pure expansions of assorted ops (see Ops.h):
//
//   HannWindow / HammingWindow / BlackmanWindow   size (int scalar) -> y [size] (output_datatype)
//       with N = size (periodic, default) or size - 1 (periodic = 0), computed in float64:
//       Hann      y[i] = 0.5 - 0.5 cos(2 pi i / N)
//       Hamming   y[i] = 25/46 - 21/46 cos(2 pi i / N)
//       Blackman  y[i] = 0.42 - 0.5 cos(2 pi i / N) + 0.08 cos(4 pi i / N)
//       The extent of y comes from the output descriptor (shape inference / the model's declared output);
//       `size` is read as data.
//   Det        X [.., M, M] -> Y [..]: one tasklet per matrix over an array connector [.., 0:M, 0:M], an
//              unrolled LU elimination with partial pivoting (row swaps by select) in float64.
//              Precondition: M a constant <= 8.
//   MaxUnpool  X [N, C, D..], I [N, C, D..] (MaxPool's flat indices into the unpadded output of extents
//              P = (D - 1) * stride - pads + kernel), output_shape? -> output [N, C, O..] (O >= P; positions
//              past P stay 0). A map over output positions and kernel offsets reads the input element whose
//              window covers the position (index clamp((o + pad - k) // stride)); where its index equals the
//              position's flat index the value is taken (WCR max into a transient, with a WCR max hit flag),
//              then output = hit ? value : 0. Precondition: indices point into the element's own window
//              (as MaxPool's do).
//   RoiAlign   X [N, C, H, W], rois [R, 4], batch_indices [R] -> Y [R, C, OH, OW]: a map over Y and the
//              sampling grid (sampling_ratio^2 points per bin) with WCR sum (avg: bilinear sample / count)
//              or WCR max (max: the largest weighted corner, as the ONNX reference). X is read through an
//              array connector [0:N, c, 0:H, 0:W] at the data-dependent batch index and corners.
//              coordinate_transformation_mode half_pixel (default from opset 16) or output_half_pixel.
//              Precondition: sampling_ratio > 0 (adaptive sampling makes the sample count data-dependent).
//   GridSample X [N, C, H, W], grid [N, OH, OW, 2] -> Y [N, C, OH, OW]: a map over Y; the tasklet reads
//              grid[n, h, w, 0:2] and X[n, c, 0:H, 0:W] as array connectors and interpolates (nearest:
//              round half to even; bilinear/linear: 2x2; bicubic/cubic: 4x4 Keys with A = -0.75), padding
//              zeros / border (clamp) / reflection, align_corners. Precondition: 2-D spatial.
//   DFT        input [.., L (axis), .., 1|2] (real, or real/imaginary pairs), dft_length? -> output
//              [.., K, .., 2]: a map over the output positions and the signal index j < min(L, n) with
//              WCR sum into a float64 transient of x[j] * e^(-+2 pi i j k / n) (the angle from (j k) mod n),
//              then a map that casts (and divides by n for inverse). n = dft_length (a constant) or the
//              axis extent; K = n, or n // 2 + 1 when onesided.
//   STFT       signal [B, L, 1|2], frame_step, window [n]?, frame_length? -> output [B, F, K, 2]: as DFT
//              over frames: y[b, f, k] = sum_j x[b, f * step + j] w[j] e^(-2 pi i j k / n) (signal past L
//              reads 0). frame_step and frame_length are read as data; the j range is n when the window
//              or a constant frame_length gives it, else 2K - 1 (onesided) or K, masked by j < n.
//   MelWeightMatrix  num_mel_bins, dft_length, sample_rate, lower/upper_edge_hertz -> output [K, M]: a map
//              over the output computing the triangular filter of bin i at frequency bin j from the
//              mel-spaced edges (the ONNX reference's arithmetic; edges in float32, bins in float64).
//
// Preconditions: ranks known.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <tuple>

namespace dcw::expansions {

namespace {

using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;
using th::join;
using th::Shape;

constexpr const char* kPi = "3.141592653589793";

// ---------------------------------------------------------------------------------------------
// Windows

enum class Window { Hann, Hamming, Blackman };

Result expandWindow(const ExpansionContext& ctx, Window kind) {
  DCW_CHECK(th::needIn(ctx, "size"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (Y->shape.size() != 1) return ctx.error("the output must be 1-D");
  DType yt = Y->dtype;
  bool periodic = ctx.attrInt("periodic", 1) != 0;
  std::string n = periodic ? "float64(sz)" : "(float64(sz) - 1.0)";
  std::string ph = "(2.0 * " + std::string(kPi) + " * float64(i0) / " + n + ")";
  std::string v;
  switch (kind) {
  case Window::Hann: v = "0.5 - 0.5 * cos" + ph; break;
  case Window::Hamming: v = "(25.0 / 46.0) - (21.0 / 46.0) * cos" + ph; break;
  case Window::Blackman: v = "0.42 - 0.5 * cos" + ph + " + 0.08 * cos(2.0 * " + ph + ")"; break;
  }
  SdfgBuilder b(ctx);
  b.mappedTasklet("window", fullRangeParams(Y->shape), {{"sz", "size", ""}}, "y = " + ew::castTo(yt, v),
                  {{"y", "output", "i0", ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Det

Result expandDet(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const Shape& xs = X->shape;
  size_t r = xs.size();
  if (r < 2) return ctx.error("X must have rank >= 2 ([.., M, M])");
  auto mv = xs[r - 1].constantValue();
  if (!mv || xs[r - 2].constantValue() != mv) return ctx.error("the matrices must be square with a constant size");
  int64_t M = *mv;
  if (M < 1 || M > 8) return ctx.error("Det of " + std::to_string(M) + "x" + std::to_string(M) + " matrices is not supported (1..8)");
  if (Y->shape.size() != r - 2) return ctx.error("Y must have rank " + std::to_string(r - 2));
  DType yt = Y->dtype;
  auto a = [](int64_t k, int64_t i, int64_t j) { return "a" + std::to_string(k) + "_" + std::to_string(i) + "_" + std::to_string(j); };
  auto s = [](int64_t k, int64_t i, int64_t j) { return "s" + std::to_string(k) + "_" + std::to_string(i) + "_" + std::to_string(j); };
  auto n = [](const std::string& base, int64_t k) { return base + std::to_string(k); };
  std::string code;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < M; ++j)
      code += "let " + a(0, i, j) + " = float64(" + (M == 1 ? std::string("p") : "p[" + std::to_string(i * M + j) + "]") + "); ";
  code += "let sg0 = 1.0; let d0 = 1.0; ";
  for (int64_t k = 0; k + 1 < M; ++k) {
    std::string ks = std::to_string(k);
    // Pivot: the row r >= k with the largest |a[r][k]| (the first on ties).
    code += "let pv" + ks + "_" + ks + " = abs(" + a(k, k, k) + "); let pi" + ks + "_" + ks + " = " + ks + "; ";
    for (int64_t i = k + 1; i < M; ++i) {
      std::string prev = ks + "_" + std::to_string(i - 1), cur = ks + "_" + std::to_string(i);
      std::string v = "abs(" + a(k, i, k) + ")";
      code += "let pv" + cur + " = " + v + " > pv" + prev + " ? " + v + " : pv" + prev + "; ";
      code += "let pi" + cur + " = " + v + " > pv" + prev + " ? " + std::to_string(i) + " : pi" + prev + "; ";
    }
    std::string P = "pi" + ks + "_" + std::to_string(M - 1);
    // Swap rows k and P.
    for (int64_t j = k; j < M; ++j) {
      std::string pivotRow = a(k, k, j);
      for (int64_t i = M - 1; i > k; --i) pivotRow = "(" + P + " == " + std::to_string(i) + " ? " + a(k, i, j) + " : " + pivotRow + ")";
      code += "let " + s(k, k, j) + " = " + pivotRow + "; ";
      for (int64_t i = k + 1; i < M; ++i)
        code += "let " + s(k, i, j) + " = " + P + " == " + std::to_string(i) + " ? " + a(k, k, j) + " : " + a(k, i, j) + "; ";
    }
    code += "let " + n("sg", k + 1) + " = " + P + " == " + ks + " ? " + n("sg", k) + " : -" + n("sg", k) + "; ";
    code += "let " + n("d", k + 1) + " = " + n("d", k) + " * " + s(k, k, k) + "; ";
    code += "let " + n("inv", k) + " = " + s(k, k, k) + " != 0.0 ? 1.0 / " + s(k, k, k) + " : 0.0; ";
    for (int64_t i = k + 1; i < M; ++i)
      for (int64_t j = k + 1; j < M; ++j)
        code += "let " + a(k + 1, i, j) + " = " + s(k, i, j) + " - " + s(k, i, k) + " * " + n("inv", k) + " * " + s(k, k, j) + "; ";
  }
  code += "y = " + ew::castTo(yt, n("sg", M - 1) + " * " + n("d", M - 1) + " * " + a(M - 1, M - 1, M - 1));
  std::vector<std::string> xi;
  for (size_t k = 0; k + 2 < r; ++k) xi.push_back("i" + std::to_string(k));
  xi.push_back("0:" + std::to_string(M));
  xi.push_back("0:" + std::to_string(M));
  SdfgBuilder b(ctx);
  b.mappedTasklet("det", fullRangeParams(Y->shape), {{"p", "X", join(xi)}}, code, {{"y", "Y", indexList(r - 2), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// MaxUnpool

Result expandMaxUnpool(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto I, th::needIn(ctx, "I"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  const Shape &xs = X->shape, &ys = Y->shape;
  size_t r = xs.size();
  if (r < 3 || ys.size() != r || I->shape.size() != r) return ctx.error("X, I and the output must have the same rank >= 3");
  size_t nd = r - 2;
  auto kernel = ctx.attrInts("kernel_shape");
  if (kernel.size() != nd) return ctx.error("kernel_shape must have one value per spatial dim");
  auto strides = ctx.attrInts("strides", std::vector<int64_t>(nd, 1));
  if (strides.empty()) strides.assign(nd, 1);
  auto pads = ctx.attrInts("pads", std::vector<int64_t>(2 * nd, 0));
  if (pads.empty()) pads.assign(2 * nd, 0);
  if (strides.size() != nd || pads.size() != 2 * nd) return ctx.error("strides/pads do not match the spatial dims");
  DType yt = Y->dtype, ct = ew::computeType(yt);

  // Extents MaxPool's indices refer to.
  Shape P;
  for (size_t d = 0; d < nd; ++d) P.push_back((xs[d + 2] - 1) * strides[d] - pads[d] - pads[d + nd] + kernel[d]);
  std::vector<MapParam> params{{"n", ir::Range::full(ys[0])}, {"c", ir::Range::full(ys[1])}};
  for (size_t d = 0; d < nd; ++d) params.push_back({"o" + std::to_string(d), ir::Range::full(ys[d + 2])});
  for (size_t d = 0; d < nd; ++d) params.push_back({"k" + std::to_string(d), ir::Range::full(kernel[d])});
  std::vector<std::string> xi{"n", "c"}, yi{"n", "c"}, inside;
  Expr flat = Expr::symbol("n") * xs[1] + Expr::symbol("c");
  for (size_t d = 0; d < nd; ++d) {
    std::string ds = std::to_string(d);
    Expr o = Expr::symbol("o" + ds);
    Expr q = sym::floorDiv(o + pads[d] - Expr::symbol("k" + ds), Expr(strides[d]));
    xi.push_back(sym::min(sym::max(q, Expr(0)), xs[d + 2] - 1).str());
    yi.push_back("o" + ds);
    flat = flat * P[d] + o;
    if (!(ys[d + 2] == P[d])) inside.push_back("o" + ds + " < " + th::par(P[d]));
  }
  std::string f = flat.str();
  std::string cond = "int64(ind) == " + th::par(flat);
  for (auto& c : inside) cond += " && " + c;
  if (cond.find('%') != std::string::npos) // a floor modulo of dims, which tasklet code's % is not
    return ctx.error("symbolic extents that need division are not supported", "give the input static spatial dims");

  SdfgBuilder b(ctx);
  std::string val = b.transient("value", ct, ys), hit = b.transient("hit", DType::Int64, ys);
  b.mappedTasklet("init", fullRangeParams(ys), {}, "v = " + ew::lowest(ct) + "; h = int64(0)",
                  {{"v", val, indexList(r), ""}, {"h", hit, indexList(r), ""}});
  b.nextState("scatter");
  b.mappedTasklet("unpool", params, {{"x", "X", join(xi)}, {"ind", "I", join(xi)}},
                  "let m = " + cond + "; v = m ? " + ew::convert("x", ew::computeType(X->dtype), ct) + " : " + ew::lowest(ct) +
                      "; h = m ? int64(1) : int64(0)",
                  {{"v", val, join(yi), "max"}, {"h", hit, join(yi), "max"}});
  b.nextState("output");
  b.mappedTasklet("output", fullRangeParams(ys), {{"v", val, indexList(r)}, {"h", hit, indexList(r)}},
                  "y = " + ew::convert("h > 0 ? v : " + ew::literal(0, ct), ct, yt), {{"y", "output", indexList(r), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// RoiAlign

Result expandRoiAlign(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto R, th::needIn(ctx, "rois"));
  DCW_CHECK(th::needIn(ctx, "batch_indices"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const Shape &xs = X->shape, &ys = Y->shape;
  if (xs.size() != 4 || ys.size() != 4 || R->shape.size() != 2) return ctx.error("X and Y must be 4-D, rois 2-D");
  int64_t sr = ctx.attrInt("sampling_ratio", 0);
  if (sr <= 0)
    return ctx.error("sampling_ratio 0 (adaptive) makes the number of samples data-dependent",
                     "set sampling_ratio > 0 in the model");
  std::string mode = ctx.attrString("mode", "avg");
  if (mode != "avg" && mode != "max") return ctx.error("mode '" + mode + "' is not avg or max");
  std::string ctm = ctx.attrString("coordinate_transformation_mode", ctx.node().opsetVersion >= 16 ? "half_pixel" : "output_half_pixel");
  bool half = ctm == "half_pixel";
  double scale = ctx.attrFloat("spatial_scale", 1.0);
  DType yt = Y->dtype, ct = ew::computeType(yt);
  auto L = [&](double v) { return ew::literal(v, ct); };
  auto cv = [&](const std::string& e) { return ew::castTo(ct, e); };
  Expr H = xs[2], W = xs[3];
  std::string Hs = th::par(H), Ws = th::par(W), Ns = th::par(xs[0]);
  std::string plane = th::par(xs[1] * H * W);

  std::vector<MapParam> params = fullRangeParams(ys);
  params.push_back({"iy", ir::Range::full(sr)});
  params.push_back({"ix", ir::Range::full(sr)});
  std::string G = L(double(sr));
  std::string code;
  auto roi = [&](int k) { return cv("roi[" + std::to_string(k) + "]") + " * " + L(scale) + " - " + L(half ? 0.5 : 0.0); };
  code += "let x0 = " + roi(0) + "; let y0 = " + roi(1) + "; let x1 = " + roi(2) + "; let y1 = " + roi(3) + "; ";
  if (half) code += "let rw = x1 - x0; let rh = y1 - y0; ";
  else code += "let rw = max(x1 - x0, " + L(1) + "); let rh = max(y1 - y0, " + L(1) + "); ";
  code += "let bh = rh / " + cv(th::par(ys[2])) + "; let bw = rw / " + cv(th::par(ys[3])) + "; ";
  code += "let yy = y0 + " + cv("i2") + " * bh + (" + cv("iy") + " + " + L(0.5) + ") * bh / " + G + "; ";
  code += "let xx = x0 + " + cv("i3") + " * bw + (" + cv("ix") + " + " + L(0.5) + ") * bw / " + G + "; ";
  code += "let outside = yy < " + L(-1) + " || yy > " + cv(Hs) + " || xx < " + L(-1) + " || xx > " + cv(Ws) + "; ";
  code += "let yc = max(yy, " + L(0) + "); let xc = max(xx, " + L(0) + "); ";
  code += "let yl0 = int64(floor(yc)); let xl0 = int64(floor(xc)); ";
  code += "let ylow = min(yl0, " + Hs + " - 1); let xlow = min(xl0, " + Ws + " - 1); ";
  code += "let yhigh = min(yl0 + 1, " + Hs + " - 1); let xhigh = min(xl0 + 1, " + Ws + " - 1); ";
  code += "let ly = yl0 >= " + Hs + " - 1 ? " + L(0) + " : yc - " + cv("yl0") + "; ";
  code += "let lx = xl0 >= " + Ws + " - 1 ? " + L(0) + " : xc - " + cv("xl0") + "; ";
  code += "let hy = " + L(1) + " - ly; let hx = " + L(1) + " - lx; ";
  code += "let bi = min(max(int64(b), 0), " + Ns + " - 1); let base = bi * " + plane + "; ";
  auto px = [&](const std::string& yv, const std::string& xv) {
    return cv("xp[base + " + yv + " * " + Ws + " + " + xv + "]");
  };
  code += "let v1 = hy * hx * " + px("ylow", "xlow") + "; let v2 = hy * lx * " + px("ylow", "xhigh") + "; ";
  code += "let v3 = ly * hx * " + px("yhigh", "xlow") + "; let v4 = ly * lx * " + px("yhigh", "xhigh") + "; ";
  std::string wcr;
  if (mode == "avg") {
    code += "y = outside ? " + L(0) + " : (v1 + v2 + v3 + v4) / " + L(double(sr * sr));
    wcr = "sum";
  } else {
    code += "y = outside ? " + L(0) + " : max(max(v1, v2), max(v3, v4))";
    wcr = "max";
  }

  SdfgBuilder b(ctx);
  std::string acc = b.transient("acc", ct, ys);
  ew::fill(b, "init", acc, mode == "avg" ? L(0) : ew::lowest(ct));
  b.nextState("sample");
  b.mappedTasklet("roi_align", params,
                  {{"roi", "rois", "i0, 0:4"}, {"b", "batch_indices", "i0"}, {"xp", "X", "0:" + xs[0].str() + ", i1, 0:" + H.str() + ", 0:" + W.str()}},
                  code, {{"y", acc, "i0, i1, i2, i3", wcr}});
  b.nextState("output");
  b.mappedTasklet("output", fullRangeParams(ys), {{"a", acc, indexList(4)}}, "y = " + ew::convert("a", ct, yt), {{"y", "Y", indexList(4), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// GridSample

// Tasklet code that reflects float `v` into [lo, hi] (ONNX's _gs_reflect); defines local `out`.
std::string reflect(const std::string& out, const std::string& v, const std::string& lo, const std::string& hi, const std::string& one) {
  std::string p = out + "_";
  return "let " + p + "rng = " + hi + " - " + lo + "; "
         "let " + p + "dl = " + lo + " - " + v + "; let " + p + "dh = " + v + " - " + hi + "; "
         "let " + p + "nl = int64(" + p + "dl / " + p + "rng); let " + p + "nh = int64(" + p + "dh / " + p + "rng); "
         "let " + p + "rl = " + p + "dl - " + one + "(" + p + "nl) * " + p + "rng; "
         "let " + p + "rh = " + p + "dh - " + one + "(" + p + "nh) * " + p + "rng; "
         "let " + out + " = " + v + " < " + lo + " ? (" + p + "nl % 2 == 0 ? " + lo + " + " + p + "rl : " + hi + " - " + p + "rl) : "
         "(" + v + " > " + hi + " ? (" + p + "nh % 2 == 0 ? " + hi + " - " + p + "rh : " + lo + " + " + p + "rh) : " + v + "); ";
}

Result expandGridSample(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Gd, th::needIn(ctx, "grid"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const Shape &xs = X->shape, &ys = Y->shape;
  if (xs.size() != 4 || ys.size() != 4 || Gd->shape.size() != 4)
    return ctx.error("only 2-D GridSample (4-D X and grid) is supported");
  std::string mode = ctx.attrString("mode", ctx.node().opsetVersion >= 20 ? "linear" : "bilinear");
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  if (mode != "linear" && mode != "cubic" && mode != "nearest") return ctx.error("mode '" + mode + "' is not supported");
  std::string pad = ctx.attrString("padding_mode", "zeros");
  if (pad != "zeros" && pad != "border" && pad != "reflection") return ctx.error("padding_mode '" + pad + "' is not supported");
  bool align = ctx.attrInt("align_corners", 0) != 0;
  DType yt = Y->dtype, ct = ew::computeType(yt);
  std::string tn = ew::typeName(ct);
  auto L = [&](double v) { return ew::literal(v, ct); };
  auto cv = [&](const std::string& e) { return ew::castTo(ct, e); };
  std::string Hs = th::par(xs[2]), Ws = th::par(xs[3]);

  std::string code;
  // Denormalized coordinates (x along W from grid[..., 0], y along H from grid[..., 1]).
  auto denorm = [&](const std::string& out, const std::string& g, const std::string& D) {
    if (align) return "let " + out + " = (" + cv(g) + " + " + L(1) + ") / " + L(2) + " * (" + cv(D) + " - " + L(1) + "); ";
    return "let " + out + " = ((" + cv(g) + " + " + L(1) + ") * " + cv(D) + " - " + L(1) + ") / " + L(2) + "; ";
  };
  code += denorm("fx", "g[0]", Ws) + denorm("fy", "g[1]", Hs);
  auto lo = [&](const std::string&) { return align ? L(0) : L(-0.5); };
  auto hi = [&](const std::string& D) { return align ? "(" + cv(D) + " - " + L(1) + ")" : "(" + cv(D) + " - " + L(0.5) + ")"; };
  if (mode == "nearest") code += "let rx = round(fx); let ry = round(fy); ";
  else code += "let rx = fx; let ry = fy; ";
  // Out-of-border coordinates: clamp (border) or reflect (reflection).
  for (auto [v, D, out] : {std::tuple<std::string, std::string, std::string>{"rx", Ws, "cx"}, {"ry", Hs, "cy"}}) {
    if (pad == "border")
      code += "let " + out + " = " + v + " < " + lo(D) + " || " + v + " > " + hi(D) + " ? min(max(" + v + ", " + L(0) + "), " + cv(D) +
              " - " + L(1) + ") : " + v + "; ";
    else if (pad == "reflection") code += reflect(out, v, lo(D), hi(D), tn);
    else code += "let " + out + " = " + v + "; ";
  }
  // Pixel index `i` (int) along a dim of extent D: the clamped index and whether it is inside (zeros).
  auto index = [&](const std::string& out, const std::string& i, const std::string& D) {
    std::string s;
    if (pad == "reflection") {
      s += reflect(out + "_r", cv(i), lo(D), hi(D), tn);
      s += "let " + out + " = min(max(int64(" + out + "_r), 0), " + D + " - 1); let " + out + "_in = true; ";
    } else {
      s += "let " + out + " = min(max(" + i + ", 0), " + D + " - 1); ";
      s += "let " + out + "_in = " + (pad == "zeros" ? i + " >= 0 && " + i + " < " + D : std::string("true")) + "; ";
    }
    return s;
  };
  auto pixel = [&](const std::string& yi, const std::string& xi) {
    return "(" + yi + "_in && " + xi + "_in ? " + cv("xp[" + yi + " * " + Ws + " + " + xi + "]") + " : " + L(0) + ")";
  };
  std::string value;
  if (mode == "nearest") {
    code += "let nx = int64(cx); let ny = int64(cy); ";
    code += index("px", "nx", Ws) + index("py", "ny", Hs);
    value = pixel("py", "px");
  } else {
    code += "let x0 = int64(floor(cx)); let y0 = int64(floor(cy)); ";
    code += "let tx = cx - " + cv("x0") + "; let ty = cy - " + cv("y0") + "; ";
    int taps = mode == "linear" ? 2 : 4, first = mode == "linear" ? 0 : -1;
    std::vector<std::string> wx, wy;
    if (mode == "linear") {
      wx = {"(" + L(1) + " - tx)", "tx"};
      wy = {"(" + L(1) + " - ty)", "ty"};
    } else {
      // Keys cubic coefficients for t in [0, 1), A = -0.75.
      auto coeffs = [&](const std::string& t, const std::string& p) {
        std::string A = L(-0.75);
        std::string s;
        s += "let " + p + "0 = ((" + A + " * (" + t + " + " + L(1) + ") - " + L(5) + " * " + A + ") * (" + t + " + " + L(1) + ") + " + L(8) + " * " + A + ") * (" + t + " + " + L(1) + ") - " + L(4) + " * " + A + "; ";
        s += "let " + p + "1 = ((" + A + " + " + L(2) + ") * " + t + " - (" + A + " + " + L(3) + ")) * " + t + " * " + t + " + " + L(1) + "; ";
        s += "let " + p + "2 = ((" + A + " + " + L(2) + ") * (" + L(1) + " - " + t + ") - (" + A + " + " + L(3) + ")) * (" + L(1) + " - " + t + ") * (" + L(1) + " - " + t + ") + " + L(1) + "; ";
        s += "let " + p + "3 = ((" + A + " * (" + L(2) + " - " + t + ") - " + L(5) + " * " + A + ") * (" + L(2) + " - " + t + ") + " + L(8) + " * " + A + ") * (" + L(2) + " - " + t + ") - " + L(4) + " * " + A + "; ";
        return s;
      };
      code += coeffs("tx", "wx") + coeffs("ty", "wy");
      for (int k = 0; k < 4; ++k) {
        wx.push_back("wx" + std::to_string(k));
        wy.push_back("wy" + std::to_string(k));
      }
    }
    for (int k = 0; k < taps; ++k) {
      std::string off = std::to_string(k + first);
      std::string ks = std::to_string(k);
      code += index("ix" + ks, "x0 + (" + off + ")", Ws) + index("iy" + ks, "y0 + (" + off + ")", Hs);
    }
    // Rows first (along x), then along y, as the reference.
    std::vector<std::string> rows;
    for (int j = 0; j < taps; ++j) {
      std::string row;
      for (int k = 0; k < taps; ++k)
        row += (k ? " + " : "") + wx[size_t(k)] + " * " + pixel("iy" + std::to_string(j), "ix" + std::to_string(k));
      code += "let row" + std::to_string(j) + " = " + row + "; ";
    }
    for (int j = 0; j < taps; ++j) value += (j ? " + " : "") + wy[size_t(j)] + " * row" + std::to_string(j);
  }
  code += "y = " + ew::convert(value, ct, yt);
  SdfgBuilder b(ctx);
  b.mappedTasklet("grid_sample", fullRangeParams(ys),
                  {{"g", "grid", "i0, i2, i3, 0:2"}, {"xp", "X", "i0, i1, 0:" + xs[2].str() + ", 0:" + xs[3].str()}}, code,
                  {{"y", "Y", indexList(4), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// DFT, STFT, MelWeightMatrix

// Tasklet code of one term of a DFT: reads `xr`, `xi` (code), angle index `jk` (an int64 expression
// reduced mod n) and `n`; defines `re`/`im` (float64) of x * e^(sign 2 pi i jk / n).
std::string dftTerm(const std::string& xr, const std::string& xi, const std::string& jk, const std::string& n, bool inverse) {
  std::string code = "let th = 2.0 * " + std::string(kPi) + " * float64((" + jk + ") % " + n + ") / float64(" + n + "); ";
  code += "let co = cos(th); let si = sin(th); let xr_ = " + xr + "; let xi_ = " + xi + "; ";
  if (inverse) code += "let re = xr_ * co - xi_ * si; let im = xi_ * co + xr_ * si; ";
  else code += "let re = xr_ * co + xi_ * si; let im = xi_ * co - xr_ * si; ";
  return code;
}


// Zero-filled float64 accumulators of the real and imaginary parts.
std::pair<std::string, std::string> complexSums(SdfgBuilder& b, const Shape& shape) {
  std::string re = b.transient("re", DType::Float64, shape), im = b.transient("im", DType::Float64, shape);
  b.mappedTasklet("init", fullRangeParams(shape), {}, "a = 0.0; b = 0.0",
                  {{"a", re, indexList(shape.size()), ""}, {"b", im, indexList(shape.size()), ""}});
  return {re, im};
}

// out[.., 0] = re, out[.., 1] = im (divided by `div` unless empty), cast to the output type.
void complexOutput(SdfgBuilder& b, const std::string& re, const std::string& im, const std::string& out, const std::string& div) {
  const Shape& ys = b.data(out).shape;
  size_t r = ys.size();
  std::string sub = indexList(r - 1);
  std::string v = "(i" + std::to_string(r - 1) + " == 0 ? a : c)";
  if (!div.empty()) v = v + " / " + div;
  b.nextState("output");
  b.mappedTasklet("output", fullRangeParams(ys), {{"a", re, sub}, {"c", im, sub}}, "y = " + ew::castTo(b.data(out).dtype, v),
                  {{"y", out, indexList(r), ""}});
}

Result expandDft(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  const Shape &xs = X->shape, &ys = Y->shape;
  size_t r = xs.size();
  if (r < 2 || ys.size() != r) return ctx.error("input and output must have the same rank >= 2 (the last dim holds 1 or 2 components)");
  auto comps = xs[r - 1].constantValue();
  if (!comps || (*comps != 1 && *comps != 2)) return ctx.error("the last dim of the input must be 1 (real) or 2 (complex)");
  int64_t rawAxis;
  if (ctx.node().opsetVersion >= 20) {
    rawAxis = -2;
    if (ctx.hasIn("axis")) {
      DCW_TRY(auto a, th::constInts(ctx, "axis", "axis"));
      if (a.size() != 1) return ctx.error("axis must be a scalar");
      rawAxis = a[0];
    }
  } else {
    rawAxis = ctx.attrInt("axis", 1);
  }
  // A negative axis counts from the back of the full rank (the component dim included).
  int64_t axis = rawAxis < 0 ? rawAxis + int64_t(r) : rawAxis;
  if (axis < 1 || axis >= int64_t(r) - 1) return ctx.error("axis " + std::to_string(rawAxis) + " is not a signal dim");
  bool inverse = ctx.attrInt("inverse", 0) != 0, onesided = ctx.attrInt("onesided", 0) != 0;
  if (inverse && onesided) return ctx.error("inverse with onesided is not supported");
  Expr n;
  if (ctx.hasIn("dft_length")) {
    DCW_TRY(auto v, th::constInts(ctx, "dft_length", "dft_length"));
    if (v.size() != 1) return ctx.error("dft_length must be a scalar");
    n = Expr(v[0]);
  } else {
    n = xs[size_t(axis)];
  }
  Expr L = xs[size_t(axis)];
  Expr J = sym::min(L, n);
  auto params = fullRangeParams(Shape(ys.begin(), ys.end() - 1));
  params.push_back({"j", ir::Range::full(J)});
  std::vector<std::string> xi;
  for (size_t k = 0; k + 1 < r; ++k) xi.push_back(int64_t(k) == axis ? "j" : "i" + std::to_string(k));
  std::string xb = join(xi);
  std::vector<TaskletIn> ins{{"xr", "input", xb + ", 0"}};
  std::string im = "0.0";
  if (*comps == 2) {
    ins.push_back({"xi", "input", xb + ", 1"});
    im = "float64(xi)";
  }
  std::string ns = th::par(n);
  std::string code = dftTerm("float64(xr)", im, "j * i" + std::to_string(axis), ns, inverse) + "a = re; b = im";
  std::string yb = indexList(r - 1);

  SdfgBuilder b(ctx);
  auto [re, imag] = complexSums(b, Shape(ys.begin(), ys.end() - 1));
  b.nextState("dft");
  b.mappedTasklet("dft", params, ins, code, {{"a", re, yb, "sum"}, {"b", imag, yb, "sum"}});
  complexOutput(b, re, imag, "output", inverse ? "float64(" + ns + ")" : "");
  return b.finish();
}

Result expandStft(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "signal"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (!ctx.hasIn("frame_step")) return ctx.error("frame_step must be connected");
  const Shape &xs = X->shape, &ys = Y->shape;
  if (xs.size() != 3 || ys.size() != 4) return ctx.error("signal must be [batch, length, 1|2] and output [batch, frames, bins, 2]");
  auto comps = xs[2].constantValue();
  if (!comps || (*comps != 1 && *comps != 2)) return ctx.error("the last dim of the signal must be 1 (real) or 2 (complex)");
  bool onesided = ctx.attrInt("onesided", 1) != 0;
  bool hasWindow = ctx.hasIn("window"), hasLength = ctx.hasIn("frame_length");
  if (hasWindow && ctx.in("window")->shape.size() != 1) return ctx.error("window must be 1-D");
  // The frame length n: as code (runtime) and, where known, as an extent.
  std::optional<Expr> nKnown;
  std::string n;
  if (hasLength) {
    n = "int64(fl)";
    if (auto v = ctx.constantInts("frame_length"); v && v->size() == 1) nKnown = Expr((*v)[0]);
  } else if (hasWindow) {
    nKnown = ctx.in("window")->shape[0];
  } else {
    nKnown = xs[1];
  }
  if (nKnown) n = th::par(*nKnown);
  Expr K = ys[2];
  Expr J = nKnown ? *nKnown : (onesided ? K * 2 - 1 : K);
  Expr Lx = xs[1];
  std::vector<MapParam> params{{"i0", ir::Range::full(ys[0])}, {"i1", ir::Range::full(ys[1])}, {"i2", ir::Range::full(ys[2])},
                               {"j", ir::Range::full(J)}};
  std::vector<TaskletIn> ins{{"x", "signal", "i0, 0:" + Lx.str() + ", 0:" + std::to_string(*comps)}, {"st", "frame_step", ""}};
  if (hasLength) ins.push_back({"fl", "frame_length", ""});
  std::string code = "let pos = i1 * int64(st) + j; let ok = pos < " + th::par(Lx) + (nKnown ? "" : " && j < " + n) + "; ";
  code += "let p = ok ? pos : 0; ";
  std::string w = "1.0";
  if (hasWindow) {
    Expr wl = ctx.in("window")->shape[0];
    ins.push_back({"w", "window", "0:" + wl.str()});
    std::string wj = nKnown ? "j" : "min(j, " + th::par(wl) + " - 1)";
    w = "float64(" + (wl == Expr(1) ? std::string("w") : "w[" + wj + "]") + ")";
  }
  std::string c = std::to_string(*comps);
  code += "let wt = ok ? " + w + " : 0.0; ";
  std::string xr = "wt * float64(x[p * " + c + "])";
  std::string xim = *comps == 2 ? "wt * float64(x[p * 2 + 1])" : "0.0";
  code += dftTerm(xr, xim, "j * i2", n, false) + "a = re; b = im";

  SdfgBuilder b(ctx);
  auto [re, imag] = complexSums(b, Shape(ys.begin(), ys.end() - 1));
  b.nextState("stft");
  b.mappedTasklet("stft", params, ins, code, {{"a", re, "i0, i1, i2", "sum"}, {"b", imag, "i0, i1, i2", "sum"}});
  complexOutput(b, re, imag, "output", "");
  return b.finish();
}

Result expandMelWeightMatrix(const ExpansionContext& ctx) {
  for (const char* c : {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"})
    if (!ctx.hasIn(c)) return ctx.error(std::string(c) + " must be connected");
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  if (Y->shape.size() != 2) return ctx.error("the output must be 2-D [dft_length // 2 + 1, num_mel_bins]");
  DType yt = Y->dtype;
  // Edges in float32 as the reference computes them; the mel-spaced bins in float64.
  std::string code =
      "let lm = float32(2595.0) * log(float32(1.0) + float32(lo) / float32(700.0)) / log(float32(10.0)); "
      "let hm = float32(2595.0) * log(float32(1.0) + float32(hi) / float32(700.0)) / log(float32(10.0)); "
      "let step = (hm - lm) / float32(int64(nm) + 2); ";
  for (int t = 0; t < 3; ++t) {
    std::string ts = std::to_string(t);
    code += "let f" + ts + " = 700.0 * (exp(float64(float64(i1 + " + ts + ") * float64(step) + float64(lm)) / 2595.0 * log(10.0)) - 1.0); ";
    code += "let b" + ts + " = int64(floor(float64(int64(dl) + 1) * f" + ts + " / float64(sr))); ";
  }
  code += "let lc = b1 - b0; let ch = b2 - b1; ";
  code += "let up = lc == 0 ? (i0 == b1 ? 1.0 : 0.0) : (i0 >= b0 && i0 <= b1 ? float64(i0 - b0) / float64(lc) : 0.0); ";
  code += "let v = ch > 0 && i0 >= b1 && i0 < b2 ? float64(b2 - i0) / float64(ch) : up; ";
  code += "y = " + ew::castTo(yt, "v");
  SdfgBuilder b(ctx);
  b.mappedTasklet("mel_weights", fullRangeParams(Y->shape),
                  {{"nm", "num_mel_bins", ""}, {"dl", "dft_length", ""}, {"sr", "sample_rate", ""}, {"lo", "lower_edge_hertz", ""},
                   {"hi", "upper_edge_hertz", ""}},
                  code, {{"y", "output", "i0, i1", ""}});
  return b.finish();
}

} // namespace

void registerMisc(ExpansionRegistry& r) {
  r.add("", "HannWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Hann); },
        "y[i] = 0.5 - 0.5 cos(2 pi i / N)");
  r.add("", "HammingWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Hamming); },
        "y[i] = 25/46 - 21/46 cos(2 pi i / N)");
  r.add("", "BlackmanWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Blackman); },
        "y[i] = 0.42 - 0.5 cos(2 pi i / N) + 0.08 cos(4 pi i / N)");
  r.add("", "Det", "pure", expandDet, "one tasklet per matrix: unrolled LU with partial pivoting (M <= 8)");
  r.add("", "MaxUnpool", "pure", expandMaxUnpool, "map over output and kernel offsets matching MaxPool indices (WCR max), zeros elsewhere");
  r.add("", "RoiAlign", "pure", expandRoiAlign, "map over output bins and sampling points, bilinear samples with WCR sum/max");
  r.add("", "DFT", "pure", expandDft, "map over output and signal index with WCR sum of x e^(-+2 pi i jk/n) (float64)");
  r.add("", "STFT", "pure", expandStft, "map over frames, bins and frame index with WCR sum of windowed DFT terms (float64)");
  r.add("", "MelWeightMatrix", "pure", expandMelWeightMatrix, "map over the output: triangular mel filters");
  r.add("", "GridSample", "pure", expandGridSample, "map over the output; nearest/bilinear/bicubic sampling with zeros/border/reflection padding");
}

} // namespace dcw::expansions
