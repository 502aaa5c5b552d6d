// `onednn` Conv and ConvTranspose: one oneDNN convolution_forward / deconvolution_forward
// (forward_inference) per node, 1 to 3 spatial dims, groups (depthwise included), strides,
// dilations, pads and auto_pad as ONNX defines them (TensorHelpers' window()).
//
//   Conv           X[N, C, D..] * W[M, C/g, K..] (+ B[M]) -> Y[N, M, O..]
//   ConvTranspose  X[N, C, I..] * W[C, M/g, K..] (+ B[M]) -> Y[N, M, O..]; the end pads follow from the
//                  output extents (output_padding and output_shape included).
// Weights are described plainly (the buffers DCW passes) and the primitive chooses their layout
// (format_tag::any): constant weights are reordered once. Activations come in two variants, timed on
// the first run: the primitive's preferred (blocked) layout with a reorder in and out on every run, or
// the layout of the arrays as they are (row-major: oneDNN's GEMM-based convolution, often faster for 1x1
// kernels; channels-last after ChannelsLast: the direct kernels, with no reorder).
// FusedConv and FusedConvTranspose (FusedOp.h) are the same primitive with their epilogue as
// post-ops (PostOps.h): Z summed into dst or added broadcast, then the activation; a Z of Y's shape
// doubles the variants (sum post-op or binary_add), the fastest again kept. A grouped convolution
// doubles them again with oneDNN's second implementation (depthwise: jit_dw beside brdgmm_dw).
// `onednn_winograd` (Conv, FusedConv; the user's opt-in per node) is the same call with oneDNN's Winograd
// algorithm, its error against the direct convolution measured on the first run.
// A 2-D convolution of one group on 1 to 4 input channels, a window of up to 25 taps, whose Y has its
// channels contiguous (channels-last: an image network's stem after ChannelsLast), with no Z and an
// activation of the list in fewChannelActivation, also gets DCW's own kernel as one more variant
// (convFewChannels in OneDnnRuntime.cpp): X read where it lies, no reorder, the activation in registers
// (SiLU and GELU too: the primitives' variants then run their pass over Y as the call's `finish`, so
// that the first run times like with like).
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/onednn/PostOps.h"
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/support/IntList.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

struct Geometry {
  std::vector<int64_t> x, w, y, b;      // dims
  std::string xDesc, yDesc;             // X's and Y's memory descriptors (any strides: channels-last too)
  Described xd, yd;                     // X and Y as described (strides, blocks)
  std::vector<int64_t> wGrouped;        // W as oneDNN sees it (a leading group dim when group > 1)
  std::vector<int64_t> strides, dilations, padL, padR;
  int64_t group = 1;
};

