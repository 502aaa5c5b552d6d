// The ONNX importer (see OnnxImporter.h). Order of work: read and parse, load external data
// (confined to the model's folder), structural checks that give precise messages (undefined values,
// duplicate producers, cycles, opset range), the ONNX checker, ONNX shape inference, then building
// the SDFG graph by graph (bodies of If/Loop/Scan recursively, with values captured from outer scopes
// passed in through extra connectors named `outer.<value>`).
#include "core/onnx/OnnxImporter.h"

#include "core/ir/AccessNode.h"
#include "core/ir/DynamicExtent.h"
#include "core/ir/LibraryNode.h"
#include "core/onnx/IsolatedInference.h"
#include "core/onnx/OnnxTypes.h"
#include "core/onnx/OpCatalog.h"
#include "core/onnx/ShapeArithmetic.h"
#include "core/onnx/StaticSequences.h"
#include "core/onnx/SymbolicShapes.h"
#include "core/onnx/SubgraphNesting.h"

#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace dcw::onnx {

namespace fs = std::filesystem;
using namespace dcw::ir;
using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;
using ::onnx::TypeProto;

int maxSupportedOpset() { return registryMaxOpset(""); }

namespace {

// Nesting is checked once, iteratively, right after parsing (subgraphNesting); the recursive passes
// below also stop at the limit so that no path recurses past it (model-local functions calling
// functions add levels at import).
constexpr int kMaxGraphNesting = kMaxSubgraphNesting;

Unexpected tooDeep(const std::string& where, int depth) {
  return fail(where, nestingTooDeepMessage(depth), "flatten the nested If/Loop/Scan bodies or function calls");
}

struct Ctx {
  std::string source;  // the file, for messages
  std::string baseDir; // canonical folder external data must stay in ("" = none allowed)
  ImportOptions options;
  std::map<std::string, int> opsets;
  std::map<std::string, const ::onnx::FunctionProto*> functions; // "domain::name"
  Diagnostics warnings;
  std::map<std::string, std::string> dimSymbols; // dim_param -> symbol name
  std::set<std::string> symbolNames;
  std::unordered_map<std::string, int> symbolSuffix; // base -> next suffix to try (see uniqueName)
  std::vector<std::string> functionsExpanding;       // model-local functions being imported, outermost first
  // Free names of each (sub)graph, computed once: asking at every level of a deep nest would be
  // quadratic. Cleared whenever graphs are rebuilt (sorting copies the nodes).
  std::unordered_map<const GraphProto*, std::vector<std::string>> freeNamesOf;
  SymbolicShapes symbolic; // the main graph's dims that ONNX's inference left incomplete
  std::map<std::string, sym::Expr> placeholderSymbols; // symbolic's placeholders -> DCW symbols, made once
};

// The first of base, base_1, base_2, ... that `taken` does not hold, remembering per base where the
// search ended. While names are only added (as during import) this is what a search from 1 returns,
// without rescanning the suffixes already handed out when thousands of nodes share a name.
template <class Taken>
std::string uniqueName(const std::string& base, std::unordered_map<std::string, int>& next, Taken taken) {
  if (!taken(base)) return base;
  int& k = next.try_emplace(base, 1).first->second;
  std::string n;
  for (;; ++k) {
    n = base + "_" + std::to_string(k);
    if (!taken(n)) break;
  }
  ++k;
  return n;
}

// Where a graph sits in the model, for messages: one segment per level ("node 'if3' (If) /
// then_branch: "), turned into text only when a message needs it. Text held per level would add up
// to O(depth^2) characters in a deeply nested model.
struct Place {
  const Place* up = nullptr;
  std::string segment;
  std::string str() const {
    std::vector<const std::string*> parts;
    for (const Place* p = this; p; p = p->up) parts.push_back(&p->segment);
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += **it;
    return out;
  }
};

std::string loc(const Ctx& c, const std::string& what) { return what.empty() ? c.source : c.source + ": " + what; }

std::string opName(const NodeProto& n) { return (n.domain().empty() ? "" : n.domain() + "::") + n.op_type(); }

std::string nodeDesc(const NodeProto& n, int index) {
  std::string name = n.name().empty() ? "#" + std::to_string(index) : "'" + n.name() + "'";
  return "node " + name + " (" + (n.domain().empty() ? "" : n.domain() + "::") + n.op_type() + ")";
}

// Labels become path segments: no '/', no arrows, no control characters, no leading '@'.
std::string sanitizeLabel(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '/') out += '.';
    else if (u < 0x20 || c == '>') out += '_';
    else out += c;
  }
  size_t start = out.find_first_not_of('.');
  out = start == std::string::npos ? std::string() : out.substr(start);
  if (!out.empty() && out.front() == '@') out.front() = '_';
  return out;
}

std::string sanitizeIdentifier(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out = "s_" + out;
  if (!sym::isIdentifier(out)) out = "s_" + out; // keywords such as "and", "min"
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading and external data

bool looksLikeText(const std::string& head) {
  if (head.empty()) return false;
  size_t printable = 0;
  for (unsigned char c : head)
    if (c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80) ++printable;
  return printable == head.size();
}

Expected<void> loadExternal(TensorProto& t, Ctx& c, const std::string& what) {
  if (t.data_location() != TensorProto::EXTERNAL) return {};
  std::string location;
  int64_t offset = 0, length = -1;
  for (auto& kv : t.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = std::stoll(kv.value());
      else if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      return fail(loc(c, what), "external data field '" + kv.key() + "' is not a number: '" + kv.value() + "'");
    }
  }
  if (location.empty()) return fail(loc(c, what), "external data has no location", "set the 'location' key");
  if (c.baseDir.empty())
    return fail(loc(c, what), "external data '" + location + "' cannot be resolved without the model's folder",
                "open the model from its file");
  fs::path rel(location);
  if (rel.is_absolute())
    return fail(loc(c, what), "external data location '" + location + "' is an absolute path; refused",
                "external data must be a relative path inside the model's folder");
  std::error_code ec;
  fs::path base(c.baseDir);
  fs::path full = fs::weakly_canonical(base / rel, ec);
  auto inside = [&](const fs::path& p) {
    auto [a, b] = std::mismatch(base.begin(), base.end(), p.begin(), p.end());
    return a == base.end();
  };
  if (ec || !inside(full))
    return fail(loc(c, what), "external data location '" + location + "' points outside the model's folder; refused",
                "keep external data files in the model's folder");
  if (!fs::exists(full, ec))
    return fail(loc(c, what), "external data file '" + location + "' does not exist next to the model",
                "copy '" + location + "' into " + c.baseDir);
  if (!fs::is_regular_file(full, ec))
    return fail(loc(c, what), "external data location '" + location + "' is not a regular file");
  uint64_t size = fs::file_size(full, ec);
  if (offset < 0 || (length < -1) || uint64_t(offset) > size)
    return fail(loc(c, what), "external data offset " + std::to_string(offset) + " is outside '" + location + "' (" +
                                  std::to_string(size) + " bytes)");
  uint64_t len = length < 0 ? size - offset : uint64_t(length);
  if (offset + len > size)
    return fail(loc(c, what), "external data needs bytes " + std::to_string(offset) + ".." + std::to_string(offset + len) +
                                  " but '" + location + "' has only " + std::to_string(size),
                "the data file is truncated; re-export the model");
  std::ifstream in(full, std::ios::binary);
  if (!in) return fail(loc(c, what), "cannot read external data file '" + location + "'");
  std::string* raw = t.mutable_raw_data();
  raw->resize(len);
  in.seekg(offset);
  in.read(raw->data(), std::streamsize(len));
  if (!in) return fail(loc(c, what), "reading external data file '" + location + "' failed");
  t.clear_external_data();
  t.set_data_location(TensorProto::DEFAULT);
  return {};
}

Expected<void> loadExternalInGraph(GraphProto& g, Ctx& c, int depth);

Expected<void> loadExternalInAttrs(NodeProto& n, Ctx& c, int depth) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_t())
      DCW_CHECK(loadExternal(*a.mutable_t(), c, "attribute '" + a.name() + "' of node '" + n.name() + "'"));
    for (auto& t : *a.mutable_tensors())
      DCW_CHECK(loadExternal(t, c, "attribute '" + a.name() + "' of node '" + n.name() + "'"));
    if (a.has_g())
      DCW_CHECK(loadExternalInGraph(*a.mutable_g(), c, depth + 1));
    for (auto& g : *a.mutable_graphs())
      DCW_CHECK(loadExternalInGraph(g, c, depth + 1));
  }
  return {};
}

Expected<void> loadExternalInGraph(GraphProto& g, Ctx& c, int depth) {
  if (depth > kMaxGraphNesting) return tooDeep(c.source, depth);
  for (auto& t : *g.mutable_initializer())
    DCW_CHECK(loadExternal(t, c, "initializer '" + t.name() + "'"));
  for (auto& n : *g.mutable_node())
    DCW_CHECK(loadExternalInAttrs(n, c, depth));
  return {};
}

