// See SubgraphNesting.h.
#include "core/onnx/SubgraphNesting.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace dcw::onnx {

namespace {

using FunctionKey = std::string; // "domain::name"

FunctionKey keyOf(const std::string& domain, const std::string& name) {
  return (domain == "ai.onnx" ? std::string() : domain) + "::" + name;
}

// Calls the visitor with (node, level) for every node of `g` and of the bodies below it, level 0
// being g itself. Iterative.
template <class Visit>
void forEachNode(const ::onnx::GraphProto& g, Visit visit) {
  std::vector<std::pair<const ::onnx::GraphProto*, int>> todo{{&g, 0}};
  while (!todo.empty()) {
    auto [graph, level] = todo.back();
    todo.pop_back();
    for (auto& n : graph->node()) {
      visit(n, level);
      for (auto& a : n.attribute()) {
        if (a.has_g()) todo.emplace_back(&a.g(), level + 1);
        for (auto& b : a.graphs()) todo.emplace_back(&b, level + 1);
      }
    }
  }
}

// The level of the bodies a node holds (level + 1), or its own level when it holds none.
int bodyLevel(const ::onnx::NodeProto& n, int level) {
  for (auto& a : n.attribute())
    if (a.has_g() || a.graphs_size() > 0) return level + 1;
  return level;
}

// The same for a function body (its nodes are at level 0).
template <class Visit>
void forEachNode(const ::onnx::FunctionProto& f, Visit visit) {
  for (auto& n : f.node()) {
    visit(n, 0);
    for (auto& a : n.attribute()) {
      if (a.has_g()) forEachNode(a.g(), [&](const ::onnx::NodeProto& m, int level) { visit(m, level + 1); });
      for (auto& b : a.graphs()) forEachNode(b, [&](const ::onnx::NodeProto& m, int level) { visit(m, level + 1); });
    }
  }
}

struct FunctionGraph {
  std::map<FunctionKey, const ::onnx::FunctionProto*> functions;
  // Per function: the local functions its body calls, with the level of the calling node.
  std::map<FunctionKey, std::vector<std::pair<FunctionKey, int>>> calls;
  std::map<FunctionKey, int> ownNesting; // deepest body level inside the function

  explicit FunctionGraph(const ::onnx::ModelProto& m) {
    for (auto& f : m.functions()) functions.emplace(keyOf(f.domain(), f.name()), &f);
    for (auto& [key, f] : functions) {
      auto& out = calls[key];
      int& own = ownNesting[key];
      forEachNode(*f, [&](const ::onnx::NodeProto& n, int level) {
        own = std::max(own, bodyLevel(n, level));
        if (auto k = keyOf(n.domain(), n.op_type()); functions.count(k)) out.emplace_back(k, level);
      });
    }
  }
};

} // namespace

namespace {

// The call graph depth-first without recursion: `finished(key)` runs in post-order, once every
// callee of `key` is finished or on the stack. A call to a function still on the stack closes a
// cycle: with `stopAtCycle` the walk ends there and returns that function; otherwise the call is
// passed over (and `finished` sees that callee unfinished).
template <class Finished>
std::optional<FunctionKey> postOrder(FunctionGraph& fg, bool stopAtCycle, Finished finished) {
  std::map<FunctionKey, int> state; // 1 on the stack, 2 done
  for (auto& [root, f] : fg.functions) {
    if (state[root]) continue;
    std::vector<std::pair<FunctionKey, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [key, next] = stack.back();
      auto& callees = fg.calls[key];
      if (next < callees.size()) {
        const FunctionKey callee = callees[next++].first;
        if (stopAtCycle && state[callee] == 1) return callee;
        if (!state[callee]) {
          state[callee] = 1;
          stack.emplace_back(callee, 0);
        }
        continue;
      }
      finished(key);
      state[key] = 2;
      stack.pop_back();
    }
  }
  return std::nullopt;
}

} // namespace

