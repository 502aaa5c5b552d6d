// `onednn` normalizations and softmax: one oneDNN primitive per node (float32, forward_inference).
//
//   BatchNormalization  X[N, C, D..] with scale, B, input_mean, input_var [C] -> Y (inference: global
//                       statistics; the training outputs are refused). FusedBatchNormalization
//                       (FusedOp.h) with activation Relu is the same primitive with fuse_norm_relu
//                       (oneDNN 2.6 takes no post-ops on a batch normalization: any other epilogue
//                       is refused, and pure has it).
//   LayerNormalization  X seen as [outer, inner] with inner = the dims from `axis` on; Scale (and B) of
//                       the inner shape; Mean / InvStdDev outputs are refused.
//   Softmax, LogSoftmax one axis from opset 13; before 13 the input is seen as [outer, inner] at `axis`;
//                       where the axis is innermost, also DCW's softmax of whole rows (softmaxRows),
//                       timed against the primitive on the first run.
//   Concat              one concat primitive along `axis`; or, where every operand is dense and laid out
//                       as the result (channels-last along C: a row per pixel), DCW's copy of whole rows
//                       (concatRows), timed against it on the first run.
//   ConcatBatchNormalization (FusedOp.h) the concat, then the batch normalization in place on Y; or
//                       DCW's copy of whole rows that normalizes as it copies (concatNormRows), timed.
//   ShuffledConcat      (FusedOp.h) one concat primitive along a new axis after the channels, of Y seen
//                       as [N, C, K, ..] (channel K c + k from piece k).
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <optional>
#include <sstream>

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

Expected<std::unique_ptr<Sdfg>> expandBatchNorm(const ExpansionContext& ctx) {
  if (ctx.attrInt("training_mode", 0) != 0 || ctx.outputs().size() > 1)
    return ctx.error("onednn BatchNormalization computes inference only (no training_mode, one output)", pureHint(ctx));
  bool relu = false;
  if (ctx.node().domain == fused::kDomain) {
    DCW_TRY(auto ep, fused::epilogueOf(ctx));
    if (ep.hasZ || (ep.activation && ep.activation->op != "Relu"))
      return ctx.error("onednn FusedBatchNormalization fuses Relu alone (oneDNN's fuse_norm_relu; it takes no post-ops)",
                       pureHint(ctx));
    relu = ep.activation != nullptr;
  }
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto xd, describedOperand(ctx, "BatchNormalization", "X", *X));
  DCW_TRY(auto yd, describedOperand(ctx, "BatchNormalization", "Y", *Y));
  const std::vector<int64_t>& x = xd.dims;
  if (x.size() < 2 || x != yd.dims) return ctx.error("X must have rank >= 2 and Y its shape");
  for (const char* c : {"scale", "B", "input_mean", "input_var"}) {
    DCW_TRY(auto d, th::needIn(ctx, c));
    DCW_TRY(auto v, floatDims(ctx, "BatchNormalization", c, *d));
    if (v.size() != 1 || v[0] != x[1]) return ctx.error(std::string(c) + " must hold " + std::to_string(x[1]) + " values");
  }
  const std::string c = "plain(dims{" + std::to_string(x[1]) + "})";
  std::string make = "const auto x = " + xd.desc + ";\n";
  make += "const auto y = " + yd.desc + ";\n";
  make += "const auto c = " + c + ";\n";
  make += "const dnnl::batch_normalization_forward::primitive_desc pd(dnnl::batch_normalization_forward::desc(\n";
  make += "    dnnl::prop_kind::forward_inference, x, " + floatLiteral(ctx.attrFloat("epsilon", 1e-5)) + ",\n";
  make += "    dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift" +
          std::string(relu ? " | dnnl::normalization_flags::fuse_norm_relu" : "") + "), engine);\n";
  make += "dcw_k.prim = dnnl::batch_normalization_forward(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_SCALE, c, c, false);\n";
  make += "dcw_k.add(DNNL_ARG_SHIFT, c, c, false);\n";
  make += "dcw_k.add(DNNL_ARG_MEAN, c, c, false);\n";
  make += "dcw_k.add(DNNL_ARG_VARIANCE, c, c, false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_batchnorm", {"X", "scale", "B", "input_mean", "input_var"},
                 callCode("oneDNN batch normalization (inference) of X[" + shapeText(x) + "]" + (relu ? ", then relu (the fuse_norm_relu post-op)" : ""), make,
                          {"X", "scale", "B", "input_mean", "input_var", "Y"}),
                 {"Y"}, {"onednn"}, sym::Expr((relu ? 3 : 2) * product(x)));
  return bld.finish();
}

