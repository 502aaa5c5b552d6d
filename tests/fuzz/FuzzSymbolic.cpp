// libFuzzer target for symbolic expressions (sym::Expr::parse): any byte string must either parse —
// and then print and read back to the same text (the same value where
// arithmetic was left undone to avoid an overflow), evaluate under an assignment of its symbols (refusing division
// by zero and overflow with a message, as Expr::evaluate documents), agree with substituting the
// same values, and go through the bounds prover — or be refused with a diagnostic naming the column.
#include "FuzzCheck.h"

#include "core/symbolic/Expr.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

namespace {

// Whether Simplify may have left arithmetic undone because doing it would overflow (so that
// evaluate() reports the overflow): a sum or product with more than one constant operand, or any
// constant too big for its square to fit in 64 bits (a product, a merged coefficient or a scaled
// term built from it could overflow). Such trees print and read back as equal-valued but
// differently simplified trees; the fuzz target then compares values, not text.
bool mayHaveUnfoldedOverflow(const dcw::sym::Expr& e) {
  constexpr int64_t kSqrtMax = 3037000499; // floor(sqrt(2^63 - 1))
  if (auto v = e.constantValue()) return *v > kSqrtMax || *v < -kSqrtMax;
  int constants = 0;
  for (const dcw::sym::Expr& x : e.operands()) {
    if (x.isConstant()) ++constants;
    if (mayHaveUnfoldedOverflow(x)) return true;
  }
  return constants > 1 && (e.op() == dcw::sym::Op::Add || e.op() == dcw::sym::Op::Mul);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dcw;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto e = sym::Expr::parse(text);
  if (!e) {
    fuzz::checkRefusal(e.error());
    return 0;
  }
  const std::string printed = e->str();
  auto again = sym::Expr::parse(printed);
  if (!again) fuzz::broken("'" + printed + "' (printed) does not parse: " + again.error().message);
  // Compared as text unless arithmetic may have been left undone to avoid an overflow (values are
  // compared below).
  if (!mayHaveUnfoldedOverflow(*e) && !mayHaveUnfoldedOverflow(*again) && again->str() != printed)
    fuzz::broken("'" + printed + "' reads back as '" + again->str() + "'");

  // Values that reach the edge cases: zero (division), ±1, and the ends of int64 (overflow).
  static const int64_t kValues[] = {0, 1, -1, 2, -3, 7, 1000003, INT64_MAX, INT64_MIN};
  std::map<std::string, int64_t> values;
  std::map<std::string, sym::Expr> constants;
  size_t k = size;
  for (const std::string& s : e->freeSymbols()) {
    int64_t v = kValues[(k++ + s.size()) % std::size(kValues)];
    values[s] = v;
    constants.emplace(s, sym::Expr(v));
  }
  auto value = e->evaluate(values);
  if (!value) fuzz::checkRefusal(value.error());
  if (auto reread = again->evaluate(values); value && reread && *reread != *value)
    fuzz::broken("'" + printed + "' evaluates to " + std::to_string(*value) + " but reads back as '" + again->str() +
                 "', which evaluates to " + std::to_string(*reread));
  sym::Expr substituted = e->substitute(constants);
  if (value && substituted.isConstant() && *substituted.constantValue() != *value)
    fuzz::broken("'" + printed + "' evaluates to " + std::to_string(*value) + " but substitutes to " + substituted.str());

  sym::Assumptions assume;
  for (auto& [s, v] : values) assume.setLower(s, v < 0 ? v : 0);
  (void)sym::bounds(*e, assume);
  (void)sym::proveLessEqual(*e, *e + 1, assume);
  return 0;
}
