// GradientOp: ONNX's training-preview `Gradient` op (domain ai.onnx.preview.training, attributes
// xs = names to differentiate with respect to, y = the differentiated tensor) is not a local
// computation — its value depends on the graph that computes y — so it has no `pure` expansion.
// This lowering maps each such node to an autodiff request instead: the node is removed, y is
// differentiated (summed) with respect to xs by autodiff::differentiate, and a final state copies
// each `<x>_grad` into the node's output i, which keeps its name and argument position.
//
//   before:  a, b -> [Add] -> c -> [Mul(c, a)] -> d        a, b -> [Gradient xs=a,b y=d] -> dd_da, dd_db
//   after:   a, b -> ... -> d;  backward pass -> a_grad, b_grad;  copy a_grad -> dd_da, b_grad -> dd_db
// Used for ONNX's own gradient test cases (libonnx-testdata simple/test_gradient_*).
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Expected.h"

namespace dcw::autodiff {

// Lowers every Gradient node of the root SDFG (through `editor`); returns how many were lowered.
// Fails naming the node when its attributes are missing or autodiff refuses the request.
Expected<int> lowerGradientOps(edit::Editor& editor);

} // namespace dcw::autodiff