Expected<Geometry> geometry(const ExpansionContext& ctx, const std::string& op, bool transposed) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto W, th::needIn(ctx, "W"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  Geometry g;
  DCW_TRY(auto xd, describedOperand(ctx, op, "X", *X));
  g.x = xd.dims;
  g.xDesc = xd.desc;
  g.xd = xd;
  DCW_TRY(g.w, floatDims(ctx, op, "W", *W));
  DCW_TRY(auto yd, describedOperand(ctx, op, "Y", *Y));
  g.y = yd.dims;
  g.yDesc = yd.desc;
  g.yd = yd;
  if (auto* B = ctx.in("B")) {
    DCW_TRY(g.b, floatDims(ctx, op, "B", *B));
  }
  const size_t r = g.x.size();
  if (r < 3 || r > 5 || g.w.size() != r || g.y.size() != r)
    return ctx.error("onednn " + op + " takes X, W and Y of one rank from 3 to 5 (1 to 3 spatial dims); X is " + shapeText(g.x),
                     pureHint(ctx));
  g.group = ctx.attrInt("group", 1);
  const int64_t C = g.x[1], M = g.y[1];
  if (g.group < 1 || C % g.group || M % g.group) return ctx.error("group " + std::to_string(g.group) + " does not divide the channels");
  const int64_t wIn = transposed ? g.w[0] : g.w[1] * g.group, wOut = transposed ? g.w[1] * g.group : g.w[0];
  if (wIn != C || wOut != M)
    return ctx.error("W " + shapeText(g.w) + " does not fit X " + shapeText(g.x) + " and Y " + shapeText(g.y) + " with group " +
                     std::to_string(g.group));
  if (!g.b.empty() && (g.b.size() != 1 || g.b[0] != M)) return ctx.error("B must be 1-D with " + std::to_string(M) + " values");
  const std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  if (transposed && autoPad != "NOTSET" && autoPad != "VALID" && !autoPad.empty())
    return ctx.error("onednn ConvTranspose takes explicit pads; auto_pad is " + autoPad, pureHint(ctx));
  std::vector<int64_t> kernel(g.w.begin() + 2, g.w.end());
  th::Shape in, out;
  for (size_t k = 2; k < r; ++k) {
    in.push_back(sym::Expr(g.x[k]));
    out.push_back(sym::Expr(g.y[k]));
  }
  DCW_TRY(auto win, th::window(ctx, kernel, in, out));
  for (size_t k = 0; k < win.nd; ++k) {
    auto pl = win.padBegin[k].constantValue();
    auto pe = win.padEnd[k].constantValue();
    if (!pl || !pe) return ctx.error("the pads are symbolic", pureHint(ctx));
    const int64_t s = win.strides[k], d = win.dilations[k], extent = (kernel[k] - 1) * d + 1;
    if (s < 1 || d < 1) return ctx.error("strides and dilations must be positive");
    const int64_t in = g.x[k + 2], outExtent = g.y[k + 2];
    // oneDNN's output extent: (in + pl + pr - extent) / s + 1 for a convolution, rounded down (the
    // last rows past a full stride are dropped, as in ONNX), and (in - 1) * s + extent - pl - pr for a
    // deconvolution. ONNX's own end pad is used when it gives the extent shape inference computed.
    auto fits = [&](int64_t pr) {
      return transposed ? (in - 1) * s + extent - *pl - pr == outExtent : in + *pl + pr - extent >= 0 && (in + *pl + pr - extent) / s + 1 == outExtent;
    };
    int64_t pr = *pe;
    if (!transposed && !fits(pr)) pr = (outExtent - 1) * s + extent - in - *pl;
    if (transposed) pr = (in - 1) * s + extent - *pl - outExtent;
    if (*pl < 0 || pr < 0 || !fits(pr))
      return ctx.error("onednn " + op + " needs non-negative pads that give the output extent " + std::to_string(outExtent) +
                           (transposed ? " (output_padding beyond the pads is not supported)" : ""),
                       pureHint(ctx));
    g.strides.push_back(s);
    g.dilations.push_back(d - 1); // oneDNN counts the gap between taps
    g.padL.push_back(*pl);
    g.padR.push_back(pr);
  }
  // W's leading dim (M for Conv, C for ConvTranspose) splits into the groups.
  g.wGrouped = g.w;
  if (g.group > 1) {
    g.wGrouped.insert(g.wGrouped.begin(), g.group);
    g.wGrouped[1] /= g.group;
  }
  return g;
}

