// The `cudnn` implementations (C++ tasklets on the host calling cuDNN on GPU memory; target cuda; not
// differentiable): Conv as one cudnnConvolutionForward (+ cudnnAddTensor for B) per node, 1 to 3
// spatial dims, groups (depthwise included), strides, dilations and symmetric pads; MaxPool,
// AveragePool, GlobalAveragePool and GlobalMaxPool as cudnnPoolingForward; Softmax and LogSoftmax as
// cudnnSoftmaxForward; BatchNormalization (inference) and FusedBatchNormalization with Relu as
// cudnnBatchNormalizationForwardInference (then cudnnActivationForward in place). registerCudnn
// registers them; cudnnGlobals/cudnnTeardown give the environment's text (Environments.cpp lists it).
#pragma once

#include <string>

namespace dcw::expansions {
class ExpansionRegistry;
}

namespace dcw::expansions::cuda {

void registerCudnn(ExpansionRegistry& r);

// The `cudnn` environment: one handle per loaded program, created on the first call and set to the
// program's stream at every call; per convolution its descriptors, algorithm and workspace (per
// pooling, softmax and batch normalization their descriptors), made on its first run (the algorithm measured by cudnnFindConvolutionForwardAlgorithm among the true fp32
// ones: no TF32, so results match the CPU path) and kept while the program is loaded.
std::string cudnnGlobals();
std::string cudnnTeardown();

} // namespace dcw::expansions::cuda
