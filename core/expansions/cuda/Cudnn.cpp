// `cudnn` Conv: one cudnnConvolutionForward per node, on the program's stream, and cudnnAddTensor for
// the bias; MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool as cudnnPoolingForward, Softmax
// and LogSoftmax as cudnnSoftmaxForward; BatchNormalization (inference: the global statistics) as
// cudnnBatchNormalizationForwardInference, FusedBatchNormalization with Relu (DenseNet's BN -> ReLU
// before each convolution, which cannot fold into a convolution's weights) followed by
// cudnnActivationForward in place.
//
//   Conv  X[N, C, D..] * W[M, C/g, K..] (+ B[M]) -> Y[N, M, O..], 1 to 3 spatial dims (1-D as 2-D with a
//         height of 1: cuDNN's tensors have 4 or 5 dims), groups (depthwise included), strides and
//         dilations; pads as ONNX and auto_pad give them where cuDNN's one pad per dim gives the same
//         output extent (symmetric pads, or an end pad the stride never reaches). Others refused (pure).
// float32 only, known dims. The algorithm is measured on the first run among cuDNN's fp32 ones (no
// TF32 tensor-core math, so the numbers match the CPU path within float rounding).
#include "core/expansions/cuda/CudnnOps.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/FusedOp.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/cuda/GpuOperands.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <climits>

