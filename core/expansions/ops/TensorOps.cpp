// Pure expansions of the tensor-manipulation ops. Output shapes are read from the output descriptors
// (ONNX shape inference), so shape inputs (Reshape's shape, Expand's shape, Tile's repeats, Split's
// split) are never needed; every op is a map over the output with single-element memlets and index
// arithmetic, except where an index is data-dependent (Gather*, Scatter*, ReverseSequence, or a Slice /
// Pad / Resize whose parameters are run-time inputs): there the source is read through an array
// connector over the whole container, indexed linearly in the tasklet (negative indices wrapped,
// indices clamped into range so that no read leaves the container).
//
//   Reshape/Flatten/Squeeze/Unsqueeze  y[i..] = x[unflatten(flatten(i..))]  (direct when only 1-dims move;
//                                      per group of dims that map onto each other when dims are constant)
//   Transpose     y[i..] = x[i permuted back]               Concat/Split  offsets along the axis
//   Slice         y[i..] = x[start + i*step]                  (negative steps; constant or run-time params)
//   Gather        y[a.., j.., b..] = x[a.., wrap(ind[j..]), b..]   GatherElements, GatherND likewise
//   ScatterElements/ScatterND  y = x, then a map over (output, update) pairs: with reduction add/mul a
//                 WCR sum/prod of matching updates; with none the last matching update is found with a
//                 WCR max and copied.
//   Pad           constant (select of the value outside), edge (clamped index), reflect (mirrored index)
//   Tile          y[i..] = x[i % dim..]           Expand  y[i..] = x[broadcast i..]
//   Resize/Upsample  nearest (every nearest_mode), n-linear and cubic (cubic_coeff_a, exclude_outside), every
//                 coordinate_transformation_mode (tf_crop_and_resize with roi and extrapolation_value). Scales constant or run-time;
//                 sizes from the output.
//   Shape/Size/Constant/ConstantOfShape/Range/EyeLike/OneHot/Trilu/DepthToSpace/SpaceToDepth/CumSum/
//   ReverseSequence: one map each (CumSum: WCR sum over the axis).
//   Compress: with a constant condition, a gather; with a run-time one, see DataDependent.cpp.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;
using namespace th;

namespace {

using Result = Expected<std::unique_ptr<Sdfg>>;

Expr P(const std::string& name) { return Expr::symbol(name); }
std::string I(size_t k) { return "i" + std::to_string(k); }

// Reads `src` at per-dim indices `idx` (text over + - * min max, map params and symbols; clamped into
// range by the caller) and writes `out` over its full shape. With `runtime`, the indices may read the
// extra connectors and the source is read as an array connector (linear index).
struct Read {
  std::vector<std::string> idx;
  std::string cond;      // tasklet condition; when false, `otherwise` is written
  std::string otherwise;
  std::vector<TaskletIn> extra;
  std::string lets;      // "let a = ...; " statements (runtime)
  bool runtime = false;
};

// Element j of a 1-D array connector `conn` of n elements: a one-element memlet is a scalar connector.
std::string elem(const std::string& conn, size_t j, size_t n) { return n == 1 ? conn : conn + "[" + std::to_string(j) + "]"; }
bool oneElement(const DataDescriptor& d) { return d.shape.empty() || product(d.shape) == Expr(1); }

void emitRead(SdfgBuilder& b, const std::string& label, const std::string& src, const std::string& out, const Read& r) {
  const Shape& os = b.data(out).shape;
  const Shape& ss = b.data(src).shape;
  std::vector<TaskletIn> ins = r.extra;
  std::string value;
  if (r.runtime) {
    ins.push_back({"x", src, ""});
    value = oneElement(b.data(src)) ? "x" : "x[" + linearIndex(r.idx, ss) + "]";
  } else {
    ins.push_back({"x", src, join(r.idx)});
    value = "x";
  }
  std::string code = r.lets + "y = " + (r.cond.empty() ? value : "select(" + r.cond + ", " + value + ", " + r.otherwise + ")");
  b.mappedTasklet(label, fullRangeParams(os), ins, code, {{"y", out, indexList(os.size()), ""}});
}

// ---------------------------------------------------------------------------------------------
// Reshape-like ops

// Reshape's output shape from a constant `shape` input (0 copies a dim unless allowzero, -1 is inferred).
std::optional<Shape> reshapeTarget(const ExpansionContext& ctx, const Shape& xs) {
  auto v = ctx.node().opsetVersion >= 5 ? ctx.constantInts("shape") : std::optional<std::vector<int64_t>>(ctx.attrInts("shape"));
  if (!v) return std::nullopt;
  bool allowZero = ctx.attrInt("allowzero", 0) != 0;
  Shape out;
  int infer = -1;
  Expr known(1);
  for (size_t k = 0; k < v->size(); ++k) {
    int64_t d = (*v)[k];
    if (d == -1) {
      infer = int(k);
      out.push_back(Expr(1));
      continue;
    }
    Expr e = d == 0 && !allowZero && k < xs.size() ? xs[k] : Expr(d);
    out.push_back(e);
    known = known * e;
  }
  if (infer >= 0) out[size_t(infer)] = sym::floorDiv(product(xs), known);
  return out;
}

// A reshape of row-major data maps groups of consecutive dims onto each other: [1,116,28,28] ->
// [1,2,58,28,28] is 116 <-> 2x58 and 28 <-> 28 twice. Index arithmetic then stays inside a group and the
// innermost dims usually map one to one (a contiguous, vectorizable copy) instead of every index being
// divided out of the whole linear offset. Dims of 1 are left out of the groups. Needs constant dims.
struct ReshapeGroup {
  size_t x0, x1, y0, y1; // [x0, x1) of X's dims, [y0, y1) of Y's
};

std::optional<std::vector<ReshapeGroup>> reshapeGroups(const Shape& xs, const Shape& ys) {
  auto values = [](const Shape& s) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> v;
    for (const Expr& e : s) {
      auto c = e.constantValue();
      if (!c || *c <= 0) return std::nullopt;
      v.push_back(*c);
    }
    return v;
  };
  auto xo = values(xs), yo = values(ys);
  if (!xo || !yo) return std::nullopt;
  const std::vector<int64_t> &xv = *xo, &yv = *yo;
  std::vector<ReshapeGroup> out;
  size_t i = 0, j = 0;
  auto skipOnes = [](const std::vector<int64_t>& v, size_t& k) { while (k < v.size() && v[k] == 1) ++k; };
  while (true) {
    skipOnes(xv, i);
    skipOnes(yv, j);
    if (i == xv.size() || j == yv.size()) break;
    ReshapeGroup g{i, i + 1, j, j + 1};
    int64_t px = xv[i], py = yv[j];
    while (px != py) {
      if (px < py) {
        if (g.x1 == xv.size()) return std::nullopt;
        px *= xv[g.x1++];
      } else {
        if (g.y1 == yv.size()) return std::nullopt;
        py *= yv[g.y1++];
      }
    }
    out.push_back(g);
    i = g.x1;
    j = g.y1;
  }
  skipOnes(xv, i);
  skipOnes(yv, j);
  if (i != xv.size() || j != yv.size()) return std::nullopt;
  return out;
}

