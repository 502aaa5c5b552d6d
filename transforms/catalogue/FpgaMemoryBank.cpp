#include "transforms/catalogue/FpgaMemoryBank.h"

#include "core/ir/AccessNode.h"
#include "core/ir/DeviceState.h"
#include "core/ir/Sdfg.h"
#include "transforms/Binding.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct FpgaMemoryBankPlan {
  DataDescriptor* data = nullptr;
  int bank = 0;
};

bool analyseFpgaMemoryBank(const Match& match, const Sdfg& root, FpgaMemoryBankPlan& p, Diagnostics* whyNot) {
  const AccessNode* a = nullptr;
  p.data = resolveAccessData(match, root, "array", whyNot, &a);
  if (!p.data) return false;
  const std::string& path = match.elements.at("array");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  if (p.data->storage != StorageType::FpgaGlobal)
    return fail("'" + a->data() + "' is in " + std::string(storageName(p.data->storage)) + " memory, not FPGA global memory",
                "move the model to the FPGA first (FpgaTransform)");
  const std::string text = match.options.count("bank") ? match.options.at("bank") : "1";
  auto bank = wholeNumber(text);
  if (!bank) return fail("option bank=" + text + " is not a whole number");
  if (*bank < 0 || *bank > 63) return fail("bank " + text + " does not exist (banks are 0 to 63 in the board's order)");
  p.bank = int(*bank);
  if (std::max(p.data->memoryBank, 0) == p.bank) return fail("'" + a->data() + "' is in bank " + text + " already");
  return true;
}

} // namespace

const Pattern& FpgaMemoryBank::pattern() const {
  static const Pattern p = Pattern::node("array", {ElementKind::AccessNode});
  return p;
}

std::vector<OptionSpec> FpgaMemoryBank::options() const {
  return {{"bank", OptionSpec::Type::Int, "1", "the memory bank, in the board's order (Alveo U250: DDR[0] to DDR[3]; U280: HBM[0] to HBM[31], then DDR[0], DDR[1])", {}}};
}

bool FpgaMemoryBank::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  FpgaMemoryBankPlan p;
  return analyseFpgaMemoryBank(match, root, p, whyNot);
}

Expected<void> FpgaMemoryBank::apply(const Match& match, edit::Editor& ed) const {
  FpgaMemoryBankPlan p;
  if (auto ok = analyseForApply(analyseFpgaMemoryBank, match, ed.root(), p, "array"); !ok) return ok;
  ed.set(*p.data, &DataDescriptor::memoryBank, p.bank);
  return {};
}

} // namespace dcw::transforms
