// float_cores_tb: checks every function of codegen/fpga/rtl/dcw_float32.vh (through the Verilated
// float_cores_top) bit for bit against native x86-64 float arithmetic as g++ compiles it (SSE, round
// to nearest even, no flush to zero). Built and run by check_float_cores.sh.
//
// Vectors: all pairs of special values; random bit patterns; pairs of nearby magnitudes (same or
// adjacent exponents, often opposite signs: cancellation); pairs of small or subnormal magnitudes and
// pairs whose product lands near the underflow threshold (these two sets draw many fractions sparse or
// dense in ones, which put results exactly on rounding ties or one sticky bit beside them); edge and random int64 values for
// int64 -> float; edge and random floats (many in and around the int64 range) for float -> int64.
// NaN results: when only one operand is a NaN, the result must equal the reference exactly (x86
// propagates that operand, quieted); when both are, g++ may have swapped the operands of a commutative
// operation, so the native result is compared as "both NaN" and the exact pattern is checked against
// addss/subss/mulss issued with a fixed operand order (inline asm); invalid operations (inf - inf,
// 0 * inf) must give exactly 0xFFC00000.
#include "Vfloat_cores_top.h"
#include "verilated.h"

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace {

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
bool isNan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0; }

// --- the native operations: noinline and volatile so that nothing is folded or contracted ---------
__attribute__((noinline)) uint32_t refAdd(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  volatile float r = x + y;
  return floatToBits(r);
}
__attribute__((noinline)) uint32_t refSub(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  volatile float r = x - y;
  return floatToBits(r);
}
__attribute__((noinline)) uint32_t refMul(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  volatile float r = x * y;
  return floatToBits(r);
}
__attribute__((noinline)) bool refLt(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  return x < y;
}
__attribute__((noinline)) bool refLe(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  return x <= y;
}
__attribute__((noinline)) bool refEq(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  return x == y;
}
__attribute__((noinline)) bool refGt(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  return x > y;
}
__attribute__((noinline)) bool refGe(uint32_t a, uint32_t b) {
  volatile float x = bitsToFloat(a), y = bitsToFloat(b);
  return x >= y;
}
__attribute__((noinline)) uint32_t refI64ToF32(uint64_t u) {
  volatile int64_t v = static_cast<int64_t>(u);
  volatile float r = static_cast<float>(v);
  return floatToBits(r);
}
// DCW's runtime conversion (dcw_rt::to_int): truncation toward zero, saturating, NaN -> 0.
__attribute__((noinline)) uint64_t refF32ToI64(uint32_t a) {
  volatile float f = bitsToFloat(a);
  double x = f;
  if (!(x == x)) return 0;
  if (x <= -9223372036854775808.0) return static_cast<uint64_t>(INT64_MIN);
  if (x >= 9223372036854775807.0) return static_cast<uint64_t>(INT64_MAX);
  return static_cast<uint64_t>(static_cast<int64_t>(x));
}

// The x86 instructions with a fixed operand order (first source = a), for the NaN payload rule.
#if defined(__x86_64__) || defined(__i386__)
#define DCW_HAVE_ASM 1
uint32_t asmOp(int op, uint32_t a, uint32_t b) {
  float x = bitsToFloat(a), y = bitsToFloat(b);
  if (op == 0) asm volatile("addss %1, %0" : "+x"(x) : "x"(y));
  else if (op == 1) asm volatile("subss %1, %0" : "+x"(x) : "x"(y));
  else asm volatile("mulss %1, %0" : "+x"(x) : "x"(y));
  return floatToBits(x);
}
#else
#define DCW_HAVE_ASM 0
#endif

struct Checker {
  std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
  std::unique_ptr<Vfloat_cores_top> top{new Vfloat_cores_top{ctx.get()}};
  uint64_t vectors = 0, checks = 0, mismatches = 0;

  void report(const char* fn, const char* in, uint64_t expected, uint64_t got) {
    ++mismatches;
    if (mismatches <= 12)
      std::printf("MISMATCH %-10s %s expected 0x%08" PRIx64 " got 0x%08" PRIx64 "\n", fn, in, expected, got);
  }

  // A two-operand float result: exact, except that two NaN operands only need a NaN result from the
  // native (possibly swapped) operation, and the exact pattern of the fixed-order instruction.
  void checkArith(const char* fn, int op, uint32_t a, uint32_t b, uint32_t expected, uint32_t got) {
    ++checks;
    char in[64];
    std::snprintf(in, sizeof in, "a=0x%08x b=0x%08x", a, b);
    if (isNan(a) && isNan(b)) {
      if (!isNan(got)) report(fn, in, expected, got);
#if DCW_HAVE_ASM
      else if (got != asmOp(op, a, b)) report(fn, in, asmOp(op, a, b), got);
#endif
      return;
    }
    if (expected != got) report(fn, in, expected, got);
  }

  void checkBool(const char* fn, uint32_t a, uint32_t b, bool expected, bool got) {
    ++checks;
    if (expected != got) {
      char in[64];
      std::snprintf(in, sizeof in, "a=0x%08x b=0x%08x", a, b);
      report(fn, in, expected, got);
    }
  }

