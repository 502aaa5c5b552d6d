// Matcher: finds where transformations apply. Enumerates the bindings of a transformation's
// pattern (transforms/Pattern.h) in every state or region of a model — or only those touching the
// anchors (the user's selection) — and asks canApply about each, keeping the reason when it fails.
// This is what the transformations panel, `dcw transforms MODEL [--at PATH]` and auto-optimize use.
#pragma once

#include "core/ir/Sdfg.h"
#include "transforms/Transformation.h"

#include <vector>

namespace dcw::transforms {

class TransformationRegistry;

struct Candidate {
  const Transformation* transformation = nullptr;
  Match match;
  bool applicable = false;
  std::string whyNot; // when not applicable
};

struct MatchQuery {
  // Elements (nodes, states, regions) a match must touch; empty = the whole model. A state or
  // region anchor admits every match inside it.
  std::vector<const ir::Element*> anchors;
  size_t limitPerTransformation = 10000;
  bool includeInapplicable = true;
};

// The structural matches of one transformation (canApply not yet asked).
std::vector<Match> enumerateMatches(const Transformation& t, const ir::Sdfg& root, const MatchQuery& query = {});
// Structural matches of every registered transformation with canApply's verdict, applicable ones
// first (in registry order), then the others.
std::vector<Candidate> findCandidates(const TransformationRegistry& registry, const ir::Sdfg& root,
                                      const MatchQuery& query = {});
// For a transformation that has no structural match at the anchors: what it would need.
std::string whyNoMatch(const Transformation& t);

} // namespace dcw::transforms
