// The `onednn` implementations (C++ tasklets calling oneDNN 2.x; cpu; not differentiable), one family
// a file; registerOneDnn (OneDnnOps.cpp) registers them all.
#pragma once

namespace dcw::expansions {
class ExpansionRegistry;
}

namespace dcw::expansions::onednn {

void registerConvolutions(ExpansionRegistry& r);   // Conv, ConvTranspose
void registerMatrixProducts(ExpansionRegistry& r); // MatMul, Gemm
void registerPooling(ExpansionRegistry& r);        // MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool
void registerElementwise(ExpansionRegistry& r);    // unary activations and math, binary ops, Sum
void registerNormalization(ExpansionRegistry& r);  // BatchNormalization, LayerNormalization, Softmax, LogSoftmax, Concat
void registerRecurrent(ExpansionRegistry& r);      // LSTM, GRU, RNN

} // namespace dcw::expansions::onednn