  void run(uint32_t a, uint32_t b, uint64_t x) {
    top->a = a;
    top->b = b;
    top->x = x;
    top->eval();
    ++vectors;
    checkArith("fadd32", 0, a, b, refAdd(a, b), top->add_o);
    checkArith("fsub32", 1, a, b, refSub(a, b), top->sub_o);
    checkArith("fmul32", 2, a, b, refMul(a, b), top->mul_o);
    checkBool("flt32", a, b, refLt(a, b), top->lt_o);
    checkBool("fle32", a, b, refLe(a, b), top->le_o);
    checkBool("feq32", a, b, refEq(a, b), top->eq_o);
    checkBool("fgt32", a, b, refGt(a, b), top->gt_o);
    checkBool("fge32", a, b, refGe(a, b), top->ge_o);
    char in[64];
    ++checks;
    if (refI64ToF32(x) != top->i2f_o) {
      std::snprintf(in, sizeof in, "x=0x%016" PRIx64, x);
      report("fi64_to_f32", in, refI64ToF32(x), top->i2f_o);
    }
    ++checks;
    if (refF32ToI64(a) != top->f2i_o) {
      std::snprintf(in, sizeof in, "a=0x%08x", a);
      report("ff32_to_i64", in, refF32ToI64(a), top->f2i_o);
    }
  }
};

// The default NaN of invalid operations, exactly.
void checkInvalid(Checker& c) {
  const uint32_t pinf = 0x7F800000u, ninf = 0xFF800000u;
  struct Case { const char* fn; int op; uint32_t a, b; } cases[] = {
      {"fadd32", 0, pinf, ninf}, {"fadd32", 0, ninf, pinf}, {"fsub32", 1, pinf, pinf}, {"fsub32", 1, ninf, ninf},
      {"fmul32", 2, 0, pinf},    {"fmul32", 2, pinf, 0},    {"fmul32", 2, 0x80000000u, pinf},
      {"fmul32", 2, ninf, 0x80000000u}};
  for (const Case& k : cases) {
    c.top->a = k.a;
    c.top->b = k.b;
    c.top->eval();
    uint32_t got = k.op == 0 ? c.top->add_o : k.op == 1 ? c.top->sub_o : c.top->mul_o;
    uint32_t native = k.op == 0 ? refAdd(k.a, k.b) : k.op == 1 ? refSub(k.a, k.b) : refMul(k.a, k.b);
    char in[64];
    std::snprintf(in, sizeof in, "a=0x%08x b=0x%08x", k.a, k.b);
    ++c.checks;
    if (got != 0xFFC00000u) c.report(k.fn, in, 0xFFC00000u, got);
    ++c.checks;
    if (native != 0xFFC00000u) c.report(k.fn, "(native default NaN is not 0xFFC00000)", 0xFFC00000u, native);
  }
}

std::vector<uint32_t> specialFloats() {
  std::vector<uint32_t> v = {
      0x00000000, 0x00000001, 0x00000002, 0x00000003, 0x007FFFFF, 0x007FFFFE, 0x00400000, 0x00400001,
      0x00800000, 0x00800001, 0x00FFFFFF, 0x01000000, 0x3F800000, 0x3F800001, 0x3F7FFFFF, 0x3FC00000,
      0x3F000000, 0x3EFFFFFF, 0x40000000, 0x3FFFFFFF, 0x4B000000, 0x4B7FFFFF, 0x4B800000, 0x33800000,
      0x33800001, 0x34000000, 0x7F7FFFFF, 0x7F7FFFFE, 0x7F000000, 0x7EFFFFFF, 0x7F800000, 0x7FC00000,
      0x7FC12345, 0x7F800001, 0x7FA00000, 0x7FBFFFFF, 0x7FFFFFFF, 0x5F000000, 0x5EFFFFFF, 0x5F000001,
      0x1F800000, 0x1F7FFFFF, 0x20000000, 0x3F000001, 0x34FFFFFF, 0x0C000000, 0x33FFFFFF, 0x4EFFFFFF,
      0x4F000000, 0x3FFFFFFE, 0x40400000, 0x40490FDB, 0x3DCCCCCD, 0x1F800001, 0x1FC00001, 0x20000001,
      0x1F000001, 0x1E800001, 0x00000401, 0x00400003};
  const size_t n = v.size();
  for (size_t i = 0; i < n; ++i) v.push_back(v[i] ^ 0x80000000u);
  return v;
}