// ---------------------------------------------------------------------------------------------
// Structural checks with precise messages (before the ONNX checker, whose messages are terse)

void subgraphsOf(NodeProto& n, std::vector<std::pair<std::string, GraphProto*>>& out) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) out.emplace_back(a.name(), a.mutable_g());
    for (int i = 0; i < a.graphs_size(); ++i) out.emplace_back(a.name() + "_" + std::to_string(i), a.mutable_graphs(i));
  }
}

// Names a graph reads from enclosing scopes, in first-use order (memoized in the context).
const std::vector<std::string>& freeNamesOf(GraphProto& g, Ctx& c);

void freeNames(GraphProto& g, std::vector<std::string>& out, Ctx& c) {
  auto& names = freeNamesOf(g, c);
  out.insert(out.end(), names.begin(), names.end());
}

const std::vector<std::string>& freeNamesOf(GraphProto& g, Ctx& c) {
  if (auto it = c.freeNamesOf.find(&g); it != c.freeNamesOf.end()) return it->second;
  std::vector<std::string> out;
  std::set<std::string> defined;
  for (auto& v : g.input()) defined.insert(v.name());
  for (auto& t : g.initializer()) defined.insert(t.name());
  for (auto& t : g.sparse_initializer()) defined.insert(t.values().name());
  for (auto& n : g.node())
    for (auto& o : n.output()) defined.insert(o);
  std::set<std::string> seen;
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (auto& n : *g.mutable_node()) {
    for (auto& i : n.input()) use(i);
    std::vector<std::pair<std::string, GraphProto*>> subs;
    subgraphsOf(n, subs);
    for (auto& [name, sg] : subs)
      for (auto& x : freeNamesOf(*sg, c)) use(x);
  }
  for (auto& o : g.output()) use(o.name());
  return c.freeNamesOf.emplace(&g, std::move(out)).first->second;
}

// Attributes ONNX's own shape inference divides by or allocates from without checking: a stride,
// dilation or kernel size of 0 (or less), a Conv group of 0 or a DepthToSpace block size of 0 would end
// the process (SIGFPE in convPoolShapeInference, found by the fuzzer). They are refused here, naming
// the node.
Expected<void> checkShapeAttributes(const NodeProto& n, int index, Ctx& c, const Place& place) {
  auto where = [&] { return place.str(); };
  static const std::set<std::string> convPool = {"Conv", "ConvInteger", "QLinearConv", "ConvTranspose", "MaxPool",
                                                 "AveragePool", "LpPool", "MaxUnpool", "DeformConv", "Col2Im", "MaxRoiPool"};
  if (!n.domain().empty() && n.domain() != "ai.onnx") return {};
  if (n.op_type() == "DepthToSpace" || n.op_type() == "SpaceToDepth") {
    for (auto& a : n.attribute())
      if (a.name() == "blocksize" && a.i() <= 0)
        return fail(loc(c, where() + nodeDesc(n, index)), "attribute blocksize is " + std::to_string(a.i()), "blocksize must be positive");
    return {};
  }
  if (!convPool.count(n.op_type())) return {};
  for (auto& a : n.attribute()) {
    const bool positiveList = a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape" ||
                              a.name() == "pooled_shape" || a.name() == "block_shape";
    if (positiveList)
      for (int k = 0; k < a.ints_size(); ++k)
        if (a.ints(k) <= 0)
          return fail(loc(c, where() + nodeDesc(n, index)),
                      "attribute " + a.name() + " has " + std::to_string(a.ints(k)) + " at position " + std::to_string(k),
                      "every entry of " + a.name() + " must be positive");
    if (a.name() == "group" && a.i() <= 0)
      return fail(loc(c, where() + nodeDesc(n, index)), "attribute group is " + std::to_string(a.i()), "group must be positive");
  }
  return {};
}

// The names a graph can read from itself and its enclosing graphs, as one table with counts: a graph
// adds its names on entry and takes them out on exit, so that no graph copies what its enclosing
// graphs define (a copy per If body is quadratic in a wide model).
class VisibleNames {
public:
  bool has(const std::string& n) const { return count_.count(n) > 0; }
  class Scope {
  public:
    explicit Scope(VisibleNames& v) : v_(v) {}
    ~Scope() {
      for (auto& n : added_)
        if (auto it = v_.count_.find(n); it != v_.count_.end() && --it->second == 0) v_.count_.erase(it);
    }
    void add(const std::string& n) {
      ++v_.count_[n];
      added_.push_back(n);
    }

  private:
    VisibleNames& v_;
    std::vector<std::string> added_;
  };

private:
  std::unordered_map<std::string, int> count_;
};

