// StridedOperands: see the header.
#include "transforms/catalogue/StridedOperands.h"

#include "core/expansions/FusedOp.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

bool takesAnyStrides(const LibraryNode& lib, const std::string& connector) {
  // onednn_winograd (Conv, FusedConv) describes X, Y and Z as onednn does.
  if (lib.implementation != "onednn" && lib.implementation != "onednn_winograd") return false;
  static const std::set<std::string> convs = {"Conv", "ConvTranspose"};
  static const std::set<std::string> pools = {"MaxPool", "AveragePool", "GlobalMaxPool", "GlobalAveragePool"};
  static const std::set<std::string> everyOperand = {"Concat", "Sum", "Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu", "Elu",
                                                     "Sigmoid", "Tanh", "HardSwish", "Exp", "Sqrt", "Abs", "Softplus", "Neg",
                                                     "Reciprocal"};
  const std::string& op = lib.opType;
  if (lib.domain.empty()) {
    if (convs.count(op)) return connector == "X" || connector == "Y";
    if (pools.count(op)) return connector == "X" || connector == "Y";
    if (op == "BatchNormalization") return connector == "X" || connector == "Y";
    if (op == "Clip") return connector == "input" || connector == "output";
    return everyOperand.count(op) > 0;
  }
  if (lib.domain == expansions::fused::kDomain) {
    if (op == "FusedConv" || op == "FusedConvTranspose") return connector == "X" || connector == "Y" || connector == "Z";
    if (op == "FusedBatchNormalization") return connector == "X" || connector == "Y";
    if (op == expansions::fused::kConcatBatchNorm) return expansions::fused::isConcatPiece(connector) || connector == "Y";
    if (op == expansions::fused::kGelu || op == expansions::fused::kSilu || op == expansions::fused::kShuffledConcat) return true;
  }
  return false;
}

bool takesOwnStrides(const LibraryNode& lib, const std::string& connector) {
  const bool matmul = (lib.domain.empty() && lib.opType == "MatMul") ||
                      (lib.domain == expansions::fused::kDomain && lib.opType == "FusedMatMul");
  return matmul && lib.implementation == "onednn" && (connector == "A" || connector == "B" || connector == "Y");
}

} // namespace dcw::transforms
