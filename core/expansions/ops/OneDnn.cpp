// `onednn` implementations: library nodes lowered to one C++ tasklet (ir::Tasklet, language cpp) that
// calls a oneDNN 2.x primitive on the engine and stream of the `onednn` environment (Environments.cpp).
// CPU only, not differentiable (autodiff refuses the tasklet and points to `pure`).
//
//   MatMul  float32, numpy semantics as oneDNN's matmul primitive supports them: A [..., M, K] x
//           B [..., K, N] -> Y [..., M, N], batch dims broadcast (a batch dim of 1 against a larger one),
//           a 1-D A is [1, K] (M dropped from Y), a 1-D B is [K, 1] (N dropped); at most 12 dims.
//           Dims must be known integers (dcw run specializes dynamic dims before expanding) and non-zero.
//           The tasklet declares 2*batch*M*N*K FLOPs (cost analysis).
// Anything else is refused at the node, naming what does not fit and pointing to `pure`.
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <sstream>

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;

namespace {

constexpr int kMaxDims = 12; // DNNL_MAX_NDIMS

std::string dimsText(const std::vector<int64_t>& d) {
  std::string s = "dnnl::memory::dims{";
  for (size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + std::to_string(d[k]);
  return s + "}";
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& d) {
  std::vector<int64_t> s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return s;
}

std::string shapeText(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t k = 0; k < d.size(); ++k) s += (k ? "x" : "") + std::to_string(d[k]);
  return s;
}

Expected<std::unique_ptr<Sdfg>> expandMatMulOneDnn(const ExpansionContext& ctx) {
  const std::string hint = "choose the `pure` implementation for this node (set " + ctx.path() + " implementation=pure)";
  auto A = th::needIn(ctx, "A");
  if (!A) return A.takeError();
  auto B = th::needIn(ctx, "B");
  if (!B) return B.takeError();
  auto Y = th::needOut(ctx, "Y");
  if (!Y) return Y.takeError();
  for (auto [name, d] : {std::pair{"A", *A}, std::pair{"B", *B}, std::pair{"Y", *Y}})
    if (d->dtype != DType::Float32)
      return ctx.error(std::string("onednn MatMul supports float32 only; ") + name + " is " + std::string(dtypeName(d->dtype)),
                       hint);
  auto known = [&](const char* name, const std::vector<Expr>& shape) -> Expected<std::vector<int64_t>> {
    std::vector<int64_t> v;
    for (auto& e : shape) {
      auto c = e.constantValue();
      if (!c) return ctx.error(std::string("onednn MatMul needs known dims; ") + name + " has dim " + e.str(),
                               "give the input shapes (dcw run specializes them), or " + hint);
      if (*c <= 0) return ctx.error(std::string("onednn MatMul needs non-empty operands; ") + name + " has a dim of " +
                                        std::to_string(*c), hint);
      v.push_back(*c);
    }
    return v;
  };
  auto as = known("A", (*A)->shape);
  if (!as) return as.takeError();
  auto bs = known("B", (*B)->shape);
  if (!bs) return bs.takeError();
  auto ys = known("Y", (*Y)->shape);
  if (!ys) return ys.takeError();
  if (as->empty() || bs->empty()) return ctx.error("MatMul operands must have rank >= 1");

  // The oneDNN view: both operands as matrices (1-D promoted), batch dims padded to one rank.
  std::vector<int64_t> a = *as, b = *bs;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  size_t rank = std::max(a.size(), b.size());
  if (rank > size_t(kMaxDims))
    return ctx.error("onednn MatMul supports at most " + std::to_string(kMaxDims) + " dims; the operands have " +
                     std::to_string(rank), hint);
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  const int64_t M = a[rank - 2], K = a[rank - 1], N = b[rank - 1];
  if (b[rank - 2] != K)
    return ctx.error("inner dims differ: A is " + shapeText(*as) + ", B is " + shapeText(*bs));
  std::vector<int64_t> y(rank);
  int64_t batch = 1;
  for (size_t k = 0; k + 2 < rank; ++k) {
    if (a[k] != b[k] && a[k] != 1 && b[k] != 1)
      return ctx.error("batch dims do not broadcast: A is " + shapeText(*as) + ", B is " + shapeText(*bs));
    y[k] = std::max(a[k], b[k]);
    batch *= y[k];
  }
  y[rank - 2] = M;
  y[rank - 1] = N;
  int64_t yElems = 1, outElems = 1;
  for (auto v : y) yElems *= v;
  for (auto v : *ys) outElems *= v;
  if (yElems != outElems)
    return ctx.error("the output " + shapeText(*ys) + " does not fit A " + shapeText(*as) + " x B " + shapeText(*bs));

  std::ostringstream code;
  code << "// oneDNN matmul: Y[" << shapeText(y) << "] = A[" << shapeText(a) << "] x B[" << shapeText(b) << "], float32\n";
  auto md = [&](const char* name, const std::vector<int64_t>& d) {
    code << "const dnnl::memory::desc " << name << "(" << dimsText(d) << ", dnnl::memory::data_type::f32, "
         << dimsText(rowMajorStrides(d)) << ");\n";
  };
  md("dcw_a_md", a);
  md("dcw_b_md", b);
  md("dcw_y_md", y);
  code << "const dnnl::matmul::primitive_desc dcw_pd(dnnl::matmul::desc(dcw_a_md, dcw_b_md, dcw_y_md), dcw_env_onednn::engine);\n"
       << "dnnl::memory dcw_a(dcw_a_md, dcw_env_onednn::engine, const_cast<float*>(A));\n"
       << "dnnl::memory dcw_b(dcw_b_md, dcw_env_onednn::engine, const_cast<float*>(B));\n"
       << "dnnl::memory dcw_y(dcw_y_md, dcw_env_onednn::engine, Y);\n"
       << "dnnl::matmul(dcw_pd).execute(dcw_env_onednn::stream,\n"
       << "    {{DNNL_ARG_SRC, dcw_a}, {DNNL_ARG_WEIGHTS, dcw_b}, {DNNL_ARG_DST, dcw_y}});\n"
       << "dcw_env_onednn::stream.wait();\n";

  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_matmul", {"A", "B"}, code.str(), {"Y"}, {"onednn"}, Expr(2 * batch * M * N * K));
  return bld.finish();
}

} // namespace

void registerOneDnn(ExpansionRegistry& r) {
  const ImplementationDecl onednn{"onednn", {"cpu"}, {"onednn"}, false};
  r.add("", "MatMul", onednn, expandMatMulOneDnn,
        "one oneDNN matmul primitive call (float32, batch dims broadcast); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions
