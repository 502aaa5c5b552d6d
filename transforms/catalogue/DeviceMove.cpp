// DeviceMove: see DeviceMove.h.
#include "transforms/catalogue/DeviceMove.h"

#include "core/ir/AccessNode.h"
#include "core/ir/ControlFlow.h"
#include "core/ir/DeviceState.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "transforms/Binding.h"

#include <algorithm>
#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct Use {
  bool read = false, written = false;
};

struct DeviceMovePlan {
  State* state = nullptr;
  bool whole = true;
  std::vector<State*> device;                    // the states that become device states
  std::map<std::string, Use> uses;               // data the device states use (not yet in device memory)
  std::set<std::string> moved;                   // transients that move to device memory themselves
  std::vector<std::string> copied;               // data that get a device copy, in name order
};

bool analyseDeviceMove(const Device& dev, const Match& match, const Sdfg& root, DeviceMovePlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("state");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.state = bind->get<State>("state");
  if (!p.state) return fail("the element is not a state");
  if (p.state->sdfg() != &root) return fail("the state is inside a nested SDFG; only states of the model's top level become kernels");
  if (!stateComputes(*p.state)) return fail("the state computes nothing (it only holds data or copies)");
  if (dev.isDeviceState(root, *p.state)) return fail("the state is on the " + dev.name + " already");
  const std::string whole = match.options.count("whole_sdfg") ? match.options.at("whole_sdfg") : "true";
  p.whole = whole != "false" && whole != "0";
  if (p.whole) {
    for (State* st : root.allStates())
      if (!dev.isDeviceState(root, *st) && !st->nodes().empty()) p.device.push_back(st);
  } else {
    p.device.push_back(p.state);
  }
  std::set<const State*> device(p.device.begin(), p.device.end());
  for (State* st : p.device)
    for (auto& n : st->nodes()) {
      auto* a = dynamic_cast<const AccessNode*>(n.get());
      if (!a) continue;
      const DataDescriptor* d = root.findData(a->data());
      if (!d) return fail("access node '" + a->label() + "' names data '" + a->data() + "', which does not exist");
      if (dev.isDeviceStorage(d->storage)) continue;
      Use& u = p.uses[a->data()];
      if (!st->outEdges(a->id()).empty()) u.read = true;
      if (!st->inEdges(a->id()).empty()) u.written = true;
    }
  // Transients no other state uses move themselves; the rest get copies.
  std::set<std::string> elsewhere;
  for (State* st : root.allStates()) {
    if (device.count(st)) continue;
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get())) elsewhere.insert(a->data());
  }
  const std::set<std::string> steering = namesReadByControlFlow(root);
  for (auto& [name, u] : p.uses) {
    const DataDescriptor* d = root.findData(name);
    if (steering.count(name))
      return fail("data '" + name + "' steers the control flow (an interstate condition or assignment reads it), and the host "
                  "would read a stale copy of what a kernel writes",
                  "keep the state that computes it on the host, or make the value a symbol");
    if (d->dtype == DType::String) return fail("data '" + name + "' holds strings, which a " + dev.name + " kernel cannot");
    if (!d->wrappers.empty() || !d->rankKnown) return fail("data '" + name + "' is a sequence, optional or of unknown rank");
    if (d->transient && !d->constant && !elsewhere.count(name)) p.moved.insert(name);
    else p.copied.push_back(name);
  }
  return true;
}

std::string uniqueName(const Sdfg& root, const std::string& base) {
  if (!root.findData(base)) return base;
  for (int k = 1;; ++k)
    if (!root.findData(base + "_" + std::to_string(k))) return base + "_" + std::to_string(k);
}

// Inserts a new state before (or after) `st` in its region, taking over its in (or out) edges.
State* insertAround(edit::Editor& ed, ControlFlowRegion& region, State& st, const std::string& label, bool before) {
  State* s = ed.addState(region, label);
  if (before) {
    for (auto* e : region.inEdges(st.id())) {
      const ElementId src = e->src;
      const sym::Expr condition = e->condition;
      const auto assignments = e->assignments;
      ed.removeInterstateEdge(region, e->id());
      auto* ne = ed.addInterstateEdge(region, src, s->id(), condition);
      ed.set(*ne, &InterstateEdge::assignments, assignments);
    }
    if (region.startBlock() == st.id()) ed.setStartBlock(region, s->id());
    ed.addInterstateEdge(region, s->id(), st.id());
  } else {
    for (auto* e : region.outEdges(st.id())) {
      const ElementId dst = e->dst;
      const sym::Expr condition = e->condition;
      const auto assignments = e->assignments;
      ed.removeInterstateEdge(region, e->id());
      auto* ne = ed.addInterstateEdge(region, s->id(), dst, condition);
      ed.set(*ne, &InterstateEdge::assignments, assignments);
    }
    ed.addInterstateEdge(region, st.id(), s->id());
  }
  return s;
}

} // namespace

const Pattern& deviceMovePattern() {
  static const Pattern p = Pattern::controlFlow({{"state", {ElementKind::State}}});
  return p;
}

