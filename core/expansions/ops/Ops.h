// The families of expansions, one file each; Registry.cpp calls every register function. All are
// `pure` except registerOneDnn (the `onednn` implementations: C++ tasklets calling oneDNN).
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

#include <memory>

namespace dcw::expansions {

class ExpansionRegistry;
class ExpansionContext;
// Compress with a run-time condition (DataDependent.cpp; TensorOps' Compress takes constant ones).
Expected<std::unique_ptr<ir::Sdfg>> expandCountedCompress(const ExpansionContext& ctx);

void registerElementwise(ExpansionRegistry& r);   // unary math, activations, binary ops with broadcasting, Where, Clip, Cast
void registerReductions(ExpansionRegistry& r);    // Reduce*, ArgMax/ArgMin, TopK
void registerSoftmax(ExpansionRegistry& r);       // Softmax, LogSoftmax, Hardmax
void registerNormalization(ExpansionRegistry& r); // BatchNormalization, LayerNormalization, InstanceNormalization, GroupNormalization, LRN
void registerLinalg(ExpansionRegistry& r);        // MatMul, Gemm, Einsum
void registerConvolution(ExpansionRegistry& r);   // Conv, ConvTranspose
void registerPooling(ExpansionRegistry& r);       // MaxPool, AveragePool, Global*Pool, LpPool
void registerTensorOps(ExpansionRegistry& r);     // Reshape/Transpose/Concat/Split/Slice/Gather/Scatter/Pad/Tile/Expand/Resize, Shape/Size, Constant*
void registerLosses(ExpansionRegistry& r);        // NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void registerQuantization(ExpansionRegistry& r);  // Quantize/DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul/Conv, MatMulInteger, ConvInteger
void registerMisc(ExpansionRegistry& r);          // Hann/Hamming/BlackmanWindow, Det, MaxUnpool, RoiAlign, GridSample, DFT, STFT, MelWeightMatrix
void registerRandom(ExpansionRegistry& r);        // RandomUniform/Normal(Like), Bernoulli, Multinomial, Dropout (inference and training)
void registerOptimizers(ExpansionRegistry& r);    // ai.onnx.preview.training: Adagrad, Momentum, Adam
void registerTfIdfVectorizer(ExpansionRegistry& r); // TfIdfVectorizer over integer tokens
void registerMlPreprocessing(ExpansionRegistry& r); // ai.onnx.ml: Scaler, Normalizer, Binarizer, Imputer, ArrayFeatureExtractor
void registerMlLinear(ExpansionRegistry& r);       // ai.onnx.ml: LinearRegressor, LinearClassifier
void registerTreeEnsemble(ExpansionRegistry& r);   // ai.onnx.ml: TreeEnsembleRegressor, TreeEnsembleClassifier
void registerDataDependentOps(ExpansionRegistry& r); // NonZero, Unique, NonMaxSuppression (output sizes counted at run time)
void registerRecurrent(ExpansionRegistry& r);     // RNN, GRU, LSTM
void registerControlFlow(ExpansionRegistry& r);   // If, Loop, Scan
void registerFused(ExpansionRegistry& r);         // DCW's own ops (domain dcw, FusedOp.h): FusedConv, FusedConvTranspose, FusedMatMul, FusedGemm, Gelu, Silu
void registerOneDnn(ExpansionRegistry& r);        // onednn: the oneDNN implementations (onednn/OneDnnOps.h)

} // namespace dcw::expansions
