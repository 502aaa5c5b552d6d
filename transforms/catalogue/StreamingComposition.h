// StreamingComposition: on an FPGA, a map that produces an array element by element and a map that
// consumes it in the same order become two processing elements joined by a stream: the consumer starts
// on the first element while the producer still computes the rest, and the array never goes to memory.
// The state becomes a dataflow region (the HLS generator writes a function per processing element
// under DATAFLOW; C-simulation runs them as threads over bounded FIFOs).
//
// Before:  A -> map[i=0:N] { t1: T[i] = f(A[i]) } -> T (FPGA memory) -> map[j=0:N] { t2: B[j] = g(T[j]) } -> B
// After:   A -> map[i=0:N] { t1: push f(A[i]) } -> T (stream, depth D) -> map[j=0:N] { t2: B[j] = g(pop) } -> B
//
// Preconditions: the state is a device state (the array is in FPGA memory, after FpgaTransform); the
// array is transient with this one access node anywhere in the SDFG, written only by the first map and
// read only by the second; in each map one tasklet right inside it writes (reads) one element a
// iteration, with no write-conflict resolution; both maps have the same number of parameters with
// equal ranges, and the element is indexed by the map's parameters in order, one per dimension (so the
// producer's iteration k writes what the consumer's iteration k reads, and each element once).
// Option: depth (the FIFO's capacity, at least 1; default 2). A depth too small for a reconvergent
// dataflow deadlocks: C-simulation then fails naming the blocked streams and elements.
// Keeps the model differentiable? No: streams are an FPGA execution detail autodiff does not handle.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class StreamingComposition : public Transformation {
public:
  std::string_view name() const override { return "StreamingComposition"; }
  std::string_view description() const override {
    return "On an FPGA, join a producer map and its consumer map by a stream, as two processing elements running side by side";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