namespace dcw::expansions::cuda {

using namespace dcw::ir;

namespace {

ImplementationDecl cudnnDecl() { return ImplementationDecl{"cudnn", {"cuda"}, {"cudnn"}, false}; }

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "}";
}

// Pads, strides and dilations of a window op as cuDNN takes them: one pad for both ends of each
// spatial dim, which must give ONNX's output extent (symmetric pads, or an end pad the stride never
// reaches); the rest refused, naming the dim.
struct Window {
  std::vector<int64_t> pads, strides, dilations;
};
Expected<Window> symmetricWindow(const ExpansionContext& ctx, const std::string& op, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  th::Shape in, out;
  for (size_t k = 2; k < x.size(); ++k) {
    in.push_back(sym::Expr(x[k]));
    out.push_back(sym::Expr(y[k]));
  }
  DCW_TRY(auto win, th::window(ctx, kernel, in, out));
  Window w;
  for (size_t k = 0; k < win.nd; ++k) {
    auto pl = win.padBegin[k].constantValue();
    if (!pl) return ctx.error("cudnn " + op + " needs constant pads", pureHint(ctx));
    const int64_t s = win.strides[k], d = win.dilations[k], extent = (kernel[k] - 1) * d + 1, i = x[k + 2], o = y[k + 2];
    if (s < 1 || d < 1) return ctx.error("strides and dilations must be positive");
    if (*pl < 0 || i + 2 * *pl - extent < 0 || (i + 2 * *pl - extent) / s + 1 != o)
      return ctx.error("cudnn " + op + " pads both ends of a dim alike; with a begin pad of " + std::to_string(*pl) + ", spatial dim " +
                           std::to_string(k) + " would not have ONNX's extent " + std::to_string(o),
                       pureHint(ctx));
    w.pads.push_back(*pl);
    w.strides.push_back(s);
    w.dilations.push_back(d);
  }
  return w;
}

Expected<std::unique_ptr<Sdfg>> expandConv(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto W, th::needIn(ctx, "W"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto x, knownDims(ctx, "cudnn", "Conv", "X", *X));
  DCW_TRY(auto w, knownDims(ctx, "cudnn", "Conv", "W", *W));
  DCW_TRY(auto y, knownDims(ctx, "cudnn", "Conv", "Y", *Y));
  std::vector<int64_t> b;
  if (const DataDescriptor* B = ctx.in("B")) {
    DCW_TRY(b, knownDims(ctx, "cudnn", "Conv", "B", *B));
  }
  const size_t r = x.size();
  if (r < 3 || r > 5 || w.size() != r || y.size() != r)
    return ctx.error("cudnn Conv takes X, W and Y of one rank from 3 to 5 (1 to 3 spatial dims); X is " + dimsText(x), pureHint(ctx));
  const int64_t group = ctx.attrInt("group", 1), C = x[1], M = y[1];
  if (group < 1 || C % group || M % group) return ctx.error("group " + std::to_string(group) + " does not divide the channels");
  if (w[0] != M || w[1] * group != C)
    return ctx.error("W " + dimsText(w) + " does not fit X " + dimsText(x) + " and Y " + dimsText(y) + " with group " + std::to_string(group));
  if (!b.empty() && (b.size() != 1 || b[0] != M)) return ctx.error("B must be 1-D with " + std::to_string(M) + " values");
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  DCW_TRY(auto w8, symmetricWindow(ctx, "Conv", kernel, x, y));
  std::vector<int64_t> pads = w8.pads, strides = w8.strides, dilations = w8.dilations;
  if (pads.size() == 1) { // as 2-D, height 1
    x.insert(x.begin() + 2, 1);
    w.insert(w.begin() + 2, 1);
    y.insert(y.begin() + 2, 1);
    pads.insert(pads.begin(), 0);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
  }
  const bool bias = !b.empty();
  // FusedConv: Y = act(conv + B + Z) as one cudnnConvolutionBiasActivationForward (ReLU or none; Z of Y's shape).
  const bool fusedOp = ctx.node().domain == fused::kDomain;
  bool relu = false, z = false;
  if (fusedOp) {
    DCW_TRY(auto ep, fused::epilogueOf(ctx));
    if (ep.activation && ep.activation->op != "Relu")
      return ctx.error("cudnn FusedConv ends with ReLU or nothing (cuDNN's fused convolution); this one ends with " + ep.activation->op,
                       pureHint(ctx));
    relu = ep.activation != nullptr;
    if (ep.hasZ) {
      DCW_TRY(auto Z, th::needIn(ctx, "Z"));
      DCW_TRY(auto zd, knownDims(ctx, "cudnn", "FusedConv", "Z", *Z));
      if (zd != y) return ctx.error("cudnn FusedConv adds a Z of Y's shape " + dimsText(y) + "; Z is " + dimsText(zd), pureHint(ctx));
      z = true;
    }
  }
  std::string code = "// cuDNN convolution: Y[" + dimsText(y) + "] from X[" + dimsText(x) + "], W[" + dimsText(w) + "]" + (bias ? " + B" : "") +
                     ", group " + std::to_string(group) + ", pads " + ints(pads) + ", strides " + ints(strides) + ", dilations " +
                     ints(dilations) + "\n";
  code += "static dcw_env_cudnn::Conv dcw_conv;\n";
  code += "static const int dcw_x[] = " + ints(x) + ", dcw_w[] = " + ints(w) + ", dcw_y[] = " + ints(y) + ";\n";
  code += "static const int dcw_pad[] = " + ints(pads) + ", dcw_stride[] = " + ints(strides) + ", dcw_dilation[] = " + ints(dilations) + ";\n";
  if (fusedOp)
    code += "dcw_env_cudnn::conv_bias_activation(dcw_conv, " + std::to_string(pads.size()) +
            ", dcw_x, dcw_w, dcw_y, dcw_pad, dcw_stride, dcw_dilation, " + std::to_string(group) + ", X, W, " + (bias ? "B" : "nullptr") +
            ", " + (z ? "Z" : "nullptr") + ", " + (relu ? "true" : "false") + ", Y); // Y = " + (relu ? "relu(" : "(") + "conv" +
            (bias ? " + B" : "") + (z ? " + Z" : "") + ")\n";
  else
    code += "dcw_env_cudnn::conv(dcw_conv, " + std::to_string(pads.size()) + ", dcw_x, dcw_w, dcw_y, dcw_pad, dcw_stride, dcw_dilation, " +
            std::to_string(group) + ", X, W, " + (bias ? "B" : "nullptr") + ", Y);\n";
  std::vector<std::string> ins{"X", "W"};
  if (bias) ins.push_back("B");
  if (z) ins.push_back("Z");
  int64_t taps = 1, outputs = 1;
  for (size_t k = 2; k < w.size(); ++k) taps *= w[k];
  for (auto e : y) outputs *= e;
  SdfgBuilder bld(ctx);
  bld.cppTasklet("cudnn_convolution", ins, code, {"Y"}, {"cudnn"}, sym::Expr(2 * outputs * (C / group) * taps + (bias ? outputs : 0)));
  return bld.finish();
}



// The tasklet of one cudnnPoolingForward: Y[y] from X[x] (4 or 5 dims) over `window`, as `mode`.
Expected<std::unique_ptr<Sdfg>> poolCall(const ExpansionContext& ctx, const std::string& label, const std::string& what,
                                         const std::string& mode, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                                         const std::vector<int64_t>& window, const std::vector<int64_t>& pads,
                                         const std::vector<int64_t>& strides) {
  std::string code = "// cuDNN " + what + " (" + mode + "): Y[" + dimsText(y) + "] from X[" + dimsText(x) + "], window " + ints(window) +
                     ", pads " + ints(pads) + ", strides " + ints(strides) + "\n";
  code += "static dcw_env_cudnn::Pool dcw_pool;\n";
  code += "static const int dcw_x[] = " + ints(x) + ", dcw_y[] = " + ints(y) + ", dcw_window[] = " + ints(window) + ";\n";
  code += "static const int dcw_pad[] = " + ints(pads) + ", dcw_stride[] = " + ints(strides) + ";\n";
  code += "dcw_env_cudnn::pool(dcw_pool, " + std::to_string(window.size()) + ", dcw_x, dcw_y, dcw_window, dcw_pad, dcw_stride, " + mode +
          ", X, Y);\n";
  int64_t outputs = 1, taps = 1;
  for (auto e : y) outputs *= e;
  for (auto e : window) taps *= e;
  SdfgBuilder bld(ctx);
  bld.cppTasklet(label, {"X"}, code, {"Y"}, {"cudnn"}, sym::Expr(outputs * taps));
  return bld.finish();
}

// MaxPool and AveragePool: cudnnPoolingForward, 1 to 3 spatial dims (1-D as 2-D), no dilations, no
// Indices output; count_include_pad as cuDNN's two average modes.
Expected<std::unique_ptr<Sdfg>> expandPool(const ExpansionContext& ctx, bool max) {
  const std::string op = max ? "MaxPool" : "AveragePool";
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  if (ctx.hasOut("Indices")) return ctx.error("cudnn MaxPool does not compute Indices", pureHint(ctx));
  DCW_TRY(auto x, knownDims(ctx, "cudnn", op, "X", *X));
  DCW_TRY(auto y, knownDims(ctx, "cudnn", op, "Y", *Y));
  if (x.size() < 3 || x.size() > 5 || y.size() != x.size() || x[0] != y[0] || x[1] != y[1])
    return ctx.error("cudnn " + op + " takes X and Y of one rank from 3 to 5 with the same N and C; X is " + dimsText(x), pureHint(ctx));
  std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
  if (kernel.size() != x.size() - 2) return ctx.error("kernel_shape must have " + std::to_string(x.size() - 2) + " values");
  DCW_TRY(auto win, symmetricWindow(ctx, op, kernel, x, y));
  for (size_t k = 0; k < kernel.size(); ++k) {
    if (win.dilations[k] != 1) return ctx.error("cudnn " + op + " has no dilations", pureHint(ctx));
    if (win.pads[k] >= kernel[k]) return ctx.error("cudnn " + op + " needs pads smaller than the window", pureHint(ctx));
  }
  if (kernel.size() == 1) { // as 2-D, height 1
    x.insert(x.begin() + 2, 1);
    y.insert(y.begin() + 2, 1);
    kernel.insert(kernel.begin(), 1);
    win.pads.insert(win.pads.begin(), 0);
    win.strides.insert(win.strides.begin(), 1);
  }
  const std::string mode = max ? "CUDNN_POOLING_MAX"
                               : ctx.attrInt("count_include_pad", 0) != 0 ? "CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING"
                                                                          : "CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING";
  return poolCall(ctx, "cudnn_pooling", "pooling", mode, x, y, kernel, win.pads, win.strides);
}

// GlobalAveragePool and GlobalMaxPool: one cudnnPoolingForward whose window is the whole of X's spatial
// dims (rank 3 to 5; 1-D as 2-D with a height of 1), Y[N, C, 1..].
Expected<std::unique_ptr<Sdfg>> expandGlobalPool(const ExpansionContext& ctx, bool max) {
  const std::string op = max ? "GlobalMaxPool" : "GlobalAveragePool";
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto x, knownDims(ctx, "cudnn", op, "X", *X));
  DCW_TRY(auto y, knownDims(ctx, "cudnn", op, "Y", *Y));
  if (x.size() < 3 || x.size() > 5 || y.size() != x.size() || x[0] != y[0] || x[1] != y[1])
    return ctx.error("cudnn " + op + " takes X and Y of one rank from 3 to 5 with the same N and C; X is " + dimsText(x), pureHint(ctx));
  for (size_t k = 2; k < y.size(); ++k)
    if (y[k] != 1) return ctx.error("Y must have spatial dims of 1; it is " + dimsText(y));
  if (x.size() == 3) { // as 2-D, height 1
    x.insert(x.begin() + 2, 1);
    y.insert(y.begin() + 2, 1);
  }
  const std::vector<int64_t> window(x.begin() + 2, x.end());
  return poolCall(ctx, "cudnn_global_pooling", "global pooling", max ? "CUDNN_POOLING_MAX" : "CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING",
                  x, y, window, std::vector<int64_t>(window.size(), 0), std::vector<int64_t>(window.size(), 1));
}

