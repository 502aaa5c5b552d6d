#include "core/onnx/OpCatalog.h"

#include <onnx/defs/schema.h>

namespace dcw::onnx {

namespace {

std::string normDomain(const std::string& d) { return d == "ai.onnx" ? "" : d; }

OpParam::Option option(::onnx::OpSchema::FormalParameterOption o) {
  switch (o) {
  case ::onnx::OpSchema::Optional: return OpParam::Option::Optional;
  case ::onnx::OpSchema::Variadic: return OpParam::Option::Variadic;
  default: return OpParam::Option::Single;
  }
}

std::string attrType(::onnx::AttributeProto::AttributeType t) {
  using A = ::onnx::AttributeProto;
  switch (t) {
  case A::INT: return "int";
  case A::FLOAT: return "float";
  case A::STRING: return "string";
  case A::TENSOR: return "tensor";
  case A::GRAPH: return "graph";
  case A::TYPE_PROTO: return "type";
  case A::INTS: return "ints";
  case A::FLOATS: return "floats";
  case A::STRINGS: return "strings";
  case A::TENSORS: return "tensors";
  case A::GRAPHS: return "graphs";
  case A::TYPE_PROTOS: return "types";
  case A::SPARSE_TENSOR: return "tensor";
  case A::SPARSE_TENSORS: return "tensors";
  default: return "undefined";
  }
}

OpClass toClass(const ::onnx::OpSchema& s) {
  OpClass c;
  c.domain = normDomain(s.domain());
  c.name = s.Name();
  c.sinceVersion = s.since_version();
  c.deprecated = s.Deprecated();
  for (auto* list : {&s.inputs(), &s.outputs()}) {
    auto& dst = list == &s.inputs() ? c.inputs : c.outputs;
    for (auto& p : *list) dst.push_back(OpParam{p.GetName(), option(p.GetOption()), p.GetTypeStr(), p.GetMinArity()});
  }
  for (auto& [name, a] : s.attributes()) c.attributes.push_back(OpAttr{name, attrType(a.type), a.required});
  c.minInputs = s.min_input();
  c.maxInputs = s.max_input();
  c.minOutputs = s.min_output();
  c.maxOutputs = s.max_output();
  return c;
}

} // namespace

std::optional<OpClass> findOpClass(const std::string& domain, const std::string& op, int opsetVersion) {
  const auto* s = ::onnx::OpSchemaRegistry::Schema(op, opsetVersion, normDomain(domain));
  if (!s) return std::nullopt;
  return toClass(*s);
}

int registryMaxOpset(const std::string& domain) {
  const auto& m = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = m.find(normDomain(domain));
  return it == m.end() ? 0 : it->second.second;
}

bool isKnownDomain(const std::string& domain) { return registryMaxOpset(domain) > 0; }

std::vector<OpClass> allOpClasses() {
  std::vector<OpClass> out;
  for (const auto& s : ::onnx::OpSchemaRegistry::get_all_schemas()) {
    const std::string d = normDomain(s.domain());
    if (d != "" && d != "ai.onnx.ml") continue;
    out.push_back(toClass(s));
  }
  return out;
}

} // namespace dcw::onnx
