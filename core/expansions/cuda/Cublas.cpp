// `cublas` MatMul and Gemm: one cuBLAS GEMM per node, on the program's stream.
//
// cuBLAS is column-major and DCW's arrays are row-major: a row-major [R, C] array is the column-major
// [C, R] matrix, so Y = A x B is computed as Y^T = B^T x A^T with the operands swapped and no copies.
//   MatMul  A[..., M, K] x B[..., K, N] -> Y[..., M, N] with numpy's broadcast of batch dims as strides:
//           batch dims equal (each product its own matrices), B's all 1 (a linear layer: A's batches
//           fold into M, one GEMM), or A's all 1 (A's stride 0). Other broadcasts are refused (pure).
//   Gemm    Y[M, N] = alpha op(A) op(B) + beta C, transposes as cuBLAS's op; C (scalar, [N], [1, N],
//           [M, 1], [M, N]) is added by a map after the GEMM (a kernel of its own).
// float32 only, known dims (the GEMM's sizes are constants of the call).
#include "core/expansions/cuda/CublasOps.h"
#include "core/expansions/cuda/GpuOperands.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <climits>
#include <cstdio>

namespace dcw::expansions::cuda {

using namespace dcw::ir;

namespace {

ImplementationDecl cublasDecl() { return ImplementationDecl{"cublas", {"cuda"}, {"cublas"}, false}; }

// Every digit of a double, as C++ and the tasklet language read it.
std::string literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < to && k < d.size(); ++k) p *= d[k];
  return p;
}

// One call of the environment's gemm helper, in cuBLAS's (column-major) terms.
struct Gemm {
  int64_t batch = 1;
  bool ta = false, tb = false;
  int64_t m = 0, n = 0, k = 0;
  std::string alpha = "1.0f", beta = "0.0f";
  std::string a, b, c;     // connectors
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t sa = 0, sb = 0, sc = 0;
  std::string call() const {
    auto s = [](int64_t x) { return std::to_string(x); };
    return "dcw_env_cublas::gemm(" + s(batch) + ", " + (ta ? "true" : "false") + ", " + (tb ? "true" : "false") + ", " + s(m) + ", " + s(n) +
           ", " + s(k) + ", " + alpha + ", " + a + ", " + s(lda) + ", " + s(sa) + ", " + b + ", " + s(ldb) + ", " + s(sb) + ", " + beta +
           ", " + c + ", " + s(ldc) + ", " + s(sc) + ");\n";
  }
};

Expected<std::unique_ptr<Sdfg>> expandMatMul(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto as, knownDims(ctx, "cublas", "MatMul", "A", *A));
  DCW_TRY(auto bs, knownDims(ctx, "cublas", "MatMul", "B", *B));
  DCW_TRY(auto ys, knownDims(ctx, "cublas", "MatMul", "Y", *Y));
  DCW_TRY(auto mm, th::matmulOperands(ctx, as, bs, ys));
  const std::vector<int64_t>& a = mm.a;
  const std::vector<int64_t>& b = mm.b;
  const size_t rank = mm.rank;
  const int64_t M = mm.M, K = mm.K, N = mm.N;
  const int64_t batchA = product(a, 0, rank - 2), batchB = product(b, 0, rank - 2);
  bool same = true;
  for (size_t k = 0; k + 2 < rank; ++k) same = same && a[k] == b[k];
  int64_t batch = 1, rows = M, strideA = M * K, strideB = K * N;
  if (batchB == 1) { // weights shared by every batch: A's batches are more rows of one product
    rows = batchA * M;
  } else if (batchA == 1) {
    batch = batchB;
    strideA = 0;
  } else if (same) {
    batch = batchA;
  } else {
    return ctx.error("cublas MatMul takes batch dims that are equal, or all 1 on one side; A is " + dimsText(as) + ", B is " + dimsText(bs),
                     pureHint(ctx));
  }
  if (rows > INT_MAX) return ctx.error("cublas MatMul: " + std::to_string(rows) + " rows are more than cuBLAS takes", pureHint(ctx));
  Gemm g; // Y^T [N, rows] = B^T [N, K] x A^T [K, rows]
  g.batch = batch;
  g.m = N;
  g.n = rows;
  g.k = K;
  g.a = "B";
  g.lda = N;
  g.sa = strideB;
  g.b = "A";
  g.ldb = K;
  g.sb = strideA;
  g.c = "Y";
  g.ldc = N;
  g.sc = rows * N;
  SdfgBuilder bld(ctx);
  bld.cppTasklet("cublas_matmul", {"A", "B"},
                 "// cuBLAS: Y[" + std::to_string(batch) + " x " + std::to_string(rows) + "x" + std::to_string(N) + "] = A[" + dimsText(as) +
                     "] x B[" + dimsText(bs) + "], as Y^T = B^T A^T in column-major terms\n" + g.call(),
                 {"Y"}, {"cublas"}, sym::Expr(2 * batch * rows * N * K));
  return bld.finish();
}

