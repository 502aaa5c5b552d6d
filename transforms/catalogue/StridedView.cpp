#include "transforms/catalogue/StridedView.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/View.h"
#include "transforms/catalogue/CopyMap.h"
#include "transforms/catalogue/CopyTools.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/StridedOperands.h"

#include <functional>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// A view of S that goes on to show the array itself, at its place there.
struct Rebased {
  DataDescriptor* view = nullptr;
  ElementId node = 0; // its access node
  ElementId edge = 0; // S -> it
  StridedPlace place;
};

struct StridedViewPlan {
  CopyMap copy;
  const AccessNode* source = nullptr; // the access node of the array the new view shows
  const DataDescriptor* array = nullptr;
  StridedPlace place; // S's in the array (written: the source's in the copy)
  std::vector<Rebased> rebased;
  bool written = false; // the write side: the map's source becomes a view of its copy, written through
};

// Whether `lib` reads S in place at `connector`: oneDNN's MatMul and FusedMatMul at A and B. (The oneDNN
// nodes that take any strides run their reference kernels when one operand is transposed and the others
// are not: BERT's Div of the query heads took 29 ms instead of 0.3.)
bool readsStrided(const LibraryNode& lib, const std::string& connector) {
  return connector != "Y" && takesOwnStrides(lib, connector);
}

