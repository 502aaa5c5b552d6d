#include "transforms/catalogue/StreamingComposition.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "transforms/Binding.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct StreamingCompositionPlan {
  State* state = nullptr;
  AccessNode* array = nullptr;
  MapEntry* first = nullptr;
  MapEntry* second = nullptr;
  DataflowEdge* write = nullptr; // tasklet -> first exit
  DataflowEdge* into = nullptr;  // first exit -> array
  DataflowEdge* outOf = nullptr; // array -> second entry
  DataflowEdge* read = nullptr;  // second entry -> tasklet
  int64_t depth = 2;
};

// Whether the subset indexes dimension d by the map's d-th parameter alone, for every dimension.
bool inParameterOrder(const Subset& s, const MapEntry& me) {
  if (s.rank() != me.params.size()) return false;
  for (size_t d = 0; d < s.rank(); ++d)
    if (!s[d].isIndex() || s[d].begin != sym::Expr::symbol(me.params[d])) return false;
  return true;
}

bool analyseStreamingComposition(const Match& match, const Sdfg& root, StreamingCompositionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("array");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.state = bind->stateOf("array");
  p.array = bind->get<AccessNode>("array");
  auto* firstExit = bind->get<MapExit>("first_exit");
  p.second = bind->get<MapEntry>("second_entry");
  if (!p.state || !p.array || !firstExit || !p.second) return fail("the pattern's elements are not there");
  p.first = dynamic_cast<MapEntry*>(p.state->node(firstExit->entryId));
  if (!p.first) return fail("the first map's entry is missing");
  const Sdfg* sdfg = p.state->sdfg();
  const DataDescriptor* d = sdfg ? sdfg->findData(p.array->data()) : nullptr;
  if (!d) return fail("the array has no descriptor");
  if (d->dataKind == DataKind::Stream) return fail("'" + d->name() + "' is a stream already");
  if (d->storage != StorageType::FpgaGlobal && d->storage != StorageType::FpgaLocal)
    return fail("'" + d->name() + "' is not in FPGA memory", "apply FpgaTransform first: streams join processing elements on an FPGA");
  if (!d->transient || d->constant) return fail("'" + d->name() + "' is not a transient");
  const std::string opt = match.options.count("depth") ? match.options.at("depth") : "2";
  try {
    p.depth = std::stoll(opt);
  } catch (...) {
    return fail("depth '" + opt + "' is not a number");
  }
  if (p.depth < 1) return fail("depth must be at least 1");
  int nodes = 0;
  for (State* st : sdfg->allStates())
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get()); a && a->data() == d->name()) ++nodes;
  if (nodes != 1) return fail("'" + d->name() + "' has " + std::to_string(nodes) + " access nodes; a stream has one producer and one consumer");
  auto ins = p.state->inEdges(p.array->id());
  auto outs = p.state->outEdges(p.array->id());
  if (ins.size() != 1 || outs.size() != 1) return fail("'" + d->name() + "' must be written by the first map and read by the second only");
  p.into = ins[0];
  p.outOf = outs[0];
  // One write a iteration inside the first map, one read inside the second.
  for (auto* e : p.state->inEdges(firstExit->id()))
    if (e->memlet.data == d->name()) {
      if (p.write) return fail("the first map writes '" + d->name() + "' more than once a iteration");
      p.write = e;
    }
  for (auto* e : p.state->outEdges(p.second->id()))
    if (e->memlet.data == d->name()) {
      if (p.read) return fail("the second map reads '" + d->name() + "' more than once a iteration");
      p.read = e;
    }
  if (!p.write || !p.read) return fail("the maps do not write and read '" + d->name() + "' element by element");
  if (p.state->node(p.write->src)->kind() != ElementKind::Tasklet || p.state->node(p.read->dst)->kind() != ElementKind::Tasklet)
    return fail("'" + d->name() + "' must be written and read by tasklets right inside the maps");
  if (!p.write->memlet.wcr.empty()) return fail("the first map accumulates into '" + d->name() + "' (write-conflict resolution)");
  if (p.first->params.size() != p.second->params.size()) return fail("the maps have different numbers of parameters");
  for (size_t k = 0; k < p.first->params.size(); ++k)
    if (!(p.first->range[k] == p.second->range[k])) return fail("the maps' ranges differ in dimension " + std::to_string(k));
  if (!inParameterOrder(p.write->memlet.subset, *p.first) || !inParameterOrder(p.read->memlet.subset, *p.second))
    return fail("the element of '" + d->name() + "' is not indexed by the maps' parameters in order, so the order of writes "
                "and reads could differ");
  return true;
}

} // namespace

const Pattern& StreamingComposition::pattern() const {
  static const Pattern p = Pattern::dataflow({{"first_exit", {ElementKind::MapExit}},
                                              {"array", {ElementKind::AccessNode}},
                                              {"second_entry", {ElementKind::MapEntry}}},
                                             {{0, 1}, {1, 2}});
  return p;
}

std::vector<OptionSpec> StreamingComposition::options() const {
  return {{"depth", OptionSpec::Type::Int, "2", "the stream's capacity in elements (a full stream blocks its producer)", {}}};
}

bool StreamingComposition::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  StreamingCompositionPlan p;
  return analyseStreamingComposition(match, root, p, whyNot);
}

Expected<void> StreamingComposition::apply(const Match& match, edit::Editor& ed) const {
  StreamingCompositionPlan p;
  if (auto ok = analyseForApply(analyseStreamingComposition, match, ed.root(), p, "array"); !ok) return ok;
  DataDescriptor* d = p.state->sdfg()->findData(p.array->data());
  const std::vector<sym::Expr> shape{sym::Expr(p.depth)};
  ed.set(*d, &DataDescriptor::dataKind, DataKind::Stream);
  ed.set(*d, &DataDescriptor::shape, shape);
  ed.set(*d, &DataDescriptor::strides, std::vector<sym::Expr>{sym::Expr(1)});
  ed.set(*d, &DataDescriptor::offset, sym::Expr(0));
  ed.set(*d, &DataDescriptor::storage, StorageType::FpgaLocal);
  ed.set(*d, &DataDescriptor::lifetime, Lifetime::State);
  // Inside the maps one element a iteration; outside, everything the producer pushes.
  const sym::Expr pushed = p.first->range.volume();
  for (DataflowEdge* e : {p.write, p.read}) {
    Memlet m = e->memlet;
    m.subset = Subset({Range::index(0)});
    m.volume = sym::Expr(1);
    ed.set(*e, &DataflowEdge::memlet, m);
  }
  for (DataflowEdge* e : {p.into, p.outOf}) {
    Memlet m = e->memlet;
    m.subset = Subset::fullOf(shape);
    m.volume = pushed;
    ed.set(*e, &DataflowEdge::memlet, m);
  }
  return {};
}

} // namespace dcw::transforms
