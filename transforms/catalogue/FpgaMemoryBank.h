// FpgaMemoryBank: puts an array in FPGA global memory into one of the board's memory banks (a DDR
// channel of an Alveo U250, an HBM pseudo channel of a U280), so that the arrays a kernel streams at
// once sit in different banks and each gets a bank's bandwidth, as DaCe's bank assignment does.
//
// Before:  fpga_A, fpga_B, fpga_Y in bank 0 (the default): one DDR channel serves every access
// After:   FpgaMemoryBank array=.../fpga_B bank=1: fpga_B lives in bank 1
//
// The Vitis project's link configuration connects the array's kernel arguments to that bank
// (sp=kernel.arg:DDR[1]), the Vitis host allocates its buffer there, and the cycle estimate charges
// its traffic to that bank's bandwidth (CycleEstimate.h). Banks are numbered in the board's order
// (codegen/fpga/FpgaDevice.h); a bank the chosen board lacks is reported when estimating or writing
// the project. C-simulation is unaffected (host memory is one memory).
// Preconditions: the access node's data is in FPGA global memory (after FpgaTransform); the bank is
// 0 to 63 and not the array's bank already. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class FpgaMemoryBank : public Transformation {
public:
  std::string_view name() const override { return "FpgaMemoryBank"; }
  std::string_view description() const override {
    return "Put an array in FPGA global memory into one of the board's memory banks (DDR/HBM), for its own bandwidth";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
