#include "core/ir/Validate.h"
#include "core/ir/View.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <algorithm>
#include <optional>
#include <set>
#include <type_traits>

namespace dcw::ir {

namespace {

class Validator {
public:
  explicit Validator(const Sdfg& root) : root_(root) {}

  Diagnostics run() {
    std::set<ElementId> ids;
    root_.forEachElement([&](const Element& e) {
      if (e.id() == kNoId) error(e, "element has no id", "this is a bug in the code that built the SDFG");
      else if (!ids.insert(e.id()).second)
        error(e, "id " + std::to_string(e.id()) + " is used by more than one element", "ids must be unique in one SDFG tree");
    });
    checkSdfg(root_);
    return std::move(diags_);
  }

private:
  const Sdfg& root_;
  // Built at the first diagnostic: a valid model needs no paths, and the index of a large or deeply
  // nested model is the biggest thing validation would build.
  std::optional<PathIndex> paths_;
  Diagnostics diags_;

  std::string pathOf(const Element& e) {
    if (!paths_) paths_.emplace(root_);
    return paths_->pathOf(e.id());
  }

  void error(const Element& e, std::string msg, std::string hint = {}) {
    Diagnostic d = Diagnostic::error(pathOf(e), std::move(msg), std::move(hint));
    d.elementId = std::to_string(e.id());
    diags_.add(std::move(d));
  }
  void warning(const Element& e, std::string msg, std::string hint = {}) {
    Diagnostic d = Diagnostic::warning(pathOf(e), std::move(msg), std::move(hint));
    d.elementId = std::to_string(e.id());
    diags_.add(std::move(d));
  }

  void checkLabel(const Element& e) {
    if (!isValidLabel(e.label()))
      error(e, std::string(elementKindName(e.kind())) + " label '" + e.label() + "' cannot be used in a path",
            "use a non-empty label without '/', '->', '=>' or a leading '@'");
  }

  std::set<std::string> knownSymbols(const Sdfg& s) {
    std::set<std::string> out;
    for (auto& [n, t] : s.symbols()) out.insert(n);
    return out;
  }

  // `what` names the user of the symbols: a string, or a callable giving one (made only for an error:
  // a memlet's text for every edge after every step is most of what validation would cost).
  template <class What>
  void checkSymbolsDeclared(const Element& e, const Sdfg& s, const std::set<std::string>& used,
                            const std::set<std::string>& extra, const What& what) {
    for (auto& name : used)
      if (!s.symbols().count(name) && !extra.count(name)) {
        std::string who;
        if constexpr (std::is_invocable_v<const What&>) who = what();
        else who = what;
        error(e, who + " uses symbol '" + name + "', which is not declared in SDFG '" + s.name() + "'",
              "declare it in the symbol table (or map it from the enclosing SDFG)");
      }
  }

  void checkSdfg(const Sdfg& s) {
    checkLabel(s);
    for (auto& [name, type] : s.symbols())
      if (!sym::isIdentifier(name)) error(s, "symbol name '" + name + "' is not an identifier", "rename the symbol");
    for (auto& d : s.data()) checkData(s, *d);
    for (auto* list : {&s.inputs, &s.outputs})
      for (auto& name : *list) {
        auto* d = s.findData(name);
        if (!d) error(s, "argument '" + name + "' has no data descriptor", "add the descriptor or drop the argument");
        else if (d->transient) error(*d, "argument '" + name + "' is transient", "arguments must be non-transient data");
      }
    checkRegion(s, s);
  }

  // Whether a state of `s` has an access node of `data`.
  static bool used(const Sdfg& s, const std::string& data) {
    for (State* st : s.allStates())
      for (auto& n : st->nodes())
        if (auto* a = dynamic_cast<const AccessNode*>(n.get()); a && a->data() == data) return true;
    return false;
  }