std::vector<sym::Expr> exprs(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// One side's analysis of the copy map in `p`: why it does not apply (the message and its hint), or the plan.
struct StridedViewSide {
  StridedViewPlan& p;
  const CopyMap& c;
  const Sdfg& sdfg;
  const State& st;
  std::string message, hint;
  explicit StridedViewSide(StridedViewPlan& plan) : p(plan), c(plan.copy), sdfg(*plan.copy.sdfg), st(*plan.copy.state) {}
  bool fail(const std::string& msg, const std::string& why = {}) {
    message = msg;
    hint = why;
    return false;
  }
  bool read();
  bool write();
};

// The read side: S, the copy, becomes a view of the array the map reads.
bool StridedViewSide::read() {
  const DataDescriptor& s = *c.target;
  const DataDescriptor& src = *c.source;
  const auto sShape = graph::constantShape(s);
  const auto srcShape = graph::constantShape(src);
  if (!sShape || !srcShape) return fail("'" + src.name() + "' has no constant shape");
  // Where the source's elements lie in the array underneath.
  std::optional<StridedPlace> srcPlace;
  p.source = c.input;
  p.array = &src;
  if (src.dataKind == DataKind::View) {
    auto vs = viewSource(sdfg, src);
    if (!vs) return fail(vs.error().message);
    if (vs->written) return fail("'" + src.name() + "' is written through: it shows elements of '" + vs->array->name() + "' written after it");
    auto first = checkPlainView(sdfg, src, *vs);
    if (!first) return fail(first.error().message);
    srcPlace = placeOf(src, *first);
    p.source = vs->viewed;
    p.array = vs->array;
  } else if (src.channelBlock == 0) {
    srcPlace = placeOf(src, sym::Expr(0));
  }
  const DataDescriptor& a = *p.array;
  if (a.dataKind != DataKind::Array || a.constant)
    return fail("'" + a.name() + "' is " + (a.constant ? "a constant (ConstantFolding folds its copies)" : "not an array (a stream or scalar)"));
  if (a.channelBlock > 0 || src.channelBlock > 0) return fail("'" + src.name() + "' has channels in blocks");
  if (!srcPlace) return fail("'" + src.name() + "' has strides or an offset that are not constants");
  // Each dim of the source read at a parameter plus a constant, or at a constant.
  const auto& params = c.entry->params;
  std::map<std::string, size_t> dimOf;
  std::vector<int64_t> first(src.shape.size());
  for (size_t j = 0; j < c.read.subset.rank(); ++j) {
    const sym::Expr e = c.read.subset[j].begin.substitute(c.fixed);
    const auto names = e.freeSymbols();
    std::optional<int64_t> k = e.constantValue();
    if (names.size() == 1 && std::find(params.begin(), params.end(), *names.begin()) != params.end()) {
      k = (e - sym::Expr::symbol(*names.begin())).constantValue();
      if (k && !dimOf.emplace(*names.begin(), j).second)
        return fail("parameter " + *names.begin() + " indexes more than one dim of '" + src.name() + "'");
    } else if (!names.empty()) {
      k.reset();
    }
    if (!k) return fail("dim " + std::to_string(j) + " of '" + src.name() + "' is read at " + e.str() + ", not a parameter plus a constant");
    first[j] = *k;
  }
  // S's dims step the source's dims they are read at.
  std::vector<int64_t> strides(s.shape.size(), 0), reach(src.shape.size(), 0);
  for (size_t k = 0; k < c.write.subset.rank(); ++k) {
    if ((*sShape)[k] == 1) continue;
    auto it = dimOf.find(c.write.subset[k].begin.symbolName());
    if (it == dimOf.end()) return fail("dim " + std::to_string(k) + " of '" + s.name() + "' repeats elements of '" + src.name() + "' (a broadcast)");
    strides[k] = srcPlace->strides[it->second];
    reach[it->second] = (*sShape)[k] - 1;
  }
  p.place.offset = srcPlace->offset;
  for (size_t j = 0; j < first.size(); ++j) {
    if (first[j] < 0 || first[j] + reach[j] >= (*srcShape)[j]) return fail("the copy reads past dim " + std::to_string(j) + " of '" + src.name() + "'");
    p.place.offset += first[j] * srcPlace->strides[j];
  }
  fillUnitStrides(*sShape, strides);
  p.place.strides = strides;
  std::vector<int64_t> row = DataDescriptor::contiguousStrides(*sShape);
  fillUnitStrides(*sShape, row);
  if (row == strides) return fail("the copy is one contiguous run of '" + a.name() + "'", "CopyToView makes it a view without strides");
  // Every reader takes S's strides; views of S are placed in the array.
  for (const DataflowEdge* e : st.outEdges(c.output->id())) {
    const Node* dst = st.node(e->dst);
    if (auto* lib = dynamic_cast<const LibraryNode*>(dst)) {
      if (!readsStrided(*lib, e->dstConnector))
        return fail("'" + lib->label() + "' reads '" + s.name() + "' at " + e->dstConnector + ", where it takes row-major operands only",
                    "oneDNN MatMul reads strided operands at A and B (set implementation=onednn)");
      if (!copy::coversAll(e->memlet.subset, s)) return fail("'" + lib->label() + "' reads part of '" + s.name() + "'");
      continue;
    }
    auto* an = dynamic_cast<const AccessNode*>(dst);
    DataDescriptor* v = an ? c.sdfg->findData(an->data()) : nullptr;
    if (!v || v->dataKind != DataKind::View) return fail("'" + s.name() + "' is read by '" + dst->label() + "', which takes no strided operand");
    auto vs = viewSource(sdfg, *v);
    if (!vs || vs->edge != e) return fail("'" + v->name() + "' reads '" + s.name() + "' but is not a view of it");
    auto vFirst = checkPlainView(sdfg, *v, *vs);
    if (!vFirst) return fail(vFirst.error().message);
    const auto vShape = graph::constantShape(*v);
    auto inS = placeOf(*v, *vFirst);
    auto place = vShape && inS ? placeThrough(*vShape, *inS, *sShape, p.place) : std::nullopt;
    if (!place) return fail("view '" + v->name() + "' of '" + s.name() + "' merges dims that the strides keep apart");
    for (const DataflowEdge* r : st.outEdges(an->id())) {
      auto* lib = dynamic_cast<const LibraryNode*>(st.node(r->dst));
      if (!lib || !readsStrided(*lib, r->dstConnector) || !copy::coversAll(r->memlet.subset, *v))
        return fail("view '" + v->name() + "' of '" + s.name() + "' is read by '" + st.node(r->dst)->label() + "', which takes no strided operand there",
                    "oneDNN MatMul reads strided operands at A and B (set implementation=onednn)");
    }
    p.rebased.push_back({v, an->id(), e->id(), *place});
  }
  if (writtenElsewhere(sdfg, a.name(), p.source))
    return fail("'" + a.name() + "' is written again elsewhere, so a view of it could change under its readers");
  if (graph::namedInControlFlow(sdfg, a.name())) return fail("control flow names '" + a.name() + "'");
  return true;
}

// The write side: the map's source S becomes a view of the copy T, written through by S's producer
// (oneDNN MatMul or FusedMatMul at Y, without Z), when the copy moves each element of S once.
bool StridedViewSide::write() {
  const DataDescriptor& src = *c.source;
  const DataDescriptor& t = *c.target;
  if (src.dataKind != DataKind::Array || !src.transient || src.constant || !rowMajor(src))
    return fail("'" + src.name() + "' is not a transient row-major array");
  const auto srcShape = graph::constantShape(src);
  const auto tShape = graph::constantShape(t);
  if (!srcShape || !tShape) return fail("'" + src.name() + "' has no constant shape");
  if (graph::accessCount(sdfg, src.name()) != 1 || graph::namedInControlFlow(sdfg, src.name()))
    return fail("'" + src.name() + "' has other access nodes or is named by control flow");
  const auto in = st.inEdges(c.input->id());
  const auto out = st.outEdges(c.input->id());
  if (out.size() != 1) return fail("'" + src.name() + "' is read by more than the copy");
  auto* producer = in.size() == 1 ? dynamic_cast<const LibraryNode*>(st.node(in.front()->src)) : nullptr;
  if (!producer) return fail("'" + src.name() + "' is not written by one library node");
  if (in.front()->srcConnector != "Y" || !takesOwnStrides(*producer, "Y") || graph::inEdge(st, *producer, "Z") ||
      !copy::coversAll(in.front()->memlet.subset, src))
    return fail("'" + src.name() + "' is written by '" + producer->label() + "', which writes row-major results only",
                "oneDNN MatMul writes a strided Y (without Z)");
  if (src.totalSize().constantValue() != t.totalSize().constantValue()) return fail("the copy does not move every element of '" + src.name() + "'");
  // Each dim of S read at a parameter of its own over the whole dim; the parameter's dim of T gives the stride.
  std::map<std::string, size_t> tDimOf;
  for (size_t k = 0; k < c.write.subset.rank(); ++k)
    if (c.write.subset[k].begin.isSymbol()) tDimOf[c.write.subset[k].begin.symbolName()] = k;
  const std::vector<int64_t> row = DataDescriptor::contiguousStrides(*tShape);
  std::vector<int64_t> strides(srcShape->size(), 0);
  for (size_t j = 0; j < c.read.subset.rank(); ++j) {
    const sym::Expr e = c.read.subset[j].begin.substitute(c.fixed);
    if ((*srcShape)[j] == 1) {
      if (e.constantValue() != int64_t(0)) return fail("dim " + std::to_string(j) + " of '" + src.name() + "' is read at " + e.str());
      continue;
    }
    auto it = e.isSymbol() ? tDimOf.find(e.symbolName()) : tDimOf.end();
    if (it == tDimOf.end() || (*tShape)[it->second] != (*srcShape)[j])
      return fail("dim " + std::to_string(j) + " of '" + src.name() + "' is not read whole at a parameter of its own");
    strides[j] = row[it->second];
  }
  fillUnitStrides(*srcShape, strides);
  p.place = {strides, 0};
  p.written = true;
  return true;
}

bool analyseStridedView(const Match& match, const Sdfg& root, StridedViewPlan& p, Diagnostics* whyNot) {
  if (!recognizeCopyMap(match, root, p.copy, whyNot)) return false;
  StridedViewSide reading(p);
  if (reading.read()) return true;
  p = StridedViewPlan{p.copy};
  StridedViewSide writing(p);
  if (writing.write()) return true;
  if (whyNot)
    whyNot->error(match.elements.at("entry"), reading.message + "; nor is '" + p.copy.source->name() + "' written in place: " + writing.message,
                  reading.hint.empty() ? writing.hint : reading.hint);
  return false;
}

} // namespace