// Softmax and LogSoftmax: cudnnSoftmaxForward over the channel dim of [outer, axis, inner, 1] (from
// opset 13 one axis; before 13 everything from axis on is one row).
Expected<std::unique_ptr<Sdfg>> expandSoftmax(const ExpansionContext& ctx, bool log) {
  const std::string op = log ? "LogSoftmax" : "Softmax";
  DCW_TRY(auto X, th::needIn(ctx, "input"));
  DCW_TRY(auto Y, th::needOut(ctx, "output"));
  DCW_TRY(auto x, knownDims(ctx, "cudnn", op, "input", *X));
  DCW_TRY(auto y, knownDims(ctx, "cudnn", op, "output", *Y));
  if (x.empty() || x != y) return ctx.error("output differs from input in shape, or the input is a scalar");
  const bool v13 = ctx.node().opsetVersion >= 13;
  auto axis = th::normAxis(ctx.attrInt("axis", v13 ? -1 : 1), int64_t(x.size()));
  if (!axis) return ctx.error("axis out of range");
  const size_t a = size_t(*axis);
  int64_t outer = 1, len = 1, inner = 1;
  for (size_t k = 0; k < x.size(); ++k) (k < a ? outer : k == a || !v13 ? len : inner) *= x[k];
  if (outer > INT_MAX || len > INT_MAX || inner > INT_MAX) return ctx.error("cudnn " + op + ": the tensor is too large for cuDNN's int dims", pureHint(ctx));
  std::string code = "// cuDNN " + std::string(log ? "log-softmax" : "softmax") + " over " + std::to_string(len) + " values, " +
                     std::to_string(outer) + " x " + std::to_string(inner) + " times\n";
  code += "static dcw_env_cudnn::Softmax dcw_softmax;\n";
  code += "dcw_env_cudnn::softmax(dcw_softmax, " + std::to_string(outer) + ", " + std::to_string(len) + ", " + std::to_string(inner) + ", " +
          (log ? "true" : "false") + ", input, output);\n";
  int64_t n = 1;
  for (auto e : x) n *= e;
  SdfgBuilder bld(ctx);
  bld.cppTasklet(log ? "cudnn_log_softmax" : "cudnn_softmax", {"input"}, code, {"output"}, {"cudnn"}, sym::Expr(4 * n));
  return bld.finish();
}

