#include "transforms/Pattern.h"

#include <algorithm>

namespace dcw::transforms {

Pattern Pattern::dataflow(std::vector<Slot> slots, std::vector<Edge> edges) {
  Pattern p;
  p.scope_ = Scope::Dataflow;
  p.slots_ = std::move(slots);
  p.edges_ = std::move(edges);
  return p;
}

Pattern Pattern::controlFlow(std::vector<Slot> slots, std::vector<Edge> edges) {
  Pattern p = dataflow(std::move(slots), std::move(edges));
  p.scope_ = Scope::ControlFlow;
  return p;
}

Pattern Pattern::selection() {
  Pattern p;
  p.scope_ = Scope::Selection;
  return p;
}

bool Pattern::hasSlot(const std::string& name) const {
  if (scope_ == Scope::Selection)
    return name.size() > 4 && name.rfind("node", 0) == 0 &&
           std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
  return std::any_of(slots_.begin(), slots_.end(), [&](auto& s) { return s.name == name; });
}

bool Pattern::accepts(size_t slot, ir::ElementKind k) const {
  auto& ks = slots_[slot].kinds;
  return std::find(ks.begin(), ks.end(), k) != ks.end();
}

std::string Pattern::describe() const {
  if (scope_ == Scope::Selection) return "a selection of nodes in one state";
  auto slotText = [&](size_t i) {
    std::string s = slots_[i].name + ":";
    for (size_t k = 0; k < slots_[i].kinds.size(); ++k)
      s += (k ? "|" : "") + std::string(ir::elementKindName(slots_[i].kinds[k]));
    return s;
  };
  std::string arrow = scope_ == Scope::ControlFlow ? " => " : " -> ";
  std::string out;
  std::vector<bool> said(slots_.size(), false);
  for (auto& e : edges_) {
    out += (out.empty() ? "" : ", ") + slotText(e.src) + arrow + slotText(e.dst);
    said[e.src] = said[e.dst] = true;
  }
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!said[i]) out += (out.empty() ? "" : ", ") + slotText(i);
  return out;
}

} // namespace dcw::transforms