int subgraphNesting(const ::onnx::ModelProto& model) {
  FunctionGraph fg(model);
  // Levels a call to each function adds (its body is one level below the call, as at import):
  // 1 + the deepest of its own nesting and its calls (a call cycle, refused by recursiveFunction,
  // counts its back edge as 0).
  std::map<FunctionKey, int> depth;
  postOrder(fg, false, [&](const FunctionKey& key) {
    int d = fg.ownNesting[key];
    for (auto& [callee, level] : fg.calls[key])
      if (auto it = depth.find(callee); it != depth.end()) d = std::max(d, level + it->second);
    depth[key] = 1 + d;
  });
  int deepest = 0;
  if (model.has_graph())
    forEachNode(model.graph(), [&](const ::onnx::NodeProto& n, int level) {
      deepest = std::max(deepest, bodyLevel(n, level));
      if (auto it = depth.find(keyOf(n.domain(), n.op_type())); it != depth.end()) deepest = std::max(deepest, level + it->second);
    });
  return deepest;
}

std::optional<std::string> recursiveFunction(const ::onnx::ModelProto& model) {
  FunctionGraph fg(model);
  return postOrder(fg, true, [](const FunctionKey&) {});
}

namespace {

bool readVarint(std::string_view b, size_t& pos, size_t end, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= end) return false;
    uint8_t byte = static_cast<uint8_t>(b[pos++]);
    out |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false; // more than 10 bytes
}

} // namespace

std::optional<int> scanSubgraphNesting(std::string_view b) {
  enum class Kind { Model, Graph, Function, Node, Attribute };
  struct Frame {
    size_t end;
    Kind kind;
    int level; // of the graph (or function) the message belongs to
  };
  std::vector<Frame> stack{{b.size(), Kind::Model, 0}};
  size_t pos = 0;
  int deepest = 0;
  while (!stack.empty()) {
    const Frame f = stack.back();
    if (pos == f.end) {
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0, value = 0;
    if (!readVarint(b, pos, f.end, tag) || (tag >> 3) == 0) return std::nullopt;
    const uint64_t field = tag >> 3;
    switch (tag & 7) {
    case 0:
      if (!readVarint(b, pos, f.end, value)) return std::nullopt;
      break;
    case 1:
      if (f.end - pos < 8) return std::nullopt;
      pos += 8;
      break;
    case 5:
      if (f.end - pos < 4) return std::nullopt;
      pos += 4;
      break;
    case 2: {
      if (!readVarint(b, pos, f.end, value) || value > f.end - pos) return std::nullopt;
      const size_t end = pos + size_t(value);
      std::optional<Frame> child;
      switch (f.kind) {
      case Kind::Model:
        if (field == 7) child = Frame{end, Kind::Graph, 0};
        else if (field == 25) child = Frame{end, Kind::Function, 0};
        break;
      case Kind::Graph:
        if (field == 1) child = Frame{end, Kind::Node, f.level};
        break;
      case Kind::Function:
        if (field == 7) child = Frame{end, Kind::Node, f.level};
        break;
      case Kind::Node:
        if (field == 5) child = Frame{end, Kind::Attribute, f.level};
        break;
      case Kind::Attribute:
        if (field == 6 || field == 11) {
          child = Frame{end, Kind::Graph, f.level + 1};
          deepest = std::max(deepest, f.level + 1);
        }
        break;
      }
      if (child) stack.push_back(*child); // read its fields next, from pos
      else pos = end;
      break;
    }
    default: // groups (3, 4) are not used by ONNX; 6 and 7 do not exist
      return std::nullopt;
    }
  }
  return deepest;
}

std::string nestingTooDeepMessage(int depth) {
  return "the model nests subgraphs " + std::to_string(depth) + " deep; DCW supports up to " +
         std::to_string(kMaxSubgraphNesting);
}

} // namespace dcw::onnx
