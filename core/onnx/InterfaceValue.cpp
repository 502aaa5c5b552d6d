#include "core/onnx/InterfaceValue.h"

#include "core/onnx/OnnxTypes.h"
#include "core/support/AtomicFile.h"

#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>
#include <sstream>

namespace dcw::onnx {

namespace {

std::string dimsText(const std::vector<int64_t>& d) {
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "[" + s + "]";
}

// One layout from text at `pos` (recursive descent over "t", "f", "s(...)", "o(...)").
Expected<InterfaceLayout> parseLayout(const std::string& text, size_t& pos) {
  auto bad = [&] { return fail("interface layout", "malformed layout '" + text + "' at character " + std::to_string(pos)); };
  if (pos >= text.size()) return bad();
  InterfaceLayout l;
  char c = text[pos++];
  if (c == 't') return l;
  if (c == 'f') {
    l.kind = InterfaceLayout::Kind::Folded;
    return l;
  }
  if (c != 's' && c != 'o') return bad();
  l.kind = c == 's' ? InterfaceLayout::Kind::Sequence : InterfaceLayout::Kind::Optional;
  if (pos >= text.size() || text[pos++] != '(') return bad();
  if (pos < text.size() && text[pos] == ')') {
    ++pos;
    return l;
  }
  while (true) {
    DCW_TRY(auto e, parseLayout(text, pos));
    l.elements.push_back(std::move(e));
    if (pos >= text.size()) return bad();
    char d = text[pos++];
    if (d == ')') break;
    if (d != ',') return bad();
  }
  if (l.kind == InterfaceLayout::Kind::Optional && l.elements.size() > 1) return bad();
  return l;
}

Expected<void> flattenOne(const InterfaceValue& v, const InterfaceLayout& l, const std::string& where, std::vector<ir::Tensor>& out) {
  using K = InterfaceLayout::Kind;
  auto mismatch = [&] {
    return fail(where, "is " + v.describe() + ", but the program was built for " + l.str(),
                "build the program for these inputs (the layout is fixed when the model is specialized)");
  };
  switch (l.kind) {
  case K::Folded: return {};
  case K::Tensor:
    if (v.kind != InterfaceValue::Kind::Tensor) return mismatch();
    out.push_back(v.tensor);
    return {};
  case K::Sequence:
  case K::Optional:
    if ((l.kind == K::Sequence) != (v.kind == InterfaceValue::Kind::Sequence) ||
        (l.kind == K::Optional) != (v.kind == InterfaceValue::Kind::Optional) || v.elements.size() != l.elements.size())
      return mismatch();
    for (size_t i = 0; i < v.elements.size(); ++i)
      DCW_CHECK(flattenOne(v.elements[i], l.elements[i], where + "[" + std::to_string(i) + "]", out));
    return {};
  }
  return mismatch();
}

InterfaceValue regroupOne(const InterfaceLayout& l, const std::vector<ir::Tensor>& flat, size_t& next) {
  InterfaceValue v;
  if (l.kind == InterfaceLayout::Kind::Tensor) {
    v.tensor = flat[next++];
    return v;
  }
  v.kind = l.kind == InterfaceLayout::Kind::Sequence ? InterfaceValue::Kind::Sequence : InterfaceValue::Kind::Optional;
  for (auto& e : l.elements) v.elements.push_back(regroupOne(e, flat, next));
  return v;
}

InterfaceValue::Kind kindOf(const ::onnx::TypeProto& t) {
  if (t.has_sequence_type()) return InterfaceValue::Kind::Sequence;
  if (t.has_optional_type()) return InterfaceValue::Kind::Optional;
  return InterfaceValue::Kind::Tensor;
}

Expected<InterfaceValue> fromTensorProto(::onnx::TensorProto t, const std::string& where) {
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
    return fail(where, "tensor files with external data are not supported", "store the tensor inline");
  DCW_TRY(auto tensor, tensorFromOnnx(t, where, /*steal=*/true));
  return InterfaceValue::ofTensor(std::move(tensor));
}

Expected<InterfaceValue> fromSequenceProto(const ::onnx::SequenceProto& s, const std::string& where);

Expected<InterfaceValue> fromOptionalProto(const ::onnx::OptionalProto& o, const std::string& where) {
  InterfaceValue v;
  v.kind = InterfaceValue::Kind::Optional;
  if (o.has_tensor_value()) {
    DCW_TRY(auto e, fromTensorProto(o.tensor_value(), where));
    v.elements.push_back(std::move(e));
  } else if (o.has_sequence_value()) {
    DCW_TRY(auto e, fromSequenceProto(o.sequence_value(), where));
    v.elements.push_back(std::move(e));
  } else if (o.has_optional_value() || o.has_map_value() || o.has_sparse_tensor_value()) {
    return fail(where, "holds an optional of a map, sparse tensor or optional", "DCW passes tensors, sequences and optionals of them");
  }
  return v;
}

Expected<InterfaceValue> fromSequenceProto(const ::onnx::SequenceProto& s, const std::string& where) {
  InterfaceValue v;
  v.kind = InterfaceValue::Kind::Sequence;
  if (s.sparse_tensor_values_size() || s.map_values_size())
    return fail(where, "holds a sequence of maps or sparse tensors", "DCW passes sequences of tensors, sequences and optionals");
  for (int i = 0; i < s.tensor_values_size(); ++i) {
    DCW_TRY(auto e, fromTensorProto(s.tensor_values(i), where + "[" + std::to_string(i) + "]"));
    v.elements.push_back(std::move(e));
  }
  for (int i = 0; i < s.sequence_values_size(); ++i) {
    DCW_TRY(auto e, fromSequenceProto(s.sequence_values(i), where + "[" + std::to_string(i) + "]"));
    v.elements.push_back(std::move(e));
  }
  for (int i = 0; i < s.optional_values_size(); ++i) {
    DCW_TRY(auto e, fromOptionalProto(s.optional_values(i), where + "[" + std::to_string(i) + "]"));
    v.elements.push_back(std::move(e));
  }
  return v;
}

void toSequenceProto(const InterfaceValue& v, ::onnx::SequenceProto& s);

void toOptionalProto(const InterfaceValue& v, ::onnx::OptionalProto& o) {
  o.set_elem_type(::onnx::OptionalProto::UNDEFINED);
  if (v.elements.empty()) return;
  const InterfaceValue& e = v.elements[0];
  if (e.kind == InterfaceValue::Kind::Tensor) {
    o.set_elem_type(::onnx::OptionalProto::TENSOR);
    *o.mutable_tensor_value() = tensorToOnnx(e.tensor, "");
    o.mutable_tensor_value()->clear_name();
  } else if (e.kind == InterfaceValue::Kind::Sequence) {
    o.set_elem_type(::onnx::OptionalProto::SEQUENCE);
    toSequenceProto(e, *o.mutable_sequence_value());
  } else {
    o.set_elem_type(::onnx::OptionalProto::OPTIONAL);
    toOptionalProto(e, *o.mutable_optional_value());
  }
}

void toSequenceProto(const InterfaceValue& v, ::onnx::SequenceProto& s) {
  s.set_elem_type(::onnx::SequenceProto::TENSOR);
  for (auto& e : v.elements) {
    if (e.kind == InterfaceValue::Kind::Tensor) {
      auto* t = s.add_tensor_values();
      *t = tensorToOnnx(e.tensor, "");
      t->clear_name(); // as ONNX writes them
    } else if (e.kind == InterfaceValue::Kind::Sequence) {
      s.set_elem_type(::onnx::SequenceProto::SEQUENCE);
      toSequenceProto(e, *s.add_sequence_values());
    } else {
      s.set_elem_type(::onnx::SequenceProto::OPTIONAL);
      toOptionalProto(e, *s.add_optional_values());
    }
  }
}

} // namespace

InterfaceValue InterfaceValue::ofTensor(ir::Tensor t) {
  InterfaceValue v;
  v.tensor = std::move(t);
  return v;
}

std::string InterfaceValue::describe() const {
  switch (kind) {
  case Kind::Tensor: return std::string(ir::dtypeName(tensor.dtype)) + dimsText(tensor.dims);
  case Kind::Sequence: return "a sequence of " + std::to_string(elements.size()) + " values";
  case Kind::Optional: return elements.empty() ? "an empty optional" : "an optional holding " + elements[0].describe();
  }
  return "?";
}

std::string InterfaceLayout::str() const {
  switch (kind) {
  case Kind::Tensor: return "t";
  case Kind::Folded: return "f";
  case Kind::Sequence:
  case Kind::Optional: {
    std::string s = kind == Kind::Sequence ? "s(" : "o(";
    for (size_t i = 0; i < elements.size(); ++i) s += (i ? "," : "") + elements[i].str();
    return s + ")";
  }
  }
  return "?";
}

Expected<InterfaceLayout> InterfaceLayout::parse(const std::string& text) {
  size_t pos = 0;
  DCW_TRY(auto l, parseLayout(text, pos));
  if (pos != text.size()) return fail("interface layout", "trailing text in layout '" + text + "'");
  return l;
}

size_t InterfaceLayout::tensorCount() const {
  if (kind == Kind::Tensor) return 1;
  size_t n = 0;
  for (auto& e : elements) n += e.tensorCount();
  return n;
}

InterfaceLayout InterfaceLayout::of(const InterfaceValue& v) {
  InterfaceLayout l;
  if (v.kind == InterfaceValue::Kind::Tensor) return l;
  l.kind = v.kind == InterfaceValue::Kind::Sequence ? Kind::Sequence : Kind::Optional;
  for (auto& e : v.elements) l.elements.push_back(of(e));
  return l;
}

std::string ModelInterface::str() const {
  std::string s;
  for (auto& [n, l] : inputs) s += "in " + n + " " + l.str() + "\n";
  for (auto& [n, l] : outputs) s += "out " + n + " " + l.str() + "\n";
  return s;
}

Expected<ModelInterface> ModelInterface::parse(const std::string& text) {
  ModelInterface m;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    // NAME may hold spaces: the direction is the first word, the layout the last.
    auto first = line.find(' '), last = line.rfind(' ');
    if (first == std::string::npos || first == last) return fail("interface metadata", "malformed line '" + line + "'");
    std::string dir = line.substr(0, first), name = line.substr(first + 1, last - first - 1);
    DCW_TRY(auto l, InterfaceLayout::parse(line.substr(last + 1)));
    if (dir == "in") m.inputs.emplace_back(name, std::move(l));
    else if (dir == "out") m.outputs.emplace_back(name, std::move(l));
    else return fail("interface metadata", "malformed line '" + line + "'");
  }
  return m;
}

