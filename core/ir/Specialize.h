// Specialize: fixes some of an SDFG's symbols to values — the model compiled for one input size, as
// DaCe's sdfg.specialize does. Where one program cannot serve every size (an implementation that needs
// numbers, such as oneDNN's or a pool's window arithmetic), the model is specialized to the inputs at
// hand and compiled for them (the build cache keeps one program per size).
//
//   before: X: float[N, 3, H, W]   map i in [0, N)   memlet X[i, 0:3, 0:H, 0:W]
//   after specializeSymbols({N: 2, H: 48, W: 192}):
//           X: float[2, 3, 48, 192] map i in [0, 2)  memlet X[i, 0:3, 0:48, 0:192]
//
// The root SDFG's data, map ranges, memlets, interstate edges, loops, branches and the symbol mappings
// of nested SDFGs are rewritten; inside nested SDFGs the values arrive through those mappings. The
// symbols stay declared with their values in `metadata["specialized:NAME"]`, so tasklet code that
// names one still gets its value when the program runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace dcw::ir {

class Sdfg;

void specializeSymbols(Sdfg& root, const std::map<std::string, int64_t>& values);

// The value specializeSymbols gave `symbol`, if any.
std::optional<int64_t> specializedValue(const Sdfg& root, const std::string& symbol);

} // namespace dcw::ir
