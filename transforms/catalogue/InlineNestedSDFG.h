// InlineNestedSDFG: dissolves a NestedSdfgNode whose SDFG is a single state into the state that
// holds it, so that later transformations (MapFusion, StateFusion, ...) see across its boundary.
// Every ONNX op expands into its own nested SDFG; inlining is what lets two expanded ops fuse.
//
// Before:  X -> [nested: A -> map{a -> t -> T} -> T' -> map{...} -> Y] -> Z        (one inner state)
// After:   X -> map{a -> t -> T_op} -> T_op -> map{...} -> Z
//   - the nested SDFG's transients become transients of the outer SDFG (renamed when a name is
//     taken: "<node label>_<name>", then a numeric suffix);
//   - its non-transient data (the node's connectors) are replaced by the outer data the node's edges
//     connect: inner read nodes of an input hang off the outer source access node, inner write nodes
//     of an output feed the outer destination access node (reads after an inner write read from the
//     outer destination; of several ordered inner writes of one output, the last takes the outer
//     node and the earlier ones become new access nodes of the outer data);
//   - inner memlets on a connector's data are composed with the outer memlet: the outer subset's
//     begin offsets every inner index (the outer subset must have the inner container's shape, unit
//     steps and the same rank: e.g. the whole container);
//   - symbols go through the node's symbolMapping (identity mappings need nothing).
//
// Preconditions: the nested SDFG has exactly one block, a State (no interstate control flow); the
// node lies at the top level of its state (not inside a map); each connector has exactly one edge,
// to or from an access node, without write-conflict resolution; inner non-transient data are
// connectors with the outer data's dtype; the inner writes of an output are ordered (each reaches
// the last); no connector is both input and output; the
// inner state holds only access nodes, tasklets, maps and library nodes without subgraphs (inline
// nested SDFGs inside it first); a non-identity symbol mapping must not be captured by an inner map
// parameter nor appear in tasklet code.
// No options. Keeps the model differentiable (only moves maps, tasklets and memlets).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class InlineNestedSDFG : public Transformation {
public:
  std::string_view name() const override { return "InlineNestedSDFG"; }
  std::string_view description() const override {
    return "Inline a single-state nested SDFG into the enclosing state (its transients become outer transients)";
  }
  std::string_view category() const override { return "Control flow"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
