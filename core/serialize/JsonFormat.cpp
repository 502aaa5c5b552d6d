// JsonFormat: the `*.dcw.json` project format (also documented in docs/dcw-json-format.md).
//
// A file is one JSON object, written with a fixed key order, 1-space indentation (a container of
// scalars stays on one line when it fits in 100 columns) and a final newline, so that equal SDFGs give
// equal bytes and diffs stay readable:
//
//   {"format": "dcw", "version": 1, "next_id": 42, "sdfg": SDFG}
//
// `next_id` is the id the root SDFG hands out next; keeping it means ids of deleted elements are not
// reused after a reload (histories refer to them). Every element object carries "id" (a positive
// integer, unique in the whole file, at most 2^53-1) and "label". Symbolic expressions and subsets
// are their str() text ("2*N + 1", "i, 0:N:2", ranges half-open) and are re-parsed on load.
//
//   SDFG        {id, label (= the SDFG's name), symbols {name: dtype}, inputs [name], outputs [name],
//                metadata {key: text}, data [DATA], start_block (id | null), blocks [BLOCK],
//                edges [INTERSTATE]}
//   DATA        {id, label (= the container's name), kind (scalar|array|view|stream), dtype,
//                shape [expr], strides [expr], offset expr, rank_known, wrappers [sequence|optional],
//                storage, memory_bank? (FPGA global memory), lifetime, transient, source_name, constant? TENSOR}
//   BLOCK       {kind: "state", id, label, nodes [NODE], edges [EDGE]}
//             | {kind: "loop", id, label, loop_variable, init, condition, update, start_block, blocks, edges}
//             | {kind: "conditional", id, label, branches [{id, label, condition? expr, start_block, blocks,
//                edges}]}               (a branch without "condition" is the else branch)
//   INTERSTATE  {id, label, src (block id), dst, condition expr, assignments [{symbol, value expr}]}
//   NODE        {kind, id, label, <kind fields>, in_connectors [CONN], out_connectors [CONN]}
//       access       data
//       tasklet      code, language (dcw|cpp); a cpp tasklet also: environments [name], flops? expr,
//                    in_place [[output connector, input connector]] (each optional on load: absent =
//                    none / undeclared)
//       map_entry    params [name], range subset, schedule, exit (map_exit id | null)
//       map_exit     entry (map_entry id | null)
//       library      domain, op_type, opset_version, implementation, opaque, source_name,
//                    attributes [{name, type, value}], subgraphs [{name, sdfg SDFG}]
//       nested_sdfg  sdfg SDFG, symbol_mapping {symbol: expr}
//   CONN        {name, dtype, optional}
//   EDGE        {id, label, src (node id), src_conn, dst, dst_conn,
//                memlet {data, subset, other_subset?, volume expr, dynamic, wcr}}
//   TENSOR      {dtype, dims [int], base64 "..."} for numeric types (little-endian bytes, RFC 4648),
//               {dtype, dims [int], strings [TEXT]} for dtype "string"
//   TEXT        a JSON string, or {"base64": "..."} when the bytes are not valid UTF-8 (tensor strings
//               and string attributes may hold binary data)
//   attribute values by type: int → integer; float → number, or "nan" / "inf" / "-inf" (JSON has no
//   such numbers; a NaN's sign and payload are not kept); string → TEXT; tensor → TENSOR;
//   graph → the subgraph's name; type → its text ("tensor(float)"); ints/floats/strings/tensors/
//   graphs/types → arrays of the same. Doubles are printed shortest-round-trip, so they load exactly.
//
// Other text fields (labels, code, names) are written as UTF-8; invalid UTF-8 is replaced by U+FFFD.
//
// Loading builds the tree through the IR API, which renumbers subtrees as they are attached; the
// loader records every element's stored id and label and every id reference (edge ends, start
// blocks, map entry/exit links) and applies them all at the end, then sets the allocator to next_id.
// The loader checks what it needs to build a consistent tree — JSON syntax, field presence and
// types, enum names, expression syntax, unique positive ids, edges/start blocks/
// map links that name existing ids of the right scope, base64 payloads and their sizes — and leaves
// semantic checks (declared data and symbols, connectors, scopes) to ir::validate(). Errors name
// "<source>: <JSON pointer>" of the offending value, or "<source>:<line>:<column>" for syntax errors.
#include "core/serialize/JsonFormat.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Walk.h"
#include "core/serialize/Base64.h"
#include "core/support/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace dcw::serialize {

namespace {

using json = nlohmann::ordered_json;
using namespace dcw::ir;

constexpr const char* kFormatTag = "dcw";
constexpr ElementId kMaxId = (ElementId(1) << 53) - 1; // exactly representable by every JSON reader
// SDFGs and regions inside each other. An ONNX body is two levels (its SDFG and its state), and DCW
// imports bodies nested up to 1,000 deep (onnx::kMaxSubgraphNesting), so such a model round-trips.
constexpr int kMaxNesting = 2200;
// A nesting level takes at most three JSON levels (a nested SDFG: node object, "sdfg" object, "blocks"
// array), so text nested deeper than this is refused before parsing: nlohmann's parser of ordered
// objects slows down with the square of the depth, and a hostile file must not hang the load.
constexpr size_t kMaxJsonDepth = 4 * size_t(kMaxNesting) + 64;

// The deepest bracket nesting of `text` (outside strings), stopping once past `limit`.
size_t jsonDepth(std::string_view text, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// ------------------------------------------------------------------------------------------------
// Text helpers

bool isValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false; // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n + 1;
  }
  return true;
}

// JSON pointer token (RFC 6901): '~' → "~0", '/' → "~1".
std::string pointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string quote(std::string_view s, size_t max = 60) {
  if (s.size() > max) return "'" + std::string(s.substr(0, max)) + "…'";
  return "'" + std::string(s) + "'";
}

template <class E>
std::string enumNames(std::string_view (*name)(E), int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += (i ? ", " : "") + std::string(name(static_cast<E>(i)));
  return out;
}

std::string_view dtypeNameOf(DType t) { return dtypeName(t); }
constexpr int kDTypeCount = static_cast<int>(DType::String) + 1;
constexpr int kScheduleCount = static_cast<int>(Schedule::Vectorized) + 1;
constexpr int kStorageCount = static_cast<int>(StorageType::FpgaLocal) + 1;
constexpr int kLifetimeCount = static_cast<int>(Lifetime::External) + 1;
constexpr int kDataKindCount = static_cast<int>(DataKind::Stream) + 1;
constexpr int kWrapperCount = static_cast<int>(Wrapper::Optional) + 1;
constexpr int kAttributeTypeCount = static_cast<int>(AttributeType::Types) + 1;

std::optional<TaskletLanguage> taskletLanguageFromName(std::string_view s) {
  if (s == taskletLanguageName(TaskletLanguage::Dcw)) return TaskletLanguage::Dcw;
  if (s == taskletLanguageName(TaskletLanguage::Cpp)) return TaskletLanguage::Cpp;
  return std::nullopt;
}

// ------------------------------------------------------------------------------------------------
// Writer

