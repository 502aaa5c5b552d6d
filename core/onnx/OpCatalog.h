// OpCatalog: the library-node classes DCW knows, read from ONNX's own schema registry
// (onnx::OpSchemaRegistry) rather than from a hand-written list, so every op of every opset the
// installed ONNX supports is representable: formal inputs/outputs (single, optional, variadic),
// typed attributes with their defaults, and the since-version that a model's opset import selects.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dcw::onnx {

struct OpParam {
  enum class Option { Single, Optional, Variadic };
  std::string name;
  Option option = Option::Single;
  std::string typeConstraint; // "T", "tensor(int64)"
  int minArity = 1;
};

struct OpAttr {
  std::string name;
  std::string type;     // "int", "floats", "graph", ... (ir::attributeTypeName)
  bool required = false;
};

struct OpClass {
  std::string domain;   // "" = ai.onnx
  std::string name;
  int sinceVersion = 0;
  bool deprecated = false;
  std::vector<OpParam> inputs;
  std::vector<OpParam> outputs;
  std::vector<OpAttr> attributes;
  int minInputs = 0, maxInputs = 0, minOutputs = 0, maxOutputs = 0;
};

// The class an op of `domain` resolves to under the model's opset version for that domain.
std::optional<OpClass> findOpClass(const std::string& domain, const std::string& op, int opsetVersion);
// Every op (the newest version not above maxOpset for its domain), for ai.onnx and ai.onnx.ml.
std::vector<OpClass> allOpClasses();
// Highest opset version the registry knows for a domain (0 if the domain is unknown).
int registryMaxOpset(const std::string& domain);
bool isKnownDomain(const std::string& domain);

} // namespace dcw::onnx
