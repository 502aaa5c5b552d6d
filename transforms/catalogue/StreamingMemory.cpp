#include "transforms/catalogue/StreamingMemory.h"

#include "core/ir/AccessNode.h"
#include "core/ir/DeviceState.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// One array the map streams: in (read from memory into the map) or out (written by the map).
struct StreamingMemorySide {
  bool in = true;
  std::string data;
  AccessNode* node = nullptr;    // the array's access node outside the map
  DataflowEdge* outer = nullptr; // node -> entry (in), exit -> node (out)
  DataflowEdge* inner = nullptr; // entry -> tasklet (in), tasklet -> exit (out)
};

struct StreamingMemoryPlan {
  State* state = nullptr;
  MapEntry* entry = nullptr;
  MapExit* exit = nullptr;
  std::vector<StreamingMemorySide> sides;
  int64_t depth = 8;
};

bool oneElement(const Memlet& m) {
  if (m.dynamic) return false;
  for (auto& r : m.subset.ranges())
    if (!r.isIndex()) return false;
  return true;
}

bool analyseStreamingMemory(const Match& match, const Sdfg& root, StreamingMemoryPlan& p, Diagnostics* whyNot) {
  p.entry = resolveMapEntry(match, root, "entry", whyNot);
  if (!p.entry) return false;
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.state = bind->stateOf("entry");
  const Sdfg* sdfg = p.state ? p.state->sdfg() : nullptr;
  if (!sdfg) return fail("the map's state is not part of a model");
  if (!isDeviceState(*sdfg, *p.state))
    return fail("the map is not in an FPGA device state", "apply FpgaTransform first: memory streams feed processing elements on an FPGA");
  auto scopes = p.state->scopeOf();
  if (!scopes) return fail(scopes.error().message);
  if (auto sc = scopes->find(p.entry->id()); sc != scopes->end() && sc->second)
    return fail("the map is inside another map; a processing element is a map at the top of the state");
  if (p.entry->schedule == Schedule::Unrolled) return fail("the map is unrolled; a memory stream feeds a pipelined loop");
  p.exit = dynamic_cast<MapExit*>(p.state->node(p.entry->exitId));
  if (!p.exit) return fail("the map's exit is missing");

  std::string only, direction = "both";
  if (auto it = match.options.find("array"); it != match.options.end()) only = it->second;
  if (auto it = match.options.find("direction"); it != match.options.end()) direction = it->second;
  if (direction != "in" && direction != "out" && direction != "both") return fail("direction '" + direction + "' is not in, out or both");
  if (auto it = match.options.find("depth"); it != match.options.end()) {
    auto v = wholeNumber(it->second);
    if (!v) return fail("depth '" + it->second + "' is not a number");
    p.depth = *v;
  }
  if (p.depth < 1) return fail("depth must be at least 1");

  // What the state's other nodes do with each array: written (read side), touched at all (write side).
  std::set<std::string> writtenElsewhere, touchedElsewhere, readByMap, writtenByMap;
  for (auto* e : p.state->inEdges(p.entry->id()))
    if (!e->memlet.isEmpty()) readByMap.insert(e->memlet.data);
  for (auto* e : p.state->outEdges(p.exit->id()))
    if (!e->memlet.isEmpty()) writtenByMap.insert(e->memlet.data);
  for (auto& n : p.state->nodes()) {
    auto* a = dynamic_cast<const AccessNode*>(n.get());
    if (!a) continue;
    for (auto* e : p.state->inEdges(a->id())) {
      if (e->src == p.exit->id()) continue;
      writtenElsewhere.insert(a->data());
      touchedElsewhere.insert(a->data());
    }
    for (auto* e : p.state->outEdges(a->id()))
      if (e->dst != p.entry->id()) touchedElsewhere.insert(a->data());
  }

  std::string firstReason;
  auto consider = [&](StreamingMemorySide s) -> bool {
    auto refuse = [&](const std::string& why) {
      if (!only.empty()) return fail(why);
      if (firstReason.empty()) firstReason = why;
      return true; // not this array; others may qualify
    };
    const DataDescriptor* d = sdfg->findData(s.data);
    if (!d) return refuse("no data '" + s.data + "'");
    if (d->dataKind != DataKind::Array || d->storage != StorageType::FpgaGlobal)
      return refuse("'" + s.data + "' is not an array in FPGA global memory");
    if (readByMap.count(s.data) && writtenByMap.count(s.data)) return refuse("the map both reads and writes '" + s.data + "'");
    if (s.in && writtenElsewhere.count(s.data))
      return refuse("'" + s.data + "' is written elsewhere in the state; a reader running beside the writer could see either value");
    if (!s.in && touchedElsewhere.count(s.data))
      return refuse("'" + s.data + "' is used elsewhere in the state; its writer would run beside that use");
    const std::string conn = s.in ? s.outer->dstConnector : s.outer->srcConnector;
    if (conn.rfind(s.in ? "IN_" : "OUT_", 0) != 0) return refuse("'" + s.data + "' passes the map through connector '" + conn + "'");
    const std::string innerConn = (s.in ? "OUT_" : "IN_") + conn.substr(s.in ? 3 : 4);
    std::vector<DataflowEdge*> inner;
    if (s.in) {
      for (auto* e : p.state->outEdges(p.entry->id()))
        if (e->srcConnector == innerConn) inner.push_back(e);
    } else {
      for (auto* e : p.state->inEdges(p.exit->id()))
        if (e->dstConnector == innerConn) inner.push_back(e);
    }
    if (inner.size() != 1) return refuse("the map " + std::string(s.in ? "reads" : "writes") + " '" + s.data + "' through " +
                                         std::to_string(inner.size()) + " edges a iteration, not one");
    s.inner = inner[0];
    const Node* t = p.state->node(s.in ? s.inner->dst : s.inner->src);
    if (!t || t->kind() != ElementKind::Tasklet)
      return refuse("'" + s.data + "' is " + (s.in ? "read" : "written") + " by something other than a tasklet right inside the map");
    if (!oneElement(s.inner->memlet)) return refuse("the map moves more than one element of '" + s.data + "' a iteration (" + s.inner->memlet.str() + ")");
    if (!s.inner->memlet.wcr.empty() || !s.outer->memlet.wcr.empty())
      return refuse("the map accumulates into '" + s.data + "' (write-conflict resolution)");
    for (auto& q : p.sides)
      if (q.data == s.data) return refuse("the map passes '" + s.data + "' through more than one connector");
    p.sides.push_back(s);
    return true;
  };
  if (direction != "out")
    for (auto* e : p.state->inEdges(p.entry->id())) {
      if (e->memlet.isEmpty() || (!only.empty() && e->memlet.data != only)) continue;
      auto* a = dynamic_cast<AccessNode*>(p.state->node(e->src));
      if (!a) continue;
      if (!consider(StreamingMemorySide{true, e->memlet.data, a, e, nullptr})) return false;
    }
  if (direction != "in")
    for (auto* e : p.state->outEdges(p.exit->id())) {
      if (e->memlet.isEmpty() || (!only.empty() && e->memlet.data != only)) continue;
      auto* a = dynamic_cast<AccessNode*>(p.state->node(e->dst));
      if (!a) continue;
      if (!consider(StreamingMemorySide{false, e->memlet.data, a, e, nullptr})) return false;
    }
  if (p.sides.empty()) {
    if (!only.empty()) return fail("the map does not " + std::string(direction == "in" ? "read '" : direction == "out" ? "write '" : "read or write '") + only + "'");
    return fail(firstReason.empty() ? "the map reads and writes no array of FPGA global memory" : firstReason);
  }
  return true;
}

} // namespace