const Pattern& StridedView::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool StridedView::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  StridedViewPlan p;
  return analyseStridedView(match, root, p, whyNot);
}

Expected<void> StridedView::apply(const Match& match, edit::Editor& ed) const {
  StridedViewPlan p;
  if (auto ok = analyseForApply(analyseStridedView, match, ed.root(), p, "entry"); !ok) return ok;
  State& st = *p.copy.state;
  const ElementId input = p.copy.input->id(), output = p.copy.output->id();
  const ElementId exit = p.copy.entry->exitId;
  for (Node* n : scope::nodesInside(st, *p.copy.entry)) ed.removeNode(st, n->id());
  ed.removeNode(st, exit);
  ed.removeNode(st, p.copy.entry->id());
  if (p.written) {
    // The source, written through, feeds the copy's access node with all of it.
    const DataDescriptor& t = *p.copy.target;
    ed.addEdge(st, *st.node(input), "", *st.node(output), "", Memlet::simple(t.name(), Subset::fullOf(t.shape)));
    DataDescriptor& src = *p.copy.sdfg->findData(p.copy.source->name());
    ed.set(src, &DataDescriptor::dataKind, DataKind::View);
    ed.set(src, &DataDescriptor::strides, exprs(p.place.strides));
    ed.set(src, &DataDescriptor::offset, sym::Expr(0));
    return {};
  }
  const ElementId source = p.source->id();
  // A view the copy read through goes with its access node when nothing else reads it.
  if (input != source && st.outEdges(input).empty()) ed.removeNode(st, input);
  const Memlet whole = Memlet::simple(p.array->name(), Subset::fullOf(p.array->shape));
  ed.addEdge(st, *st.node(source), "", *st.node(output), "", whole);
  ed.set(*p.copy.target, &DataDescriptor::dataKind, DataKind::View);
  ed.set(*p.copy.target, &DataDescriptor::strides, exprs(p.place.strides));
  ed.set(*p.copy.target, &DataDescriptor::offset, sym::Expr(p.place.offset));
  for (const Rebased& r : p.rebased) {
    ed.removeEdge(st, r.edge);
    ed.addEdge(st, *st.node(source), "", *st.node(r.node), "", whole);
    ed.set(*r.view, &DataDescriptor::strides, exprs(r.place.strides));
    ed.set(*r.view, &DataDescriptor::offset, sym::Expr(r.place.offset));
  }
  // S read through its views alone: its access node goes (an unused view is no error).
  if (st.outEdges(output).empty()) ed.removeNode(st, output);
  return {};
}

} // namespace dcw::transforms