Expected<std::vector<ir::Tensor>> ModelInterface::flatten(const std::vector<InterfaceValue>& values) const {
  if (values.size() != inputs.size())
    return fail("inputs", "the model takes " + std::to_string(inputs.size()) + " inputs, " + std::to_string(values.size()) + " were given");
  std::vector<ir::Tensor> out;
  for (size_t i = 0; i < values.size(); ++i) DCW_CHECK(flattenOne(values[i], inputs[i].second, "input '" + inputs[i].first + "'", out));
  return out;
}

Expected<std::vector<InterfaceValue>> ModelInterface::regroup(const std::vector<ir::Tensor>& flat) const {
  size_t want = 0;
  for (auto& [n, l] : outputs) want += l.tensorCount();
  if (want != flat.size())
    return fail("outputs", "the program returned " + std::to_string(flat.size()) + " tensors, its interface has " + std::to_string(want));
  std::vector<InterfaceValue> out;
  size_t next = 0;
  for (auto& [n, l] : outputs) out.push_back(regroupOne(l, flat, next));
  return out;
}

bool DeclaredInterface::structured() const {
  for (auto* side : {&inputs, &outputs})
    for (auto& [n, k] : *side)
      if (k != InterfaceValue::Kind::Tensor) return true;
  return false;
}

