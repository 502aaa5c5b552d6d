// ReversePass: the reverse sweep over ONE SDFG (the root, or a copy of a nested SDFG), the engine
// behind autodiff::differentiate. Given the data whose gradients arrive from outside (`gradIn`: the
// differentiated outputs) and the data whose gradients are wanted (`gradOut`), it
//   1. walks the forward control flow (a chain of states; loops and conditionals that touch active
//      data are refused, naming the region — reversing loops needs per-iteration storage, future work),
//   2. collects the "units" of every state: tasklets (in their map nests), nested SDFGs, and copies
//      between access nodes, with the data each reads and writes,
//   3. runs activity analysis (data on a path from gradOut to gradIn),
//   4. adds `<d>_grad` arrays, a state that zero-initializes (and, at the root, seeds) them, and one
//      backward state per forward state, in reverse order, where every active unit gets its adjoint:
//        tasklet      -> mirrored map nest + backward tasklet (core/tasklet/Derivative.h), input
//                        gradients accumulated with WCR sum; outputs written with WCR max/min pass the
//                        gradient only where the element equals the final (stored) value;
//        nested SDFG  -> a nested backward SDFG built by this same pass on a copy of the forward one
//                        (it re-runs the forward states inside when its backward needs inner
//                        transients), accumulating into the outer gradients inside (outer-edge WCR is
//                        ignored by code generation);
//        copy         -> the gradient copied back, accumulated.
// Every change goes through the Editor it is given (for a nested copy, a throwaway editor on the copy).
// A value overwritten (non-WCR) after an active write to the same data is refused, naming the element.
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Expected.h"

#include <map>
#include <set>
#include <string>

namespace dcw::autodiff::detail {

struct ReverseOptions {
  bool root = false;                          // root: gradOut gradients become outputs, gradIn seeded
  std::set<std::string> gradIn;               // data whose gradient is given (outputs differentiated)
  std::set<std::string> gradOut;              // data whose gradient is wanted
  std::map<std::string, std::string> seeds;   // root: gradIn data -> seed input (absent: seed with 1)
  std::set<std::string> recompute;            // root: intermediates re-run in the backward pass
  std::string where;                          // path prefix for messages
};

struct ReverseResult {
  std::map<std::string, std::string> gradName; // data -> its gradient array
  std::set<std::string> forwardReads;          // forward data read by the backward pass (original names)
  std::set<std::string> recomputed;            // intermediates recomputed instead of read
  int units = 0;                               // adjoints emitted
};

// Appends the backward pass to `sdfg` (which `editor` edits). `sdfg` must be the editor's root or a
// standalone copy being prepared as a nested backward SDFG.
Expected<ReverseResult> reverse(edit::Editor& editor, ir::Sdfg& sdfg, const ReverseOptions& options);

// A deep copy of an SDFG (its own id allocator), through the JSON form.
Expected<std::unique_ptr<ir::Sdfg>> cloneSdfg(const ir::Sdfg& sdfg);

} // namespace dcw::autodiff::detail
