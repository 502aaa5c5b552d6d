// `onednn` pooling: MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool as one oneDNN
// pooling_v2_forward (forward_inference) per node, 1 to 3 spatial dims.
//
//   MaxPool / AveragePool  X[N, C, D..] -> Y[N, C, O..]; kernel_shape, strides, dilations, pads and
//                          auto_pad as ONNX defines them; ceil_mode through the end pad that gives the
//                          output extent shape inference computed (padding never counts for max, and
//                          for average only with count_include_pad, which is refused with ceil_mode).
//                          MaxPool's Indices output is refused (pure has it).
//   Global*Pool            the window is the whole spatial extent.
// A MaxPool of 2 spatial dims on channels-last X and Y also gets DCW's own kernel as a second variant,
// timed against the primitive on the first run (maxPoolChannelsLast in OneDnnRuntime.cpp).
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

enum class Kind { Max, Average };

// Whether an operand of 4 dims is channels-last and dense (N, H, W, C in memory; strides of dims of
// extent 1 say nothing).
bool channelsLastDense(const Described& d) {
  if (d.block > 0 || d.dims.size() != 4 || d.strides.size() != 4) return false;
  const std::vector<int64_t>& n = d.dims;
  const std::vector<int64_t> want{n[1] * n[2] * n[3], 1, n[3] * n[1], n[1]};
  for (size_t k = 0; k < 4; ++k)
    if (n[k] > 1 && d.strides[k] != want[k]) return false;
  return true;
}

