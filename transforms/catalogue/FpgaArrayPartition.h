// FpgaArrayPartition: splits an on-chip array of an FPGA kernel into banks (Vitis HLS ARRAY_PARTITION),
// so an unrolled loop can read and write as many of its elements in one cycle as it has copies: one
// block RAM serves two accesses a cycle, so a loop unrolled 16 times over one array waits 8 cycles for
// its reads, and 1 with the array in 16 banks.
//
// Before:  T: float32[64] fpga_local; map[i=0:64, unrolled] { y = t + 1 }   16 reads -> 32 cycles a pass
// After:   FpgaArrayPartition array=.../T  (kind=cyclic, factor inferred: 64)  -> 1 cycle a pass
//          kernels.cpp: float T[64]; #pragma HLS ARRAY_PARTITION variable=T cyclic factor=64 dim=1
//
// Options: kind cyclic (element k in bank k mod factor: consecutive elements in different banks, what a
// loop unrolled over consecutive elements needs), block (consecutive runs of size/factor), complete
// (every element a register; at most 4,096 elements) or none (undo a partition); factor 0 takes the
// largest trip count of an unrolled map that accesses the array. The cycle estimate gives each bank two
// ports (CycleEstimate.h) and counts a block RAM per bank; C-simulation is unaffected (one array).
// Preconditions: the array is a transient in FPGA on-chip memory (storage fpga_local, or kept by a kernel
// outside global memory), not a stream, of a known element count; the factor is 2 to the element count
// and the partition differs from the array's. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class FpgaArrayPartition : public Transformation {
public:
  std::string_view name() const override { return "FpgaArrayPartition"; }
  std::string_view description() const override {
    return "Split an on-chip FPGA array into banks (HLS ARRAY_PARTITION) so an unrolled loop reads several elements a cycle";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
