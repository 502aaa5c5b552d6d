// Instrumenter: which elements an instrumented program times, and the table of timed elements that
// the program's events index (GeneratedCode::profiled). Kind selections (states, maps, library nodes:
// nested SDFG nodes and C++ tasklets) apply outside map scopes only — inside, an element runs once
// per iteration: too much overhead and, in parallel loops, one timer per thread — while explicit paths may name any state,
// map, nested SDFG node, tasklet or copy edge. Target-neutral: a target only says what a timer looks
// like in its code (SdfgWalker::timerStatement).
#pragma once

#include "codegen/GeneratedCode.h"
#include "core/ir/Path.h"
#include "core/support/Expected.h"

#include <set>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

class Instrumenter {
public:
  Instrumenter(const Instrumentation& what, const ir::Sdfg& root, const ir::PathIndex& paths);

  bool enabled() const { return what_.any(); }
  // Resolves the explicit paths; fails naming a path that names no element.
  Expected<void> resolvePaths();
  // Whether to time this element; `insideMap`: emitted inside a map scope (or a parallel loop).
  bool wants(ProfiledElement::Kind kind, ir::ElementId id, bool insideMap) const;
  // Whether an explicit path names this element.
  bool named(ir::ElementId id) const { return explicit_.count(id) > 0; }
  // Registers a timed element nested in the current one; returns its index (the event's element id).
  int begin(ProfiledElement::Kind kind, ir::ElementId id, const std::string& path, bool masterOnly);
  void end() { stack_.pop_back(); }
  // Fails naming an explicitly chosen element that got no timer (it generates no block of its own).
  Expected<void> checkEveryPathTimed() const;
  std::vector<ProfiledElement> take() { return std::move(profiled_); }
  size_t count() const { return profiled_.size(); }

private:
  Instrumentation what_;
  const ir::Sdfg& root_;
  const ir::PathIndex& paths_;
  std::set<ir::ElementId> explicit_; // elements named by Instrumentation::paths
  std::vector<ProfiledElement> profiled_;
  std::vector<int> stack_;
};

} // namespace dcw::codegen
