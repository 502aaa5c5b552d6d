// dcw_hls_sim.h: DCW's stand-in for the Vitis HLS headers ap_int.h, ap_fixed.h and hls_stream.h,
// used when the fpga-sim target runs generated HLS C++ in C-simulation with the system g++.
//
// Why: C-simulation is plain C++ compiled and run on the host, but the HLS dialect needs the vendor's
// arbitrary-precision types and streams, and no vendor toolchain is installed here. This one
// header-only file (C++17 standard library and pthreads only) supplies them. Synthesis never sees it:
// the kernels are synthesised against the real Xilinx headers.
//
// Supported:
//   ap_int<W>, ap_uint<W>        1 <= W <= 64, two's-complement wrap-around to W bits.
//   ap_fixed<W,I>, ap_ufixed<W,I> W <= 64, 0 <= I <= W; only the Vitis defaults AP_TRN (truncation
//                                toward minus infinity) and AP_WRAP; other modes are a static_assert.
//   hls::stream<T>               a bounded FIFO (default depth 2, like Vitis' default channel depth)
//                                with blocking read/write and per-stream statistics.
//   dcw_hls::Dataflow            runs a dataflow region's processing elements (PEs) as threads.
//
// Where this differs from Vitis, on purpose:
//   - An ap_int operation yields the wider operand's type (a C++ integer operand counts as an ap_int of
//     its own width; mixed signedness takes one more bit, at most 64) and wraps there. Vitis widens
//     instead (ap_int<4> + ap_int<4> is ap_int<5>). Assigned to a variable of the operands' width the
//     two agree bit for bit; only an unassigned intermediate can differ.
//   - ap_fixed operations take operands of one type; convert a differently typed operand explicitly.
//   - Vitis' C-simulation streams are unbounded. Here a stream holds at most its depth, so C-simulation
//     shows the deadlocks a too-shallow channel causes in hardware. Sequential code (a testbench
//     outside any dataflow region) can never be unblocked by anyone, so reading an empty stream or
//     writing a full one there throws dcw_hls::Deadlock at once: give a testbench's streams the depth
//     of what it writes before reading.
//
// Deadlocks: every stream operation of a PE that would block is checked against a process-wide
// registry (dcw_hls::Registry). When every running PE is blocked on a stream that cannot serve it,
// the run is deadlocked and every blocked operation throws dcw_hls::Deadlock naming each PE, its stream,
// direction, depth and occupancy. As a backstop for waits the registry cannot see (a PE stuck outside
// any stream, or on a thread the registry does not know), a blocked operation also fails once no stream
// anywhere has moved for the stall timeout (dcw_hls::set_stall_timeout_ms, default 2000 ms; 0 turns it
// off): raise it for PEs that compute that long between stream operations. Once a run is aborted, every
// stream operation of its PEs throws, so PEs that poll with read_nb or empty() stop too.
//
// Compile with -std=c++17 -pthread and -Wno-unknown-pragmas: g++ ignores `#pragma HLS`, and without
// that flag -Wall warns about each one.
//
// The standard headers come first, outside the guard (they have their own): a program that opens with
// them gets them from the compiler's precompiled prelude (codegen/cpu/Compiler.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>
#ifndef DCW_HLS_SIM_H
#define DCW_HLS_SIM_H
// Generated code tests this to run dataflow regions as threads (synthesis runs them as hardware).
#define DCW_HLS_SIM 1

// Vitis' quantization and overflow modes, named so that generated code spelling them out compiles;
// ApFixed accepts only AP_TRN and AP_WRAP.
enum ap_q_mode { AP_RND, AP_RND_ZERO, AP_RND_MIN_INF, AP_RND_INF, AP_RND_CONV, AP_TRN, AP_TRN_ZERO };
enum ap_o_mode { AP_SAT, AP_SAT_ZERO, AP_SAT_SYM, AP_WRAP, AP_WRAP_SM };

