// DynamicExtent: a data-dependent dim — DaCe's dynamic-size data, for the ops whose output size
// depends on the values (NonZero, Compress with a run-time condition, Unique, NonMaxSuppression).
// It is a symbol of the root SDFG that no input binds: the op also writes its count into a scalar,
// an interstate edge after the op's state assigns the symbol from that scalar, and everything after
// it uses the symbol like any other dim:
//
//   state0: X ─▶ NonZero ─▶ Y: int64[2, NonZero_count]      (and ─▶ NonZero_extent: int64 scalar)
//     ──[NonZero_count = NonZero_extent]──▶ state1: Y ─▶ Transpose ─▶ ...: int64[NonZero_count, 2]
//
// The symbol never exceeds its bound, an expression of the input-bound symbols (NonZero: the number
// of elements of X). Data alive across states is allocated at the bound and used at the actual
// extent (the op writes it packed, row-major at the actual dims); a graph output is allocated at the
// bound by the caller and trimmed after the run, which returns each extent (codegen/GeneratedCode.h).
// Stored in the SDFG's metadata ("dynamic-extent:SYMBOL" = the op's label, the bound; one a line), so
// that it survives copies, saving and loading, and transformations that know nothing of it.
#pragma once

#include "core/symbolic/Expr.h"

#include <optional>
#include <string>
#include <vector>

namespace dcw::ir {

class Sdfg;

struct DynamicExtent {
  std::string symbol;
  std::string node;  // the label of the op whose count it is
  sym::Expr bound;   // in the root SDFG's symbols
};

// The root's dynamic extents, ordered by symbol name.
std::vector<DynamicExtent> dynamicExtents(const Sdfg& root);
std::optional<DynamicExtent> dynamicExtent(const Sdfg& root, const std::string& symbol);
void setDynamicExtent(Sdfg& root, const DynamicExtent& e);

} // namespace dcw::ir
