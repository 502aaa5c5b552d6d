// Derivative: symbolic differentiation of tasklet code, the scalar core of reverse-mode autodiff.
// For a forward tasklet
//     y = x * w + b
// and a request for the gradients of inputs {x, w} given the gradient of output y (connector `gy`),
// backwardProgram() returns the backward tasklet
//     gx = gy * w
//     gw = gy * x
// Locals (`let`) of the forward code are recomputed in the backward code (chain rule through them);
// several outputs sum their contributions. Piecewise functions take the usual subgradients
// (relu, abs, max/min: the chosen branch; ?: and select: the taken branch); comparisons, floor,
// ceil, round, trunc, sign, isnan, isinf and integer or boolean casts have zero derivative. Array
// indexing (`a[i]`) and a gradient for an integer-typed input are refused with the name at fault.
#pragma once

#include "core/support/Expected.h"
#include "core/tasklet/TaskletCode.h"

#include <map>
#include <string>
#include <vector>

namespace dcw::tasklet {

struct BackwardSpec {
  // Input connectors (read names) whose gradients are wanted, each with the connector the backward
  // program writes that gradient to.
  std::map<std::string, std::string> inputGradient;   // "x" -> "gx"
  // Output connectors (written names) with the connector carrying their incoming gradient. Outputs
  // not listed contribute nothing.
  std::map<std::string, std::string> outputGradient;  // "y" -> "gy"
};

// The backward program. It reads the forward inputs it needs (under their forward names) and the
// output-gradient connectors, and writes every requested input-gradient connector exactly once.
// `where` (an element path) locates errors.
Expected<Program> backwardProgram(const Program& forward, const BackwardSpec& spec, const std::string& where);

// d(expr)/d(name) as an expression (no simplification beyond constant folding of 0 and 1), where
// `name` is read directly by `expr`; locals must have been substituted first. Exposed for tests.
Expected<ExprPtr> derivative(const ExprPtr& expr, const std::string& name, const std::string& where);

} // namespace dcw::tasklet
