// NestedSdfgNode: a whole SDFG used as one node of a state. Its connectors are the nested SDFG's
// non-transient data; symbolMapping gives each free symbol of the nested SDFG its value outside.
#pragma once

#include "core/ir/Node.h"
#include "core/symbolic/Expr.h"

#include <map>
#include <memory>

namespace dcw::ir {

class Sdfg;

class NestedSdfgNode : public Node {
public:
  NestedSdfgNode(std::string label, std::unique_ptr<Sdfg> sdfg);
  ~NestedSdfgNode() override;

  Sdfg& sdfg() const { return *sdfg_; }
  std::map<std::string, sym::Expr> symbolMapping;

private:
  std::unique_ptr<Sdfg> sdfg_;
};

} // namespace dcw::ir
