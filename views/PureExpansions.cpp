#include "views/PureExpansions.h"

#include "core/expansions/Expansion.h"
#include "core/ir/Sdfg.h"

namespace dcw::views {

using namespace dcw::ir;

PureExpansions::PureExpansions(const Sdfg& model) : next_(model.root()->peekNextId() + (ElementId(1) << 40)) {}
PureExpansions::~PureExpansions() = default;

bool PureExpansions::has(const LibraryNode& node) const {
  return !node.opaque && expansions::registry().find(node.domain, node.opType, "pure") != nullptr;
}

const Sdfg* PureExpansions::get(const LibraryNode& node) {
  auto it = cache_.find(node.id());
  if (it != cache_.end()) return it->second.get();
  std::unique_ptr<Sdfg> result;
  const expansions::ExpansionInfo* info = has(node) ? expansions::registry().find(node.domain, node.opType, "pure") : nullptr;
  const State* st = node.parent();
  const Sdfg* owner = st ? owningSdfg(st) : nullptr;
  if (info && st && owner) {
    expansions::ExpansionContext ctx(*owner, *st, node, node.label());
    auto built = info->fn(ctx);
    if (built) {
      result = std::move(*built);
      result->resetNextId(next_);
      result->reassignIds();
      next_ = result->peekNextId() + 1;
    } else {
      lastError_ = QString::fromStdString(built.error().str());
    }
  }
  const Sdfg* raw = result.get();
  cache_.emplace(node.id(), std::move(result));
  return raw;
}

} // namespace dcw::views
