// DeadDataflowElimination: removes computations whose results are never used — a transient container
// that is written but never read, the nodes (tasklets, nested SDFGs, library nodes, whole map scopes)
// that only produce it, and, transitively, the transients that only fed those producers. Data left
// without any access is removed from the SDFG. Less work, less memory, same outputs.
//
// Before:  X → [Relu] → Y (output)          After:  X → [Relu] → Y
//          X → [Exp]  → T (transient, never read)
//
// Match: `access`, an access node of a transient container that no access node anywhere in its SDFG
// reads (no outgoing dataflow edge) and that no interstate edge, loop or branch condition names.
// Preconditions: the access node lies at the top level of its state (not inside a map scope).
// Removal is by whole nodes: a producer goes only when every one of its outputs goes to dead data
// (a map goes with its whole scope when every edge leaving its exit does); a producer with one dead
// and one live output stays, and so does a node with no outputs at all (it may have side effects).
// Removed reads leave their input access nodes; those become isolated and are removed too.
// No options. Keeps the model differentiable (it only removes nodes).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class DeadDataflowElimination : public Transformation {
public:
  std::string_view name() const override { return "DeadDataflowElimination"; }
  std::string_view description() const override {
    return "Remove transient data that is never read, together with the computations that only produce it";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