// BatchNormalization (inference) and FusedBatchNormalization with Relu or nothing: X[N, C, D..] (rank 2
// to 5; below 4 padded with dims of 1, as cuDNN's tensors have 4 or 5) normalized per channel with
// scale, B, input_mean and input_var [C].
Expected<std::unique_ptr<Sdfg>> expandBatchNorm(const ExpansionContext& ctx) {
  const std::string op = ctx.node().opType;
  if (ctx.attrInt("training_mode", 0) != 0 || ctx.outputs().size() > 1)
    return ctx.error("cudnn " + op + " computes inference only (no training_mode, one output)", pureHint(ctx));
  bool relu = false;
  if (ctx.node().domain == fused::kDomain) {
    DCW_TRY(auto ep, fused::epilogueOf(ctx));
    if (ep.hasZ || (ep.activation && ep.activation->op != "Relu"))
      return ctx.error("cudnn FusedBatchNormalization takes Relu alone (then cudnnActivationForward), no Z", pureHint(ctx));
    relu = ep.activation != nullptr;
  }
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  DCW_TRY(auto x, knownDims(ctx, "cudnn", op, "X", *X));
  DCW_TRY(auto y, knownDims(ctx, "cudnn", op, "Y", *Y));
  if (x.size() < 2 || x.size() > 5 || x != y) return ctx.error("cudnn " + op + " takes X of rank 2 to 5 and Y of its shape", pureHint(ctx));
  for (const char* c : {"scale", "B", "input_mean", "input_var"}) {
    DCW_TRY(auto d, th::needIn(ctx, c));
    DCW_TRY(auto v, knownDims(ctx, "cudnn", op, c, *d));
    if (v.size() != 1 || v[0] != x[1]) return ctx.error(std::string(c) + " must hold " + std::to_string(x[1]) + " values");
  }
  const double epsilon = ctx.attrFloat("epsilon", 1e-5);
  if (!(epsilon > 0)) return ctx.error("cudnn " + op + " needs a positive epsilon", pureHint(ctx));
  while (x.size() < 4) x.push_back(1);
  int64_t n = 1;
  for (auto e : x) n *= e;
  char eps[40];
  std::snprintf(eps, sizeof eps, "%.17g", epsilon);
  std::string code = "// cuDNN batch normalization (inference, per channel) of X[" + dimsText(x) + "], epsilon " + eps +
                     (relu ? ", then ReLU in place" : "") + "\n";
  code += "static dcw_env_cudnn::BatchNorm dcw_bn;\n";
  code += "static const int dcw_x[] = " + ints(x) + ";\n";
  code += "dcw_env_cudnn::batchnorm(dcw_bn, " + std::to_string(x.size()) + ", dcw_x, " + eps + ", " + (relu ? "true" : "false") +
          ", X, scale, B, input_mean, input_var, Y);\n";
  SdfgBuilder bld(ctx);
  bld.cppTasklet("cudnn_batchnorm", {"X", "scale", "B", "input_mean", "input_var"}, code, {"Y"}, {"cudnn"}, sym::Expr((relu ? 3 : 2) * n));
  return bld.finish();
}

} // namespace

