#include "codegen/cuda/CudaRuntime.h"

namespace dcw::codegen {

namespace {
// What a program includes first: the CUDA runtime's header, or under DCW_CUDA_SIM (target cuda-sim) a
// stand-in that runs kernels on the host — device memory is host memory, a launch runs every thread of
// every block one after another, atomics are plain updates. Its outputs show what the kernels compute
// when their threads do not race; it says nothing about time or about races. Its headers come first, in a
// block of their own, ahead of its macros: a cuda-sim program that opens with them gets them from the
// compiler's precompiled prelude (compileShared).
constexpr std::string_view kCudaHeader = R"DCWCU(#ifndef DCW_CUDA_SIM
#include <cuda_runtime.h>
#else
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <ucontext.h>
#include <vector>
#endif
#ifdef DCW_CUDA_SIM
#define __global__
#define __device__
#define __host__
#define __launch_bounds__(threads)
#define __shared__ static thread_local
#define __syncthreads() dcw_cu_sim::barrier()
struct dcw_cu_sim_dim3 {
  unsigned x = 0, y = 1, z = 1;
};
static thread_local dcw_cu_sim_dim3 threadIdx, blockIdx, blockDim, gridDim;
typedef int cudaError_t;
typedef void* cudaStream_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaStreamNonBlocking = 1 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
inline const char* cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorMemoryAllocation"; }
inline const char* cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "out of memory"; }
inline cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { *s = nullptr; return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void* p, int v, size_t bytes, cudaStream_t) { std::memset(p, v, bytes); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  std::memmove(d, s, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t* free, size_t* total) { *free = 0; *total = 0; return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* d, const void* s, size_t bytes, cudaMemcpyKind) {
  std::memmove(d, s, bytes);
  return cudaSuccess;
}
// Events: the host's clock at the point the stream reaches them (every call is synchronous here).
struct dcw_cu_sim_event {
  int64_t ns = 0;
};
typedef dcw_cu_sim_event* cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = new dcw_cu_sim_event; return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  e->ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) { *ms = float(double(b->ns - a->ns) / 1e6); return cudaSuccess; }
inline float atomicAdd(float* p, float v) { float o = *p; *p = o + v; return o; }
inline double atomicAdd(double* p, double v) { double o = *p; *p = o + v; return o; }
inline int atomicAdd(int* p, int v) { int o = *p; *p = o + v; return o; }
inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) { unsigned long long o = *p; *p = o + v; return o; }
template <class T> inline T atomicCAS(T* p, T expected, T desired) {
  T o = *p;
  if (o == expected) *p = desired;
  return o;
}
// The threads of one block as coroutines on this host thread: each runs until it reaches a barrier,
// and the block goes on past the barrier once every thread has reached it (kernels with thread-block
// maps, whose barriers every thread meets in the same order).
namespace dcw_cu_sim {
struct Block {
  ucontext_t scheduler;
  std::vector<ucontext_t> threads;
  std::vector<std::unique_ptr<char[]>> stacks;
  std::vector<bool> finished;
  unsigned current = 0;
  std::function<void()> body;
};
inline thread_local Block* block = nullptr;
inline void barrier() {
  if (block) swapcontext(&block->threads[block->current], &block->scheduler);
}
inline void start() {
  block->body();
  block->finished[block->current] = true;
}
// The coroutines' stacks, kept for the next block (allocating 256 of them per block made a simulation
// of many small blocks crawl).
inline std::vector<std::unique_ptr<char[]>>& stack_pool() {
  static thread_local std::vector<std::unique_ptr<char[]>> v;
  return v;
}
inline void run_block(unsigned threads, const std::function<void()>& body) {
  constexpr size_t kStack = size_t(256) << 10;
  if (threads == 1 && !block) { // one thread: its barriers meet nobody
    threadIdx.x = 0;
    body();
    return;
  }
  std::vector<std::unique_ptr<char[]>>& pool = stack_pool();
  Block b;
  b.body = body;
  b.threads.resize(threads);
  b.finished.assign(threads, false);
  for (unsigned t = 0; t < threads; ++t) {
    if (pool.empty()) pool.emplace_back(new char[kStack]);
    b.stacks.push_back(std::move(pool.back()));
    pool.pop_back();
    getcontext(&b.threads[t]);
    b.threads[t].uc_stack.ss_sp = b.stacks.back().get();
    b.threads[t].uc_stack.ss_size = kStack;
    b.threads[t].uc_link = &b.scheduler;
    makecontext(&b.threads[t], start, 0);
  }
  Block* outer = block;
  block = &b;
  for (bool left = true; left;) { // rounds: every unfinished thread runs to its next barrier
    left = false;
    for (unsigned t = 0; t < threads; ++t) {
      if (b.finished[t]) continue;
      b.current = t;
      threadIdx.x = t;
      swapcontext(&b.scheduler, &b.threads[t]);
      left = left || !b.finished[t];
    }
  }
  block = outer;
  for (auto& st : b.stacks) pool.push_back(std::move(st));
}
} // namespace dcw_cu_sim
#endif
)DCWCU";