json writeId(ElementId id) { return id == kNoId ? json(nullptr) : json(id); }

json writeText(const std::string& s) {
  if (isValidUtf8(s)) return s;
  json o = json::object();
  o["base64"] = base64Encode(s);
  return o;
}

json writeExprs(const std::vector<sym::Expr>& v) {
  json a = json::array();
  for (const auto& e : v) a.push_back(e.str());
  return a;
}

json writeFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

json writeTensor(const Tensor& t) {
  json o = json::object();
  o["dtype"] = dtypeName(t.dtype);
  o["dims"] = t.dims;
  if (t.dtype == DType::String) {
    json a = json::array();
    if (t.strings)
      for (const auto& s : *t.strings) a.push_back(writeText(s));
    o["strings"] = std::move(a);
  } else {
    o["base64"] = t.bytes ? base64Encode(*t.bytes) : std::string();
  }
  return o;
}

struct AttributeValueWriter {
  json operator()(int64_t v) const { return v; }
  json operator()(double v) const { return writeFloat(v); }
  json operator()(const std::string& v) const { return writeText(v); }
  json operator()(const Tensor& v) const { return writeTensor(v); }
  json operator()(const GraphRef& v) const { return v.name; }
  json operator()(const TypeName& v) const { return v.text; }
  json operator()(const std::vector<int64_t>& v) const { return v; }
  template <class T>
  json operator()(const std::vector<T>& v) const {
    json a = json::array();
    for (const auto& x : v) a.push_back((*this)(x));
    return a;
  }
};

json writeAttributeValue(const AttributeValue& value) { return std::visit(AttributeValueWriter{}, value); }

json writeConnectors(const std::vector<Connector>& v) {
  json a = json::array();
  for (const auto& c : v) {
    json o = json::object();
    o["name"] = c.name;
    o["dtype"] = dtypeName(c.dtype);
    o["optional"] = c.optional;
    a.push_back(std::move(o));
  }
  return a;
}

json writeSdfg(const Sdfg& s);

// An object with room for `fields` keys. An ordered_json object is a vector of (const key, value)
// pairs, which it copies, not moves, when it grows: a key added after a nested SDFG copied the whole
// SDFG, at every level of a deep nest (quadratic in the depth).
json objectFor(size_t fields) {
  json o = json::object();
  o.get_ref<json::object_t&>().reserve(fields);
  return o;
}

json writeNode(const Node& n) {
  json o = objectFor(20);
  o["kind"] = elementKindName(n.kind());
  o["id"] = n.id();
  o["label"] = n.label();
  if (auto* a = dynamic_cast<const AccessNode*>(&n)) {
    o["data"] = a->data();
  } else if (auto* t = dynamic_cast<const Tasklet*>(&n)) {
    o["code"] = t->code;
    o["language"] = taskletLanguageName(t->language);
    if (t->language == TaskletLanguage::Cpp) {
      o["environments"] = t->environments;
      if (t->flops) o["flops"] = t->flops->str();
      if (!t->inPlace.empty()) {
        json pairs = json::array();
        for (auto& [out, in] : t->inPlace) pairs.push_back(json::array({out, in}));
        o["in_place"] = pairs;
      }
    }
  } else if (auto* me = dynamic_cast<const MapEntry*>(&n)) {
    o["params"] = me->params;
    o["range"] = me->range.str();
    o["schedule"] = scheduleName(me->schedule);
    o["exit"] = writeId(me->exitId);
  } else if (auto* mx = dynamic_cast<const MapExit*>(&n)) {
    o["entry"] = writeId(mx->entryId);
  } else if (auto* l = dynamic_cast<const LibraryNode*>(&n)) {
    o["domain"] = l->domain;
    o["op_type"] = l->opType;
    o["opset_version"] = l->opsetVersion;
    o["implementation"] = l->implementation;
    o["opaque"] = l->opaque;
    o["source_name"] = l->sourceName;
    json attrs = json::array();
    for (const auto& at : l->attributes) {
      json ao = json::object();
      ao["name"] = at.name;
      ao["type"] = attributeTypeName(at.type());
      ao["value"] = writeAttributeValue(at.value);
      attrs.push_back(std::move(ao));
    }
    o["attributes"] = std::move(attrs);
    json subs = json::array();
    for (const auto& g : l->subgraphs()) {
      json go = objectFor(2);
      go["name"] = g.name;
      go["sdfg"] = writeSdfg(*g.sdfg);
      subs.push_back(std::move(go));
    }
    o["subgraphs"] = std::move(subs);
  } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(&n)) {
    o["sdfg"] = writeSdfg(ns->sdfg());
    json m = json::object();
    for (const auto& [name, e] : ns->symbolMapping) m[name] = e.str();
    o["symbol_mapping"] = std::move(m);
  }
  o["in_connectors"] = writeConnectors(n.inConnectors());
  o["out_connectors"] = writeConnectors(n.outConnectors());
  return o;
}

json writeMemlet(const Memlet& m) {
  json o = json::object();
  o["data"] = m.data;
  o["subset"] = m.subset.str();
  if (m.otherSubset) o["other_subset"] = m.otherSubset->str();
  o["volume"] = m.volume.str();
  o["dynamic"] = m.dynamic;
  o["wcr"] = m.wcr;
  return o;
}

json writeDataflowEdge(const DataflowEdge& e) {
  json o = json::object();
  o["id"] = e.id();
  o["label"] = e.label();
  o["src"] = e.src;
  o["src_conn"] = e.srcConnector;
  o["dst"] = e.dst;
  o["dst_conn"] = e.dstConnector;
  o["memlet"] = writeMemlet(e.memlet);
  return o;
}

json writeInterstateEdge(const InterstateEdge& e) {
  json o = json::object();
  o["id"] = e.id();
  o["label"] = e.label();
  o["src"] = e.src;
  o["dst"] = e.dst;
  o["condition"] = e.condition.str();
  json a = json::array();
  for (const auto& [name, value] : e.assignments) {
    json x = json::object();
    x["symbol"] = name;
    x["value"] = value.str();
    a.push_back(std::move(x));
  }
  o["assignments"] = std::move(a);
  return o;
}

json writeBlock(const ControlFlowBlock& b);

void writeRegionBody(json& o, const ControlFlowRegion& r) {
  o["start_block"] = writeId(r.startBlock());
  json blocks = json::array();
  for (const auto& b : r.blocks()) blocks.push_back(writeBlock(*b));
  o["blocks"] = std::move(blocks);
  json edges = json::array();
  for (const auto& e : r.edges()) edges.push_back(writeInterstateEdge(*e));
  o["edges"] = std::move(edges);
}

json writeBranch(const BranchRegion& br) {
  json o = objectFor(8);
  o["id"] = br.id();
  o["label"] = br.label();
  if (br.condition) o["condition"] = br.condition->str();
  writeRegionBody(o, br);
  return o;
}

