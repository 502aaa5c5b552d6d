// WholeArray: whether a memlet moves all of an array (no subset, or the full one). The catalogue's
// transformations ask it before they rewrite an op's data (OpToView, LayoutRegion, ...), and the CPU
// arena before it lets an output take an input's storage; one answer for both.
#pragma once

#include "core/ir/DataDescriptor.h"
#include "core/ir/Memlet.h"

namespace dcw::ir {

inline bool wholeArray(const Memlet& m, const DataDescriptor& d) { return m.subset.empty() || m.subset == Subset::fullOf(d.shape); }

} // namespace dcw::ir