constexpr std::string_view kCublasHeader = R"DCWCU(#ifndef DCW_CUDA_SIM
#include <cublas_v2.h>
#else
typedef struct dcw_cublas_sim_context* cublasHandle_t;
typedef int cublasStatus_t;
enum { CUBLAS_STATUS_SUCCESS = 0 };
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 } cublasOperation_t;
inline const char* cublasGetStatusString(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_INVALID_VALUE"; }
inline cublasStatus_t cublasCreate(cublasHandle_t* h) { *h = reinterpret_cast<cublasHandle_t>(h); return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasDestroy(cublasHandle_t) { return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                                const float* alpha, const float* A, int lda, long long sa, const float* B, int ldb,
                                                long long sb, const float* beta, float* C, int ldc, long long sc, int batch) {
  if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (ta == CUBLAS_OP_N ? m : k) || ldb < (tb == CUBLAS_OP_N ? k : n) || ldc < m)
    return 1;
  for (int p = 0; p < batch; ++p)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double acc = 0;
        for (int l = 0; l < k; ++l) {
          const float a = ta == CUBLAS_OP_N ? A[p * sa + i + static_cast<long long>(l) * lda] : A[p * sa + l + static_cast<long long>(i) * lda];
          const float b = tb == CUBLAS_OP_N ? B[p * sb + l + static_cast<long long>(j) * ldb] : B[p * sb + j + static_cast<long long>(l) * ldb];
          acc += static_cast<double>(a) * b;
        }
        float& c = C[p * sc + i + static_cast<long long>(j) * ldc];
        c = *alpha * static_cast<float>(acc) + (*beta == 0.0f ? 0.0f : *beta * c);
      }
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float* alpha,
                                  const float* A, int lda, const float* B, int ldb, const float* beta, float* C, int ldc) {
  return cublasSgemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}
#endif
)DCWCU";