void registerCudnn(ExpansionRegistry& r) {
  r.add("", "Conv", cudnnDecl(), expandConv,
        "one cuDNN convolution (float32, fp32 math; groups, strides, dilations, symmetric pads; algorithm measured on the first run) "
        "and cudnnAddTensor for B; a C++ tasklet on the host, not differentiable");
  r.add(fused::kDomain, "FusedConv", cudnnDecl(), expandConv,
        "one cuDNN fused convolution, cudnnConvolutionBiasActivationForward: Y = act(conv + B + Z), act ReLU or none, Z of Y's shape; "
        "a C++ tasklet on the host, not differentiable");
  r.add("", "MaxPool", cudnnDecl(), [](const ExpansionContext& c) { return expandPool(c, true); },
        "one cuDNN max pooling (float32; symmetric pads, strides, no dilations or Indices); a C++ tasklet on the host, not differentiable");
  r.add("", "AveragePool", cudnnDecl(), [](const ExpansionContext& c) { return expandPool(c, false); },
        "one cuDNN average pooling (float32; symmetric pads, strides, count_include_pad); a C++ tasklet on the host, not differentiable");
  r.add("", "GlobalAveragePool", cudnnDecl(), [](const ExpansionContext& c) { return expandGlobalPool(c, false); },
        "one cuDNN average pooling over the whole spatial extent (float32, rank 3 to 5); a C++ tasklet on the host, not differentiable");
  r.add("", "GlobalMaxPool", cudnnDecl(), [](const ExpansionContext& c) { return expandGlobalPool(c, true); },
        "one cuDNN max pooling over the whole spatial extent (float32, rank 3 to 5); a C++ tasklet on the host, not differentiable");
  r.add("", "Softmax", cudnnDecl(), [](const ExpansionContext& c) { return expandSoftmax(c, false); },
        "one cuDNN softmax along the axis (float32, accurate: the row's maximum subtracted); a C++ tasklet on the host, not differentiable");
  r.add("", "LogSoftmax", cudnnDecl(), [](const ExpansionContext& c) { return expandSoftmax(c, true); },
        "one cuDNN log-softmax along the axis (float32); a C++ tasklet on the host, not differentiable");
  r.add("", "BatchNormalization", cudnnDecl(), expandBatchNorm,
        "one cuDNN batch normalization with the global statistics (inference; float32, rank 2 to 5); a C++ tasklet on the host, "
        "not differentiable");
  r.add(fused::kDomain, "FusedBatchNormalization", cudnnDecl(), expandBatchNorm,
        "one cuDNN batch normalization (inference), then ReLU in place (cudnnActivationForward) when fused; a C++ tasklet on the "
        "host, not differentiable");
}

