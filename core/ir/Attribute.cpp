#include "core/ir/Attribute.h"

#include <array>
#include <charconv>

namespace dcw::ir {

namespace {
constexpr std::array<std::string_view, 12> kNames{"int", "float", "string", "tensor", "graph", "type",
                                                  "ints", "floats", "strings", "tensors", "graphs", "types"};

// Shortest text that reads back to the same value; ONNX float attributes are float32, so a value that
// is exactly a float prints as one ("1e-05", not "9.99999975e-06").
std::string fmt(double d) {
  char buf[64];
  auto f = static_cast<float>(d);
  auto r = static_cast<double>(f) == d ? std::to_chars(buf, buf + sizeof buf, f) : std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string tensorStr(const Tensor& t) {
  std::string s = "tensor " + std::string(dtypeName(t.dtype)) + "[";
  for (size_t i = 0; i < t.dims.size(); ++i) s += (i ? ", " : "") + std::to_string(t.dims[i]);
  return s + "]";
}

template <class T, class F>
std::string list(const std::vector<T>& v, F f, size_t maxItems = 16) {
  std::string s = "[";
  for (size_t i = 0; i < v.size() && i < maxItems; ++i) s += (i ? ", " : "") + f(v[i]);
  if (v.size() > maxItems) s += ", … (" + std::to_string(v.size()) + " items)";
  return s + "]";
}
} // namespace

std::string_view attributeTypeName(AttributeType t) { return kNames[static_cast<size_t>(t)]; }

std::optional<AttributeType> attributeTypeFromName(std::string_view s) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == s) return static_cast<AttributeType>(i);
  return std::nullopt;
}

std::string Attribute::str() const {
  struct V {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt(v); }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const Tensor& v) const { return tensorStr(v); }
    std::string operator()(const GraphRef& v) const { return "graph " + v.name; }
    std::string operator()(const TypeName& v) const { return v.text; }
    std::string operator()(const std::vector<int64_t>& v) const { return list(v, [](int64_t x) { return std::to_string(x); }); }
    std::string operator()(const std::vector<double>& v) const { return list(v, fmt); }
    std::string operator()(const std::vector<std::string>& v) const { return list(v, [](const std::string& x) { return "\"" + x + "\""; }); }
    std::string operator()(const std::vector<Tensor>& v) const { return list(v, tensorStr); }
    std::string operator()(const std::vector<GraphRef>& v) const { return list(v, [](const GraphRef& g) { return "graph " + g.name; }); }
    std::string operator()(const std::vector<TypeName>& v) const { return list(v, [](const TypeName& t) { return t.text; }); }
  };
  return std::visit(V{}, value);
}

} // namespace dcw::ir
