// The runtime text: kept free of macros of its own so that generated identifiers cannot collide
// with it; everything lives in namespace dcw_rt.
#include "codegen/cpu/Runtime.h"

#include <string>

namespace dcw::codegen {

namespace {
constexpr std::string_view kRuntimeHead = R"DCWRT(#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>
#ifdef _OPENMP
#include <omp.h>
#endif
// glibc's vector variants of libm (libmvec): with these declarations a vectorized map's exp, tanh,
// erf, ... run 4 to 16 lanes per call (_ZGVeN16v_tanhf) instead of one, within libmvec's 4 ulp. Only
// in programs built with DCW_RT_LIBMVEC, which links libmvec (defaultCompileFlags: x86-64, glibc 2.35
// and later); never in device code.
#if defined(DCW_RT_LIBMVEC) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
extern "C" {
float expf(float) noexcept __attribute__((simd("notinbranch")));
double exp(double) noexcept __attribute__((simd("notinbranch")));
float logf(float) noexcept __attribute__((simd("notinbranch")));
double log(double) noexcept __attribute__((simd("notinbranch")));
float sinf(float) noexcept __attribute__((simd("notinbranch")));
double sin(double) noexcept __attribute__((simd("notinbranch")));
float cosf(float) noexcept __attribute__((simd("notinbranch")));
double cos(double) noexcept __attribute__((simd("notinbranch")));
float tanf(float) noexcept __attribute__((simd("notinbranch")));
double tan(double) noexcept __attribute__((simd("notinbranch")));
float asinf(float) noexcept __attribute__((simd("notinbranch")));
double asin(double) noexcept __attribute__((simd("notinbranch")));
float acosf(float) noexcept __attribute__((simd("notinbranch")));
double acos(double) noexcept __attribute__((simd("notinbranch")));
float atanf(float) noexcept __attribute__((simd("notinbranch")));
double atan(double) noexcept __attribute__((simd("notinbranch")));
float sinhf(float) noexcept __attribute__((simd("notinbranch")));
double sinh(double) noexcept __attribute__((simd("notinbranch")));
float coshf(float) noexcept __attribute__((simd("notinbranch")));
double cosh(double) noexcept __attribute__((simd("notinbranch")));
float tanhf(float) noexcept __attribute__((simd("notinbranch")));
double tanh(double) noexcept __attribute__((simd("notinbranch")));
float asinhf(float) noexcept __attribute__((simd("notinbranch")));
double asinh(double) noexcept __attribute__((simd("notinbranch")));
float acoshf(float) noexcept __attribute__((simd("notinbranch")));
double acosh(double) noexcept __attribute__((simd("notinbranch")));
float atanhf(float) noexcept __attribute__((simd("notinbranch")));
double atanh(double) noexcept __attribute__((simd("notinbranch")));
float erff(float) noexcept __attribute__((simd("notinbranch")));
double erf(double) noexcept __attribute__((simd("notinbranch")));
float powf(float, float) noexcept __attribute__((simd("notinbranch")));
double pow(double, double) noexcept __attribute__((simd("notinbranch")));
float atan2f(float, float) noexcept __attribute__((simd("notinbranch")));
double atan2(double, double) noexcept __attribute__((simd("notinbranch")));
}
#endif

namespace dcw_rt {

// ---- status of one call (allocation failures inside parallel loops land here) ----
inline int& oom_flag() { static int f = 0; return f; }
inline void set_oom() {
  __atomic_store_n(&oom_flag(), 1, __ATOMIC_RELAXED);
}
inline void reset_status() { __atomic_store_n(&oom_flag(), 0, __ATOMIC_RELAXED); }

// ---- progress: the id of the element running now (states, and ops and maps outside parallel loops),
// written where a host watching from another process can read it after a crash or a hang ----
inline volatile int64_t*& progress_slot() { static volatile int64_t* s = nullptr; return s; }
inline void at(int64_t element) {
  volatile int64_t* s = progress_slot();
  if (s) *s = element;
}
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

// ---- concurrent branches (codegen/ConcurrentBranches.h): a group planned for `planned` threads runs
// its `cases` each on a thread of its own, or case after case on the calling thread (each call then on
// the program's threads), whichever its first runs measured faster: the estimate that planned the group
// cannot tell (GoogLeNet's towers lost 4% run together, two even towers of small convolutions won 11%).
// The runs alternate until each way has kSamples timings after its first (which makes the calls), then
// the faster (together only by kMargin) is kept while the program is loaded. Only where the program runs on `planned` threads;
// DCW_CONCURRENT_BRANCHES=0 runs every group case after case, =1 always together (tests, comparisons). ----
struct BranchChoice {
  static constexpr int kSamples = 3;
  static constexpr double kMargin = 0.95; // together only when clearly faster: a machine's noise is a few %
  std::mutex lock;
  int runs[2] = {0, 0};               // [0]: case after case, [1]: together
  double best[2] = {1e300, 1e300};    // seconds, the fastest timed run of each way
  int chosen = -1;
};
inline int branches_forced() {
  static const int forced = [] {
    const char* v = std::getenv("DCW_CONCURRENT_BRANCHES");
    return v && std::strcmp(v, "0") == 0 ? 0 : v && std::strcmp(v, "1") == 0 ? 1 : -1;
  }();
  return forced;
}
inline int branch_team(BranchChoice& c, int planned, int cases) {
  if (branches_forced() >= 0) return branches_forced() ? cases : 1;
  if (num_threads() != planned) return 1;
  std::lock_guard<std::mutex> g(c.lock);
  if (c.chosen >= 0) return c.chosen ? cases : 1;
  return c.runs[1] <= c.runs[0] ? cases : 1;
}
inline double now_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
// After a group ran with `team` threads from `start` (now_seconds()).
inline void branch_ran(BranchChoice& c, int planned, int team, double start) {
  const double seconds = now_seconds() - start;
  if (branches_forced() >= 0 || num_threads() != planned) return;
  std::lock_guard<std::mutex> g(c.lock);
  if (c.chosen >= 0) return;
  const int way = team > 1 ? 1 : 0;
  if (c.runs[way]++ > 0) c.best[way] = std::min(c.best[way], seconds);
  if (c.runs[0] > BranchChoice::kSamples && c.runs[1] > BranchChoice::kSamples)
    c.chosen = c.best[1] < BranchChoice::kMargin * c.best[0] ? 1 : 0;
}
inline int thread_num() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}
inline int team_size() {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
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
// A constant embedded as bytes, decoded once; it lives as long as the program is loaded (the blocks are
// freed when the program is unloaded, by the destructor of this registry's static).
class Constants {
public:
  static Constants& instance() { static Constants c; return c; }
  void keep(void* p) {
    std::lock_guard<std::mutex> g(m_);
    blocks_.push_back(p);
  }
  ~Constants() {
    for (void* p : blocks_) std::free(p);
  }

private:
  std::mutex m_;
  std::vector<void*> blocks_;
};
template <class T> T* decode(const char* raw, size_t bytes) {
  T* p = alloc<T>(static_cast<int64_t>((bytes + sizeof(T) - 1) / sizeof(T)));
  if (p) {
    std::memcpy(p, raw, bytes);
    Constants::instance().keep(p);
  }
  return p;
}
// Transients of 64 KiB and more come from a pool the program keeps while it is loaded: a block freed
// at the end of one run serves the same size in the next, so repeated runs neither allocate nor take
// page faults on fresh memory (glibc maps and unmaps large blocks on every malloc/free). Blocks are
// zeroed when handed out, as alloc() does, unless the generator knows a library call writes the whole
// block before anything reads it (Buffer's `zero`); smaller transients use malloc directly.
class Pool {
public:
  static constexpr size_t kMinBytes = size_t(64) << 10;
  static Pool& instance() { static Pool p; return p; }
  void* take(size_t bytes, bool zero) {
    {
      std::lock_guard<std::mutex> g(m_);
      for (size_t k = 0; k < free_.size(); ++k)
        if (free_[k].bytes == bytes) {
          void* p = free_[k].p;
          free_[k] = free_.back();
          free_.pop_back();
          if (zero) std::memset(p, 0, bytes);
          return p;
        }
    }
    void* p = std::aligned_alloc(64, bytes);
    if (p) std::memset(p, 0, bytes);
    return p;
  }
  void give(void* p, size_t bytes) {
    std::lock_guard<std::mutex> g(m_);
    free_.push_back({p, bytes});
  }
  ~Pool() {
    for (auto& b : free_) std::free(b.p);
  }

private:
  struct Block {
    void* p;
    size_t bytes;
  };
  std::mutex m_;
  std::vector<Block> free_;
};
template <class T> struct Buffer {
  T* p;
  size_t bytes = 0; // pooled size; 0: from alloc()
  explicit Buffer(int64_t n, bool zero = true) {
    if (n >= 0 && static_cast<uint64_t>(n) <= (static_cast<uint64_t>(1) << 58) / sizeof(T) &&
        static_cast<size_t>(n) * sizeof(T) >= Pool::kMinBytes) {
      bytes = (static_cast<size_t>(n) * sizeof(T) + 63) / 64 * 64;
      p = static_cast<T*>(Pool::instance().take(bytes, zero));
      if (!p) bytes = 0;
    } else {
      p = alloc<T>(n);
    }
  }
  ~Buffer() {
    if (bytes) Pool::instance().give(p, bytes);
    else std::free(p);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

)DCWRT";

// The math the generated code calls (pure functions; device code uses them too, see kernelMathSource).
constexpr std::string_view kMath = R"DCWMATH(// ---- exact integer arithmetic for symbolic expressions (floor semantics, as in Python) ----
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
// A uniform double in [0, 1) from a seed and an element index: a counter-based generator (splitmix64's
// finalizer over the two), so each element is drawn independently of the schedule that computes it.
inline double random_uniform(double seed, double index) {
  uint64_t z = uint64_t(int64_t(seed)) * 0x9E3779B97F4A7C15ull + uint64_t(int64_t(index)) * 0xD1B54A32D192ED03ull;
  for (int round = 0; round < 2; ++round) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
  }
  return double(z >> 11) * 0x1.0p-53;
}

// ---- write-conflict resolution ----
template <class T> inline T wmin(T a, T b) { return b < a ? b : a; }
template <class T> inline T wmax(T a, T b) { return b > a ? b : a; }
)DCWMATH";

constexpr std::string_view kRuntimeTail = R"DCWRT(template <class T> inline void atomic_min(T* p, T v) {
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

// The profiling runtime. Events land in a static buffer (bss: costs nothing until touched) that the host
// may replace by a larger one; a slot is claimed with one relaxed atomic add, so elements timed inside
// parallel loops are safe. Counters: the host opens one perf_event group per thread (leader + members,
// PERF_FORMAT_GROUP) and passes the leader fds; a read sums every group (all threads of the process).
// The start reads counters before the clock and the end reads the clock first, so counter reads stay
// outside the timed interval.
constexpr std::string_view kProfileRuntime = R"DCWPR(#include <chrono>
#include <unistd.h>

struct dcw_event {
  uint32_t element;
  uint32_t thread;
  int64_t start_ns;
  int64_t end_ns;
  int64_t counters[4];
};

namespace dcw_prof {

constexpr int kMaxCounters = 4;
constexpr int kMaxGroups = 512;
constexpr size_t kStaticEvents = 1 << 16;

struct State {
  dcw_event* events = nullptr;
  size_t capacity = 0;
  size_t count = 0;
  size_t dropped = 0;
  dcw_event* owned = nullptr;
  int groups[kMaxGroups] = {};
  int ngroups = 0;
  int ncounters = 0;
};
inline State& state() {
  static dcw_event storage[kStaticEvents];
  static State s = [] {
    State t;
    t.events = storage;
    t.capacity = kStaticEvents;
    return t;
  }();
  return s;
}
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline void read_counters(int64_t* out) {
  State& s = state();
  for (int k = 0; k < kMaxCounters; ++k) out[k] = 0;
  uint64_t buf[1 + kMaxCounters];
  const size_t want = sizeof(uint64_t) * static_cast<size_t>(1 + s.ncounters);
  for (int g = 0; g < s.ngroups; ++g) {
    if (::read(s.groups[g], buf, want) != static_cast<ssize_t>(want)) continue;
    for (int k = 0; k < s.ncounters && k < static_cast<int>(buf[0]); ++k) out[k] += static_cast<int64_t>(buf[1 + k]);
  }
}
inline int thread_num() { return dcw_rt::thread_num(); }

struct Scope {
  uint32_t id;
  bool on = true;
  int64_t t0 = 0;
  int64_t c0[kMaxCounters] = {};
  explicit Scope(uint32_t element, bool masterOnly = false) : id(element) {
    if (masterOnly && thread_num() != 0) {
      on = false;
      return;
    }
    if (state().ncounters) read_counters(c0);
    t0 = now_ns();
  }
  ~Scope() {
    if (!on) return;
    const int64_t t1 = now_ns();
    State& s = state();
    int64_t c1[kMaxCounters] = {};
    if (s.ncounters) read_counters(c1);
    size_t k = __atomic_fetch_add(&s.count, 1, __ATOMIC_RELAXED);
    if (k >= s.capacity) {
      __atomic_fetch_add(&s.dropped, 1, __ATOMIC_RELAXED);
      return;
    }
    dcw_event& e = s.events[k];
    e.element = id;
    e.thread = static_cast<uint32_t>(thread_num());
    e.start_ns = t0;
    e.end_ns = t1;
    for (int c = 0; c < kMaxCounters; ++c) e.counters[c] = c1[c] - c0[c];
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
};

} // namespace dcw_prof

extern "C" const dcw_event* dcw_profile_events(size_t* count) {
  dcw_prof::State& s = dcw_prof::state();
  size_t n = __atomic_load_n(&s.count, __ATOMIC_RELAXED);
  if (count) *count = n < s.capacity ? n : s.capacity;
  return s.events;
}
extern "C" void dcw_profile_reset() {
  dcw_prof::State& s = dcw_prof::state();
  __atomic_store_n(&s.count, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&s.dropped, 0, __ATOMIC_RELAXED);
}
extern "C" size_t dcw_profile_dropped() { return __atomic_load_n(&dcw_prof::state().dropped, __ATOMIC_RELAXED); }
extern "C" int dcw_profile_set_capacity(size_t events) {
  dcw_prof::State& s = dcw_prof::state();
  if (events <= dcw_prof::kStaticEvents) return 0;
  void* p = std::malloc(events * sizeof(dcw_event));
  if (!p) return 1;
  std::memset(p, 0, events * sizeof(dcw_event)); // touch the pages now, not while timing
  std::free(s.owned);
  s.owned = static_cast<dcw_event*>(p);
  s.events = s.owned;
  s.capacity = events;
  dcw_profile_reset();
  return 0;
}
extern "C" void dcw_profile_set_counters(const int* groupFds, int groups, int counters) {
  dcw_prof::State& s = dcw_prof::state();
  if (!groupFds || groups < 0 || counters <= 0) groups = counters = 0;
  if (groups > dcw_prof::kMaxGroups) groups = dcw_prof::kMaxGroups;
  if (counters > dcw_prof::kMaxCounters) counters = dcw_prof::kMaxCounters;
  for (int g = 0; g < groups; ++g) s.groups[g] = groupFds[g];
  s.ngroups = groups;
  s.ncounters = counters;
}
)DCWPR";

std::string_view cpuRuntimeSource() {
  static const std::string text = std::string(kRuntimeHead) + std::string(kMath) + std::string(kRuntimeTail);
  return text;
}

std::string_view hostDeviceRuntimeSource() {
  // Every inline function of the math part callable from device code too (nvcc's __host__ __device__).
  static const std::string text = [] {
    std::string math(kMath), out;
    const std::string key = "inline ";
    size_t at = 0;
    for (size_t k = math.find(key); k != std::string::npos; k = math.find(key, at)) {
      out += math.substr(at, k - at) + "__host__ __device__ inline ";
      at = k + key.size();
    }
    out += math.substr(at);
    return std::string(kRuntimeHead) + out + std::string(kRuntimeTail);
  }();
  return text;
}

std::string_view kernelMathSource() {
  static const std::string text = "#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <limits>\n\nnamespace dcw_rt {\n\n" +
                                  std::string(kMath) + "} // namespace dcw_rt\n";
  return text;
}
std::string_view cpuProfileRuntimeSource() { return kProfileRuntime; }

} // namespace dcw::codegen
