// AccessNode: a read or write of a whole data container in a state (DaCe's ellipse). Its label is
// the container's name; edges attach to it without connectors.
#pragma once

#include "core/ir/Node.h"

namespace dcw::ir {

class AccessNode : public Node {
public:
  explicit AccessNode(std::string data) : Node(ElementKind::AccessNode, data), data_(std::move(data)) {}
  const std::string& data() const { return data_; }
  void setData(std::string d) { data_ = std::move(d); }

private:
  std::string data_;
};

} // namespace dcw::ir