Expected<std::unique_ptr<Sdfg>> expandLayerNorm(const ExpansionContext& ctx) {
  if (ctx.outputs().size() > 1) return ctx.error("onednn LayerNormalization computes Y only (no Mean, InvStdDev)", pureHint(ctx));
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto S, th::needIn(ctx, "Scale"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto x, floatDims(ctx, "LayerNormalization", "X", *X));
  DCW_TRY(auto y, floatDims(ctx, "LayerNormalization", "Y", *Y));
  DCW_TRY(auto s, floatDims(ctx, "LayerNormalization", "Scale", *S));
  auto axis = th::normAxis(ctx.attrInt("axis", -1), int64_t(x.size()));
  if (!axis || x.empty() || x != y) return ctx.error("axis out of range, or Y differs from X in shape");
  const int64_t outer = product(x, 0, size_t(*axis)), inner = product(x, size_t(*axis));
  const bool shift = ctx.hasIn("B");
  if (product(s) != inner) return ctx.error("onednn LayerNormalization needs Scale of the normalized shape", pureHint(ctx));
  if (shift) {
    DCW_TRY(auto B, th::needIn(ctx, "B"));
    DCW_TRY(auto b, floatDims(ctx, "LayerNormalization", "B", *B));
    if (product(b) != inner) return ctx.error("onednn LayerNormalization needs B of the normalized shape", pureHint(ctx));
  }
  std::string make = "const auto x = plain(dims{" + std::to_string(outer) + ", " + std::to_string(inner) + "});\n";
  make += "const auto c = plain(dims{" + std::to_string(inner) + "});\n";
  make += "const dnnl::layer_normalization_forward::primitive_desc pd(dnnl::layer_normalization_forward::desc(\n";
  make += "    dnnl::prop_kind::forward_inference, x, " + floatLiteral(ctx.attrFloat("epsilon", 1e-5)) +
          ", dnnl::normalization_flags::use_scale" + (shift ? " | dnnl::normalization_flags::use_shift" : "") + "), engine);\n";
  make += "dcw_k.prim = dnnl::layer_normalization_forward(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_SCALE, c, c, false);\n";
  if (shift) make += "dcw_k.add(DNNL_ARG_SHIFT, c, c, false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, x, pd.dst_desc(), true);\n";
  std::vector<std::string> ins{"X", "Scale"};
  if (shift) ins.push_back("B");
  std::vector<std::string> buffers = ins;
  buffers.push_back("Y");
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_layernorm", ins,
                 callCode("oneDNN layer normalization of " + std::to_string(outer) + " rows of " + std::to_string(inner), make, buffers), {"Y"},
                 {"onednn"}, sym::Expr(5 * product(x)));
  return bld.finish();
}

