// Binding: a match's slots resolved to the elements they name in a model, for canApply and apply.
// Resolution fails with the slot, the path and what was expected, which is also what a script that
// does not fit its model reports.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"
#include "transforms/Match.h"

#include <map>
#include <string>

namespace dcw::transforms {

class Binding {
public:
  static Expected<Binding> resolve(const Match& match, const ir::Sdfg& root);

  ir::Element* element(const std::string& slot) const;
  template <class T>
  T* get(const std::string& slot) const {
    return dynamic_cast<T*>(element(slot));
  }
  // The state holding the node bound to `slot`.
  ir::State* stateOf(const std::string& slot) const;

private:
  std::map<std::string, ir::Element*> elements_;
};

} // namespace dcw::transforms
