#include "core/expansions/FusedOp.h"

#include <cfloat>

namespace dcw::expansions::fused {

using namespace dcw::ir;

const std::vector<Base>& bases() {
  static const std::vector<Base> b = {
      {"Conv", "FusedConv", {"X", "W", "B"}, {"B"}, 11},
      {"ConvTranspose", "FusedConvTranspose", {"X", "W", "B"}, {"B"}, 11},
      {"MatMul", "FusedMatMul", {"A", "B"}, {}, 13},
      {"Gemm", "FusedGemm", {"A", "B", "C"}, {"C"}, 13},
      {"BatchNormalization", "FusedBatchNormalization", {"X", "scale", "B", "input_mean", "input_var"}, {}, 15},
  };
  return b;
}

const Base* baseOf(std::string_view onnxOp) {
  for (auto& b : bases())
    if (b.op == onnxOp) return &b;
  return nullptr;
}

const Base* baseOfFused(const LibraryNode& node) {
  if (node.domain != kDomain) return nullptr;
  for (auto& b : bases())
    if (b.fused == node.opType) return &b;
  return nullptr;
}

const std::vector<Activation>& activations() {
  // Versions: the newest ai.onnx version of each op up to opset 17 whose semantics the pure
  // expansions implement (Clip-6 takes min/max as attributes, which a fused node carries as params).
  static const std::vector<Activation> a = {
      {"Relu", "", 14, {}},
      {"LeakyRelu", "", 16, {{"alpha", 0.01}}},
      {"Elu", "", 6, {{"alpha", 1.0}}},
      {"Sigmoid", "", 13, {}},
      {"Tanh", "", 13, {}},
      {"HardSigmoid", "", 6, {{"alpha", 0.2}, {"beta", 0.5}}},
      {"HardSwish", "", 14, {}},
      {"Softplus", "", 1, {}},
      {"Clip", "", 6, {{"min", -FLT_MAX}, {"max", FLT_MAX}}},
      {kGelu, kDomain, 1, {}},
      {kSilu, kDomain, 1, {}},
  };
  return a;
}

const Activation* findActivation(std::string_view domain, std::string_view op) {
  for (auto& a : activations())
    if (a.domain == domain && a.op == op) return &a;
  return nullptr;
}

bool isEpilogueAttribute(const LibraryNode& node, std::string_view name) {
  return name == "activation" || name == "activation_params" || (name == "alpha" && node.opType != "FusedGemm");
}

Expected<Epilogue> epilogueOf(const LibraryNode& node, bool zConnected, const std::string& where) {
  Epilogue e;
  e.hasZ = zConnected;
  // On other fused ops than FusedGemm, alpha is FusedMatMul's scale alone.
  if (auto* a = node.attribute("alpha"); a && node.domain == kDomain && isEpilogueAttribute(node, "alpha")) {
    auto* v = std::get_if<double>(&a->value);
    if (!v) return fail(where, "attribute 'alpha' is not a float");
    if (node.opType != "FusedMatMul") return fail(where, "attribute 'alpha' scales a FusedMatMul's product; " + node.opType + " has none");
    e.alpha = *v;
  }
  std::string act;
  if (auto* a = node.attribute("activation")) {
    auto* s = std::get_if<std::string>(&a->value);
    if (!s) return fail(where, "attribute 'activation' is not a string", "name an activation op, e.g. activation=Relu");
    act = *s;
  }
  std::vector<double> params;
  if (auto* a = node.attribute("activation_params")) {
    auto* v = std::get_if<std::vector<double>>(&a->value);
    if (!v) return fail(where, "attribute 'activation_params' is not a list of floats");
    params = *v;
  }
  if (act.empty()) {
    if (!params.empty()) return fail(where, "activation_params without an activation");
    return e;
  }
  // ai.onnx activations by their op type; Gelu and Silu are DCW's.
  e.activation = findActivation("", act);
  if (!e.activation) e.activation = findActivation(kDomain, act);
  if (!e.activation) {
    std::string known;
    for (auto& x : activations()) known += (known.empty() ? "" : ", ") + x.op;
    return fail(where, "unknown activation '" + act + "'", "a fused op ends with one of: " + known);
  }
  if (params.size() > e.activation->params.size())
    return fail(where, act + " takes " + std::to_string(e.activation->params.size()) + " activation_params, not " +
                           std::to_string(params.size()));
  for (size_t k = params.size(); k < e.activation->params.size(); ++k) params.push_back(e.activation->params[k].fallback);
  e.params = std::move(params);
  return e;
}

Expected<Epilogue> epilogueOf(const ExpansionContext& ctx) {
  return epilogueOf(ctx.node(), ctx.hasIn("Z"), ctx.path() + " (" + ctx.node().className() + ")");
}

std::vector<Attribute> activationAttributes(const Activation& a, const std::vector<double>& params) {
  std::vector<Attribute> out;
  for (size_t k = 0; k < a.params.size() && k < params.size(); ++k) out.push_back(Attribute{a.params[k].name, params[k]});
  return out;
}

std::pair<std::string, std::string> activationConnectors(const Activation& a) {
  if (a.op == "Clip" || a.op == "Tanh") return {"input", "output"}; // the names ONNX's schemas give them
  return {"X", "Y"};
}

} // namespace dcw::expansions::fused