Expected<std::unique_ptr<Sdfg>> expandSoftmax(const ExpansionContext& ctx, bool log) {
  const std::string op = log ? "LogSoftmax" : "Softmax";
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  DCW_TRY(auto x, floatDims(ctx, op, "input", *X));
  DCW_TRY(auto y, floatDims(ctx, op, "output", *Y));
  if (x.empty() || x != y) return ctx.error("output differs from input in shape, or the input is a scalar");
  const bool v13 = ctx.node().opsetVersion >= 13;
  auto axis = th::normAxis(ctx.attrInt("axis", v13 ? -1 : 1), int64_t(x.size()));
  if (!axis) return ctx.error("axis out of range");
  std::vector<int64_t> view = x;
  int64_t a = *axis;
  if (!v13) { // everything from axis on is one row
    view = {product(x, 0, size_t(a)), product(x, size_t(a))};
    a = 1;
  }
  std::string make = "const auto x = plain(" + dimsText(view) + ");\n";
  make += "const dnnl::softmax_v2_forward::primitive_desc pd(dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,\n";
  make += "    dnnl::algorithm::" + std::string(log ? "softmax_log" : "softmax_accurate") + ", x, x, " + std::to_string(a) + "), engine);\n";
  make += "dcw_k.prim = dnnl::softmax_v2_forward(pd);\n";
  make += "dcw_k.add(DNNL_ARG_SRC, x, pd.src_desc(), false);\n";
  make += "dcw_k.add(DNNL_ARG_DST, x, pd.dst_desc(), true);\n";
  std::string comment = "oneDNN " + std::string(log ? "log-softmax" : "softmax") + " of " + shapeText(view) + " along axis " + std::to_string(a);
  // The second variant, where the axis is innermost (rows of consecutive floats): DCW's softmaxRows,
  // timed against the primitive on the first run.
  const int64_t n = view[size_t(a)], inner = product(view, size_t(a) + 1);
  const bool rows = inner == 1 && n > 0;
  if (rows) {
    std::string own = "dcw_k.pass();\ndcw_k.pass();\n";
    own += "dcw_k.then = [](Call& k) {\n";
    own += "  softmaxRows(static_cast<const float*>(k.ops[0].pointer), static_cast<float*>(const_cast<void*>(k.ops[1].pointer)), " +
           std::to_string(product(view) / n) + ", " + std::to_string(n) + ", " + (log ? "true" : "false") + ");\n";
    own += "};\n";
    make = "if (dcw_variant == 0) {\n" + make + "} else {\n" + own + "}\n";
    comment += "; or DCW's rows of " + std::to_string(n) + " (timed: the faster kept)";
  }
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_softmax", {"input"}, callCode(comment, make, {"input", "output"}, rows ? 2 : 1), {"output"}, {"onednn"},
                 sym::Expr(4 * product(x)));
  return bld.finish();
}

// Concat's rows (concatRows in OneDnnRuntime.cpp) when every operand is dense and laid out as the
// result: the dims the result stores outside the axis (larger strides) in the same order for all, the
// dims inside it dense after the axis. `outer` rows; a piece's row is its extent along the axis times
// the inner element count. Dims of extent 1 are skipped (their strides say nothing). Empty when the
// operands are laid out otherwise (oneDNN's concat alone then). Channels in blocks of b, along the
// channels, all alike: a batch's blocks follow each other, so a row is a batch and the inner count the
// spatial positions (block b: each position's b channels adjacent, which concatNormRows must know).
struct ConcatRows {
  int64_t outer = 1, inner = 1;
  int block = 0;
};
std::optional<ConcatRows> concatRowsOf(const std::vector<Described>& pieces, const Described& y, size_t axis) {
  if (y.block || std::any_of(pieces.begin(), pieces.end(), [](const Described& p) { return p.block > 0; })) {
    if (axis != 1 || std::any_of(pieces.begin(), pieces.end(), [&](const Described& p) { return p.block != y.block; }))
      return std::nullopt;
    return ConcatRows{y.dims[0], product(y.dims, 2), y.block};
  }
  std::vector<size_t> order; // y's dims other than the axis, of extent > 1, outermost first
  for (size_t d = 0; d < y.dims.size(); ++d)
    if (d != axis && y.dims[d] > 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return y.strides[a] > y.strides[b]; });
  ConcatRows r;
  std::vector<size_t> outer, inner;
  for (size_t d : order) (y.strides[d] > y.strides[axis] || y.dims[axis] == 1 ? outer : inner).push_back(d);
  for (size_t d : outer) r.outer *= y.dims[d];
  for (size_t d : inner) r.inner *= y.dims[d];
  // The strides each operand must have: inner dims dense, the axis over them, outer dims over a row.
  auto expected = [&](const Described& x) {
    std::vector<int64_t> s(x.dims.size(), 0);
    int64_t step = 1;
    for (size_t k = inner.size(); k-- > 0;) s[inner[k]] = step, step *= x.dims[inner[k]];
    s[axis] = step;
    step *= x.dims[axis];
    for (size_t k = outer.size(); k-- > 0;) s[outer[k]] = step, step *= x.dims[outer[k]];
    return s;
  };
  for (const Described* x : [&] {
         std::vector<const Described*> all{&y};
         for (auto& p : pieces) all.push_back(&p);
         return all;
       }()) {
    if (!x->dense) return std::nullopt;
    const auto want = expected(*x);
    for (size_t d = 0; d < x->dims.size(); ++d)
      if (x->dims[d] > 1 && x->strides[d] != want[d]) return std::nullopt;
  }
  return r;
}