// cuDNN, or under DCW_CUDA_SIM a stand-in of the calls the `cudnn` environment makes: descriptors that
// keep their dims, one "algorithm", and a direct convolution computed as cuDNN defines it (cross-
// correlation, NC.. layouts with the descriptors' strides, groups, symmetric pads, strides, dilations),
// pooling (max, averages with and without the padding) and channel-mode softmax (accurate and log).
constexpr std::string_view kCudnnHeader = R"DCWCU(#ifndef DCW_CUDA_SIM
#include <cudnn.h>
#else
#include <cmath>
typedef struct dcw_cudnn_sim_context* cudnnHandle_t;
typedef int cudnnStatus_t;
enum { CUDNN_STATUS_SUCCESS = 0, CUDNN_STATUS_BAD_PARAM = 3 };
typedef enum { CUDNN_DATA_FLOAT = 0 } cudnnDataType_t;
typedef enum { CUDNN_TENSOR_NCHW = 0 } cudnnTensorFormat_t;
typedef enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1, CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2, CUDNN_FMA_MATH = 3 } cudnnMathType_t;
typedef int cudnnConvolutionFwdAlgo_t;
struct cudnnConvolutionFwdAlgoPerf_t {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};
struct dcw_cudnn_sim_tensor {
  int nd = 0, dims[8] = {}, strides[8] = {};
};
struct dcw_cudnn_sim_filter {
  int nd = 0, dims[8] = {};
};
struct dcw_cudnn_sim_conv {
  int nd = 0, pad[8] = {}, stride[8] = {}, dilation[8] = {}, group = 1;
};
typedef dcw_cudnn_sim_tensor* cudnnTensorDescriptor_t;
typedef dcw_cudnn_sim_filter* cudnnFilterDescriptor_t;
typedef dcw_cudnn_sim_conv* cudnnConvolutionDescriptor_t;
inline const char* cudnnGetErrorString(cudnnStatus_t s) { return s == CUDNN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_BAD_PARAM"; }
inline cudnnStatus_t cudnnCreate(cudnnHandle_t* h) { *h = reinterpret_cast<cudnnHandle_t>(h); return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroy(cudnnHandle_t) { return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t) { return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* t) { *t = new dcw_cudnn_sim_tensor; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t t) { delete t; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t t, cudnnDataType_t, int nd, const int* dims, const int* strides) {
  if (nd < 3 || nd > 8) return CUDNN_STATUS_BAD_PARAM;
  t->nd = nd;
  for (int k = 0; k < nd; ++k) t->dims[k] = dims[k], t->strides[k] = strides[k];
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* f) { *f = new dcw_cudnn_sim_filter; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t f) { delete f; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t f, cudnnDataType_t, cudnnTensorFormat_t, int nd, const int* dims) {
  if (nd < 3 || nd > 8) return CUDNN_STATUS_BAD_PARAM;
  f->nd = nd;
  for (int k = 0; k < nd; ++k) f->dims[k] = dims[k];
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* c) { *c = new dcw_cudnn_sim_conv; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t c) { delete c; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t c, int nd, const int* pad, const int* stride, const int* dilation,
                                                     cudnnConvolutionMode_t mode, cudnnDataType_t) {
  if (nd < 1 || nd > 6 || mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_BAD_PARAM;
  c->nd = nd;
  for (int k = 0; k < nd; ++k) {
    if (pad[k] < 0 || stride[k] < 1 || dilation[k] < 1) return CUDNN_STATUS_BAD_PARAM;
    c->pad[k] = pad[k], c->stride[k] = stride[k], c->dilation[k] = dilation[k];
  }
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t c, int g) {
  if (g < 1) return CUDNN_STATUS_BAD_PARAM;
  c->group = g;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t, cudnnMathType_t) { return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                                                          cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int requested, int* found,
                                                          cudnnConvolutionFwdAlgoPerf_t* perf) {
  if (requested < 1) return CUDNN_STATUS_BAD_PARAM;
  // Two "algorithms" (the same computation): the implicit GEMM, then the precomputed one.
  perf[0] = cudnnConvolutionFwdAlgoPerf_t{0, CUDNN_STATUS_SUCCESS, 0.0f, 0, 1, CUDNN_FMA_MATH, {0, 0, 0}};
  *found = 1;
  if (requested > 1) {
    perf[1] = cudnnConvolutionFwdAlgoPerf_t{1, CUDNN_STATUS_SUCCESS, 0.0f, 0, 1, CUDNN_FMA_MATH, {0, 0, 0}};
    *found = 2;
  }
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                                                             cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t,
                                                             size_t* bytes) {
  *bytes = 0;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t xd, const void* xv, cudnnFilterDescriptor_t wd,
                                             const void* wv, cudnnConvolutionDescriptor_t cd, cudnnConvolutionFwdAlgo_t, void*, size_t,
                                             const void* beta, cudnnTensorDescriptor_t yd, void* yv) {
  const int sp = xd->nd - 2;
  if (sp < 1 || sp > 3 || wd->nd != xd->nd || yd->nd != xd->nd || cd->nd != sp) return CUDNN_STATUS_BAD_PARAM;
  const int N = xd->dims[0], C = xd->dims[1], M = yd->dims[1], g = cd->group;
  if (yd->dims[0] != N || C % g || M % g || wd->dims[0] != M || wd->dims[1] * g != C) return CUDNN_STATUS_BAD_PARAM;
  const int Cg = C / g, Mg = M / g;
  // Spatial dims padded to three (extent 1, stride 0 where absent).
  int in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, str[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  long long xs[3] = {0, 0, 0}, ys[3] = {0, 0, 0};
  for (int d = 0; d < sp; ++d) {
    in[d] = xd->dims[2 + d], k[d] = wd->dims[2 + d], out[d] = yd->dims[2 + d];
    pad[d] = cd->pad[d], str[d] = cd->stride[d], dil[d] = cd->dilation[d];
    xs[d] = xd->strides[2 + d], ys[d] = yd->strides[2 + d];
  }
  const float* X = static_cast<const float*>(xv);
  const float* W = static_cast<const float*>(wv);
  float* Y = static_cast<float*>(yv);
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  for (int n = 0; n < N; ++n)
    for (int m = 0; m < M; ++m)
      for (int o0 = 0; o0 < out[0]; ++o0)
        for (int o1 = 0; o1 < out[1]; ++o1)
          for (int o2 = 0; o2 < out[2]; ++o2) {
            double acc = 0;
            const int o[3] = {o0, o1, o2};
            for (int c = 0; c < Cg; ++c)
              for (int k0 = 0; k0 < k[0]; ++k0)
                for (int k1 = 0; k1 < k[1]; ++k1)
                  for (int k2 = 0; k2 < k[2]; ++k2) {
                    const int t[3] = {k0, k1, k2};
                    long long at = static_cast<long long>(n) * xd->strides[0] + static_cast<long long>((m / Mg) * Cg + c) * xd->strides[1];
                    bool inside = true;
                    for (int d = 0; d < 3; ++d) {
                      const int i = o[d] * str[d] - pad[d] + t[d] * dil[d];
                      inside = inside && i >= 0 && i < in[d];
                      at += i * xs[d];
                    }
                    if (!inside) continue;
                    const long long wi = ((static_cast<long long>(m) * Cg + c) * k[0] + k0) * k[1] * k[2] + static_cast<long long>(k1) * k[2] + k2;
                    acc += static_cast<double>(X[at]) * W[wi];
                  }
            float& y = Y[static_cast<long long>(n) * yd->strides[0] + static_cast<long long>(m) * yd->strides[1] + o0 * ys[0] + o1 * ys[1] + o2 * ys[2]];
            y = a * static_cast<float>(acc) + (b == 0.0f ? 0.0f : b * y);
          }
  return CUDNN_STATUS_SUCCESS;
}
typedef enum { CUDNN_POOLING_MAX = 0, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2 } cudnnPoolingMode_t;
typedef enum { CUDNN_NOT_PROPAGATE_NAN = 0, CUDNN_PROPAGATE_NAN = 1 } cudnnNanPropagation_t;
struct dcw_cudnn_sim_pool {
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  int nd = 0, window[8] = {}, pad[8] = {}, stride[8] = {};
};
typedef dcw_cudnn_sim_pool* cudnnPoolingDescriptor_t;
inline cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t* p) { *p = new dcw_cudnn_sim_pool; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t p) { delete p; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t p, cudnnPoolingMode_t mode, cudnnNanPropagation_t, int nd,
                                                 const int* window, const int* pad, const int* stride) {
  if (nd < 1 || nd > 3) return CUDNN_STATUS_BAD_PARAM;
  p->mode = mode;
  p->nd = nd;
  for (int k = 0; k < nd; ++k) {
    if (window[k] < 1 || stride[k] < 1 || pad[k] < 0) return CUDNN_STATUS_BAD_PARAM;
    p->window[k] = window[k], p->pad[k] = pad[k], p->stride[k] = stride[k];
  }
  return CUDNN_STATUS_SUCCESS;
}
// Y = alpha pool(X) + beta Y over each window (NC.. layouts with the descriptors' strides); the average
// counts the padding or not as the mode says, the maximum ignores it.
inline cudnnStatus_t cudnnPoolingForward(cudnnHandle_t, cudnnPoolingDescriptor_t pd, const void* alpha, cudnnTensorDescriptor_t xd, const void* xv,
                                         const void* beta, cudnnTensorDescriptor_t yd, void* yv) {
  const int sp = xd->nd - 2;
  if (sp < 1 || sp > 3 || yd->nd != xd->nd || pd->nd != sp || xd->dims[0] != yd->dims[0] || xd->dims[1] != yd->dims[1]) return CUDNN_STATUS_BAD_PARAM;
  int in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, win[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, str[3] = {1, 1, 1};
  long long xs[3] = {0, 0, 0}, ys[3] = {0, 0, 0};
  for (int d = 0; d < sp; ++d) {
    in[d] = xd->dims[2 + d], out[d] = yd->dims[2 + d], win[d] = pd->window[d], pad[d] = pd->pad[d], str[d] = pd->stride[d];
    xs[d] = xd->strides[2 + d], ys[d] = yd->strides[2 + d];
  }
  const float* X = static_cast<const float*>(xv);
  float* Y = static_cast<float*>(yv);
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  for (int n = 0; n < xd->dims[0]; ++n)
    for (int c = 0; c < xd->dims[1]; ++c)
      for (int o0 = 0; o0 < out[0]; ++o0)
        for (int o1 = 0; o1 < out[1]; ++o1)
          for (int o2 = 0; o2 < out[2]; ++o2) {
            const int o[3] = {o0, o1, o2};
            double acc = pd->mode == CUDNN_POOLING_MAX ? -INFINITY : 0.0;
            long long seen = 0, total = 0;
            for (int k0 = 0; k0 < win[0]; ++k0)
              for (int k1 = 0; k1 < win[1]; ++k1)
                for (int k2 = 0; k2 < win[2]; ++k2) {
                  const int t[3] = {k0, k1, k2};
                  long long at = static_cast<long long>(n) * xd->strides[0] + static_cast<long long>(c) * xd->strides[1];
                  bool inside = true, inPadded = true;
                  for (int d = 0; d < 3; ++d) {
                    const int i = o[d] * str[d] - pad[d] + t[d];
                    inside = inside && i >= 0 && i < in[d];
                    inPadded = inPadded && i < in[d] + pad[d];
                    at += i * xs[d];
                  }
                  total += inPadded ? 1 : 0;
                  if (!inside) continue;
                  ++seen;
                  acc = pd->mode == CUDNN_POOLING_MAX ? (X[at] > acc || X[at] != X[at] ? double(X[at]) : acc) : acc + X[at];
                }
            const long long count = pd->mode == CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING ? total : seen;
            const double v = pd->mode == CUDNN_POOLING_MAX ? acc : (count ? acc / double(count) : 0.0);
            float& y = Y[static_cast<long long>(n) * yd->strides[0] + static_cast<long long>(c) * yd->strides[1] + o0 * ys[0] + o1 * ys[1] + o2 * ys[2]];
            y = a * static_cast<float>(v) + (b == 0.0f ? 0.0f : b * y);
          }
  return CUDNN_STATUS_SUCCESS;
}
typedef enum { CUDNN_SOFTMAX_FAST = 0, CUDNN_SOFTMAX_ACCURATE = 1, CUDNN_SOFTMAX_LOG = 2 } cudnnSoftmaxAlgorithm_t;
typedef enum { CUDNN_SOFTMAX_MODE_INSTANCE = 0, CUDNN_SOFTMAX_MODE_CHANNEL = 1 } cudnnSoftmaxMode_t;
// Softmax over C for every (n, h, w) (channel mode; 4-D descriptors), the maximum subtracted first.
inline cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const void* alpha,
                                         cudnnTensorDescriptor_t xd, const void* xv, const void* beta, cudnnTensorDescriptor_t yd, void* yv) {
  if (xd->nd != 4 || yd->nd != 4 || mode != CUDNN_SOFTMAX_MODE_CHANNEL) return CUDNN_STATUS_BAD_PARAM;
  const float* X = static_cast<const float*>(xv);
  float* Y = static_cast<float*>(yv);
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  const int N = xd->dims[0], C = xd->dims[1], H = xd->dims[2], W = xd->dims[3];
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < W; ++w) {
        auto xat = [&](int c) { return X[static_cast<long long>(n) * xd->strides[0] + static_cast<long long>(c) * xd->strides[1] + h * xd->strides[2] + w * xd->strides[3]]; };
        double m = -INFINITY, sum = 0;
        for (int c = 0; c < C; ++c) m = xat(c) > m ? xat(c) : m;
        for (int c = 0; c < C; ++c) sum += std::exp(double(xat(c)) - m);
        for (int c = 0; c < C; ++c) {
          const double v = algo == CUDNN_SOFTMAX_LOG ? double(xat(c)) - m - std::log(sum) : std::exp(double(xat(c)) - m) / sum;
          float& y = Y[static_cast<long long>(n) * yd->strides[0] + static_cast<long long>(c) * yd->strides[1] + h * yd->strides[2] + w * yd->strides[3]];
          y = a * static_cast<float>(v) + (b == 0.0f ? 0.0f : b * y);
        }
      }
  return CUDNN_STATUS_SUCCESS;
}
// C = alpha A + beta C, A broadcast along its dims of extent 1.
inline cudnnStatus_t cudnnAddTensor(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t ad, const void* av, const void* beta,
                                    cudnnTensorDescriptor_t cd, void* cv) {
  if (ad->nd != cd->nd) return CUDNN_STATUS_BAD_PARAM;
  long long total = 1;
  for (int d = 0; d < cd->nd; ++d) {
    if (ad->dims[d] != 1 && ad->dims[d] != cd->dims[d]) return CUDNN_STATUS_BAD_PARAM;
    total *= cd->dims[d];
  }
  const float al = *static_cast<const float*>(alpha), be = *static_cast<const float*>(beta);
  const float* A = static_cast<const float*>(av);
  float* C = static_cast<float*>(cv);
  for (long long e = 0; e < total; ++e) {
    long long rest = e, ai = 0, ci = 0;
    for (int d = cd->nd; d-- > 0;) {
      const long long i = rest % cd->dims[d];
      rest /= cd->dims[d];
      ci += i * cd->strides[d];
      ai += (ad->dims[d] == 1 ? 0 : i) * ad->strides[d];
    }
    C[ci] = al * A[ai] + be * C[ci];
  }
  return CUDNN_STATUS_SUCCESS;
}
enum { CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1 };
typedef enum { CUDNN_ACTIVATION_SIGMOID = 0, CUDNN_ACTIVATION_RELU = 1, CUDNN_ACTIVATION_IDENTITY = 5 } cudnnActivationMode_t;
struct dcw_cudnn_sim_activation {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_IDENTITY;
};
typedef dcw_cudnn_sim_activation* cudnnActivationDescriptor_t;
inline cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* a) { *a = new dcw_cudnn_sim_activation; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t a) { delete a; return CUDNN_STATUS_SUCCESS; }
inline cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t a, cudnnActivationMode_t mode, cudnnNanPropagation_t, double) {
  if (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY) return CUDNN_STATUS_BAD_PARAM;
  a->mode = mode;
  return CUDNN_STATUS_SUCCESS;
}
// Y = act(alpha1 conv(X) + alpha2 Z + bias), as cuDNN defines it (identity only with the implicit
// precomputed GEMM; Z may be Y).
inline cudnnStatus_t cudnnConvolutionBiasActivationForward(cudnnHandle_t h, const void* alpha1, cudnnTensorDescriptor_t xd, const void* x,
                                                           cudnnFilterDescriptor_t wd, const void* w, cudnnConvolutionDescriptor_t cd,
                                                           cudnnConvolutionFwdAlgo_t algo, void* ws, size_t wsSize, const void* alpha2,
                                                           cudnnTensorDescriptor_t zd, const void* z, cudnnTensorDescriptor_t bd, const void* bias,
                                                           cudnnActivationDescriptor_t ad, cudnnTensorDescriptor_t yd, void* y) {
  if (ad->mode == CUDNN_ACTIVATION_IDENTITY && algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) return CUDNN_STATUS_BAD_PARAM;
  long long total = 1;
  for (int d = 0; d < yd->nd; ++d) total *= yd->dims[d];
  const float a2 = *static_cast<const float*>(alpha2);
  std::vector<float> zcopy(static_cast<const float*>(z), static_cast<const float*>(z) + (a2 != 0.0f ? total : 0)); // Z may be Y
  const float zero = 0.0f, one = 1.0f;
  cudnnStatus_t st = cudnnConvolutionForward(h, alpha1, xd, x, wd, w, cd, algo, ws, wsSize, &zero, yd, y);
  if (st != CUDNN_STATUS_SUCCESS) return st;
  if ((st = cudnnAddTensor(h, &one, bd, bias, &one, yd, y)) != CUDNN_STATUS_SUCCESS) return st;
  float* Y = static_cast<float*>(y);
  for (long long e = 0; e < total; ++e) { // dense NC.. tensors (what the environment describes)
    float v = Y[e] + (a2 != 0.0f ? a2 * zcopy[static_cast<size_t>(e)] : 0.0f);
    Y[e] = ad->mode == CUDNN_ACTIVATION_RELU ? (v > 0.0f ? v : 0.0f) : v;
  }
  (void)zd;
  return CUDNN_STATUS_SUCCESS;
}
typedef enum { CUDNN_BATCHNORM_PER_ACTIVATION = 0, CUDNN_BATCHNORM_SPATIAL = 1 } cudnnBatchNormMode_t;
// Y = alpha (scale (X - mean) / sqrt(var + epsilon) + bias) + beta Y per channel (spatial mode: the
// parameters [1, C, 1, ..]), as cuDNN defines the inference form.
inline cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t, cudnnBatchNormMode_t mode, const void* alpha, const void* beta,
                                                             cudnnTensorDescriptor_t xd, const void* xv, cudnnTensorDescriptor_t yd, void* yv,
                                                             cudnnTensorDescriptor_t cd, const void* scale, const void* bias,
                                                             const void* mean, const void* var, double epsilon) {
  if (mode != CUDNN_BATCHNORM_SPATIAL || xd->nd < 4 || xd->nd > 5 || yd->nd != xd->nd || cd->nd != xd->nd || cd->dims[1] != xd->dims[1])
    return CUDNN_STATUS_BAD_PARAM;
  long long total = 1;
  for (int d = 0; d < xd->nd; ++d) {
    if (yd->dims[d] != xd->dims[d]) return CUDNN_STATUS_BAD_PARAM;
    total *= xd->dims[d];
  }
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  const float *X = static_cast<const float*>(xv), *S = static_cast<const float*>(scale), *B = static_cast<const float*>(bias);
  const float *M = static_cast<const float*>(mean), *V = static_cast<const float*>(var);
  float* Y = static_cast<float*>(yv);
  for (long long e = 0; e < total; ++e) {
    long long rest = e, xi = 0, yi = 0;
    int c = 0;
    for (int d = xd->nd; d-- > 0;) {
      const long long i = rest % xd->dims[d];
      rest /= xd->dims[d];
      xi += i * xd->strides[d];
      yi += i * yd->strides[d];
      if (d == 1) c = int(i);
    }
    const float v = S[c] * ((X[xi] - M[c]) / std::sqrt(V[c] + float(epsilon))) + B[c];
    Y[yi] = a * v + (b == 0.0f ? 0.0f : b * Y[yi]);
  }
  return CUDNN_STATUS_SUCCESS;
}
// Y = alpha act(X) + beta Y (ReLU or identity); X may be Y.
inline cudnnStatus_t cudnnActivationForward(cudnnHandle_t, cudnnActivationDescriptor_t ad, const void* alpha, cudnnTensorDescriptor_t xd,
                                            const void* xv, const void* beta, cudnnTensorDescriptor_t yd, void* yv) {
  if (xd->nd != yd->nd) return CUDNN_STATUS_BAD_PARAM;
  long long total = 1;
  for (int d = 0; d < xd->nd; ++d) {
    if (yd->dims[d] != xd->dims[d] || yd->strides[d] != xd->strides[d]) return CUDNN_STATUS_BAD_PARAM;
    total *= xd->dims[d];
  }
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  const float* X = static_cast<const float*>(xv);
  float* Y = static_cast<float*>(yv);
  for (long long e = 0; e < total; ++e) { // dense tensors (what the environment describes)
    const float v = ad->mode == CUDNN_ACTIVATION_RELU ? (X[e] > 0.0f ? X[e] : 0.0f) : X[e];
    Y[e] = a * v + (b == 0.0f ? 0.0f : b * Y[e]);
  }
  return CUDNN_STATUS_SUCCESS;
}
#endif
)DCWCU";

