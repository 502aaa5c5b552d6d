#include "codegen/run/RandomInputs.h"

#include "codegen/run/MemoryBudget.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dcw::codegen {

using namespace dcw::ir;

namespace {

// The dims of a random input: symbolic dims from `dims` (default 1).
Expected<std::vector<int64_t>> inputDims(const ProgramArg& a, const std::map<std::string, int64_t>& dims) {
  std::vector<int64_t> out;
  for (auto& e : a.shape) {
    auto v = e.evaluate(dims);
    if (!v) {
      if (e.isSymbol()) out.push_back(1);
      else return fail("input '" + a.name + "'", "dimension " + e.str() + " cannot be chosen", "give its symbols with --dim NAME=VALUE");
    } else {
      out.push_back(*v);
    }
  }
  return out;
}

} // namespace

Expected<Tensor> randomTensor(const ProgramArg& a, std::mt19937_64& rng, const std::map<std::string, int64_t>& dims) {
  Tensor t;
  t.dtype = a.dtype;
  DCW_TRY(t.dims, inputDims(a, dims));
  DCW_CHECK(checkFitsInMemory("input '" + a.name + "'", "a random tensor of shape " + shapeText(t.dims), tensorBytes(t.dims, a.dtype)));
  size_t n = size_t(t.elementCount());
  auto bytes = std::make_shared<std::string>(n * dtypeSize(a.dtype), '\0');
  std::uniform_real_distribution<float> uf(-1.f, 1.f);
  std::uniform_int_distribution<int> ui(0, 9);
  for (size_t i = 0; i < n; ++i) {
    char* p = bytes->data() + i * dtypeSize(a.dtype);
    switch (a.dtype) {
    case DType::Float32: { float v = uf(rng); std::memcpy(p, &v, 4); break; }
    case DType::Float64: { double v = uf(rng); std::memcpy(p, &v, 8); break; }
    case DType::Int64: { int64_t v = ui(rng); std::memcpy(p, &v, 8); break; }
    case DType::Int32: { int32_t v = ui(rng); std::memcpy(p, &v, 4); break; }
    case DType::Bool: { uint8_t v = ui(rng) & 1; std::memcpy(p, &v, 1); break; }
    case DType::UInt8: case DType::Int8: { uint8_t v = uint8_t(ui(rng)); std::memcpy(p, &v, 1); break; }
    default: return fail("input '" + a.name + "'", "random values of dtype " + std::string(dtypeName(a.dtype)) + " are not supported",
                         "give the inputs as files (--inputs DIR)");
    }
  }
  t.bytes = bytes;
  return t;
}

Expected<std::vector<Tensor>> randomInputs(const ProgramSignature& sig, uint64_t seed, const std::map<std::string, int64_t>& dims) {
  // All inputs together must fit before any is made.
  int64_t total = 0;
  for (auto& a : sig.args)
    if (a.role == ProgramArg::Role::Input) {
      DCW_TRY(auto d, inputDims(a, dims));
      int64_t b = tensorBytes(d, a.dtype);
      total = b < 0 || total < 0 ? -1 : total + b;
    }
  DCW_CHECK(checkFitsInMemory("inputs", "the model's inputs together", total));
  std::mt19937_64 rng(seed);
  std::vector<Tensor> out;
  for (auto& a : sig.args)
    if (a.role == ProgramArg::Role::Input) {
      auto t = randomTensor(a, rng, dims);
      if (!t) return t.takeError();
      out.push_back(std::move(*t));
    }
  return out;
}

namespace {
double valueAt(const Tensor& t, size_t i) {
  const char* p = t.bytes->data() + i * dtypeSize(t.dtype);
  switch (t.dtype) {
  case DType::Float32: { float v; std::memcpy(&v, p, 4); return v; }
  case DType::Float64: { double v; std::memcpy(&v, p, 8); return v; }
  case DType::Int64: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
  case DType::Int32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case DType::Int16: { int16_t v; std::memcpy(&v, p, 2); return v; }
  case DType::Int8: { int8_t v; std::memcpy(&v, p, 1); return v; }
  case DType::UInt8: case DType::Bool: { uint8_t v; std::memcpy(&v, p, 1); return v; }
  default: return 0;
  }
}
} // namespace

OutputDiff compareOutputs(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  OutputDiff d;
  if (a.size() != b.size()) {
    d.mismatch = std::to_string(a.size()) + " outputs against " + std::to_string(b.size());
    return d;
  }
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].dtype != b[k].dtype || a[k].dims != b[k].dims) {
      d.mismatch = "output " + std::to_string(k) + " differs in dtype or shape";
      d.worstOutput = k;
      return d;
    }
    if (!a[k].bytes || !b[k].bytes) continue;
    size_t n = size_t(a[k].elementCount());
    for (size_t i = 0; i < n; ++i) {
      double x = valueAt(a[k], i), y = valueAt(b[k], i);
      if (std::isnan(x) && std::isnan(y)) continue;
      double diff = std::isnan(x) || std::isnan(y) ? INFINITY : std::fabs(x - y);
      double rel = diff / std::max({std::fabs(x), std::fabs(y), 1e-30});
      if (diff > d.maxAbs) {
        d.maxAbs = diff;
        d.worstOutput = k;
      }
      d.maxRel = std::max(d.maxRel, rel);
    }
  }
  return d;
}

} // namespace dcw::codegen