Expected<void> checkGraphStructure(GraphProto& g, VisibleNames& visible, Ctx& c, const Place& place, int depth) {
  auto where = [&] { return place.str(); };
  if (depth > kMaxGraphNesting) return tooDeep(c.source, depth);
  VisibleNames::Scope scope(visible);
  std::set<std::string> inputs;
  for (auto& v : g.input()) inputs.insert(v.name());
  for (auto& v : g.input()) scope.add(v.name());
  for (auto& t : g.initializer()) scope.add(t.name());
  for (auto& t : g.sparse_initializer()) scope.add(t.values().name());
  auto defined = [&](const std::string& n) { return visible.has(n); };
  for (int i = 0; i < g.node_size(); ++i)
    DCW_CHECK(checkShapeAttributes(g.node(i), i, c, place));
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (auto& o : g.node(i).output()) {
      if (o.empty()) continue;
      auto [it, fresh] = producer.emplace(o, i);
      if (!fresh)
        return fail(loc(c, where() + nodeDesc(g.node(i), i)),
                    "tensor '" + o + "' is produced twice (also by " + nodeDesc(g.node(it->second), it->second) + ")",
                    "every tensor must have exactly one producer; rename one of the outputs");
      if (inputs.count(o))
        return fail(loc(c, where() + nodeDesc(g.node(i), i)), "tensor '" + o + "' is both a graph input and a node output",
                    "rename the node output");
    }
  // Undefined inputs, and the dependency graph for the cycle check.
  std::vector<std::vector<int>> succ(g.node_size());
  std::vector<int> indeg(g.node_size(), 0);
  for (int i = 0; i < g.node_size(); ++i) {
    NodeProto& n = *g.mutable_node(i);
    std::vector<std::string> reads(n.input().begin(), n.input().end());
    std::vector<std::pair<std::string, GraphProto*>> subs;
    subgraphsOf(n, subs);
    for (auto& [name, sg] : subs) freeNames(*sg, reads, c);
    std::set<int> preds;
    for (auto& r : reads) {
      if (r.empty()) continue;
      auto p = producer.find(r);
      if (p != producer.end()) {
        if (preds.insert(p->second).second) {
          succ[p->second].push_back(i);
          ++indeg[i];
        }
      } else if (!defined(r)) {
        return fail(loc(c, where() + nodeDesc(n, i)),
                    "reads tensor '" + r + "', which no node, graph input or initializer defines",
                    "connect the input to an existing tensor or add it as a graph input");
      }
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < g.node_size(); ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::vector<int> order;
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int s : succ[i])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  if (int(order.size()) != g.node_size()) {
    for (int i = 0; i < g.node_size(); ++i)
      if (indeg[i] > 0)
        return fail(loc(c, where() + nodeDesc(g.node(i), i)), "the graph has a cycle through this node",
                    "ONNX graphs must be acyclic; express repetition with a Loop node");
  }
  // ONNX requires topological order; accept an unsorted but acyclic graph by sorting it.
  bool sorted = true;
  for (int i = 0; i < g.node_size(); ++i)
    for (int s : succ[i]) sorted = sorted && s > i;
  if (!sorted) {
    std::vector<NodeProto> nodes(g.node().begin(), g.node().end());
    g.clear_node();
    for (int i : order) *g.add_node() = std::move(nodes[i]);
    c.freeNamesOf.clear(); // the subgraphs moved
    std::string w = where();
    w = w.empty() ? "graph" : w.substr(0, w.size() - 2); // drop the trailing ": "
    c.warnings.warning(loc(c, w), "nodes were not in topological order; sorted them",
                       "ONNX requires sorted nodes; other tools may refuse this model");
  }
  for (auto& v : g.output())
    if (!producer.count(v.name()) && !defined(v.name()))
      return fail(loc(c, where() + "graph output '" + v.name() + "'"), "no node, input or initializer defines this output",
                  "remove the output or produce it");
  // Subgraphs also see every node output of this graph.
  for (auto& [n, p] : producer) scope.add(n);
  for (int i = 0; i < g.node_size(); ++i) {
    std::vector<std::pair<std::string, GraphProto*>> subs;
    subgraphsOf(*g.mutable_node(i), subs);
    for (auto& [name, sg] : subs)
      if (auto r = checkGraphStructure(*sg, visible, c, Place{&place, nodeDesc(g.node(i), i) + " / " + name + ": "}, depth + 1); !r)
        return r;
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Building the SDFG

using TypeMap = std::map<std::string, const TypeProto*>;

class GraphBuilder {
public:
  // `outer`: the builder of the enclosing graph, whose value types a body sees (nullptr: none).
  GraphBuilder(Ctx& c, int depth, const GraphBuilder* outer = nullptr) : c_(c), depth_(depth), outer_(outer) {}

  // `place`: where the graph sits (its segment, chained to the enclosing graph's place).
  Expected<std::unique_ptr<Sdfg>> build(GraphProto& g, const std::string& name, const std::vector<std::string>& captured,
                                        Place place) {
    place_ = std::move(place);
    sdfg_ = std::make_unique<Sdfg>(name);
    for (auto& v : g.value_info()) types_[v.name()] = &v.type();
    for (auto& v : g.input()) types_[v.name()] = &v.type();
    for (auto& v : g.output()) types_[v.name()] = &v.type();

    std::set<std::string> initNames;
    for (auto& t : g.initializer()) initNames.insert(t.name());
    for (auto& t : g.sparse_initializer()) initNames.insert(t.values().name());

    for (auto& t : *g.mutable_initializer())
      DCW_CHECK(addInitializer(t));
    for (auto& s : g.sparse_initializer()) {
      DCW_TRY(auto t, tensorFromOnnx(s, loc(c_, where() + "sparse initializer '" + s.values().name() + "'")));
      DCW_CHECK(addConstant(s.values().name(), std::move(t)));
    }
    for (auto& v : g.input()) {
      if (initNames.count(v.name())) continue; // an input with a default value: treated as the constant
      DCW_TRY(auto d, addValue(v.name(), &v.type(), false));
      sdfg_->inputs.push_back(d->name());
    }
    for (auto& name : captured) {
      const TypeProto* type = typeOf(name);
      DCW_TRY(auto d, addValue(name, type, false));
      // An enclosing graph's initializer has no type to look up: the body sees it as the enclosing
      // graph describes it (a weight an If branch reads, as PyTorch exports them).
      if (const DataDescriptor* o = type ? nullptr : outerData(name)) {
        d->dtype = o->dtype;
        d->shape = o->shape;
        d->strides = DataDescriptor::contiguousStrides(o->shape);
        d->dataKind = o->dataKind;
        d->rankKnown = o->rankKnown;
        d->wrappers = o->wrappers;
      }
      sdfg_->inputs.push_back(d->name());
      capturedData_.push_back(d->name());
    }
    if (!captured.empty()) {
      std::string list;
      for (auto& n : capturedData_) list += (list.empty() ? "" : ",") + n;
      sdfg_->metadata["captured"] = list;
    }
    for (auto& v : g.output()) {
      if (!dataName_.count(v.name())) {
        DCW_CHECK(addValue(v.name(), &v.type(), false));
      }
      sdfg_->outputs.push_back(dataName_[v.name()]);
    }

    DCW_CHECK(planStages(g));
    for (int i = 0; i < g.node_size(); ++i) {
      state_ = states_[size_t(stage_.empty() ? 0 : stage_[size_t(i)])];
      DCW_CHECK(addNode(*g.mutable_node(i), i));
    }
    if (untyped_ > 0)
      c_.warnings.warning(loc(c_, where() + "value '" + firstUntyped_ + "'"),
                          std::to_string(untyped_) + " value(s) have no inferred type or shape (first: '" + firstUntyped_ + "')",
                          "their shapes are unknown until run time");
    return std::move(sdfg_);
  }

private:
  Ctx& c_;
  int depth_;
  const GraphBuilder* outer_;
  Place place_;
  std::unique_ptr<Sdfg> sdfg_;
  State* state_ = nullptr;
  // One state per stage: an op whose output size only the run knows ends its stage, and the
  // interstate edge after it assigns the count (core/ir/DynamicExtent.h).
  std::vector<State*> states_;
  std::vector<int> stage_;                      // per node; empty: one state
  std::map<std::string, size_t> countOf_;       // a data-dependent op's first output -> its count's param (index)
  TypeMap types_; // this graph's own value types; enclosing graphs' through outer_
  std::map<std::string, std::string> dataName_; // ONNX value -> data descriptor name
  std::map<std::pair<State*, std::string>, AccessNode*> access_;
  std::vector<std::string> capturedData_;
  int untyped_ = 0;
  std::string firstUntyped_;
  std::unordered_map<std::string, int> dataSuffix_, labelSuffix_; // see uniqueName

  std::string where() const { return place_.str(); }

  // The descriptor an enclosing graph has for a value (nullptr: none).
  const DataDescriptor* outerData(const std::string& onnxName) const {
    for (const GraphBuilder* b = outer_; b; b = b->outer_)
      if (auto it = b->dataName_.find(onnxName); it != b->dataName_.end()) return b->sdfg_->findData(it->second);
    return nullptr;
  }

  const TypeProto* typeOf(const std::string& onnxName) const {
    for (const GraphBuilder* b = this; b; b = b->outer_)
      if (auto it = b->types_.find(onnxName); it != b->types_.end()) return it->second;
    return nullptr;
  }

  std::string uniqueDataName(const std::string& onnxName) {
    std::string base = sanitizeLabel(onnxName);
    if (base.empty()) base = "value";
    return uniqueName(base, dataSuffix_, [&](const std::string& n) { return sdfg_->findData(n) != nullptr; });
  }

  std::string uniqueNodeLabel(const std::string& base) {
    return uniqueName(base, labelSuffix_, [&](const std::string& n) { return state_->nodeByLabel(n) != nullptr; });
  }

  std::string symbolFor(const std::string& param) {
    auto it = c_.dimSymbols.find(param);
    if (it != c_.dimSymbols.end()) return it->second;
    std::string s = uniqueName(sanitizeIdentifier(param), c_.symbolSuffix, [&](const std::string& n) { return c_.symbolNames.count(n) > 0; });
    c_.symbolNames.insert(s);
    c_.dimSymbols[param] = s;
    return s;
  }

  std::string freshSymbol(const std::string& value, int dim) {
    std::string base = sanitizeIdentifier(value);
    if (base.size() > 40) base = base.substr(base.size() - 40);
    if (!std::isalpha(static_cast<unsigned char>(base.front())) && base.front() != '_') base = "s_" + base;
    base += "_dim" + std::to_string(dim);
    std::string s = uniqueName(base, c_.symbolSuffix, [&](const std::string& n) { return c_.symbolNames.count(n) > 0; });
    c_.symbolNames.insert(s);
    return s;
  }

  Expected<void> describe(DataDescriptor& d, const TypeProto* t, const std::string& onnxName) {
    auto where = [&] { return loc(c_, this->where() + "value '" + onnxName + "'"); };
    while (t) {
      switch (t->value_case()) {
      case TypeProto::kSequenceType:
        d.wrappers.push_back(Wrapper::Sequence);
        t = t->sequence_type().has_elem_type() ? &t->sequence_type().elem_type() : nullptr;
        continue;
      case TypeProto::kOptionalType:
        d.wrappers.push_back(Wrapper::Optional);
        t = t->optional_type().has_elem_type() ? &t->optional_type().elem_type() : nullptr;
        continue;
      case TypeProto::kMapType:
        c_.warnings.warning(where(), "map-typed values (" + typeText(*t) + ") are represented without element shape");
        d.sourceName = onnxName;
        d.dtype = dtypeFromOnnx(t->map_type().key_type());
        d.rankKnown = false;
        return {};
      case TypeProto::kTensorType:
      case TypeProto::kSparseTensorType: {
        bool sparse = t->value_case() == TypeProto::kSparseTensorType;
        int32_t elem = sparse ? t->sparse_tensor_type().elem_type() : t->tensor_type().elem_type();
        bool hasShape = sparse ? t->sparse_tensor_type().has_shape() : t->tensor_type().has_shape();
        d.dtype = dtypeFromOnnx(elem);
        if (!sparse && d.wrappers.empty())
          if (auto it = c_.symbolic.shapes.find(onnxName); it != c_.symbolic.shapes.end()) return describeSymbolic(d, it->second);
        if (!hasShape) {
          d.rankKnown = false;
          return {};
        }
        const auto& shape = sparse ? t->sparse_tensor_type().shape() : t->tensor_type().shape();
        std::vector<sym::Expr> dims;
        std::vector<int64_t> concrete;
        bool allConcrete = true;
        for (int k = 0; k < shape.dim_size(); ++k) {
          const auto& dim = shape.dim(k);
          if (dim.has_dim_value()) {
            if (dim.dim_value() < 0)
              return fail(where(), "dimension " + std::to_string(k) + " is negative (" + std::to_string(dim.dim_value()) + ")",
                          "dimensions must be >= 0");
            dims.emplace_back(dim.dim_value());
            concrete.push_back(dim.dim_value());
          } else {
            std::string s = dim.has_dim_param() && !dim.dim_param().empty() ? symbolFor(dim.dim_param())
                                                                             : freshSymbol(onnxName, k);
            sdfg_->addSymbol(s);
            dims.push_back(sym::Expr::symbol(s));
            allConcrete = false;
          }
        }
        if (allConcrete) {
          auto n = checkedElementCount(concrete);
          if (!n || (ir::dtypeSize(d.dtype) > 0 && *n > INT64_MAX / int64_t(ir::dtypeSize(d.dtype)))) {
            std::string txt;
            for (size_t k = 0; k < concrete.size(); ++k) txt += (k ? ", " : "") + std::to_string(concrete[k]);
            return fail(where(), "dims [" + txt + "] hold more elements than a 64-bit count can address",
                        "the model is corrupted or its shapes are wrong");
          }
        }
        d.dataKind = dims.empty() && d.wrappers.empty() ? DataKind::Scalar : DataKind::Array;
        d.strides = DataDescriptor::contiguousStrides(dims);
        d.shape = std::move(dims);
        return {};
      }
      default:
        t = nullptr;
      }
    }
    d.rankKnown = false;
    d.dtype = DType::Undefined;
    if (untyped_++ == 0) firstUntyped_ = onnxName;
    return {};
  }

  // SymbolicShapes' placeholders -> the IR symbols of the params they stand for (made once).
  const std::map<std::string, sym::Expr>& placeholderSymbols() {
    auto& symbols = c_.placeholderSymbols;
    if (symbols.size() != c_.symbolic.params.size())
      for (size_t i = 0; i < c_.symbolic.params.size(); ++i)
        symbols.emplace(SymbolicShapes::placeholder(i), sym::Expr::symbol(symbolFor(c_.symbolic.params[i])));
    return symbols;
  }

  // Dims from DCW's symbolic inference (SymbolicShapes.h), its placeholders replaced by the symbols of
  // the inputs' dim_params.
  Expected<void> describeSymbolic(DataDescriptor& d, const std::vector<sym::Expr>& dims) {
    const auto& symbols = placeholderSymbols();
    std::vector<sym::Expr> shape;
    for (auto& e : dims) {
      shape.push_back(e.substitute(symbols));
      for (auto& s : shape.back().freeSymbols()) sdfg_->addSymbol(s);
    }
    d.dataKind = shape.empty() && d.wrappers.empty() ? DataKind::Scalar : DataKind::Array;
    d.strides = DataDescriptor::contiguousStrides(shape);
    d.shape = std::move(shape);
    return {};
  }

  Expected<DataDescriptor*> addValue(const std::string& onnxName, const TypeProto* t, bool transient) {
    auto d = std::make_unique<DataDescriptor>(uniqueDataName(onnxName));
    if (d->name() != onnxName) d->sourceName = onnxName;
    d->transient = transient;
    DCW_CHECK(describe(*d, t, onnxName));
    DataDescriptor* raw = sdfg_->addData(std::move(d));
    dataName_[onnxName] = raw->name();
    return raw;
  }

  Expected<void> addConstant(const std::string& onnxName, Tensor t) {
    auto d = std::make_unique<DataDescriptor>(uniqueDataName(onnxName));
    if (d->name() != onnxName) d->sourceName = onnxName;
    d->dtype = t.dtype;
    for (auto x : t.dims) d->shape.emplace_back(x);
    d->dataKind = d->shape.empty() ? DataKind::Scalar : DataKind::Array;
    d->strides = DataDescriptor::contiguousStrides(d->shape);
    d->constant = std::make_shared<const Tensor>(std::move(t));
    DataDescriptor* raw = sdfg_->addData(std::move(d));
    dataName_[onnxName] = raw->name();
    return {};
  }

  Expected<void> addInitializer(TensorProto& t) {
    DCW_TRY(auto tensor, tensorFromOnnx(t, loc(c_, where() + "initializer '" + t.name() + "'"), /*steal=*/true));
    return addConstant(t.name(), std::move(tensor));
  }

  Expected<AccessNode*> access(const std::string& onnxName) {
    auto it = access_.find({state_, onnxName});
    if (it != access_.end()) return it->second;
    if (!dataName_.count(onnxName)) {
      const TypeProto* t = typeOf(onnxName);
      TypeProto typed; // a value ONNX left untyped whose element type DCW's inference knows
      if (auto e = c_.symbolic.elemTypes.find(onnxName); !t && e != c_.symbolic.elemTypes.end()) {
        typed.mutable_tensor_type()->set_elem_type(e->second);
        t = &typed;
      }
      DCW_CHECK(addValue(onnxName, t, true));
    }
    const std::string& dn = dataName_[onnxName];
    auto node = std::make_unique<AccessNode>(dn);
    node->setLabel(uniqueNodeLabel(dn)); // an op node may already use the data's name
    auto* a = static_cast<AccessNode*>(state_->addNode(std::move(node)));
    access_[{state_, onnxName}] = a;
    return a;
  }

  Memlet fullMemlet(const std::string& dataName) {
    const DataDescriptor* d = sdfg_->findData(dataName);
    if (!d || !d->rankKnown || !d->wrappers.empty()) {
      Memlet m;
      m.data = dataName;
      m.volume = sym::Expr(1);
      m.dynamic = true; // size known only at run time
      return m;
    }
    return Memlet::full(dataName, d->shape);
  }

  // Connector name for the i-th actual argument under the schema's formal parameters.
  static std::string formalName(const std::vector<OpParam>& formals, int i, const char* fallback) {
    if (formals.empty()) return std::string(fallback) + "_" + std::to_string(i);
    if (i < int(formals.size())) {
      const auto& p = formals[i];
      if (p.option == OpParam::Option::Variadic) return p.name + "_0";
      return p.name;
    }
    const auto& last = formals.back();
    if (last.option == OpParam::Option::Variadic) return last.name + "_" + std::to_string(i - int(formals.size()) + 1);
    return std::string(fallback) + "_" + std::to_string(i);
  }

  Expected<Attribute> convertAttribute(::onnx::AttributeProto& a, LibraryNode& node, const NodeProto& n, int index) {
    using A = ::onnx::AttributeProto;
    auto where = [&] { return loc(c_, this->where() + nodeDesc(n, index) + " attribute '" + a.name() + "'"); };
    Attribute out{a.name(), int64_t(0)};
    if (!a.ref_attr_name().empty()) {
      out.value = std::string("@ref:" + a.ref_attr_name());
      return out;
    }
    auto tensorOf = [&](TensorProto& t) { return tensorFromOnnx(t, where(), false); };
    auto graphOf = [&](GraphProto& g, const std::string& subName) -> Expected<GraphRef> {
      if (depth_ + 1 > kMaxGraphNesting) return tooDeep(c_.source, depth_ + 1);
      const std::vector<std::string> captured = freeNamesOf(g, c_);
      GraphBuilder sub(c_, depth_ + 1, this);
      DCW_TRY(auto s, sub.build(g, subName, captured, Place{&place_, nodeDesc(n, index) + " / " + subName + ": "}));
      node.addSubgraph(subName, std::move(s));
      for (auto& cap : captured)
        DCW_CHECK(connectOuter(node, cap));
      return GraphRef{subName};
    };
    switch (a.type()) {
    case A::INT: out.value = int64_t(a.i()); break;
    case A::FLOAT: out.value = double(a.f()); break;
    case A::STRING: out.value = a.s(); break;
    case A::INTS: out.value = std::vector<int64_t>(a.ints().begin(), a.ints().end()); break;
    case A::FLOATS: out.value = std::vector<double>(a.floats().begin(), a.floats().end()); break;
    case A::STRINGS: out.value = std::vector<std::string>(a.strings().begin(), a.strings().end()); break;
    case A::TENSOR: {
      DCW_TRY(auto t, tensorOf(*a.mutable_t()));
      out.value = std::move(t);
      break;
    }
    case A::SPARSE_TENSOR: {
      DCW_TRY(auto t, tensorFromOnnx(a.sparse_tensor(), where()));
      out.value = std::move(t);
      break;
    }
    case A::TENSORS: {
      std::vector<Tensor> v;
      for (auto& t : *a.mutable_tensors()) {
        DCW_TRY(auto x, tensorOf(t));
        v.push_back(std::move(x));
      }
      out.value = std::move(v);
      break;
    }
    case A::SPARSE_TENSORS: {
      std::vector<Tensor> v;
      for (auto& t : a.sparse_tensors()) {
        DCW_TRY(auto x, tensorFromOnnx(t, where()));
        v.push_back(std::move(x));
      }
      out.value = std::move(v);
      break;
    }
    case A::GRAPH: {
      DCW_TRY(auto g, graphOf(*a.mutable_g(), a.name()));
      out.value = g;
      break;
    }
    case A::GRAPHS: {
      std::vector<GraphRef> v;
      for (int i = 0; i < a.graphs_size(); ++i) {
        DCW_TRY(auto g, graphOf(*a.mutable_graphs(i), a.name() + "_" + std::to_string(i)));
        v.push_back(g);
      }
      out.value = std::move(v);
      break;
    }
    case A::TYPE_PROTO: out.value = TypeName{typeText(a.tp())}; break;
    case A::TYPE_PROTOS: {
      std::vector<TypeName> v;
      for (auto& t : a.type_protos()) v.push_back(TypeName{typeText(t)});
      out.value = std::move(v);
      break;
    }
    default:
      return fail(where(), "attribute has no or an unknown type (" + std::to_string(int(a.type())) + ")",
                  "set the attribute's type field");
    }
    return out;
  }

  Expected<void> connectOuter(LibraryNode& node, const std::string& onnxName) {
    DCW_TRY(auto a, access(onnxName));
    std::string conn = "outer." + a->data();
    if (node.findIn(conn)) return {};
    const DataDescriptor* d = sdfg_->findData(a->data());
    node.addIn(Connector{conn, d ? d->dtype : DType::Undefined, false});
    state_->addEdge(*a, "", node, conn, fullMemlet(a->data()));
    return {};
  }

  // One connector per actual argument (named after the schema's formal parameter) with an edge to or
  // from the value's access node; omitted optional arguments stay unconnected optional connectors.
  Expected<void> connect(LibraryNode& ln, const google::protobuf::RepeatedPtrField<std::string>& values,
                         const std::vector<OpParam>& formals, bool input) {
    auto add = [&](Connector c) { input ? ln.addIn(std::move(c)) : ln.addOut(std::move(c)); };
    for (int i = 0; i < values.size(); ++i) {
      std::string conn = formalName(formals, i, input ? "in" : "out");
      const std::string& v = values[i];
      if (v.empty()) {
        add(Connector{conn, DType::Undefined, true});
        continue;
      }
      DCW_TRY(auto a, access(v));
      const DataDescriptor* d = sdfg_->findData(a->data());
      bool optional = i < int(formals.size()) && formals[i].option == OpParam::Option::Optional;
      add(Connector{conn, d ? d->dtype : DType::Undefined, optional});
      if (input) state_->addEdge(*a, "", ln, conn, fullMemlet(a->data()));
      else state_->addEdge(ln, conn, *a, "", fullMemlet(a->data()));
    }
    for (int i = values.size(); i < int(formals.size()); ++i)
      if (formals[i].option != OpParam::Option::Variadic) add(Connector{formals[i].name, DType::Undefined, true});
    return {};
  }

  // The main graph's states (see states_): each node goes in the first stage after every value it
  // reads (its inputs and what its subgraphs capture) is written, and a data-dependent op's outputs
  // are readable only from the next stage on.
  Expected<void> planStages(GraphProto& g) {
    if (!outer_ && depth_ == 0)
      for (auto& [i, dd] : c_.symbolic.dataDependent) countOf_[dd.output] = i;
    states_.push_back(sdfg_->addState("state0"));
    if (countOf_.empty()) return {};
    std::map<std::string, int> ready;
    stage_.assign(size_t(g.node_size()), 0);
    int last = 0;
    for (int i = 0; i < g.node_size(); ++i) {
      NodeProto& n = *g.mutable_node(i);
      int s = 0;
      auto after = [&](const std::string& v) {
        if (auto it = ready.find(v); it != ready.end()) s = std::max(s, it->second);
      };
      for (auto& v : n.input()) after(v);
      std::vector<std::pair<std::string, GraphProto*>> subs;
      subgraphsOf(n, subs);
      for (auto& [name, sub] : subs)
        for (auto& v : freeNamesOf(*sub, c_)) after(v);
      stage_[size_t(i)] = s;
      const int out = s + (n.output_size() > 0 && countOf_.count(n.output(0)) ? 1 : 0);
      for (auto& v : n.output()) ready[v] = out;
      last = std::max(last, out);
    }
    for (int k = 1; k <= last; ++k) {
      states_.push_back(sdfg_->addState("state" + std::to_string(k)));
      sdfg_->addEdge(states_[size_t(k) - 1]->id(), states_[size_t(k)]->id());
    }
    return {};
  }

  // A data-dependent op also writes its count into a scalar (connector `extent`); the edge that leaves
  // its state assigns the count's symbol from it, and the root records the symbol's bound.
  Expected<void> addExtent(LibraryNode& ln, const NodeProto& n) {
    auto it = countOf_.find(n.output(0));
    if (it == countOf_.end()) return {};
    const std::string symbol = symbolFor(c_.symbolic.params[it->second]);
    sdfg_->addSymbol(symbol);
    std::string name = uniqueName(sanitizeIdentifier(ln.label()) + "_extent", dataSuffix_,
                                  [&](const std::string& x) { return sdfg_->findData(x) != nullptr; });
    auto d = std::make_unique<DataDescriptor>(name);
    d->dataKind = DataKind::Scalar;
    d->dtype = DType::Int64;
    d->transient = true;
    sdfg_->addData(std::move(d));
    auto* a = static_cast<AccessNode*>(state_->addNode(std::make_unique<AccessNode>(name)));
    a->setLabel(uniqueNodeLabel(name));
    ln.addOut(Connector{"extent", DType::Int64, false});
    state_->addEdge(ln, "extent", *a, "", Memlet::full(name, {}));
    auto outs = sdfg_->outEdges(state_->id());
    if (outs.size() != 1) return fail(loc(c_, where() + ln.label()), "the state after a data-dependent op is missing", "this is a bug in the importer");
    outs[0]->assignments.push_back({symbol, sym::Expr::symbol(name)});
    sym::Expr bound = c_.symbolic.dataDependent.at(it->second).bound.substitute(placeholderSymbols());
    for (auto& s : bound.freeSymbols()) sdfg_->addSymbol(s);
    ir::setDynamicExtent(*sdfg_, {symbol, ln.label(), bound});
    return {};
  }

  Expected<void> addNode(NodeProto& n, int index) {
    auto where = [&] { return loc(c_, this->where() + nodeDesc(n, index)); };
    std::string label = sanitizeLabel(n.name());
    if (label.empty()) label = n.op_type().empty() ? "node" : sanitizeLabel(n.op_type()) + "_" + std::to_string(index);
    label = uniqueNodeLabel(label);
    auto node = std::make_unique<LibraryNode>(label);
    node->domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node->opType = n.op_type();
    if (n.name() != label) node->sourceName = n.name();
    if (n.op_type().empty()) return fail(where(), "node has no op_type", "set the node's operator");

    auto opsetIt = c_.opsets.find(node->domain);
    int opset = opsetIt == c_.opsets.end() ? 0 : opsetIt->second;
    std::optional<OpClass> cls;
    if (opset > 0) cls = findOpClass(node->domain, node->opType, opset);
    const ::onnx::FunctionProto* fn = nullptr;
    if (auto f = c_.functions.find(node->domain + "::" + node->opType); f != c_.functions.end()) fn = f->second;
    std::vector<OpParam> ins, outs;
    if (cls) {
      node->opsetVersion = cls->sinceVersion;
      ins = cls->inputs;
      outs = cls->outputs;
    } else if (fn) {
      node->opsetVersion = opset;
      for (auto& i : fn->input()) ins.push_back(OpParam{i, OpParam::Option::Optional, "", 0});
      for (auto& o : fn->output()) outs.push_back(OpParam{o, OpParam::Option::Optional, "", 0});
    } else if (isKnownDomain(node->domain) && c_.options.runChecker) {
      return fail(where(), "op " + node->className() + " does not exist in opset " + std::to_string(opset) + " of its domain",
                  "check the op name and the model's opset imports");
    } else {
      node->opaque = true;
      node->opsetVersion = opset;
      c_.warnings.warning(where(), "op " + node->className() + " has no schema; imported as an opaque node that can be inspected but not run",
                          "register the domain '" + node->domain + "' or replace the node");
    }
    LibraryNode* ln = static_cast<LibraryNode*>(state_->addNode(std::move(node)));

    DCW_CHECK(connect(*ln, n.input(), ins, /*input=*/true));
    DCW_CHECK(connect(*ln, n.output(), outs, /*input=*/false));
    if (!stage_.empty() && n.output_size() > 0) DCW_CHECK(addExtent(*ln, n));

    for (auto& a : *n.mutable_attribute()) {
      DCW_TRY(auto attr, convertAttribute(a, *ln, n, index));
      ln->attributes.push_back(std::move(attr));
    }
    if (fn && !cls) {
      // A model-local function: its body becomes the node's "function" subgraph.
      const std::string fname = n.domain() + "::" + n.op_type();
      auto& expanding = c_.functionsExpanding;
      if (std::find(expanding.begin(), expanding.end(), fname) != expanding.end())
        return fail(where(), "function " + opName(n) + " calls itself (directly or through other functions)",
                    "ONNX functions cannot be recursive; express repetition with a Loop node");
      if (depth_ + 1 > kMaxGraphNesting) return tooDeep(c_.source, depth_ + 1);
      expanding.push_back(fname);
      struct Pop {
        std::vector<std::string>& v;
        ~Pop() { v.pop_back(); }
      } pop{expanding};
      GraphProto body;
      for (auto& i : fn->input()) body.add_input()->set_name(i);
      for (auto& o : fn->output()) body.add_output()->set_name(o);
      for (auto& x : fn->node()) *body.add_node() = x;
      GraphBuilder sub(c_, depth_ + 1);
      auto s = sub.build(body, "function", {}, Place{&place_, nodeDesc(n, index) + " / function: "});
      if (!s) return s.takeError();
      ln->addSubgraph("function", std::move(*s));
      ln->attributes.push_back(Attribute{"function", GraphRef{"function"}});
    }
    return {};
  }
};

// ---------------------------------------------------------------------------------------------

// Folds, in the light copy used for inference, the nodes whose operands are now constant or
// statically shaped (see ShapeArithmetic.h): their outputs become initializers. True if any folded.
bool foldShapeArithmetic(GraphProto& g, int64_t opset) {
  std::map<std::string, std::vector<int64_t>> shapes;
  auto record = [&](const ::onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return;
      dims.push_back(d.dim_value());
    }
    shapes[v.name()] = dims;
  };
  for (auto& v : g.input()) record(v);
  for (auto& v : g.value_info()) record(v);
  for (auto& v : g.output()) record(v);
  std::map<std::string, ir::Tensor> values;
  for (auto& t : g.initializer()) {
    shapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
    if (t.data_type() != TensorProto::INT64 && t.data_type() != TensorProto::INT32 && t.data_type() != TensorProto::BOOL) continue;
    TensorProto copy = t;
    if (auto v = tensorFromOnnx(copy, t.name(), true)) values.emplace(t.name(), std::move(*v));
  }
  static const std::set<std::string> kFoldable = {"Shape", "Size", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice",
                                                  "Cast", "Neg", "Abs", "Add", "Sub", "Mul", "Div", "Equal", "Where",
                                                  "ConstantOfShape", "Range", "ReduceProd", "Reshape", "Identity"};
  bool folded = false;
  std::vector<NodeProto> kept;
  for (auto& n : g.node()) {
    std::optional<ir::Tensor> r;
    if (n.domain().empty() && n.output_size() == 1 && kFoldable.count(n.op_type())) {
      std::vector<ShapeOpInput> in;
      for (auto& name : n.input()) {
        ShapeOpInput x;
        x.present = !name.empty();
        if (auto it = values.find(name); it != values.end()) x.value = &it->second;
        if (auto it = shapes.find(name); it != shapes.end()) x.staticShape = it->second;
        in.push_back(std::move(x));
      }
      std::vector<ir::Attribute> attrs;
      for (auto& a : n.attribute()) {
        if (a.type() == ::onnx::AttributeProto::INT) attrs.push_back({a.name(), int64_t(a.i())});
        else if (a.type() == ::onnx::AttributeProto::INTS) attrs.push_back({a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end())});
        else if (a.type() == ::onnx::AttributeProto::TENSOR) {
          TensorProto copy = a.t();
          if (auto v = tensorFromOnnx(copy, a.name(), true)) attrs.push_back({a.name(), std::move(*v)});
        }
      }
      std::optional<std::vector<int64_t>> outShape;
      if (auto it = shapes.find(n.output(0)); it != shapes.end()) outShape = it->second;
      r = evaluateShapeOp(n.op_type(), opset, attrs, in, outShape);
    }
    if (r && r->elementCount() <= 4096) {
      *g.add_initializer() = tensorToOnnx(*r, n.output(0));
      values.emplace(n.output(0), *r);
      shapes[n.output(0)] = r->dims;
      folded = true;
    } else {
      kept.push_back(n);
    }
  }
  if (folded) {
    g.clear_node();
    for (auto& n : kept) *g.add_node() = std::move(n);
    // value_info of folded values would contradict the new initializers: inference recomputes it.
    google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> vi;
    for (auto& v : g.value_info())
      if (!values.count(v.name())) *vi.Add() = v;
    *g.mutable_value_info() = vi;
  }
  return folded;
}

// ONNX shape inference reads shape operands (Reshape's shape, Expand's shape, ...) from initializers
// but not from Constant nodes, which older exporters use. Inference therefore runs on a light copy in
// which main-graph Constant nodes are initializers and large weights carry dims but no data; the
// inferred types are then copied back. The model itself keeps its Constant nodes and its weights.
// Inference runs in a child process (IsolatedInference.h): ONNX's inference functions can crash on a
// malformed model. The limit is far above what inference takes on the largest models we import.
constexpr std::chrono::seconds kShapeInferenceLimit{300};

void inferShapes(ModelProto& m, Ctx& c) {
  constexpr int64_t kSmall = 4096;
  ModelProto light;
  *light.mutable_opset_import() = m.opset_import();
  *light.mutable_functions() = m.functions();
  light.set_ir_version(std::max<int64_t>(m.ir_version(), 4)); // initializers need not be graph inputs
  const GraphProto& g = m.graph();
  GraphProto& lg = *light.mutable_graph();
  lg.set_name(g.name());
  *lg.mutable_input() = g.input();
  *lg.mutable_output() = g.output();
  *lg.mutable_value_info() = g.value_info();
  *lg.mutable_sparse_initializer() = g.sparse_initializer();
  for (auto& t : g.initializer()) {
    int64_t n = 1;
    for (auto d : t.dims()) n *= d;
    TensorProto* copy = lg.add_initializer();
    if (n <= kSmall) {
      *copy = t;
    } else {
      copy->set_name(t.name());
      copy->set_data_type(t.data_type());
      *copy->mutable_dims() = t.dims();
      copy->set_raw_data(std::string()); // dims and type are all inference needs
    }
  }
  for (auto& n : g.node()) {
    if (n.op_type() == "Constant" && n.domain().empty() && n.output_size() == 1 && n.attribute_size() == 1 &&
        n.attribute(0).name() == "value" && n.attribute(0).has_t()) {
      TensorProto* t = lg.add_initializer();
      *t = n.attribute(0).t();
      t->set_name(n.output(0));
      continue;
    }
    *lg.add_node() = n;
  }
  // Inference, then folding of the shape arithmetic it made constant, until nothing more folds.
  for (int round = 0; round < 16; ++round) {
    auto outcome = runIsolated(
        light,
        [](ModelProto& model) -> std::optional<std::string> {
          ::onnx::ShapeInferenceOptions opts(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/true);
          ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), opts);
          return std::nullopt;
        },
        kShapeInferenceLimit);
    if (outcome.kind == IsolatedOutcome::Kind::Stopped) {
      std::string msg = outcome.message;
      if (auto p = msg.find("\n"); p != std::string::npos) msg = msg.substr(0, p);
      c.warnings.warning(c.source, "ONNX shape inference stopped early: " + msg,
                         "shapes it could not infer are symbolic; the model may be inconsistent");
      break;
    }
    if (outcome.kind != IsolatedOutcome::Kind::Finished) {
      c.warnings.warning(c.source, "ONNX's own shape inference failed on this model: " + outcome.message,
                         "a declared shape probably does not fit an operator; shapes are taken as the model declares them");
      break;
    }
    if (!foldShapeArithmetic(*light.mutable_graph(), c.opsets.count("") ? c.opsets.at("") : 0)) break;
  }
  c.symbolic = inferSymbolicShapes(light.graph(), c.opsets.count("") ? c.opsets.at("") : 0);
  // Copy back: inferred value_info, refined outputs, and the subgraphs' inferred types.
  *m.mutable_graph()->mutable_value_info() = light.graph().value_info();
  for (int i = 0; i < light.graph().output_size() && i < m.graph().output_size(); ++i)
    *m.mutable_graph()->mutable_output(i)->mutable_type() = light.graph().output(i).type();
  std::map<std::string, const NodeProto*> lightByOutput; // folded and Constant nodes are not there
  for (auto& ln : light.graph().node())
    if (ln.output_size() > 0) lightByOutput[ln.output(0)] = &ln;
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.output_size() == 0 || !lightByOutput.count(n.output(0))) continue;
    const NodeProto& ln = *lightByOutput[n.output(0)];
    // A body's inferred value_info, and the types inferred for its outputs (a branch may leave them out).
    auto copyBack = [](GraphProto& to, const GraphProto& from) {
      *to.mutable_value_info() = from.value_info();
      for (int i = 0; i < to.output_size() && i < from.output_size(); ++i)
        if (from.output(i).has_type()) *to.mutable_output(i)->mutable_type() = from.output(i).type();
    };
    for (int a = 0; a < n.attribute_size() && a < ln.attribute_size(); ++a) {
      if (n.attribute(a).has_g()) copyBack(*n.mutable_attribute(a)->mutable_g(), ln.attribute(a).g());
      for (int j = 0; j < n.attribute(a).graphs_size() && j < ln.attribute(a).graphs_size(); ++j)
        copyBack(*n.mutable_attribute(a)->mutable_graphs(j), ln.attribute(a).graphs(j));
    }
  }
  // Outputs of Constant and folded nodes became initializers of the copy, so value_info lacks them:
  // describe them from those initializers.
  std::set<std::string> typed;
  for (auto& v : m.graph().value_info()) typed.insert(v.name());
  for (auto& t : m.graph().initializer()) typed.insert(t.name());
  for (auto& v : m.graph().input()) typed.insert(v.name());
  for (auto& v : m.graph().output()) typed.insert(v.name());
  for (auto& t : light.graph().initializer()) {
    if (typed.count(t.name())) continue;
    auto* v = m.mutable_graph()->add_value_info();
    v->set_name(t.name());
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto* shape = tt->mutable_shape();
    for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
  }
}

