#include "views/Selection.h"

namespace dcw::views {

void Selection::setCurrent(ir::ElementId id) {
  if (id == current_) return;
  current_ = id;
  emit currentChanged(qulonglong(id));
}

} // namespace dcw::views
