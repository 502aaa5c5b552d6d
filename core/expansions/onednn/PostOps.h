// PostOps: the epilogue of a fused op (FusedOp.h: Y = act(base + Z)) as oneDNN post-ops of the base
// op's primitive, so the sum and the activation happen while the primitive's output is still in
// registers instead of in two more passes over Y:
//   alpha (FusedMatMul)    -> eltwise_linear post-op first (alpha x + 0): Z is added to the scaled
//                             product, never given to the primitive as its bias
//   Z of Y's shape         -> sum post-op: Z is put into the primitive's dst before it runs (Call::addSum
//                             in OneDnnRuntime.cpp: a reorder into the blocked dst, a copy into the plain
//                             output buffer, nothing when Z is that buffer); or a binary_add post-op
//                             that reads Z where it is (no copy). Both are made as variants of the call
//                             and the first run keeps the faster (OneDnnRuntime.cpp's Tuned). Y may
//                             take Z's storage (ir::Tasklet::inPlace; the CPU arena does so where the
//                             two are laid out alike and Z is not read after the call): the sum in place
//   Z broadcast to Y       -> binary_add post-op with Z's (broadcast) description: a scalar, or one value
//                             per output channel (convolutions: dim 1; matmuls: the last dim) — the
//                             broadcasts oneDNN's kernels take; any other is refused (pure has it)
//   activation             -> eltwise post-op(s): Relu and LeakyRelu eltwise_relu, Elu, Sigmoid
//                             (logistic), Tanh, HardSwish, Softplus (soft_relu), Clip (clip_v2),
//                             HardSigmoid (linear then clip_v2 to [0, 1]); Gelu (gelu_erf) and Silu
//                             (swish with alpha 1) where Y is not dense
//   Silu, Gelu on a dense Y -> a pass over Y after the call, for a Y of 4096 elements or more
//                             (OneDnnRuntime.cpp's siluInPlace and geluInPlace, `after`): oneDNN
//                             2.6's swish and gelu_erf post-ops cost more than a pass of their own on
//                             AVX-512. A 1x1 convolution 16->96 at 112x112
//                             (EfficientNet-B0), 2 threads, cold caches: 0.25 ms alone, 0.63 ms with
//                             the swish post-op, 0.48 ms with the pass; a 3136x96x384 matmul with
//                             gelu_erf (ConvNeXt-T): 1.06 ms alone, 1.39 ms with the post-op.
// in that order (sum, then eltwise). A caller that gives Z to the primitive itself (a matmul bias)
// says so and gets only the activation.
#pragma once

#include "core/expansions/onednn/OneDnnCall.h"

#include <string>
#include <vector>

namespace dcw::expansions::onednn {

struct PostOps {
  bool fused = false;                 // the node is a fused op (its epilogue may still be empty)
  std::string attr;                   // statements declaring `dnnl::primitive_attr attr` (empty: no post-ops)
  std::string operands;               // statements adding Z's operand, to follow the DST operand
  std::vector<std::string> inputs;    // tasklet inputs the post-ops read (Z)
  std::vector<std::string> buffers;   // their buffers, in operand order, after Y's
  std::string text;                   // for the comment: " + Z, then relu"
  // Z of Y's shape: the statements use a bool `dcw_sum` the caller declares before them (sum post-op,
  // else binary_add), and the caller makes a variant for each.
  bool zTwoWays = false;
  // Z of Y's shape: the tasklet lets Y take Z's storage (ir::Tasklet::inPlace; the CPU arena does so
  // where the two are laid out alike), where the sum variant adds in place and the binary_add one is
  // left out (OneDnnRuntime.cpp: apartFromDst).
  bool zInPlace = false;
  std::vector<std::pair<std::string, std::string>> inPlace() const {
    return zInPlace ? std::vector<std::pair<std::string, std::string>>{{"Y", "Z"}} : std::vector<std::pair<std::string, std::string>>{};
  }
  std::string after;                  // statements to run after the call (on the tasklet's Y)
  int64_t flops = 0;                  // per output element
  // "attr, " when there are post-ops: the primitive_desc argument before the engine.
  std::string attrArg() const { return attr.empty() ? "" : "attr, "; }
};

// The post-ops of the node in `ctx` (none for a node that is not a fused op); `y` is the primitive's
// dst dims and `channel` the index of its channel dim. `zGivenToPrimitive`: the caller computes Z
// itself (e.g. as the matmul's bias). `zDims`: Z as the primitive sees it when that is not Z's own dims
// left-padded with 1s (a matmul with a 1-D operand). Refuses, naming the node, what oneDNN cannot take.
Expected<PostOps> postOps(const ExpansionContext& ctx, const std::string& op, const std::vector<int64_t>& y, size_t channel,
                          bool zGivenToPrimitive = false, std::vector<int64_t> zDims = {});

} // namespace dcw::expansions::onednn