// Puts the branch an If takes in place of the If, where the inputs' dims decide its condition
// (SymbolicShapes::decidedIfs: a branch on a tensor's rank, as TorchScript exports write them): the
// branch's nodes, initializers and value types join the enclosing graph, and an Identity per output
// gives the If's output names their values. The branch not taken may not even be typable for these
// inputs; it is gone.
void spliceDecidedIfs(GraphProto& g, const std::map<std::string, bool>& decided, int depth) {
  if (depth > kMaxGraphNesting) return;
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  for (auto& n : *g.mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) spliceDecidedIfs(*a.mutable_g(), decided, depth + 1);
      for (auto& sub : *a.mutable_graphs()) spliceDecidedIfs(sub, decided, depth + 1);
    }
    auto it = n.op_type() == "If" && n.domain().empty() && n.output_size() > 0 ? decided.find(n.output(0)) : decided.end();
    GraphProto* branch = nullptr;
    if (it != decided.end())
      for (auto& a : *n.mutable_attribute())
        if (a.name() == (it->second ? "then_branch" : "else_branch") && a.has_g()) branch = a.mutable_g();
    if (!branch || branch->output_size() != n.output_size()) {
      nodes.Add(std::move(n));
      continue;
    }
    for (auto& t : branch->initializer()) *g.add_initializer() = t;
    for (auto& v : branch->value_info()) *g.add_value_info() = v;
    for (auto& bn : *branch->mutable_node()) nodes.Add(std::move(bn));
    for (int k = 0; k < n.output_size(); ++k) {
      if (n.output(k).empty()) continue;
      NodeProto* id = nodes.Add();
      id->set_op_type("Identity");
      id->set_name((n.name().empty() ? n.output(0) : n.name()) + "/taken_output_" + std::to_string(k));
      id->add_input(branch->output(k).name());
      id->add_output(n.output(k));
      if (branch->output(k).has_type()) {
        auto* v = g.add_value_info();
        *v = branch->output(k);
      }
    }
  }
  *g.mutable_node() = std::move(nodes);
}

