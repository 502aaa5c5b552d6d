#include "transforms/catalogue/GpuTransform.h"

#include "core/ir/DeviceState.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "transforms/catalogue/DeviceMove.h"

#include <functional>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {
const Device& gpu() {
  static const Device d{"GPU", "gpu_", StorageType::GpuGlobal, isGpuStorage, isGpuState, scheduleGpuMaps};
  return d;
}

std::vector<DataDescriptor*> descriptors(Sdfg& s) {
  std::vector<DataDescriptor*> out;
  for (auto& d : s.data()) out.push_back(s.findData(d->name()));
  return out;
}

bool cpuSchedule(Schedule s) {
  return s == Schedule::Default || s == Schedule::CpuMulticore || s == Schedule::Vectorized || s == Schedule::Sequential;
}
} // namespace

const Pattern& GpuTransform::pattern() const { return deviceMovePattern(); }
std::vector<OptionSpec> GpuTransform::options() const { return deviceMoveOptions(); }
bool GpuTransform::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  return canMoveToDevice(gpu(), match, root, whyNot);
}
Expected<void> GpuTransform::apply(const Match& match, edit::Editor& ed) const { return moveToDevice(gpu(), match, ed); }

void scheduleGpuMaps(edit::Editor& ed) {
  Sdfg& root = ed.root();
  // Everything inside a kernel runs in one GPU thread.
  std::function<void(Sdfg&)> inKernel = [&](Sdfg& s) {
    for (DataDescriptor* d : descriptors(s))
      if (d->transient && (d->storage == StorageType::Default || d->storage == StorageType::CpuHeap ||
                           d->storage == StorageType::CpuStack))
        ed.set(*d, &DataDescriptor::storage, StorageType::Register);
    for (State* st : s.allStates())
      for (auto& n : st->nodes()) {
        if (auto* me = dynamic_cast<MapEntry*>(n.get());
            me && (me->schedule == Schedule::CpuMulticore || me->schedule == Schedule::Vectorized))
          ed.set(*me, &MapEntry::schedule, Schedule::Default);
        else if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) inKernel(ns->sdfg());
      }
  };
  // A state that runs on the host and launches kernels.
  std::function<void(State&)> onHost = [&](State& st) {
    auto scopes = st.scopeOf();
    if (!scopes) return;
    for (auto& n : st.nodes()) {
      auto enclosing = scopes->find(n->id());
      const bool top = enclosing == scopes->end() || enclosing->second == nullptr;
      if (auto* me = dynamic_cast<MapEntry*>(n.get())) {
        if (top && cpuSchedule(me->schedule)) ed.set(*me, &MapEntry::schedule, Schedule::GpuDevice);
        else if (!top && (me->schedule == Schedule::CpuMulticore || me->schedule == Schedule::Vectorized))
          ed.set(*me, &MapEntry::schedule, Schedule::Default);
      } else if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) {
        if (!top) {
          inKernel(ns->sdfg());
          continue;
        }
        for (DataDescriptor* d : descriptors(ns->sdfg()))
          if (!isGpuStorage(d->storage) && d->dtype != DType::String) ed.set(*d, &DataDescriptor::storage, StorageType::GpuGlobal);
        for (State* inner : ns->sdfg().allStates()) onHost(*inner);
      }
    }
  };
  for (State* st : root.allStates())
    if (isGpuState(root, *st)) onHost(*st);
}

Expected<std::string> moveModelToGpu(edit::Editor& ed) { return moveModelToDevice(gpu(), "GpuTransform", ed); }

} // namespace dcw::transforms
