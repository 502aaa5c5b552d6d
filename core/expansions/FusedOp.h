// FusedOp: DCW's own library ops (domain `dcw`) that compute a producer op together with its
// elementwise epilogue in one node, so that an implementation can do both in one pass over the
// output (oneDNN's post-ops) instead of writing the product and reading it back for an Add and an
// activation — what ONNX Runtime does with com.microsoft's FusedConv and FusedGemm.
//
//   dcw::FusedConv           Y = act(Conv(X, W, B) + Z)
//   dcw::FusedConvTranspose  Y = act(ConvTranspose(X, W, B) + Z)
//   dcw::FusedMatMul         Y = act(alpha MatMul(A, B) + Z)  (alpha: an attribute, 1 when absent; a
//                            scaled operand folded in by MatMulScaleFusion, ONNX Runtime's FusedMatMul alpha)
//   dcw::FusedGemm           Y = act(Gemm(A, B, C) + Z)
//   dcw::FusedBatchNormalization  Y = act(BatchNormalization(X, scale, B, input_mean, input_var) + Z)
//                            (DenseNet's BN -> ReLU before each convolution: a BN right after a
//                            convolution is folded into its weights instead, ConvBatchNormFolding)
//   dcw::Gelu                Y = 0.5 X (1 + erf(X / sqrt(2)))   (ONNX 1.12 has no Gelu; PyTorch exports
//                                                              it as Div, Erf, Add, Mul, Mul)
//   dcw::Silu                Y = X * sigmoid(X)                 (SiLU or swish; exported as Sigmoid, Mul)
//   dcw::ConcatBatchNormalization  Y = act(BatchNormalization(Concat(inputs_0, inputs_1, ...), scale, B,
//                            input_mean, input_var)) along the channel axis (DenseNet: every layer
//                            normalizes the concatenation of all earlier layers' outputs; the copy and
//                            the normalization become one pass over the result). Concat's variadic
//                            inputs_k, BatchNormalization's parameters, attributes `epsilon` and
//                            `activation` ("" or "Relu"); the concat axis is 1. Made by
//                            ConcatBatchNormFusion.
//   dcw::ShuffledConcat      Y[n, K c + k, ...] = inputs_k[n, c, ...] for K pieces inputs_0..inputs_{K-1} of one
//                            shape: the concatenation along the channels, split into K groups, transposed
//                            and merged again — ShuffleNet's channel shuffle (Concat -> Reshape [N, K, C, ..]
//                            -> Transpose(0, 2, 1, ..) -> Reshape [N, K C, ..]) as one copy of each piece
//                            into its interleaved place. No attributes. Made by ChannelShuffleFusion.
//
// A fused op has its base op's connectors and attributes, plus an optional input Z (unidirectionally
// broadcastable to Y, numpy rules: a residual of Y's shape, or a bias such as [N]) and two attributes:
// `activation`, the op type of an entry of activations() ("Relu", "LeakyRelu", "Clip", "Gelu", ...;
// absent or "" for none), and `activation_params`, that activation's parameters in the table's order
// (missing trailing ones take their defaults). The sum comes before the activation, as in ResNet's
// Add(conv, skip) -> Relu and in oneDNN's post-op order (sum, then eltwise).
//
// Implementations: `pure` (ops/FusedOps.cpp) is the subgraph the fusion replaced — the base ONNX op,
// Add(., Z), the activation op, as library nodes that expand in turn — so a fused model stays
// analysable, transformable, differentiable and computes exactly what the unfused one did; `onednn`
// (onednn/Convolutions.cpp, onednn/MatrixProducts.cpp, onednn/Normalization.cpp) is one primitive with
// post-ops (a batch normalization takes Relu alone, as oneDNN's fuse_norm_relu flag);
// ConcatBatchNormalization's `onednn` is oneDNN's concat then its batch normalization in place, or
// DCW's one-pass copy that normalizes as it copies (timed on the first run, the faster kept).
// ShuffledConcat's `pure` is one copy map per piece into its interleaved channels (not the unfused
// subgraph: that would copy everything twice), its `onednn` one oneDNN concat along a new axis after
// the channels. The transformations that make these nodes are ActivationFusion, AddFusion, GeluFusion,
// SiluFusion, ConcatBatchNormFusion and ChannelShuffleFusion.
#pragma once

