// OpCategory: see the header. One table, op type -> category.
#include "views/OpCategory.h"

#include <QCoreApplication>

#include <string>
#include <unordered_map>

namespace dcw::views {

namespace {

const std::unordered_map<std::string_view, OpCategory>& table() {
  static const std::unordered_map<std::string_view, OpCategory> t = [] {
    std::unordered_map<std::string_view, OpCategory> m;
    auto add = [&](OpCategory c, std::initializer_list<std::string_view> ops) {
      for (auto op : ops) m.emplace(op, c);
    };
    add(OpCategory::Convolution, {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "FusedConv", "NhwcConv"});
    add(OpCategory::MatMul, {"MatMul", "Gemm", "MatMulInteger", "QLinearMatMul", "Einsum", "FusedMatMul", "FusedGemm",
                             "Attention", "MultiHeadAttention"});
    add(OpCategory::Recurrent, {"LSTM", "GRU", "RNN"});
    add(OpCategory::Normalization, {"BatchNormalization", "LayerNormalization", "InstanceNormalization", "GroupNormalization",
                                    "LpNormalization", "MeanVarianceNormalization", "LRN", "SkipLayerNormalization",
                                    "SimplifiedLayerNormalization", "FusedBatchNormalization", "ConcatBatchNormalization"});
    add(OpCategory::Activation, {"Relu", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Elu", "Selu", "Celu",
                                 "Gelu", "FastGelu", "BiasGelu", "Softplus", "Softsign", "Mish", "ThresholdedRelu", "Softmax",
                                 "LogSoftmax", "Hardmax", "Clip", "Shrink", "QuickGelu", "Silu"});
    add(OpCategory::Pooling, {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "GlobalLpPool", "MaxRoiPool",
                              "RoiAlign", "MaxUnpool"});
    add(OpCategory::Arithmetic,
        {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf",
         "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sum", "Mean", "Max", "Min", "Mod",
         "Where", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not", "BitShift", "IsNaN", "IsInf",
         "Cast", "CastLike", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
         "BitwiseNot", "Dropout", "BiasAdd"});
    add(OpCategory::Reduction, {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                                "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "TopK", "CumSum"});
    add(OpCategory::DataMovement,
        {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "ShuffledConcat", "Split", "Slice", "Gather", "GatherElements", "GatherND",
         "Scatter", "ScatterElements", "ScatterND", "Pad", "Tile", "Expand", "Resize", "Upsample", "DepthToSpace", "SpaceToDepth",
         "Identity", "Compress", "ReverseSequence", "Trilu", "OneHot", "NonZero", "Unique", "EyeLike", "SplitToSequence",
         "ConcatFromSequence", "SequenceAt", "SequenceConstruct", "SequenceInsert", "SequenceErase", "SequenceLength",
         "SequenceEmpty", "GridSample", "Col2Im", "CenterCropPad"});
    add(OpCategory::Shape, {"Shape", "Size", "Range", "ConstantOfShape", "Constant"});
    add(OpCategory::ControlFlow, {"If", "Loop", "Scan", "SequenceMap"});
    return m;
  }();
  return t;
}

} // namespace

OpCategory opCategory(std::string_view opType) {
  auto it = table().find(opType);
  return it == table().end() ? OpCategory::Other : it->second;
}

QString opCategoryName(OpCategory c) {
  switch (c) {
  case OpCategory::Convolution: return QCoreApplication::translate("OpCategory", "convolution");
  case OpCategory::MatMul: return QCoreApplication::translate("OpCategory", "matmul / GEMM");
  case OpCategory::Recurrent: return QCoreApplication::translate("OpCategory", "recurrent");
  case OpCategory::Normalization: return QCoreApplication::translate("OpCategory", "normalization");
  case OpCategory::Activation: return QCoreApplication::translate("OpCategory", "activation");
  case OpCategory::Pooling: return QCoreApplication::translate("OpCategory", "pooling");
  case OpCategory::Arithmetic: return QCoreApplication::translate("OpCategory", "arithmetic");
  case OpCategory::Reduction: return QCoreApplication::translate("OpCategory", "reduction");
  case OpCategory::DataMovement: return QCoreApplication::translate("OpCategory", "data movement");
  case OpCategory::Shape: return QCoreApplication::translate("OpCategory", "shape arithmetic");
  case OpCategory::ControlFlow: return QCoreApplication::translate("OpCategory", "control flow");
  case OpCategory::Other: break;
  }
  return QCoreApplication::translate("OpCategory", "other");
}

} // namespace dcw::views