// The inputs whose values the run fixes (ImportOptions::fixedValues): every use of one, in the graph
// and its subgraphs, reads a Constant of the value instead, so shape arithmetic and If conditions on it
// are decided at import (SymbolicShapes::decidedIfs). The input stays in the interface.
Expected<void> foldFixedValues(GraphProto& g, Ctx& c) {
  std::map<std::string, std::string> renamed;
  std::set<std::string> names;
  std::function<void(const GraphProto&)> collect = [&](const GraphProto& sub) {
    for (auto& v : sub.input()) names.insert(v.name());
    for (auto& t : sub.initializer()) names.insert(t.name());
    for (auto& n : sub.node()) {
      for (auto& o : n.output()) names.insert(o);
      for (auto& a : n.attribute()) {
        if (a.has_g()) collect(a.g());
        for (auto& b : a.graphs()) collect(b);
      }
    }
  };
  collect(g);
  std::set<std::string> inits;
  for (auto& t : g.initializer()) inits.insert(t.name());
  google::protobuf::RepeatedPtrField<NodeProto> nodes;
  for (auto& v : g.input()) {
    auto it = c.options.fixedValues.find(v.name());
    if (it == c.options.fixedValues.end() || inits.count(v.name()) || !v.type().has_tensor_type()) continue;
    const ir::Tensor& t = it->second;
    const int32_t declared = v.type().tensor_type().elem_type();
    if (declared != 0 && declared != dtypeToOnnx(t.dtype))
      return fail(c.source + ": input '" + v.name() + "'",
                  "the value given is " + std::string(ir::dtypeName(t.dtype)) + ", the model declares " + std::string(ir::dtypeName(dtypeFromOnnx(declared))),
                  "give a value of the declared type");
    std::string name = v.name() + "_fixed";
    for (int k = 0; names.count(name); ++k) name = v.name() + "_fixed_" + std::to_string(k);
    names.insert(name);
    renamed[v.name()] = name;
    NodeProto* n = nodes.Add();
    n->set_op_type("Constant");
    n->set_name(name);
    n->add_output(name);
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    *a->mutable_t() = tensorToOnnx(t, "");
    a->mutable_t()->clear_name();
  }
  if (renamed.empty()) return {};
  std::function<void(GraphProto&)> rename = [&](GraphProto& sub) {
    for (auto& n : *sub.mutable_node()) {
      for (auto& i : *n.mutable_input())
        if (auto r = renamed.find(i); r != renamed.end()) i = r->second;
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) rename(*a.mutable_g());
        for (auto& b : *a.mutable_graphs()) rename(b);
      }
    }
  };
  rename(g);
  for (auto& n : *g.mutable_node()) nodes.Add(std::move(n));
  *g.mutable_node() = std::move(nodes);
  return {};
}