constexpr std::string_view kCudaRuntime = R"DCWCU(#include <atomic>
#include <limits>
#include <string>

namespace dcw_cu {

// ---- the program's stream; errors name the element and the call ----
struct Context {
  std::mutex m;
  cudaStream_t stream = nullptr;
  bool ready = false;
};
inline Context& context() { static Context c; return c; }
inline cudaStream_t stream() { return context().stream; }
inline int fail(char* error, size_t size, const char* where, const char* call, cudaError_t e) {
  std::string m = std::string(where) + ": " + call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  return dcw_rt::report(error, size, m.c_str());
}
inline int ready(char* error, size_t size) {
  Context& c = context();
  std::lock_guard<std::mutex> g(c.m);
  if (c.ready) return 0;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::string m = std::string("no CUDA GPU is usable on this machine (cudaGetDeviceCount: ") +
                    (e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ", " + cudaGetErrorString(e) : std::string("no devices")) +
                    "); run with --target cpu, or on a machine with an NVIDIA GPU and its driver";
    (void)cudaGetLastError();
    return dcw_rt::report(error, size, m.c_str());
  }
  e = cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) return fail(error, size, "program", "cudaStreamCreateWithFlags", e);
  c.ready = true;
  return 0;
}
// After a launch: the launch's own error (bad configuration, no kernel image for this GPU); a fault
// while it runs is reported when the run waits for the stream (finish).
inline int launched(char* error, size_t size, const char* where) {
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : fail(error, size, where, "kernel launch", e);
}
// A kernel launch on the program's stream (cuda-sim: every thread of every block in turn).
template <class... P, class... A> inline void launch(void (*kernel)(P...), unsigned blocks, unsigned threads, A... args) {
#ifndef DCW_CUDA_SIM
  kernel<<<blocks, threads, 0, stream()>>>(args...);
#else
  gridDim.x = blocks;
  blockDim.x = threads;
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      blockIdx.x = b;
      threadIdx.x = t;
      kernel(args...);
    }
