// Attribute: a typed attribute value of a library node (ONNX attributes: int, float, string, tensor,
// graph, type and their lists). Graph-valued attributes name a subgraph owned by the node.
#pragma once

#include "core/ir/Tensor.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace dcw::ir {

struct GraphRef {
  std::string name; // name of a subgraph of the owning LibraryNode
  bool operator==(const GraphRef& o) const { return name == o.name; }
};

struct TypeName {
  std::string text; // an ONNX type in text form, e.g. "tensor(float)", "seq(tensor(int64))"
  bool operator==(const TypeName& o) const { return text == o.text; }
};

enum class AttributeType { Int, Float, String, Tensor, Graph, Type, Ints, Floats, Strings, Tensors, Graphs, Types };
std::string_view attributeTypeName(AttributeType t);
std::optional<AttributeType> attributeTypeFromName(std::string_view s);

using AttributeValue = std::variant<int64_t, double, std::string, Tensor, GraphRef, TypeName,
                                    std::vector<int64_t>, std::vector<double>, std::vector<std::string>,
                                    std::vector<Tensor>, std::vector<GraphRef>, std::vector<TypeName>>;

struct Attribute {
  std::string name;
  AttributeValue value;
  AttributeType type() const { return static_cast<AttributeType>(value.index()); }
  std::string str() const; // short readable form for inspection ("[1, 1]", "tensor float32[3]", "graph body")
  bool operator==(const Attribute& o) const { return name == o.name && value == o.value; }
};

} // namespace dcw::ir