// The lines of a `then` that name the pieces for concatRows / concatNormRows: x[], the pieces' buffers
// (the call's first operands), and chunk[], each piece's floats in a row.
std::string rowPieces(const std::vector<Described>& pieces, const ConcatRows& rows, size_t axis) {
  std::string chunks, pointers;
  for (size_t k = 0; k < pieces.size(); ++k) {
    chunks += (k ? ", " : "") + std::to_string(pieces[k].dims[axis] * rows.inner);
    pointers += (k ? ", " : "") + std::string("static_cast<const float*>(k.ops[") + std::to_string(k) + "].pointer)";
  }
  return "  const float* x[] = {" + pointers + "};\n  const long chunk[] = {" + chunks + "};\n";
}

// The lines of a `make` that build a oneDNN concat of srcs into y along `axis` and bind its sources (each
// piece as the caller described it); the destination is added by the caller.
std::string concatPrimitive(int64_t axis) {
  return "const dnnl::concat::primitive_desc pd(y, " + std::to_string(axis) + ", srcs, engine);\n"
         "dcw_k.prim = dnnl::concat(pd);\n"
         "for (size_t k = 0; k < srcs.size(); ++k) dcw_k.add(DNNL_ARG_MULTIPLE_SRC + int(k), srcs[k], srcs[k], false);\n";
}

Expected<std::unique_ptr<Sdfg>> expandConcat(const ExpansionContext& ctx) {
  auto ins = ctx.inputs();
  DCW_TRY(auto Y, th::needOut(ctx, "concat_result"));
  DCW_TRY(auto yd, describedOperand(ctx, "Concat", "concat_result", *Y));
  const std::vector<int64_t>& y = yd.dims;
  auto axis = th::normAxis(ctx.attrInt("axis", 0), int64_t(y.size()));
  if (!axis || ins.empty()) return ctx.error("axis out of range, or no inputs");
  std::string make = "std::vector<dnnl::memory::desc> srcs;\n";
  int64_t along = 0;
  std::vector<Described> pieces;
  for (auto& i : ins) {
    DCW_TRY(auto X, th::needIn(ctx, i));
    DCW_TRY(auto xd, describedOperand(ctx, "Concat", i, *X));
    if (xd.dims.size() != y.size()) return ctx.error(i + " has another rank than the result");
    along += xd.dims[size_t(*axis)];
    make += "srcs.push_back(" + xd.desc + ");\n";
    pieces.push_back(std::move(xd));
  }
  if (along != y[size_t(*axis)]) return ctx.error("the inputs do not add up to the result along the axis");
  make += "const auto y = " + yd.desc + ";\n";
  make += concatPrimitive(*axis);
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  std::string comment = "oneDNN concat of " + std::to_string(ins.size()) + " inputs along axis " + std::to_string(*axis) + " into " + shapeText(y);
  // The second variant, where the operands are laid out alike: DCW's copy of whole rows (concatRows),
  // timed against the primitive on the first run.
  const auto rows = concatRowsOf(pieces, yd, size_t(*axis));
  if (rows) {
    std::string own;
    for (size_t k = 0; k <= pieces.size(); ++k) own += "dcw_k.pass();\n";
    own += "dcw_k.then = [](Call& k) {\n";
    own += rowPieces(pieces, *rows, size_t(*axis));
    own += "  concatRows(static_cast<float*>(const_cast<void*>(k.ops[" + std::to_string(pieces.size()) + "].pointer)), x, chunk, " +
           std::to_string(pieces.size()) + ", " + std::to_string(rows->outer) + ", " + std::to_string(y[size_t(*axis)] * rows->inner) + ");\n";
    own += "};\n";
    make = "if (dcw_variant == 0) {\n" + make + "} else {\n" + own + "}\n";
    comment += "; or DCW's copy of " + std::to_string(rows->outer) + " whole rows (timed: the faster kept)";
  }
  std::vector<std::string> buffers = ins;
  buffers.push_back("concat_result");
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_concat", ins, callCode(comment, make, buffers, rows ? 2 : 1), {"concat_result"}, {"onednn"}, sym::Expr(0));
  return bld.finish();
}

