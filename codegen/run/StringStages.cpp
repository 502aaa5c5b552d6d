#include "codegen/run/StringStages.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace dcw::codegen {

using namespace dcw::ir;

namespace {

struct OpAt {
  State* state;
  LibraryNode* node;
};

bool touchesStrings(const Sdfg& s, const State& st, const LibraryNode& n) {
  for (auto* e : st.inEdges(n.id()))
    if (auto* d = s.findData(e->memlet.data); d && d->dtype == DType::String) return true;
  for (auto* e : st.outEdges(n.id()))
    if (auto* d = s.findData(e->memlet.data); d && d->dtype == DType::String) return true;
  return false;
}

HostOp describe(const Sdfg& s, const State& st, const LibraryNode& n, const PathIndex& paths) {
  HostOp op;
  op.path = paths.pathOf(n.id());
  op.opType = n.opType;
  op.attributes = n.attributes;
  for (auto* e : st.inEdges(n.id()))
    if (!e->dstConnector.empty() && !e->memlet.data.empty()) op.inputs[e->dstConnector] = e->memlet.data;
  for (auto* e : st.outEdges(n.id()))
    if (!e->srcConnector.empty() && !e->memlet.data.empty()) {
      op.outputs[e->srcConnector] = e->memlet.data;
      if (auto* d = s.findData(e->memlet.data)) op.outputTypes[e->srcConnector] = d->dtype;
    }
  return op;
}

} // namespace

Expected<StringStages> peelStringOps(Sdfg& root) {
  StringStages stages;
  stages.modelInputs = root.inputs.size();
  stages.modelOutputs = root.outputs.size();
  // Every op in run order (states in order, each topologically), and who writes and reads each data.
  std::vector<OpAt> ops;
  std::map<std::string, std::vector<size_t>> writers, readers;
  for (State* st : root.allStates()) {
    auto order = st->topologicalOrder();
    if (!order) return order.takeError();
    for (Node* n : *order)
      if (auto* ln = dynamic_cast<LibraryNode*>(n)) {
        const size_t k = ops.size();
        ops.push_back({st, ln});
        for (auto* e : st->inEdges(ln->id())) readers[e->memlet.data].push_back(k);
        for (auto* e : st->outEdges(ln->id())) writers[e->memlet.data].push_back(k);
      }
  }
  std::vector<bool> isString(ops.size());
  bool any = false;
  for (size_t k = 0; k < ops.size(); ++k) {
    isString[k] = touchesStrings(root, *ops[k].state, *ops[k].node);
    any = any || isString[k];
  }
  if (!any) return stages;

  std::set<std::string> modelIn(root.inputs.begin(), root.inputs.end()), modelOut(root.outputs.begin(), root.outputs.end());
  std::vector<int> side(ops.size(), 0); // 1 front, 2 back
  // The front: string ops reading only model inputs, constants and the front's outputs.
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!isString[k]) continue;
    bool ok = true;
    for (auto* e : ops[k].state->inEdges(ops[k].node->id())) {
      const DataDescriptor* d = root.findData(e->memlet.data);
      if (!d || d->constant || modelIn.count(d->name())) continue;
      for (size_t w : writers[e->memlet.data]) ok = ok && side[w] == 1;
      if (writers[e->memlet.data].empty()) ok = false;
    }
    if (ok) side[k] = 1;
  }
  // The back, from the end: string ops whose outputs are model outputs or read only by the back.
  for (size_t k = ops.size(); k-- > 0;) {
    if (!isString[k] || side[k]) continue;
    bool ok = true;
    for (auto* e : ops[k].state->outEdges(ops[k].node->id())) {
      if (modelOut.count(e->memlet.data)) continue;
      for (size_t r : readers[e->memlet.data]) ok = ok && side[r] == 2;
    }
    if (ok) side[k] = 2;
  }
  PathIndex paths(root);
  for (size_t k = 0; k < ops.size(); ++k)
    if (isString[k] && !side[k])
      return fail(paths.pathOf(ops[k].node->id()) + " (" + ops[k].node->className() + ")",
                  "a string op between computed values: DCW runs string ops at the model's inputs and outputs only",
                  "move the string processing to the model's edges");
  // What crosses between host and program: the front's outputs the program reads become its inputs,
  // the program's outputs the back reads become its outputs (after the model's own).
  std::vector<std::string> extraIn, extraOut;
  auto addOnce = [](std::vector<std::string>& v, const std::string& n) {
    if (std::find(v.begin(), v.end(), n) == v.end()) v.push_back(n);
  };
  for (size_t k = 0; k < ops.size(); ++k) {
    if (side[k] == 1) {
      for (auto* e : ops[k].state->outEdges(ops[k].node->id()))
        for (size_t r : readers[e->memlet.data])
          if (!side[r] && !modelIn.count(e->memlet.data)) addOnce(extraIn, e->memlet.data);
    } else if (side[k] == 2) {
      for (auto* e : ops[k].state->inEdges(ops[k].node->id())) {
        const DataDescriptor* d = root.findData(e->memlet.data);
        if (!d || d->constant || modelIn.count(d->name())) continue;
        bool fromProgram = false;
        for (size_t w : writers[e->memlet.data]) fromProgram = fromProgram || !side[w];
        if (fromProgram) addOnce(extraOut, e->memlet.data);
      }
    }
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    if (side[k] == 1) stages.front.push_back(describe(root, *ops[k].state, *ops[k].node, paths));
    if (side[k] == 2) stages.back.push_back(describe(root, *ops[k].state, *ops[k].node, paths));
  }
  // Out of the graph: the peeled ops, then access nodes left without edges that the program does not name.
  for (size_t k = 0; k < ops.size(); ++k)
    if (side[k]) ops[k].state->removeNode(ops[k].node->id());
  for (const auto& n : extraIn) {
    DataDescriptor* d = root.findData(n);
    d->transient = false;
    root.inputs.push_back(n);
  }
  for (const auto& n : extraOut) {
    DataDescriptor* d = root.findData(n);
    d->transient = false;
    root.outputs.push_back(n);
  }
  for (State* st : root.allStates()) {
    std::vector<ElementId> lonely;
    for (auto& n : st->nodes())
      if (dynamic_cast<AccessNode*>(n.get()) && st->inEdges(n->id()).empty() && st->outEdges(n->id()).empty()) lonely.push_back(n->id());
    for (ElementId id : lonely) st->removeNode(id);
  }
  return stages;
}