namespace dcw_hls {

template <int W, bool Signed>
class ApInt;

namespace detail {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr std::uint64_t lowMask(int width) {
  return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}

// An integer-valued double reduced modulo 2^64, which is what wrap-around makes of an out-of-range
// value (not-a-number and infinities become 0).
inline std::uint64_t wrapToUint64(double integral) {
  if (!std::isfinite(integral))
    return 0;
  const double reduced = std::fmod(integral, 18446744073709551616.0);
  return reduced >= 0 ? static_cast<std::uint64_t>(reduced) : 0 - static_cast<std::uint64_t>(-reduced);
}

template <class T>
struct IsApInt : std::false_type {};
template <int W, bool S>
struct IsApInt<ApInt<W, S>> : std::true_type {};

template <class T>
constexpr bool kIsIntegerLike = std::is_integral_v<T> || IsApInt<T>::value;

// The ap_int type a C++ integer type acts as in mixed operations.
template <class T, class = void>
struct AsApInt;
template <class T>
struct AsApInt<T, std::enable_if_t<std::is_integral_v<T>>> {
  using type = ApInt<std::numeric_limits<T>::digits + std::is_signed_v<T>, std::is_signed_v<T>>;
};
template <int W, bool S>
struct AsApInt<ApInt<W, S>> {
  using type = ApInt<W, S>;
};

// The result type of a binary ap_int operation: wide enough for both operands' ranges, at most 64 bits.
template <class A, class B>
struct CommonApIntOf;
template <int W1, bool S1, int W2, bool S2>
struct CommonApIntOf<ApInt<W1, S1>, ApInt<W2, S2>> {
  static constexpr bool kSigned = S1 || S2;
  static constexpr int kWidth = std::min(64, std::max(W1 + (kSigned && !S1), W2 + (kSigned && !S2)));
  using type = ApInt<kWidth, kSigned>;
};
template <class A, class B>
using CommonApInt = typename CommonApIntOf<typename AsApInt<A>::type, typename AsApInt<B>::type>::type;

// Binary ap_int operators take two integer-like operands of which at least one is an ap_int.
template <class A, class B>
using EnableIfApIntOperands =
    std::enable_if_t<(IsApInt<A>::value || IsApInt<B>::value) && kIsIntegerLike<A> && kIsIntegerLike<B>, int>;

template <int W, bool S>
constexpr typename ApInt<W, S>::native_type nativeValue(const ApInt<W, S>& value) {
  return value;
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
constexpr T nativeValue(T value) {
  return value;
}

template <class T>
constexpr std::uint64_t bitsOf(const T& value) {
  return static_cast<std::uint64_t>(nativeValue(value));
}

// -1, 0 or 1 as a is less than, equal to or greater than b, by value whatever their signedness.
template <class A, class B>
constexpr int compareIntegers(A a, B b) {
  if constexpr (std::is_signed_v<A> && !std::is_signed_v<B>) {
    return a < 0 ? -1 : compareIntegers(static_cast<unsigned long long>(a), b);
  } else if constexpr (!std::is_signed_v<A> && std::is_signed_v<B>) {
    return b < 0 ? 1 : compareIntegers(a, static_cast<unsigned long long>(b));
  } else {
    return a < b ? -1 : (b < a ? 1 : 0);
  }
}

// A shift amount clamped to [-64, 64], beyond which every shift gives the same result.
template <class N>
constexpr int shiftAmount(const N& amount) {
  const auto value = nativeValue(amount);
  if (compareIntegers(value, 64) >= 0)
    return 64;
  if (compareIntegers(value, -64) <= 0)
    return -64;
  return static_cast<int>(value);
}

// Shifts by an amount in [-64, 64]; a negative amount shifts the other way, as in Vitis.
template <int W, bool S>
constexpr ApInt<W, S> shiftRight(const ApInt<W, S>& value, int amount);

template <int W, bool S>
constexpr ApInt<W, S> shiftLeft(const ApInt<W, S>& value, int amount) {
  if (amount < 0)
    return shiftRight(value, -amount);
  return ApInt<W, S>(amount >= 64 ? 0 : bitsOf(value) << amount);
}

template <int W, bool S>
constexpr ApInt<W, S> shiftRight(const ApInt<W, S>& value, int amount) {
  if (amount < 0)
    return shiftLeft(value, -amount);
  const auto native = nativeValue(value);
  if (amount < 64)
    return ApInt<W, S>(native >> amount);
  if constexpr (S)
    return ApInt<W, S>(native < 0 ? -1 : 0);
  return ApInt<W, S>(0);
}

template <int W, bool S>
ApInt<W, S> divide(const ApInt<W, S>& a, const ApInt<W, S>& b) {
  const auto x = nativeValue(a);
  const auto y = nativeValue(b);
  if (y == 0)
    throw std::domain_error("dcw_hls: ap_int division by zero");
  if constexpr (S) {
    if (y == -1) // the most negative value divided by -1 overflows the native type
      return ApInt<W, S>(0 - bitsOf(a));
  }
  return ApInt<W, S>(x / y);
}

template <int W, bool S>
ApInt<W, S> remainder(const ApInt<W, S>& a, const ApInt<W, S>& b) {
  const auto x = nativeValue(a);
  const auto y = nativeValue(b);
  if (y == 0)
    throw std::domain_error("dcw_hls: ap_int remainder by zero");
  if constexpr (S) {
    if (y == -1)
      return ApInt<W, S>(0);
  }
  return ApInt<W, S>(x % y);
}

} // namespace detail

// A W-bit integer, two's complement when Signed, that wraps around to W bits on every assignment and
// operation. ap_int<W> and ap_uint<W> name it.
template <int W, bool Signed>
class ApInt {
  static_assert(W >= 1, "dcw_hls_sim.h: ap_int/ap_uint need a width of at least 1 bit");
  static_assert(W <= 64, "dcw_hls_sim.h: ap_int/ap_uint wider than 64 bits are not supported by DCW's "
                         "C-simulation headers");

public:
  using native_type = std::conditional_t<Signed, long long, unsigned long long>;