// The make statements of DCW's few-channel convolution (see the header), or "" where it does not take
// the node: every operand passed as it is (X, W, B, Y), and the kernel run on them, with W packed by the
// call (FewChannelWeights: once while it is constant).
Expected<std::string> fewChannelVariant(const ExpansionContext& ctx, const Geometry& g) {
  const int64_t C = g.x.size() == 4 ? g.x[1] : 0;
  if (g.x.size() != 4 || g.group != 1 || C < 1 || C > kFewChannelMaxChannels || g.xd.block > 0 || g.yd.block > 0 || g.yd.strides.size() != 4 ||
      (g.y[1] > 1 && g.yd.strides[1] != 1))
    return std::string();
  // Windows of up to 25 taps: on 7x7 ones (ResNet-50, GoogLeNet, SqueezeNet, DenseNet-121) oneDNN's
  // kernel does the arithmetic faster than the reorder it saves (first-run timings, 2 threads: 0.58-0.63
  // against 0.60-0.70 ms), and the first run's timing, on warm caches, would be a toss-up.
  if (g.w[2] * g.w[3] > kFewChannelMaxTaps) return std::string();
  int act = 0;
  double a0 = 0, a1 = 0;
  if (ctx.node().domain == fused::kDomain) {
    DCW_TRY(auto ep, fused::epilogueOf(ctx));
    if (ep.hasZ || ep.alpha != 1.0) return std::string();
    if (ep.activation) {
      const std::string& op = ep.activation->op;
      const std::vector<double>& p = ep.params;
      if (op == "Relu") act = 1;
      else if (op == "LeakyRelu") act = 2, a0 = p.at(0);
      else if (op == "Clip") act = 3, a0 = p.at(0), a1 = p.at(1);
      else if (op == "HardSigmoid") act = 4, a0 = p.at(0), a1 = p.at(1);
      else if (op == "HardSwish") act = 5;
      else if (op == fused::kSilu) act = 6;
      else if (op == fused::kGelu) act = 7;
      else return std::string();
    }
  }
  const int64_t M = g.w[0], KH = g.w[2], KW = g.w[3];
  auto list = [](const std::vector<int64_t>& v) { return joinInts(v, ", "); };
  std::string make = "#ifndef __AVX512F__\nthrow std::runtime_error(\"DCW's few-channel convolution needs AVX-512\");\n#endif\n";
  const bool bias = !g.b.empty();
  make += std::string(bias ? "dcw_k.pass();\n" : "") + "dcw_k.pass();\ndcw_k.pass();\ndcw_k.pass();\n";
  make += "auto dcw_w = std::make_shared<FewChannelWeights>();\n";
  make += "dcw_k.then = [dcw_w](Call& k) {\n";
  make += "  FewChannelConv g;\n";
  make += "  const long geometry[] = {" +
          list({g.x[0], C, g.x[2], g.x[3], M, g.y[2], g.y[3], KH, KW, g.strides[0], g.strides[1], g.dilations[0] + 1, g.dilations[1] + 1,
                g.padL[0], g.padL[1], (M + 15) / 16 * 16}) +
          "};\n";
  make += "  long* to[] = {&g.n, &g.c, &g.h, &g.w, &g.m, &g.oh, &g.ow, &g.kh, &g.kw, &g.sh, &g.sw, &g.dh, &g.dw, &g.ph, &g.pw, &g.mp};\n";
  make += "  for (size_t q = 0; q < 16; ++q) *to[q] = geometry[q];\n";
  make += "  const long xs[] = {" + list(g.xd.strides) + "}, ys[] = {" + list(g.yd.strides) + "};\n";
  make += "  std::copy(xs, xs + 4, g.xs);\n  std::copy(ys, ys + 4, g.ys);\n";
  make += "  g.a0 = " + floatLiteral(a0) + ";\n  g.a1 = " + floatLiteral(a1) + ";\n";
  make += "  const float* w = dcw_w->get(static_cast<const float*>(k.ops[1].pointer), g, " + constantFlag(ctx, "W") + ");\n";
  make += "  convFewChannels<" + std::to_string(act) + ">(static_cast<const float*>(k.ops[0].pointer), w, " +
          std::string(bias ? "static_cast<const float*>(k.ops[2].pointer)" : "nullptr") + ", static_cast<float*>(const_cast<void*>(k.ops[" +
          (bias ? "3" : "2") + "].pointer)), g);\n";
  make += "};\n";
  return make;
}

// `onednn_winograd`: the user's opt-in, per node, to oneDNN's Winograd convolution — faster on 3x3
// kernels (fewer multiplications) but approximate: its error against the direct convolution is
// measured on the first run's inputs and printed (stderr), every time a program with such a node loads.
ImplementationDecl winogradDecl() { return ImplementationDecl{"onednn_winograd", {"cpu"}, {"onednn"}, false}; }