Expected<DeclaredInterface> declaredInterface(const std::string& onnxPath) {
  std::ifstream in(onnxPath, std::ios::binary);
  if (!in) return fail(onnxPath, "cannot open the model", "check the path");
  ::onnx::ModelProto m;
  if (!m.ParseFromIstream(&in)) return fail(onnxPath, "not a valid ONNX model", "re-export the model");
  DeclaredInterface d;
  std::set<std::string> inits;
  for (auto& t : m.graph().initializer()) inits.insert(t.name());
  for (auto& v : m.graph().input())
    if (!inits.count(v.name())) {
      d.inputs.emplace_back(v.name(), kindOf(v.type()));
      if (!v.type().has_tensor_type()) continue;
      const auto& tt = v.type().tensor_type();
      const bool scalar = tt.has_shape() && (tt.shape().dim_size() == 0 || (tt.shape().dim_size() == 1 && tt.shape().dim(0).dim_value() == 1));
      if (scalar && (tt.elem_type() == ::onnx::TensorProto::INT64 || tt.elem_type() == ::onnx::TensorProto::INT32))
        d.scalarIntegers[v.name()] = dtypeFromOnnx(tt.elem_type());
    }
  for (auto& v : m.graph().output()) d.outputs.emplace_back(v.name(), kindOf(v.type()));
  return d;
}