Result reshapeCopy(const ExpansionContext& ctx, const std::string& in, const std::string& out) {
  DCW_TRY(auto X, needIn(ctx, in));
  SdfgBuilder b(ctx);
  if (const DataDescriptor* o = ctx.out(out); o && !o->rankKnown && ctx.node().opType == "Reshape") {
    // Shape inference could not tell the output shape; a constant shape input can.
    if (auto t = reshapeTarget(ctx, X->shape)) {
      DataDescriptor* d = b.sdfg().findData(out);
      d->shape = *t;
      d->strides = DataDescriptor::contiguousStrides(d->shape);
      d->rankKnown = true;
      d->dataKind = d->shape.empty() ? DataKind::Scalar : DataKind::Array;
    }
  }
  if (!b.data(out).rankKnown) return needOut(ctx, out).takeError();
  const Shape &xs = X->shape, &ys = b.data(out).shape;
  Read r;
  // Direct mapping when the dims other than 1 are the same sequence (Squeeze, Unsqueeze, many Reshapes).
  std::vector<size_t> xn, yn;
  for (size_t k = 0; k < xs.size(); ++k) if (xs[k] != Expr(1)) xn.push_back(k);
  for (size_t k = 0; k < ys.size(); ++k) if (ys[k] != Expr(1)) yn.push_back(k);
  bool direct = xn.size() == yn.size();
  for (size_t j = 0; direct && j < xn.size(); ++j) direct = xs[xn[j]] == ys[yn[j]];
  if (direct) {
    r.idx.assign(xs.size(), "0");
    for (size_t j = 0; j < xn.size(); ++j) r.idx[xn[j]] = I(yn[j]);
  } else {
    // Per group: the group's y indices linearized, spread over its x dims (no arithmetic when the
    // group has one x dim). Without constant dims, one group of all dims. Dims outside every group are 1.
    auto groups = reshapeGroups(xs, ys).value_or(std::vector<ReshapeGroup>{{0, xs.size(), 0, ys.size()}});
    r.idx.assign(xs.size(), "0");
    for (const ReshapeGroup& g : groups) {
      Expr lin(0);
      for (size_t k = g.y0; k < g.y1; ++k) lin = lin * ys[k] + P(I(k));
      Expr stride(1);
      for (size_t k = g.x1; k-- > g.x0;) {
        Expr q = stride == Expr(1) ? lin : sym::floorDiv(lin, stride);
        r.idx[k] = (k == g.x0 ? q : sym::mod(q, xs[k])).str();
        stride = stride * xs[k];
      }
    }
  }
  emitRead(b, "reshape", in, out, r);
  return b.finish();
}

Result expandTranspose(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  size_t r = X->shape.size();
  std::vector<int64_t> perm = ctx.attrInts("perm");
  if (perm.empty())
    for (size_t k = 0; k < r; ++k) perm.push_back(int64_t(r - 1 - k));
  if (perm.size() != r) return ctx.error("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  SdfgBuilder b(ctx);
  Read rd;
  rd.idx.assign(r, "");
  for (size_t k = 0; k < r; ++k) {
    if (perm[k] < 0 || perm[k] >= int64_t(r)) return ctx.error("perm is not a permutation");
    rd.idx[size_t(perm[k])] = I(k);
  }
  emitRead(b, "transpose", "data", "transposed", rd);
  return b.finish();
}

Result expandConcat(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, needOut(ctx, "concat_result"));
  size_t r = Y->shape.size();
  auto axis = normAxis(ctx.attrInt("axis", 0), int64_t(r));
  if (!axis) return ctx.error("axis is out of range");
  SdfgBuilder b(ctx);
  Expr offset(0);
  for (auto& in : ctx.inputs()) {
    DCW_TRY(auto X, needIn(ctx, in));
    const Shape& xs = X->shape;
    std::vector<std::string> yi;
    for (size_t k = 0; k < r; ++k) yi.push_back(k == size_t(*axis) ? (P(I(k)) + offset).str() : I(k));
    if (!(xs[*axis] == Expr(0)))
      b.mappedTasklet("concat", fullRangeParams(xs), {{"x", in, indexList(r)}}, "y = x", {{"y", "concat_result", join(yi), ""}});
    offset = offset + xs[*axis];
  }
  return b.finish();
}

