// ExpandLibraryNode: replaces a library node by one of its implementations (`pure`: maps, tasklets
// and memlets in a nested SDFG), keeping its label, connectors and edges.
//
// Before:  X -> [Relu] -> Y
// After:   X -> {Relu: nested SDFG  X -> map[i] (y = max(x, 0)) -> Y} -> Y
//
// Preconditions: the op has the chosen implementation and is not opaque. Option `implementation`
// (default: the node's chosen implementation, else `pure`). Keeps the model differentiable with
// `pure` (maps and tasklets are what autodiff differentiates).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ExpandLibraryNode : public Transformation {
public:
  std::string_view name() const override { return "ExpandLibraryNode"; }
  std::string_view description() const override {
    return "Replace a library node (an ONNX op) by an implementation: `pure` gives analysable maps and tasklets";
  }
  std::string_view category() const override { return "Library nodes"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