Expected<std::unique_ptr<Sdfg>> expandPool(const ExpansionContext& ctx, Kind kind, bool global) {
  const std::string op = std::string(global ? "Global" : "") + (kind == Kind::Max ? "MaxPool" : "AveragePool");
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  if (ctx.hasOut("Indices")) return ctx.error("onednn MaxPool does not compute Indices", pureHint(ctx));
  DCW_TRY(auto xd, describedOperand(ctx, op, "X", *X));
  DCW_TRY(auto yd, describedOperand(ctx, op, "Y", *Y));
  const std::vector<int64_t>& x = xd.dims;
  const std::vector<int64_t>& y = yd.dims;
  if (x.size() < 3 || x.size() > 5 || y.size() != x.size() || x[0] != y[0] || x[1] != y[1])
    return ctx.error("onednn " + op + " takes X and Y of one rank from 3 to 5 with the same N and C; X is " + shapeText(x) + ", Y " +
                         shapeText(y),
                     pureHint(ctx));
  const size_t nd = x.size() - 2;
  std::vector<int64_t> kernel, strides, dilations, padL, padR;
  if (global) {
    kernel.assign(x.begin() + 2, x.end());
    strides.assign(nd, 1);
    dilations.assign(nd, 0);
    padL.assign(nd, 0);
    padR.assign(nd, 0);
  } else {
    kernel = ctx.attrInts("kernel_shape");
    if (kernel.size() != nd) return ctx.error("kernel_shape must have " + std::to_string(nd) + " values");
    th::Shape in, out;
    for (size_t k = 0; k < nd; ++k) {
      in.push_back(sym::Expr(x[k + 2]));
      out.push_back(sym::Expr(y[k + 2]));
    }
    DCW_TRY(auto win, th::window(ctx, kernel, in, out));
    const bool ceil = ctx.attrInt("ceil_mode", 0) != 0;
    const bool includePad = kind == Kind::Average && ctx.attrInt("count_include_pad", 0) != 0;
    if (ceil && includePad) return ctx.error("onednn AveragePool does not combine ceil_mode with count_include_pad", pureHint(ctx));
    for (size_t k = 0; k < nd; ++k) {
      auto pl = win.padBegin[k].constantValue();
      auto pe = win.padEnd[k].constantValue();
      if (!pl || !pe) return ctx.error("the pads are symbolic", pureHint(ctx));
      const int64_t s = win.strides[k], d = win.dilations[k], extent = (kernel[k] - 1) * d + 1;
      // oneDNN's output extent is (in + pl + pr - extent) / s + 1, rounded down: ONNX's end pad when it
      // gives the extent shape inference computed, else (ceil_mode) the end pad that does.
      auto fits = [&](int64_t pr) { return x[k + 2] + *pl + pr - extent >= 0 && (x[k + 2] + *pl + pr - extent) / s + 1 == y[k + 2]; };
      int64_t pr = *pe;
      if (!fits(pr)) pr = (y[k + 2] - 1) * s + extent - x[k + 2] - *pl;
      if (*pl < 0 || pr < 0 || !fits(pr)) return ctx.error("onednn " + op + " needs non-negative pads that give the output extent", pureHint(ctx));
      if (includePad && pr != *pe) return ctx.error("the output extent does not follow from the pads", pureHint(ctx));
      // A window that starts in the end padding would see no input (oneDNN's average divides by zero).
      if (pr >= extent || *pl >= extent) return ctx.error("onednn " + op + " needs pads smaller than the window", pureHint(ctx));
      strides.push_back(s);
      dilations.push_back(d - 1);
      padL.push_back(*pl);
      padR.push_back(pr);
    }
  }
  const std::string alg = kind == Kind::Max ? "pooling_max"
                          : (!global && ctx.attrInt("count_include_pad", 0) != 0) ? "pooling_avg_include_padding"
                                                                                   : "pooling_avg_exclude_padding";
  std::string make;
  // X and Y as they are (row-major or channels-last); the primitive's Y takes X's layout (any), and
  // is reordered into Y's when they differ.
  make += "const auto x = " + xd.desc + ";\n";
  make += "const auto y = " + yd.desc + ";\n";
  make += "const dnnl::pooling_v2_forward::primitive_desc pd(dnnl::pooling_v2_forward::desc(dnnl::prop_kind::forward_inference,\n";
  make += "    dnnl::algorithm::" + alg + ", x, any(" + dimsText(y) + "), " + dimsText(strides) + ", " + dimsText(kernel) + ", " + dimsText(dilations) + ", " +
          dimsText(padL) + ", " + dimsText(padR) + "), engine);\n";
  make += "dcw_k.prim = dnnl::pooling_v2_forward(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  std::string comment = "oneDNN " + alg + ": Y[" + shapeText(y) + "] from X[" + shapeText(x) + "], window " + shapeText(kernel);
  // The second variant of a max pooling of 2 spatial dims on channels-last X and Y: DCW's
  // maxPoolChannelsLast (OneDnnRuntime.cpp), timed against the primitive on the first run.
  const bool own = kind == Kind::Max && !global && nd == 2 && channelsLastDense(xd) && channelsLastDense(yd);
  if (own) {
    std::vector<int64_t> args{x[0], x[1], x[2], x[3], y[2], y[3], kernel[0], kernel[1], strides[0], strides[1], dilations[0] + 1, dilations[1] + 1,
                              padL[0], padL[1]};
    std::string list;
    for (int64_t a : args) list += ", " + std::to_string(a);
    std::string mine = "dcw_k.pass();\ndcw_k.pass();\n";
    mine += "dcw_k.then = [](Call& k) {\n";
    mine += "  maxPoolChannelsLast(static_cast<const float*>(k.ops[0].pointer), static_cast<float*>(const_cast<void*>(k.ops[1].pointer))" + list + ");\n";
    mine += "};\n";
    make = "if (dcw_variant == 0) {\n" + make + "} else {\n" + mine + "}\n";
    comment += "; or DCW's channels-last max pooling (timed: the faster kept)";
  }
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_pooling", {"X"}, callCode(comment, make, {"X", "Y"}, own ? 2 : 1), {"Y"}, {"onednn"},
                 sym::Expr(product(y) * product(kernel)));
  return bld.finish();
}

} // namespace

void registerPooling(ExpansionRegistry& r) {
  r.add("", "MaxPool", decl(), [](const ExpansionContext& c) { return expandPool(c, Kind::Max, false); },
        "one oneDNN max pooling (float32, no Indices output); a C++ tasklet, not differentiable");
  r.add("", "AveragePool", decl(), [](const ExpansionContext& c) { return expandPool(c, Kind::Average, false); },
        "one oneDNN average pooling (float32); a C++ tasklet, not differentiable");
  r.add("", "GlobalMaxPool", decl(), [](const ExpansionContext& c) { return expandPool(c, Kind::Max, true); },
        "one oneDNN max pooling over all spatial positions (float32); a C++ tasklet, not differentiable");
  r.add("", "GlobalAveragePool", decl(), [](const ExpansionContext& c) { return expandPool(c, Kind::Average, true); },
        "one oneDNN average pooling over all spatial positions (float32); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
