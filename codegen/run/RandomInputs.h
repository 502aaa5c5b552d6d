// RandomInputs: reproducible random tensors for a program's inputs — uniform in [-1, 1) for floats,
// 0..9 for integers, 0/1 for booleans; symbolic dims take their value from `dims` (default 1).
// `dcw run --random`, `dcw bench`, "Verify" in the app and the transformation tests all use these,
// so a seed means the same inputs everywhere.
#pragma once

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <random>
#include <vector>

namespace dcw::codegen {

Expected<ir::Tensor> randomTensor(const ProgramArg& arg, std::mt19937_64& rng, const std::map<std::string, int64_t>& dims);
// One tensor per input argument of the signature, in order.
Expected<std::vector<ir::Tensor>> randomInputs(const ProgramSignature& sig, uint64_t seed,
                                               const std::map<std::string, int64_t>& dims = {});

// The largest element-wise differences between two lists of outputs (numeric dtypes; NaN equals
// NaN). `mismatch` is set when counts, dtypes or dims differ.
struct OutputDiff {
  double maxAbs = 0;
  double maxRel = 0;   // |a-b| / max(|a|, |b|, 1e-30)
  size_t worstOutput = 0;
  std::string mismatch;
};
OutputDiff compareOutputs(const std::vector<ir::Tensor>& a, const std::vector<ir::Tensor>& b);

} // namespace dcw::codegen