  constexpr ApInt() = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr ApInt(T value) : bits_(static_cast<std::uint64_t>(value) & kMask) {}
  // Truncates toward zero, like a C++ conversion, then wraps.
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  ApInt(T value) : bits_(detail::wrapToUint64(std::trunc(static_cast<double>(value))) & kMask) {}
  template <int W2, bool S2>
  constexpr ApInt(const ApInt<W2, S2>& other) : bits_(detail::bitsOf(other) & kMask) {}

  constexpr operator native_type() const {
    if constexpr (Signed)
      return static_cast<long long>((bits_ & kSignBit) ? bits_ | ~kMask : bits_);
    else
      return bits_;
  }

  template <class T>
  ApInt& operator+=(const T& x) { return *this = ApInt(*this + x); }
  template <class T>
  ApInt& operator-=(const T& x) { return *this = ApInt(*this - x); }
  template <class T>
  ApInt& operator*=(const T& x) { return *this = ApInt(*this * x); }
  template <class T>
  ApInt& operator/=(const T& x) { return *this = ApInt(*this / x); }
  template <class T>
  ApInt& operator%=(const T& x) { return *this = ApInt(*this % x); }
  template <class T>
  ApInt& operator&=(const T& x) { return *this = ApInt(*this & x); }
  template <class T>
  ApInt& operator|=(const T& x) { return *this = ApInt(*this | x); }
  template <class T>
  ApInt& operator^=(const T& x) { return *this = ApInt(*this ^ x); }
  template <class T>
  ApInt& operator<<=(const T& x) { return *this = *this << x; }
  template <class T>
  ApInt& operator>>=(const T& x) { return *this = *this >> x; }

  ApInt& operator++() { return *this = ApInt(bits_ + 1); }
  ApInt& operator--() { return *this = ApInt(bits_ - 1); }
  ApInt operator++(int) {
    const ApInt old = *this;
    ++*this;
    return old;
  }
  ApInt operator--(int) {
    const ApInt old = *this;
    --*this;
    return old;
  }

  bool operator[](int index) const {
    if (index < 0 || index >= W)
      throw std::out_of_range("dcw_hls: bit " + std::to_string(index) + " of a " + std::to_string(W) +
                              "-bit ap_int");
    return (bits_ >> index) & 1u;
  }

  // Bits hi down to lo (hi >= lo), as an unsigned value.
  ApInt<W, false> range(int hi, int lo) const {
    if (lo < 0 || hi >= W || lo > hi)
      throw std::out_of_range("dcw_hls: range(" + std::to_string(hi) + ", " + std::to_string(lo) + ") of a " +
                              std::to_string(W) + "-bit ap_int (needs " + std::to_string(W - 1) +
                              " >= hi >= lo >= 0)");
    return ApInt<W, false>((bits_ >> lo) & detail::lowMask(hi - lo + 1));
  }

  int to_int() const { return static_cast<int>(native_type(*this)); }
  unsigned to_uint() const { return static_cast<unsigned>(native_type(*this)); }
  long long to_int64() const { return static_cast<long long>(native_type(*this)); }
  unsigned long long to_uint64() const { return static_cast<unsigned long long>(native_type(*this)); }
  constexpr int length() const { return W; }

private:
  static constexpr std::uint64_t kMask = detail::lowMask(W);
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << (W - 1);

  std::uint64_t bits_ = 0; // always within kMask
};

template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator+(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) + detail::bitsOf(R(b)));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator-(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) - detail::bitsOf(R(b)));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator*(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) * detail::bitsOf(R(b)));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
detail::CommonApInt<A, B> operator/(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return detail::divide(R(a), R(b));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
detail::CommonApInt<A, B> operator%(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return detail::remainder(R(a), R(b));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator&(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) & detail::bitsOf(R(b)));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator|(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) | detail::bitsOf(R(b)));
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr detail::CommonApInt<A, B> operator^(const A& a, const B& b) {
  using R = detail::CommonApInt<A, B>;
  return R(detail::bitsOf(R(a)) ^ detail::bitsOf(R(b)));
}

template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator==(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) == 0;
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator!=(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) != 0;
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator<(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) < 0;
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator<=(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) <= 0;
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator>(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) > 0;
}
template <class A, class B, detail::EnableIfApIntOperands<A, B> = 0>
constexpr bool operator>=(const A& a, const B& b) {
  return detail::compareIntegers(detail::nativeValue(a), detail::nativeValue(b)) >= 0;
}

// Shifts keep the shifted operand's type, as in Vitis.
template <int W, bool S, class N, std::enable_if_t<detail::kIsIntegerLike<N>, int> = 0>
constexpr ApInt<W, S> operator<<(const ApInt<W, S>& value, const N& amount) {
  return detail::shiftLeft(value, detail::shiftAmount(amount));
}
template <int W, bool S, class N, std::enable_if_t<detail::kIsIntegerLike<N>, int> = 0>
constexpr ApInt<W, S> operator>>(const ApInt<W, S>& value, const N& amount) {
  return detail::shiftRight(value, detail::shiftAmount(amount));
}

