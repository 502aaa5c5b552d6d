#include "transforms/catalogue/LayoutRegion.h"

#include "core/expansions/FusedOp.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/WholeArray.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/StridedOperands.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// Whether its oneDNN call also takes channels in blocks where it takes any strides: all but
// ShuffledConcat, which interleaves channels through strides.
bool takesBlocks(const LibraryNode& lib) {
  return !(lib.domain == expansions::fused::kDomain && lib.opType == expansions::fused::kShuffledConcat);
}

// The channels of a group of a grouped convolution (Conv, ConvTranspose, their fused forms) at an array of
// `channels` channels; 0 for other nodes and for a convolution of one group.
int64_t channelsPerGroup(const LibraryNode& lib, int64_t channels) {
  static const std::set<std::string> convs = {"Conv", "ConvTranspose", "FusedConv", "FusedConvTranspose"};
  if (!convs.count(lib.opType)) return 0;
  const Attribute* a = lib.attribute("group");
  const int64_t* g = a ? std::get_if<int64_t>(&a->value) : nullptr;
  return g && *g > 1 && channels % *g == 0 ? channels / *g : 0;
}

// Nodes whose operands of the output's shape must share one layout: oneDNN's binary and sum kernels
// run on operands of one layout; given two (channels-last and row-major), they fall back to a
// reference kernel many times slower (ConvNeXt's residual Add after its row-major MLP: 3x). Concat
// is not one: it copies each input into place, whatever its layout, at the speed of a reorder.
bool sharesLayout(const LibraryNode& lib) {
  static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Sum"};
  return lib.domain.empty() && ops.count(lib.opType) > 0;
}

// A Transpose that moves the channels last (reading the array: perm [0, 2, .., r-1, 1]) or back from
// last (writing it: perm [0, r-1, 1, .., r-2]). With the array channels-last, it copies in memory
// order, which TransposeToView makes a view (ConvNeXt's permutes around its LayerNorm and MLP); its
// pure expansion reads and writes through the strides, so it computes the same in either layout.
bool movesChannelsLast(const LibraryNode& lib, bool reads, size_t rank) {
  if (!lib.domain.empty() || lib.opaque || lib.opType != "Transpose" || rank < 3) return false;
  const Attribute* a = lib.attribute("perm");
  const auto* perm = a ? std::get_if<std::vector<int64_t>>(&a->value) : nullptr;
  if (!perm || perm->size() != rank) return false;
  std::vector<int64_t> want{0};
  if (reads) {
    for (size_t k = 2; k < rank; ++k) want.push_back(int64_t(k));
    want.push_back(1);
  } else {
    want.push_back(int64_t(rank) - 1);
    for (size_t k = 1; k + 1 < rank; ++k) want.push_back(int64_t(k));
  }
  return *perm == want;
}

} // namespace

