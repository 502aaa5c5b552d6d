// OptimizerStep: appends an optimizer's parameter update to a differentiated program, so that one
// training step — forward, backward and update — is entirely generated code; the host only feeds the
// updated weights (and optimizer state) back in for the next step. One new state after the last one
// holds one map per weight (element-wise, CPU multicore), written through the Editor (undoable).
//
//   SGD:   w_next = w - lr * g
//   Adam:  m_next = b1 m + (1 - b1) g;   v_next = b2 v + (1 - b2) g^2          (PyTorch's torch.optim.Adam)
//          w_next = w - lr / (1 - b1^t) * m_next / (sqrt(v_next) / sqrt(1 - b2^t) + eps)
//          with t the 1-based step count, a float32 scalar input (`optimizer_step`).
//
//   before:  inputs [x, w]            outputs [loss, w_grad]
//   after:   inputs [x, w (, w_adam_m, w_adam_v, optimizer_step)]
//            outputs [loss, w_next (, w_adam_m_next, w_adam_v_next)]     (w_grad becomes transient)
// Preconditions: every weight is a floating-point input of the root SDFG and its gradient array exists
// with the same shape (autodiff::differentiate's `<w>_grad` outputs).
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Expected.h"

#include <string>
#include <vector>

namespace dcw::autodiff {

enum class Optimizer { Sgd, Adam };

struct OptimizerConfig {
  Optimizer kind = Optimizer::Sgd;
  double lr = 0.01;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8; // Adam
};

struct OptimizerArrays {
  std::vector<std::string> next;      // per weight: the updated value (a new output)
  std::vector<std::string> stateIn;   // Adam: per weight m then v (new inputs, zero at the start)
  std::vector<std::string> stateOut;  // Adam: their updated values (new outputs), same order
  std::string stepInput;              // Adam: float32 scalar input, the 1-based step count
};

// `gradients[i]` is the gradient array of `weights[i]`. Gradients stop being outputs (they stay as
// transients read by the update).
Expected<OptimizerArrays> appendOptimizerStep(edit::Editor& editor, const std::vector<std::string>& weights,
                                              const std::vector<std::string>& gradients, const OptimizerConfig& config);

} // namespace dcw::autodiff
