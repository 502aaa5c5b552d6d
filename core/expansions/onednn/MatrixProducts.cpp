// `onednn` MatMul and Gemm: one oneDNN matmul primitive per node.
//
//   MatMul  A[..., M, K] x B[..., K, N] -> Y[..., M, N], numpy semantics: batch dims broadcast (a dim of 1
//           against a larger one), a 1-D A is [1, K] (M dropped from Y), a 1-D B is [K, 1] (N dropped).
//   Gemm    Y[M, N] = op(A) op(B) + C with op = transpose when transA/transB: the transposes are
//           strides of the operand's description, not copies; C (scalar, [N], [1, N], [M, 1], [M, N])
//           is the primitive's broadcast bias. alpha and beta other than 1 are refused (pure has them).
// A constant B (weights) is described with format_tag::any and reordered once into the layout the
// primitive prefers; activations stay in their plain layout. A B shared by every batch (batch dims 1)
// makes one 2-D product: A's batch dims fold into M.
// MatMul's A and B may have any strides (a strided view, core/ir/View.h), and Y too when there is no
// Z: they are described so, and oneDNN reads and writes them in place. FusedMatMul and FusedGemm (FusedOp.h) are the same primitive with their epilogue: FusedMatMul's Z of
// shape [.., 1, N] (a linear layer's bias) as the matmul's bias, any other Z and the activation as
// post-ops (PostOps.h).
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/onednn/PostOps.h"
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"
#include "core/ir/View.h"

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

// The description of a MatMul operand with the primitive's `dims` (batch dims padded in front, 1-D
// promoted, or folded into rows): plain when it is row-major, else its strides with those of the
// padded dims of extent 1 spanning the operand.
std::string operandDesc(const Described& d, const std::vector<int64_t>& dims) {
  if (d.rowMajor) return "plain(" + dimsText(dims) + ")";
  // Dims padded in front get a stride each; dims folded away (all of extent 1) lose theirs.
  std::vector<int64_t> strides(dims.size() - std::min(dims.size(), d.strides.size()), 1);
  strides.insert(strides.end(), d.strides.end() - std::min(dims.size(), d.strides.size()), d.strides.end());
  ir::fillUnitStrides(dims, strides);
  return "strided(" + dimsText(dims) + ", " + dimsText(strides) + ")";
}

