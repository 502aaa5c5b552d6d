// StreamingMemory: on an FPGA, a map that reads an array of device (global) memory one element an
// iteration gets a processing element of its own that reads the array in the map's order and pushes
// each element into a stream, and the map pops them; likewise a map that writes an array one element
// an iteration pushes into a stream that a writer element empties into memory. Memory access and
// computation become separate processing elements under DATAFLOW (DaCe's StreamingMemory): the reader
// is a plain loop over one array — what HLS turns into bursts — and the compute element touches no
// memory, so it can later be joined to its neighbours by StreamingComposition or stay a pipeline whose
// pace is not set by the memory ports.
//
// Before:  fpga_X -> map[i=0:N] { t: y = f(x = fpga_X[i]) } -> fpga_Y[i] -> fpga_Y
// After:   fpga_X -> map[i=0:N] { read: s = fpga_X[i] } -> fpga_X_in (stream, depth D)
//                 -> map[i=0:N] { t: y = f(x = pop) }   -> fpga_Y_out (stream, depth D)
//                 -> map[i=0:N] { write: fpga_Y[i] = pop } -> fpga_Y
//
// Match: `entry`, a map entry at the top of an FPGA device state (FpgaTransform before).
// Preconditions, per array: in FPGA global memory; the map reads it (or writes it) through one edge a
// iteration, from (to) a tasklet right inside the map, one element, not dynamic, without write-conflict
// resolution; the map does not both read and write it; nothing else in the state writes an array the
// map streams in, or touches an array it streams out (the elements run side by side: no ordering
// between them is left to keep). The reader and writer maps copy the map's parameters and ranges, so
// iteration k of the reader fetches exactly what iteration k of the map read (any index expression).
// Options: array (the container to stream; empty = every one that qualifies), direction (in, out or
// both; default both), depth (each stream's capacity, at least 1; default 8).
// Keeps the model differentiable? No: streams are an FPGA execution detail autodiff does not handle.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class StreamingMemory : public Transformation {
public:
  std::string_view name() const override { return "StreamingMemory"; }
  std::string_view description() const override {
    return "On an FPGA, read and write a map's arrays in processing elements of their own, joined to the map by streams";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