template <int W, bool S>
constexpr ApInt<W, S> operator+(const ApInt<W, S>& value) {
  return value;
}
template <int W, bool S>
constexpr ApInt<W, S> operator-(const ApInt<W, S>& value) {
  return ApInt<W, S>(0 - detail::bitsOf(value));
}
template <int W, bool S>
constexpr ApInt<W, S> operator~(const ApInt<W, S>& value) {
  return ApInt<W, S>(~detail::bitsOf(value));
}

template <int W, bool S>
std::ostream& operator<<(std::ostream& out, const ApInt<W, S>& value) {
  return out << detail::nativeValue(value);
}

// A W-bit fixed-point number with I integer bits (sign included when Signed) and W - I fraction bits.
// Conversions truncate toward minus infinity (AP_TRN) and wrap around on overflow (AP_WRAP).
// ap_fixed<W, I> and ap_ufixed<W, I> name it.
template <int W, int I, bool Signed, ap_q_mode Q, ap_o_mode O, int N>
class ApFixed {
  static_assert(W >= 1 && W <= 64, "dcw_hls_sim.h: ap_fixed/ap_ufixed widths of 1 to 64 bits are supported");
  static_assert(I >= 0 && I <= W, "dcw_hls_sim.h: ap_fixed/ap_ufixed need 0 <= integer bits <= width");
  static_assert(Q == AP_TRN, "dcw_hls_sim.h: only the quantization mode AP_TRN is supported");
  static_assert(O == AP_WRAP && N == 0, "dcw_hls_sim.h: only the overflow mode AP_WRAP is supported");

  template <int, int, bool, ap_q_mode, ap_o_mode, int>
  friend class ApFixed;

  using Raw = ApInt<W, Signed>;
  using Native = typename Raw::native_type;
  static constexpr int kFractionBits = W - I;

public:
  constexpr ApFixed() = default;
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  constexpr ApFixed(T value) : raw_(rescaled(value, 0)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  ApFixed(T value)
      : raw_(detail::wrapToUint64(std::floor(std::ldexp(static_cast<double>(value), kFractionBits)))) {}
  template <int W2, bool S2>
  constexpr ApFixed(const ApInt<W2, S2>& value) : raw_(rescaled(detail::nativeValue(value), 0)) {}
  template <int W2, int I2, bool S2, ap_q_mode Q2, ap_o_mode O2, int N2>
  constexpr ApFixed(const ApFixed<W2, I2, S2, Q2, O2, N2>& other)
      : raw_(rescaled(other.native(), W2 - I2)) {}

  double to_double() const { return std::ldexp(static_cast<double>(native()), -kFractionBits); }
  float to_float() const { return static_cast<float>(to_double()); }
  explicit operator double() const { return to_double(); }
  explicit operator float() const { return to_float(); }

  friend constexpr ApFixed operator+(const ApFixed& a, const ApFixed& b) { return fromRaw(a.raw_ + b.raw_); }
  friend constexpr ApFixed operator-(const ApFixed& a, const ApFixed& b) { return fromRaw(a.raw_ - b.raw_); }
  friend constexpr ApFixed operator-(const ApFixed& a) { return fromRaw(-a.raw_); }

  friend ApFixed operator*(const ApFixed& a, const ApFixed& b) {
    using Wide = std::conditional_t<Signed, detail::Int128, detail::UInt128>;
    const Wide product = static_cast<Wide>(a.native()) * static_cast<Wide>(b.native());
    return fromRaw(Raw(static_cast<std::uint64_t>(product >> kFractionBits)));
  }

  friend ApFixed operator/(const ApFixed& a, const ApFixed& b) {
    if (b.raw_ == 0)
      throw std::domain_error("dcw_hls: ap_fixed division by zero");
    const bool negative = (a.raw_ < 0) != (b.raw_ < 0);
    const detail::UInt128 dividend = static_cast<detail::UInt128>(magnitude(a.native())) << kFractionBits;
    const detail::UInt128 divisor = magnitude(b.native());
    detail::UInt128 quotient = dividend / divisor;
    if (negative && quotient * divisor != dividend)
      ++quotient; // the magnitude of a negative quotient rounds up so that the value rounds down
    return fromRaw(Raw(static_cast<std::uint64_t>(negative ? 0 - quotient : quotient)));
  }

  friend constexpr bool operator==(const ApFixed& a, const ApFixed& b) { return a.raw_ == b.raw_; }
  friend constexpr bool operator!=(const ApFixed& a, const ApFixed& b) { return a.raw_ != b.raw_; }
  friend constexpr bool operator<(const ApFixed& a, const ApFixed& b) { return a.raw_ < b.raw_; }
  friend constexpr bool operator<=(const ApFixed& a, const ApFixed& b) { return a.raw_ <= b.raw_; }
  friend constexpr bool operator>(const ApFixed& a, const ApFixed& b) { return a.raw_ > b.raw_; }
  friend constexpr bool operator>=(const ApFixed& a, const ApFixed& b) { return a.raw_ >= b.raw_; }

  ApFixed& operator+=(const ApFixed& x) { return *this = *this + x; }
  ApFixed& operator-=(const ApFixed& x) { return *this = *this - x; }
  ApFixed& operator*=(const ApFixed& x) { return *this = *this * x; }
  ApFixed& operator/=(const ApFixed& x) { return *this = *this / x; }

  friend std::ostream& operator<<(std::ostream& out, const ApFixed& value) { return out << value.to_double(); }

private:
  static constexpr ApFixed fromRaw(const Raw& raw) {
    ApFixed result;
    result.raw_ = raw;
    return result;
  }

  // An integer holding a value with fromFractionBits fraction bits, as this type's raw bits.
  template <class V>
  static constexpr Raw rescaled(V value, int fromFractionBits) {
    const ApInt<64, std::is_signed_v<V>> wide(value);
    const int shift = kFractionBits - fromFractionBits;
    return Raw(shift >= 0 ? detail::shiftLeft(wide, shift) : detail::shiftRight(wide, -shift));
  }

  static constexpr std::uint64_t magnitude(long long value) {
    return value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  }
  static constexpr std::uint64_t magnitude(unsigned long long value) { return value; }

  constexpr Native native() const { return detail::nativeValue(raw_); }

  Raw raw_; // the value times 2^kFractionBits
};

} // namespace dcw_hls