std::vector<OptionSpec> deviceMoveOptions() {
  return {{"whole_sdfg", OptionSpec::Type::Bool, "true",
           "every computing state of the model becomes a kernel, data cross once at the start and the end (false: this state only)",
           {}}};
}

bool canMoveToDevice(const Device& dev, const Match& match, const Sdfg& root, Diagnostics* whyNot) {
  DeviceMovePlan p;
  return analyseDeviceMove(dev, match, root, p, whyNot);
}

Expected<void> moveToDevice(const Device& dev, const Match& match, edit::Editor& ed) {
  DeviceMovePlan p;
  if (auto ok = analyseForApply([&dev](const Match& m, const Sdfg& r, DeviceMovePlan& q, Diagnostics* w) { return analyseDeviceMove(dev, m, r, q, w); }, match, ed.root(), p, "state"); !ok) return ok;
  Sdfg& root = ed.root();

  for (auto& name : p.moved) {
    DataDescriptor* d = root.findData(name);
    ed.set(*d, &DataDescriptor::storage, dev.storage);
    ed.set(*d, &DataDescriptor::lifetime, Lifetime::Sdfg);
  }
  std::map<std::string, std::string> deviceName;
  for (auto& name : p.copied) {
    const DataDescriptor* d = root.findData(name);
    auto copy = std::make_unique<DataDescriptor>(uniqueName(root, dev.prefix + name));
    copy->dataKind = d->dataKind == DataKind::Scalar ? DataKind::Scalar : DataKind::Array;
    copy->dtype = d->dtype;
    copy->shape = d->shape;
    copy->strides = d->strides;
    copy->offset = d->offset;
    copy->storage = dev.storage;
    copy->lifetime = Lifetime::Sdfg;
    copy->transient = true;
    deviceName[name] = copy->name();
    ed.addData(root, std::move(copy));
  }

  // The device states name the device copies.
  for (State* st : p.device) {
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && deviceName.count(a->data())) ed.setAccessData(*a, deviceName.at(a->data()));
    for (auto& e : st->edges())
      if (auto it = deviceName.find(e->memlet.data); it != deviceName.end()) {
        Memlet m = e->memlet;
        m.data = it->second;
        ed.set(*e, &DataflowEdge::memlet, m);
      }
  }
  dev.scheduleMaps(ed);

  // The copies: before the first device state and after the last (the whole model), or around the state.
  // In: what the device reads, and what it writes only in part as far as we know (anything but an
  // output or transient it writes and never reads). Out: what it writes.
  std::vector<std::string> in, out;
  for (auto& name : p.copied) {
    const Use& u = p.uses.at(name);
    const DataDescriptor* d = root.findData(name);
    const bool isOutput = std::find(root.outputs.begin(), root.outputs.end(), name) != root.outputs.end();
    const bool produced = u.written && !u.read && (isOutput || d->transient) && !d->constant;
    if (!produced) in.push_back(name);
    if (u.written && !d->constant) out.push_back(name);
  }
  State *pre = nullptr, *post = nullptr;
  if (p.whole) {
    pre = ed.addState(root, "host_to_device"); // the editor makes labels unique (host_to_device2)
    ElementId start = root.startBlock();
    std::vector<ElementId> sinks;
    for (auto& b : root.blocks())
      if (b.get() != pre && root.outEdges(b->id()).empty()) sinks.push_back(b->id());
    if (start != kNoId) ed.addInterstateEdge(root, pre->id(), start);
    ed.setStartBlock(root, pre->id());
    post = ed.addState(root, "device_to_host");
    for (ElementId s : sinks) ed.addInterstateEdge(root, s, post->id());
  } else {
    auto* region = dynamic_cast<ControlFlowRegion*>(p.state->parent());
    if (!region) return fail(match.elements.at("state"), "the state is not in a region");
    pre = insertAround(ed, *region, *p.state, "host_to_device", true);
    post = insertAround(ed, *region, *p.state, "device_to_host", false);
  }
  auto copy = [&](State& st, const std::string& from, const std::string& to) {
    const DataDescriptor* d = root.findData(from);
    auto* a = static_cast<AccessNode*>(ed.addNode(st, std::make_unique<AccessNode>(from)));
    auto* b = static_cast<AccessNode*>(ed.addNode(st, std::make_unique<AccessNode>(to)));
    Memlet m = Memlet::full(from, d->shape);
    m.otherSubset = Subset::fullOf(d->shape);
    ed.addEdge(st, *a, "", *b, "", m);
  };
  for (auto& name : in) copy(*pre, name, deviceName.at(name));
  for (auto& name : out) copy(*post, deviceName.at(name), name);
  return {};
}

Expected<std::string> moveModelToDevice(const Device& dev, const std::string& transformation, edit::Editor& ed) {
  Sdfg& root = ed.root();
  State* first = nullptr;
  for (State* st : root.allStates()) {
    if (dev.isDeviceState(root, *st)) return std::string();
    if (!first && stateComputes(*st)) first = st;
  }
  if (!first) return std::string();
  Match m;
  m.transformation = transformation;
  m.elements["state"] = pathOf(root, first->id());
  if (auto r = moveToDevice(dev, m, ed); !r) return r.takeError();
  return m.elements["state"];
}

} // namespace dcw::transforms