Expected<std::unique_ptr<Sdfg>> expandGemm(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto as, knownDims(ctx, "cublas", "Gemm", "A", *A));
  DCW_TRY(auto bs, knownDims(ctx, "cublas", "Gemm", "B", *B));
  DCW_TRY(auto ys, knownDims(ctx, "cublas", "Gemm", "Y", *Y));
  const DataDescriptor* C = ctx.in("C");
  std::vector<int64_t> cs;
  if (C) {
    DCW_TRY(cs, knownDims(ctx, "cublas", "Gemm", "C", *C));
  }
  if (as.size() != 2 || bs.size() != 2 || ys.size() != 2) return ctx.error("Gemm takes matrices A and B");
  const bool tA = ctx.attrInt("transA", 0) != 0, tB = ctx.attrInt("transB", 0) != 0;
  const int64_t M = tA ? as[1] : as[0], K = tA ? as[0] : as[1], N = tB ? bs[0] : bs[1];
  if ((tB ? bs[1] : bs[0]) != K) return ctx.error("inner dims differ: A is " + dimsText(as) + ", B is " + dimsText(bs));
  if (ys[0] != M || ys[1] != N) return ctx.error("Y " + dimsText(ys) + " is not " + std::to_string(M) + "x" + std::to_string(N));
  const double alpha = ctx.attrFloat("alpha", 1.0), beta = ctx.attrFloat("beta", 1.0);
  // Y^T [N, M] = op(B)^T op(A)^T: B row-major is B^T column-major with ld = its row length.
  Gemm g;
  g.ta = tB;
  g.tb = tA;
  g.m = N;
  g.n = M;
  g.k = K;
  g.alpha = "static_cast<float>(" + literal(alpha) + ")";
  g.a = "B";
  g.lda = bs[1];
  g.b = "A";
  g.ldb = as[1];
  g.c = "Y";
  g.ldc = N;
  SdfgBuilder bld(ctx);
  bld.cppTasklet("cublas_gemm", {"A", "B"},
                 "// cuBLAS: Y[" + std::to_string(M) + "x" + std::to_string(N) + "] = " + (alpha != 1.0 ? "alpha " : "") + (tA ? "A^T" : "A") +
                     " x " + (tB ? "B^T" : "B") + ", as Y^T = op(B)^T op(A)^T in column-major terms\n" + g.call(),
                 {"Y"}, {"cublas"}, sym::Expr(2 * M * N * K));
  if (C && beta != 0.0) {
    bld.nextState("bias");
    const std::vector<sym::Expr> yShape{sym::Expr(M), sym::Expr(N)};
    std::vector<sym::Expr> cShape;
    for (auto x : cs) cShape.emplace_back(x);
    if (!cs.empty() && (cs.size() > 2 || (cs.back() != 1 && cs.back() != N) || (cs.size() == 2 && cs[0] != 1 && cs[0] != M)))
      return ctx.error("C " + dimsText(cs) + " does not broadcast to Y " + dimsText(ys));
    const std::string cSubset = cs.empty() ? std::string() : broadcastSubset(cShape, yShape);
    bld.mappedTasklet("gemm_bias", fullRangeParams(yShape), {{"y", "Y", "i0, i1"}, {"c", "C", cSubset}},
                      "out = y + " + literal(beta) + " * c", {{"out", "Y", "i0, i1", ""}});
  }
  return bld.finish();
}

} // namespace

void registerCublas(ExpansionRegistry& r) {
  r.add("", "MatMul", cublasDecl(), expandMatMul,
        "one cuBLAS SGEMM (batched with strides where batch dims are equal or all 1 on one side); a C++ tasklet on the host, "
        "not differentiable");
  r.add("", "Gemm", cublasDecl(), expandGemm,
        "one cuBLAS SGEMM with transposes and alpha as cuBLAS's arguments, C added by a map after it; a C++ tasklet on the host, "
        "not differentiable");
}

std::string cublasGlobals() {
  return R"(static cublasHandle_t handle = nullptr;
inline void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(s));
}
// C[p] = alpha op(A[p]) op(B[p]) + beta C[p] for p < batch, column-major, as cuBLAS defines it.
inline void gemm(int64_t batch, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
                 int64_t sa, const float* B, int64_t ldb, int64_t sb, float beta, float* C, int64_t ldc, int64_t sc) {
  if (!handle) check(cublasCreate(&handle), "cublasCreate");
  check(cublasSetStream(handle, dcw_cu::stream()), "cublasSetStream");
  const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (batch == 1)
    check(cublasSgemm(handle, oa, ob, int(m), int(n), int(k), &alpha, A, int(lda), B, int(ldb), &beta, C, int(ldc)), "cublasSgemm");
  else
    check(cublasSgemmStridedBatched(handle, oa, ob, int(m), int(n), int(k), &alpha, A, int(lda), sa, B, int(ldb), sb, &beta, C, int(ldc),
                                    sc, int(batch)),
          "cublasSgemmStridedBatched");
}
)";
}

std::string cublasTeardown() { return "if (handle) (void)cublasDestroy(handle);\nhandle = nullptr;\n"; }

} // namespace dcw::expansions::cuda