std::vector<uint64_t> edgeInts() {
  std::vector<uint64_t> v = {0, 1, uint64_t(-1), uint64_t(INT64_MIN), uint64_t(INT64_MAX), uint64_t(INT64_MIN) + 1,
                             uint64_t(INT64_MAX) - 1, 2, 3, 255, 256};
  for (int k = 1; k <= 62; ++k) {
    const uint64_t p = uint64_t(1) << k;
    const int s = k > 24 ? k - 24 : 0;  // half an ulp of a float with its leading one at bit k is 1 << s
    const uint64_t list[] = {p, p - 1, p + 1, p + (uint64_t(1) << s), p + (uint64_t(3) << s),
                             p + (uint64_t(1) << s) - 1, p + (uint64_t(1) << s) + 1, p + (uint64_t(3) << s) - 1,
                             p + (uint64_t(3) << s) + 1, (p - 1) & ~((uint64_t(1) << s) - 1), p | (p >> 1) | (p >> 2)};
    for (uint64_t u : list) {
      v.push_back(u);
      v.push_back(uint64_t(0) - u);
    }
  }
  return v;
}

} // namespace

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  Checker c;
  std::mt19937_64 rng(0xDC3F10A7u);
  auto r32 = [&] { return uint32_t(rng()); };
  auto pick = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(rng() % (uint64_t(hi) - lo + 1)); };
  auto make = [](uint32_t sign, uint32_t exp, uint32_t frac) { return (sign << 31) | (exp << 23) | (frac & 0x7FFFFFu); };
  // a fraction: random, or sparse / dense in ones, so that products and sums land exactly on (or one
  // sticky bit beside) rounding ties
  auto frac = [&]() -> uint32_t {
    switch (rng() % 5) {
    case 0: return (1u << pick(0, 22)) | (1u << pick(0, 22)) | (rng() % 2);
    case 1: return ~((1u << pick(0, 22)) | (1u << pick(0, 22)));
    case 2: return r32() & r32() & r32();
    case 3: return (rng() % 2) ? 0u : 0x7FFFFFu;
    default: return r32();
    }
  };
  // random int64 of any magnitude and sign
  auto rint = [&] {
    uint64_t u = rng();
    switch (rng() % 4) {
    case 0: return u;
    case 1: return u >> (rng() % 64);
    case 2: return uint64_t(0) - (u >> (rng() % 64));
    default: return (u >> (rng() % 64)) << (rng() % 40);  // trailing zeros
    }
  };

  checkInvalid(c);

  // special values: all pairs (x walks the edge integers alongside)
  const std::vector<uint32_t> sp = specialFloats();
  const std::vector<uint64_t> ei = edgeInts();
  size_t k = 0;
  for (uint32_t a : sp)
    for (uint32_t b : sp) c.run(a, b, ei[k++ % ei.size()]);
  for (uint64_t x : ei) c.run(sp[k++ % sp.size()], sp[k % sp.size()], x);

  // 2M random bit-pattern pairs (x: random int64)
  for (int i = 0; i < 2000000; ++i) c.run(r32(), r32(), rint());

  // 2M nearby magnitudes: same or adjacent exponents, fractions often close (cancellation)
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t ea = pick(0, 254);
    int eb = int(ea) + int(pick(0, 2)) - 1;
    if (eb < 0) eb = 0;
    if (eb > 254) eb = 254;
    const uint32_t fa = frac();
    uint32_t fb = frac();
    if (rng() & 1) fb = fa ^ (r32() & ((1u << pick(0, 23)) - 1));  // differ in the low bits only
    const uint32_t sa = r32() & 1, sb = (rng() % 4 == 0) ? sa : sa ^ 1;
    c.run(make(sa, ea, fa), make(sb, uint32_t(eb), fb), rint());
  }

  // 1M small and subnormal magnitudes, and products near the underflow threshold
  for (int i = 0; i < 1000000; ++i) {
    uint32_t ea, eb;
    switch (rng() % 4) {
    case 0: ea = pick(0, 2); eb = pick(0, 2); break;
    case 1: ea = pick(0, 2); eb = pick(100, 160); break;  // subnormal x normal: normal or subnormal
    case 2: ea = pick(1, 126); eb = uint32_t(std::max<int>(0, std::min<int>(254, 127 - int(ea) + int(pick(0, 30)) - 27))); break;
    default: ea = pick(0, 30); eb = pick(0, 30); break;
    }
    uint32_t a = make(r32() & 1, ea, frac()), b = make(r32() & 1, eb, frac());
    if (rng() & 1) std::swap(a, b);
    c.run(a, b, rint());
  }

  // 2M int64 -> float and float -> int64: random int64, floats mostly around the int64 range
  for (int i = 0; i < 2000000; ++i) {
    uint32_t a;
    switch (rng() % 4) {
    case 0: a = r32(); break;                                   // anything: huge, NaN, inf
    case 1: a = make(r32() & 1, pick(120, 200), frac()); break; // |a| from below 1 to beyond 2^63
    case 2: a = make(r32() & 1, pick(185, 191), r32()); break;  // around 2^63
    default: a = make(r32() & 1, pick(255, 255), r32()); break; // inf and NaN
    }
    c.run(a, r32(), rint());
  }

  c.top->final();
  std::printf("float cores: %" PRIu64 " checks of 10 functions\n", c.checks);
  std::printf("float cores: %" PRIu64 " vectors, %" PRIu64 " mismatches\n", c.vectors, c.mismatches);
  return c.mismatches == 0 ? 0 : 1;
}