json writeBlock(const ControlFlowBlock& b) {
  json o = objectFor(12);
  o["kind"] = elementKindName(b.kind());
  o["id"] = b.id();
  o["label"] = b.label();
  if (auto* st = dynamic_cast<const State*>(&b)) {
    json nodes = json::array();
    for (const auto& n : st->nodes()) nodes.push_back(writeNode(*n));
    o["nodes"] = std::move(nodes);
    json edges = json::array();
    for (const auto& e : st->edges()) edges.push_back(writeDataflowEdge(*e));
    o["edges"] = std::move(edges);
  } else if (auto* loop = dynamic_cast<const LoopRegion*>(&b)) {
    o["loop_variable"] = loop->loopVariable;
    o["init"] = loop->init.str();
    o["condition"] = loop->condition.str();
    o["update"] = loop->update.str();
    writeRegionBody(o, *loop);
  } else if (auto* cond = dynamic_cast<const ConditionalRegion*>(&b)) {
    json branches = json::array();
    for (const auto& br : cond->branches()) branches.push_back(writeBranch(*br));
    o["branches"] = std::move(branches);
  } else if (auto* region = dynamic_cast<const ControlFlowRegion*>(&b)) {
    // Not produced by the IR API (an SDFG or a bare region used as a block); written so that
    // nothing is silently dropped, and rejected by the loader as an unknown block kind.
    writeRegionBody(o, *region);
  }
  return o;
}

json writeData(const DataDescriptor& d) {
  json o = json::object();
  o["id"] = d.id();
  o["label"] = d.name();
  o["kind"] = dataKindName(d.dataKind);
  o["dtype"] = dtypeName(d.dtype);
  o["shape"] = writeExprs(d.shape);
  o["strides"] = writeExprs(d.strides);
  o["offset"] = d.offset.str();
  if (d.channelBlock > 0) o["channel_block"] = d.channelBlock;
  o["rank_known"] = d.rankKnown;
  json w = json::array();
  for (auto x : d.wrappers) w.push_back(wrapperName(x));
  o["wrappers"] = std::move(w);
  o["storage"] = storageName(d.storage);
  if (d.memoryBank >= 0) o["memory_bank"] = d.memoryBank;
  if (d.partition != PartitionKind::None) {
    o["partition"] = partitionName(d.partition);
    if (d.partition != PartitionKind::Complete) o["partition_factor"] = d.partitionFactor;
  }
  o["lifetime"] = lifetimeName(d.lifetime);
  o["transient"] = d.transient;
  o["source_name"] = d.sourceName;
  if (d.constant) o["constant"] = writeTensor(*d.constant);
  return o;
}

json writeSdfg(const Sdfg& s) {
  json o = objectFor(12);
  o["id"] = s.id();
  o["label"] = s.name();
  json symbols = json::object();
  for (const auto& [name, type] : s.symbols()) symbols[name] = dtypeName(type);
  o["symbols"] = std::move(symbols);
  o["inputs"] = s.inputs;
  o["outputs"] = s.outputs;
  json meta = json::object();
  for (const auto& [k, v] : s.metadata) meta[k] = v;
  o["metadata"] = std::move(meta);
  json data = json::array();
  for (const auto& d : s.data()) data.push_back(writeData(*d));
  o["data"] = std::move(data);
  writeRegionBody(o, s);
  return o;
}

// ------------------------------------------------------------------------------------------------
// Reader

// Thrown inside the reader only; fromJson turns it into an Expected.
struct LoadError {
  Diagnostic diagnostic;
};

enum class JType { String, Bool, Integer, Number, Array, Object };

const char* typeWord(JType t) {
  switch (t) {
  case JType::String: return "a string";
  case JType::Bool: return "a boolean";
  case JType::Integer: return "an integer";
  case JType::Number: return "a number";
  case JType::Array: return "an array";
  case JType::Object: return "an object";
  }
  return "?";
}

std::string foundWord(const json& v) {
  if (v.is_number_float()) return "a floating-point number";
  if (v.is_number()) return "an integer";
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "a " + std::string(v.type_name());
}

bool hasType(const json& v, JType t) {
  switch (t) {
  case JType::String: return v.is_string();
  case JType::Bool: return v.is_boolean();
  case JType::Integer: return v.is_number_integer();
  case JType::Number: return v.is_number();
  case JType::Array: return v.is_array();
  case JType::Object: return v.is_object();
  }
  return false;
}

class Reader {
public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  std::unique_ptr<Sdfg> document(const json& doc) {
    if (!doc.is_object())
      error("", "the document is " + foundWord(doc) + ", not a DCW project",
            "a *.dcw.json file is an object {\"format\": \"dcw\", \"version\": 1, ...}");
    auto fit = doc.find("format");
    if (fit == doc.end() || !fit->is_string())
      error("", "this JSON file is not a DCW project (it has no \"format\": \"dcw\" tag)",
            "open a file saved by DCW, or import the model instead");
    if (*fit != kFormatTag)
      error("/format", "this JSON file is not a DCW project (format " + quote(fit->get<std::string>()) + ", expected 'dcw')",
            "open a file saved by DCW, or import the model instead");
    auto vit = doc.find("version");
    if (vit == doc.end()) error("", "required field \"version\" is missing (expected an integer)");
    if (!vit->is_number_integer())
      error("/version", "\"version\" must be an integer, not " + foundWord(*vit));
    if (vit->is_number_unsigned() ? vit->get<uint64_t>() > static_cast<uint64_t>(kFormatVersion)
                                  : vit->get<int64_t>() > kFormatVersion)
      error("/version",
            "file format version " + vit->dump() + " is newer than this DCW supports (version " +
                std::to_string(kFormatVersion) + ")",
            "open it with a newer DCW");
    if (vit->get<int64_t>() < 1)
      error("/version", "file format version " + vit->dump() + " does not exist", "versions start at 1");

    ElementId nextId = id(doc, "", "next_id");

    // Attaching a subtree to an SDFG renumbers it from the root's allocator (Sdfg::adopt); those
    // throwaway ids are replaced below and the allocator is then set to exactly `next_id`.
    auto sdfg = readSdfg(field(doc, "", "sdfg", JType::Object), "/sdfg");
    if (nextId <= maxId_)
      error("/next_id", "next_id " + std::to_string(nextId) + " is not greater than the largest id in the file (" +
                            std::to_string(maxId_) + ")",
            "set it to " + std::to_string(maxId_ + 1) + " or more");

    // The IR API renumbered ids (and remapped the references to them) and may have filled in empty
    // labels while the tree was assembled: the file wins.
    for (auto& a : assigned_) {
      a.element->setId(a.id);
      a.element->setLabel(std::move(a.label));
    }
    for (auto& fix : fixups_) fix();
    walk(*sdfg, [](Element& e) {
      if (auto* st = dynamic_cast<State*>(&e)) st->reindex();
    });
    size_t visited = 0;
    walk(*sdfg, [&](Element&) { ++visited; });
    if (visited != assigned_.size())
      error("", "internal error: loaded " + std::to_string(assigned_.size()) + " elements but the tree holds " +
                    std::to_string(visited), "please report this bug");
    sdfg->resetNextId(nextId);
    return sdfg;
  }

private:
  struct Assigned {
    Element* element;
    ElementId id;
    std::string label;
  };

