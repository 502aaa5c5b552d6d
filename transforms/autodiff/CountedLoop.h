// CountedLoop: recognizes a LoopRegion whose iterations are known before it runs — a loop variable
// with unit step and bounds that do not depend on the body — so that autodiff can run the iterations
// backwards (transforms/autodiff/ReversePass) and store per-iteration values at index `index`.
//
//   for (t = 0; t < T && t < M; t = t + 1)      ->  first 0,     last min(T, M) - 1, step +1
//   for (t = T - 1; t >= 0; t = t - 1)          ->  first T - 1, last 0,            step -1
//   backward: for (t = last; t >= first; t = t - 1)  (step -1: t <= first; t = t + 1)
//   index (0 .. trip - 1): (t - first) * step;  trip = (last - first) * step + 1 (at least 0)
// A while-loop, a non-unit step or a condition on data written in the body is not counted.
#pragma once

#include "core/ir/ControlFlow.h"
#include "core/support/Expected.h"

#include <memory>
#include <string>

namespace dcw::autodiff::detail {

struct CountedLoop {
  std::string var;
  sym::Expr first, last, trip, index;
  int step = 1;
  // The loop running the same iterations in the opposite order.
  std::unique_ptr<ir::LoopRegion> reversed(const std::string& label) const;
};

// The counted form of `loop`, or an error saying why it is not one (`where` names the loop).
Expected<CountedLoop> countedLoop(const ir::LoopRegion& loop, const std::string& where);

} // namespace dcw::autodiff::detail