  // Channels in blocks (DataDescriptor::channelBlock): what the addressing and oneDNN's nChw16c assume.
  void checkBlocked(const DataDescriptor& d) {
    const std::string b = std::to_string(d.channelBlock);
    if (d.channelBlock != 8 && d.channelBlock != 16) return error(d, "has channels in blocks of " + b, "blocks are of 8 or 16 channels");
    if (d.dataKind != DataKind::Array || d.dtype != DType::Float32 || d.shape.size() < 3 || d.shape.size() > 5 || d.constant)
      return error(d, "has channels in blocks of " + b + ", which is for float32 arrays of rank 3 to 5 that are not constants",
                   "store it row-major");
    auto c = d.shape[1].constantValue();
    if (!c || *c <= 0 || *c % d.channelBlock != 0)
      return error(d, "has " + d.shape[1].str() + " channels in blocks of " + b + ": not a known multiple of " + b,
                   "store it row-major or in blocks of 8");
    if (d.strides != DataDescriptor::blockedStrides(d.shape, d.channelBlock))
      error(d, "has channels in blocks of " + b + " but strides [" + [&] {
              std::string s;
              for (size_t k = 0; k < d.strides.size(); ++k) s += (k ? ", " : "") + d.strides[k].str();
              return s;
            }() + "], not those of " + d.blockedLayoutName(),
            "the strides of a blocked array are DataDescriptor::blockedStrides");
  }

  void checkData(const Sdfg& s, const DataDescriptor& d) {
    checkLabel(d);
    if (d.rankKnown && d.dataKind != DataKind::Scalar && d.strides.size() != d.shape.size())
      error(d, "has " + std::to_string(d.strides.size()) + " strides for " + std::to_string(d.shape.size()) + " dimensions",
            "give one stride per dimension");
    if (d.dataKind == DataKind::Scalar && !d.shape.empty())
      error(d, "a scalar has a shape", "make it an array or drop the shape");
    if (d.channelBlock != 0) checkBlocked(d);
    if (d.dataKind == DataKind::View && used(s, d.name()))
      if (auto v = viewSource(s, d); !v) error(d, v.error().message, v.error().hint);
    checkSymbolsDeclared(d, s, d.freeSymbols(), {}, "the shape of '" + d.name() + "'");
    for (auto& dim : d.shape)
      if (auto v = dim.constantValue(); v && *v < 0)
        error(d, "dimension " + dim.str() + " is negative", "dimensions must be >= 0");
    if (d.constant) {
      const Tensor& t = *d.constant;
      if (t.dtype != d.dtype)
        error(d, "constant value has type " + std::string(dtypeName(t.dtype)) + " but the array is " + std::string(dtypeName(d.dtype)));
      if (d.rankKnown && t.dims.size() != d.shape.size())
        error(d, "constant value has rank " + std::to_string(t.dims.size()) + " but the array has rank " + std::to_string(d.shape.size()));
      else
        for (size_t i = 0; i < t.dims.size() && i < d.shape.size(); ++i)
          if (auto v = d.shape[i].constantValue(); v && *v != t.dims[i])
            error(d, "constant value has dimension " + std::to_string(i) + " = " + std::to_string(t.dims[i]) +
                         " but the array declares " + d.shape[i].str());
      if (t.dtype != DType::String && dtypeSize(t.dtype) > 0) {
        int64_t n = t.elementCount();
        if (static_cast<uint64_t>(n) * dtypeSize(t.dtype) != t.byteSize())
          error(d, "constant value holds " + std::to_string(t.byteSize()) + " bytes, expected " +
                       std::to_string(static_cast<uint64_t>(n) * dtypeSize(t.dtype)),
                "the tensor data is truncated or has the wrong type");
      }
    }
  }