  std::string source_;
  std::vector<Assigned> assigned_;
  std::vector<std::function<void()>> fixups_; // restore id references (edge ends, start blocks, map links)
  std::unordered_map<ElementId, std::string> idOwner_; // id -> pointer of the element that has it
  ElementId maxId_ = 0;
  int depth_ = 0;

  struct DepthGuard {
    Reader& r;
    DepthGuard(Reader& reader, const std::string& ptr) : r(reader) {
      if (++r.depth_ > kMaxNesting)
        r.error(ptr, "SDFGs and regions are nested more than " + std::to_string(kMaxNesting) + " levels deep",
                "the file is corrupted or was generated incorrectly");
    }
    ~DepthGuard() { --r.depth_; }
  };

  [[noreturn]] void error(const std::string& ptr, std::string message, std::string hint = {}) const {
    throw LoadError{Diagnostic::error(source_ + ": " + (ptr.empty() ? std::string("/") : ptr), std::move(message),
                                      std::move(hint))};
  }

  // --- fields --------------------------------------------------------------------------------

  const json& field(const json& obj, const std::string& ptr, const char* key, JType t) const {
    auto it = obj.find(key);
    if (it == obj.end())
      error(ptr, "required field \"" + std::string(key) + "\" is missing (expected " + typeWord(t) + ")");
    if (!hasType(*it, t))
      error(ptr + "/" + key, "\"" + std::string(key) + "\" must be " + typeWord(t) + ", not " + foundWord(*it));
    return *it;
  }

  void expectType(const json& v, const std::string& ptr, JType t, const std::string& what) const {
    if (!hasType(v, t)) error(ptr, what + " must be " + typeWord(t) + ", not " + foundWord(v));
  }

  std::string str(const json& obj, const std::string& ptr, const char* key) const {
    return field(obj, ptr, key, JType::String).get<std::string>();
  }

  bool boolean(const json& obj, const std::string& ptr, const char* key) const {
    return field(obj, ptr, key, JType::Bool).get<bool>();
  }

  int64_t int64(const json& v, const std::string& ptr, const std::string& what) const {
    expectType(v, ptr, JType::Integer, what);
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      error(ptr, what + " " + v.dump() + " is out of range (a signed 64-bit integer)");
    return v.get<int64_t>();
  }

  int64_t integer(const json& obj, const std::string& ptr, const char* key) const {
    return int64(field(obj, ptr, key, JType::Integer), ptr + "/" + key, "\"" + std::string(key) + "\"");
  }

  ElementId idValue(const json& v, const std::string& ptr, const std::string& what) const {
    if (!v.is_number_integer()) error(ptr, what + " must be a positive integer id, not " + foundWord(v));
    if (!v.is_number_unsigned() || v.get<uint64_t>() == 0 || v.get<uint64_t>() > kMaxId)
      error(ptr, what + " " + v.dump() + " is not a valid id", "ids are integers from 1 to " + std::to_string(kMaxId));
    return v.get<uint64_t>();
  }