Result expandSplit(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  size_t r = X->shape.size();
  auto axis = normAxis(ctx.attrInt("axis", 0), int64_t(r));
  if (!axis) return ctx.error("axis is out of range");
  SdfgBuilder b(ctx);
  Expr offset(0);
  for (auto& out : ctx.outputs()) {
    DCW_TRY(auto Y, needOut(ctx, out));
    const Shape& ys = Y->shape;
    std::vector<std::string> xi;
    for (size_t k = 0; k < r; ++k) xi.push_back(k == size_t(*axis) ? (P(I(k)) + offset).str() : I(k));
    if (!(ys[*axis] == Expr(0)))
      b.mappedTasklet("split", fullRangeParams(ys), {{"x", "input", join(xi)}}, "y = x", {{"y", out, indexList(r), ""}});
    offset = offset + ys[*axis];
  }
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Slice

Result expandSlice(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_CHECK(needOut(ctx, "output"));
  const Shape& xs = X->shape;
  int64_t r = int64_t(xs.size());
  SdfgBuilder b(ctx);
  Read rd;
  bool attrs = ctx.node().opsetVersion < 10;
  std::optional<std::vector<int64_t>> starts, axes, steps;
  if (attrs) {
    starts = ctx.attrInts("starts");
    axes = ctx.hasAttr("axes") ? ctx.attrInts("axes") : std::vector<int64_t>{};
    steps = std::vector<int64_t>(starts->size(), 1);
  } else {
    starts = ctx.constantInts("starts");
    axes = ctx.hasIn("axes") ? ctx.constantInts("axes") : std::vector<int64_t>{};
    steps = ctx.hasIn("steps") ? ctx.constantInts("steps") : std::vector<int64_t>{};
  }
  if (axes && axes->empty()) {
    size_t n = starts ? starts->size() : 0;
    if (!starts) {
      auto* sd = ctx.in("starts");
      auto c = sd && sd->shape.size() == 1 ? sd->shape[0].constantValue() : std::nullopt;
      if (!c) return ctx.error("the number of starts is unknown");
      n = size_t(*c);
    }
    axes = std::vector<int64_t>(n);
    std::iota(axes->begin(), axes->end(), 0);
  }
  if (steps && steps->empty()) {
    size_t n = axes ? axes->size() : starts ? starts->size() : 0;
    if (!axes && !starts) {
      auto* sd = ctx.in("starts");
      auto c = sd && sd->shape.size() == 1 ? sd->shape[0].constantValue() : std::nullopt;
      if (!c) return ctx.error("the number of starts is unknown");
      n = size_t(*c);
    }
    steps = std::vector<int64_t>(n, 1);
  }
  if (starts && axes && steps) {
    // Constant parameters: clamped starts as in ONNX, indices start + i*step.
    std::vector<Expr> start(size_t(r), Expr(0));
    std::vector<int64_t> step(size_t(r), 1);
    if (starts->size() != axes->size() || steps->size() != axes->size()) return ctx.error("starts, axes and steps differ in length");
    for (size_t j = 0; j < axes->size(); ++j) {
      auto a = normAxis((*axes)[j], r);
      if (!a) return ctx.error("axis " + std::to_string((*axes)[j]) + " is out of range");
      int64_t s = (*starts)[j], st = (*steps)[j];
      if (st == 0) return ctx.error("a step is 0");
      Expr D = xs[*a];
      Expr v = s < 0 ? D + s : Expr(s);
      if (s >= INT32_MAX) v = D; // "to the end"
      start[*a] = st > 0 ? sym::min(sym::max(v, Expr(0)), D) : sym::min(sym::max(v, Expr(0)), D - 1);
      step[*a] = st;
    }
    for (int64_t k = 0; k < r; ++k) rd.idx.push_back((start[k] + P(I(k)) * step[k]).str());
    emitRead(b, "slice", "data", "output", rd);
    return b.finish();
  }
  // Run-time parameters: the effective start and step of each dim computed in the tasklet.
  auto* sd = ctx.in("starts");
  auto nc = sd && sd->shape.size() == 1 ? sd->shape[0].constantValue() : std::nullopt;
  if (!nc) return ctx.error("the number of starts is unknown");
  size_t n = size_t(*nc);
  rd.runtime = true;
  rd.extra.push_back({"starts", "starts", ""});
  bool rtAxes = !axes, rtSteps = !steps;
  if (rtAxes) rd.extra.push_back({"axes", "axes", ""});
  if (rtSteps) rd.extra.push_back({"steps", "steps", ""});
  for (int64_t k = 0; k < r; ++k) {
    std::string ks = std::to_string(k), D = par(xs[k]);
    std::string st = "1", sel = "0";
    for (size_t j = n; j-- > 0;) {
      std::string js = std::to_string(j);
      std::string match = rtAxes ? "(" + elem("axes", j, n) + " == " + ks + " || " + elem("axes", j, n) + " == " + std::to_string(k - r) + ")"
                                 : (normAxis((*axes)[j], r) == std::optional<int64_t>(k) ? "true" : "false");
      if (match == "false") continue;
      std::string stepj = rtSteps ? elem("steps", j, n) : std::to_string((*steps)[j]);
      std::string sj = elem("starts", j, n);
      std::string v = "min(select(" + sj + " < 0, " + sj + " + " + D + ", " + sj + "), " + D + ")";
      std::string eff = "select(" + stepj + " > 0, min(max(" + v + ", 0), " + D + "), min(max(" + v + ", 0), " + D + " - 1))";
      st = "select(" + match + ", " + stepj + ", " + st + ")";
      sel = "select(" + match + ", " + eff + ", " + sel + ")";
    }
    rd.lets += "let s" + ks + " = " + sel + "; let t" + ks + " = " + st + "; ";
    rd.idx.push_back("s" + ks + " + " + I(size_t(k)) + " * t" + ks);
  }
  emitRead(b, "slice", "data", "output", rd);
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Gather family

std::string wrap(const std::string& v, const std::string& D) {
  return "min(max(select(" + v + " < 0, " + v + " + " + D + ", " + v + "), 0), " + D + " - 1)";
}

Result expandGather(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_TRY(auto Ind, needIn(ctx, "indices"));
  const Shape &xs = X->shape, &is = Ind->shape;
  int64_t r = int64_t(xs.size()), q = int64_t(is.size());
  auto axis = normAxis(ctx.attrInt("axis", 0), r);
  if (!axis) return ctx.error("axis is out of range");
  SdfgBuilder b(ctx);
  Read rd;
  rd.runtime = true;
  std::vector<std::string> ii;
  for (int64_t k = 0; k < q; ++k) ii.push_back(I(size_t(*axis + k)));
  rd.extra.push_back({"ind", "indices", join(ii)});
  rd.lets = "let j = " + wrap("int64(ind)", par(xs[*axis])) + "; ";
  for (int64_t k = 0; k < r; ++k)
    rd.idx.push_back(k < *axis ? I(size_t(k)) : k == *axis ? "j" : I(size_t(k + q - 1)));
  emitRead(b, "gather", "data", "output", rd);
  return b.finish();
}

Result expandGatherElements(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  const Shape& xs = X->shape;
  int64_t r = int64_t(xs.size());
  auto axis = normAxis(ctx.attrInt("axis", 0), r);
  if (!axis) return ctx.error("axis is out of range");
  SdfgBuilder b(ctx);
  Read rd;
  rd.runtime = true;
  rd.extra.push_back({"ind", "indices", indexList(size_t(r))});
  rd.lets = "let j = " + wrap("int64(ind)", par(xs[*axis])) + "; ";
  for (int64_t k = 0; k < r; ++k) rd.idx.push_back(k == *axis ? "j" : I(size_t(k)));
  emitRead(b, "gather_elements", "data", "output", rd);
  return b.finish();
}

Result expandGatherND(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_TRY(auto Ind, needIn(ctx, "indices"));
  const Shape &xs = X->shape, &is = Ind->shape;
  int64_t r = int64_t(xs.size()), q = int64_t(is.size());
  int64_t bd = ctx.attrInt("batch_dims", 0);
  auto kc = q > 0 ? is[q - 1].constantValue() : std::nullopt;
  if (!kc) return ctx.error("the last dim of indices must be a constant");
  int64_t kk = *kc;
  if (bd + kk > r) return ctx.error("indices address more dims than data has");
  SdfgBuilder b(ctx);
  Read rd;
  rd.runtime = true;
  for (int64_t j = 0; j < kk; ++j) {
    std::vector<std::string> ii;
    for (int64_t k = 0; k < q - 1; ++k) ii.push_back(I(size_t(k)));
    ii.push_back(std::to_string(j));
    std::string c = "ind" + std::to_string(j);
    rd.extra.push_back({c, "indices", join(ii)});
    rd.lets += "let j" + std::to_string(j) + " = " + wrap("int64(" + c + ")", par(xs[bd + j])) + "; ";
  }
  for (int64_t k = 0; k < r; ++k)
    rd.idx.push_back(k < bd ? I(size_t(k)) : k < bd + kk ? "j" + std::to_string(k - bd) : I(size_t(q - 1 + k - bd - kk)));
  emitRead(b, "gather_nd", "data", "output", rd);
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Scatter family: y = data, then updates matched to output positions.

Result expandScatterElements(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_TRY(auto Ind, needIn(ctx, "indices"));
  const Shape &xs = X->shape, &is = Ind->shape;
  size_t r = xs.size();
  auto axis = normAxis(ctx.attrInt("axis", 0), int64_t(r));
  if (!axis) return ctx.error("axis is out of range");
  std::string red = ctx.attrString("reduction", "none");
  if (red != "none" && red != "add" && red != "mul") return ctx.error("reduction '" + red + "' is not supported (none, add, mul)");
  DType yt = ctx.out("output") ? ctx.out("output")->dtype : DType::Float32;
  SdfgBuilder b(ctx);
  b.mappedTasklet("copy", fullRangeParams(xs), {{"x", "data", indexList(r)}}, "y = x", {{"y", "output", indexList(r), ""}});
  // Map over output positions i.. and the update position j along the axis.
  std::vector<MapParam> params = fullRangeParams(xs);
  params.push_back({"j", Range::full(is[*axis])});
  std::vector<std::string> ui, conds;
  for (size_t k = 0; k < r; ++k) {
    if (k == size_t(*axis)) {
      ui.push_back("j");
    } else {
      ui.push_back(sym::min(P(I(k)), is[k] - 1).str());
      conds.push_back(I(k) + " < " + par(is[k]));
    }
  }
  conds.push_back(wrap("int64(ind)", par(xs[*axis])) + " == " + I(size_t(*axis)));
  std::string cond = join(conds, " && ");
  std::vector<TaskletIn> ins{{"ind", "indices", join(ui)}, {"u", "updates", join(ui)}};
  if (red == "add" || red == "mul") {
    b.mappedTasklet("scatter", params, ins, "y = select(" + cond + ", u, " + literal(red == "add" ? 0 : 1, yt) + ")",
                    {{"y", "output", indexList(r), red == "add" ? "sum" : "prod"}});
    return b.finish();
  }
  // none: the last matching update position, then a copy of that update.
  std::string hit = b.transient("hit", DType::Int64, xs);
  b.mappedTasklet("hit_init", fullRangeParams(xs), {}, "h = -1", {{"h", hit, indexList(r), ""}});
  b.mappedTasklet("scatter_match", params, {ins[0]}, "h = select(" + cond + ", j, -1)", {{"h", hit, indexList(r), "max"}});
  std::vector<std::string> uidx;
  for (size_t k = 0; k < r; ++k) uidx.push_back(k == size_t(*axis) ? "h" : "min(" + I(k) + ", " + par(is[k] - 1) + ")");
  b.mappedTasklet("scatter", fullRangeParams(xs), {{"h", hit, indexList(r)}, {"u", "updates", ""}, {"x", "data", indexList(r)}},
                  "y = select(h >= 0, " + (oneElement(b.data("updates")) ? std::string("u") : "u[" + linearIndex(uidx, is) + "]") + ", x)", {{"y", "output", indexList(r), ""}});
  return b.finish();
}

Result expandScatterND(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_TRY(auto Ind, needIn(ctx, "indices"));
  const Shape &xs = X->shape, &is = Ind->shape;
  size_t r = xs.size(), q = is.size();
  auto kc = q > 0 ? is[q - 1].constantValue() : std::nullopt;
  if (!kc) return ctx.error("the last dim of indices must be a constant");
  size_t kk = size_t(*kc);
  std::string red = ctx.attrString("reduction", "none");
  if (red != "none" && red != "add" && red != "mul") return ctx.error("reduction '" + red + "' is not supported (none, add, mul)");
  DType yt = ctx.out("output") ? ctx.out("output")->dtype : DType::Float32;
  SdfgBuilder b(ctx);
  b.mappedTasklet("copy", fullRangeParams(xs), {{"x", "data", indexList(r)}}, "y = x", {{"y", "output", indexList(r), ""}});
  std::vector<MapParam> params = fullRangeParams(xs);
  std::vector<std::string> qi;
  for (size_t k = 0; k + 1 < q; ++k) {
    params.push_back({"q" + std::to_string(k), Range::full(is[k])});
    qi.push_back("q" + std::to_string(k));
  }
  std::vector<TaskletIn> ins;
  std::vector<std::string> conds;
  for (size_t j = 0; j < kk; ++j) {
    auto ii = qi;
    ii.push_back(std::to_string(j));
    std::string c = "ind" + std::to_string(j);
    ins.push_back({c, "indices", join(ii)});
    conds.push_back(wrap("int64(" + c + ")", par(xs[j])) + " == " + I(j));
  }
  std::string cond = conds.empty() ? "true" : join(conds, " && ");
  std::vector<std::string> ui = qi;
  for (size_t k = kk; k < r; ++k) ui.push_back(I(k));
  if (red == "add" || red == "mul") {
    ins.push_back({"u", "updates", join(ui)});
    b.mappedTasklet("scatter_nd", params, ins, "y = select(" + cond + ", u, " + literal(red == "add" ? 0 : 1, yt) + ")",
                    {{"y", "output", indexList(r), red == "add" ? "sum" : "prod"}});
    return b.finish();
  }
  std::string hit = b.transient("hit", DType::Int64, xs);
  b.mappedTasklet("hit_init", fullRangeParams(xs), {}, "h = -1", {{"h", hit, indexList(r), ""}});
  Shape qs(is.begin(), is.end() - 1);
  b.mappedTasklet("scatter_match", params, ins, "h = select(" + cond + ", " + (qi.empty() ? std::string("0") : linearIndex(qi, qs)) + ", -1)",
                  {{"h", hit, indexList(r), "max"}});
  Expr inner = product(xs, kk);
  std::vector<std::string> rest;
  Shape restShape(xs.begin() + kk, xs.end());
  for (size_t k = kk; k < r; ++k) rest.push_back(I(k));
  std::string lin = "h * " + par(inner) + (rest.empty() ? "" : " + " + linearIndex(rest, restShape));
  b.mappedTasklet("scatter_nd", fullRangeParams(xs), {{"h", hit, indexList(r)}, {"u", "updates", ""}, {"x", "data", indexList(r)}},
                  "y = select(h >= 0, " + (oneElement(b.data("updates")) ? std::string("u") : "u[" + lin + "]") + ", x)", {{"y", "output", indexList(r), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Pad, Tile, Expand

Result expandPad(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  DCW_TRY(auto Y, needOut(ctx, "output"));
  const Shape& xs = X->shape;
  size_t r = xs.size();
  std::string mode = ctx.attrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") return ctx.error("mode '" + mode + "' is not one of constant, reflect, edge");
  DType yt = Y->dtype;
  SdfgBuilder b(ctx);
  Read rd;
  std::optional<std::vector<int64_t>> pads;
  std::string value = literal(0, yt);
  if (ctx.node().opsetVersion < 11) {
    pads = ctx.attrInts(ctx.hasAttr("paddings") ? "paddings" : "pads");
    value = literal(ctx.attrFloat("value", 0.0), yt);
  } else {
    pads = ctx.constantInts("pads");
    if (ctx.hasIn("constant_value")) {
      rd.extra.push_back({"cv", "constant_value", ctx.in("constant_value")->shape.empty() ? "" : "0"});
      value = "cv";
    }
  }
  std::vector<std::string> pb(r);
  if (pads) {
    if (pads->size() != 2 * r) return ctx.error("pads has " + std::to_string(pads->size()) + " values for rank " + std::to_string(r));
    for (size_t k = 0; k < r; ++k) pb[k] = num((*pads)[k]);
  } else {
    rd.runtime = true;
    rd.extra.push_back({"pads", "pads", ""});
    for (size_t k = 0; k < r; ++k) pb[k] = elem("pads", k, 2 * r);
  }
  std::vector<std::string> conds;
  for (size_t k = 0; k < r; ++k) {
    std::string s = "(" + I(k) + " - " + pb[k] + ")", D = par(xs[k]), Dm = par(xs[k] - 1);
    if (mode == "constant") {
      if (pads && (*pads)[k] == 0 && (*pads)[k + r] == 0) {
        rd.idx.push_back(I(k));
        continue;
      }
      conds.push_back(s + " >= 0 && " + s + " < " + D);
      rd.idx.push_back("min(max(" + s + ", 0), " + Dm + ")");
    } else if (mode == "edge") {
      rd.idx.push_back("min(max(" + s + ", 0), " + Dm + ")");
    } else {
      // reflect: |s| mirrored at D-1, i.e. (D-1) - |(D-1) - |s||, clamped for safety.
      std::string a = "max(" + s + ", -" + s + ")";
      std::string m = "(" + Dm + " - " + a + ")";
      rd.idx.push_back("min(max(" + Dm + " - max(" + m + ", -" + m + "), 0), " + Dm + ")");
    }
  }
  if (!conds.empty()) {
    rd.cond = join(conds, " && ");
    rd.otherwise = value;
  }
  emitRead(b, "pad", "data", "output", rd);
  return b.finish();
}

Result expandTile(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  const Shape& xs = X->shape;
  SdfgBuilder b(ctx);
  Read rd;
  for (size_t k = 0; k < xs.size(); ++k) rd.idx.push_back(xs[k] == Expr(1) ? "0" : sym::mod(P(I(k)), xs[k]).str());
  emitRead(b, "tile", "input", "output", rd);
  return b.finish();
}

Result expandExpand(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  DCW_TRY(auto Y, needOut(ctx, "output"));
  SdfgBuilder b(ctx);
  size_t r = Y->shape.size();
  b.mappedTasklet("expand", fullRangeParams(Y->shape), {{"x", "input", broadcastSubset(X->shape, Y->shape)}}, "y = x",
                  {{"y", "output", indexList(r), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Resize / Upsample

Result expandResize(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "X"));
  DCW_TRY(auto Y, needOut(ctx, "Y"));
  const Shape &xs = X->shape, &ys = Y->shape;
  size_t r = xs.size();
  bool upsample = ctx.node().opType == "Upsample";
  int64_t ver = ctx.node().opsetVersion;
  std::string mode = ctx.attrString("mode", "nearest");
  if (mode == "bilinear") mode = "linear";
  if (mode != "nearest" && mode != "linear" && mode != "cubic") return ctx.error("Resize mode '" + mode + "' is unknown");
  bool legacy = upsample || ver < 11; // Upsample and Resize-10: asymmetric coordinates, simple nearest rounding
  std::string ctm = legacy ? "asymmetric" : ctx.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearestMode = legacy ? "simple" : ctx.attrString("nearest_mode", "round_prefer_floor");
  bool crop = ctm == "tf_crop_and_resize";
  if (crop && (!ctx.hasIn("roi") || !ctx.in("roi")->rankKnown)) return ctx.error("tf_crop_and_resize needs the roi input");
  std::vector<std::string> outside; // tf_crop_and_resize: coordinates outside the input read extrapolation_value
  double cubicA = ctx.attrFloat("cubic_coeff_a", -0.75);
  bool excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
  SdfgBuilder b(ctx);
  Read rd;
  rd.runtime = true;
  // Scale per dim as tasklet code: a constant, scales[d] read at run time, or out/in from the shapes.
  std::vector<std::string> scale(r);
  std::optional<std::vector<double>> cscales;
  std::string scalesConn = upsample && ver < 9 ? "" : "scales";
  if (upsample && ver < 9) cscales = ctx.attrFloats("scales");
  const DataDescriptor* sd = scalesConn.empty() ? nullptr : ctx.in(scalesConn);
  bool haveScales = sd && sd->rankKnown && !(sd->shape.size() == 1 && sd->shape[0] == Expr(0));
  if (haveScales) {
    if (const Tensor* t = ctx.constantIn(scalesConn); t && t->bytes && t->dtype == DType::Float32) {
      std::vector<double> v;
      for (int64_t i = 0; i < t->elementCount(); ++i) {
        float f;
        std::memcpy(&f, t->bytes->data() + i * 4, 4);
        v.push_back(f);
      }
      cscales = v;
    }
  }
  for (size_t k = 0; k < r; ++k) {
    if (cscales && cscales->size() == r) scale[k] = literal((*cscales)[k], DType::Float64);
    else if (haveScales) scale[k] = "float64(" + elem("scales", k, r) + ")";
    else scale[k] = "(float64(" + ys[k].str() + ") / float64(" + xs[k].str() + "))";
  }
  if (haveScales && !(cscales && cscales->size() == r)) rd.extra.push_back({"scales", scalesConn, ""});
  std::vector<size_t> interp; // dims whose coordinate is not the identity
  std::vector<std::vector<std::pair<std::string, std::string>>> taps; // per interp dim: (index local, weight)
  std::string lets;
  for (size_t k = 0; k < r; ++k) {
    bool identity = !crop && xs[k] == ys[k] && (!haveScales || (cscales && cscales->size() == r && (*cscales)[k] == 1.0));
    std::string ks = std::to_string(k), i = "float64(" + I(k) + ")";
    if (identity) {
      rd.idx.push_back(I(k));
      continue;
    }
    std::string s = scale[k], In = "float64(" + xs[k].str() + ")";
    // ONNX's length_resized: the output extent, or In * scale (not rounded) when scales are given.
    std::string O = haveScales || (cscales && cscales->size() == r) ? "(" + In + " * " + s + ")" : "float64(" + ys[k].str() + ")";
    std::string c;
    if (ctm == "half_pixel") c = "(" + i + " + 0.5) / " + s + " - 0.5";
    else if (ctm == "pytorch_half_pixel") c = "select(" + O + " > 1.0, (" + i + " + 0.5) / " + s + " - 0.5, 0.0)";
    else if (ctm == "align_corners") c = "select(" + O + " > 1.0, " + i + " * (" + In + " - 1.0) / (" + O + " - 1.0), 0.0)";
    else if (ctm == "asymmetric") c = i + " / " + s;
    else if (ctm == "tf_half_pixel_for_nn") c = "(" + i + " + 0.5) / " + s;
    else if (crop) {
      std::string s0 = "float64(" + elem("roi", k, 2 * r) + ")", e0 = "float64(" + elem("roi", k + r, 2 * r) + ")";
      c = "select(" + O + " > 1.0, " + s0 + " * (" + In + " - 1.0) + " + i + " * (" + e0 + " - " + s0 + ") * (" + In + " - 1.0) / (" + O +
          " - 1.0), 0.5 * (" + s0 + " + " + e0 + ") * (" + In + " - 1.0))";
      outside.push_back("c" + ks + " < 0.0 || c" + ks + " > " + In + " - 1.0");
    }
    else return ctx.error("coordinate_transformation_mode '" + ctm + "' is unknown");
    lets += "let c" + ks + " = " + c + "; ";
    std::string Dm = par(xs[k] - 1);
    if (mode == "nearest") {
      std::string n;
      if (nearestMode == "round_prefer_floor") n = "ceil(c" + ks + " - 0.5)";
      else if (nearestMode == "round_prefer_ceil") n = "floor(c" + ks + " + 0.5)";
      else if (nearestMode == "floor") n = "floor(c" + ks + ")";
      else if (nearestMode == "ceil") n = "ceil(c" + ks + ")";
      else if (nearestMode == "simple") n = "select(" + s + " < 1.0, ceil(c" + ks + "), floor(c" + ks + "))";
      else return ctx.error("nearest_mode '" + nearestMode + "' is unknown");
      lets += "let n" + ks + " = min(max(int64(" + n + "), 0), " + Dm + "); ";
      rd.idx.push_back("n" + ks);
    } else if (mode == "linear") {
      lets += "let d" + ks + " = min(max(c" + ks + ", 0.0), float64(" + Dm + ")); let a" + ks + " = int64(floor(d" + ks + ")); let b" + ks +
              " = min(a" + ks + " + 1, " + Dm + "); let w" + ks + " = d" + ks + " - float64(a" + ks + "); ";
      rd.idx.push_back("");
      interp.push_back(k);
      taps.push_back({{"a" + ks, "(1.0 - w" + ks + ")"}, {"b" + ks, "w" + ks}});
    } else {
      // cubic: taps floor(c)-1 .. floor(c)+2 (edge-clamped) with the Keys kernel of parameter A; with
      // exclude_outside the weights of taps outside the input are dropped and the rest renormalised.
      std::string A = literal(cubicA, DType::Float64);
      lets += "let f" + ks + " = floor(c" + ks + "); let r" + ks + " = c" + ks + " - f" + ks + "; ";
      auto kernel = [&](const std::string& t) { // |t| in [0, 2]
        return "select(" + t + " <= 1.0, ((" + A + " + 2.0) * " + t + " - (" + A + " + 3.0)) * " + t + " * " + t + " + 1.0, ((" + A +
               " * " + t + " - 5.0 * " + A + ") * " + t + " + 8.0 * " + A + ") * " + t + " - 4.0 * " + A + ")";
      };
      std::vector<std::pair<std::string, std::string>> tv;
      std::string norm;
      for (int t = 0; t < 4; ++t) {
        std::string ts = ks + "_" + std::to_string(t);
        std::string pos = "int64(f" + ks + ") + " + std::to_string(t - 1);
        std::string dist = t == 0 ? "(r" + ks + " + 1.0)" : t == 1 ? "r" + ks : t == 2 ? "(1.0 - r" + ks + ")" : "(2.0 - r" + ks + ")";
        lets += "let p" + ts + " = min(max(" + pos + ", 0), " + Dm + "); ";
        std::string wt = kernel(dist);
        if (excludeOutside) wt = "select(" + pos + " >= 0 && " + pos + " <= " + Dm + ", " + wt + ", 0.0)";
        lets += "let q" + ts + " = " + wt + "; ";
        norm += (t ? " + q" : "q") + ts;
        tv.push_back({"p" + ts, "q" + ts});
      }
      if (excludeOutside)
        for (auto& [i, w] : tv) w = "(" + w + " / (" + norm + "))";
      rd.idx.push_back("");
      interp.push_back(k);
      taps.push_back(tv);
    }
  }
  rd.lets = lets;
  if (crop) rd.extra.push_back({"roi", "roi", ""});
  std::string extrapolation = literal(ctx.attrFloat("extrapolation_value", 0.0), Y->dtype);
  if (!outside.empty()) {
    rd.cond = "!(" + join(outside, " || ") + ")";
    rd.otherwise = extrapolation;
  }
  if (interp.empty()) {
    emitRead(b, "resize", "X", "Y", rd);
    return b.finish();
  }
  size_t terms = 1;
  for (auto& t : taps) terms *= t.size();
  if (terms > 256) return ctx.error("interpolation over this many dims is not supported (" + std::to_string(terms) + " taps)");
  // The weighted sum over the cartesian product of the taps of every interpolated dim.
  std::string sum;
  for (size_t m = 0; m < terms; ++m) {
    std::vector<std::string> idx = rd.idx;
    std::string w;
    size_t rest = m;
    for (size_t j = 0; j < interp.size(); ++j) {
      auto& [i, wt] = taps[j][rest % taps[j].size()];
      rest /= taps[j].size();
      idx[interp[j]] = i;
      w += (j ? " * " : "") + wt;
    }
    sum += (m ? " + " : "") + w + " * x[" + linearIndex(idx, xs) + "]";
  }
  std::vector<TaskletIn> ins = rd.extra;
  ins.push_back({"x", "X", ""});
  b.mappedTasklet("resize", fullRangeParams(ys), ins, lets + "y = " + (rd.cond.empty() ? sum : "select(" + rd.cond + ", " + sum + ", " + rd.otherwise + ")"), {{"y", "Y", indexList(r), ""}});
  return b.finish();
}

// ---------------------------------------------------------------------------------------------
// Shape, Size, constants, Range

// y[j] = values[j] as a select chain over the linear index (small constants).
std::string selectChain(const std::vector<std::string>& values, const std::string& j) {
  if (values.empty()) return "0";
  std::string s = values.back();
  for (size_t k = values.size() - 1; k-- > 0;) s = "select(" + j + " == " + std::to_string(k) + ", " + values[k] + ", " + s + ")";
  return s;
}

// Writes constant values (texts of tasklet literals) into `out` over its shape.
void writeValues(SdfgBuilder& b, const std::string& out, const std::vector<std::string>& values) {
  const Shape& ys = b.data(out).shape;
  std::vector<std::string> idx;
  for (size_t k = 0; k < ys.size(); ++k) idx.push_back(I(k));
  b.mappedTasklet("values", fullRangeParams(ys), {}, "y = " + selectChain(values, linearIndex(idx, ys)), {{"y", out, indexList(ys.size()), ""}});
}

Result expandShape(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  const Shape& xs = X->shape;
  int64_t r = int64_t(xs.size());
  int64_t start = ctx.attrInt("start", 0), end = ctx.attrInt("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<std::string> v;
  for (int64_t k = start; k < end; ++k) v.push_back(par(xs[size_t(k)]));
  SdfgBuilder b(ctx);
  writeValues(b, "shape", v);
  return b.finish();
}

Result expandSize(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "data"));
  SdfgBuilder b(ctx);
  std::string sz = par(product(X->shape));
  b.mappedTasklet("size", {}, {}, "y = " + sz, {{"y", "size", ctx.out("size") && !ctx.out("size")->shape.empty() ? "0" : "", ""}});
  return b.finish();
}

std::vector<double> tensorValues(const Tensor& t) {
  std::vector<double> v;
  int64_t n = t.elementCount();
  if (!t.bytes) return v;
  const char* p = t.bytes->data();
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype) {
#define DCW_CASE(DT, CT) case DType::DT: { CT x; std::memcpy(&x, p + i * sizeof(CT), sizeof(CT)); v.push_back(double(x)); break; }
      DCW_CASE(Float32, float) DCW_CASE(Float64, double) DCW_CASE(Int8, int8_t) DCW_CASE(Int16, int16_t) DCW_CASE(Int32, int32_t)
      DCW_CASE(Int64, int64_t) DCW_CASE(UInt8, uint8_t) DCW_CASE(UInt16, uint16_t) DCW_CASE(UInt32, uint32_t) DCW_CASE(UInt64, uint64_t)
      DCW_CASE(Bool, uint8_t)
#undef DCW_CASE
    default: return {};
    }
  }
  return v;
}

// Writes a constant: small ones as tasklet literals, larger ones as a constant transient copied in.
Result constantOut(const ExpansionContext& ctx, const std::string& out, const Tensor* t, std::vector<double> values, DType dt) {
  const DataDescriptor* outer = ctx.out(out);
  if (!outer) return ctx.error("output '" + out + "' is not connected");
  SdfgBuilder b(ctx);
  // The value fixes the shape even where shape inference left the output's rank unknown.
  DataDescriptor* Yd = b.sdfg().findData(out);
  if (!Yd->rankKnown) {
    Yd->shape.clear();
    if (t)
      for (auto d : t->dims) Yd->shape.emplace_back(d);
    else if (values.size() != 1 || ctx.hasAttr("value_floats") || ctx.hasAttr("value_ints"))
      Yd->shape.emplace_back(int64_t(values.size()));
    Yd->strides = DataDescriptor::contiguousStrides(Yd->shape);
    Yd->rankKnown = true;
    Yd->dataKind = Yd->shape.empty() ? DataKind::Scalar : DataKind::Array;
    Yd->dtype = dt;
  }
  if (t && values.size() > 64) {
    std::string c = b.transient("value", t->dtype, Yd->shape);
    auto* d = b.sdfg().findData(c);
    d->constant = std::make_shared<const Tensor>(*t);
    b.mappedTasklet("constant", fullRangeParams(Yd->shape), {{"x", c, indexList(Yd->shape.size())}}, "y = x",
                    {{"y", out, indexList(Yd->shape.size()), ""}});
    return b.finish();
  }
  std::vector<std::string> lits;
  if (t && t->dtype == DType::Int64 && t->bytes) { // exact, beyond the 53 bits a double holds
    for (int64_t i = 0; i < t->elementCount(); ++i) {
      int64_t v;
      std::memcpy(&v, t->bytes->data() + i * 8, 8);
      lits.push_back(v == INT64_MIN ? "(-9223372036854775807 - 1)" : num(v));
    }
  } else {
    for (double v : values) lits.push_back(literal(v, dt));
  }
  writeValues(b, out, lits);
  return b.finish();
}

Result expandConstant(const ExpansionContext& ctx) {
  auto* Y = ctx.out("output");
  DType dt = Y ? Y->dtype : DType::Float32;
  if (auto* a = ctx.node().attribute("value")) {
    if (auto* t = std::get_if<Tensor>(&a->value)) {
      if (t->dtype == DType::String) return ctx.error("string constants cannot be computed");
      auto v = tensorValues(*t);
      if (v.size() != size_t(t->elementCount())) return ctx.error("constant of type " + std::string(dtypeName(t->dtype)) + " is not supported");
      return constantOut(ctx, "output", t, v, t->dtype);
    }
  }
  if (ctx.hasAttr("value_float")) return constantOut(ctx, "output", nullptr, {ctx.attrFloat("value_float", 0)}, DType::Float32);
  if (ctx.hasAttr("value_int")) return constantOut(ctx, "output", nullptr, {double(ctx.attrInt("value_int", 0))}, DType::Int64);
  if (ctx.hasAttr("value_floats")) return constantOut(ctx, "output", nullptr, ctx.attrFloats("value_floats"), DType::Float32);
  if (ctx.hasAttr("value_ints")) {
    std::vector<double> v;
    for (auto x : ctx.attrInts("value_ints")) v.push_back(double(x));
    return constantOut(ctx, "output", nullptr, v, DType::Int64);
  }
  (void)dt;
  return ctx.error("Constant has no supported value attribute (value, value_float(s), value_int(s))", "string and sparse constants cannot be computed");
}

Result expandConstantOfShape(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, needOut(ctx, "output"));
  double v = 0;
  if (auto* a = ctx.node().attribute("value"))
    if (auto* t = std::get_if<Tensor>(&a->value)) {
      auto vals = tensorValues(*t);
      if (vals.size() != 1) return ctx.error("value must hold one element");
      v = vals[0];
    }
  SdfgBuilder b(ctx);
  size_t r = Y->shape.size();
  b.mappedTasklet("fill", fullRangeParams(Y->shape), {}, "y = " + literal(v, Y->dtype), {{"y", "output", indexList(r), ""}});
  return b.finish();
}

Result expandRange(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, needOut(ctx, "output"));
  if (Y->shape.size() != 1) return ctx.error("Range's output must be 1-D");
  SdfgBuilder b(ctx);
  auto sub = [&](const char* c) { return ctx.in(c) && !ctx.in(c)->shape.empty() ? std::string("0") : std::string(); };
  b.mappedTasklet("range", fullRangeParams(Y->shape), {{"s", "start", sub("start")}, {"d", "delta", sub("delta")}},
                  "y = s + " + (isFloating(Y->dtype) ? castTo(Y->dtype, "i0") : std::string("i0")) + " * d",
                  {{"y", "output", "i0", ""}});
  return b.finish();
}

Result expandEyeLike(const ExpansionContext& ctx) {
  DCW_TRY(auto Y, needOut(ctx, "output"));
  if (Y->shape.size() != 2) return ctx.error("EyeLike needs a 2-D tensor");
  int64_t k = ctx.attrInt("k", 0);
  SdfgBuilder b(ctx);
  DType t = Y->dtype;
  b.mappedTasklet("eye", fullRangeParams(Y->shape), {}, "y = select(i1 - i0 == " + num(k) + ", " + literal(1, t) + ", " + literal(0, t) + ")",
                  {{"y", "output", "i0, i1", ""}});
  return b.finish();
}

Result expandOneHot(const ExpansionContext& ctx) {
  DCW_CHECK(needIn(ctx, "indices"));
  DCW_TRY(auto Y, needOut(ctx, "output"));
  size_t r = Y->shape.size();
  auto axis = normAxis(ctx.attrInt("axis", -1), int64_t(r));
  if (!axis) return ctx.error("axis is out of range");
  std::vector<std::string> ii;
  for (size_t k = 0; k < r; ++k)
    if (k != size_t(*axis)) ii.push_back(I(k));
  std::string D = par(Y->shape[*axis]);
  SdfgBuilder b(ctx);
  b.mappedTasklet("onehot", fullRangeParams(Y->shape), {{"ind", "indices", join(ii)}, {"off", "values", "0"}, {"on", "values", "1"}},
                  "let j = int64(ind); let jw = select(j < 0, j + " + D + ", j); y = select(jw == " + I(size_t(*axis)) + ", on, off)",
                  {{"y", "output", indexList(r), ""}});
  return b.finish();
}

Result expandTrilu(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  size_t r = X->shape.size();
  if (r < 2) return ctx.error("Trilu needs rank >= 2");
  bool upper = ctx.attrInt("upper", 1) != 0;
  SdfgBuilder b(ctx);
  std::vector<TaskletIn> ins{{"x", "input", indexList(r)}};
  std::string k = "0";
  if (ctx.hasIn("k")) {
    if (auto c = ctx.constantInts("k"); c && c->size() == 1) k = num((*c)[0]);
    else {
      ins.push_back({"k", "k", ctx.in("k")->shape.empty() ? "" : "0"});
      k = "k";
    }
  }
  std::string d = I(r - 1) + " - " + I(r - 2);
  b.mappedTasklet("trilu", fullRangeParams(X->shape), ins,
                  "y = select(" + d + (upper ? " >= " : " <= ") + k + ", x, " + literal(0, X->dtype) + ")",
                  {{"y", "output", indexList(r), ""}});
  return b.finish();
}

Result expandDepthToSpace(const ExpansionContext& ctx, bool toSpace) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  DCW_TRY(auto Y, needOut(ctx, "output"));
  if (X->shape.size() != 4) return ctx.error("the input must be 4-D (N, C, H, W)");
  int64_t bs = ctx.attrInt("blocksize", 0);
  if (bs < 1) return ctx.error("blocksize must be >= 1");
  SdfgBuilder b(ctx);
  Read rd;
  Expr i1 = P("i1"), i2 = P("i2"), i3 = P("i3");
  if (toSpace) {
    Expr Cy = Y->shape[1];
    bool crd = ctx.attrString("mode", "DCR") == "CRD";
    Expr bh = sym::mod(i2, bs), bw = sym::mod(i3, bs);
    Expr c = crd ? i1 * (bs * bs) + bh * bs + bw : (bh * bs + bw) * Cy + i1;
    rd.idx = {"i0", c.str(), sym::floorDiv(i2, bs).str(), sym::floorDiv(i3, bs).str()};
  } else {
    Expr Cx = X->shape[1];
    Expr blk = sym::floorDiv(i1, Cx), c = sym::mod(i1, Cx);
    rd.idx = {"i0", c.str(), (i2 * bs + sym::floorDiv(blk, bs)).str(), (i3 * bs + sym::mod(blk, bs)).str()};
  }
  emitRead(b, toSpace ? "depth_to_space" : "space_to_depth", "input", "output", rd);
  return b.finish();
}

Result expandCumSum(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "x"));
  const Shape& xs = X->shape;
  int64_t r = int64_t(xs.size());
  bool exclusive = ctx.attrInt("exclusive", 0) != 0, reverse = ctx.attrInt("reverse", 0) != 0;
  std::vector<int64_t> candidates;
  std::optional<int64_t> axisC;
  if (auto a = ctx.constantInts("axis"); a && a->size() == 1) {
    axisC = normAxis((*a)[0], r);
    if (!axisC) return ctx.error("axis is out of range");
    candidates.push_back(*axisC);
  } else {
    for (int64_t k = 0; k < r; ++k) candidates.push_back(k); // run-time axis: one guarded map per possible axis
  }
  DType yt = ctx.out("y") ? ctx.out("y")->dtype : X->dtype;
  SdfgBuilder b(ctx);
  b.mappedTasklet("zero", fullRangeParams(xs), {}, "y = " + literal(0, yt), {{"y", "y", indexList(size_t(r)), ""}});
  for (int64_t a : candidates) {
    std::vector<MapParam> params = fullRangeParams(xs);
    params.push_back({"j", Range::full(xs[a])});
    std::vector<std::string> xi;
    for (int64_t k = 0; k < r; ++k) xi.push_back(k == a ? "j" : I(size_t(k)));
    std::string i = I(size_t(a));
    std::string cond = reverse ? (exclusive ? "j > " + i : "j >= " + i) : (exclusive ? "j < " + i : "j <= " + i);
    std::vector<TaskletIn> ins{{"x", "x", join(xi)}};
    if (!axisC) {
      ins.push_back({"ax", "axis", ctx.in("axis")->shape.empty() ? "" : "0"});
      cond = "(ax == " + std::to_string(a) + " || ax == " + std::to_string(a - r) + ") && " + cond;
    }
    b.mappedTasklet("cumsum", params, ins, "y = select(" + cond + ", x, " + literal(0, yt) + ")", {{"y", "y", indexList(size_t(r)), "sum"}});
  }
  return b.finish();
}

Result expandReverseSequence(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  const Shape& xs = X->shape;
  int64_t r = int64_t(xs.size());
  auto ba = normAxis(ctx.attrInt("batch_axis", 1), r), ta = normAxis(ctx.attrInt("time_axis", 0), r);
  if (!ba || !ta || *ba == *ta) return ctx.error("batch_axis and time_axis must be different axes");
  SdfgBuilder b(ctx);
  Read rd;
  rd.runtime = true;
  rd.extra.push_back({"len", "sequence_lens", I(size_t(*ba))});
  std::string t = I(size_t(*ta));
  rd.lets = "let L = int64(len); let t = select(" + t + " < L, L - 1 - " + t + ", " + t + "); ";
  for (int64_t k = 0; k < r; ++k) rd.idx.push_back(k == *ta ? "min(max(t, 0), " + par(xs[k] - 1) + ")" : I(size_t(k)));
  emitRead(b, "reverse_sequence", "input", "Y", rd);
  return b.finish();
}

Result expandCompress(const ExpansionContext& ctx) {
  DCW_TRY(auto X, needIn(ctx, "input"));
  const Tensor* c = ctx.constantIn("condition");
  if (!c) return expandCountedCompress(ctx);
  auto cv = tensorValues(*c);
  const Shape& xs = X->shape;
  bool hasAxis = ctx.hasAttr("axis");
  auto axis = hasAxis ? normAxis(ctx.attrInt("axis", 0), int64_t(xs.size())) : std::optional<int64_t>(0);
  if (!axis) return ctx.error("axis is out of range");
  std::vector<std::string> sel;
  for (size_t i = 0; i < cv.size(); ++i)
    if (cv[i] != 0) sel.push_back(std::to_string(i));
  SdfgBuilder b(ctx);
  Read rd;
  if (!hasAxis) { // the flattened input, read at the selected flat positions
    b.mappedTasklet("compress", fullRangeParams(b.data("output").shape), {{"x", "input", ""}},
                    "let p = " + selectChain(sel, "i0") + "; y = x[p]", {{"y", "output", "i0", ""}});
    return b.finish();
  }
  for (size_t k = 0; k < xs.size(); ++k) rd.idx.push_back(k == size_t(*axis) ? "p" : I(k));
  rd.runtime = true;
  rd.lets = "let p = " + selectChain(sel, I(size_t(*axis))) + "; ";
  emitRead(b, "compress", "input", "output", rd);
  return b.finish();
}

} // namespace