template <int W>
using ap_int = dcw_hls::ApInt<W, true>;
template <int W>
using ap_uint = dcw_hls::ApInt<W, false>;
template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0>
using ap_fixed = dcw_hls::ApFixed<W, I, true, Q, O, N>;
template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0>
using ap_ufixed = dcw_hls::ApFixed<W, I, false, Q, O, N>;

namespace dcw_hls {

// Thrown by a stream operation that can never complete: a deadlocked dataflow run, a run aborted
// because one of its PEs failed, or a blocking operation outside any dataflow region.
class Deadlock : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One stream's counters, for the profiler.
struct StreamStats {
  std::string name;
  int depth;
  std::uint64_t writes;
  std::uint64_t reads;
  std::size_t maxOccupancy;
  std::uint64_t fullStalls;  // writes that had to wait for room
  std::uint64_t emptyStalls; // reads that had to wait for data
};

// How long a blocked stream operation may wait while no stream anywhere moves before it fails;
// 0 or less: never (only a true deadlock fails then).
inline void set_stall_timeout_ms(int ms);

class Dataflow;
class Registry;

namespace detail {

// The part of hls::stream that does not depend on the element type: name, depth, occupancy,
// statistics, and waiting. Everything in it is guarded by the registry's mutex.
class StreamCore {
public:
  enum class Direction { Read, Write };

  StreamCore(const StreamCore&) = delete;
  StreamCore& operator=(const StreamCore&) = delete;

protected:
  StreamCore(const char* name, int depth);
  ~StreamCore();

  std::unique_lock<std::mutex> lock() const;
  void setDepth(int depth);
  // Returns once the operation can proceed; throws Deadlock when it never can.
  void awaitReady(std::unique_lock<std::mutex>& lock, Direction direction);
  void throwIfAborted() const;
  void recordWrite();
  void recordRead();
  bool isEmpty() const { return count_ == 0; }
  bool isFull() const { return count_ >= depth_; }
  std::size_t count() const { return count_; }

private:
  friend class dcw_hls::Registry;

  bool wouldBlock(Direction direction) const { return direction == Direction::Read ? isEmpty() : isFull(); }
  std::string describeBlocked(Direction direction) const;
  static std::size_t checkedDepth(int depth);

  std::string name_;
  std::size_t depth_;
  std::size_t count_ = 0;
  std::uint64_t writes_ = 0;
  std::uint64_t reads_ = 0;
  std::size_t maxOccupancy_ = 0;
  std::uint64_t fullStalls_ = 0;
  std::uint64_t emptyStalls_ = 0;
  std::condition_variable dataAvailable_;
  std::condition_variable roomAvailable_;
};

// One Dataflow::run in progress.
struct RunState {
  std::size_t livePes = 0;
  bool aborted = false;
  std::string abortMessage;
  std::exception_ptr firstError;
};

// One running processing element.
struct PeState {
  std::string name;
  RunState* run = nullptr;
  RunState* nestedRun = nullptr; // a dataflow run this PE is waiting for
  const StreamCore* blockedOn = nullptr;
  StreamCore::Direction blockedDirection = StreamCore::Direction::Read;
};

// The PE the calling thread runs, or null outside every dataflow region.
inline PeState*& currentPe() {
  thread_local PeState* pe = nullptr;
  return pe;
}

} // namespace detail

// The process-wide registry of live streams and running PEs, which detects deadlocks and serves the
// streams' statistics. One mutex guards it and every stream's state, so that a deadlock is judged on
// one consistent picture.
class Registry {
public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Every live stream's statistics, in creation order.
  std::vector<StreamStats> snapshot() const;
  // Since the last resetTotals(): every stream's statistics, live and ended (a kernel's streams end with
  // each launch), summed by name (the largest occupancy and depth), in order of first appearance.
  std::vector<StreamStats> totals() const;
  void resetTotals();

private:
  friend class detail::StreamCore;
  friend class Dataflow;
  friend void set_stall_timeout_ms(int ms);
  using Clock = std::chrono::steady_clock;

