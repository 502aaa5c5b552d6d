#include "views/WeightStats.h"

#include "core/ir/Tensor.h"

#include <QtEndian>
#include <QtNumeric>
#include <qfloat16.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace dcw::views {

using ir::DType;

namespace {

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return qFromLittleEndian(v);
}

// Element i of the tensor as a double (the tensor's bytes are little-endian and densely packed).
double element(DType t, const char* base, int64_t i) {
  switch (t) {
  case DType::Float32: {
    uint32_t u = load<uint32_t>(base + i * 4);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case DType::Float64: {
    uint64_t u = load<uint64_t>(base + i * 8);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  case DType::Float16: {
    uint16_t u = load<uint16_t>(base + i * 2);
    float f = 0;
    qFloatFromFloat16(&f, reinterpret_cast<const qfloat16*>(&u), 1);
    return f;
  }
  case DType::BFloat16: {
    uint32_t u = uint32_t(load<uint16_t>(base + i * 2)) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case DType::Int8: return double(int8_t(base[i]));
  case DType::UInt8:
  case DType::Bool: return double(uint8_t(base[i]));
  case DType::Int16: return double(int16_t(load<uint16_t>(base + i * 2)));
  case DType::UInt16: return double(load<uint16_t>(base + i * 2));
  case DType::Int32: return double(int32_t(load<uint32_t>(base + i * 4)));
  case DType::UInt32: return double(load<uint32_t>(base + i * 4));
  case DType::Int64: return double(int64_t(load<uint64_t>(base + i * 8)));
  case DType::UInt64: return double(load<uint64_t>(base + i * 8));
  default: return 0;
  }
}

} // namespace

WeightStats computeWeightStats(const ir::Tensor& t, int bins) {
  WeightStats s;
  switch (t.dtype) {
  case DType::String: s.error = QStringLiteral("a string tensor has no numeric statistics"); return s;
  case DType::Complex64:
  case DType::Complex128: s.error = QStringLiteral("complex tensors are not summarised"); return s;
  case DType::Undefined: s.error = QStringLiteral("the tensor has no element type"); return s;
  default: break;
  }
  const int64_t n = t.elementCount();
  const size_t size = ir::dtypeSize(t.dtype);
  if (!t.bytes || n < 0 || t.bytes->size() < size_t(n) * size) {
    s.error = QStringLiteral("the tensor holds %1 bytes, fewer than its %2 elements need").arg(t.byteSize()).arg(n);
    return s;
  }
  const char* base = t.bytes->data();
  s.count = n;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -s.min;
  double sum = 0, sumSq = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = element(t.dtype, base, i);
    if (std::isnan(v)) { ++s.nans; continue; }
    if (std::isinf(v)) { ++s.infs; continue; }
    ++finite;
    if (v == 0) ++s.zeros;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
    sumSq += v * v;
  }
  if (finite == 0) {
    s.min = s.max = 0;
  } else {
    s.mean = sum / double(finite);
    s.stddev = std::sqrt(std::max(0.0, sumSq / double(finite) - s.mean * s.mean));
  }
  s.histogram.assign(size_t(std::max(1, bins)), 0);
  const double width = s.max - s.min;
  for (int64_t i = 0; i < n && finite > 0; ++i) {
    double v = element(t.dtype, base, i);
    if (!std::isfinite(v)) continue;
    size_t b = width > 0 ? size_t((v - s.min) / width * double(s.histogram.size())) : 0;
    s.histogram[std::min(b, s.histogram.size() - 1)]++;
  }
  s.ok = true;
  return s;
}

} // namespace dcw::views
