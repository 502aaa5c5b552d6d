#include "core/ir/DeviceState.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

namespace dcw::ir {

namespace {
bool touches(const Sdfg& sdfg, const State& st, bool (*device)(StorageType)) {
  if (!stateComputes(st)) return false;
  for (auto& n : st.nodes())
    if (auto* a = dynamic_cast<const AccessNode*>(n.get()))
      if (const DataDescriptor* d = sdfg.findData(a->data()); d && device(d->storage)) return true;
  return false;
}
} // namespace

bool stateComputes(const State& st) {
  for (auto& n : st.nodes())
    if (n->kind() != ElementKind::AccessNode && n->kind() != ElementKind::MapExit) return true;
  return false;
}

bool isDeviceState(const Sdfg& sdfg, const State& st) { return touches(sdfg, st, isFpgaStorage); }
bool isGpuState(const Sdfg& sdfg, const State& st) { return touches(sdfg, st, isGpuStorage); }

} // namespace dcw::ir