// ShuffledConcat (FusedOp.h): Y[n, K c + k, ..] = inputs_k[n, c, ..] is a concat along a new axis after
// the channels: Y seen as [N, C, K, ..] with strides (s0, K s1, s1, ..) and each piece as [N, C, 1, ..].
// One oneDNN concat along axis 2, whatever the layouts (a channels-last piece is reordered as it is
// copied).
Expected<std::unique_ptr<Sdfg>> expandShuffledConcat(const ExpansionContext& ctx) {
  auto ins = ctx.inputs();
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto yd, describedOperand(ctx, "ShuffledConcat", "Y", *Y));
  const int64_t K = int64_t(ins.size());
  if (K < 2 || yd.dims.size() < 2) return ctx.error("ShuffledConcat needs two pieces or more, of rank 2 or more");
  auto split = [](const std::vector<int64_t>& v, int64_t channelsBy, int64_t inner) {
    std::vector<int64_t> r{v[0], channelsBy, inner};
    r.insert(r.end(), v.begin() + 2, v.end());
    return r;
  };
  std::string make = "std::vector<dnnl::memory::desc> srcs;\n";
  for (auto& i : ins) {
    if (!fused::isConcatPiece(i)) return ctx.error("input '" + i + "' is not a piece (inputs_k)");
    DCW_TRY(auto X, th::needIn(ctx, i));
    DCW_TRY(auto xd, describedOperand(ctx, "ShuffledConcat", i, *X));
    if (xd.block || yd.block)
      return ctx.error("onednn ShuffledConcat interleaves channels through strides, and '" + (xd.block ? i : std::string("Y")) +
                           "' has its channels in blocks", pureHint(ctx));
    if (xd.dims.size() != yd.dims.size() || xd.dims[1] * K != yd.dims[1])
      return ctx.error("piece '" + i + "' " + shapeText(xd.dims) + " is not Y " + shapeText(yd.dims) + " with a " + std::to_string(K) +
                       "th of its channels");
    auto dims = xd.dims, strides = xd.strides;
    dims.insert(dims.begin() + 2, 1);
    strides.insert(strides.begin() + 2, xd.strides[1]);
    make += "srcs.push_back(strided(" + dimsText(dims) + ", " + dimsText(strides) + "));\n";
  }
  const int64_t C = yd.dims[1] / K;
  std::vector<int64_t> ydims = split(yd.dims, C, K), ystrides = split(yd.strides, yd.strides[1] * K, yd.strides[1]);
  make += "const auto y = strided(" + dimsText(ydims) + ", " + dimsText(ystrides) + ");\n";
  make += concatPrimitive(2);
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  const std::string comment = "oneDNN concat of " + std::to_string(K) + " pieces into " + shapeText(yd.dims) +
                              ", interleaved (channel K c + k from piece k: a concat along axis 2 of Y seen as " + shapeText(ydims) + ")";
  std::vector<std::string> buffers = ins;
  buffers.push_back("Y");
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_shuffled_concat", ins, callCode(comment, make, buffers), {"Y"}, {"onednn"}, sym::Expr(0));
  return bld.finish();
}