Expected<InterfaceValue> readInterfaceValue(const std::string& path, InterfaceValue::Kind kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, "cannot open the value file", "check the path");
  switch (kind) {
  case InterfaceValue::Kind::Tensor: {
    ::onnx::TensorProto t;
    if (!t.ParseFromIstream(&in))
      return fail(path, "not a serialized ONNX TensorProto", "tensor files are written by onnx.numpy_helper.from_array(...).SerializeToString()");
    return fromTensorProto(std::move(t), path);
  }
  case InterfaceValue::Kind::Sequence: {
    ::onnx::SequenceProto s;
    if (!s.ParseFromIstream(&in))
      return fail(path, "not a serialized ONNX SequenceProto", "sequence files are written by onnx.numpy_helper.from_list(...).SerializeToString()");
    return fromSequenceProto(s, path);
  }
  case InterfaceValue::Kind::Optional: {
    ::onnx::OptionalProto o;
    if (!o.ParseFromIstream(&in))
      return fail(path, "not a serialized ONNX OptionalProto", "optional files are written by onnx.numpy_helper.from_optional(...).SerializeToString()");
    return fromOptionalProto(o, path);
  }
  }
  return fail(path, "unknown value kind");
}

} // namespace dcw::onnx

namespace dcw::onnx {

Expected<void> writeInterfaceValue(const std::string& path, const InterfaceValue& value, const std::string& name) {
  std::string bytes;
  bool ok = false;
  if (value.kind == InterfaceValue::Kind::Tensor) {
    ok = tensorToOnnx(value.tensor, name).SerializeToString(&bytes);
  } else if (value.kind == InterfaceValue::Kind::Sequence) {
    ::onnx::SequenceProto s;
    toSequenceProto(value, s);
    s.set_name(name);
    ok = s.SerializeToString(&bytes);
  } else {
    ::onnx::OptionalProto o;
    toOptionalProto(value, o);
    o.set_name(name);
    ok = o.SerializeToString(&bytes);
  }
  if (!ok) return fail(path, "cannot write the value file: it does not serialize (over 2 GiB?)");
  return writeFileAtomically(path, bytes);
}

} // namespace dcw::onnx
