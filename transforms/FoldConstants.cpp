#include "transforms/FoldConstants.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"

#include <cstring>
#include <functional>
#include <optional>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

constexpr int64_t kMaxFoldedElements = 1 << 20;

// An integer tensor being folded (int64/int32/bool values widened to int64).
struct Ints {
  std::vector<int64_t> dims;
  std::vector<int64_t> v;
  DType dtype = DType::Int64;
};

std::optional<Ints> intsOf(const Tensor& t) {
  if (!t.bytes) return std::nullopt;
  Ints r;
  r.dims = t.dims;
  r.dtype = t.dtype;
  int64_t n = t.elementCount();
  if (n > kMaxFoldedElements) return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype) {
    case DType::Int64: { int64_t x; std::memcpy(&x, t.bytes->data() + i * 8, 8); r.v.push_back(x); break; }
    case DType::Int32: { int32_t x; std::memcpy(&x, t.bytes->data() + i * 4, 4); r.v.push_back(x); break; }
    case DType::Bool: r.v.push_back(t.bytes->at(size_t(i)) != 0); break;
    default: return std::nullopt;
    }
  }
  return r;
}

Tensor tensorOf(const Ints& x) {
  Tensor t;
  t.dtype = x.dtype;
  t.dims = x.dims;
  size_t es = dtypeSize(x.dtype);
  std::string b(x.v.size() * es, '\0');
  for (size_t i = 0; i < x.v.size(); ++i) {
    if (x.dtype == DType::Int64) std::memcpy(b.data() + i * 8, &x.v[i], 8);
    else if (x.dtype == DType::Int32) { int32_t y = int32_t(x.v[i]); std::memcpy(b.data() + i * 4, &y, 4); }
    else b[i] = x.v[i] ? 1 : 0;
  }
  t.bytes = std::make_shared<const std::string>(std::move(b));
  return t;
}

int64_t count(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (auto x : d) n *= x;
  return n;
}

// Numpy broadcasting of two integer tensors through f.
std::optional<Ints> broadcast(const Ints& a, const Ints& b, DType out, const std::function<std::optional<int64_t>(int64_t, int64_t)>& f) {
  size_t rank = std::max(a.dims.size(), b.dims.size());
  std::vector<int64_t> da(rank, 1), db(rank, 1), dr(rank);
  std::copy(a.dims.begin(), a.dims.end(), da.begin() + (rank - a.dims.size()));
  std::copy(b.dims.begin(), b.dims.end(), db.begin() + (rank - b.dims.size()));
  for (size_t k = 0; k < rank; ++k) {
    if (da[k] != db[k] && da[k] != 1 && db[k] != 1) return std::nullopt;
    dr[k] = std::max(da[k], db[k]);
  }
  Ints r;
  r.dims = dr;
  r.dtype = out;
  int64_t n = count(dr);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t k = rank; k-- > 0;) {
      int64_t idx = rem % dr[k];
      rem /= dr[k];
      ia += (da[k] == 1 ? 0 : idx) * sa;
      ib += (db[k] == 1 ? 0 : idx) * sb;
      sa *= da[k];
      sb *= db[k];
    }
    auto v = f(a.v[size_t(ia)], b.v[size_t(ib)]);
    if (!v) return std::nullopt;
    r.v.push_back(*v);
  }
  return r;
}

class Folder {
public:
  Folder(Sdfg& s, State& st) : sdfg_(s), st_(st) {}

  int run() {
    int folded = 0;
    auto order = st_.topologicalOrder();
    if (!order) return 0;
    for (Node* n : *order) {
      auto* lib = dynamic_cast<LibraryNode*>(n);
      if (!lib || !lib->domain.empty() || !lib->subgraphs().empty()) continue;
      if (fold(*lib)) ++folded;
      else if (lib->opType == "Reshape") refineReshape(*lib);
    }
    if (folded) cleanUp();
    return folded;
  }

private:
  Sdfg& sdfg_;
  State& st_;

  DataDescriptor* dataOf(ElementId accessNode) {
    auto* a = dynamic_cast<AccessNode*>(st_.node(accessNode));
    return a ? sdfg_.findData(a->data()) : nullptr;
  }

  // Input descriptors by position of the node's connectors (nullptr when unconnected).
  std::vector<DataDescriptor*> inputs(const LibraryNode& n) {
    std::vector<DataDescriptor*> out;
    for (auto& c : n.inConnectors()) {
      DataDescriptor* d = nullptr;
      for (auto* e : st_.inEdges(n.id()))
        if (e->dstConnector == c.name) d = dataOf(e->src);
      out.push_back(d);
    }
    return out;
  }