// ConcatBatchNormalization (FusedOp.h): the pieces concatenated along the channels, normalized (and
// Relu'd). Variant 0: oneDNN's concat into Y, then its batch normalization in place on Y; variant 1,
// where the operands are laid out alike: DCW's copy that normalizes as it copies (concatNormRows).
Expected<std::unique_ptr<Sdfg>> expandConcatBatchNorm(const ExpansionContext& ctx) {
  DCW_TRY(auto ep, fused::epilogueOf(ctx));
  if (ep.hasZ || (ep.activation && ep.activation->op != "Relu"))
    return ctx.error("onednn ConcatBatchNormalization ends with Relu or nothing (oneDNN's fuse_norm_relu)", pureHint(ctx));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto yd, describedOperand(ctx, "ConcatBatchNormalization", "Y", *Y));
  const std::vector<int64_t>& y = yd.dims;
  if (y.size() < 2) return ctx.error("Y must have rank >= 2");
  std::vector<std::string> ins;
  std::vector<Described> pieces;
  std::string make = "std::vector<dnnl::memory::desc> srcs;\n";
  int64_t along = 0;
  for (auto& i : ctx.inputs()) {
    if (!fused::isConcatPiece(i)) continue;
    DCW_TRY(auto X, th::needIn(ctx, i));
    DCW_TRY(auto xd, describedOperand(ctx, "ConcatBatchNormalization", i, *X));
    if (xd.dims.size() != y.size()) return ctx.error(i + " has another rank than Y");
    along += xd.dims[1];
    make += "srcs.push_back(" + xd.desc + ");\n";
    ins.push_back(i);
    pieces.push_back(std::move(xd));
  }
  if (pieces.empty() || along != y[1]) return ctx.error("the pieces do not add up to Y along the channels");
  for (const char* c : {"scale", "B", "input_mean", "input_var"}) {
    DCW_TRY(auto d, th::needIn(ctx, c));
    DCW_TRY(auto v, floatDims(ctx, "ConcatBatchNormalization", c, *d));
    if (v.size() != 1 || v[0] != y[1]) return ctx.error(std::string(c) + " must hold " + std::to_string(y[1]) + " values");
    ins.push_back(c);
  }
  const size_t n = pieces.size();
  auto at = [](size_t k) { return "k.ops[" + std::to_string(k) + "]"; };
  const std::string eps = floatLiteral(ctx.attrFloat("epsilon", 1e-5));
  const bool relu = ep.activation != nullptr;
  // Variant 0: the concat primitive, then the normalization on Y in place (its parameters passed through).
  make += "const auto y = " + yd.desc + ";\n";
  make += concatPrimitive(1);
  make += "for (int k = 0; k < 4; ++k) dcw_k.pass();\n";
  make += "dcw_k.add(DNNL_ARG_DST, y, pd.dst_desc(), true);\n";
  make += "const auto c = plain(dims{" + std::to_string(y[1]) + "});\n";
  make += "const dnnl::batch_normalization_forward::primitive_desc bpd(dnnl::batch_normalization_forward::desc(\n";
  make += "    dnnl::prop_kind::forward_inference, y, " + eps + ",\n";
  make += "    dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift" +
          std::string(relu ? " | dnnl::normalization_flags::fuse_norm_relu" : "") + "), engine);\n";
  make += "dnnl::batch_normalization_forward bn(bpd);\n";
  make += "dcw_k.then = [bn, c](Call& k) {\n";
  make += "  auto param = [&](size_t i) { return dnnl::memory(c, engine, const_cast<void*>(k.ops[i].pointer)); };\n";
  make += "  const dnnl::memory& ym = " + at(n + 4) + ".user;\n";
  make += "  bn.execute(threadStream(), {{DNNL_ARG_SRC, ym}, {DNNL_ARG_DST, ym}, {DNNL_ARG_SCALE, param(" + std::to_string(n) + ")}, {DNNL_ARG_SHIFT, param(" +
          std::to_string(n + 1) + ")},\n";
  make += "                      {DNNL_ARG_MEAN, param(" + std::to_string(n + 2) + ")}, {DNNL_ARG_VARIANCE, param(" + std::to_string(n + 3) + ")}});\n";
  make += "  threadStream().wait();\n";
  make += "};\n";
  std::string comment = "oneDNN concat of " + std::to_string(n) + " inputs along the channels into " + shapeText(y) +
                        ", then its batch normalization in place" + (relu ? " with relu (fuse_norm_relu)" : "");
  const auto rows = concatRowsOf(pieces, yd, 1);
  if (rows) {
    auto param = [&](size_t k) { return "static_cast<const float*>(" + at(k) + ".pointer)"; };
    std::string own;
    for (size_t k = 0; k <= n + 4; ++k) own += "dcw_k.pass();\n";
    own += "auto dcw_ab = std::make_shared<std::vector<float>>();\n";
    own += "dcw_k.then = [dcw_ab](Call& k) {\n";
    own += rowPieces(pieces, *rows, 1);
    own += "  concatNormRows(static_cast<float*>(const_cast<void*>(" + at(n + 4) + ".pointer)), x, chunk, " + std::to_string(n) + ", " +
           std::to_string(rows->outer) + ", " + std::to_string(y[1] * rows->inner) + ", " + std::to_string(rows->inner) + ",\n";
    own += "      " + param(n) + ", " + param(n + 1) + ", " + param(n + 2) + ", " + param(n + 3) + ", " + eps + ", " + (relu ? "true" : "false") +
           ", *dcw_ab, " + std::to_string(rows->block) + ");\n";
    own += "};\n";
    make = "if (dcw_variant == 0) {\n" + make + "} else {\n" + own + "}\n";
    comment += "; or DCW's copy of " + std::to_string(rows->outer) + " whole rows that normalizes as it copies (timed: the faster kept)";
  }
  std::vector<std::string> buffers = ins;
  buffers.push_back("Y");
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_concat_batchnorm", ins, callCode(comment, make, buffers, rows ? 2 : 1), {"Y"}, {"onednn"},
                 sym::Expr((relu ? 3 : 2) * product(y)));
  return bld.finish();
}

} // namespace

