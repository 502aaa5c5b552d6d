// Expansion: how a library node becomes an implementation. An expansion function reads the node
// (attributes, connected data and their shapes, constant inputs) through an ExpansionContext and
// returns a nested SDFG whose non-transient data are named after the node's connectors; the
// expansion pass (ExpandPass.h) puts it in place of the node as a NestedSdfgNode.
// `pure` expansions are maps + tasklets + memlets only (analysable, transformable, differentiable)
// and target-neutral; any other implementation declares its targets, the environments its opaque
// code needs (Environment.h) and whether the model stays differentiable (ImplementationDecl).
// Which implementation a node gets is decided by Implementations.h (the node's choice, else the
// target's default policy).
#pragma once

#include "core/ir/Attribute.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dcw::expansions {

class ExpansionContext {
public:
  ExpansionContext(const ir::Sdfg& sdfg, const ir::State& state, const ir::LibraryNode& node, std::string path);

  const ir::LibraryNode& node() const { return node_; }
  const ir::Sdfg& sdfg() const { return sdfg_; }
  const std::string& path() const { return path_; }

  // The data connected to a connector (nullptr when unconnected or absent).
  const ir::DataDescriptor* in(std::string_view connector) const;
  const ir::DataDescriptor* out(std::string_view connector) const;
  bool hasIn(std::string_view connector) const { return in(connector) != nullptr; }
  bool hasOut(std::string_view connector) const { return out(connector) != nullptr; }
  // Connected input/output connectors in connector order (variadic inputs_0, inputs_1, ...).
  std::vector<std::string> inputs() const;
  std::vector<std::string> outputs() const;
  // The constant value of an input, when it is a constant array (an initializer or folded constant).
  const ir::Tensor* constantIn(std::string_view connector) const;
  // Integer values of a constant int32/int64 input (e.g. Reshape's shape, Slice's starts).
  std::optional<std::vector<int64_t>> constantInts(std::string_view connector) const;

  // Attributes with ONNX defaults.
  int64_t attrInt(std::string_view name, int64_t fallback) const;
  double attrFloat(std::string_view name, double fallback) const;
  std::string attrString(std::string_view name, std::string fallback) const;
  std::vector<int64_t> attrInts(std::string_view name, std::vector<int64_t> fallback = {}) const;
  std::vector<double> attrFloats(std::string_view name, std::vector<double> fallback = {}) const;
  std::vector<std::string> attrStrings(std::string_view name, std::vector<std::string> fallback = {}) const;
  bool hasAttr(std::string_view name) const { return node_.attribute(name) != nullptr; }

  // A refusal located at the node: "main/state0/Conv_3 (Conv): <message>".
  Unexpected error(std::string message, std::string hint = {}) const;

private:
  const ir::Sdfg& sdfg_;
  const ir::State& state_;
  const ir::LibraryNode& node_;
  std::string path_;
  std::map<std::string, const ir::DataDescriptor*, std::less<>> in_, out_;
};

using ExpandFn = std::function<Expected<std::unique_ptr<ir::Sdfg>>(const ExpansionContext&)>;

// What an implementation declares about itself.
struct ImplementationDecl {
  std::string name;                       // "pure", "onednn", ...
  std::vector<std::string> targets;       // empty: target-neutral (maps + tasklets); else "cpu", "cuda", "fpga"
  std::vector<std::string> environments;  // Environment names its generated code needs
  bool differentiable = true;             // autodiff can go through what it expands to
  bool forTarget(std::string_view target) const;
  std::string targetsText() const;        // "any target" or "cpu, cuda"
};
// The declaration of every `pure` implementation: target-neutral, no environment, differentiable.
ImplementationDecl pureImplementation();

struct ExpansionInfo {
  std::string domain;        // "" = ai.onnx
  std::string op;
  std::string implementation; // "pure", "onednn", ... (== decl.name)
  std::string description;
  ExpandFn fn;
  ImplementationDecl decl;
};

class ExpansionRegistry {
public:
  // A `pure` implementation (implementation must be "pure": anything else declares itself below).
  void add(std::string domain, std::string op, std::string implementation, ExpandFn fn, std::string description = {});
  // Any implementation, with its declaration.
  void add(std::string domain, std::string op, ImplementationDecl decl, ExpandFn fn, std::string description = {});
  const ExpansionInfo* find(std::string_view domain, std::string_view op, std::string_view implementation) const;
  std::vector<std::string> implementations(std::string_view domain, std::string_view op) const;
  const std::vector<ExpansionInfo>& all() const { return list_; }

private:
  std::vector<ExpansionInfo> list_;
};

// The one registry of expansions, filled by Registry.cpp (the explicit list of every expansion).
const ExpansionRegistry& registry();

} // namespace dcw::expansions