Expected<ImportResult> importModel(ModelProto& m, Ctx& c) {
  if (!m.has_graph() || m.ir_version() <= 0)
    return fail(c.source, std::string("not an ONNX model: ") + (m.has_graph() ? "it has no IR version" : "it contains no graph"),
                "open a model saved by onnx.save or torch.onnx.export");
  if (m.ir_version() > ::onnx::IR_VERSION)
    return fail(c.source, "the model uses ONNX IR version " + std::to_string(m.ir_version()) + "; this build reads up to " +
                              std::to_string(int(::onnx::IR_VERSION)),
                "re-export the model for an older ONNX (e.g. torch.onnx.export(..., opset_version=17))");
  for (auto& o : m.opset_import()) {
    std::string d = o.domain() == "ai.onnx" ? "" : o.domain();
    c.opsets[d] = int(o.version());
    int maxV = registryMaxOpset(d);
    if (maxV > 0 && o.version() > maxV)
      return fail(c.source, "the model imports " + (d.empty() ? std::string("ai.onnx") : d) + " opset " +
                                std::to_string(o.version()) + "; this build supports opsets up to " + std::to_string(maxV) +
                                " (ONNX " + ::onnx::LAST_RELEASE_VERSION + ")",
                  "re-export the model with opset_version <= " + std::to_string(maxV));
  }
  for (auto& f : m.functions()) c.functions[(f.domain() == "ai.onnx" ? "" : f.domain()) + "::" + f.name()] = &f;

  DCW_CHECK(loadExternalInGraph(*m.mutable_graph(), c, 0));
  // An input dim with neither a number nor a name gets a name, so that the dims computed from it
  // (SymbolicShapes) and specialization (fixedDims) can refer to it.
  {
    std::set<std::string> inits;
    for (auto& t : m.graph().initializer()) inits.insert(t.name());
    for (auto& v : *m.mutable_graph()->mutable_input()) {
      if (inits.count(v.name()) || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      auto& dims = *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
      for (int k = 0; k < dims.size(); ++k)
        if (!dims[k].has_dim_value() && (!dims[k].has_dim_param() || dims[k].dim_param().empty()))
          dims[k].set_dim_param(v.name() + "_dim" + std::to_string(k));
    }
  }
  if (!c.options.fixedDims.empty()) {
    auto fix = [&](google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto>& values) {
      for (auto& v : values) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
        for (auto& d : *v.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
          if (d.has_dim_param())
            if (auto it = c.options.fixedDims.find(d.dim_param()); it != c.options.fixedDims.end()) d.set_dim_value(it->second);
      }
    };
    fix(*m.mutable_graph()->mutable_input());
    fix(*m.mutable_graph()->mutable_output());
    m.mutable_graph()->clear_value_info(); // recomputed by shape inference from the fixed inputs
  }
  if (!c.options.fixedValues.empty()) DCW_CHECK(foldFixedValues(*m.mutable_graph(), c));
  VisibleNames visible;
  DCW_CHECK(checkGraphStructure(*m.mutable_graph(), visible, c, Place{}, 0));

  if (c.options.runChecker) {
    try {
      ::onnx::checker::check_model(m);
    } catch (const std::exception& e) {
      std::string msg = e.what();
      if (auto p = msg.find("\n"); p != std::string::npos) msg = msg.substr(0, p);
      return fail(c.source, "the ONNX checker rejects the model: " + msg, "fix the model (onnx.checker.check_model shows the same)");
    }
  }
  for (auto& f : m.functions())
    for (int i = 0; i < f.node_size(); ++i)
      DCW_CHECK(checkShapeAttributes(f.node(i), i, c, Place{nullptr, "function " + f.name() + ": "}));
  if (c.options.runShapeInference) inferShapes(m, c);
  // Sequences the model fixes become lists of tensors (StaticSequences.h); inference then types the
  // tensor ops they became.
  std::optional<ModelInterface> interface;
  std::string unresolved; // why sequence or optional ops are left, naming the node
  if (ModelInterface layout; resolveStaticSequences(*m.mutable_graph(), c.opsets.count("") ? c.opsets.at("") : 0,
                                                    c.options.interface.empty() ? nullptr : &c.options.interface, &layout,
                                                    &unresolved)) {
    interface = std::move(layout);
    c.freeNamesOf.clear();
    if (c.options.runShapeInference) inferShapes(m, c);
  }
  // Decided Ifs (on ranks, or on an input's fixed value) give way to their taken branches; inference
  // then sees the branch's ops in the graph (inside a branch ONNX's inference often leaves ranks
  // unknown), which may decide Ifs nested in them in turn.
  for (std::set<std::string> spliced; !c.symbolic.decidedIfs.empty();) {
    bool fresh = false;
    for (auto& [output, taken] : c.symbolic.decidedIfs) fresh = spliced.insert(output).second || fresh;
    if (!fresh) break;
    spliceDecidedIfs(*m.mutable_graph(), c.symbolic.decidedIfs, 0);
    c.freeNamesOf.clear();
    if (!c.options.runShapeInference) break;
    inferShapes(m, c);
  }

  GraphBuilder b(c, 0);
  auto sdfg = b.build(*m.mutable_graph(), "main", {}, Place{});
  if (!sdfg) return sdfg.takeError();
  ImportResult r;
  r.sdfg = std::move(*sdfg);
  auto& md = r.sdfg->metadata;
  md["source"] = c.source;
  md["format"] = "onnx";
  md["graph_name"] = m.graph().name();
  md["ir_version"] = std::to_string(m.ir_version());
  if (interface) md[kInterfaceMetadata] = interface->str();
  if (!unresolved.empty()) md[kUnresolvedStructureMetadata] = unresolved;
  if (!m.producer_name().empty()) md["producer"] = m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());
  if (!m.doc_string().empty()) md["doc"] = m.doc_string();
  for (auto& [d, v] : c.opsets) md["opset:" + (d.empty() ? std::string("ai.onnx") : d)] = std::to_string(v);
  for (auto& p : m.metadata_props()) md["meta:" + p.key()] = p.value();
  // Conditions on the inputs' dims under which the inferred dims hold (SymbolicShapes::checks).
  {
    std::map<std::string, sym::Expr> symbols;
    for (size_t i = 0; i < c.symbolic.params.size(); ++i)
      if (auto it = c.dimSymbols.find(c.symbolic.params[i]); it != c.dimSymbols.end())
        symbols.emplace(SymbolicShapes::placeholder(i), sym::Expr::symbol(it->second));
    size_t k = 0;
    for (auto& check : c.symbolic.checks) {
      sym::Expr a = check.a.substitute(symbols), b = check.b.substitute(symbols);
      bool bound = true;
      for (auto& s : sym::eq(a, b).freeSymbols()) bound = bound && r.sdfg->symbols().count(s);
      if (bound) md["dims-check:" + std::to_string(k++)] = check.node + "\n" + a.str() + "\n" + b.str();
    }
  }
  // Symbols that stand for an input's elements (SymbolicShapes::valueParams), where the IR uses them.
  for (auto& [i, where] : c.symbolic.valueParams)
    if (auto it = c.dimSymbols.find(c.symbolic.params[i]); it != c.dimSymbols.end() && r.sdfg->symbols().count(it->second))
      for (auto& in : r.sdfg->inputs)
        if (const auto* d = r.sdfg->findData(in); d && (d->name() == where.first || d->sourceName == where.first))
          md["value-symbol:" + it->second] = d->name() + "\n" + std::to_string(where.second);
  for (auto& [param, s] : c.dimSymbols)
    if (param != s) md["symbol:" + s] = param;
  r.warnings = std::move(c.warnings);
  return r;
}