const Pattern& StreamingMemory::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> StreamingMemory::options() const {
  return {{"array", OptionSpec::Type::Text, "", "the array to stream (empty: every one the map reads or writes element by element)", {}},
          {"direction", OptionSpec::Type::Choice, "both", "stream what the map reads (in), writes (out), or both", {"both", "in", "out"}},
          {"depth", OptionSpec::Type::Int, "8", "each stream's capacity in elements (a full stream blocks its producer)", {}}};
}

bool StreamingMemory::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  StreamingMemoryPlan p;
  return analyseStreamingMemory(match, root, p, whyNot);
}

Expected<void> StreamingMemory::apply(const Match& match, edit::Editor& ed) const {
  StreamingMemoryPlan p;
  if (auto ok = analyseForApply(analyseStreamingMemory, match, ed.root(), p, "entry"); !ok) return ok;
  State& st = *p.state;
  Sdfg& sdfg = *st.sdfg();
  const std::vector<sym::Expr> shape{sym::Expr(p.depth)};
  const sym::Expr pushed = p.entry->range.volume();
  auto element = [](const std::string& stream) {
    Memlet m = Memlet::simple(stream, Subset({Range::index(0)}));
    m.volume = sym::Expr(1);
    return m;
  };
  auto all = [&](const std::string& stream) {
    Memlet m = Memlet::simple(stream, Subset::fullOf(shape));
    m.volume = pushed;
    return m;
  };
  for (const StreamingMemorySide& s : p.sides) {
    const DataDescriptor* d = sdfg.findData(s.data);
    auto desc = std::make_unique<DataDescriptor>(graph::freshDataName(sdfg, s.data + (s.in ? "_in" : "_out")));
    desc->dtype = d->dtype;
    desc->dataKind = DataKind::Stream;
    desc->shape = shape;
    desc->strides = {sym::Expr(1)};
    desc->storage = StorageType::FpgaLocal;
    desc->transient = true;
    desc->lifetime = Lifetime::State;
    const std::string stream = desc->name();
    ed.addData(sdfg, std::move(desc));

    // The memory side: a map over the same range with one tasklet moving the element.
    const std::string label = p.entry->label() + (s.in ? "_read_" : "_write_") + s.data;
    auto* me = ed.add<MapEntry>(st, label);
    auto* mx = ed.add<MapExit>(st, label + "_exit");
    me->params = p.entry->params;
    me->range = p.entry->range;
    me->schedule = p.entry->schedule;
    me->exitId = mx->id();
    mx->entryId = me->id();
    auto* t = ed.add<Tasklet>(st, label + "_t", s.in ? "s = m" : "m = s");
    t->addIn({s.in ? "m" : "s", d->dtype});
    t->addOut({s.in ? "s" : "m", d->dtype});
    const std::string memConn = s.in ? s.outer->dstConnector.substr(3) : s.outer->srcConnector.substr(4);
    const Memlet outer = s.outer->memlet, inner = s.inner->memlet;
    auto* sn = ed.add<AccessNode>(st, stream);
    // A scope node's IN_/OUT_ pair of connectors for `name` (the memory side's map passes the array on
    // one end and the stream on the other); the compute map's pair for the array becomes the stream's.
    auto pairOf = [](Node& n, const std::string& name) {
      n.addIn({"IN_" + name});
      n.addOut({"OUT_" + name});
    };
    Node& computeSide = s.in ? static_cast<Node&>(*p.entry) : static_cast<Node&>(*p.exit);
    pairOf(s.in ? static_cast<Node&>(*me) : static_cast<Node&>(*mx), memConn);
    pairOf(s.in ? static_cast<Node&>(*mx) : static_cast<Node&>(*me), stream);
    const std::string taskletConn = s.in ? s.inner->dstConnector : s.inner->srcConnector;
    Node* computeTasklet = st.node(s.in ? s.inner->dst : s.inner->src);
    ed.removeEdge(st, s.outer->id());
    ed.removeEdge(st, s.inner->id());
    ed.removeInConnector(computeSide, "IN_" + memConn);
    ed.removeOutConnector(computeSide, "OUT_" + memConn);
    ed.addInConnector(computeSide, {"IN_" + stream});
    ed.addOutConnector(computeSide, {"OUT_" + stream});
    if (s.in) { // memory -> reader map -> stream -> the map's tasklet
      ed.addEdge(st, *s.node, "", *me, "IN_" + memConn, outer);
      ed.addEdge(st, *me, "OUT_" + memConn, *t, "m", inner);
      ed.addEdge(st, *t, "s", *mx, "IN_" + stream, element(stream));
      ed.addEdge(st, *mx, "OUT_" + stream, *sn, "", all(stream));
      ed.addEdge(st, *sn, "", *p.entry, "IN_" + stream, all(stream));
      ed.addEdge(st, *p.entry, "OUT_" + stream, *computeTasklet, taskletConn, element(stream));
    } else {    // the map's tasklet -> stream -> writer map -> memory
      ed.addEdge(st, *computeTasklet, taskletConn, *p.exit, "IN_" + stream, element(stream));
      ed.addEdge(st, *p.exit, "OUT_" + stream, *sn, "", all(stream));
      ed.addEdge(st, *sn, "", *me, "IN_" + stream, all(stream));
      ed.addEdge(st, *me, "OUT_" + stream, *t, "s", element(stream));
      ed.addEdge(st, *t, "m", *mx, "IN_" + memConn, inner);
      ed.addEdge(st, *mx, "OUT_" + memConn, *s.node, "", outer);
    }
  }
  return {};
}

} // namespace dcw::transforms
