// Expected<T>: a value or the Diagnostic that explains why there is none. Library boundaries in DCW
// return Expected instead of throwing, so that bad input always reaches the user as a located
// message and never as a crash.
#pragma once

#include "core/support/Diagnostic.h"

#include <cassert>
#include <utility>
#include <variant>

namespace dcw {

struct Unexpected {
  Diagnostic diagnostic;
};

inline Unexpected fail(std::string location, std::string message, std::string hint = {}) {
  return Unexpected{Diagnostic::error(std::move(location), std::move(message), std::move(hint))};
}
inline Unexpected fail(Diagnostic d) { return Unexpected{std::move(d)}; }

template <class T>
class [[nodiscard]] Expected {
public:
  Expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Expected(Unexpected u) : v_(std::in_place_index<1>, std::move(u.diagnostic)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Diagnostic& error() const { assert(!ok()); return std::get<1>(v_); }
  Unexpected takeError() const { return Unexpected{error()}; }

private:
  std::variant<T, Diagnostic> v_;
};

template <>
class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Unexpected u) : err_(std::move(u.diagnostic)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Diagnostic& error() const { assert(!ok_); return err_; }
  Unexpected takeError() const { return Unexpected{err_}; }

private:
  Diagnostic err_;
  bool ok_ = true;
};

} // namespace dcw

// Error propagation, the one way to pass a failure up without exceptions:
//
//   DCW_TRY(auto order, st.topologicalOrder());  // the error returned from the enclosing function,
//   for (Node* n : order) ...                     // or `order` declared from the value (moved out)
//   DCW_CHECK(validateShapes(sdfg));              // an Expected<void> (or any Expected, value dropped)
//
// The enclosing function returns an Expected (of any type). DCW_TRY declares a variable, so it is a
// statement of its own (never the body of an unbraced if); the declaration may be `auto x`,
// `const auto x` or an explicit type, and `auto&& x` binds the value inside the Expected in place.
#define DCW_TRY_CONCAT_(a, b) a##b
#define DCW_TRY_CONCAT(a, b) DCW_TRY_CONCAT_(a, b)
#define DCW_TRY_IMPL_(tmp, decl, ...)                                                                     \
  auto tmp = (__VA_ARGS__);                                                                               \
  if (!tmp) return tmp.takeError();                                                                       \
  decl = std::move(*tmp)
#define DCW_TRY(decl, ...) DCW_TRY_IMPL_(DCW_TRY_CONCAT(dcwTry_, __LINE__), decl, __VA_ARGS__)
#define DCW_CHECK(...)                                                                                    \
  do {                                                                                                    \
    if (auto dcwCheck_ = (__VA_ARGS__); !dcwCheck_) return dcwCheck_.takeError();                         \
  } while (false)
