// ModulePath: the module an op came from, read from its name as exporters write it — torch's
// `/encoder/layer.3/attention/self/MatMul` and `layers.0.self_attn.MatMul` (the last part is the op;
// a numeric part belongs to the one before it: `layers.0`) — and module groups as addresses.
//
// A module group is every top-level op of one state whose module path starts with the group's: the
// canvas draws it as a collapsible box (views/ModuleGroups), and scripts, the CLI and the app name it
//   main/state0/module:encoder/layer.3
// (the state's path, then `module:` and the module path). `set` and `apply` take such an address in
// place of one element and act on each op of the group (transforms/ModuleScope.h). Names without a
// module (`Conv_12`, `p2o.Conv.0` from paddle2onnx, which numbers ops rather than modules) give none.
#pragma once

#include "core/support/Expected.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::ir {

class Node;
class Sdfg;
class State;

// The module path of a node name ({} when it names none).
std::vector<std::string> modulePath(std::string_view nodeName);
// The module path of node `n` of `st`: a library node's source name (its ONNX name) or label, a map
// exit's entry's label, any other node's label.
std::vector<std::string> moduleOf(const State& st, const Node& n);
// "encoder/layer.3".
std::string joinModulePath(const std::vector<std::string>& parts);

constexpr std::string_view kModuleSegment = "module:";

// `statePath` + "/module:" + `module`.
std::string moduleAddress(std::string_view statePath, std::string_view module);

struct ModuleAddress {
  std::string state;  // "main/state0"
  std::string module; // "encoder/layer.3"
};
// Splits a module address; nullopt for a path of one element.
std::optional<ModuleAddress> parseModuleAddress(std::string_view path);

// The module groups of a state (modules with two top-level ops or more, as the canvas draws them),
// parents before children, in the order their first op appears.
struct ModuleInfo {
  std::string address; // "main/state0/module:encoder/layer.3"
  std::string module;  // "encoder/layer.3"
  int depth = 0;       // 0 for a top module
  int ops = 0;
};
std::vector<ModuleInfo> modulesOf(const State& st);
// The same groups with their ops (what moduleMembers gives for each address), from one pass over the
// state: for a caller that needs every group's ops (the profile report's module times).
struct ModuleGroup {
  ModuleInfo info;
  std::vector<Node*> members;
};
std::vector<ModuleGroup> moduleGroups(const State& st);

// The ops of the group at `address`: the top-level nodes of its state other than access nodes and map
// exits, in the state's order, whose module path starts with the group's. Fails naming the address
// when the state is unknown or no op is in the module (with the state's modules as a hint).
Expected<std::vector<Node*>> moduleMembers(const Sdfg& root, std::string_view address);

} // namespace dcw::ir