#endif
}
// A launch of a kernel with barriers (thread-block maps): cuda-sim runs each block's threads as
// coroutines that meet at every barrier.
template <class... P, class... A> inline void launch_blocks(void (*kernel)(P...), unsigned blocks, unsigned threads, A... args) {
#ifndef DCW_CUDA_SIM
  kernel<<<blocks, threads, 0, stream()>>>(args...);
#else
  gridDim.x = blocks;
  blockDim.x = threads;
  for (unsigned b = 0; b < blocks; ++b) {
    blockIdx.x = b;
    dcw_cu_sim::run_block(threads, [&] { kernel(args...); });
  }
#endif
}
inline int check(char* error, size_t size, const char* where, const char* call, cudaError_t e) {
  return e == cudaSuccess ? 0 : fail(error, size, where, call, e);
}
// The threads of a block that reduces together: 256 on a GPU; under cuda-sim, where a block's threads
// are coroutines switched at every barrier, four (the tree is still a tree; the simulation stays fast).
#ifdef DCW_CUDA_SIM
constexpr unsigned kReduceThreads = 4;
#else
constexpr unsigned kReduceThreads = 256;
#endif
// A failure of read_on_host, kept until the run ends (it happens inside an expression).
inline cudaError_t& deferred() {
  static cudaError_t e = cudaSuccess;
  return e;
}
// One element in GPU memory that host control flow reads: the stream drained, the element copied back.
template <class T> inline T read_on_host(const T* p) {
  T v{};
  cudaError_t e = cudaStreamSynchronize(stream());
  if (e == cudaSuccess) e = cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess && deferred() == cudaSuccess) deferred() = e;
  return v;
}
// The end of a run: every kernel and copy done; a fault in any of them is reported here.
inline int finish(char* error, size_t size, const char* where) {
  if (cudaError_t d = deferred(); d != cudaSuccess) {
    deferred() = cudaSuccess;
    return check(error, size, where, "reading a GPU value for the host's control flow", d);
  }
  return check(error, size, where, "waiting for the GPU (a kernel or copy of this run failed)", cudaStreamSynchronize(stream()));
}