std::string cudnnGlobals() {
  return R"(static cudnnHandle_t handle = nullptr;
inline void check(cudnnStatus_t s, const char* call) {
  if (s != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(call) + " failed: " + cudnnGetErrorString(s));
}
// One convolution's descriptors, algorithm and workspace, made on its first run.
struct Conv {
  bool ready = false;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, b = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t c = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  void* workspace = nullptr;
  size_t workspaceSize = 0;
  cudnnActivationDescriptor_t act = nullptr; // fused: ReLU or identity
  bool unfused = false;                      // fused without activation, but no implicit precomputed GEMM
  void* zeroBias = nullptr;                  // fused without B
  size_t zeroBiasBytes = 0;
};
inline std::vector<Conv*>& convs() {
  static std::vector<Conv*> v;
  return v;
}
inline void tensor(cudnnTensorDescriptor_t* t, int nd, const int* dims) {
  int strides[8];
  strides[nd - 1] = 1;
  for (int k = nd - 1; k > 0; --k) strides[k - 1] = strides[k] * dims[k];
  check(cudnnCreateTensorDescriptor(t), "cudnnCreateTensorDescriptor");
  check(cudnnSetTensorNdDescriptor(*t, CUDNN_DATA_FLOAT, nd, dims, strides), "cudnnSetTensorNdDescriptor");
}
// One pooling's or softmax's descriptors, made on its first run.
struct Pool {
  bool ready = false;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnPoolingDescriptor_t p = nullptr;
};
struct Softmax {
  bool ready = false;
  cudnnTensorDescriptor_t x = nullptr;
};
inline std::vector<Pool*>& pools() {
  static std::vector<Pool*> v;
  return v;
}
inline std::vector<Softmax*>& softmaxes() {
  static std::vector<Softmax*> v;
  return v;
}
inline void pool(Pool& k, int spatial, const int* xd, const int* yd, const int* window, const int* pad, const int* stride,
                 cudnnPoolingMode_t mode, const float* X, float* Y) {
  if (!handle) check(cudnnCreate(&handle), "cudnnCreate");
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  if (!k.ready) {
    tensor(&k.x, spatial + 2, xd);
    tensor(&k.y, spatial + 2, yd);
    check(cudnnCreatePoolingDescriptor(&k.p), "cudnnCreatePoolingDescriptor");
    check(cudnnSetPoolingNdDescriptor(k.p, mode, CUDNN_PROPAGATE_NAN, spatial, window, pad, stride), "cudnnSetPoolingNdDescriptor");
    k.ready = true;
    pools().push_back(&k);
  }
  const float one = 1.0f, zero = 0.0f;
  check(cudnnPoolingForward(handle, k.p, &one, k.x, X, &zero, k.y, Y), "cudnnPoolingForward");
}
// Softmax over `len` values, `outer` x `inner` times: the channel dim of [outer, len, inner, 1].
inline void softmax(Softmax& k, int outer, int len, int inner, bool log, const float* X, float* Y) {
  if (!handle) check(cudnnCreate(&handle), "cudnnCreate");
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  if (!k.ready) {
    const int dims[4] = {outer, len, inner, 1};
    tensor(&k.x, 4, dims);
    k.ready = true;
    softmaxes().push_back(&k);
  }
  const float one = 1.0f, zero = 0.0f;
  check(cudnnSoftmaxForward(handle, log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, k.x, X, &zero, k.x, Y),
        "cudnnSoftmaxForward");
}
// One batch normalization's descriptors (X and Y alike, the per-channel parameters [1, C, 1, ..]) and
// its ReLU, made on its first run.
struct BatchNorm {
  bool ready = false;
  cudnnTensorDescriptor_t x = nullptr, c = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
};
inline std::vector<BatchNorm*>& batchnorms() {
  static std::vector<BatchNorm*> v;
  return v;
}
// Y = scale (X - mean) / sqrt(var + epsilon) + B per channel of X[xd] (`nd` 4 or 5 dims), then ReLU.
inline void batchnorm(BatchNorm& k, int nd, const int* xd, double epsilon, bool relu, const float* X, const float* scale, const float* B,
                      const float* mean, const float* var, float* Y) {
  if (!handle) check(cudnnCreate(&handle), "cudnnCreate");
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  if (!k.ready) {
    int cd[5] = {1, xd[1], 1, 1, 1};
    tensor(&k.x, nd, xd);
    tensor(&k.c, nd, cd);
    if (relu) {
      check(cudnnCreateActivationDescriptor(&k.act), "cudnnCreateActivationDescriptor");
      check(cudnnSetActivationDescriptor(k.act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0), "cudnnSetActivationDescriptor");
    }
    k.ready = true;
    batchnorms().push_back(&k);
  }
  const float one = 1.0f, zero = 0.0f;
  check(cudnnBatchNormalizationForwardInference(handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, k.x, X, k.x, Y, k.c, scale, B, mean, var, epsilon),
        "cudnnBatchNormalizationForwardInference");
  if (relu) check(cudnnActivationForward(handle, k.act, &one, k.x, Y, &zero, k.x, Y), "cudnnActivationForward");
}
// The descriptors, the fastest fp32 algorithm (`precompGemm`: cuDNN's implicit precomputed GEMM, the
// one its fused call runs without an activation) and the workspace of a convolution.
inline void plan(Conv& k, int spatial, const int* xd, const int* wd, const int* yd, const int* pad, const int* stride, const int* dilation,
                 int group, bool precompGemm) {
  if (!handle) check(cudnnCreate(&handle), "cudnnCreate");
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  const int nd = spatial + 2;
  {
    tensor(&k.x, nd, xd);
    tensor(&k.y, nd, yd);
    int bd[8] = {1, yd[1], 1, 1, 1, 1, 1, 1};
    tensor(&k.b, nd, bd);
    check(cudnnCreateFilterDescriptor(&k.w), "cudnnCreateFilterDescriptor");
    check(cudnnSetFilterNdDescriptor(k.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, nd, wd), "cudnnSetFilterNdDescriptor");
    check(cudnnCreateConvolutionDescriptor(&k.c), "cudnnCreateConvolutionDescriptor");
    check(cudnnSetConvolutionNdDescriptor(k.c, spatial, pad, stride, dilation, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
          "cudnnSetConvolutionNdDescriptor");
    check(cudnnSetConvolutionGroupCount(k.c, group), "cudnnSetConvolutionGroupCount");
    check(cudnnSetConvolutionMathType(k.c, CUDNN_FMA_MATH), "cudnnSetConvolutionMathType");
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = 0;
    check(cudnnFindConvolutionForwardAlgorithm(handle, k.x, k.w, k.c, k.y, 16, &found, perf), "cudnnFindConvolutionForwardAlgorithm");
    int best = -1;
    for (int p = 0; p < found && best < 0; ++p) // fastest first; fp32 math only
      if (perf[p].status == CUDNN_STATUS_SUCCESS && perf[p].mathType != CUDNN_TENSOR_OP_MATH &&
          perf[p].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION &&
          (!precompGemm || perf[p].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM))
        best = p;
    if (best < 0 && precompGemm) { // the fused call without an activation needs it: computed unfused instead
      for (int p = 0; p < found && best < 0; ++p)
        if (perf[p].status == CUDNN_STATUS_SUCCESS && perf[p].mathType != CUDNN_TENSOR_OP_MATH &&
            perf[p].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
          best = p;
      k.unfused = true;
    }
    if (best < 0) throw std::runtime_error("cuDNN found no fp32 algorithm for this convolution");
    k.algo = perf[best].algo;
    check(cudnnGetConvolutionForwardWorkspaceSize(handle, k.x, k.w, k.c, k.y, k.algo, &k.workspaceSize),
          "cudnnGetConvolutionForwardWorkspaceSize");
    if (k.workspaceSize)
      if (cudaError_t e = dcw_cu::device_malloc(&k.workspace, k.workspaceSize); e != cudaSuccess)
        throw std::runtime_error(std::string("cudaMalloc of the cuDNN workspace failed: ") + cudaGetErrorString(e));
    k.ready = true;
    convs().push_back(&k);
  }
}
// Y = conv(X, W) (+ B), `spatial` (2 or 3) spatial dims, NC.. layouts, row-major.
inline void conv(Conv& k, int spatial, const int* xd, const int* wd, const int* yd, const int* pad, const int* stride, const int* dilation,
                 int group, const float* X, const float* W, const float* B, float* Y) {
  if (!k.ready) plan(k, spatial, xd, wd, yd, pad, stride, dilation, group, false);
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  const float one = 1.0f, zero = 0.0f;
  check(cudnnConvolutionForward(handle, &one, k.x, X, k.w, W, k.c, k.algo, k.workspace, k.workspaceSize, &zero, k.y, Y),
        "cudnnConvolutionForward");
  if (B) check(cudnnAddTensor(handle, &one, k.b, B, &one, k.y, Y), "cudnnAddTensor");
}
// Y = act(conv(X, W) + B + Z) in one call (act ReLU, or identity, which cuDNN runs with its implicit
// precomputed GEMM only); without B a zero bias of the plan's own, without Z Y itself with weight 0.
inline void conv_bias_activation(Conv& k, int spatial, const int* xd, const int* wd, const int* yd, const int* pad, const int* stride,
                                 const int* dilation, int group, const float* X, const float* W, const float* B, const float* Z, bool relu,
                                 float* Y) {
  if (!k.ready) {
    plan(k, spatial, xd, wd, yd, pad, stride, dilation, group, !relu);
    check(cudnnCreateActivationDescriptor(&k.act), "cudnnCreateActivationDescriptor");
    check(cudnnSetActivationDescriptor(k.act, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY, CUDNN_PROPAGATE_NAN, 0.0),
          "cudnnSetActivationDescriptor");
    if (!B) {
      k.zeroBiasBytes = sizeof(float) * static_cast<size_t>(yd[1]);
      if (cudaError_t e = dcw_cu::device_malloc(&k.zeroBias, k.zeroBiasBytes); e != cudaSuccess)
        throw std::runtime_error(std::string("cudaMalloc of a zero bias failed: ") + cudaGetErrorString(e));
      if (cudaError_t e = cudaMemsetAsync(k.zeroBias, 0, k.zeroBiasBytes, dcw_cu::stream()); e != cudaSuccess)
        throw std::runtime_error(std::string("cudaMemsetAsync of a zero bias failed: ") + cudaGetErrorString(e));
    }
  }
  check(cudnnSetStream(handle, dcw_cu::stream()), "cudnnSetStream");
  const float one = 1.0f, zw = Z ? 1.0f : 0.0f;
  if (k.unfused) { // Y = conv + B + Z in three calls
    const float zero = 0.0f;
    check(cudnnConvolutionForward(handle, &one, k.x, X, k.w, W, k.c, k.algo, k.workspace, k.workspaceSize, &zero, k.y, Y),
          "cudnnConvolutionForward");
    if (B) check(cudnnAddTensor(handle, &one, k.b, B, &one, k.y, Y), "cudnnAddTensor");
    if (Z) check(cudnnAddTensor(handle, &one, k.y, Z, &one, k.y, Y), "cudnnAddTensor");
    return;
  }
  check(cudnnConvolutionBiasActivationForward(handle, &one, k.x, X, k.w, W, k.c, k.algo, k.workspace, k.workspaceSize, &zw, k.y, Z ? Z : Y,
                                              k.b, B ? B : static_cast<const float*>(k.zeroBias), k.act, k.y, Y),
        "cudnnConvolutionBiasActivationForward");
}
)";
}

std::string cudnnTeardown() {
  return R"(for (Conv* k : convs()) {
  (void)cudnnDestroyTensorDescriptor(k->x);
  (void)cudnnDestroyTensorDescriptor(k->y);
  (void)cudnnDestroyTensorDescriptor(k->b);
  (void)cudnnDestroyFilterDescriptor(k->w);
  (void)cudnnDestroyConvolutionDescriptor(k->c);
  dcw_cu::device_free(k->workspace, k->workspaceSize);
  if (k->act) (void)cudnnDestroyActivationDescriptor(k->act);
  dcw_cu::device_free(k->zeroBias, k->zeroBiasBytes);
  *k = Conv();
}
convs().clear();
for (Pool* k : pools()) {
  (void)cudnnDestroyTensorDescriptor(k->x);
  (void)cudnnDestroyTensorDescriptor(k->y);
  (void)cudnnDestroyPoolingDescriptor(k->p);
  *k = Pool();
}
pools().clear();
for (Softmax* k : softmaxes()) {
  (void)cudnnDestroyTensorDescriptor(k->x);
  *k = Softmax();
}
softmaxes().clear();
for (BatchNorm* k : batchnorms()) {
  (void)cudnnDestroyTensorDescriptor(k->x);
  (void)cudnnDestroyTensorDescriptor(k->c);
  if (k->act) (void)cudnnDestroyActivationDescriptor(k->act);
  *k = BatchNorm();
}
batchnorms().clear();
if (handle) (void)cudnnDestroy(handle);
handle = nullptr;
)";
}

} // namespace dcw::expansions::cuda