Expected<std::unique_ptr<Sdfg>> expandMatMul(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  // A and B may have any strides (a strided view: an attention head read in place, transposed).
  DCW_TRY(auto ad, describedOperand(ctx, "MatMul", "A", *A));
  DCW_TRY(auto bd, describedOperand(ctx, "MatMul", "B", *B));
  // Y too, without Z (a strided view written through: the attention's heads merged in place).
  DCW_TRY(auto yd, describedOperand(ctx, "MatMul", "Y", *Y));
  const std::vector<int64_t>& ys = yd.dims;
  if (!yd.rowMajor && (yd.block > 0 || ys.size() < 2 || (ctx.node().domain == fused::kDomain && ctx.hasIn("Z"))))
    return ctx.error("onednn MatMul writes a strided Y of rank 2 or more, without Z; Y has strides " + dimsText(yd.strides).substr(4),
                     pureHint(ctx));
  for (const auto* d : {&ad, &bd})
    if (d->block > 0 || (!d->rowMajor && d->dims.size() < 2))
      return ctx.error("onednn MatMul takes matrices of any strides, and " + std::string(d == &ad ? "A" : "B") + " is " +
                           (d->block > 0 ? "in channel blocks" : "a strided vector"),
                       pureHint(ctx));
  const std::vector<int64_t>& as = ad.dims;
  const std::vector<int64_t>& bs = bd.dims;
  // The oneDNN view: both operands as matrices (1-D promoted), batch dims padded to one rank.
  DCW_TRY(auto mm, th::matmulOperands(ctx, as, bs, ys));
  std::vector<int64_t> a = mm.a, b = mm.b, y = mm.y;
  const size_t rank = mm.rank;
  const int64_t M = mm.M, K = mm.K, N = mm.N, batch = mm.batch;

  // FusedMatMul: Z broadcasts to the ONNX output (Y without the dims a 1-D operand drops); in the
  // primitive's dims a Z of shape [.., 1, N] is the matmul's bias, any other Z a post-op.
  std::vector<int64_t> z, bias;
  double alpha = 1.0; // FusedMatMul's scale of the product: then Z is a post-op, not the bias
  if (ctx.node().domain == fused::kDomain) {
    DCW_TRY(auto ep, fused::epilogueOf(ctx));
    alpha = ep.alpha;
  }
  if (const DataDescriptor* Z = ctx.node().domain == fused::kDomain ? ctx.in("Z") : nullptr) {
    DCW_TRY(z, floatDims(ctx, "FusedMatMul", "Z", *Z));
    if (z.size() > ys.size()) return ctx.error("Z " + shapeText(z) + " has a higher rank than Y " + shapeText(ys));
    z.insert(z.begin(), ys.size() - z.size(), 1);
    if (as.size() == 1) z.insert(z.end() - (z.empty() ? 0 : 1), 1); // M, dropped from Y
    if (bs.size() == 1) z.push_back(1);                                // N, dropped from Y
    z.insert(z.begin(), rank - std::min(rank, z.size()), 1);
    if (z.size() == rank && z.back() == N && product(z) == N && alpha == 1.0) bias = z;
  }
  // Weights shared by every batch (B's batch dims all 1, as in a linear layer applied to [seq, batch,
  // features]) make one matrix product: A's and Y's batch dims fold into M (they are contiguous rows).
  // Batched, each product had M rows only (M = 1 for a sequence-first transformer: 128 products of one
  // row each, 10x slower), and oneDNN 2.6 keeps 3-D weights in the plain layout even when asked for any.
  bool sharedB = rank > 2 && batch > 0 && ad.rowMajor && yd.rowMajor;
  for (size_t k = 0; k + 2 < rank; ++k) sharedB = sharedB && b[k] == 1;
  const bool zFolds = z.empty() || !bias.empty() || z == y;
  if (sharedB && zFolds) {
    const int64_t rows = batch * M;
    a = {rows, K};
    b = {K, N};
    y = {rows, N};
    if (!bias.empty()) bias = {1, N};
    if (!z.empty()) z = bias.empty() ? y : bias;
  }
  DCW_TRY(auto post, postOps(ctx, ctx.node().opType, y, y.size() - 1, !bias.empty(), z));
  const bool packB = ctx.constantIn("B") != nullptr;
  std::string make;
  if (post.zTwoWays) make += "const bool dcw_sum = dcw_variant == 0;\n";
  make += "const auto a = " + operandDesc(ad, a) + ";\n";
  make += "const auto b = " + operandDesc(bd, b) + ";\n";
  make += "const auto y = " + operandDesc(yd, y) + ";\n";
  if (!bias.empty()) make += "const auto c = plain(" + dimsText(bias) + ");\n";
  make += post.attr;
  make += "const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, " + std::string(packB ? "any(" + dimsText(b) + ")" : "b") +
          (bias.empty() ? "" : ", c") + ", y), " + post.attrArg() + "engine);\n";
  make += "dcw_k.prim = dnnl::matmul(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, a, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_WEIGHTS, b, pd.weights_desc(), false, " + constantFlag(ctx, "B") + ");\n";
  if (!bias.empty()) make += "dcw_k.add(DNNL_ARG_BIAS, c, pd.bias_desc(), false, " + constantFlag(ctx, "Z") + ");\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  make += post.operands;
  std::vector<std::string> ins{"A", "B"}, buffers{"A", "B"};
  if (!bias.empty()) ins.push_back("Z"), buffers.push_back("Z");
  buffers.push_back("Y");
  ins.insert(ins.end(), post.inputs.begin(), post.inputs.end());
  buffers.insert(buffers.end(), post.buffers.begin(), post.buffers.end());
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_matmul", ins,
                 callCode("oneDNN matmul: Y[" + shapeText(y) + "] = A[" + shapeText(a) + "] x B[" + shapeText(b) + "]" +
                              (bias.empty() ? "" : " + Z[" + shapeText(bias) + "] (bias)") + post.text,
                          make, buffers, post.zTwoWays ? 2 : 1) +
                     post.after,
                 {"Y"}, {"onednn"}, sym::Expr(2 * batch * M * N * K + (post.flops + (bias.empty() ? 0 : 1)) * product(y)), post.inPlace());
  return bld.finish();
}

