// Autodiff: reverse-mode automatic differentiation over the SDFG, as a transformation of the IR.
// The backward pass is synthesized from the data movement itself (as in DaCe): every tasklet gets a
// backward tasklet from the symbolic derivative of its code (core/tasklet/Derivative.h), placed in a
// map with the same ranges, reading the stored forward values and the gradient of its outputs and
// accumulating into the gradients of its inputs with write-conflict resolution `sum`; nested SDFGs
// are differentiated recursively; states run backwards after the forward states. The result is an
// ordinary part of the IR — visible in the canvas, transformable, exportable — with new outputs
// `<name>_grad` for every `wrt` name (the gradient of the summed `of` outputs, or of their given seeds).
//
//   before:  x, w -> [MatMul] -> y -> [Relu] -> out                  (expanded to maps and tasklets)
//   after:   ... forward unchanged ... -> out
//            out_grad := 1 (or the seed input) -> backward of Relu -> y_grad -> backward of MatMul
//            -> x_grad, w_grad  (new outputs)
//
// Library nodes are expanded (`pure`) first, through the same editor, so the request needs no
// per-op rules: an op is differentiable when its pure expansion is.
// Store or recompute, per intermediate: `store` keeps the forward value alive until the backward
// reads it; `recompute` re-runs its producer inside the backward pass (less memory, more work).
// Counted loops (ONNX Loop with a trip count, Scan, RNN/GRU/LSTM expansions) are reversed: the
// backward is a loop over the same iterations in reverse order, and values the body overwrites are
// stored per iteration (Store only: `keep` applies to root intermediates, not to loop stores).
// What cannot be differentiated — an integer output or input, an op without a pure expansion, a
// while-loop (data-dependent trip count) or a conditional on the differentiated path — is refused
// with a message naming the element; the editor is left unchanged by the caller's rollback.
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dcw::autodiff {

enum class Keep { Store, Recompute };

struct Request {
  std::vector<std::string> of;   // root-SDFG outputs (data names) to differentiate
  std::vector<std::string> wrt;  // root-SDFG inputs or constants (data names, e.g. weights)
  // true: seed every element of every `of` output with 1 (the gradient of their sum);
  // false: a new input `<of>_seed` (same shape) carries each non-scalar output's seed gradient
  // (a scalar output is seeded with 1 either way).
  bool sumOutputs = true;
  // With sumOutputs: refuse a non-scalar `of` instead of summing it (what a `differentiate` line without
  // sum=true or seeds=true means: a loss is expected to be a scalar).
  bool requireScalar = false;
  std::map<std::string, Keep> keep; // per intermediate data name (root SDFG); default Store
};

struct Report {
  std::vector<std::string> gradients;  // new outputs, in `wrt` order: "<name>_grad"
  std::vector<std::string> seeds;      // new inputs when !sumOutputs
  // Bytes of forward intermediates the backward pass reads (kept alive until then), with the
  // current Store/Recompute choices, for symbol values 1 where shapes are symbolic.
  int64_t storedBytes = 0;
  int64_t recomputedBytes = 0;         // bytes that Recompute avoided keeping
  std::vector<std::string> stored;     // intermediate names kept alive for the backward pass
};

// Applies the backward pass to the root SDFG held by `editor` (every change journaled).
Expected<Report> differentiate(edit::Editor& editor, const Request& request);

// What differentiate() would keep alive for `request`, without changing anything (for the inspector
// and the `--keep` choices): intermediate name -> bytes (symbol values 1).
Expected<std::map<std::string, int64_t>> intermediatesNeeded(const ir::Sdfg& sdfg, const Request& request);

} // namespace dcw::autodiff
