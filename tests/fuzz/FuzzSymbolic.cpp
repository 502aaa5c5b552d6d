// libFuzzer target for symbolic expressions (sym::Expr::parse): any byte string must either parse —
// and then print and read back to the same text, evaluate under an assignment of its symbols (refusing division
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
  // Compared as text: where constant folding would overflow, the unfolded product may read back as
  // a differently nested (but equal-valued, identically printed) tree.
  if (again->str() != printed) fuzz::broken("'" + printed + "' reads back as '" + again->str() + "'");

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
  sym::Expr substituted = e->substitute(constants);
  if (value && substituted.isConstant() && *substituted.constantValue() != *value)
    fuzz::broken("'" + printed + "' evaluates to " + std::to_string(*value) + " but substitutes to " + substituted.str());

  sym::Assumptions assume;
  for (auto& [s, v] : values) assume.setLower(s, v < 0 ? v : 0);
  (void)sym::bounds(*e, assume);
  (void)sym::proveLessEqual(*e, *e + 1, assume);
  return 0;
}