// ONNX's checker and shape inference report by throwing; nothing may escape the library.
Expected<ImportResult> guardedImport(ModelProto& m, Ctx& c) {
  try {
    return importModel(m, c);
  } catch (const std::exception& e) {
    return fail(c.source, std::string("import failed: ") + e.what(), "the model is malformed");
  }
}

struct SilenceProtobuf {
  SilenceProtobuf() { google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*, int, const std::string&) {}); }
};

// Why protobuf refused the bytes. `bytes` is the whole input when at hand (then a model that nests
// subgraphs past the limit, which protobuf refuses for its recursion depth, is told apart from a
// corrupt one), else empty.
Expected<ImportResult> parseFailure(const std::string& head, uint64_t size, const std::string& source,
                                    std::string_view bytes) {
  if (size == 0) return fail(source, "the file is empty", "export the model again (onnx.save / torch.onnx.export)");
  if (looksLikeText(head))
    return fail(source, "this is a text file, not an ONNX model (ONNX models are binary protobuf)",
                "open the .onnx file written by onnx.save or torch.onnx.export");
  if (auto depth = scanSubgraphNesting(bytes); depth && *depth > kMaxSubgraphNesting)
    return tooDeep(source, *depth);
  return fail(source, "not a valid ONNX model: the protobuf data is truncated or corrupted",
              "re-export or re-download the model");
}

