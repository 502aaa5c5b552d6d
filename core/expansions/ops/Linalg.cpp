// Pure expansions of the linear-algebra ops: MatMul, Gemm, Einsum. Each is two states: a map that
// writes the identity (or the bias) into the output, then one map over output and contracted indices
// whose tasklet multiplies single elements and accumulates into the output with WCR sum.
//
//   MatMul  A[..., M, K] x B[..., K, N] -> Y[..., M, N]   numpy semantics: batch dims broadcast, a 1-D A
//           is a row vector [K] (M dropped), a 1-D B a column vector [K] (N dropped).
//   Gemm    Y[M, N] = alpha * op(A)[M, K] op(B)[K, N] + beta * C   (op = transpose when transA/transB;
//           C optional, unidirectionally broadcast to [M, N]).
//   Einsum  any equation "ab,bc->ac" (explicit or implicit output, ellipsis, repeated letters for
//           diagonals): one map over every distinct letter; letters absent from the output are summed.
// Preconditions: ranks known; the output shape on the descriptor (from ONNX shape inference).
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;
using namespace th;

namespace {

// Writes `value` (tasklet expression without inputs) into every element of `data`.
void fill(SdfgBuilder& b, const std::string& data, const std::string& value) {
  auto& d = b.data(data);
  b.mappedTasklet(data + "_init", fullRangeParams(d.shape), {}, "o = " + value,
                  {{"o", data, indexList(d.shape.size()), ""}});
}

Expected<std::unique_ptr<Sdfg>> expandMatMul(const ExpansionContext& ctx) {
  DCW_TRY(auto A, needIn(ctx, "A"));
  DCW_TRY(auto B, needIn(ctx, "B"));
  DCW_TRY(auto Y, needOut(ctx, "Y"));
  const Shape &as = A->shape, &bs = B->shape, &ys = Y->shape;
  size_t ra = as.size(), rb = bs.size(), ry = ys.size();
  if (ra == 0 || rb == 0) return ctx.error("MatMul operands must have rank >= 1");
  size_t extra = (ra > 1) + (rb > 1);
  if (ry < extra) return ctx.error("the output rank does not fit the operands");
  size_t nb = ry - extra; // batch dims of Y
  Expr K = as[ra - 1];

  SdfgBuilder b(ctx);
  fill(b, "Y", literal(0, Y->dtype));
  std::vector<MapParam> params = fullRangeParams(ys);
  params.push_back({"k", Range::full(K)});
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
  if (ra > 1) ai.push_back("i" + std::to_string(nb));
  ai.push_back("k");
  bi.push_back("k");
  if (rb > 1) bi.push_back("i" + std::to_string(ry - 1));
  b.mappedTasklet("matmul", params, {{"a", "A", join(ai)}, {"b", "B", join(bi)}}, "y = a * b",
                  {{"y", "Y", indexList(ry), "sum"}});
  return b.finish();
}

Expected<std::unique_ptr<Sdfg>> expandGemm(const ExpansionContext& ctx) {
  DCW_TRY(auto A, needIn(ctx, "A"));
  DCW_TRY(auto B, needIn(ctx, "B"));
  DCW_TRY(auto Y, needOut(ctx, "Y"));
  if (A->shape.size() != 2 || B->shape.size() != 2 || Y->shape.size() != 2)
    return ctx.error("Gemm needs 2-D A, B and Y");
  bool tA = ctx.attrInt("transA", 0) != 0, tB = ctx.attrInt("transB", 0) != 0;
  double alpha = ctx.attrFloat("alpha", 1.0), beta = ctx.attrFloat("beta", 1.0);
  DType yt = Y->dtype;
  Expr K = tA ? A->shape[0] : A->shape[1];

  SdfgBuilder b(ctx);
  const DataDescriptor* C = ctx.in("C");
  if (C && C->rankKnown && beta != 0) {
    if (C->shape.size() > 2) return ctx.error("Gemm's C must have rank <= 2");
    std::string code = beta == 1.0 ? "y = c" : "y = " + literal(beta, isFloating(yt) ? yt : DType::Float64) + " * c";
    b.mappedTasklet("gemm_bias", fullRangeParams(Y->shape), {{"c", "C", broadcastSubset(C->shape, Y->shape)}}, code,
                    {{"y", "Y", "i0, i1", ""}});
  } else {
    fill(b, "Y", literal(0, yt));
  }
  std::string code = alpha == 1.0 ? "y = a * b" : "y = " + literal(alpha, isFloating(yt) ? yt : DType::Float64) + " * a * b";
  b.mappedTasklet("gemm", {{"i0", Range::full(Y->shape[0])}, {"i1", Range::full(Y->shape[1])}, {"k", Range::full(K)}},
                  {{"a", "A", tA ? "k, i0" : "i0, k"}, {"b", "B", tB ? "i1, k" : "k, i1"}}, code, {{"y", "Y", "i0, i1", "sum"}});
  return b.finish();
}

Expected<std::unique_ptr<Sdfg>> expandEinsum(const ExpansionContext& ctx) {
  std::string eq;
  for (char c : ctx.attrString("equation", "")) if (c != ' ') eq += c;
  DCW_TRY(auto Y, needOut(ctx, "Output"));
  std::vector<std::string> ins = ctx.inputs();
  std::string lhs = eq, rhs;
  bool explicitOut = false;
  if (auto p = eq.find("->"); p != std::string::npos) {
    lhs = eq.substr(0, p);
    rhs = eq.substr(p + 2);
    explicitOut = true;
  }
  std::vector<std::string> terms;
  for (size_t s = 0;;) {
    size_t c = lhs.find(',', s);
    terms.push_back(lhs.substr(s, c == std::string::npos ? std::string::npos : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  if (terms.size() != ins.size())
    return ctx.error("equation '" + eq + "' has " + std::to_string(terms.size()) + " operands but the node has " +
                     std::to_string(ins.size()) + " inputs");
  // Letters per operand dim; the ellipsis becomes letters '0'.. (right-aligned broadcast dims).
  std::vector<std::vector<char>> letters(terms.size());
  size_t ellRank = 0;
  std::vector<const DataDescriptor*> descs;
  for (size_t t = 0; t < terms.size(); ++t) {
    DCW_TRY(auto d, needIn(ctx, ins[t]));
    descs.push_back(d);
    std::string term = terms[t];
    size_t ep = term.find("...");
    size_t explicitCount = term.size() - (ep == std::string::npos ? 0 : 3);
    size_t rank = d->shape.size();
    if (ep == std::string::npos ? rank != explicitCount : rank < explicitCount)
      return ctx.error("operand " + std::to_string(t) + " of '" + eq + "' does not match its rank " + std::to_string(rank));
    size_t e = ep == std::string::npos ? 0 : rank - explicitCount;
    ellRank = std::max(ellRank, e);
    for (size_t i = 0; i < term.size();) {
      if (term.compare(i, 3, "...") == 0) {
        // Ellipsis dims are right-aligned across operands: the last is '9', the one before '8', ...
        for (size_t j = 0; j < e; ++j) letters[t].push_back(char('0' + (9 - (e - 1 - j))));
        i += 3;
      } else {
        if (!std::isalpha(static_cast<unsigned char>(term[i]))) return ctx.error("equation '" + eq + "' has an invalid character");
        letters[t].push_back(term[i++]);
      }
    }
  }
  // Output letters.
  std::vector<char> outLetters;
  auto ellLetters = [&] {
    std::vector<char> v;
    for (size_t j = 0; j < ellRank; ++j) v.push_back(char('0' + (9 - (ellRank - 1 - j))));
    return v;
  };
  if (explicitOut) {
    for (size_t i = 0; i < rhs.size();) {
      if (rhs.compare(i, 3, "...") == 0) {
        for (char c : ellLetters()) outLetters.push_back(c);
        i += 3;
      } else {
        outLetters.push_back(rhs[i++]);
      }
    }
  } else {
    std::map<char, int> count;
    for (auto& l : letters)
      for (char c : l)
        if (std::isalpha(static_cast<unsigned char>(c))) ++count[c];
    outLetters = ellLetters();
    for (auto& [c, n] : count)
      if (n == 1) outLetters.push_back(c);
  }
  if (outLetters.size() != Y->shape.size()) return ctx.error("the output rank does not match equation '" + eq + "'");
  // Extent of each letter: the first operand dim that is not a broadcast 1.
  std::map<char, Expr> extent;
  for (size_t t = 0; t < letters.size(); ++t)
    for (size_t i = 0; i < letters[t].size(); ++i) {
      char c = letters[t][i];
      const Expr& e = descs[t]->shape[i];
      if (!extent.count(c) || (extent[c] == Expr(1) && e != Expr(1))) extent[c] = e;
    }
  for (size_t i = 0; i < outLetters.size(); ++i) extent[outLetters[i]] = Y->shape[i];
  auto paramOf = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) ? std::string("l_") + c : std::string("e_") + c; };
  std::vector<MapParam> params;
  std::set<char> seen;
  for (char c : outLetters)
    if (seen.insert(c).second) params.push_back({paramOf(c), Range::full(extent[c])});
  bool reduces = false;
  for (auto& l : letters)
    for (char c : l)
      if (seen.insert(c).second) {
        params.push_back({paramOf(c), Range::full(extent[c])});
        reduces = true;
      }
  SdfgBuilder b(ctx);
  DType yt = Y->dtype;
  std::vector<TaskletIn> tin;
  std::string code = "y = ";
  for (size_t t = 0; t < letters.size(); ++t) {
    std::vector<std::string> idx;
    for (size_t i = 0; i < letters[t].size(); ++i) {
      char c = letters[t][i];
      idx.push_back(descs[t]->shape[i] == Expr(1) && extent[c] != Expr(1) ? "0" : paramOf(c));
    }
    std::string conn = "x" + std::to_string(t);
    tin.push_back({conn, ins[t], join(idx)});
    code += (t ? " * " : "") + conn;
  }
  std::vector<std::string> oidx;
  for (char c : outLetters) oidx.push_back(paramOf(c));
  if (reduces) fill(b, "Output", literal(0, yt));
  b.mappedTasklet("einsum", params, tin, code, {{"y", "Output", join(oidx), reduces ? "sum" : ""}});
  return b.finish();
}

} // namespace

void registerLinalg(ExpansionRegistry& r) {
  r.add("", "MatMul", "pure", expandMatMul, "map over output and K with WCR sum; batch dims broadcast");
  r.add("", "Gemm", "pure", expandGemm, "bias map (beta*C) then map over M, N, K with WCR sum of alpha*a*b");
  r.add("", "Einsum", "pure", expandEinsum, "one map over all letters; contracted letters summed with WCR");
}

} // namespace dcw::expansions