  void checkRegion(const ControlFlowRegion& r, const Sdfg& s) {
    std::set<std::string> labels;
    for (auto& b : r.blocks()) {
      checkLabel(*b);
      if (!labels.insert(b->label()).second)
        error(*b, "two blocks of '" + r.label() + "' are labelled '" + b->label() + "'", "labels must be unique among siblings");
    }
    if (!r.blocks().empty() && !r.block(r.startBlock()))
      error(r, "the start block does not exist", "set the start block to one of the region's blocks");
    std::set<std::string> defined;
    collectAssigned(s, defined);
    for (auto& e : r.edges()) {
      if (!r.block(e->src) || !r.block(e->dst))
        error(*e, "interstate edge connects a block that is not in region '" + r.label() + "'", "remove the edge");
      checkSymbolsDeclared(*e, s, e->condition.freeSymbols(), defined, "the condition");
      for (auto& [name, value] : e->assignments) {
        if (!sym::isIdentifier(name)) error(*e, "assigns to '" + name + "', which is not an identifier");
        checkSymbolsDeclared(*e, s, value.freeSymbols(), defined, "the assignment to '" + name + "'");
      }
    }
    if (auto* loop = dynamic_cast<const LoopRegion*>(&r)) {
      if (!loop->loopVariable.empty() && !sym::isIdentifier(loop->loopVariable))
        error(r, "loop variable '" + loop->loopVariable + "' is not an identifier");
      for (auto* ex : {&loop->init, &loop->condition, &loop->update})
        checkSymbolsDeclared(r, s, ex->freeSymbols(), defined, "the loop header");
    }
    for (auto& b : r.blocks()) {
      if (auto* st = dynamic_cast<const State*>(b.get())) checkState(*st, s, defined);
      else if (auto* sub = dynamic_cast<const ControlFlowRegion*>(b.get())) checkRegion(*sub, s);
      else if (auto* c = dynamic_cast<const ConditionalRegion*>(b.get())) {
        if (c->branches().empty()) warning(*c, "conditional has no branches", "remove it");
        for (size_t i = 0; i < c->branches().size(); ++i) {
          auto& br = *c->branches()[i];
          if (!br.condition && i + 1 != c->branches().size())
            error(br, "an else branch must be the last branch", "move it to the end");
          if (br.condition) checkSymbolsDeclared(br, s, br.condition->freeSymbols(), defined, "the branch condition");
          checkRegion(br, s);
        }
      }
    }
  }

