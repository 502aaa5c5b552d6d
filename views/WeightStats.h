// WeightStats: statistics of a constant array (an ONNX initializer) for the weight viewer — element
// count, min, max, mean, standard deviation, share of zeros, NaN/Inf counts and a histogram over
// [min, max]. Every numeric dtype is read (float16/bfloat16 included); strings and complex numbers
// are refused with a reason. Pure computation: no widgets, testable on its own.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace dcw::ir {
struct Tensor;
}

namespace dcw::views {

struct WeightStats {
  bool ok = false;
  QString error;          // why there are no statistics (when !ok)
  int64_t count = 0;
  double min = 0, max = 0, mean = 0, stddev = 0;
  int64_t zeros = 0, nans = 0, infs = 0;
  std::vector<int64_t> histogram; // `bins` buckets over [min, max] (finite values only)
};

WeightStats computeWeightStats(const ir::Tensor& tensor, int bins = 64);

} // namespace dcw::views
