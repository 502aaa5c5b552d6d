// Vectorization: runs the innermost dimension of a map as SIMD lanes. The dimension is strip-mined
// by the vector width — the outer map keeps the other dimensions, the strip origins and the
// schedule — and the inner map over one strip is scheduled Vectorized, which the CPU code generator
// emits as `#pragma omp simd` on its loop.
//
// Before:  map[i=0:N, j=0:64] { C[i, j] = A[i, j] + B[j] }
// After:   map[i=0:N, j_vec=0:64:8] { map[j=j_vec:j_vec+8] (vectorized) { C[i, j] = A[i, j] + B[j] } }
//
// Preconditions: the body holds tasklets only; no write-conflict resolution inside; the innermost
// dimension has a unit step, a range independent of the other parameters and a constant trip
// count that is a multiple of the vector width (no remainder loop is generated: strip-mine or pad
// first otherwise); every memlet inside touches one element, uses the innermost parameter at most in
// its last dimension with coefficient one on a container whose last stride is one (unit stride), and
// every write depends on it (lanes write distinct elements); no container is both read and written
// in the body (no dependence between lanes).
// Options: vector_width (lanes; default 8). Keeps the model differentiable (maps and tasklets stay
// analysable; only the schedule and the map structure change).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class Vectorization : public Transformation {
public:
  std::string_view name() const override { return "Vectorization"; }
  std::string_view description() const override {
    return "Run the innermost dimension of a map as SIMD lanes (strip-mined by the vector width)";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