  Registry() = default;

  // Callers hold mutex_.
  void failIfAllStuck();
  void abortAll(const std::string& message);
  void abortRun(detail::RunState& run, const std::string& message);
  void throwIfAborted(const detail::PeState& pe) const;
  std::optional<Clock::time_point> stallDeadline(Clock::time_point blockedSince) const;
  std::string describePes() const;
  void notifyAllStreams();
  void removePe(const detail::PeState* pe);

  mutable std::mutex mutex_;
  std::vector<detail::StreamCore*> streams_;
  std::vector<StreamStats> retired_; // ended streams since resetTotals, summed by name
  std::vector<detail::PeState*> pes_;
  std::vector<detail::RunState*> runs_;
  std::uint64_t unnamedStreams_ = 0;
  int stallTimeoutMs_ = 2000;
  Clock::time_point lastProgress_{};
};

namespace detail {
inline void addStats(std::vector<StreamStats>& into, const StreamStats& s) {
  for (StreamStats& t : into)
    if (t.name == s.name) {
      t.depth = std::max(t.depth, s.depth);
      t.writes += s.writes;
      t.reads += s.reads;
      t.maxOccupancy = std::max(t.maxOccupancy, s.maxOccupancy);
      t.fullStalls += s.fullStalls;
      t.emptyStalls += s.emptyStalls;
      return;
    }
  into.push_back(s);
}
} // namespace detail

inline std::vector<StreamStats> Registry::totals() const {
  std::vector<StreamStats> all;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    all = retired_;
  }
  for (const StreamStats& s : snapshot()) detail::addStats(all, s);
  return all;
}

inline void Registry::resetTotals() {
  std::lock_guard<std::mutex> guard(mutex_);
  retired_.clear();
}

inline std::vector<StreamStats> Registry::snapshot() const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<StreamStats> stats;
  stats.reserve(streams_.size());
  for (const detail::StreamCore* stream : streams_)
    stats.push_back({stream->name_, static_cast<int>(stream->depth_), stream->writes_, stream->reads_,
                     stream->maxOccupancy_, stream->fullStalls_, stream->emptyStalls_});
  return stats;
}

// A run is deadlocked when no PE can move: each is blocked on a stream that cannot serve it, or waits
// for a nested run that still has PEs. Only PEs change streams, so that state can never end.
inline void Registry::failIfAllStuck() {
  if (pes_.empty())
    return;
  for (const detail::PeState* pe : pes_) {
    const bool stuck = pe->nestedRun ? pe->nestedRun->livePes > 0
                                     : pe->blockedOn && pe->blockedOn->wouldBlock(pe->blockedDirection);
    if (!stuck)
      return;
  }
  abortAll("deadlock: " + describePes());
}

inline void Registry::abortAll(const std::string& message) {
  bool changed = false;
  for (detail::RunState* run : runs_) {
    if (!run->aborted) {
      run->aborted = true;
      run->abortMessage = message;
      changed = true;
    }
  }
  if (changed)
    notifyAllStreams();
}

inline void Registry::abortRun(detail::RunState& run, const std::string& message) {
  if (run.aborted)
    return;
  run.aborted = true;
  run.abortMessage = message;
  notifyAllStreams();
}

inline void Registry::throwIfAborted(const detail::PeState& pe) const {
  if (pe.run->aborted)
    throw Deadlock(pe.run->abortMessage);
}

// Stream progress anywhere resets the clock, so a PE waiting for the end of a long pipeline is not
// mistaken for a stalled one.
inline std::optional<Registry::Clock::time_point> Registry::stallDeadline(Clock::time_point blockedSince) const {
  if (stallTimeoutMs_ <= 0)
    return std::nullopt;
  return std::max(blockedSince, lastProgress_) + std::chrono::milliseconds(stallTimeoutMs_);
}

inline std::string Registry::describePes() const {
  std::string text;
  for (const detail::PeState* pe : pes_) {
    if (!text.empty())
      text += "; ";
    text += "PE '" + pe->name + "' ";
    if (pe->nestedRun)
      text += "waiting for its nested dataflow";
    else if (pe->blockedOn)
      text += pe->blockedOn->describeBlocked(pe->blockedDirection);
    else
      text += "not blocked on a stream";
  }
  return text;
}