// ---- device memory ----
// What DCW itself holds in GPU memory (pooled transients, resident weights, library workspaces): now
// and its high-water mark since the program was loaded, for the profile report.
struct DeviceBytes {
  std::atomic<int64_t> now{0}, peak{0};
};
inline DeviceBytes& device_bytes() {
  static DeviceBytes b;
  return b;
}
inline cudaError_t device_malloc(void** p, size_t bytes) {
  cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaSuccess) {
    DeviceBytes& b = device_bytes();
    const int64_t now = b.now.fetch_add(static_cast<int64_t>(bytes)) + static_cast<int64_t>(bytes);
    for (int64_t seen = b.peak.load(); now > seen && !b.peak.compare_exchange_weak(seen, now);) {
    }
  }
  return e;
}
inline void device_free(void* p, size_t bytes) {
  if (!p) return;
  (void)cudaFree(p);
  device_bytes().now.fetch_sub(static_cast<int64_t>(bytes));
}
class Pool {
public:
  static Pool& instance() { static Pool p; return p; }
  void* take(size_t bytes, cudaError_t* status) {
    {
      std::lock_guard<std::mutex> g(m_);
      for (size_t k = 0; k < free_.size(); ++k)
        if (free_[k].bytes == bytes) {
          void* p = free_[k].p;
          free_[k] = free_.back();
          free_.pop_back();
          return p;
        }
    }
    void* p = nullptr;
    *status = device_malloc(&p, bytes);
    return *status == cudaSuccess ? p : nullptr;
  }
  void give(void* p, size_t bytes) {
    std::lock_guard<std::mutex> g(m_);
    free_.push_back({p, bytes});
  }
  ~Pool() {
    for (auto& b : free_) device_free(b.p, b.bytes); // at unload; errors (a driver already gone) do not matter
  }

private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::mutex m_;
  std::vector<Block> free_;
};
// A transient in GPU global memory, zeroed on the stream as host transients are, unless `zero` is false.
template <class T> struct DeviceBuffer {
  T* p = nullptr;
  size_t bytes = 0;
  cudaError_t status = cudaSuccess;
  explicit DeviceBuffer(int64_t n, bool zero = true) {
    if (n < 0 || static_cast<uint64_t>(n) > (static_cast<uint64_t>(1) << 58) / sizeof(T)) {
      status = cudaErrorMemoryAllocation;
      return;
    }
    bytes = (static_cast<size_t>(n) * sizeof(T) + 255) / 256 * 256;
    if (bytes == 0) bytes = 256;
    void* q = Pool::instance().take(bytes, &status);
    if (q && zero) status = cudaMemsetAsync(q, 0, bytes, stream());
    p = static_cast<T*>(q);
  }
  ~DeviceBuffer() {
    if (p) Pool::instance().give(p, bytes);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// ---- weights resident on the GPU ----
// The device copy of a model constant (a weight): allocated on the first run and uploaded again only
// when the host array it copies is another one (another executor of the same program), so a run does
// not copy the model's weights to the GPU each time. dcw_cuda_forget_uploads (called when a program is
// loaded for a new executor) makes the next run upload again: a new model's weights may sit at a freed
// array's address.
class Resident;
inline std::mutex& residents_mutex() { static std::mutex m; return m; }
inline std::vector<Resident*>& residents() { static std::vector<Resident*> v; return v; }
class Resident {
public:
  Resident() {
    std::lock_guard<std::mutex> g(residents_mutex());
    residents().push_back(this);
  }
  ~Resident() { device_free(p_, bytes_ ? bytes_ : 1); }
  // The device block of `bytes` (the same one every run).
  void* device(size_t bytes, cudaError_t* status) {
    std::lock_guard<std::mutex> g(m_);
    if (!p_ || bytes_ != bytes) {
      device_free(p_, bytes_ ? bytes_ : 1);
      p_ = nullptr;
      source_ = nullptr;
      *status = device_malloc(&p_, bytes ? bytes : 1);
      if (*status != cudaSuccess) p_ = nullptr;
      bytes_ = bytes;
    }
    return p_;
  }
  // Copies `bytes` from `host` unless this very array was uploaded last.
  cudaError_t upload(const void* host, size_t bytes) {
    std::lock_guard<std::mutex> g(m_);
    if (!p_) return cudaErrorMemoryAllocation;
    if (host == source_) return cudaSuccess;
    cudaError_t e = cudaMemcpyAsync(p_, host, bytes, cudaMemcpyHostToDevice, stream());
    source_ = e == cudaSuccess ? host : nullptr;
    return e;
  }
  void forget() {
    std::lock_guard<std::mutex> g(m_);
    source_ = nullptr;
  }

private:
  std::mutex m_;
  void* p_ = nullptr;
  size_t bytes_ = 0;
  const void* source_ = nullptr;
};

// ---- atomics for write-conflict resolution in kernels ----
__device__ inline void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ inline void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ inline void atomic_add(int32_t* p, int32_t v) { atomicAdd(reinterpret_cast<int*>(p), static_cast<int>(v)); }
__device__ inline void atomic_add(uint32_t* p, uint32_t v) { atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v)); }
__device__ inline void atomic_add(int64_t* p, int64_t v) {
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)); // two's complement wraps alike
}
__device__ inline void atomic_add(uint64_t* p, uint64_t v) { atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)); }
// Compare-and-swap of the element's bits (2, 4 or 8 bytes); returns what was there.
template <class T> __device__ inline T cas(T* p, T expected, T desired) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "no compare-and-swap of this width");
  T old;
  if constexpr (sizeof(T) == 2) {
    unsigned short e, d;
    memcpy(&e, &expected, 2);
    memcpy(&d, &desired, 2);
    unsigned short r = atomicCAS(reinterpret_cast<unsigned short*>(p), e, d);
    memcpy(&old, &r, 2);
  } else if constexpr (sizeof(T) == 4) {
    unsigned int e, d;
    memcpy(&e, &expected, 4);
    memcpy(&d, &desired, 4);
    unsigned int r = atomicCAS(reinterpret_cast<unsigned int*>(p), e, d);
    memcpy(&old, &r, 4);
  } else {
    unsigned long long e, d;
    memcpy(&e, &expected, 8);
    memcpy(&d, &desired, 8);
    unsigned long long r = atomicCAS(reinterpret_cast<unsigned long long*>(p), e, d);
    memcpy(&old, &r, 8);
  }
  return old;
}
// The identities of max and min, for a block reduction's accumulators.
template <class T> __host__ __device__ inline T lowest() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
}
template <class T> __host__ __device__ inline T highest() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}
// Bitwise equality (memcmp is host-only in CUDA; a byte loop compiles on both sides).
template <class T> __device__ inline bool same_bits(T a, T b) {
  const unsigned char* x = reinterpret_cast<const unsigned char*>(&a);
  const unsigned char* y = reinterpret_cast<const unsigned char*>(&b);
  for (unsigned i = 0; i < sizeof(T); ++i)
    if (x[i] != y[i]) return false;
  return true;
}

} // namespace dcw_cu

