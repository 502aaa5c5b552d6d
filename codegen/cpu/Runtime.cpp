// The runtime text: kept free of macros of its own so that generated identifiers cannot collide
// with it; everything lives in namespace dcw_rt.
#include "codegen/cpu/Runtime.h"

namespace dcw::codegen {

namespace {
constexpr std::string_view kRuntime = R"DCWRT(#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#ifdef _OPENMP
#include <omp.h>
#endif

namespace dcw_rt {

// ---- status of one call (allocation failures inside parallel loops land here) ----
inline int& oom_flag() { static int f = 0; return f; }
inline void set_oom() {
  __atomic_store_n(&oom_flag(), 1, __ATOMIC_RELAXED);
}
inline void reset_status() { __atomic_store_n(&oom_flag(), 0, __ATOMIC_RELAXED); }
inline int report(char* error, size_t size, const char* message) {
  if (error && size) {
    size_t n = std::strlen(message);
    if (n >= size) n = size - 1;
    std::memcpy(error, message, n);
    error[n] = '\0';
  }
  return 1;
}
inline int finish(char* error, size_t size) {
  if (__atomic_load_n(&oom_flag(), __ATOMIC_RELAXED)) return report(error, size, "out of memory allocating a transient");
  return 0;
}

// ---- threads: set by dcw_set_threads for every calling thread (omp_set_num_threads would only set
// the caller's own default), read by the num_threads clause of each parallel loop ----
inline int& threads_ref() { static int n = 0; return n; }
inline void set_threads(int n) { __atomic_store_n(&threads_ref(), n, __ATOMIC_RELAXED); }
inline int num_threads() {
  int n = __atomic_load_n(&threads_ref(), __ATOMIC_RELAXED);
#ifdef _OPENMP
  return n > 0 ? n : omp_get_max_threads();
#else
  return n > 0 ? n : 1;
#endif
}

// ---- memory: aligned, zero-initialised; nullptr on a negative or overflowing size ----
template <class T> T* alloc(int64_t n) {
  if (n < 0 || static_cast<uint64_t>(n) > (static_cast<uint64_t>(1) << 58) / sizeof(T)) return nullptr;
  size_t bytes = static_cast<size_t>(n) * sizeof(T);
  bytes = (bytes + 63) / 64 * 64;
  if (bytes == 0) bytes = 64;
  void* p = std::aligned_alloc(64, bytes);
  if (p) std::memset(p, 0, bytes);
  return static_cast<T*>(p);
}
// A constant embedded as bytes, decoded once (never freed: it lives as long as the program).
template <class T> T* decode(const char* raw, size_t bytes) {
  T* p = alloc<T>(static_cast<int64_t>((bytes + sizeof(T) - 1) / sizeof(T)));
  if (p) std::memcpy(p, raw, bytes);
  return p;
}
template <class T> struct Buffer {
  T* p;
  explicit Buffer(int64_t n) : p(alloc<T>(n)) {}
  ~Buffer() { std::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// ---- exact integer arithmetic for symbolic expressions (floor semantics, as in Python) ----
inline int64_t floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return a == INT64_MIN ? a : -a;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t floormod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t imax(int64_t a, int64_t b) { return a < b ? b : a; }

// ---- tasklet integer arithmetic (C semantics: truncation; no trap on zero or overflow) ----
inline int64_t idiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  return a / b;
}
inline int64_t imod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  return a % b;
}
inline int64_t ipow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : (base == -1 ? ((e & 1) ? -1 : 1) : 0);
  uint64_t r = 1, b = static_cast<uint64_t>(base);
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(r);
}

// ---- safe casts: NaN -> 0, out of range saturates ----
template <class T> inline T to_int(double x) {
  if (!(x == x)) return 0;
  if (x <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (x >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(x);
}
inline int64_t to_i64(double x) { return to_int<int64_t>(x); }

// ---- 16-bit floats: stored as uint16_t, computed as float ----
inline float bits_to_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t f32_to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float f16_to_f32(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_f32(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    if (man == 0) return bits_to_f32(sign);
    float v = static_cast<float>(man) * 5.9604644775390625e-8f; // man * 2^-24
    return sign ? -v : v;
  }
  return bits_to_f32(sign | ((exp + 112) << 23) | (man << 13));
}
inline uint16_t f32_to_f16(float f) {
  uint32_t u = f32_to_bits(f);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // rounds to >= 65520: infinity
  if (a < 0x38800000u) { // subnormal half (or zero): round half to even at 2^-24
    float v = bits_to_f32(a) * 16777216.0f; // scale so that one half ulp is 1
    float r = std::nearbyint(v);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
  }
  uint32_t mant = a & 0x7fffffu;
  uint32_t exp = (a >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}
inline float bf16_to_f32(uint16_t h) { return bits_to_f32(static_cast<uint32_t>(h) << 16); }
// float32 -> bfloat16 keeps the upper 16 bits (truncation), as ONNX 1.12's reference Cast does and its
// conformance data expects; NaN stays a quiet NaN.
inline uint16_t f32_to_bf16(float f) {
  uint32_t u = f32_to_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>(u >> 16);
}
inline float round_f16(float x) { return f16_to_f32(f32_to_f16(x)); }
inline float round_bf16(float x) { return bf16_to_f32(f32_to_bf16(x)); }

// ---- math (float and double overloads; integer overloads where exact) ----
inline float inf_f() { return __builtin_inff(); }
inline double inf_d() { return __builtin_inf(); }
inline float nan_f() { return __builtin_nanf(""); }
inline double nan_d() { return __builtin_nan(""); }
#define DCW_RT_UNARY(name, fn) inline float name(float x) { return std::fn(x); } inline double name(double x) { return std::fn(x); }
DCW_RT_UNARY(exp, exp) DCW_RT_UNARY(log, log) DCW_RT_UNARY(sqrt, sqrt) DCW_RT_UNARY(sin, sin)
DCW_RT_UNARY(cos, cos) DCW_RT_UNARY(tan, tan) DCW_RT_UNARY(asin, asin) DCW_RT_UNARY(acos, acos)
DCW_RT_UNARY(atan, atan) DCW_RT_UNARY(sinh, sinh) DCW_RT_UNARY(cosh, cosh) DCW_RT_UNARY(tanh, tanh)
DCW_RT_UNARY(asinh, asinh) DCW_RT_UNARY(acosh, acosh) DCW_RT_UNARY(atanh, atanh) DCW_RT_UNARY(erf, erf)
DCW_RT_UNARY(floor, floor) DCW_RT_UNARY(ceil, ceil) DCW_RT_UNARY(trunc, trunc)
#undef DCW_RT_UNARY
// Round half to even (the default floating-point rounding mode).
inline float round(float x) { return std::nearbyint(x); }
inline double round(double x) { return std::nearbyint(x); }
inline float abs(float x) { return std::fabs(x); }
inline double abs(double x) { return std::fabs(x); }
inline int64_t abs(int64_t x) { return x < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(x)) : x; }
inline float pow(float a, float b) { return std::pow(a, b); }
inline double pow(double a, double b) { return std::pow(a, b); }
inline float atan2(float a, float b) { return std::atan2(a, b); }
inline double atan2(double a, double b) { return std::atan2(a, b); }
inline float fmod(float a, float b) { return std::fmod(a, b); }
inline double fmod(double a, double b) { return std::fmod(a, b); }
// min/max propagate NaN (as numpy.minimum / numpy.maximum do).
inline float min(float a, float b) { return (a < b || a != a) ? a : b; }
inline double min(double a, double b) { return (a < b || a != a) ? a : b; }
inline int64_t min(int64_t a, int64_t b) { return a < b ? a : b; }
inline float max(float a, float b) { return (a > b || a != a) ? a : b; }
inline double max(double a, double b) { return (a > b || a != a) ? a : b; }
inline int64_t max(int64_t a, int64_t b) { return a > b ? a : b; }
inline float sign(float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : x); }
inline double sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }
inline int64_t sign(int64_t x) { return (x > 0) - (x < 0); }
inline bool isnan(float x) { return x != x; }
inline bool isnan(double x) { return x != x; }
inline bool isinf(float x) { return std::isinf(x); }
inline bool isinf(double x) { return std::isinf(x); }
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline float relu(float x) { return x < 0 ? 0.0f : x; }
inline double relu(double x) { return x < 0 ? 0.0 : x; }
inline int64_t relu(int64_t x) { return x < 0 ? 0 : x; }

// ---- write-conflict resolution ----
template <class T> inline T wmin(T a, T b) { return b < a ? b : a; }
template <class T> inline T wmax(T a, T b) { return b > a ? b : a; }
template <class T> inline void atomic_min(T* p, T v) {
  T cur;
  __atomic_load(p, &cur, __ATOMIC_RELAXED);
  while (v < cur && !__atomic_compare_exchange(p, &cur, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
template <class T> inline void atomic_max(T* p, T v) {
  T cur;
  __atomic_load(p, &cur, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange(p, &cur, &v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

} // namespace dcw_rt
)DCWRT";
} // namespace

std::string_view cpuRuntimeSource() { return kRuntime; }

} // namespace dcw::codegen