#include "core/expansions/Expansion.h"
#include "core/ir/LibraryNode.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::expansions::fused {

inline constexpr const char* kDomain = "dcw";

// A base op that has a fused form.
struct Base {
  std::string op;                  // ONNX op type: "Conv"
  std::string fused;               // the fused op type: "FusedConv"
  std::vector<std::string> inputs; // the base op's input connectors, in order ("X", "W", "B")
  std::vector<std::string> optionalInputs; // those that may stay unconnected ("B")
  int64_t opset = 0;               // the ai.onnx version the pure expansion gives the base node
};
const std::vector<Base>& bases();
// By the base's ONNX op type ("Conv"), or by a fused node (domain dcw, "FusedConv"); nullptr otherwise.
const Base* baseOf(std::string_view onnxOp);
const Base* baseOfFused(const ir::LibraryNode& node);

// An activation a fused op can end with.
struct ActivationParam {
  std::string name;   // the ONNX attribute (or, for Clip, input) it comes from
  double fallback;    // ONNX's default
};
struct Activation {
  std::string op;     // "Relu", "Gelu"
  std::string domain; // "" (ai.onnx) or "dcw"
  int64_t opset;      // the version the pure expansion gives the activation node
  std::vector<ActivationParam> params;
};
// Relu, LeakyRelu(alpha), Elu(alpha), Sigmoid, Tanh, HardSigmoid(alpha, beta), HardSwish, Softplus,
// Clip(min, max), Gelu and Silu (dcw).
const std::vector<Activation>& activations();
const Activation* findActivation(std::string_view domain, std::string_view op);

// The epilogue a fused node declares: its activation (nullptr: none) with every parameter (defaults
// filled in), and whether Z is connected. An unknown activation or too many parameters is an error
// located at the node.
struct Epilogue {
  const Activation* activation = nullptr;
  std::vector<double> params;
  bool hasZ = false;
  double alpha = 1.0; // FusedMatMul's scale of the product (before Z)
};
Expected<Epilogue> epilogueOf(const ExpansionContext& ctx);
// Whether the fused node's attribute `name` belongs to its epilogue, not to its base op: activation,
// activation_params, and alpha but on FusedGemm (there it is Gemm's own; torch writes it even when 1).
bool isEpilogueAttribute(const ir::LibraryNode& node, std::string_view name);
// The same from the node alone (Z counted when its connector exists and `zConnected`).
Expected<Epilogue> epilogueOf(const ir::LibraryNode& node, bool zConnected, const std::string& where);

// Gelu's and Silu's op types (connectors X -> Y).
inline constexpr const char* kGelu = "Gelu";
inline constexpr const char* kSilu = "Silu";
// ConcatBatchNormalization's op type, and the prefix of its piece connectors (Concat's: inputs_0, ...).
inline constexpr const char* kConcatBatchNorm = "ConcatBatchNormalization";
inline constexpr const char* kConcatPiece = "inputs_";
inline bool isConcatPiece(std::string_view connector) { return connector.rfind(kConcatPiece, 0) == 0; }
// ShuffledConcat's op type (pieces inputs_k -> Y).
inline constexpr const char* kShuffledConcat = "ShuffledConcat";

// The attributes of the activation node that computes `a` with `params` (LeakyRelu's alpha, Clip-6's
// min and max, ...), and the input and output connector names of the version activations() names
// ("X"/"Y"; Clip and Tanh: "input"/"output").
std::vector<ir::Attribute> activationAttributes(const Activation& a, const std::vector<double>& params);
std::pair<std::string, std::string> activationConnectors(const Activation& a);

} // namespace dcw::expansions::fused
