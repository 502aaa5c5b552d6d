#include "transforms/catalogue/SiluFusion.h"

#include "core/expansions/FusedOp.h"
#include "transforms/catalogue/SelfGate.h"

namespace dcw::transforms {

using namespace dcw::ir;
namespace fused = expansions::fused;

namespace {

bool analyseSiluFusion(const Match& match, const Sdfg& root, selfgate::Plan& p, Diagnostics* whyNot) {
  return selfgate::analyse(match, root, "sigmoid", "Sigmoid", "Silu", p, whyNot);
}

} // namespace

const Pattern& SiluFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"sigmoid", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"mul", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool SiluFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  selfgate::Plan p;
  return analyseSiluFusion(match, root, p, whyNot);
}

Expected<void> SiluFusion::apply(const Match& match, edit::Editor& ed) const {
  selfgate::Plan p;
  if (auto ok = analyseForApply(analyseSiluFusion, match, ed.root(), p, "sigmoid"); !ok) return ok;
  auto silu = std::make_unique<LibraryNode>("Silu");
  silu->domain = fused::kDomain;
  silu->opType = fused::kSilu;
  silu->opsetVersion = 1;
  selfgate::replace(ed, p, std::move(silu), "Silu");
  return {};
}

} // namespace dcw::transforms