Expected<std::unique_ptr<Sdfg>> expandConv(const ExpansionContext& ctx, bool transposed, bool winograd = false) {
  const std::string op = ctx.node().opType;
  DCW_TRY(auto g, geometry(ctx, op, transposed));
  if (winograd) {
    auto refuse = [&](const std::string& why) {
      return ctx.error("onednn_winograd takes 2-D 3x3 convolutions with stride 1, no dilation and one group; " + why,
                       "choose implementation onednn (the direct convolution) for this node");
    };
    if (g.x.size() != 4) return refuse("this one has " + std::to_string(g.x.size() - 2) + " spatial dims");
    if (g.w[2] != 3 || g.w[3] != 3) return refuse("this kernel is " + std::to_string(g.w[2]) + "x" + std::to_string(g.w[3]));
    if (g.strides != std::vector<int64_t>{1, 1}) return refuse("this one has strides " + dimsText(g.strides));
    if (g.dilations != std::vector<int64_t>{0, 0}) return refuse("this one is dilated");
    if (g.group != 1) return refuse("this one has " + std::to_string(g.group) + " groups");
  }
  DCW_TRY(auto post, postOps(ctx, op, g.y, 1));
  const bool bias = !g.b.empty();
  // oneDNN's weights: convolution [g][O][I][K..], deconvolution [g][O][I][K..] described over ONNX's
  // [g][I][O][K..] buffer (strides swap I and O).
  std::string wUser = "plain(" + dimsText(g.wGrouped) + ")";
  std::vector<int64_t> wPrim = g.wGrouped;
  if (transposed) {
    const size_t o = g.group > 1 ? 1 : 0; // index of the first of the (I, O) pair in ONNX order
    std::vector<int64_t> onnx = g.wGrouped, strides(onnx.size(), 1);
    for (size_t k = onnx.size(); k-- > 1;) strides[k - 1] = strides[k] * onnx[k];
    std::swap(wPrim[o], wPrim[o + 1]);
    std::vector<int64_t> primStrides = strides;
    std::swap(primStrides[o], primStrides[o + 1]);
    wUser = "strided(" + dimsText(wPrim) + ", " + dimsText(primStrides) + ")";
  }
  const std::string ns = transposed ? "dnnl::deconvolution_forward" : "dnnl::convolution_forward";
  // Variants: activations in the primitive's blocked layout or plain (and, for a Z of Y's shape, the
  // sum post-op or a binary_add one): the first run keeps the fastest.
  const int variants = post.zTwoWays ? 4 : 2;
  // A grouped convolution (depthwise: MobileNet, EfficientNet) also tries oneDNN's second implementation
  // of each variant: on AVX-512, oneDNN 2.6 lists brdgmm_dw first, and jit_dw runs the depthwise
  // convolutions of MobileNetV2/V3 and EfficientNet-B0 5-30% faster (2 threads). Dense convolutions keep
  // the first (brgconv beats the next on every ResNet-50 shape measured).
  const bool alternatives = g.group > 1 && !winograd;
  // `algorithm`: one of oneDNN's, or an expression of the variant (Winograd or direct, timed).
  auto makeWith = [&](const std::string& algorithm) {
  std::string make = "const int dcw_layout = dcw_variant % " + std::to_string(variants) + ";\n";
  make += "const bool dcw_blocked = dcw_layout % 2 == 0;\n";
  if (post.zTwoWays) make += "const bool dcw_sum = dcw_layout < 2;\n";
  make += "const auto x = " + g.xDesc + ";\n";
  make += "const auto w = " + wUser + ";\n";
  make += "const auto y = " + g.yDesc + ";\n";
  if (bias) make += "const auto b = plain(" + dimsText(g.b) + ");\n";
  make += "const " + ns + "::desc d(dnnl::prop_kind::forward_inference, " +
          (algorithm.find('?') == std::string::npos ? "dnnl::algorithm::" + algorithm : algorithm) + ",\n";
  make += "    dcw_blocked ? any(" + dimsText(g.x) + ") : x, any(" + dimsText(wPrim) + "), " + (bias ? "b, " : "") + "dcw_blocked ? any(" +
          dimsText(g.y) + ") : y,\n";
  make += "    " + dimsText(g.strides) + ", " + dimsText(g.dilations) + ", " + dimsText(g.padL) + ", " + dimsText(g.padR) + ");\n";
  make += post.attr;
  make += std::string(alternatives ? "" : "const ") + ns + "::primitive_desc pd(d, " + post.attrArg() + "engine);\n";
  if (alternatives) {
    // The next implementation of another name: a descriptor whose primitive is in oneDNN's cache
    // starts from the cached implementation, and its next_impl() comes back to that one first.
    make += "if (dcw_variant >= " + std::to_string(variants) + ") {\n";
    make += "  const std::string first = pd.impl_info_str();\n";
    make += "  bool other = false;\n";
    make += "  while (!other && pd.next_impl()) other = first != pd.impl_info_str();\n";
    make += "  if (!other) throw std::runtime_error(\"oneDNN has one implementation of this convolution\");\n";
    make += "}\n";
  }
  make += "dcw_k.prim = " + ns + "(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_WEIGHTS, w, pd.weights_desc(), false, " + constantFlag(ctx, "W") + ");\n";
  if (bias) make += "dcw_k.add(DNNL_ARG_BIAS, b, pd.bias_desc(), false, " + constantFlag(ctx, "B") + ");\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  make += post.operands;
  return make;
  };
  const std::string direct = transposed ? "deconvolution_direct" : "convolution_direct";

  std::vector<std::string> ins{"X", "W"}, buffers{"X", "W"};
  if (bias) ins.push_back("B"), buffers.push_back("B");
  buffers.push_back("Y");
  ins.insert(ins.end(), post.inputs.begin(), post.inputs.end());
  buffers.insert(buffers.end(), post.buffers.begin(), post.buffers.end());
  const std::string comment = "oneDNN " + std::string(transposed ? "deconvolution" : "convolution") + ": Y[" + shapeText(g.y) +
                              "] from X[" + shapeText(g.x) + "], W[" + shapeText(g.w) + "]" + (bias ? " + B" : "") +
                              ", group " + std::to_string(g.group) + post.text;
  // FLOPs: each output (Conv) or input (ConvTranspose) position takes a K.. x C/g (M/g) dot product.
  const int64_t taps = product(g.w, 2);
  const int64_t flops = (transposed ? 2 * product(g.x) * (g.y[1] / g.group) * taps : 2 * product(g.y) * (g.x[1] / g.group) * taps) +
                        post.flops * product(g.y);
  std::string code;
  std::string own;
  if (!winograd && !transposed) {
    DCW_TRY(own, fewChannelVariant(ctx, g));
  }
  if (!winograd && !own.empty()) {
    // DCW's few-channel convolution as the last variant. It applies the activation itself, so a pass
    // after the call (SiLU, GELU on a dense Y) becomes the primitives' `finish`: timed with them.
    std::string primitive = makeWith(direct);
    if (!post.after.empty()) {
      const std::string pass = post.after.find("siluInPlace") != std::string::npos ? "siluInPlace" : "geluInPlace";
      primitive += "dcw_k.finish = [](Call& k) { " + pass + "(static_cast<float*>(const_cast<void*>(k.ops[" + std::string(bias ? "3" : "2") +
                   "].pointer)), " + std::to_string(product(g.y)) + "L); };\n";
      post.after.clear();
    }
    code = callCode(comment + "; or DCW's few-channel convolution (timed: the fastest kept)",
                    "if (dcw_variant == " + std::to_string(variants) + ") {\n" + own + "} else {\n" + primitive + "}\n", buffers, variants + 1);
  } else if (!winograd) {
    code = callCode(comment + (alternatives ? " (oneDNN's first two implementations timed, the faster kept)" : ""), makeWith(direct), buffers,
                    alternatives ? 2 * variants : variants);
  } else {
    // The call's variants are Winograd's and the direct convolution's (each layout), timed on the first
    // run like any variants: the faster is kept, so an opt-in never runs slower than the direct
    // convolution. Before it, the first run computes both algorithms alone on the same inputs (Y as it
    // was before, for a sum post-op) and prints how far Winograd is from the direct result, and which
    // one the call kept.
    const std::string either = callCode(comment + " (Winograd or direct, the faster kept)",
                                        makeWith("dcw_variant < " + std::to_string(variants) +
                                                 " ? dnnl::algorithm::convolution_winograd : dnnl::algorithm::convolution_direct"),
                                        buffers, 2 * variants);
    const std::string wino = callCode(comment + " (Winograd, to measure its error)", makeWith("convolution_winograd"), buffers, variants);
    std::string where;
    for (char ch : ctx.path()) where += (ch == '"' || ch == '\\' || ch == '%') ? '_' : ch;
    code = "static bool dcw_checked = false;\n"
           "bool dcw_report = false;\n"
           "double dcw_diff = 0, dcw_ref = 0;\n"
           "if (!dcw_checked) {\n"
           "  dcw_checked = true;\n"
           "  dcw_report = true;\n"
           "  const size_t dcw_n = " + std::to_string(product(g.y)) + ";\n"
           "  std::vector<float> dcw_before(Y, Y + dcw_n);\n"
           "  {\n" + callCode(comment + " (direct, to measure the Winograd error)", makeWith(direct), buffers, variants) +
           "  dcw_call.reset();\n  }\n"
           "  std::vector<float> dcw_direct(Y, Y + dcw_n);\n"
           "  std::copy(dcw_before.begin(), dcw_before.end(), Y);\n"
           "  {\n" + wino + "  dcw_call.reset();\n  }\n"
           "  for (size_t dcw_i = 0; dcw_i < dcw_n; ++dcw_i) {\n"
           "    dcw_diff = std::max(dcw_diff, double(std::fabs(Y[dcw_i] - dcw_direct[dcw_i])));\n"
           "    dcw_ref = std::max(dcw_ref, double(std::fabs(dcw_direct[dcw_i])));\n"
           "  }\n"
           "  std::copy(dcw_before.begin(), dcw_before.end(), Y);\n"
           "}\n" + either +
           "if (dcw_report)\n"
           "  std::fprintf(stderr, \"dcw: " + where + ": Winograd convolution against the direct one on the first run's inputs: "
           "max |difference| %.3g, max |output| %.3g (relative %.3g); kept %s\\n\", dcw_diff, dcw_ref, dcw_ref > 0 ? dcw_diff / dcw_ref : 0.0,\n"
           "               dcw_call->kept() < " + std::to_string(variants) + " ? \"Winograd (faster here)\" : \"the direct convolution (faster here)\");\n";
  }
  code += post.after;
  SdfgBuilder bld(ctx);
  bld.cppTasklet(transposed ? "onednn_deconvolution" : winograd ? "onednn_winograd_convolution" : "onednn_convolution", ins, code, {"Y"},
                 {"onednn"}, sym::Expr(flops), post.inPlace());
  return bld.finish();
}

} // namespace