extern "C" void dcw_cuda_forget_uploads() {
  std::lock_guard<std::mutex> g(dcw_cu::residents_mutex());
  for (dcw_cu::Resident* r : dcw_cu::residents()) r->forget();
}
)DCWCU";
} // namespace

// Timing of an instrumented CUDA program (after DCW's profiling runtime, dcw_prof): kernels, copies and
// GPU library calls get a pair of CUDA events on the stream (no waiting), resolved when the run ends
// into events of the track kGpuTrack ("GPU stream 0"), on the host's clock: the time from a reference
// event recorded when the run started, added to the host's time then. Other timed elements (states,
// nested SDFGs, the model) are host scopes that wait for the stream when they start and before they
// end, so their time is the GPU work they queued and nothing queued before them (without the first
// wait, a nested SDFG after a run of kernels was charged with all of them: ResNet-50's last Gemm showed
// 6.2 of the run's 12.9 ms on an H200, its own cuBLAS call 0.02 ms).
constexpr std::string_view kCudaProfile = R"DCWCU(namespace dcw_cu {

constexpr uint32_t kGpuTrack = 1u << 16;
constexpr uint32_t kGpuMemoryElement = 0xFFFFFFFFu; // an event that carries GPU memory figures, not a time
struct GpuSpan {
  uint32_t element;
  cudaEvent_t start, end;
};
inline std::mutex& spans_mutex() { static std::mutex m; return m; }
inline std::vector<GpuSpan>& spans() { static std::vector<GpuSpan> v; return v; }
// A kernel, copy or library call: the stream's time between the two events.
struct GpuTimer {
  GpuSpan s{0, nullptr, nullptr};
  bool on = false;
  explicit GpuTimer(uint32_t element) {
    s.element = element;
    on = cudaEventCreate(&s.start) == cudaSuccess && cudaEventCreate(&s.end) == cudaSuccess && cudaEventRecord(s.start, stream()) == cudaSuccess;
  }
  ~GpuTimer() {
    if (on && cudaEventRecord(s.end, stream()) == cudaSuccess) {
      std::lock_guard<std::mutex> g(spans_mutex());
      spans().push_back(s);
    }
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
};
// Waits for the stream: constructed before the scope's clock starts.
struct StreamDrained {
  StreamDrained() { (void)cudaStreamSynchronize(stream()); }
};
// A host scope that waits for the stream when it starts (a base constructed before dcw_prof::Scope
// reads the clock) and before it ends.
struct SyncedScope : private StreamDrained, dcw_prof::Scope {
  explicit SyncedScope(uint32_t element, bool masterOnly = false) : StreamDrained(), dcw_prof::Scope(element, masterOnly) {}
  ~SyncedScope() { (void)cudaStreamSynchronize(stream()); }
};
// The run's reference: an event and the host's time when the run started; flush() turns the spans into
// profiling events once the stream is done.
struct RunClock {
  cudaEvent_t ref = nullptr;
  int64_t refNs = 0;
  RunClock() {
    if (cudaEventCreate(&ref) != cudaSuccess) ref = nullptr;
    refNs = dcw_prof::now_ns();
    if (ref) (void)cudaEventRecord(ref, stream());
  }
  void flush() {
    (void)cudaStreamSynchronize(stream());
    std::lock_guard<std::mutex> g(spans_mutex());
    dcw_prof::State& st = dcw_prof::state();
    for (GpuSpan& s : spans()) {
      float a = 0, b = 0;
      if (ref && cudaEventElapsedTime(&a, ref, s.start) == cudaSuccess && cudaEventElapsedTime(&b, ref, s.end) == cudaSuccess) {
        size_t k = __atomic_fetch_add(&st.count, 1, __ATOMIC_RELAXED);
        if (k >= st.capacity) {
          __atomic_fetch_add(&st.dropped, 1, __ATOMIC_RELAXED);
        } else {
          dcw_event& e = st.events[k];
          e.element = s.element;
          e.thread = kGpuTrack;
          e.start_ns = refNs + static_cast<int64_t>(double(a) * 1e6);
          e.end_ns = refNs + static_cast<int64_t>(double(b) * 1e6);
          for (int c = 0; c < dcw_prof::kMaxCounters; ++c) e.counters[c] = 0;
        }
      }
      (void)cudaEventDestroy(s.start);
      (void)cudaEventDestroy(s.end);
    }
    spans().clear();
    // GPU memory: DCW's high-water mark and holding, and the device's use and size (kGpuMemoryElement).
    size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) freeBytes = totalBytes = 0;
    size_t k = __atomic_fetch_add(&st.count, 1, __ATOMIC_RELAXED);
    if (k >= st.capacity) {
      __atomic_fetch_add(&st.dropped, 1, __ATOMIC_RELAXED);
    } else {
      dcw_event& e = st.events[k];
      e.element = kGpuMemoryElement;
      e.thread = kGpuTrack;
      e.start_ns = e.end_ns = refNs;
      e.counters[0] = device_bytes().peak.load();
      e.counters[1] = device_bytes().now.load();
      e.counters[2] = static_cast<int64_t>(totalBytes - freeBytes);
      e.counters[3] = static_cast<int64_t>(totalBytes);
    }
  }
  ~RunClock() {
    if (ref) (void)cudaEventDestroy(ref);
  }
  RunClock(const RunClock&) = delete;
  RunClock& operator=(const RunClock&) = delete;
};

} // namespace dcw_cu
)DCWCU";

std::string_view cudaProfileSource() { return kCudaProfile; }

std::string cudaHeaderSource(bool cublas, bool cudnn) {
  std::string s(kCudaHeader);
  if (cublas) s += kCublasHeader;
  if (cudnn) s += kCudnnHeader;
  return s;
}
std::string_view cudaRuntimeSource() { return kCudaRuntime; }

} // namespace dcw::codegen