Expected<std::unique_ptr<Sdfg>> expandGemm(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto as, floatDims(ctx, "Gemm", "A", *A));
  DCW_TRY(auto bs, floatDims(ctx, "Gemm", "B", *B));
  DCW_TRY(auto ys, floatDims(ctx, "Gemm", "Y", *Y));
  std::vector<int64_t> cs;
  const DataDescriptor* C = ctx.in("C");
  if (C) {
    DCW_TRY(cs, floatDims(ctx, "Gemm", "C", *C));
  }
  if (as.size() != 2 || bs.size() != 2 || ys.size() != 2) return ctx.error("Gemm takes matrices A and B");
  const double alpha = ctx.attrFloat("alpha", 1.0), beta = ctx.attrFloat("beta", 1.0);
  if (alpha != 1.0 || (C && beta != 1.0))
    return ctx.error("onednn Gemm supports alpha = beta = 1; this node has alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta),
                     pureHint(ctx));
  const bool tA = ctx.attrInt("transA", 0) != 0, tB = ctx.attrInt("transB", 0) != 0;
  const int64_t M = tA ? as[1] : as[0], K = tA ? as[0] : as[1], N = tB ? bs[0] : bs[1];
  if ((tB ? bs[1] : bs[0]) != K) return ctx.error("inner dims differ: A is " + shapeText(as) + ", B is " + shapeText(bs));
  if (ys[0] != M || ys[1] != N) return ctx.error("Y " + shapeText(ys) + " is not " + std::to_string(M) + "x" + std::to_string(N));
  // C as a [1|M, 1|N] bias.
  std::vector<int64_t> bias;
  if (C) {
    if (cs.size() == 0) bias = {1, 1};
    else if (cs.size() == 1) bias = {1, cs[0]};
    else if (cs.size() == 2) bias = cs;
    if (bias.empty() || (bias[0] != 1 && bias[0] != M) || (bias[1] != 1 && bias[1] != N))
      return ctx.error("C " + shapeText(cs) + " does not broadcast to Y " + shapeText(ys));
  }
  auto operand = [](bool transposed, int64_t rows, int64_t cols) {
    return transposed ? "strided(dims{" + std::to_string(rows) + ", " + std::to_string(cols) + "}, dims{1, " + std::to_string(rows) + "})"
                      : "plain(dims{" + std::to_string(rows) + ", " + std::to_string(cols) + "})";
  };
  DCW_TRY(auto post, postOps(ctx, ctx.node().opType, {M, N}, 1));
  const bool packB = ctx.constantIn("B") != nullptr;
  std::string make;
  if (post.zTwoWays) make += "const bool dcw_sum = dcw_variant == 0;\n";
  make += "const auto a = " + operand(tA, M, K) + ";\n";
  make += "const auto b = " + operand(tB, K, N) + ";\n";
  make += "const auto y = plain(dims{" + std::to_string(M) + ", " + std::to_string(N) + "});\n";
  if (C) make += "const auto c = plain(" + dimsText(bias) + ");\n";
  make += post.attr;
  make += "const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, " +
          std::string(packB ? "any(dims{" + std::to_string(K) + ", " + std::to_string(N) + "})" : "b") + (C ? ", c" : "") + ", y), " + post.attrArg() + "engine);\n";
  make += "dcw_k.prim = dnnl::matmul(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, a, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_WEIGHTS, b, pd.weights_desc(), false, " + constantFlag(ctx, "B") + ");\n";
  if (C) make += "dcw_k.add(DNNL_ARG_BIAS, c, pd.bias_desc(), false, " + constantFlag(ctx, "C") + ");\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  make += post.operands;
  std::vector<std::string> ins{"A", "B"};
  if (C) ins.push_back("C");
  std::vector<std::string> buffers = ins;
  buffers.push_back("Y");
  ins.insert(ins.end(), post.inputs.begin(), post.inputs.end());
  buffers.insert(buffers.end(), post.buffers.begin(), post.buffers.end());
  auto dims2 = [](int64_t r, int64_t c) { return "[" + std::to_string(r) + "x" + std::to_string(c) + "]"; };
  std::string comment = "oneDNN matmul for Gemm: Y" + dims2(M, N) + " = " + (tA ? "A^T" : "A") + dims2(M, K) + " x " + (tB ? "B^T" : "B") +
                        dims2(K, N) + (C ? " + C" : "") + post.text;
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_gemm", ins, callCode(comment, make, buffers, post.zTwoWays ? 2 : 1) + post.after, {"Y"}, {"onednn"}, sym::Expr(2 * M * N * K + post.flops * M * N),
                 post.inPlace());
  return bld.finish();
}

} // namespace

void registerMatrixProducts(ExpansionRegistry& r) {
  r.add("", "MatMul", decl(), expandMatMul,
        "one oneDNN matmul (float32, batch dims broadcast; constant weights packed once); a C++ tasklet, not differentiable");
  r.add("", "Gemm", decl(), expandGemm,
        "one oneDNN matmul with transposes as strides and C as bias (float32, alpha = beta = 1); a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedMatMul", decl(), expandMatMul,
        "one oneDNN matmul, Z [.., 1, N] as its bias, any other Z and the activation as post-ops; a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedGemm", decl(), expandGemm,
        "one oneDNN matmul for the Gemm with Z and the activation as post-ops; a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