namespace {

const Attribute* attrOf(const HostOp& op, const std::string& name) {
  for (auto& a : op.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

Expected<const Tensor*> inputOf(const HostOp& op, const std::map<std::string, Tensor>& values, const std::string& conn) {
  auto c = op.inputs.find(conn);
  if (c == op.inputs.end()) return fail(op.path + " (" + op.opType + ")", "input '" + conn + "' is not connected");
  auto v = values.find(c->second);
  if (v == values.end()) return fail(op.path + " (" + op.opType + ")", "input '" + c->second + "' has no value when the op runs");
  return &v->second;
}

std::string lowerAscii(std::string s) {
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string upperAscii(std::string s) {
  for (auto& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

Expected<Tensor> stringNormalizer(const HostOp& op, const Tensor& x) {
  const std::string where = op.path + " (StringNormalizer)";
  if (x.dtype != DType::String || !x.strings) return fail(where, "X must be a string tensor");
  if (!(x.dims.size() == 1 || (x.dims.size() == 2 && x.dims[0] == 1)))
    return fail(where, "X must be [C] or [1, C], not rank " + std::to_string(x.dims.size()));
  std::string action = "NONE";
  if (auto* a = attrOf(op, "case_change_action"); a && std::holds_alternative<std::string>(a->value)) action = std::get<std::string>(a->value);
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    return fail(where, "case_change_action must be NONE, LOWER or UPPER, not '" + action + "'");
  bool sensitive = false;
  if (auto* a = attrOf(op, "is_case_sensitive"); a && std::holds_alternative<int64_t>(a->value)) sensitive = std::get<int64_t>(a->value) != 0;
  std::set<std::string> stop;
  if (auto* a = attrOf(op, "stopwords"); a && std::holds_alternative<std::vector<std::string>>(a->value))
    for (auto& w : std::get<std::vector<std::string>>(a->value)) stop.insert(sensitive ? w : lowerAscii(w));
  auto out = std::make_shared<std::vector<std::string>>();
  for (auto& s : *x.strings) {
    if (stop.count(sensitive ? s : lowerAscii(s))) continue;
    out->push_back(action == "LOWER" ? lowerAscii(s) : action == "UPPER" ? upperAscii(s) : s);
  }
  // Everything removed: one empty string, as ONNX Runtime writes it.
  if (out->empty()) out->push_back("");
  Tensor y;
  y.dtype = DType::String;
  y.dims = x.dims.size() == 2 ? std::vector<int64_t>{1, int64_t(out->size())} : std::vector<int64_t>{int64_t(out->size())};
  y.strings = out;
  return y;
}

template <class T> std::string shortest(T v) {
  if (std::isnan(double(v))) return "NaN";
  if (std::isinf(double(v))) return v < 0 ? "-INF" : "INF";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

double numberAt(const Tensor& t, int64_t i) {
  const char* p = t.bytes->data();
  switch (t.dtype) {
  case DType::Float32: { float v; std::memcpy(&v, p + i * 4, 4); return v; }
  case DType::Float64: { double v; std::memcpy(&v, p + i * 8, 8); return v; }
  case DType::Int64: { int64_t v; std::memcpy(&v, p + i * 8, 8); return double(v); }
  case DType::Int32: { int32_t v; std::memcpy(&v, p + i * 4, 4); return v; }
  case DType::Int16: { int16_t v; std::memcpy(&v, p + i * 2, 2); return v; }
  case DType::Int8: return double(reinterpret_cast<const int8_t*>(p)[i]);
  case DType::UInt8: case DType::Bool: return double(reinterpret_cast<const uint8_t*>(p)[i]);
  case DType::UInt16: { uint16_t v; std::memcpy(&v, p + i * 2, 2); return v; }
  case DType::UInt32: { uint32_t v; std::memcpy(&v, p + i * 4, 4); return v; }
  case DType::UInt64: { uint64_t v; std::memcpy(&v, p + i * 8, 8); return double(v); }
  default: return 0;
  }
}

std::string textAt(const Tensor& t, int64_t i) {
  const char* p = t.bytes->data();
  switch (t.dtype) {
  case DType::Float32: { float v; std::memcpy(&v, p + i * 4, 4); return shortest(v); }
  case DType::Float64: { double v; std::memcpy(&v, p + i * 8, 8); return shortest(v); }
  case DType::Int64: { int64_t v; std::memcpy(&v, p + i * 8, 8); return std::to_string(v); }
  case DType::UInt64: { uint64_t v; std::memcpy(&v, p + i * 8, 8); return std::to_string(v); }
  case DType::Bool: return reinterpret_cast<const uint8_t*>(p)[i] ? "1" : "0";
  default: return std::to_string(int64_t(numberAt(t, i)));
  }
}

template <class T> void put(std::string& bytes, int64_t i, T v) { std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T)); }

Expected<Tensor> castStrings(const HostOp& op, const Tensor& x, DType to) {
  const std::string where = op.path + " (" + op.opType + ")";
  Tensor y;
  y.dtype = to;
  y.dims = x.dims;
  const int64_t n = x.elementCount();
  if (x.dtype == to) return x;
  if (to == DType::String) {
    if (!x.bytes) return fail(where, "the input has no values");
    auto out = std::make_shared<std::vector<std::string>>();
    for (int64_t i = 0; i < n; ++i) out->push_back(textAt(x, i));
    y.strings = out;
    return y;
  }
  if (x.dtype != DType::String || !x.strings) return fail(where, "casts between strings and numbers only");
  auto bytes = std::make_shared<std::string>(size_t(n) * dtypeSize(to), '\0');
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = (*x.strings)[size_t(i)];
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end == s.c_str())
      return fail(where, "cannot read '" + s.substr(0, 40) + "' (element " + std::to_string(i) + ") as a number", "give numbers as text");
    switch (to) {
    case DType::Float32: put(*bytes, i, float(v)); break;
    case DType::Float64: put(*bytes, i, v); break;
    case DType::Int64: put(*bytes, i, int64_t(std::strtoll(s.c_str(), nullptr, 10))); break;
    case DType::Int32: put(*bytes, i, int32_t(std::strtoll(s.c_str(), nullptr, 10))); break;
    case DType::Int16: put(*bytes, i, int16_t(std::strtoll(s.c_str(), nullptr, 10))); break;
    case DType::Int8: put(*bytes, i, int8_t(std::strtoll(s.c_str(), nullptr, 10))); break;
    case DType::UInt8: put(*bytes, i, uint8_t(std::strtoull(s.c_str(), nullptr, 10))); break;
    case DType::UInt16: put(*bytes, i, uint16_t(std::strtoull(s.c_str(), nullptr, 10))); break;
    case DType::UInt32: put(*bytes, i, uint32_t(std::strtoull(s.c_str(), nullptr, 10))); break;
    case DType::UInt64: put(*bytes, i, uint64_t(std::strtoull(s.c_str(), nullptr, 10))); break;
    case DType::Bool: put(*bytes, i, uint8_t(v != 0)); break;
    default: return fail(where, "casting strings to " + std::string(dtypeName(to)) + " is not supported");
    }
  }
  y.bytes = bytes;
  return y;
}

} // namespace

Expected<void> runHostOp(const HostOp& op, std::map<std::string, Tensor>& values) {
  const std::string where = op.path + " (" + op.opType + ")";
  auto output = [&](const std::string& conn) -> Expected<std::string> {
    auto it = op.outputs.find(conn);
    if (it == op.outputs.end()) return fail(where, "output '" + conn + "' is not connected");
    return it->second;
  };
  if (op.opType == "StringNormalizer") {
    DCW_TRY(auto x, inputOf(op, values, "X"));
    DCW_TRY(auto y, stringNormalizer(op, *x));
    DCW_TRY(auto name, output("Y"));
    values[name] = std::move(y);
    return {};
  }
  if (op.opType == "Cast" || op.opType == "CastLike") {
    DCW_TRY(auto x, inputOf(op, values, "input"));
    auto t = op.outputTypes.find("output");
    const DType to = t == op.outputTypes.end() ? DType::Undefined : t->second;
    DCW_TRY(auto y, castStrings(op, *x, to));
    DCW_TRY(auto name, output("output"));
    values[name] = std::move(y);
    return {};
  }
  if (op.opType == "Identity") {
    DCW_TRY(auto x, inputOf(op, values, "input"));
    DCW_TRY(auto name, output("output"));
    values[name] = *x;
    return {};
  }
  return fail(where, op.opType + " on strings is not supported", "DCW runs StringNormalizer, Cast, CastLike and Identity on strings");
}

} // namespace dcw::codegen