// Parses with the recursion limit that kMaxSubgraphNesting needs (protobuf's default of 100 nested
// messages stops at 33 levels of If).
bool parseModel(google::protobuf::io::ZeroCopyInputStream& in, ModelProto& m) {
  google::protobuf::io::CodedInputStream coded(&in);
  coded.SetTotalBytesLimit(INT32_MAX);
  coded.SetRecursionLimit(kProtobufRecursionLimit);
  return m.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

// After a successful parse, before anything that recurses over the model (ONNX's checker and shape
// inference included: they would recurse without end into a function that calls itself).
Expected<void> checkNesting(const ModelProto& m, const std::string& source) {
  if (auto f = recursiveFunction(m))
    return fail(source, "model-local function " + *f + " calls itself (directly or through other functions)",
                "ONNX functions cannot be recursive; express repetition with a Loop node");
  if (int depth = subgraphNesting(m); depth > kMaxSubgraphNesting) return tooDeep(source, depth);
  return {};
}

} // namespace

Expected<ImportResult> importOnnxBytes(const std::string& bytes, const std::string& sourceName, const std::string& baseDir,
                                       const ImportOptions& options) {
  static SilenceProtobuf silence;
  Ctx c;
  c.source = sourceName;
  c.baseDir = baseDir;
  c.options = options;
  ModelProto m;
  if (bytes.empty() || bytes.size() > size_t(INT32_MAX)) return parseFailure(bytes.substr(0, 512), bytes.size(), sourceName, bytes);
  google::protobuf::io::ArrayInputStream in(bytes.data(), int(bytes.size()));
  if (!parseModel(in, m)) return parseFailure(bytes.substr(0, 512), bytes.size(), sourceName, bytes);
  DCW_CHECK(checkNesting(m, sourceName));
  return guardedImport(m, c);
}

Expected<ImportResult> importOnnxFile(const std::string& path, const ImportOptions& options) {
  static SilenceProtobuf silence;
  std::error_code ec;
  if (!fs::exists(path, ec)) return fail(path, "no such file", "check the path");
  if (fs::is_directory(path, ec)) return fail(path, "is a folder, not a model file", "give the path of the .onnx file");
  uint64_t size = fs::file_size(path, ec);
  if (ec) return fail(path, "cannot read the file size: " + ec.message());
  if (size > options.maxFileSize)
    return fail(path, "the file is " + std::to_string(size >> 20) + " MiB, larger than the limit of " +
                          std::to_string(options.maxFileSize >> 20) + " MiB",
                "store large weights as ONNX external data");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, "cannot open the file for reading", "check its permissions");
  std::string head(512, '\0');
  in.read(head.data(), 512);
  head.resize(size_t(in.gcount()));
  if (size == 0) return parseFailure(head, size, path, {});
  in.clear();
  in.seekg(0);

  Ctx c;
  c.source = path;
  c.baseDir = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec).string();
  c.options = options;
  ModelProto m;
  google::protobuf::io::IstreamInputStream zin(&in, 1 << 20);
  if (!parseModel(zin, m)) {
    // Read it whole only now, to tell a model nested too deep from a corrupt one.
    std::string bytes;
    if (size <= uint64_t(INT32_MAX)) {
      std::ifstream again(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(again), std::istreambuf_iterator<char>());
    }
    return parseFailure(head, size, path, bytes);
  }
  DCW_CHECK(checkNesting(m, path));
  return guardedImport(m, c);
}

} // namespace dcw::onnx