  ElementId id(const json& obj, const std::string& ptr, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) error(ptr, "required field \"" + std::string(key) + "\" is missing (expected a positive integer id)");
    return idValue(*it, ptr + "/" + key, "\"" + std::string(key) + "\"");
  }

  // An id reference that may be null (kNoId).
  ElementId optionalId(const json& obj, const std::string& ptr, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end())
      error(ptr, "required field \"" + std::string(key) + "\" is missing (expected an id or null)");
    if (it->is_null()) return kNoId;
    return idValue(*it, ptr + "/" + key, "\"" + std::string(key) + "\"");
  }

  std::vector<std::string> strings(const json& obj, const std::string& ptr, const char* key) const {
    const json& a = field(obj, ptr, key, JType::Array);
    std::vector<std::string> out;
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = ptr + "/" + key + "/" + std::to_string(i);
      expectType(a[i], p, JType::String, "an element of \"" + std::string(key) + "\"");
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }

  sym::Expr exprText(const std::string& text, const std::string& ptr) const {
    auto e = sym::Expr::parse(text);
    if (!e) error(ptr, "invalid expression " + quote(text) + ": " + e.error().message, e.error().hint);
    return *e;
  }

  sym::Expr expr(const json& obj, const std::string& ptr, const char* key) const {
    return exprText(str(obj, ptr, key), ptr + "/" + key);
  }

  std::vector<sym::Expr> exprs(const json& obj, const std::string& ptr, const char* key) const {
    const json& a = field(obj, ptr, key, JType::Array);
    std::vector<sym::Expr> out;
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = ptr + "/" + key + "/" + std::to_string(i);
      expectType(a[i], p, JType::String, "an element of \"" + std::string(key) + "\" (an expression)");
      out.push_back(exprText(a[i].get<std::string>(), p));
    }
    return out;
  }

  Subset subsetText(const std::string& text, const std::string& ptr) const {
    auto s = Subset::parse(text);
    if (!s) error(ptr, "invalid subset " + quote(text) + ": " + s.error().message, s.error().hint);
    return *s;
  }

  Subset subset(const json& obj, const std::string& ptr, const char* key) const {
    return subsetText(str(obj, ptr, key), ptr + "/" + key);
  }

  template <class E>
  E enumValue(const json& v, const std::string& ptr, const std::string& what, std::optional<E> (*fromName)(std::string_view),
              std::string_view (*toName)(E), int count) const {
    expectType(v, ptr, JType::String, what);
    auto text = v.get<std::string>();
    auto e = fromName(text);
    if (!e) error(ptr, what + " " + quote(text) + " is unknown", "expected one of " + enumNames(toName, count));
    return *e;
  }

  DType dtypeValue(const json& v, const std::string& ptr, const std::string& what) const {
    return enumValue<DType>(v, ptr, what, dtypeFromName, dtypeNameOf, kDTypeCount);
  }

  DType dtype(const json& obj, const std::string& ptr, const char* key) const {
    return dtypeValue(field(obj, ptr, key, JType::String), ptr + "/" + key, "dtype");
  }

  // Text that may be stored as {"base64": ...} because it is not UTF-8.
  std::string text(const json& v, const std::string& ptr, const std::string& what) const {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() && v.size() == 1 && v.contains("base64")) {
      const json& b = field(v, ptr, "base64", JType::String);
      auto d = base64Decode(b.get_ref<const std::string&>());
      if (!d.ok()) error(ptr + "/base64", "invalid base64 data: " + d.error);
      return std::move(d.bytes);
    }
    error(ptr, what + " must be a string (or {\"base64\": ...}), not " + foundWord(v));
  }

  // --- ids -----------------------------------------------------------------------------------

  void reserve(ElementId id, const std::string& ptr) {
    auto [it, fresh] = idOwner_.emplace(id, ptr);
    if (!fresh)
      error(ptr + "/id", "id " + std::to_string(id) + " is already used by the element at " + it->second,
            "every element needs its own id");
    maxId_ = std::max(maxId_, id);
  }

  // Gives the element its stored id and label and remembers both, to re-apply them at the end.
  void assign(Element& e, ElementId id, const std::string& label) {
    e.setId(id);
    e.setLabel(label);
    assigned_.push_back({&e, id, label});
  }

  // --- tensors and attributes ----------------------------------------------------------------

  Tensor tensor(const json& v, const std::string& ptr, const std::string& what) {
    expectType(v, ptr, JType::Object, what);
    Tensor t;
    t.dtype = dtype(v, ptr, "dtype");
    const json& dims = field(v, ptr, "dims", JType::Array);
    uint64_t count = 1;
    bool overflow = false;
    for (size_t i = 0; i < dims.size(); ++i) {
      std::string p = ptr + "/dims/" + std::to_string(i);
      int64_t d = int64(dims[i], p, "a dimension");
      if (d < 0) error(p, "dimension " + std::to_string(d) + " is negative", "tensor dimensions are >= 0");
      t.dims.push_back(d);
      if (d != 0 && count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(d)) overflow = true;
      count *= static_cast<uint64_t>(d);
    }
    if (t.dtype == DType::String) {
      const json& a = field(v, ptr, "strings", JType::Array);
      std::vector<std::string> s;
      s.reserve(a.size());
      for (size_t i = 0; i < a.size(); ++i) s.push_back(text(a[i], ptr + "/strings/" + std::to_string(i), "a tensor string"));
      if (!overflow && s.size() != count)
        error(ptr + "/strings", "the tensor holds " + std::to_string(s.size()) + " strings, but its dims call for " +
                                    std::to_string(count), "the data is truncated or the dims are wrong");
      t.strings = std::make_shared<const std::vector<std::string>>(std::move(s));
    } else {
      const json& b = field(v, ptr, "base64", JType::String);
      auto d = base64Decode(b.get_ref<const std::string&>());
      if (!d.ok()) error(ptr + "/base64", "invalid base64 data: " + d.error, "the file is corrupted");
      size_t elem = dtypeSize(t.dtype);
      if (elem > 0) {
        if (overflow || count > std::numeric_limits<uint64_t>::max() / elem)
          error(ptr + "/dims", "the tensor's size overflows 64 bits");
        if (d.bytes.size() != count * elem)
          error(ptr + "/base64", "the tensor holds " + std::to_string(d.bytes.size()) + " bytes, but " +
                                     std::string(dtypeName(t.dtype)) + " with these dims needs " +
                                     std::to_string(count * elem),
                "the data is truncated or the dims are wrong");
      }
      t.bytes = std::make_shared<const std::string>(std::move(d.bytes));
    }
    return t;
  }

  double floatValue(const json& v, const std::string& ptr) const {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      error(ptr, "float value " + quote(s) + " is not a number", "write a JSON number, or \"nan\", \"inf\", \"-inf\"");
    }
    error(ptr, "a float value must be a number (or \"nan\", \"inf\", \"-inf\"), not " + foundWord(v));
  }

  template <class T, class F>
  std::vector<T> list(const json& v, const std::string& ptr, F item) {
    expectType(v, ptr, JType::Array, "the value of a list attribute");
    std::vector<T> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) out.push_back(item(v[i], ptr + "/" + std::to_string(i)));
    return out;
  }

  Attribute attribute(const json& v, const std::string& ptr) {
    expectType(v, ptr, JType::Object, "an attribute");
    Attribute a;
    a.name = str(v, ptr, "name");
    std::string typeText = str(v, ptr, "type");
    auto type = attributeTypeFromName(typeText);
    if (!type)
      error(ptr + "/type", "attribute type " + quote(typeText) + " is unknown",
            "expected one of " + enumNames(attributeTypeName, kAttributeTypeCount));
    auto it = v.find("value");
    if (it == v.end()) error(ptr, "required field \"value\" is missing");
    const json& x = *it;
    std::string p = ptr + "/value";
    auto asInt = [this](const json& j, const std::string& q) { return int64(j, q, "an int attribute value"); };
    auto asFloat = [this](const json& j, const std::string& q) { return floatValue(j, q); };
    auto asText = [this](const json& j, const std::string& q) { return text(j, q, "a string attribute value"); };
    auto asTensor = [this](const json& j, const std::string& q) { return tensor(j, q, "a tensor attribute value"); };
    auto asGraph = [this](const json& j, const std::string& q) {
      expectType(j, q, JType::String, "a graph attribute value (a subgraph name)");
      return GraphRef{j.get<std::string>()};
    };
    auto asType = [this](const json& j, const std::string& q) {
      expectType(j, q, JType::String, "a type attribute value");
      return TypeName{j.get<std::string>()};
    };
    switch (*type) {
    case AttributeType::Int: a.value = asInt(x, p); break;
    case AttributeType::Float: a.value = asFloat(x, p); break;
    case AttributeType::String: a.value = asText(x, p); break;
    case AttributeType::Tensor: a.value = asTensor(x, p); break;
    case AttributeType::Graph: a.value = asGraph(x, p); break;
    case AttributeType::Type: a.value = asType(x, p); break;
    case AttributeType::Ints: a.value = list<int64_t>(x, p, asInt); break;
    case AttributeType::Floats: a.value = list<double>(x, p, asFloat); break;
    case AttributeType::Strings: a.value = list<std::string>(x, p, asText); break;
    case AttributeType::Tensors: a.value = list<Tensor>(x, p, asTensor); break;
    case AttributeType::Graphs: a.value = list<GraphRef>(x, p, asGraph); break;
    case AttributeType::Types: a.value = list<TypeName>(x, p, asType); break;
    }
    return a;
  }

  // --- data ----------------------------------------------------------------------------------

  std::unique_ptr<DataDescriptor> data(const json& v, const std::string& ptr) {
    expectType(v, ptr, JType::Object, "a data descriptor");
    ElementId eid = id(v, ptr, "id");
    reserve(eid, ptr);
    std::string label = str(v, ptr, "label");
    auto d = std::make_unique<DataDescriptor>(label);
    d->dataKind = enumValue<DataKind>(field(v, ptr, "kind", JType::String), ptr + "/kind", "data kind", dataKindFromName,
                                      dataKindName, kDataKindCount);
    d->dtype = dtype(v, ptr, "dtype");
    d->shape = exprs(v, ptr, "shape");
    d->strides = exprs(v, ptr, "strides");
    d->offset = expr(v, ptr, "offset");
    d->rankKnown = boolean(v, ptr, "rank_known");
    if (v.contains("channel_block")) {
      const int64_t b = integer(v, ptr, "channel_block");
      if (b != 8 && b != 16) error(ptr + "/channel_block", "channels come in blocks of 8 or 16, not " + std::to_string(b));
      d->channelBlock = int(b);
    }
    const json& w = field(v, ptr, "wrappers", JType::Array);
    for (size_t i = 0; i < w.size(); ++i)
      d->wrappers.push_back(enumValue<Wrapper>(w[i], ptr + "/wrappers/" + std::to_string(i), "wrapper", wrapperFromName,
                                               wrapperName, kWrapperCount));
    d->storage = enumValue<StorageType>(field(v, ptr, "storage", JType::String), ptr + "/storage", "storage",
                                        storageFromName, storageName, kStorageCount);
    d->lifetime = enumValue<Lifetime>(field(v, ptr, "lifetime", JType::String), ptr + "/lifetime", "lifetime",
                                      lifetimeFromName, lifetimeName, kLifetimeCount);
    if (v.contains("memory_bank")) {
      const int64_t bank = integer(v, ptr, "memory_bank");
      if (bank < 0 || bank > 63) error(ptr + "/memory_bank", "a memory bank is 0 to 63, not " + std::to_string(bank));
      d->memoryBank = int(bank);
    }
    if (v.contains("partition")) {
      d->partition = enumValue<PartitionKind>(field(v, ptr, "partition", JType::String), ptr + "/partition", "partition",
                                              partitionFromName, partitionName, 4);
      if (d->partition == PartitionKind::Cyclic || d->partition == PartitionKind::Block) {
        const int64_t f = integer(v, ptr, "partition_factor");
        if (f < 2 || f > 65536) error(ptr + "/partition_factor", "a partition factor is 2 to 65536, not " + std::to_string(f));
        d->partitionFactor = int(f);
      }
    }
    d->transient = boolean(v, ptr, "transient");
    d->sourceName = str(v, ptr, "source_name");
    if (auto it = v.find("constant"); it != v.end())
      d->constant = std::make_shared<const Tensor>(tensor(*it, ptr + "/constant", "\"constant\""));
    assign(*d, eid, label);
    return d;
  }

  // --- nodes ---------------------------------------------------------------------------------

  std::vector<Connector> connectors(const json& obj, const std::string& ptr, const char* key) const {
    const json& a = field(obj, ptr, key, JType::Array);
    std::vector<Connector> out;
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = ptr + "/" + key + "/" + std::to_string(i);
      expectType(a[i], p, JType::Object, "a connector");
      Connector c;
      c.name = str(a[i], p, "name");
      c.dtype = dtype(a[i], p, "dtype");
      c.optional = boolean(a[i], p, "optional");
      out.push_back(std::move(c));
    }
    return out;
  }

  // A link from a map entry to its exit (or back) that can only be checked once the state is read.
  struct MapLink {
    ElementId target;
    ElementKind expected;
    std::string ptr;
  };

  std::unique_ptr<Node> node(const json& v, const std::string& ptr, std::vector<MapLink>& links) {
    expectType(v, ptr, JType::Object, "a node");
    std::string kind = str(v, ptr, "kind");
    ElementId eid = id(v, ptr, "id");
    reserve(eid, ptr);
    std::string label = str(v, ptr, "label");
    std::unique_ptr<Node> n;
    if (kind == "access") {
      n = std::make_unique<AccessNode>(str(v, ptr, "data"));
    } else if (kind == "tasklet") {
      auto t = std::make_unique<Tasklet>(label, str(v, ptr, "code"));
      std::string lang = str(v, ptr, "language");
      auto l = taskletLanguageFromName(lang);
      if (!l) error(ptr + "/language", "tasklet language " + quote(lang) + " is unknown", "expected one of dcw, cpp");
      t->language = *l;
      if (v.contains("environments")) t->environments = strings(v, ptr, "environments");
      if (v.contains("flops")) t->flops = expr(v, ptr, "flops");
      if (v.contains("in_place")) {
        const json& pairs = field(v, ptr, "in_place", JType::Array);
        for (size_t i = 0; i < pairs.size(); ++i) {
          const std::string p = ptr + "/in_place/" + std::to_string(i);
          if (!pairs[i].is_array() || pairs[i].size() != 2 || !pairs[i][0].is_string() || !pairs[i][1].is_string())
            error(p, "an in-place pair is not [output connector, input connector]", "e.g. [\"Y\", \"Z\"]");
          t->inPlace.emplace_back(pairs[i][0].get<std::string>(), pairs[i][1].get<std::string>());
        }
      }
      n = std::move(t);
    } else if (kind == "map_entry") {
      auto me = std::make_unique<MapEntry>(label);
      me->params = strings(v, ptr, "params");
      me->range = subset(v, ptr, "range");
      me->schedule = enumValue<Schedule>(field(v, ptr, "schedule", JType::String), ptr + "/schedule", "schedule",
                                         scheduleFromName, scheduleName, kScheduleCount);
      ElementId exitId = optionalId(v, ptr, "exit");
      me->exitId = exitId;
      fixups_.push_back([p = me.get(), exitId] { p->exitId = exitId; });
      if (exitId != kNoId) links.push_back({exitId, ElementKind::MapExit, ptr + "/exit"});
      n = std::move(me);
    } else if (kind == "map_exit") {
      auto mx = std::make_unique<MapExit>(label);
      ElementId entryId = optionalId(v, ptr, "entry");
      mx->entryId = entryId;
      fixups_.push_back([p = mx.get(), entryId] { p->entryId = entryId; });
      if (entryId != kNoId) links.push_back({entryId, ElementKind::MapEntry, ptr + "/entry"});
      n = std::move(mx);
    } else if (kind == "library") {
      auto l = std::make_unique<LibraryNode>(label);
      l->domain = str(v, ptr, "domain");
      l->opType = str(v, ptr, "op_type");
      l->opsetVersion = integer(v, ptr, "opset_version");
      l->implementation = str(v, ptr, "implementation");
      l->opaque = boolean(v, ptr, "opaque");
      l->sourceName = str(v, ptr, "source_name");
      const json& attrs = field(v, ptr, "attributes", JType::Array);
      for (size_t i = 0; i < attrs.size(); ++i)
        l->attributes.push_back(attribute(attrs[i], ptr + "/attributes/" + std::to_string(i)));
      const json& subs = field(v, ptr, "subgraphs", JType::Array);
      for (size_t i = 0; i < subs.size(); ++i) {
        std::string p = ptr + "/subgraphs/" + std::to_string(i);
        expectType(subs[i], p, JType::Object, "a subgraph");
        std::string name = str(subs[i], p, "name");
        l->addSubgraph(std::move(name), readSdfg(field(subs[i], p, "sdfg", JType::Object), p + "/sdfg"));
      }
      n = std::move(l);
    } else if (kind == "nested_sdfg") {
      auto inner = readSdfg(field(v, ptr, "sdfg", JType::Object), ptr + "/sdfg");
      auto ns = std::make_unique<NestedSdfgNode>(label, std::move(inner));
      const json& m = field(v, ptr, "symbol_mapping", JType::Object);
      for (auto it = m.begin(); it != m.end(); ++it) {
        std::string p = ptr + "/symbol_mapping/" + pointerToken(it.key());
        expectType(it.value(), p, JType::String, "a symbol mapping (an expression)");
        ns->symbolMapping[it.key()] = exprText(it.value().get<std::string>(), p);
      }
      n = std::move(ns);
    } else {
      error(ptr, "node kind " + quote(kind) + " is unknown",
            "expected one of access, tasklet, map_entry, map_exit, library, nested_sdfg");
    }
    for (auto& c : connectors(v, ptr, "in_connectors")) n->addIn(std::move(c));
    for (auto& c : connectors(v, ptr, "out_connectors")) n->addOut(std::move(c));
    assign(*n, eid, label);
    return n;
  }

  Memlet memlet(const json& v, const std::string& ptr) const {
    expectType(v, ptr, JType::Object, "\"memlet\"");
    Memlet m;
    m.data = str(v, ptr, "data");
    m.subset = subset(v, ptr, "subset");
    if (v.contains("other_subset")) m.otherSubset = subset(v, ptr, "other_subset");
    m.volume = expr(v, ptr, "volume");
    m.dynamic = boolean(v, ptr, "dynamic");
    m.wcr = str(v, ptr, "wcr");
    return m;
  }

  // --- control flow --------------------------------------------------------------------------

  std::unique_ptr<State> state(const json& v, const std::string& ptr, ElementId eid, const std::string& label) {
    auto st = std::make_unique<State>(label);
    assign(*st, eid, label);
    std::unordered_map<ElementId, ElementKind> nodeKinds;
    std::vector<MapLink> links;
    const json& nodes = field(v, ptr, "nodes", JType::Array);
    for (size_t i = 0; i < nodes.size(); ++i) {
      auto n = node(nodes[i], ptr + "/nodes/" + std::to_string(i), links);
      nodeKinds[n->id()] = n->kind();
      st->addNode(std::move(n));
    }
    for (const auto& l : links) {
      auto it = nodeKinds.find(l.target);
      if (it == nodeKinds.end())
        error(l.ptr, "node " + std::to_string(l.target) + " is not in state " + quote(label),
              "a map's entry and exit must be nodes of the same state");
      if (it->second != l.expected)
        error(l.ptr, "node " + std::to_string(l.target) + " is a " + std::string(elementKindName(it->second)) +
                         ", expected a " + std::string(elementKindName(l.expected)));
    }
    const json& edges = field(v, ptr, "edges", JType::Array);
    for (size_t i = 0; i < edges.size(); ++i) {
      std::string p = ptr + "/edges/" + std::to_string(i);
      expectType(edges[i], p, JType::Object, "an edge");
      const json& ev = edges[i];
      ElementId edgeId = id(ev, p, "id");
      reserve(edgeId, p);
      auto e = std::make_unique<DataflowEdge>();
      std::string elabel = str(ev, p, "label");
      e->src = id(ev, p, "src");
      if (!nodeKinds.count(e->src))
        error(p + "/src", "edge source " + std::to_string(e->src) + " is not a node of state " + quote(label),
              "an edge connects two nodes of its own state");
      e->srcConnector = str(ev, p, "src_conn");
      e->dst = id(ev, p, "dst");
      if (!nodeKinds.count(e->dst))
        error(p + "/dst", "edge destination " + std::to_string(e->dst) + " is not a node of state " + quote(label),
              "an edge connects two nodes of its own state");
      e->dstConnector = str(ev, p, "dst_conn");
      e->memlet = memlet(field(ev, p, "memlet", JType::Object), p + "/memlet");
      assign(*e, edgeId, elabel);
      fixups_.push_back([p = e.get(), src = e->src, dst = e->dst] { p->src = src, p->dst = dst; });
      st->addEdge(std::move(e));
    }
    return st;
  }

  void regionBody(ControlFlowRegion& r, const json& v, const std::string& ptr) {
    std::unordered_set<ElementId> blockIds;
    const json& blocks = field(v, ptr, "blocks", JType::Array);
    for (size_t i = 0; i < blocks.size(); ++i) {
      auto b = block(blocks[i], ptr + "/blocks/" + std::to_string(i));
      blockIds.insert(b->id()); // the id from the file: attaching may renumber the block
      r.addBlock(std::move(b));
    }
    ElementId start = optionalId(v, ptr, "start_block");
    if (start != kNoId && !blockIds.count(start))
      error(ptr + "/start_block", "start block " + std::to_string(start) + " is not a block of " + quote(r.label()),
            "name one of the region's blocks");
    r.setStartBlock(start);
    fixups_.push_back([p = &r, start] { p->setStartBlock(start); });
    const json& edges = field(v, ptr, "edges", JType::Array);
    for (size_t i = 0; i < edges.size(); ++i) {
      std::string p = ptr + "/edges/" + std::to_string(i);
      expectType(edges[i], p, JType::Object, "an interstate edge");
      const json& ev = edges[i];
      ElementId edgeId = id(ev, p, "id");
      reserve(edgeId, p);
      auto e = std::make_unique<InterstateEdge>();
      std::string elabel = str(ev, p, "label");
      e->src = id(ev, p, "src");
      if (!blockIds.count(e->src))
        error(p + "/src", "edge source " + std::to_string(e->src) + " is not a block of " + quote(r.label()),
              "an interstate edge connects two blocks of its own region");
      e->dst = id(ev, p, "dst");
      if (!blockIds.count(e->dst))
        error(p + "/dst", "edge destination " + std::to_string(e->dst) + " is not a block of " + quote(r.label()),
              "an interstate edge connects two blocks of its own region");
      e->condition = expr(ev, p, "condition");
      const json& as = field(ev, p, "assignments", JType::Array);
      for (size_t k = 0; k < as.size(); ++k) {
        std::string q = p + "/assignments/" + std::to_string(k);
        expectType(as[k], q, JType::Object, "an assignment");
        e->assignments.emplace_back(str(as[k], q, "symbol"), expr(as[k], q, "value"));
      }
      assign(*e, edgeId, elabel);
      fixups_.push_back([p = e.get(), src = e->src, dst = e->dst] { p->src = src, p->dst = dst; });
      r.addEdge(std::move(e));
    }
  }

  std::unique_ptr<ControlFlowBlock> block(const json& v, const std::string& ptr) {
    DepthGuard guard(*this, ptr);
    expectType(v, ptr, JType::Object, "a block");
    std::string kind = str(v, ptr, "kind");
    if (kind != "state" && kind != "loop" && kind != "conditional")
      error(ptr, "block kind " + quote(kind) + " is unknown", "expected one of state, loop, conditional");
    ElementId eid = id(v, ptr, "id");
    reserve(eid, ptr);
    std::string label = str(v, ptr, "label");
    if (kind == "state") return state(v, ptr, eid, label);
    if (kind == "loop") {
      auto loop = std::make_unique<LoopRegion>(label);
      assign(*loop, eid, label);
      loop->loopVariable = str(v, ptr, "loop_variable");
      loop->init = expr(v, ptr, "init");
      loop->condition = expr(v, ptr, "condition");
      loop->update = expr(v, ptr, "update");
      regionBody(*loop, v, ptr);
      return loop;
    }
    auto cond = std::make_unique<ConditionalRegion>(label);
    assign(*cond, eid, label);
    const json& branches = field(v, ptr, "branches", JType::Array);
    for (size_t i = 0; i < branches.size(); ++i) {
      std::string p = ptr + "/branches/" + std::to_string(i);
      DepthGuard branchGuard(*this, p);
      expectType(branches[i], p, JType::Object, "a branch");
      const json& bv = branches[i];
      ElementId bid = id(bv, p, "id");
      reserve(bid, p);
      std::string blabel = str(bv, p, "label");
      auto br = std::make_unique<BranchRegion>(blabel);
      assign(*br, bid, blabel);
      if (bv.contains("condition")) br->condition = expr(bv, p, "condition");
      regionBody(*br, bv, p);
      cond->addBranch(std::move(br));
    }
    return cond;
  }

  std::unique_ptr<Sdfg> readSdfg(const json& v, const std::string& ptr) {
    DepthGuard guard(*this, ptr);
    ElementId eid = id(v, ptr, "id");
    reserve(eid, ptr);
    std::string label = str(v, ptr, "label");
    auto s = std::make_unique<Sdfg>(label);
    assign(*s, eid, label);
    const json& symbols = field(v, ptr, "symbols", JType::Object);
    for (auto it = symbols.begin(); it != symbols.end(); ++it)
      s->addSymbol(it.key(), dtypeValue(it.value(), ptr + "/symbols/" + pointerToken(it.key()), "symbol type"));
    s->inputs = strings(v, ptr, "inputs");
    s->outputs = strings(v, ptr, "outputs");
    const json& meta = field(v, ptr, "metadata", JType::Object);
    for (auto it = meta.begin(); it != meta.end(); ++it) {
      std::string p = ptr + "/metadata/" + pointerToken(it.key());
      expectType(it.value(), p, JType::String, "a metadata value");
      s->metadata[it.key()] = it.value().get<std::string>();
    }
    const json& descs = field(v, ptr, "data", JType::Array);
    for (size_t i = 0; i < descs.size(); ++i) {
      std::string p = ptr + "/data/" + std::to_string(i);
      auto d = data(descs[i], p);
      std::string name = d->name();
      if (!s->addData(std::move(d)))
        error(p + "/label", "data " + quote(name) + " is declared twice in SDFG " + quote(label),
              "data names must be unique in one SDFG");
    }
    regionBody(*s, v, ptr);
    return s;
  }
};

