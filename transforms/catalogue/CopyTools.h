// CopyTools: what RedundantArray and RedundantSecondArray share about a copy edge between two
// access nodes `in` -> `out`: resolving and vetting both ends, the regions the copy moves on either
// side, and re-pointing memlets from the removed container to the kept one at an offset.
#pragma once

#include "core/ir/AccessNode.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/Memlet.h"
#include "core/ir/State.h"
#include "core/support/Expected.h"
#include "transforms/Binding.h"

#include <string>
#include <vector>

namespace dcw::transforms::copy {

// Whether two expressions are provably the same (structurally, or differing by the constant 0).
bool sameExpr(const sym::Expr& a, const sym::Expr& b);

// Whether `s` covers the whole of `d` (a scalar: empty or [0]).
bool coversAll(const ir::Subset& s, const ir::DataDescriptor& d);

// `s` moved by `off` per dimension (unchanged when `off` is empty).
ir::Subset shifted(const ir::Subset& s, const std::vector<sym::Expr>& off);

// Clears `off` when every entry is provably zero, so that "no offset" has one representation.
void dropZeroOffset(std::vector<sym::Expr>& off);

// The region of the source (`in` data) and of the destination (`out` data) a copy edge moves.
struct CopySides {
  ir::Subset src, dst;
};
CopySides copySides(const ir::Memlet& m, const ir::DataDescriptor& src, const ir::DataDescriptor& dst);
// The memory a container lives in: "host", "GPU" or "FPGA". A copy between two (GpuTransform's and
// FpgaTransform's explicit copies) is a transfer, never redundant: without it one side's code would
// read the other's memory.
const char* memoryOf(const ir::DataDescriptor& d);

// `m` re-pointed from `from` to `to`, its subset moved by `off`; memlets on other data unchanged.
ir::Memlet retarget(const ir::Memlet& m, const std::string& from, const std::string& to, const std::vector<sym::Expr>& off);

// The two ends of a candidate copy, resolved from the match's `in` and `out` slots.
struct CopyEnds {
  ir::AccessNode* in = nullptr;
  ir::AccessNode* out = nullptr;
  ir::State* st = nullptr;
  const ir::Sdfg* sdfg = nullptr;
  const ir::DataDescriptor* a = nullptr; // `in`'s container
  const ir::DataDescriptor* b = nullptr; // `out`'s container
};
enum class Removed { In, Out };
// Resolves both ends and checks what both transformations require: one state, known and distinct
// data, neither a view (its edge copies nothing), the container to be removed transient and not
// constant, equal element types, plain tensors of known rank. Failures are reported at `path`.
Expected<CopyEnds> resolveCopyEnds(const Binding& b, const std::string& path, Removed removed);

} // namespace dcw::transforms::copy
