// WriteConflicts: whether the iterations of a parallel loop write distinct elements of an array, so
// that a write with conflict resolution (WCR) inside it needs no atomics. The CPU generator asks it
// for every WCR write inside an OpenMP loop (and for how many leading parameters it may collapse).
#pragma once

#include "core/ir/Subset.h"

#include <set>
#include <string>

namespace dcw::analysis {

// Whether iterations that differ in any of `params` write distinct elements of `s` (indices only):
// each parameter appears as some index plus terms free of `varying` (the loop's parameters and those
// of loops inside it), or as digits of a merged parameter that together determine it (p // 49,
// (p // 7) % 7, p % 7: MapFlatten's reading of a 7x7 plane merged into p), each plus such terms.
// False when it cannot tell.
bool writesDistinct(const ir::Subset& s, const std::set<std::string>& params, const std::set<std::string>& varying);

} // namespace dcw::analysis
