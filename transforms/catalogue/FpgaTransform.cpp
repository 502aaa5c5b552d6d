#include "transforms/catalogue/FpgaTransform.h"

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
const Device& fpga() {
  static const Device d{"FPGA", "fpga_", StorageType::FpgaGlobal, isFpgaStorage, isDeviceState, scheduleDeviceMaps};
  return d;
}
} // namespace

const Pattern& FpgaTransform::pattern() const { return deviceMovePattern(); }
std::vector<OptionSpec> FpgaTransform::options() const { return deviceMoveOptions(); }
bool FpgaTransform::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  return canMoveToDevice(fpga(), match, root, whyNot);
}
Expected<void> FpgaTransform::apply(const Match& match, edit::Editor& ed) const { return moveToDevice(fpga(), match, ed); }

void scheduleDeviceMaps(edit::Editor& ed) {
  Sdfg& root = ed.root();
  std::function<void(State&, bool)> visit = [&](State& st, bool top) {
    auto scopes = st.scopeOf();
    for (auto& n : st.nodes()) {
      if (auto* me = dynamic_cast<MapEntry*>(n.get())) {
        auto enclosing = scopes ? scopes->find(me->id()) : decltype(scopes->find(me->id())){};
        const bool outermost = top && scopes && (enclosing == scopes->end() || enclosing->second == nullptr);
        const Schedule want = outermost ? Schedule::FpgaPipeline : Schedule::Default;
        const bool cpu = me->schedule == Schedule::CpuMulticore || me->schedule == Schedule::Vectorized ||
                         me->schedule == Schedule::Default || (outermost && me->schedule == Schedule::Sequential);
        if (cpu && me->schedule != want) ed.set(*me, &MapEntry::schedule, want);
      } else if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) {
        for (State* inner : ns->sdfg().allStates()) visit(*inner, false);
      }
    }
  };
  for (State* st : root.allStates())
    if (isDeviceState(root, *st)) visit(*st, true);
}

Expected<std::string> moveModelToFpga(edit::Editor& ed) { return moveModelToDevice(fpga(), "FpgaTransform", ed); }

} // namespace dcw::transforms