// Line and column (1-based, columns count UTF-8 characters) of a byte offset.
std::pair<size_t, size_t> lineColumn(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

} // namespace

// ------------------------------------------------------------------------------------------------

namespace {

constexpr size_t kLineWidth = 100;
// Indentation stops growing past this depth: a model nested 1,000 deep is some 6,000 JSON levels,
// and indenting each line by its depth made its file 1.3 GB of spaces (quadratic in the depth);
// capped, it is 30 MB. Models nested less than about ten SDFGs deep never reach it.
constexpr size_t kMaxIndent = 64;

std::string scalarText(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

// Pretty-prints with 1-space indentation (up to kMaxIndent), keeping a container of scalars on one
// line when it fits in kLineWidth columns (shapes, dims, connectors, memlets), so files stay compact
// but diff line by line.
void render(const json& j, size_t depth, std::string& out) {
  const size_t indent = std::min(depth, kMaxIndent);
  if (!j.is_structured()) {
    out += scalarText(j);
    return;
  }
  const bool isObject = j.is_object();
  if (j.empty()) {
    out += isObject ? "{}" : "[]";
    return;
  }
  bool flat = true;
  for (const auto& v : j)
    if (v.is_structured()) flat = false;
  if (flat) {
    std::string line(1, isObject ? '{' : '[');
    bool first = true;
    for (auto it = j.begin(); it != j.end() && indent + line.size() <= kLineWidth; ++it) {
      if (!first) line += ", ";
      first = false;
      if (isObject) line += scalarText(it.key()) + ": ";
      line += scalarText(it.value());
    }
    line += isObject ? '}' : ']';
    if (indent + line.size() <= kLineWidth) {
      out += line;
      return;
    }
  }
  out += isObject ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out.append(std::min(depth + 1, kMaxIndent), ' ');
    if (isObject) out += scalarText(it.key()) + ": ";
    render(it.value(), depth + 1, out);
  }
  out += '\n';
  out.append(indent, ' ');
  out += isObject ? '}' : ']';
}

} // namespace