void registerNormalization(ExpansionRegistry& r) {
  r.add("", "BatchNormalization", decl(), expandBatchNorm,
        "one oneDNN batch normalization with global statistics (inference, float32); a C++ tasklet, not differentiable");
  r.add(fused::kDomain, "FusedBatchNormalization", decl(), expandBatchNorm,
        "one oneDNN batch normalization with global statistics and Relu fused (fuse_norm_relu; inference, float32); a C++ "
        "tasklet, not differentiable");
  r.add("", "LayerNormalization", decl(), expandLayerNorm,
        "one oneDNN layer normalization (float32, Y only); a C++ tasklet, not differentiable");
  r.add("", "Softmax", decl(), [](const ExpansionContext& c) { return expandSoftmax(c, false); },
        "one oneDNN softmax (float32); a C++ tasklet, not differentiable");
  r.add("", "LogSoftmax", decl(), [](const ExpansionContext& c) { return expandSoftmax(c, true); },
        "one oneDNN log-softmax (float32); a C++ tasklet, not differentiable");
  r.add("", "Concat", decl(), expandConcat,
        "one oneDNN concat (float32), or DCW's copy of whole rows where the operands are laid out alike (the faster kept); a C++ "
        "tasklet, not differentiable");
  r.add(fused::kDomain, fused::kShuffledConcat, decl(), expandShuffledConcat,
        "one oneDNN concat along a new axis after the channels (float32, any layouts); a C++ tasklet, not differentiable");
  r.add(fused::kDomain, fused::kConcatBatchNorm, decl(), expandConcatBatchNorm,
        "oneDNN's concat then its batch normalization in place, or DCW's copy that normalizes as it copies (the faster kept; "
        "float32, inference); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
