// The `onednn` implementations (C++ tasklets calling oneDNN 2.x; cpu; not differentiable), one family
// a file; registerOneDnn (OneDnnOps.cpp) registers them all.
#pragma once

namespace dcw::expansions {
class ExpansionRegistry;
}

namespace dcw::expansions::onednn {

// DCW's few-channel convolution, one more variant of Conv's (Convolutions.cpp), takes 2-D convolutions
// of one group on 1 to kFewChannelMaxChannels input channels whose window has at most kFewChannelMaxTaps
// taps: it reads X where it lies, in any layout, so a row-major model input costs it no reorder.
inline constexpr long kFewChannelMaxChannels = 4;
inline constexpr long kFewChannelMaxTaps = 25;

void registerConvolutions(ExpansionRegistry& r);   // Conv, ConvTranspose
void registerMatrixProducts(ExpansionRegistry& r); // MatMul, Gemm
void registerPooling(ExpansionRegistry& r);        // MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool
void registerElementwise(ExpansionRegistry& r);    // unary activations and math, binary ops, Sum
void registerNormalization(ExpansionRegistry& r);  // BatchNormalization, LayerNormalization, Softmax, LogSoftmax, Concat
void registerRecurrent(ExpansionRegistry& r);      // LSTM, GRU, RNN

} // namespace dcw::expansions::onednn
