// The last check of the activation-recognition suites (SiluFusion, HardSwishFusion): once the
// recognized activation is the Conv's only reader, ActivationFusion makes the two one node, and that
// node computes the reference outputs on the pure path and through oneDNN, whose generated code
// carries the expected post-op.
#pragma once

#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ActivationFusion.h"

#include <string>
#include <vector>

namespace dcw::testsupport {

inline bool foldsIntoTheConv(ir::Sdfg& m, const std::vector<ir::Tensor>& ref, const std::string& postOp) {
  transforms::ActivationFusion fusion;
  auto act = applicableMatches(m, fusion);
  if (act.size() != 1) {
    qWarning("ActivationFusion applies at %zu places, not one", act.size());
    return false;
  }
  if (!applyNow(m, fusion, act[0])) return false;
  if (allNodes<ir::LibraryNode>(m).size() != 1) {
    qWarning("%zu library nodes after ActivationFusion, not one", allNodes<ir::LibraryNode>(m).size());
    return false;
  }
  if (!outputsClose(ref, runExpanded(m, 5), 1e-5, "pure, fused into the conv")) return false;
  std::string code;
  if (!outputsClose(ref, runExpandedPreferring(m, 5, {"onednn"}, &code), 1e-4, "onednn, fused into the conv")) return false;
  if (code.find(postOp) == std::string::npos) {
    qWarning("the oneDNN code has no '%s':\n%s", postOp.c_str(), code.c_str());
    return false;
  }
  return true;
}

} // namespace dcw::testsupport
