// Binding: a match's slots resolved to the elements they name in a model, for canApply and apply.
// Resolution fails with the slot, the path and what was expected, which is also what a script that
// does not fit its model reports.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "transforms/Match.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace dcw::ir {
class MapEntry;
}

namespace dcw::ir {
class AccessNode;
}

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

// canApply's uniform reporting: whether `r` holds a value; when it does not, its error goes to
// `whyNot` (when given). Lets a precondition chain read `return holds(b, whyNot) && holds(plan(..), whyNot);`.
template <class T>
bool holds(const Expected<T>& r, Diagnostics* whyNot) {
  if (r) return true;
  if (whyNot) whyNot->add(r.error());
  return false;
}

// The canApply preamble of the single-map transformations: resolves `match`, whose `slot` must be a
// map entry (with at least one parameter when `needsParams`). Otherwise reports why to `whyNot`
// ("is not a map entry", "the map has no parameters" at the slot's path) and returns nullptr.
ir::MapEntry* resolveMapEntry(const Match& match, const ir::Sdfg& root, const std::string& slot, Diagnostics* whyNot,
                              bool needsParams = true);

// The canApply preamble of the transformations of one array: the descriptor (in the SDFG that holds
// it) of the access node bound to `slot`, and that node in `node`; otherwise why not, at the slot's
// path ("is not an access node", "names data 'X', which does not exist"), and nullptr.
ir::DataDescriptor* resolveAccessData(const Match& match, const ir::Sdfg& root, const std::string& slot, Diagnostics* whyNot,
                                      const ir::AccessNode** node = nullptr);

// A whole number written as text (an option's value), or nullopt.
std::optional<int64_t> wholeNumber(const std::string& text);

} // namespace dcw::transforms
