#include "core/ir/Node.h"

#include <atomic>

namespace dcw::ir {

std::string_view elementKindName(ElementKind k) {
  switch (k) {
  case ElementKind::Sdfg: return "sdfg";
  case ElementKind::State: return "state";
  case ElementKind::LoopRegion: return "loop";
  case ElementKind::ConditionalRegion: return "conditional";
  case ElementKind::BranchRegion: return "branch";
  case ElementKind::InterstateEdge: return "interstate_edge";
  case ElementKind::Data: return "data";
  case ElementKind::AccessNode: return "access";
  case ElementKind::Tasklet: return "tasklet";
  case ElementKind::MapEntry: return "map_entry";
  case ElementKind::MapExit: return "map_exit";
  case ElementKind::LibraryNode: return "library";
  case ElementKind::NestedSdfg: return "nested_sdfg";
  case ElementKind::DataflowEdge: return "edge";
  }
  return "?";
}

ElementId provisionalId() {
  static std::atomic<ElementId> next{ElementId(1) << 62};
  return next++;
}

namespace {
std::atomic<uint64_t> dataRenames{0};
}
uint64_t dataRenameCount() { return dataRenames.load(std::memory_order_acquire); }
void noteDataRename() { dataRenames.fetch_add(1, std::memory_order_acq_rel); }

static const Connector* findConn(const std::vector<Connector>& v, std::string_view name) {
  for (const auto& c : v)
    if (c.name == name) return &c;
  return nullptr;
}

const Connector* Node::findIn(std::string_view name) const { return findConn(in_, name); }
const Connector* Node::findOut(std::string_view name) const { return findConn(out_, name); }

} // namespace dcw::ir