bool analyseLayout(const Match& match, const Sdfg& root, const LayoutTarget& target, LayoutPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("array");
  const std::string layout = target.block > 0 ? "channels in blocks of " + std::to_string(target.block) : "channels-last";
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  auto* producer = bind->get<LibraryNode>("producer");
  auto* array = bind->get<AccessNode>("array");
  if (!producer || !array) return fail("not a library node writing an access node");
  const State& st = *array->parent();
  Sdfg* sdfg = const_cast<Sdfg*>(owningSdfg(array));
  if (!sdfg) return fail("the access node is in no SDFG");
  p.state = const_cast<State*>(&st);
  p.sdfg = sdfg;
  p.rowMajorReaders.clear();
  // The group: the matched array and, through the nodes that need one layout for all their operands
  // of the output's shape, every array that must change with it. Each must qualify.
  p.group.clear();
  std::set<std::string> seen;
  std::vector<std::string> todo{array->data()};
  while (!todo.empty()) {
    const std::string name = todo.back();
    todo.pop_back();
    if (!seen.insert(name).second) continue;
    DataDescriptor* d = sdfg->findData(name);
    if (!d) return fail("'" + name + "' has no data descriptor");
    const std::string with = name == array->data() ? "" : " (it must change with '" + array->data() + "': a node reads both)";
    if (!d->transient) return fail("'" + name + "' is an input or output of the model" + with, "its layout is the caller's");
    if (d->dataKind != DataKind::Array || d->dtype != DType::Float32) return fail("'" + name + "' is not a float32 array" + with);
    if (d->shape.size() < 3 || d->shape.size() > 5)
      return fail("'" + name + "' has rank " + std::to_string(d->shape.size()) + "; " + layout + " is for ranks 3 to 5" + with);
    std::vector<int64_t> dims;
    for (auto& e : d->shape) {
      auto c = e.constantValue();
      if (!c || *c <= 0) return fail("'" + name + "' has a dim that is not a known positive number: " + e.str() + with);
      dims.push_back(*c);
    }
    int64_t spatial = 1;
    for (size_t k = 2; k < dims.size(); ++k) spatial *= dims[k];
    if (dims[1] == 1 || spatial == 1) return fail("'" + name + "' has one channel or one position: both layouts are the same" + with);
    if (target.block > 0 && dims[1] % target.block != 0)
      return fail("'" + name + "' has " + std::to_string(dims[1]) + " channels, not a multiple of " + std::to_string(target.block) + with,
                  dims[1] % 8 == 0 ? "blocks of 8 fit (block=8)" : "its channels do not fill blocks");
    if (!d->strides.empty() && d->strides != DataDescriptor::contiguousStrides(d->shape))
      return fail("'" + name + "' is not row-major (it is in another layout already, or a view)" + with);
    // Every access node of the array: in this state, outside maps, between oneDNN nodes that take it.
    size_t here = 0;
    for (const auto& n : st.nodes()) {
      auto* an = dynamic_cast<const AccessNode*>(n.get());
      if (!an || an->data() != name) continue;
      ++here;
      if (scope::enclosing(st, *an)) return fail("an access node of '" + name + "' is inside a map" + with);
      auto check = [&](const DataflowEdge* e, ElementId other, const std::string& conn, bool reads) {
        auto* lib = dynamic_cast<const LibraryNode*>(st.node(other));
        auto takes = [&](const LibraryNode& l) {
          if (target.block == 0 && movesChannelsLast(l, reads, dims.size())) return true;
          return takesAnyStrides(l, conn) && (target.block == 0 || takesBlocks(l));
        };
        if (const int64_t per = lib && target.block > 0 ? channelsPerGroup(*lib, dims[1]) : 0; per > 1 && per % target.block != 0)
          return fail("'" + name + "' is read or written by the grouped convolution '" + lib->label() + "', whose groups of " + std::to_string(per) +
                          " channels split blocks of " + std::to_string(target.block) + with,
                      "oneDNN's blocked kernels take whole blocks a group (ChannelsLast fits)");
        if (reads && (!lib || !takes(*lib))) {
          // A reader that takes row-major operands only reads a row-major copy.
          if (e->memlet.data != name || !ir::wholeArray(e->memlet, *d)) return fail("'" + name + "' is read in part" + with);
          p.rowMajorReaders[an->id()].push_back(e->id());
          return true;
        }
        if (!lib) return fail("'" + name + "' is written by a node that is not a library node" + with);
        if (!takes(*lib))
          return fail("'" + name + "' is read or written by " + lib->className() + " '" + lib->label() + "' at " + conn +
                          (lib->implementation == "onednn" ? ", which takes row-major operands only" : ", which does not run on oneDNN") + with,
                      layout + " pays where oneDNN nodes surround the array (set implementation=onednn)");
        if (!ir::wholeArray(e->memlet, *d)) return fail("'" + name + "' is accessed in part" + with);
        if (sharesLayout(*lib)) {
          // Its other operands of this array's dims (not a broadcast one) join the group.
          auto join = [&](const DataflowEdge* o, ElementId end) {
            auto* other = dynamic_cast<const AccessNode*>(st.node(end));
            const DataDescriptor* od = other ? sdfg->findData(other->data()) : nullptr;
            if (od && od->shape == d->shape) todo.push_back(od->name());
            (void)o;
          };
          for (auto* o : st.inEdges(lib->id())) join(o, o->src);
          for (auto* o : st.outEdges(lib->id())) join(o, o->dst);
        }
        return true;
      };
      for (auto* e : st.inEdges(an->id()))
        if (!check(e, e->src, e->srcConnector, false)) return false;
      for (auto* e : st.outEdges(an->id()))
        if (!check(e, e->dst, e->dstConnector, true)) return false;
    }
    if (here == 0 || here != graph::accessCount(*sdfg, name)) return fail("'" + name + "' is used in other states too" + with);
    if (graph::namedInControlFlow(*sdfg, name)) return fail("control flow names '" + name + "'" + with);
    p.group.push_back(d);
  }
  // Worth it only when some oneDNN node reads the group as it is (else each reader reads a copy).
  size_t reads = 0, copied = 0;
  for (DataDescriptor* d : p.group)
    for (const auto& n : st.nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an->data() == d->name()) reads += st.outEdges(an->id()).size();
  for (auto& [node, edges] : p.rowMajorReaders) copied += edges.size();
  if (reads == copied)
    return fail("no oneDNN node reads '" + array->data() + "' as it is: every reader would read a row-major copy");
  return true;
}

void applyLayout(const LayoutPlan& p, const LayoutTarget& target, edit::Editor& ed) {
  State& st = *p.state;
  Sdfg& sdfg = *p.sdfg;
  // Row-major copies for the readers that need one: one copy array per array, one access node per
  // access node read, and those readers moved onto it.
  std::map<std::string, std::string> copyOf;
  for (auto& [nodeId, edges] : p.rowMajorReaders) {
    auto* an = static_cast<AccessNode*>(st.node(nodeId));
    const std::string name = an->data();
    const DataDescriptor* d = sdfg.findData(name);
    if (!copyOf.count(name)) {
      auto c = std::make_unique<DataDescriptor>(graph::freshDataName(sdfg, name + "_rowmajor"));
      c->dtype = d->dtype;
      c->dataKind = DataKind::Array;
      c->shape = d->shape;
      c->strides = DataDescriptor::contiguousStrides(d->shape);
      c->transient = true;
      copyOf[name] = ed.addData(sdfg, std::move(c))->name();
    }
    const std::string& copyName = copyOf[name];
    const DataDescriptor* cd = sdfg.findData(copyName);
    Node* copyNode = ed.add<AccessNode>(st, copyName);
    ed.addEdge(st, *an, "", *copyNode, "", Memlet::full(name, d->shape));
    for (ElementId id : edges) {
      const DataflowEdge* e = nullptr;
      for (auto* o : st.outEdges(nodeId))
        if (o->id() == id) e = o;
      if (!e) continue;
      const ElementId dst = e->dst;
      const std::string conn = e->dstConnector;
      ed.removeEdge(st, id);
      ed.addEdge(st, *copyNode, "", *st.node(dst), conn, Memlet::full(copyName, cd->shape));
    }
  }
  for (DataDescriptor* d : p.group) {
    if (target.block > 0) {
      ed.set(*d, &DataDescriptor::strides, DataDescriptor::blockedStrides(d->shape, target.block));
      ed.set(*d, &DataDescriptor::channelBlock, target.block);
    } else {
      ed.set(*d, &DataDescriptor::strides, DataDescriptor::channelsLastStrides(d->shape));
    }
  }
}

} // namespace dcw::transforms
