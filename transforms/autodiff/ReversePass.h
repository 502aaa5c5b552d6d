// ReversePass: the reverse sweep over ONE SDFG (the root, or a copy of a nested SDFG), the engine
// behind autodiff::differentiate. Given the data whose gradients arrive from outside (`gradIn`: the
// differentiated outputs) and the data whose gradients are wanted (`gradOut`), it
//   1. walks the forward control flow (a chain of states and loops whose body is a chain of states;
//      conditionals, and loops that are not counted (CountedLoop.h), that touch active data are
//      refused, naming the region),
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
//      and per counted loop a loop over the same iterations in reverse order (same variable), whose
//      body reverses the forward body state by state:
//        before:  loop t: [s1: gx = Wx_t + R h] [s2: h = tanh(gx)]
//        after:   loop t: [store_s1: h_store[t] = h] [s1] [store_s2: gx_store[t] = gx] [s2]
//                 ... bwd loop t = last..first: [gx_iter = gx_store[t]; h_grad_out = h_grad] [h_grad = 0]
//                 [bwd s2: gx_grad += tanh'(gx_iter) h_grad_out] [h_iter = h_store[t]] [bwd s1: h_grad += R^T gx_grad ...]
//      Data the body writes is read back from its store at the iteration (the value the state saw on
//      entry); the gradient of data a state overwrites (not at an index of the loop variable) is taken
//      aside and reset before the state's adjoints, so that it carries the adjoint of the value the
//      iteration before left (loop-carried h_{t-1} -> h_t) and nothing of iteration t.
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

} // namespace dcw::autodiff::detail