std::string toJson(const ir::Sdfg& sdfg) {
  json doc = json::object();
  doc["format"] = kFormatTag;
  doc["version"] = kFormatVersion;
  doc["next_id"] = sdfg.peekNextId();
  doc["sdfg"] = writeSdfg(sdfg);
  std::string out;
  render(doc, 0, out);
  out += '\n';
  return out;
}

Expected<std::unique_ptr<ir::Sdfg>> fromJson(std::string_view text, const std::string& source) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return fail(source, "the file is empty", "a DCW project file holds a JSON object; restore it from a backup");
  if (jsonDepth(text, kMaxJsonDepth) > kMaxJsonDepth)
    return fail(source, "SDFGs and regions are nested more than " + std::to_string(kMaxNesting) + " levels deep (the JSON nests past " +
                            std::to_string(kMaxJsonDepth) + " levels)",
                "the file is corrupted or was generated incorrectly");
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based index of the last character read.
    size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    auto [line, column] = lineColumn(text, offset);
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while ..." → "syntax error while ..."
    if (auto p = what.find(": "); p != std::string::npos && what.find("parse error") != std::string::npos)
      what = what.substr(p + 2);
    // Truncated: the parser ran out of input, or failed on the last characters (a cut-off string).
    bool truncated = what.find("unexpected end of input") != std::string::npos ||
                     text.find_first_not_of(" \t\r\n", std::min<size_t>(e.byte, text.size())) == std::string_view::npos;
    return fail(source + ":" + std::to_string(line) + ":" + std::to_string(column),
                "not valid JSON (line " + std::to_string(line) + ", column " + std::to_string(column) + "): " + what,
                truncated ? "the file is truncated (an interrupted save or copy?); restore it from a backup"
                          : "this is not a DCW project file, or it was damaged; restore it from a backup");
  } catch (const std::exception& e) {
    return fail(source, std::string("cannot read the JSON: ") + e.what());
  }
  try {
    Reader reader(source);
    return reader.document(doc);
  } catch (const LoadError& e) {
    return fail(e.diagnostic);
  } catch (const std::exception& e) {
    return fail(source, std::string("cannot load the project: ") + e.what(), "the file is corrupted");
  }
}

Expected<void> saveFile(const ir::Sdfg& sdfg, const std::string& path) {
  std::string text;
  try {
    text = toJson(sdfg);
  } catch (const std::exception& e) {
    return fail(path, std::string("cannot serialize the SDFG: ") + e.what());
  }
  return writeFileAtomically(path, text);
}

Expected<std::unique_ptr<ir::Sdfg>> loadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(path, "cannot open the project: it is a directory", "choose a *.dcw.json file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    int err = errno;
    return fail(path, std::string("cannot open the project: ") + std::strerror(err),
                err == ENOENT ? "check the path" : "check the file's permissions");
  }
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool readError = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (readError) return fail(path, std::string("cannot read the project: ") + std::strerror(err));
  return fromJson(text, path);
}

} // namespace dcw::serialize