inline void Registry::notifyAllStreams() {
  for (detail::StreamCore* stream : streams_) {
    stream->dataAvailable_.notify_all();
    stream->roomAvailable_.notify_all();
  }
}

inline void Registry::removePe(const detail::PeState* pe) {
  pes_.erase(std::find(pes_.begin(), pes_.end(), pe));
}

inline void set_stall_timeout_ms(int ms) {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> guard(registry.mutex_);
  registry.stallTimeoutMs_ = ms;
  registry.notifyAllStreams(); // waiting operations take the new deadline
}

namespace detail {

inline StreamCore::StreamCore(const char* name, int depth) : depth_(checkedDepth(depth)) {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> guard(registry.mutex_);
  name_ = name ? name : "stream_" + std::to_string(registry.unnamedStreams_++);
  registry.streams_.push_back(this);
}

inline StreamCore::~StreamCore() {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> guard(registry.mutex_);
  registry.streams_.erase(std::find(registry.streams_.begin(), registry.streams_.end(), this));
  addStats(registry.retired_, {name_, static_cast<int>(depth_), writes_, reads_, maxOccupancy_, fullStalls_, emptyStalls_});
}

inline std::unique_lock<std::mutex> StreamCore::lock() const {
  return std::unique_lock<std::mutex>(Registry::instance().mutex_);
}

inline std::size_t StreamCore::checkedDepth(int depth) {
  if (depth < 1)
    throw std::invalid_argument("dcw_hls: hls::stream depth must be at least 1, not " + std::to_string(depth));
  return static_cast<std::size_t>(depth);
}

inline void StreamCore::setDepth(int depth) {
  const std::size_t checked = checkedDepth(depth);
  std::lock_guard<std::mutex> guard(Registry::instance().mutex_);
  depth_ = checked;
  roomAvailable_.notify_all();
}

inline void StreamCore::awaitReady(std::unique_lock<std::mutex>& lock, Direction direction) {
  Registry& registry = Registry::instance();
  PeState* const pe = currentPe();
  if (pe)
    registry.throwIfAborted(*pe);
  if (!wouldBlock(direction))
    return;
  if (!pe)
    throw Deadlock(direction == Direction::Read
                       ? "read from empty stream '" + name_ + "' outside a dataflow region"
                       : "write to full stream '" + name_ + "' outside a dataflow region (depth " +
                             std::to_string(depth_) + ")");

  ++(direction == Direction::Read ? emptyStalls_ : fullStalls_);
  std::condition_variable& ready = direction == Direction::Read ? dataAvailable_ : roomAvailable_;
  const Registry::Clock::time_point blockedSince = Registry::Clock::now();
  pe->blockedOn = this;
  pe->blockedDirection = direction;
  struct Unblock {
    PeState* pe;
    ~Unblock() { pe->blockedOn = nullptr; }
  } unblock{pe};

  while (wouldBlock(direction)) {
    registry.failIfAllStuck();
    const std::optional<Registry::Clock::time_point> deadline = registry.stallDeadline(blockedSince);
    if (deadline && Registry::Clock::now() >= *deadline)
      registry.abortAll("deadlock (no stream progress for " + std::to_string(registry.stallTimeoutMs_) +
                        " ms): " + registry.describePes());
    registry.throwIfAborted(*pe);
    if (deadline)
      ready.wait_until(lock, *deadline);
    else
      ready.wait(lock);
  }
}

inline void StreamCore::throwIfAborted() const {
  if (const PeState* pe = currentPe())
    Registry::instance().throwIfAborted(*pe);
}

inline void StreamCore::recordWrite() {
  ++count_;
  ++writes_;
  maxOccupancy_ = std::max(maxOccupancy_, count_);
  Registry::instance().lastProgress_ = Registry::Clock::now();
  dataAvailable_.notify_all();
}

inline void StreamCore::recordRead() {
  --count_;
  ++reads_;
  Registry::instance().lastProgress_ = Registry::Clock::now();
  roomAvailable_.notify_all();
}

inline std::string StreamCore::describeBlocked(Direction direction) const {
  const bool reading = direction == Direction::Read;
  return std::string(reading ? "blocked reading" : "blocked writing") + " stream '" + name_ + "' (" +
         (reading ? "empty" : "full") + ", depth " + std::to_string(depth_) + ", " + std::to_string(count_) +
         "/" + std::to_string(depth_) + ")";
}

} // namespace detail

// A dataflow region: each added processing element runs on its own thread. run() returns when all
// have finished; if any failed, it rethrows the first failure once all have stopped. A failing PE
// aborts the run, so PEs blocked on its streams fail with a Deadlock naming it instead of hanging.
// A PE may run a nested Dataflow.
class Dataflow {
public:
  void add(std::string name, std::function<void()> body);
  void run();

private:
  struct Process {
    std::string name;
    std::function<void()> body;
  };

  static void runProcess(detail::PeState& pe, const std::function<void()>& body);
  static void recordFailure(detail::PeState& pe, std::exception_ptr error, const std::string& what);