void registerConvolutions(ExpansionRegistry& r) {
  r.add("", "Conv", decl(), [](const ExpansionContext& c) { return expandConv(c, false); },
        "one oneDNN convolution (float32; groups, strides, dilations, pads; weights reordered once); a C++ tasklet, not differentiable");
  r.add("", "ConvTranspose", decl(), [](const ExpansionContext& c) { return expandConv(c, true); },
        "one oneDNN deconvolution (float32; groups, strides, dilations, pads); a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedConv", decl(), [](const ExpansionContext& c) { return expandConv(c, false); },
        "one oneDNN convolution with Z and the activation as post-ops (sum or binary_add, eltwise); a C++ tasklet, not differentiable");
  r.add("", "Conv", winogradDecl(), [](const ExpansionContext& c) { return expandConv(c, false, true); },
        "opt-in: oneDNN's Winograd convolution (2-D 3x3, stride 1, one group): faster, approximate — the error against the direct "
        "convolution is measured on the first run and printed; a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedConv", winogradDecl(), [](const ExpansionContext& c) { return expandConv(c, false, true); },
        "opt-in: oneDNN's Winograd convolution with the post-ops (2-D 3x3, stride 1, one group), its error against the direct "
        "convolution measured on the first run and printed; a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedConvTranspose", decl(), [](const ExpansionContext& c) { return expandConv(c, true); },
        "one oneDNN deconvolution with Z and the activation as post-ops (sum or binary_add, eltwise); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
