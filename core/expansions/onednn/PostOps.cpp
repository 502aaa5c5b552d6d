#include "core/expansions/onednn/PostOps.h"

#include "core/expansions/FusedOp.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions::onednn {

namespace {

// The eltwise post-ops of an activation: (algorithm, alpha, beta) each.
struct Eltwise {
  std::string algorithm;
  double alpha = 0, beta = 0;
};

std::vector<Eltwise> eltwiseOf(const fused::Activation& a, const std::vector<double>& p) {
  const std::string& op = a.op;
  if (op == "Relu") return {{"eltwise_relu"}};
  if (op == "LeakyRelu") return {{"eltwise_relu", p[0]}};
  if (op == "Elu") return {{"eltwise_elu", p[0]}};
  if (op == "Sigmoid") return {{"eltwise_logistic"}};
  if (op == "Tanh") return {{"eltwise_tanh"}};
  if (op == "HardSwish") return {{"eltwise_hardswish"}};
  if (op == "Softplus") return {{"eltwise_soft_relu"}};
  if (op == "Clip") return {{"eltwise_clip_v2", p[0], p[1]}};
  if (op == "HardSigmoid") return {{"eltwise_linear", p[0], p[1]}, {"eltwise_clip_v2", 0, 1}};
  if (op == fused::kGelu) return {{"eltwise_gelu_erf"}};
  if (op == fused::kSilu) return {{"eltwise_swish", 1.0}};
  return {};
}

} // namespace

Expected<PostOps> postOps(const ExpansionContext& ctx, const std::string& op, const std::vector<int64_t>& y, size_t channel,
                          bool zGivenToPrimitive, std::vector<int64_t> zDims) {
  PostOps p;
  p.fused = ctx.node().domain == fused::kDomain;
  if (!p.fused) return p;
  DCW_TRY(auto ep, fused::epilogueOf(ctx));
  std::string make;
  // FusedMatMul's alpha: a linear post-op first, so that Z is added to the scaled product.
  const std::string zIndex = ep.alpha != 1.0 ? "1" : "0";
  if (ep.alpha != 1.0) {
    if (zGivenToPrimitive) return ctx.error("onednn " + op + " cannot scale its product when Z is its bias");
    make += "po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, " + floatLiteral(ep.alpha) + ", 0.0f);\n";
    p.flops += 1;
    p.text += " times " + floatLiteral(ep.alpha) + " (linear post-op)";
  }
  if (ep.hasZ && !zGivenToPrimitive) {
    DCW_TRY(auto Z, th::needIn(ctx, "Z"));
    // Z may have any strides when it has Y's dims (a channels-last residual); broadcast, it is row-major.
    DCW_TRY(auto zd, describedOperand(ctx, op, "Z", *Z));
    std::vector<int64_t> z = zDims.empty() ? zd.dims : zDims;
    if (z.size() > y.size()) return ctx.error("Z " + shapeText(z) + " has a higher rank than Y " + shapeText(y));
    z.insert(z.begin(), y.size() - z.size(), 1);
    for (size_t k = 0; k < y.size(); ++k)
      if (z[k] != y[k] && z[k] != 1)
        return ctx.error("Z " + shapeText(z) + " does not broadcast to Y " + shapeText(y), pureHint(ctx));
    p.inputs.push_back("Z");
    p.buffers.push_back("Z");
    if (!zd.rowMajor && (!zDims.empty() || z != y))
      return ctx.error("onednn " + op + " reads a broadcast Z as a row-major array; Z has strides " + dimsText(zd.strides).substr(4),
                       "copy it into a row-major array first, or " + pureHint(ctx));
    if (z == y) {
      // Two ways, chosen by the caller's `dcw_sum` (its variants): the sum post-op, or a binary_add
      // reading Z where it is (no copy into the output first).
      const std::string desc = zDims.empty() ? zd.desc : "plain(" + dimsText(z) + ")";
      make += "if (dcw_sum) po.append_sum(1.0f);\nelse po.append_binary(dnnl::algorithm::binary_add, " + desc + ");\n";
      p.operands = "if (dcw_sum) dcw_k.addSum(" + desc + ");\nelse {\n  dcw_k.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(" + zIndex + ") | DNNL_ARG_SRC_1, " +
                   desc + ", " + desc + ", false);\n  dcw_k.apartFromDst();\n}\n";
      p.text += " + Z (sum or binary_add post-op)";
      p.zTwoWays = true;
      // Y may take Z's storage (the sum post-op then adds Z where it lies; the CPU arena checks that
      // the two are laid out alike).
      p.zInPlace = true;
    } else {
      bool perChannel = true, scalar = true;
      for (size_t k = 0; k < z.size(); ++k) {
        if (z[k] != 1) scalar = false;
        if (k != channel && z[k] != 1) perChannel = false;
      }
      if (!scalar && !perChannel)
        return ctx.error("onednn " + op + " adds a Z broadcast to Y only as one value or one value per channel; Z is " + shapeText(z) +
                             " for Y " + shapeText(y),
                         pureHint(ctx));
      make += "po.append_binary(dnnl::algorithm::binary_add, plain(" + dimsText(z) + "));\n";
      p.operands = "dcw_k.add(DNNL_ARG_ATTR_MULTIPLE_POST_OP(" + zIndex + ") | DNNL_ARG_SRC_1, plain(" + dimsText(z) + "), plain(" +
                   dimsText(z) + "), false, " + constantFlag(ctx, "Z") + ");\n";
      p.text += " + Z[" + shapeText(z) + "] (binary_add post-op)";
    }
    p.flops += 1;
  }
  // SiLU and GELU on a dense Y of 4096 or more elements: DCW's pass after the call instead of the eltwise
  // post-op (PostOps.h); on fewer, the post-op costs less than a call of the pass.
  const ir::DataDescriptor* Y = ctx.out("Y");
  bool denseY = false;
  if (Y) {
    auto yd = describedOperand(ctx, op, "Y", *Y);
    denseY = yd && yd->dense && product(yd->dims) == product(y) && product(y) >= 4096;
  }
  if (ep.activation && denseY && (ep.activation->op == fused::kSilu || ep.activation->op == fused::kGelu)) {
    const bool silu = ep.activation->op == fused::kSilu;
    p.after = std::string("dcw_env_onednn::") + (silu ? "siluInPlace" : "geluInPlace") + "(Y, " + std::to_string(product(y)) + "L);\n";
    p.flops += silu ? 4 : 8;
    p.text += ", then " + ep.activation->op + " (a vectorized pass over Y after the call: faster than oneDNN's " +
              (silu ? "swish" : "gelu_erf") + " post-op)";
  } else if (ep.activation) {
    auto elt = eltwiseOf(*ep.activation, ep.params);
    if (elt.empty()) return ctx.error("onednn " + op + " has no post-op for activation " + ep.activation->op, pureHint(ctx));
    for (auto& e : elt) {
      make += "po.append_eltwise(1.0f, dnnl::algorithm::" + e.algorithm + ", " + floatLiteral(e.alpha) + ", " + floatLiteral(e.beta) + ");\n";
      p.flops += 1;
    }
    p.text += ", then " + ep.activation->op + " (eltwise post-op)";
  }
  if (!make.empty()) p.attr = "dnnl::post_ops po;\n" + make + "dnnl::primitive_attr attr;\nattr.set_post_ops(po);\n";
  return p;
}

} // namespace dcw::expansions::onednn
