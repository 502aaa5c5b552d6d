// LibraryNode: a coarse operation (an ONNX op, a BLAS-like op) shown as one rectangle and later
// expanded into an implementation (`pure` maps+tasklets, `onednn`, `cublas`, `hls`). Its class is
// (domain, op type, opset version), taken from ONNX's schema registry at import; `opaque` marks an op
// whose schema is unknown (an unknown domain): it can be inspected but not run.
// Control-flow ops (If, Loop, Scan) own their bodies as subgraphs, referenced by graph attributes.
#pragma once

#include "core/ir/Attribute.h"
#include "core/ir/Node.h"

#include <memory>
#include <optional>

namespace dcw::ir {

class Sdfg;

struct Subgraph {
  std::string name;            // the graph attribute's name ("then_branch", "body")
  std::unique_ptr<Sdfg> sdfg;
};

class LibraryNode : public Node {
public:
  explicit LibraryNode(std::string label);
  ~LibraryNode() override;

  std::string domain;          // "" is the default ONNX domain (ai.onnx)
  std::string opType;          // "Conv"
  int64_t opsetVersion = 0;    // the schema's since-version selected by the model's opset import
  std::string implementation;  // "" = not chosen: the target's default (core/expansions/Implementations.h)
  bool opaque = false;
  std::string sourceName;      // the node's name in the source model when it differs from the label
  std::vector<Attribute> attributes;

  const Attribute* attribute(std::string_view name) const;
  std::string className() const; // "Conv" or "com.example.custom::MyOp" (+ "@v" with version())

  const std::vector<Subgraph>& subgraphs() const { return subgraphs_; }
  Sdfg* subgraph(std::string_view name) const;
  // Takes ownership; the subgraph's elements get fresh ids of this node's root SDFG when attached.
  Sdfg* addSubgraph(std::string name, std::unique_ptr<Sdfg> sdfg);

private:
  std::vector<Subgraph> subgraphs_;
};

} // namespace dcw::ir
