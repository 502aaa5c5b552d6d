#include "transforms/catalogue/HardSwishFusion.h"

#include "transforms/catalogue/SelfGate.h"

#include <cmath>
#include <variant>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

double attributeOr(const LibraryNode& n, const char* name, double fallback) {
  if (const Attribute* a = n.attribute(name)) {
    if (auto* d = std::get_if<double>(&a->value)) return *d;
    if (auto* i = std::get_if<int64_t>(&a->value)) return double(*i);
  }
  return fallback;
}

bool analyseHardSwishFusion(const Match& match, const Sdfg& root, selfgate::Plan& p, Diagnostics* whyNot) {
  if (!selfgate::analyse(match, root, "gate", "HardSigmoid", "HardSwish", p, whyNot)) return false;
  // ONNX's defaults are alpha 0.2, beta 0.5; HardSwish is x * HardSigmoid(x; 1/6, 0.5).
  const double alpha = attributeOr(*p.gate, "alpha", 0.2), beta = attributeOr(*p.gate, "beta", 0.5);
  auto near = [](double v, double want) { return std::abs(v - want) <= 1e-6 * std::abs(want); };
  if (!near(alpha, 1.0 / 6) || !near(beta, 0.5)) {
    if (whyNot)
      whyNot->error(match.elements.at("gate"), "the HardSigmoid's alpha " + std::to_string(alpha) + " and beta " + std::to_string(beta) +
                                                   " are not HardSwish's 1/6 and 0.5",
                    "x * HardSigmoid(x) with other parameters is a scaled gate, not HardSwish");
    return false;
  }
  return true;
}

} // namespace

const Pattern& HardSwishFusion::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"gate", {ElementKind::LibraryNode}}, {"output", {ElementKind::AccessNode}}, {"mul", {ElementKind::LibraryNode}}}, {{0, 1}, {1, 2}});
  return p;
}

bool HardSwishFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  selfgate::Plan p;
  return analyseHardSwishFusion(match, root, p, whyNot);
}

Expected<void> HardSwishFusion::apply(const Match& match, edit::Editor& ed) const {
  selfgate::Plan p;
  if (auto ok = analyseForApply(analyseHardSwishFusion, match, ed.root(), p, "gate"); !ok) return ok;
  auto hs = std::make_unique<LibraryNode>("HardSwish");
  hs->opType = "HardSwish";
  hs->opsetVersion = 14; // the op's first version; the model's own opset may be older
  selfgate::replace(ed, p, std::move(hs), "HardSwish");
  return {};
}

} // namespace dcw::transforms
