// Trainable: turns constant arrays of a model (ONNX initializers: the weights) into inputs of the
// program, so that a training loop can feed updated values at every step without recompiling. The
// initial values are handed back (a weight's value moves out of the IR into the caller's state).
// Done before differentiation and constant folding, so that nothing computed from a weight is folded
// into the generated code. `dcw train` uses it; `dcw grad` keeps weights as constants (autodiff
// differentiates with respect to constants directly).
//
//   before:  inputs [x, labels]      fc1.weight: constant float32[16, 8] = <initializer>
//   after:   inputs [x, labels, fc1.weight]   fc1.weight: float32[16, 8] (argument, no value)
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <string>
#include <vector>

namespace dcw::autodiff {

struct TrainableWeights {
  std::vector<std::string> names;   // appended to the root SDFG's inputs, in this order
  std::vector<ir::Tensor> initial;  // their values as they were in the model
};

// The floating-point constant arrays of the root SDFG, in declaration order, less `frozen` and less
// BatchNormalization statistics (running mean/variance are not trained by gradient descent).
std::vector<std::string> floatConstants(const ir::Sdfg& root, const std::vector<std::string>& frozen = {});

// Makes each named constant array a non-transient input (appended to root.inputs); every change is
// journaled by `editor`. Fails naming the array when it is unknown, not constant, or not floating-point.
Expected<TrainableWeights> makeTrainable(edit::Editor& editor, const std::vector<std::string>& names);

} // namespace dcw::autodiff
