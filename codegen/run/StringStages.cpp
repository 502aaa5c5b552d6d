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

// TfIdfVectorizer over string tokens (pool_strings), counted as the integer expansion counts
// (core/expansions/ops/TfIdfVectorizer.cpp): n-grams with up to max_skip_count tokens skipped between
// their items, unigrams once, weighted TF / IDF / TFIDF; float32 Y of [K] or [N, K].
Expected<Tensor> tfIdfStrings(const HostOp& op, const Tensor& x) {
  const std::string where = op.path + " (" + op.opType + ")";
  if (x.dtype != DType::String || !x.strings) return fail(where, "with a string pool, X must hold strings");
  if (x.dims.empty() || x.dims.size() > 2) return fail(where, "X must be [C] or [N, C]");
  auto ints = [&](const char* name) {
    const Attribute* a = attrOf(op, name);
    auto* v = a ? std::get_if<std::vector<int64_t>>(&a->value) : nullptr;
    return v ? *v : std::vector<int64_t>{};
  };
  auto integer = [&](const char* name) {
    const Attribute* a = attrOf(op, name);
    auto* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
    return v ? *v : int64_t(0);
  };
  const Attribute* poolAttr = attrOf(op, "pool_strings");
  auto* pool = poolAttr ? std::get_if<std::vector<std::string>>(&poolAttr->value) : nullptr;
  const Attribute* modeAttr = attrOf(op, "mode");
  auto* modeText = modeAttr ? std::get_if<std::string>(&modeAttr->value) : nullptr;
  const Attribute* weightAttr = attrOf(op, "weights");
  auto* weights = weightAttr ? std::get_if<std::vector<double>>(&weightAttr->value) : nullptr;
  const int64_t minN = integer("min_gram_length"), maxN = integer("max_gram_length"), maxSkip = integer("max_skip_count");
  const auto counts = ints("ngram_counts"), indexes = ints("ngram_indexes");
  const std::string mode = modeText ? *modeText : "";
  if (!pool || pool->empty()) return fail(where, "pool_strings is empty");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return fail(where, "mode must be TF, IDF or TFIDF, not '" + mode + "'");
  if (minN < 1 || maxN < minN || maxSkip < 0) return fail(where, "needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
  if (counts.empty() || counts[0] != 0) return fail(where, "ngram_counts must start at 0");
  std::vector<std::vector<std::string>> grams;
  for (size_t n = 1; n <= counts.size(); ++n) {
    const int64_t begin = counts[n - 1], end = n < counts.size() ? counts[n] : int64_t(pool->size());
    if (begin > end || end > int64_t(pool->size()) || (end - begin) % int64_t(n) != 0)
      return fail(where, "ngram_counts do not split pool_strings into " + std::to_string(n) + "-grams");
    for (int64_t at = begin; at < end; at += int64_t(n)) grams.emplace_back(pool->begin() + at, pool->begin() + at + int64_t(n));
  }
  if (indexes.size() != grams.size())
    return fail(where, std::to_string(grams.size()) + " n-grams but " + std::to_string(indexes.size()) + " ngram_indexes");
  if (weights && !weights->empty() && weights->size() != grams.size())
    return fail(where, std::to_string(grams.size()) + " n-grams but " + std::to_string(weights->size()) + " weights");
  int64_t K = 0;
  for (auto i : indexes) {
    if (i < 0) return fail(where, "an ngram_indexes entry is negative");
    K = std::max(K, i + 1);
  }
  const bool batched = x.dims.size() == 2;
  const int64_t rows = batched ? x.dims[0] : 1, C = x.dims.back();
  std::vector<float> y(size_t(rows * K), 0.0f);
  for (int64_t b = 0; b < rows; ++b) {
    const std::string* row = x.strings->data() + b * C;
    for (size_t j = 0; j < grams.size(); ++j) {
      const auto len = int64_t(grams[j].size());
      if (len < minN || len > maxN) continue;
      double count = 0;
      for (int64_t skip = 0; skip <= maxSkip; ++skip) {
        if (skip > 0 && len < 2) break; // a unigram counts once, not once per skip
        for (int64_t p = 0; p + (len - 1) * (skip + 1) < C; ++p) {
          bool match = true;
          for (int64_t i = 0; i < len && match; ++i) match = row[p + i * (skip + 1)] == grams[j][size_t(i)];
          count += match;
        }
      }
      const double w = weights && !weights->empty() ? (*weights)[j] : 1.0;
      const double v = mode == "TF" ? count : mode == "IDF" ? (count > 0 ? w : 0.0) : count * w;
      y[size_t(b * K + indexes[j])] = float(v);
    }
  }
  Tensor out;
  out.dtype = DType::Float32;
  out.dims = batched ? std::vector<int64_t>{rows, K} : std::vector<int64_t>{K};
  out.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(y.data()), y.size() * sizeof(float));
  return out;
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
  if (op.opType == "TfIdfVectorizer") {
    DCW_TRY(auto x, inputOf(op, values, "X"));
    DCW_TRY(auto y, tfIdfStrings(op, *x));
    DCW_TRY(auto name, output("Y"));
    values[name] = std::move(y);
    return {};
  }
  if (op.opType == "Identity") {
    DCW_TRY(auto x, inputOf(op, values, "input"));
    DCW_TRY(auto name, output("output"));
    values[name] = *x;
    return {};
  }
  return fail(where, op.opType + " on strings is not supported",
              "DCW runs StringNormalizer, Cast, CastLike, TfIdfVectorizer and Identity on strings");
}

} // namespace dcw::codegen