  std::vector<Process> processes_;
};

inline void Dataflow::add(std::string name, std::function<void()> body) {
  processes_.push_back({std::move(name), std::move(body)});
}

inline void Dataflow::run() {
  Registry& registry = Registry::instance();
  detail::RunState state;
  std::deque<detail::PeState> pes; // stable addresses for the registry
  detail::PeState* const parent = detail::currentPe();
  {
    // Every PE counts as running before any starts, so that the first to block is not judged alone.
    std::lock_guard<std::mutex> guard(registry.mutex_);
    for (const Process& process : processes_) {
      pes.push_back({process.name, &state});
      registry.pes_.push_back(&pes.back());
    }
    state.livePes = pes.size();
    registry.runs_.push_back(&state);
    if (parent)
      parent->nestedRun = &state;
  }

  std::vector<std::thread> threads;
  threads.reserve(pes.size());
  try {
    for (std::size_t i = 0; i < pes.size(); ++i)
      threads.emplace_back(&Dataflow::runProcess, std::ref(pes[i]), std::cref(processes_[i].body));
  } catch (...) {
    std::lock_guard<std::mutex> guard(registry.mutex_);
    const std::string unstarted = pes[threads.size()].name;
    for (std::size_t i = threads.size(); i < pes.size(); ++i) {
      registry.removePe(&pes[i]);
      --state.livePes;
    }
    if (!state.firstError)
      state.firstError = std::current_exception();
    registry.abortRun(state, "dataflow aborted: could not start PE '" + unstarted + "'");
  }
  for (std::thread& thread : threads)
    thread.join();

  {
    std::lock_guard<std::mutex> guard(registry.mutex_);
    registry.runs_.erase(std::find(registry.runs_.begin(), registry.runs_.end(), &state));
    if (parent)
      parent->nestedRun = nullptr;
  }
  if (state.firstError)
    std::rethrow_exception(state.firstError);
}

inline void Dataflow::runProcess(detail::PeState& pe, const std::function<void()>& body) {
  detail::currentPe() = &pe;
  try {
    body();
  } catch (const std::exception& error) {
    recordFailure(pe, std::current_exception(), error.what());
  } catch (...) {
    recordFailure(pe, std::current_exception(), "an exception not derived from std::exception");
  }
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> guard(registry.mutex_);
  registry.removePe(&pe);
  --pe.run->livePes;
  registry.failIfAllStuck(); // the PEs left may all be waiting for this one
}

inline void Dataflow::recordFailure(detail::PeState& pe, std::exception_ptr error, const std::string& what) {
  Registry& registry = Registry::instance();
  std::lock_guard<std::mutex> guard(registry.mutex_);
  if (!pe.run->firstError)
    pe.run->firstError = std::move(error);
  registry.abortRun(*pe.run, "dataflow aborted: PE '" + pe.name + "' failed first: " + what);
}

} // namespace dcw_hls

namespace hls {

// A bounded FIFO between processing elements (see the top of this file for what blocks and what
// throws). Statistics go to dcw_hls::Registry::instance().snapshot().
template <class T>
class stream : private dcw_hls::detail::StreamCore {
public:
  stream() : StreamCore(nullptr, kDefaultDepth) {}
  explicit stream(const char* name) : StreamCore(name, kDefaultDepth) {}
  stream(const char* name, int depth) : StreamCore(name, depth) {}

  void set_depth(int depth) { setDepth(depth); }

  void write(const T& value) {
    std::unique_lock<std::mutex> guard = lock();
    awaitReady(guard, Direction::Write);
    items_.push_back(value);
    recordWrite();
  }

  T read() {
    std::unique_lock<std::mutex> guard = lock();
    awaitReady(guard, Direction::Read);
    return take();
  }

  void read(T& value) { value = read(); }

  bool read_nb(T& value) {
    std::unique_lock<std::mutex> guard = lock();
    throwIfAborted();
    if (isEmpty())
      return false;
    value = take();
    return true;
  }

  bool write_nb(const T& value) {
    std::unique_lock<std::mutex> guard = lock();
    throwIfAborted();
    if (isFull())
      return false;
    items_.push_back(value);
    recordWrite();
    return true;
  }

  bool empty() const {
    std::unique_lock<std::mutex> guard = lock();
    throwIfAborted();
    return isEmpty();
  }

  bool full() const {
    std::unique_lock<std::mutex> guard = lock();
    throwIfAborted();
    return isFull();
  }

  std::size_t size() const {
    std::unique_lock<std::mutex> guard = lock();
    throwIfAborted();
    return count();
  }

  void operator<<(const T& value) { write(value); }
  void operator>>(T& value) { read(value); }

private:
  static constexpr int kDefaultDepth = 2;

  T take() {
    T value = std::move(items_.front());
    items_.pop_front();
    recordRead();
    return value;
  }

  std::deque<T> items_;
};

} // namespace hls

#endif // DCW_HLS_SIM_H