  bool fold(LibraryNode& n) {
    auto outs = st_.outEdges(n.id());
    if (outs.size() != 1) return false;
    DataDescriptor* out = dataOf(outs[0]->dst);
    if (!out || !out->transient || out->constant) return false;
    auto in = inputs(n);
    auto cint = [&](size_t i) -> std::optional<Ints> {
      if (i >= in.size() || !in[i] || !in[i]->constant) return std::nullopt;
      return intsOf(*in[i]->constant);
    };
    auto attrInt = [&](const char* name, int64_t fallback) {
      auto* a = n.attribute(name);
      auto* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
      return v ? *v : fallback;
    };
    auto attrInts = [&](const char* name) -> std::optional<std::vector<int64_t>> {
      auto* a = n.attribute(name);
      auto* v = a ? std::get_if<std::vector<int64_t>>(&a->value) : nullptr;
      return v ? std::optional(*v) : std::nullopt;
    };
    std::optional<Tensor> result;
    const std::string& op = n.opType;
    if (op == "Constant") {
      if (auto* a = n.attribute("value"); a && std::holds_alternative<Tensor>(a->value)) result = std::get<Tensor>(a->value);
      else if (auto v = attrInts("value_ints")) result = tensorOf(Ints{{int64_t(v->size())}, *v, DType::Int64});
      else if (n.attribute("value_int")) result = tensorOf(Ints{{}, {attrInt("value_int", 0)}, DType::Int64});
    } else if (op == "Shape" || op == "Size") {
      if (in.empty() || !in[0] || !in[0]->rankKnown || !in[0]->wrappers.empty()) return false;
      std::vector<int64_t> dims;
      for (auto& e : in[0]->shape) {
        auto v = e.constantValue();
        if (!v) return false;
        dims.push_back(*v);
      }
      if (op == "Size") result = tensorOf(Ints{{}, {count(dims)}, DType::Int64});
      else {
        int64_t r = int64_t(dims.size()), s = attrInt("start", 0), e = attrInt("end", r);
        if (s < 0) s += r;
        if (e < 0) e += r;
        s = std::clamp<int64_t>(s, 0, r);
        e = std::clamp<int64_t>(e, 0, r);
        std::vector<int64_t> v(dims.begin() + s, dims.begin() + std::max(s, e));
        result = tensorOf(Ints{{int64_t(v.size())}, v, DType::Int64});
      }
    } else if (op == "Identity") {
      if (in.empty() || !in[0] || !in[0]->constant) return false;
      result = *in[0]->constant;
    } else {
      auto x = cint(0);
      if (!x) return false;
      if (op == "Cast") {
        auto to = attrInt("to", 0);
        DType t = to == 7 ? DType::Int64 : to == 6 ? DType::Int32 : to == 9 ? DType::Bool : DType::Undefined;
        if (t == DType::Undefined) return false;
        x->dtype = t;
        if (t == DType::Bool)
          for (auto& v : x->v) v = v != 0;
        result = tensorOf(*x);
      } else if (op == "Neg" || op == "Abs") {
        for (auto& v : x->v) v = op == "Neg" ? -v : std::abs(v);
        result = tensorOf(*x);
      } else if (op == "Unsqueeze" || op == "Squeeze") {
        if (!out->rankKnown) return false;
        std::vector<int64_t> dims;
        for (auto& e : out->shape) {
          auto v = e.constantValue();
          if (!v) return false;
          dims.push_back(*v);
        }
        if (count(dims) != int64_t(x->v.size())) return false;
        x->dims = dims;
        result = tensorOf(*x);
      } else if (op == "Reshape") {
        if (!out->rankKnown) return false;
        std::vector<int64_t> dims;
        for (auto& e : out->shape) {
          auto v = e.constantValue();
          if (!v) return false;
          dims.push_back(*v);
        }
        if (count(dims) != int64_t(x->v.size())) return false;
        x->dims = dims;
        result = tensorOf(*x);
      } else if (op == "Gather") {
        auto idx = cint(1);
        if (!idx || x->dims.size() != 1) return false; // 1-D data: the shape-arithmetic case
        Ints r{idx->dims, {}, x->dtype};
        for (auto i : idx->v) {
          if (i < 0) i += int64_t(x->v.size());
          if (i < 0 || i >= int64_t(x->v.size())) return false;
          r.v.push_back(x->v[size_t(i)]);
        }
        result = tensorOf(r);
      } else if (op == "Concat") {
        Ints r{{0}, {}, x->dtype};
        for (size_t i = 0; i < in.size(); ++i) {
          auto p = cint(i);
          if (!p || p->dims.size() != 1) return false;
          r.v.insert(r.v.end(), p->v.begin(), p->v.end());
        }
        r.dims = {int64_t(r.v.size())};
        result = tensorOf(r);
      } else if (op == "Slice" && n.opsetVersion >= 10) {
        auto starts = cint(1), ends = cint(2);
        if (!starts || !ends || x->dims.size() != 1 || starts->v.size() != 1 || ends->v.size() != 1) return false;
        if (in.size() > 3 && in[3] && (!cint(3) || cint(3)->v != std::vector<int64_t>{0})) return false;
        int64_t step = 1;
        if (in.size() > 4 && in[4]) {
          auto s = cint(4);
          if (!s || s->v.size() != 1) return false;
          step = s->v[0];
        }
        if (step != 1) return false;
        int64_t len = int64_t(x->v.size()), b = starts->v[0], e = ends->v[0];
        if (b < 0) b += len;
        if (e < 0) e += len;
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        Ints r{{std::max<int64_t>(0, e - b)}, std::vector<int64_t>(x->v.begin() + b, x->v.begin() + std::max(b, e)), x->dtype};
        result = tensorOf(r);
      } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal") {
        auto y = cint(1);
        if (!y) return false;
        std::function<std::optional<int64_t>(int64_t, int64_t)> f;
        if (op == "Add") f = [](int64_t a, int64_t b) { return std::optional(a + b); };
        if (op == "Sub") f = [](int64_t a, int64_t b) { return std::optional(a - b); };
        if (op == "Mul") f = [](int64_t a, int64_t b) { return std::optional(a * b); };
        if (op == "Div") f = [](int64_t a, int64_t b) { return b == 0 ? std::nullopt : std::optional(a / b); };
        if (op == "Equal") f = [](int64_t a, int64_t b) { return std::optional<int64_t>(a == b); };
        auto r = broadcast(*x, *y, op == "Equal" ? DType::Bool : x->dtype, f);
        if (!r) return false;
        result = tensorOf(*r);
      } else if (op == "Where") {
        auto a = cint(1), b = cint(2);
        if (!a || !b) return false;
        auto ca = broadcast(*x, *a, a->dtype, [](int64_t c, int64_t v) { return std::optional(c ? v : INT64_MIN); });
        if (!ca) return false;
        auto r = broadcast(*ca, *b, a->dtype, [](int64_t v, int64_t w) { return std::optional(v == INT64_MIN ? w : v); });
        if (!r) return false;
        result = tensorOf(*r);
      } else if (op == "ConstantOfShape") {
        int64_t total = count(x->v);
        if (total > kMaxFoldedElements || total < 0) return false;
        Tensor t;
        t.dtype = DType::Float32;
        std::string one(4, '\0');
        if (auto* a = n.attribute("value"); a && std::holds_alternative<Tensor>(a->value)) {
          const Tensor& v = std::get<Tensor>(a->value);
          if (!v.bytes || v.elementCount() != 1) return false;
          t.dtype = v.dtype;
          one = *v.bytes;
        }
        std::string b;
        for (int64_t i = 0; i < total; ++i) b += one;
        t.dims = x->v;
        t.bytes = std::make_shared<const std::string>(std::move(b));
        result = t;
      } else if (op == "Range") {
        auto l = cint(1), d = cint(2);
        if (!l || !d || x->v.size() != 1 || d->v[0] == 0) return false;
        Ints r{{0}, {}, x->dtype};
        for (int64_t v = x->v[0]; d->v[0] > 0 ? v < l->v[0] : v > l->v[0]; v += d->v[0]) {
          r.v.push_back(v);
          if (int64_t(r.v.size()) > kMaxFoldedElements) return false;
        }
        r.dims = {int64_t(r.v.size())};
        result = tensorOf(r);
      } else if (op == "ReduceProd" && x->dims.size() == 1 && attrInt("keepdims", 1) == 0 && !n.attribute("axes")) {
        int64_t p = 1;
        for (auto v : x->v) p *= v;
        result = tensorOf(Ints{{}, {p}, x->dtype});
      }
    }
    if (!result) return false;
    if (result->dtype != out->dtype) return false;
    out->constant = std::make_shared<const Tensor>(std::move(*result));
    out->transient = false;
    out->shape.clear();
    for (auto d : out->constant->dims) out->shape.emplace_back(d);
    out->dataKind = out->shape.empty() ? DataKind::Scalar : DataKind::Array;
    out->strides = DataDescriptor::contiguousStrides(out->shape);
    out->rankKnown = true;
    resetMemlets(*out);
    st_.removeNode(n.id());
    return true;
  }

  // A Reshape whose target shape became constant gets the output shape shape inference could not
  // give (0 copies the input dim unless allowzero, -1 takes the remaining elements).
  void refineReshape(LibraryNode& n) {
    auto in = inputs(n);
    auto outs = st_.outEdges(n.id());
    if (in.size() < 2 || !in[0] || !in[1] || !in[1]->constant || outs.size() != 1) return;
    DataDescriptor* out = dataOf(outs[0]->dst);
    if (!out || (out->rankKnown && !out->freeSymbols().size())) return;
    auto target = intsOf(*in[1]->constant);
    if (!target || !in[0]->rankKnown) return;
    std::vector<int64_t> src;
    for (auto& e : in[0]->shape) {
      auto v = e.constantValue();
      if (!v) return;
      src.push_back(*v);
    }
    auto* a = n.attribute("allowzero");
    bool allowZero = a && std::holds_alternative<int64_t>(a->value) && std::get<int64_t>(a->value) != 0;
    std::vector<int64_t> dims = target->v;
    int64_t known = 1, inferAt = -1;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] == 0 && !allowZero) {
        if (k >= src.size()) return;
        dims[k] = src[k];
      }
      if (dims[k] == -1) {
        if (inferAt >= 0) return;
        inferAt = int64_t(k);
      } else {
        known *= dims[k];
      }
    }
    int64_t total = count(src);
    if (inferAt >= 0) {
      if (known == 0 || total % known) return;
      dims[size_t(inferAt)] = total / known;
    } else if (known != total) {
      return;
    }
    out->shape.clear();
    for (auto d : dims) out->shape.emplace_back(d);
    out->rankKnown = true;
    out->dataKind = out->shape.empty() ? DataKind::Scalar : DataKind::Array;
    out->strides = DataDescriptor::contiguousStrides(out->shape);
    resetMemlets(*out);
  }

  // Memlets made while a value's shape was unknown or symbolic move the whole (now known) array.
  void resetMemlets(const DataDescriptor& d) {
    for (State* s : sdfg_.allStates())
      for (auto& e : s->edges())
        if (e->memlet.data == d.name()) e->memlet = Memlet::full(d.name(), d.shape);
  }

  // Drops access nodes left without edges, then data nothing accesses any more.
  void cleanUp() {
    std::vector<ElementId> lonely;
    for (auto& nd : st_.nodes())
      if (nd->kind() == ElementKind::AccessNode && st_.inEdges(nd->id()).empty() && st_.outEdges(nd->id()).empty())
        lonely.push_back(nd->id());
    for (auto id : lonely) st_.removeNode(id);
    std::set<std::string> used(sdfg_.inputs.begin(), sdfg_.inputs.end());
    used.insert(sdfg_.outputs.begin(), sdfg_.outputs.end());
    for (State* s : sdfg_.allStates())
      for (auto& nd : s->nodes())
        if (auto* a = dynamic_cast<AccessNode*>(nd.get())) used.insert(a->data());
    std::vector<std::string> dead;
    for (auto& d : sdfg_.data())
      if (!used.count(d->name())) dead.push_back(d->name());
    for (auto& name : dead) sdfg_.removeData(name);
    // Symbols that only sized folded values (e.g. shape inference's unk__N) are gone with them.
    std::set<std::string> usedSymbols;
    for (auto& d : sdfg_.data())
      for (auto& sname : d->freeSymbols()) usedSymbols.insert(sname);
    std::vector<std::string> unused;
    for (auto& [sname, type] : sdfg_.symbols())
      if (!usedSymbols.count(sname)) unused.push_back(sname);
    for (auto& sname : unused) sdfg_.removeSymbol(sname);
  }
};

void foldIn(Sdfg& s, FoldReport& report) {
  for (State* st : s.allStates()) {
    report.folded += Folder(s, *st).run();
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(n.get()))
        for (auto& g : l->subgraphs()) foldIn(*g.sdfg, report);
  }
}

} // namespace

FoldReport foldConstants(Sdfg& sdfg) {
  FoldReport r;
  foldIn(sdfg, r);
  return r;
}

} // namespace dcw::transforms