  // Symbols defined by control flow (interstate assignments, loop variables) and scalar data.
  void collectAssigned(const ControlFlowBlock& b, std::set<std::string>& out) {
    if (auto* s = dynamic_cast<const Sdfg*>(&b))
      for (auto& d : s->data()) out.insert(d->name());
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      for (auto& e : r->edges())
        for (auto& [n, v] : e->assignments) out.insert(n);
      if (auto* l = dynamic_cast<const LoopRegion*>(r); l && !l->loopVariable.empty()) out.insert(l->loopVariable);
      for (auto& c : r->blocks()) collectAssigned(*c, out);
    } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : c->branches()) collectAssigned(*br, out);
    }
  }

  void checkState(const State& st, const Sdfg& s, const std::set<std::string>& cfSymbols) {
    std::set<std::string> labels;
    for (auto& n : st.nodes()) {
      checkLabel(*n);
      if (!labels.insert(n->label()).second)
        error(*n, "two nodes of state '" + st.label() + "' are labelled '" + n->label() + "'", "labels must be unique in a state");
      checkNode(st, *n, s);
    }
    // Map parameters are symbols inside their scope.
    std::set<std::string> extra = cfSymbols;
    for (auto& n : st.nodes())
      if (auto* me = dynamic_cast<const MapEntry*>(n.get()))
        for (auto& p : me->params) extra.insert(p);

    std::map<std::pair<ElementId, std::string>, int> inUse;
    for (auto& e : st.edges()) {
      Node* src = st.node(e->src);
      Node* dst = st.node(e->dst);
      if (!src || !dst) {
        error(*e, "edge refers to a node that is not in state '" + st.label() + "'", "remove the edge");
        continue;
      }
      checkConnector(*e, *src, e->srcConnector, false);
      checkConnector(*e, *dst, e->dstConnector, true);
      if (dst->kind() != ElementKind::AccessNode && !e->dstConnector.empty() &&
          ++inUse[{dst->id(), e->dstConnector}] == 2)
        error(*e, "input connector '" + e->dstConnector + "' of '" + dst->label() + "' has more than one incoming edge",
              "an input connector takes exactly one edge");
      checkMemlet(*e, s, extra);
    }
    for (auto& n : st.nodes()) {
      if (n->kind() != ElementKind::LibraryNode && n->kind() != ElementKind::Tasklet && n->kind() != ElementKind::NestedSdfg)
        continue;
      for (auto& c : n->inConnectors())
        if (!c.optional && !inUse.count({n->id(), c.name}))
          error(*n, "input '" + c.name + "' of '" + n->label() + "' is not connected", "connect it or mark it optional");
    }
    auto order = st.topologicalOrder();
    if (!order) {
      Node* n = st.nodeByLabel(order.error().location);
      error(n ? static_cast<const Element&>(*n) : st, order.error().message, order.error().hint);
      return;
    }
    auto scopes = st.scopeOf();
    if (!scopes) {
      Node* n = st.nodeByLabel(scopes.error().location);
      error(n ? static_cast<const Element&>(*n) : st, scopes.error().message, scopes.error().hint);
    }
  }

  void checkConnector(const DataflowEdge& e, const Node& n, const std::string& conn, bool input) {
    if (n.kind() == ElementKind::AccessNode) {
      if (!conn.empty())
        error(e, "edge uses connector '" + conn + "' on access node '" + n.label() + "'", "access nodes have no connectors");
      return;
    }
    if (conn.empty()) {
      if (!e.memlet.isEmpty())
        error(e, "edge carries data but names no connector of '" + n.label() + "'", "attach it to a connector");
      return;
    }
    const Connector* c = input ? n.findIn(conn) : n.findOut(conn);
    if (!c)
      error(e, std::string(input ? "input" : "output") + " connector '" + conn + "' does not exist on '" + n.label() + "'",
            "add the connector or attach the edge to an existing one");
  }

  void checkMemlet(const DataflowEdge& e, const Sdfg& s, const std::set<std::string>& extra) {
    const Memlet& m = e.memlet;
    if (m.isEmpty()) return;
    const DataDescriptor* d = s.findData(m.data);
    if (!d) {
      error(e, "memlet refers to data '" + m.data + "', which SDFG '" + s.name() + "' does not declare", "declare it or fix the name");
      return;
    }
    if (d->rankKnown && d->wrappers.empty()) {
      size_t rank = d->dataKind == DataKind::Scalar ? 0 : d->shape.size();
      if (m.subset.rank() != rank && !(rank == 0 && m.subset.rank() == 1))
        error(e, "memlet subset [" + m.subset.str() + "] has " + std::to_string(m.subset.rank()) + " dimensions but '" +
                     m.data + "' has " + std::to_string(rank), "give one range per dimension");
    }
    std::set<std::string> used = m.subset.freeSymbols();
    if (m.otherSubset)
      for (auto& x : m.otherSubset->freeSymbols()) used.insert(x);
    for (auto& x : m.volume.freeSymbols()) used.insert(x);
    checkSymbolsDeclared(e, s, used, extra, [&] { return "memlet " + m.str(); });
  }

  // A C++ tasklet's code is opaque (not parsed here or anywhere), but what it is bound to is checked:
  // its connectors become C++ variable names, and each output is written through exactly one memlet.
  void checkCppTasklet(const State& st, const Tasklet& t) {
    for (auto* conns : {&t.inConnectors(), &t.outConnectors()})
      for (auto& c : *conns)
        if (!sym::isIdentifier(c.name))
          error(t, "connector '" + c.name + "' of C++ tasklet '" + t.label() + "' is not an identifier",
                "C++ code names its connectors as variables: rename it");
    for (auto& c : t.outConnectors()) {
      int edges = 0;
      for (auto* e : st.outEdges(t.id()))
        if (e->srcConnector == c.name && !e->memlet.isEmpty()) ++edges;
      if (edges != 1)
        error(t, "output '" + c.name + "' of C++ tasklet '" + t.label() + "' has " + std::to_string(edges) +
                     " memlets; it needs exactly one", "connect the output to the data it writes, once");
    }
    auto has = [](const auto& conns, const std::string& name) {
      return std::any_of(conns.begin(), conns.end(), [&](const auto& c) { return c.name == name; });
    };
    for (auto& [out, in] : t.inPlace)
      if (!has(t.outConnectors(), out) || !has(t.inConnectors(), in))
        error(t, "C++ tasklet '" + t.label() + "' lets output '" + out + "' take the storage of input '" + in + "', but it has no such " +
                     (has(t.outConnectors(), out) ? "input" : "output"),
              "name an output and an input connector of the tasklet");
    for (auto& env : t.environments)
      if (!sym::isIdentifier(env))
        error(t, "C++ tasklet '" + t.label() + "' names environment '" + env + "', which is not an identifier",
              "name a registered environment (e.g. onednn)");
  }

  void checkNode(const State& st, const Node& n, const Sdfg& s) {
    switch (n.kind()) {
    case ElementKind::AccessNode: {
      auto& a = static_cast<const AccessNode&>(n);
      if (!s.findData(a.data()))
        error(n, "access node refers to data '" + a.data() + "', which SDFG '" + s.name() + "' does not declare",
              "declare the data or remove the node");
      break;
    }
    case ElementKind::MapEntry: {
      auto& me = static_cast<const MapEntry&>(n);
      if (me.params.size() != me.range.rank())
        error(n, "map has " + std::to_string(me.params.size()) + " parameters but " + std::to_string(me.range.rank()) + " ranges",
              "give one range per parameter");
      for (auto& p : me.params)
        if (!sym::isIdentifier(p)) error(n, "map parameter '" + p + "' is not an identifier");
      auto* x = dynamic_cast<const MapExit*>(st.node(me.exitId));
      if (!x || x->entryId != me.id())
        error(n, "map entry '" + n.label() + "' has no matching map exit in the same state", "add the exit or remove the map");
      break;
    }
    case ElementKind::MapExit: {
      auto* en = dynamic_cast<const MapEntry*>(st.node(static_cast<const MapExit&>(n).entryId));
      if (!en) error(n, "map exit '" + n.label() + "' has no matching map entry in the same state");
      break;
    }
    case ElementKind::Tasklet: {
      auto& t = static_cast<const Tasklet&>(n);
      if (t.code.empty()) warning(n, "tasklet has no code");
      if (t.language == TaskletLanguage::Cpp) checkCppTasklet(st, t);
      break;
    }
    case ElementKind::LibraryNode: {
      auto& l = static_cast<const LibraryNode&>(n);
      if (l.opType.empty()) error(n, "library node has no operation type");
      if (l.opaque)
        warning(n, "operation " + l.className() + " has no known schema: it can be inspected but not run",
                "register the op's domain, or replace the node");
      for (auto& a : l.attributes) {
        if (auto* g = std::get_if<GraphRef>(&a.value); g && !l.subgraph(g->name))
          error(n, "attribute '" + a.name + "' names subgraph '" + g->name + "', which the node does not own");
        if (auto* gs = std::get_if<std::vector<GraphRef>>(&a.value))
          for (auto& g : *gs)
            if (!l.subgraph(g.name)) error(n, "attribute '" + a.name + "' names subgraph '" + g.name + "', which the node does not own");
      }
      for (auto& g : l.subgraphs()) checkSdfg(*g.sdfg);
      break;
    }
    case ElementKind::NestedSdfg: {
      auto& ns = static_cast<const NestedSdfgNode&>(n);
      const Sdfg& inner = ns.sdfg();
      for (auto* conns : {&n.inConnectors(), &n.outConnectors()})
        for (auto& c : *conns) {
          auto* d = inner.findData(c.name);
          if (!d) error(n, "connector '" + c.name + "' has no data in the nested SDFG", "add the data or remove the connector");
          else if (d->transient) error(n, "connector '" + c.name + "' maps to transient data of the nested SDFG", "make it non-transient");
        }
      for (auto& [name, type] : inner.symbols()) {
        auto it = ns.symbolMapping.find(name);
        if (it == ns.symbolMapping.end())
          error(n, "nested symbol '" + name + "' is not mapped", "add it to the symbol mapping");
        else
          checkSymbolsDeclared(n, s, it->second.freeSymbols(), {}, "the mapping of '" + name + "'");
      }
      checkSdfg(inner);
      break;
    }
    default:
      break;
    }
  }
};

} // namespace

Diagnostics validate(const Sdfg& sdfg) { return Validator(sdfg).run(); }

} // namespace dcw::ir