void registerTensorOps(ExpansionRegistry& r) {
  r.add("", "Reshape", "pure", [](const ExpansionContext& c) { return reshapeCopy(c, "data", "reshaped"); }, "copy with index arithmetic");
  r.add("", "Flatten", "pure", [](const ExpansionContext& c) { return reshapeCopy(c, "input", "output"); }, "copy with index arithmetic");
  r.add("", "Squeeze", "pure", [](const ExpansionContext& c) { return reshapeCopy(c, "data", "squeezed"); }, "copy dropping 1-dims");
  r.add("", "Unsqueeze", "pure", [](const ExpansionContext& c) { return reshapeCopy(c, "data", "expanded"); }, "copy inserting 1-dims");
  r.add("", "Transpose", "pure", expandTranspose, "map over the output reading the permuted index");
  r.add("", "Concat", "pure", expandConcat, "one copy map per input at its offset along the axis");
  r.add("", "Split", "pure", expandSplit, "one copy map per output from its offset along the axis");
  r.add("", "Slice", "pure", expandSlice, "map over the output reading start + i*step");
  r.add("", "Gather", "pure", expandGather, "map over the output; data read at the wrapped index");
  r.add("", "GatherElements", "pure", expandGatherElements, "map over the output; data read at the wrapped index along the axis");
  r.add("", "GatherND", "pure", expandGatherND, "map over the output; data read at the index tuple");
  r.add("", "ScatterElements", "pure", expandScatterElements, "copy, then matching updates (WCR sum/prod, or last match)");
  r.add("", "Scatter", "pure", expandScatterElements, "as ScatterElements");
  r.add("", "ScatterND", "pure", expandScatterND, "copy, then matching updates (WCR sum/prod, or last match)");
  r.add("", "Pad", "pure", expandPad, "map over the output: constant outside, edge clamps, reflect mirrors");
  r.add("", "Tile", "pure", expandTile, "map over the output reading i % dim");
  r.add("", "Expand", "pure", expandExpand, "broadcasting copy");
  r.add("", "Resize", "pure", expandResize, "nearest, n-linear or cubic interpolation map");
  r.add("", "Upsample", "pure", expandResize, "nearest, n-linear or cubic interpolation map");
  r.add("", "Shape", "pure", expandShape, "writes the (symbolic) dims");
  r.add("", "Size", "pure", expandSize, "writes the (symbolic) element count");
  r.add("", "Constant", "pure", expandConstant, "writes the constant value");
  r.add("", "ConstantOfShape", "pure", expandConstantOfShape, "fill map");
  r.add("", "Range", "pure", expandRange, "y[i] = start + i*delta");
  r.add("", "EyeLike", "pure", expandEyeLike, "ones on the k-th diagonal");
  r.add("", "OneHot", "pure", expandOneHot, "on where the wrapped index equals the position along the axis");
  r.add("", "Trilu", "pure", expandTrilu, "select of the upper or lower triangle");
  r.add("", "DepthToSpace", "pure", [](const ExpansionContext& c) { return expandDepthToSpace(c, true); }, "index arithmetic (DCR/CRD)");
  r.add("", "SpaceToDepth", "pure", [](const ExpansionContext& c) { return expandDepthToSpace(c, false); }, "index arithmetic");
  r.add("", "CumSum", "pure", expandCumSum, "map over output and axis positions with WCR sum");
  r.add("", "ReverseSequence", "pure", expandReverseSequence, "map over the output reading the reversed time index");
  r.add("", "Compress", "pure", expandCompress, "gather of the selected positions (a run-time condition: a counted C++ tasklet)");
}

} // namespace dcw::expansions
