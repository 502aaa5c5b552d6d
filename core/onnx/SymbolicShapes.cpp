#include "core/onnx/SymbolicShapes.h"

#include "core/onnx/OnnxTypes.h"
#include "core/onnx/ShapeArithmetic.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <set>

namespace dcw::onnx {

namespace {

using ::onnx::AttributeProto;
using ::onnx::GraphProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;
using ::onnx::TypeProto;
using sym::Expr;
using Dims = std::vector<Expr>;

constexpr size_t kMaxValues = 4096; // integer tensors whose values are followed (shape arithmetic)
// Expressions past this many nodes are dropped (the dim is then unknown): a chain of shape arithmetic
// that squares an expression at every step would otherwise grow it exponentially.
constexpr size_t kMaxExprNodes = 256;
constexpr int64_t kBigIndex = int64_t(1) << 30; // Slice ends at or past this mean "to the end"

// What is known of one value: its dims, and for a small integer tensor its elements (row-major).
struct Info {
  std::optional<Dims> shape;
  std::optional<std::vector<Expr>> values;
  bool real = false; // the values are those of a floating-point tensor (integral, but `/` divides exactly)
};

// Integer inputs with at most this many elements have symbols for their values (valueParams).
constexpr int64_t kMaxValueInput = 4;

std::optional<int64_t> constOf(const Expr& e) { return e.constantValue(); }

Expr product(const Dims& d, size_t from = 0, size_t to = SIZE_MAX) {
  Expr p(1);
  for (size_t i = from; i < d.size() && i < to; ++i) p = p * d[i];
  return p;
}

// a / b for dims where b divides a: common factors of the two products cancel (so that
// (batch*seq*768) / (batch*12*64) is `seq`, not a floor division); otherwise a floor division.
Expr divideDims(const Expr& a, const Expr& b) {
  auto factors = [](const Expr& e, int64_t& c, std::vector<Expr>& f) {
    c = 1;
    std::vector<Expr> parts = e.op() == sym::Op::Mul ? e.operands() : std::vector<Expr>{e};
    for (auto& p : parts) {
      if (auto v = constOf(p)) c *= *v;
      else f.push_back(p);
    }
  };
  int64_t ca, cb;
  std::vector<Expr> fa, fb, rest;
  factors(a, ca, fa);
  factors(b, cb, fb);
  for (auto& x : fb) {
    auto it = std::find(fa.begin(), fa.end(), x);
    if (it != fa.end()) fa.erase(it);
    else rest.push_back(x);
  }
  if (cb == 0) return sym::floorDiv(a, b);
  Expr num(1), den(1);
  for (auto& x : fa) num = num * x;
  for (auto& x : rest) den = den * x;
  if (ca % cb == 0) num = num * Expr(ca / cb);
  else {
    num = num * Expr(ca);
    den = den * Expr(cb);
  }
  if (auto d = constOf(den); d && *d == 1) return num;
  return sym::floorDiv(num, den);
}

sym::Assumptions dimsOf(const Expr& a, const Expr& b = Expr(0)) {
  sym::Assumptions dims; // every symbol is a dim: non-negative
  for (auto& s : a.freeSymbols()) dims.setLower(s, 0);
  for (auto& s : b.freeSymbols()) dims.setLower(s, 0);
  return dims;
}

// max(0, e) where dims make e non-negative anyway: e.
Expr atLeastZero(const Expr& e) {
  if (sym::proveLessEqual(Expr(0), e, dimsOf(e)) == true) return e;
  return sym::max(Expr(0), e);
}

// min(e, dim), or e where it provably lies within the dim.
Expr atMost(const Expr& e, const Expr& dim) {
  if (sym::proveLessEqual(e, dim, dimsOf(e, dim)) == true) return e;
  return sym::min(e, dim);
}

// Two dims that broadcast: 1 gives way; a number wins over a symbol (which must then be 1 or equal);
// of two expressions the larger (they are equal, or one is 1, in any valid run). What a run's dims
// must satisfy for that is appended to `needs` (checked when the program runs).
Expr broadcastDim(const Expr& a, const Expr& b, std::vector<std::pair<Expr, Expr>>& needs) {
  auto ca = constOf(a), cb = constOf(b);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  if (a == b) return a;
  Expr fits = sym::logicalOr(sym::eq(a, b), sym::logicalOr(sym::eq(a, Expr(1)), sym::eq(b, Expr(1))));
  if (fits != Expr(1)) needs.push_back({a, b});
  if (ca) return a;
  if (cb) return b;
  if (sym::proveLessEqual(a, b, dimsOf(a, b)) == true) return b;
  if (sym::proveLessEqual(b, a, dimsOf(a, b)) == true) return a;
  return sym::max(a, b);
}

Dims broadcastShapes(const Dims& a, const Dims& b, std::vector<std::pair<Expr, Expr>>& needs) {
  size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    bool ha = i < a.size(), hb = i < b.size();
    const Expr* x = ha ? &a[a.size() - 1 - i] : nullptr;
    const Expr* y = hb ? &b[b.size() - 1 - i] : nullptr;
    out[r - 1 - i] = x && y ? broadcastDim(*x, *y, needs) : x ? *x : *y;
  }
  return out;
}

bool allConst(const std::vector<Expr>& v) {
  for (auto& e : v)
    if (!e.isConstant()) return false;
  return true;
}

std::optional<std::vector<int64_t>> constInts(const std::optional<std::vector<Expr>>& v) {
  if (!v || !allConst(*v)) return std::nullopt;
  std::vector<int64_t> out;
  for (auto& e : *v) out.push_back(*e.constantValue());
  return out;
}

// The numbers of `shape`, when every dim is one.
std::optional<std::vector<int64_t>> numbers(const Dims& shape) {
  std::vector<int64_t> out;
  for (auto& e : shape) {
    auto c = constOf(e);
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

// The elements of a row-major tensor of `dims` at the cartesian product of `keep` (indices per dim).
std::vector<Expr> gatherValues(const std::vector<int64_t>& dims, const std::vector<Expr>& v,
                               const std::vector<std::vector<int64_t>>& keep) {
  std::vector<Expr> out;
  std::vector<size_t> at(dims.size(), 0);
  for (auto& k : keep)
    if (k.empty()) return out;
  for (;;) {
    int64_t flat = 0;
    for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + keep[d][at[d]];
    out.push_back(v[size_t(flat)]);
    size_t d = dims.size();
    while (d > 0 && ++at[d - 1] == keep[d - 1].size()) at[--d] = 0;
    if (d == 0) return out;
  }
}

class Walker {
public:
  // `parent`: the walker of the graph whose If node holds this branch (its values are visible here).
  Walker(const GraphProto& g, int64_t opset, Walker* parent = nullptr)
      : g_(g), opset_(opset), parent_(parent), root_(parent ? parent->root_ : this) {}

  SymbolicShapes run() {
    walk();
    return std::move(out_);
  }

  void walk() {
    for (auto& t : g_.initializer()) {
      Info i;
      Dims d;
      for (auto x : t.dims()) d.emplace_back(x);
      i.shape = d;
      int64_t n = 1;
      for (auto x : t.dims()) n *= x;
      if (n <= int64_t(kMaxValues) &&
          (t.data_type() == TensorProto::INT64 || t.data_type() == TensorProto::INT32 || t.data_type() == TensorProto::BOOL)) {
        TensorProto copy = t;
        if (auto v = tensorFromOnnx(copy, t.name(), true))
          if (auto ints = intValues(*v)) i.values = std::vector<Expr>(ints->begin(), ints->end());
      } else if (n <= kMaxValueInput && (t.data_type() == TensorProto::FLOAT || t.data_type() == TensorProto::DOUBLE)) {
        // Float constants that are whole numbers (0, 1, 2 of a window function's arithmetic).
        TensorProto copy = t;
        if (auto v = tensorFromOnnx(copy, t.name(), true); v && v->bytes) {
          std::vector<Expr> vals;
          for (int64_t k = 0; k < v->elementCount(); ++k) {
            double d = 0;
            if (v->dtype == ir::DType::Float32) {
              float f;
              std::memcpy(&f, v->bytes->data() + k * 4, 4);
              d = f;
            } else {
              std::memcpy(&d, v->bytes->data() + k * 8, 8);
            }
            if (!(std::fabs(d) < 1e15) || d != std::floor(d)) break;
            vals.push_back(Expr(int64_t(d)));
          }
          if (int64_t(vals.size()) == v->elementCount()) {
            i.values = vals;
            i.real = true;
          }
        }
      }
      info_[t.name()] = std::move(i);
    }
    for (auto& v : g_.input()) {
      if (info_.count(v.name()) || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
      Dims d;
      for (auto& dim : v.type().tensor_type().shape().dim()) {
        if (dim.has_dim_value()) d.emplace_back(dim.dim_value());
        else if (dim.has_dim_param() && !dim.dim_param().empty()) d.push_back(param(dim.dim_param()));
        else goto unnamed;
      }
      info_[v.name()].shape = d;
      valueParamsOf(v, d);
    unnamed:;
    }
    for (auto& v : g_.value_info()) onnxTypes_[v.name()] = &v.type();
    for (auto& v : g_.output()) onnxTypes_[v.name()] = &v.type();
    for (auto& n : g_.node()) visit(n);
  }

  // What is known of a value of this graph or of an enclosing one.
  const Info* lookup(const std::string& name) const {
    for (const Walker* w = this; w; w = w->parent_)
      if (auto it = w->info_.find(name); it != w->info_.end()) return &it->second;
    return nullptr;
  }

private:
  const GraphProto& g_;
  int64_t opset_;
  std::map<std::string, Info> info_;
  std::map<std::string, const TypeProto*> onnxTypes_;
  Walker* parent_;
  Walker* root_;                        // holds the params and the result for every graph walked
  std::map<std::string, size_t> params_;
  std::set<std::string> corrected_; // values whose dims DCW corrects over ONNX's inference
  SymbolicShapes out_;
  std::vector<std::pair<Expr, Expr>> needs_; // of the node being visited

  // The elements of a small integer input of the main graph, as symbols (SymbolicShapes::valueParams).
  void valueParamsOf(const ::onnx::ValueInfoProto& v, const Dims& d) {
    const int32_t t = v.type().tensor_type().elem_type();
    if (parent_ || (t != TensorProto::INT64 && t != TensorProto::INT32) || d.size() > 1) return;
    auto count = constOf(product(d));
    if (!count || *count < 1 || *count > kMaxValueInput) return;
    std::vector<Expr> vals;
    for (int64_t k = 0; k < *count; ++k) {
      const std::string name = v.name() + "_value" + (*count > 1 ? std::to_string(k) : std::string());
      if (root_->params_.count(name)) return; // a dim_param of that name: leave the values unknown
      vals.push_back(param(name));
      root_->out_.valueParams[root_->params_.at(name)] = {v.name(), k};
    }
    info_[v.name()].values = vals;
  }

  Expr param(const std::string& p) {
    auto [it, added] = root_->params_.emplace(p, root_->out_.params.size());
    if (added) root_->out_.params.push_back(p);
    return Expr::symbol(SymbolicShapes::placeholder(it->second));
  }

  // The ops whose output size is a count of the values (SymbolicShapes::dataDependent): a param for
  // the count, bounded by what the count can reach, in the main graph only.
  void dataDependent(const NodeProto& n, std::vector<Info>& o) {
    const std::string& op = n.op_type();
    auto x = shape(0);
    if (parent_ || !x || o.empty() || n.output(0).empty()) return;
    if (op == "Compress" && present(1) && values(1) && allConst(*values(1))) return; // the condition is known
    auto count = [&](const Expr& bound) {
      const std::string name = n.output(0) + "_count";
      if (root_->params_.count(name)) return std::optional<Expr>();
      Expr p = param(name);
      root_->out_.dataDependent[root_->params_.at(name)] = {n.output(0), bound};
      return std::optional<Expr>(p);
    };
    const int64_t r = int64_t(x->size());
    auto axisOf = [&]() -> std::optional<int64_t> {
      int64_t a = attrI("axis", 0);
      if (a < 0) a += r;
      if (a < 0 || a >= r) return std::nullopt;
      return a;
    };
    const bool hasAxis = attr("axis") != nullptr;
    if (op == "NonZero") {
      auto k = count(product(*x));
      if (k) o[0].shape = Dims{Expr(r), *k};
    } else if (op == "Compress") {
      if (!hasAxis) {
        if (auto k = count(product(*x))) o[0].shape = Dims{*k};
        return;
      }
      auto a = axisOf();
      if (!a) return;
      auto k = count((*x)[size_t(*a)]);
      if (!k) return;
      Dims d = *x;
      d[size_t(*a)] = *k;
      o[0].shape = d;
    } else if (op == "Unique") {
      Expr total = hasAxis ? Expr(0) : product(*x);
      std::optional<int64_t> a;
      if (hasAxis) {
        a = axisOf();
        if (!a) return;
        total = (*x)[size_t(*a)];
      }
      auto k = count(total);
      if (!k) return;
      Dims y = hasAxis ? *x : Dims{*k};
      if (hasAxis) y[size_t(*a)] = *k;
      o[0].shape = y;
      if (o.size() > 1) o[1].shape = Dims{*k};
      if (o.size() > 2) o[2].shape = Dims{total};
      if (o.size() > 3) o[3].shape = Dims{*k};
    } else { // NonMaxSuppression: boxes [B, S, 4], scores [B, C, S] -> selected [K, 3]
      auto s = shape(1);
      if (r != 3 || !s || s->size() != 3) return;
      Expr perClass = (*x)[1];
      if (present(2))
        if (auto m = values(2); m && m->size() == 1)
          if (auto c = constOf((*m)[0]); c && *c >= 0) perClass = sym::min(perClass, Expr(*c));
      if (auto k = count((*x)[0] * (*s)[1] * perClass)) o[0].shape = Dims{*k, Expr(3)};
    }
  }

  // The ai.onnx.ml ops of scikit-learn exports (ONNX infers their types, not their dims): row-wise
  // transforms keep X's dims; regressors give [N, targets]; classifiers [N] labels and [N, classes] scores.
  void mlRules(const NodeProto& n, std::vector<Info>& o) {
    const std::string& op = n.op_type();
    auto x = shape(0);
    if (!x || x->empty() || o.empty()) return;
    const Expr rows = x->size() == 2 ? (*x)[0] : Expr(1);
    auto listSize = [&](const char* name) -> int64_t {
      const AttributeProto* a = attr(name);
      return a ? std::max<int64_t>(a->ints_size(), a->strings_size()) : 0;
    };
    auto elem = [&](int k, int32_t t) {
      if (k < n.output_size() && !n.output(k).empty() && !onnxTypes_.count(n.output(k))) root_->out_.elemTypes[n.output(k)] = t;
    };
    auto inputElem = [&]() -> int32_t {
      for (const Walker* w = this; w; w = w->parent_) {
        if (auto it = w->onnxTypes_.find(n.input(0)); it != w->onnxTypes_.end() && it->second->has_tensor_type())
          return it->second->tensor_type().elem_type();
        for (auto& v : w->g_.input())
          if (v.name() == n.input(0) && v.type().has_tensor_type()) return v.type().tensor_type().elem_type();
        if (auto it = root_->out_.elemTypes.find(n.input(0)); it != root_->out_.elemTypes.end()) return it->second;
      }
      return 0;
    };
    if (op == "Scaler" || op == "Normalizer" || op == "LinearRegressor" || op == "TreeEnsembleRegressor") elem(0, TensorProto::FLOAT);
    if (op == "LinearClassifier" || op == "TreeEnsembleClassifier") {
      if (!attr("classlabels_strings")) elem(0, TensorProto::INT64);
      elem(1, TensorProto::FLOAT);
    }
    if (op == "Binarizer" || op == "Imputer" || op == "ArrayFeatureExtractor")
      if (int32_t t = inputElem()) elem(0, t);
    if (op == "Scaler" || op == "Normalizer" || op == "Binarizer" || op == "Imputer") {
      o[0].shape = x;
    } else if (op == "LinearRegressor") {
      o[0].shape = Dims{rows, Expr(attrI("targets", 1))};
    } else if (op == "TreeEnsembleRegressor") {
      o[0].shape = Dims{rows, Expr(attrI("n_targets", 1))};
    } else if (op == "LinearClassifier" || op == "TreeEnsembleClassifier") {
      const int64_t classes = op == "LinearClassifier" ? listSize("classlabels_ints") + listSize("classlabels_strings")
                                                       : listSize("classlabels_int64s") + listSize("classlabels_strings");
      o[0].shape = Dims{rows};
      if (o.size() > 1 && classes > 0) o[1].shape = Dims{rows, Expr(classes)};
    } else if (op == "ArrayFeatureExtractor") {
      auto idx = shape(1);
      if (!idx) return;
      Dims d(x->begin(), x->end() - 1);
      if (d.empty()) d.push_back(Expr(1));
      d.push_back(product(*idx));
      o[0].shape = d;
    }
  }

  // ONNX's dims for a value, when it knows every one (numbers and the inputs' own dims).
  std::optional<Dims> onnxDims(const std::string& name) {
    auto it = onnxTypes_.find(name);
    if (it == onnxTypes_.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) return std::nullopt;
    Dims d;
    for (auto& dim : it->second->tensor_type().shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() >= 0) d.emplace_back(dim.dim_value());
      else if (dim.has_dim_param() && root_->params_.count(dim.dim_param())) d.push_back(param(dim.dim_param()));
      else return std::nullopt;
    }
    return d;
  }

  void visit(const NodeProto& n) {
    std::vector<Info> outs(size_t(n.output_size()));
    if (n.domain().empty() || n.domain() == "ai.onnx") {
      cur_ = &n;
      needs_.clear();
      rules(n, outs);
      realValues(n, outs);
      for (auto& [a, b] : needs_) root_->out_.checks.push_back({n.name().empty() ? n.op_type() : n.name(), a, b});
    } else if (n.domain() == "ai.onnx.ml") {
      cur_ = &n;
      mlRules(n, outs);
    }
    for (int k = 0; k < n.output_size(); ++k) {
      const std::string& name = n.output(k);
      if (name.empty()) continue;
      Info& i = outs[size_t(k)];
      auto tooLarge = [](const std::vector<Expr>& es) {
        for (auto& e : es)
          if (e.treeSize(kMaxExprNodes) > kMaxExprNodes) return true;
        return false;
      };
      if (i.shape && tooLarge(*i.shape)) i.shape.reset();
      if (i.values && tooLarge(*i.values)) i.values.reset();
      auto known = onnxDims(name);
      // ONNX's answer stands, except where it is wrong: onnx 1.12 sizes a ceil_mode pool without dropping
      // a last window that would start in the right padding (as ONNX Runtime and PyTorch do), and what ONNX
      // then inferred after that value is off too. There DCW's dims win, as far as DCW computes them.
      bool ours = false;
      if (known && i.shape && *known != *i.shape) {
        bool ceilPool = (n.op_type() == "MaxPool" || n.op_type() == "AveragePool" || n.op_type() == "LpPool") &&
                        attrOf(n, "ceil_mode") != 0;
        for (int k2 = 0; k2 < n.input_size() && !ceilPool; ++k2) ceilPool = root_->corrected_.count(n.input(k2)) > 0;
        ours = ceilPool;
      }
      if (ours) {
        root_->corrected_.insert(name);
        root_->out_.shapes[name] = *i.shape;
      } else if (known) {
        i.shape = known;
      } else if (i.shape) {
        root_->out_.shapes[name] = *i.shape;
      }
      if (i.values && i.shape) {
        auto count = constOf(product(*i.shape));
        if (!count || *count != int64_t(i.values->size())) i.values.reset();
      }
      info_[name] = std::move(i);
    }
  }

  // Values computed from a float tensor's are a float tensor's, except through a Cast to an integer
  // type; a Cast to a float type makes them so. Exact `/` and `%` on them are not integer arithmetic:
  // their values are dropped.
  void realValues(const NodeProto& n, std::vector<Info>& o) const {
    const std::string& op = n.op_type();
    bool real = false;
    for (int k = 0; k < n.input_size(); ++k)
      if (const Info* i = in(k)) real = real || (i->real && i->values);
    if (op == "Cast") {
      const int64_t to = attrI("to", 0);
      real = to == TensorProto::FLOAT || to == TensorProto::DOUBLE || to == TensorProto::FLOAT16 || to == TensorProto::BFLOAT16;
      if (real && !o.empty() && !o[0].values)
        if (auto v = values(0)) o[0].values = v;
    }
    if (op == "CastLike" && present(1)) real = in(1) && in(1)->real;
    if (real && (op == "Div" || op == "Mod" || op == "Pow" || op == "Reciprocal" || op == "Sqrt")) {
      for (auto& i : o) i.values.reset();
      return;
    }
    for (auto& i : o)
      if (i.values) i.real = real;
  }

  static int64_t attrOf(const NodeProto& n, const char* name) {
    for (auto& a : n.attribute())
      if (a.name() == name && a.type() == AttributeProto::INT) return a.i();
    return 0;
  }

  // ---- operands and attributes of the node being visited
  const NodeProto* cur_ = nullptr;

  const Info* in(int k) const {
    if (k >= cur_->input_size() || cur_->input(k).empty()) return nullptr;
    return lookup(cur_->input(k));
  }
  bool present(int k) const { return k < cur_->input_size() && !cur_->input(k).empty(); }
  std::optional<Dims> shape(int k) const {
    const Info* i = in(k);
    return i ? i->shape : std::nullopt;
  }
  std::optional<std::vector<Expr>> values(int k) const {
    const Info* i = in(k);
    return i ? i->values : std::nullopt;
  }
  const AttributeProto* attr(const char* name) const {
    for (auto& a : cur_->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attrI(const char* name, int64_t fallback) const {
    const AttributeProto* a = attr(name);
    return a && a->type() == AttributeProto::INT ? a->i() : fallback;
  }
  std::optional<std::vector<int64_t>> attrInts(const char* name) const {
    const AttributeProto* a = attr(name);
    if (!a || a->type() != AttributeProto::INTS) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  std::optional<std::vector<float>> attrFloats(const char* name) const {
    const AttributeProto* a = attr(name);
    if (!a || a->type() != AttributeProto::FLOATS) return std::nullopt;
    return std::vector<float>(a->floats().begin(), a->floats().end());
  }
  std::string attrS(const char* name, const std::string& fallback) const {
    const AttributeProto* a = attr(name);
    return a && a->type() == AttributeProto::STRING ? a->s() : fallback;
  }
  // Axes from an attribute (older opsets) or from input k (newer ones), normalized to rank r.
  std::optional<std::vector<int64_t>> axes(int k, int64_t r) const {
    std::optional<std::vector<int64_t>> a = attrInts("axes");
    if (!a && present(k)) a = constInts(values(k));
    if (!a) return std::nullopt;
    for (auto& x : *a) {
      if (x < 0) x += r;
      if (x < 0 || x >= r) return std::nullopt;
    }
    return a;
  }
  std::optional<std::vector<float>> floatValues(int k) const {
    if (!present(k)) return std::nullopt;
    for (auto& t : g_.initializer())
      if (t.name() == cur_->input(k) && t.data_type() == TensorProto::FLOAT) {
        TensorProto copy = t;
        auto v = tensorFromOnnx(copy, t.name(), true);
        if (!v || !v->bytes || v->elementCount() > int64_t(kMaxValues)) return std::nullopt;
        std::vector<float> f(size_t(v->elementCount()));
        if (!f.empty()) std::memcpy(f.data(), v->bytes->data(), f.size() * sizeof(float));
        return f;
      }
    return std::nullopt;
  }

  // ---- the rules: dims (and, for integer shape arithmetic, values) of the node's outputs
  void rules(const NodeProto& n, std::vector<Info>& o) {
    static const std::set<std::string> kSameShape = {
        "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Erf", "Dropout", "Softmax", "LogSoftmax", "Hardmax",
        "LeakyRelu", "Elu", "Selu", "HardSigmoid", "HardSwish", "Clip", "Softplus", "Softsign", "Not", "Floor", "Ceil",
        "Round", "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
        "BatchNormalization", "InstanceNormalization", "LRN", "CumSum", "Trilu", "IsNaN", "IsInf", "Sign", "Shrink",
        "ThresholdedRelu", "Celu", "Mish", "LpNormalization", "MeanVarianceNormalization", "QuantizeLinear",
        "DequantizeLinear", "ScatterElements", "ScatterND", "Scatter", "Gelu", "BitwiseNot", "Neg", "Abs", "Identity",
        "Cast", "CastLike", "LayerNormalization", "Bernoulli", "RandomNormalLike", "RandomUniformLike",
        "PRelu"}; // PRelu: the slope broadcasts to X (along the channels in old opsets)
    static const std::set<std::string> kBroadcast = {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater",
                                                     "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "Max",
                                                     "Min", "Sum", "Mean", "BitShift", "BitwiseAnd",
                                                     "BitwiseOr", "BitwiseXor"};
    const std::string& op = n.op_type();
    auto x = shape(0);
    if (kSameShape.count(op)) {
      if (!x || o.empty()) return;
      o[0].shape = x;
      if (op == "Dropout" && o.size() > 1) o[1].shape = x;
      if (op == "LayerNormalization" && o.size() > 1) {
        int64_t r = int64_t(x->size()), axis = attrI("axis", -1);
        if (axis < 0) axis += r;
        Dims stat(x->begin(), x->begin() + std::clamp<int64_t>(axis, 0, r));
        stat.resize(size_t(r), Expr(1));
        for (size_t k = 1; k < o.size(); ++k) o[k].shape = stat;
      }
      if (auto v = values(0)) {
        if (op == "Identity") o[0].values = v;
        if (op == "Cast" || op == "CastLike") {
          int64_t to = attrI("to", 0);
          if (op == "CastLike" || to == TensorProto::INT64 || to == TensorProto::INT32) o[0].values = v;
          if (to == TensorProto::BOOL && allConst(*v)) {
            o[0].values = v;
            for (auto& e : *o[0].values) e = Expr(int64_t(*e.constantValue() != 0));
          }
        }
        if (op == "Not" && allConst(*v)) {
          o[0].values = v;
          for (auto& e : *o[0].values) e = Expr(int64_t(*e.constantValue() == 0));
        }
        if (op == "Neg") {
          o[0].values = v;
          for (auto& e : *o[0].values) e = -e;
        }
        if (op == "Abs" && allConst(*v)) {
          o[0].values = v;
          for (auto& e : *o[0].values) e = Expr(std::abs(*e.constantValue()));
        }
      }
      return;
    }
    if (kBroadcast.count(op)) return broadcasting(n, o);
    if (op == "If") return branches(n, o);
    if (op == "Loop") return loopScans(n, o);
    if (op == "Constant") return constant(o);
    if (op == "Shape" || op == "Size") {
      if (!x) return;
      if (op == "Size") {
        o[0].shape = Dims{};
        o[0].values = std::vector<Expr>{product(*x)};
        return;
      }
      int64_t r = int64_t(x->size()), s = attrI("start", 0), e = attrI("end", r);
      if (s < 0) s += r;
      if (e < 0) e += r;
      s = std::clamp<int64_t>(s, 0, r);
      e = std::clamp<int64_t>(e, s, r);
      o[0].values = std::vector<Expr>(x->begin() + s, x->begin() + e);
      o[0].shape = Dims{Expr(e - s)};
      return;
    }
    if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
      auto a = x, b = shape(op == "QLinearMatMul" ? 3 : 1);
      if (!a || !b || a->empty() || b->empty()) return;
      Dims r;
      if (a->size() == 1 && b->size() == 1) r = {};
      else if (a->size() == 1) {
        r.assign(b->begin(), b->end() - 2);
        r.push_back(b->back());
      } else if (b->size() == 1) r.assign(a->begin(), a->end() - 1);
      else {
        r = broadcastShapes(Dims(a->begin(), a->end() - 2), Dims(b->begin(), b->end() - 2), needs_);
        r.push_back((*a)[a->size() - 2]);
        r.push_back(b->back());
      }
      o[0].shape = r;
      return;
    }
    if (op == "Gemm") {
      auto a = x, b = shape(1);
      if (!a || !b || a->size() != 2 || b->size() != 2) return;
      o[0].shape = Dims{attrI("transA", 0) ? (*a)[1] : (*a)[0], attrI("transB", 0) ? (*b)[0] : (*b)[1]};
      return;
    }
    if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv" || op == "ConvTranspose") return convolution(n, o);
    if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") return pool(o);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
      if (!x || x->size() < 2) return;
      Dims r(x->begin(), x->begin() + 2);
      r.resize(x->size(), Expr(1));
      o[0].shape = r;
      return;
    }
    if (op == "Reshape") return reshape(o);
    if (op == "Flatten") {
      if (!x) return;
      int64_t r = int64_t(x->size()), axis = attrI("axis", 1);
      if (axis < 0) axis += r;
      if (axis < 0 || axis > r) return;
      o[0].shape = Dims{product(*x, 0, size_t(axis)), product(*x, size_t(axis))};
      o[0].values = values(0);
      return;
    }
    if (op == "Transpose") {
      if (!x) return;
      auto perm = attrInts("perm");
      Dims r;
      if (!perm)
        r.assign(x->rbegin(), x->rend());
      else {
        if (perm->size() != x->size()) return;
        for (auto p : *perm) {
          if (p < 0 || p >= int64_t(x->size())) return;
          r.push_back((*x)[size_t(p)]);
        }
      }
      o[0].shape = r;
      auto v = values(0);
      auto dims = numbers(*x);
      if (v && dims && int64_t(v->size()) == constOf(product(*x)).value_or(-1)) {
        std::vector<int64_t> order;
        for (size_t k = 0; k < x->size(); ++k) order.push_back(perm ? (*perm)[k] : int64_t(x->size() - 1 - k));
        std::vector<int64_t> outDims, strides(dims->size(), 1);
        for (size_t k = dims->size(); k-- > 1;) strides[k - 1] = strides[k] * (*dims)[k];
        for (auto p : order) outDims.push_back((*dims)[size_t(p)]);
        std::vector<Expr> t;
        std::vector<int64_t> at(outDims.size(), 0);
        for (size_t n = 0; n < v->size(); ++n) {
          int64_t src = 0;
          for (size_t k = 0; k < order.size(); ++k) src += at[k] * strides[size_t(order[k])];
          t.push_back((*v)[size_t(src)]);
          for (size_t k = outDims.size(); k-- > 0;) {
            if (++at[k] < outDims[k]) break;
            at[k] = 0;
          }
        }
        o[0].values = t;
      }
      return;
    }
    if (op == "Squeeze") {
      if (!x) return;
      std::optional<std::vector<int64_t>> ax = axes(1, int64_t(x->size()));
      Dims r;
      for (size_t i = 0; i < x->size(); ++i) {
        bool drop;
        if (ax) drop = std::find(ax->begin(), ax->end(), int64_t(i)) != ax->end();
        else if (auto c = constOf((*x)[i])) drop = *c == 1;
        else return; // squeezing every 1 of a symbolic shape: unknown which
        if (!drop) r.push_back((*x)[i]);
      }
      o[0].shape = r;
      o[0].values = values(0);
      return;
    }
    if (op == "Unsqueeze") {
      if (!x) return;
      int64_t r = int64_t(x->size());
      std::optional<std::vector<int64_t>> ax = attrInts("axes");
      if (!ax && present(1)) ax = constInts(values(1));
      if (!ax) return;
      int64_t outRank = r + int64_t(ax->size());
      std::vector<bool> isNew(size_t(outRank), false);
      for (auto a : *ax) {
        if (a < 0) a += outRank;
        if (a < 0 || a >= outRank) return;
        isNew[size_t(a)] = true;
      }
      Dims d;
      size_t k = 0;
      for (int64_t i = 0; i < outRank; ++i) d.push_back(isNew[size_t(i)] ? Expr(1) : (k < x->size() ? (*x)[k++] : Expr(1)));
      o[0].shape = d;
      o[0].values = values(0);
      return;
    }
    if (op == "Concat") {
      int64_t axis = attrI("axis", 0);
      std::optional<Dims> r;
      std::vector<Expr> vals;
      bool haveValues = true;
      for (int k = 0; k < n.input_size(); ++k) {
        auto s = shape(k);
        if (!s) return;
        int64_t rank = int64_t(s->size()), a = axis < 0 ? axis + rank : axis;
        if (a < 0 || a >= rank) return;
        if (!r) r = s;
        else {
          if (r->size() != s->size()) return;
          (*r)[size_t(a)] = (*r)[size_t(a)] + (*s)[size_t(a)];
        }
        auto v = values(k);
        if (v && rank == 1) vals.insert(vals.end(), v->begin(), v->end());
        else haveValues = false;
      }
      o[0].shape = r;
      if (haveValues) o[0].values = vals;
      return;
    }
    if (op == "Split") return split(n, o);
    if (op == "Slice") return slice(o);
    if (op == "Gather") {
      auto idx = shape(1);
      if (!x || !idx) return;
      int64_t r = int64_t(x->size()), axis = attrI("axis", 0);
      if (axis < 0) axis += r;
      if (axis < 0 || axis >= r) return;
      Dims d(x->begin(), x->begin() + axis);
      d.insert(d.end(), idx->begin(), idx->end());
      d.insert(d.end(), x->begin() + axis + 1, x->end());
      o[0].shape = d;
      auto v = values(0);
      auto iv = constInts(values(1));
      if (v && iv && r == 1) {
        std::vector<Expr> g;
        for (auto i : *iv) {
          if (i < 0) i += int64_t(v->size());
          if (i < 0 || i >= int64_t(v->size())) return;
          g.push_back((*v)[size_t(i)]);
        }
        o[0].values = g;
      }
      return;
    }
    if (op == "GatherElements") {
      o[0].shape = shape(1);
      return;
    }
    if (op == "GatherND") { // indices[..., m] pick slices of data after its batch dims
      auto idx = shape(1);
      const int64_t b = attrI("batch_dims", 0);
      if (!x || !idx || idx->empty()) return;
      auto m = constOf(idx->back());
      if (!m || b < 0 || b + *m > int64_t(x->size())) return;
      Dims d(idx->begin(), idx->end() - 1);
      d.insert(d.end(), x->begin() + b + *m, x->end());
      o[0].shape = d;
      return;
    }
    if (op == "Expand") {
      auto target = values(1);
      if (!x || !target) return;
      o[0].shape = broadcastShapes(*x, *target, needs_);
      return;
    }
    if (op == "Tile") {
      auto reps = values(1);
      if (!x || !reps || reps->size() != x->size()) return;
      Dims d;
      for (size_t i = 0; i < x->size(); ++i) d.push_back((*x)[i] * (*reps)[i]);
      o[0].shape = d;
      return;
    }
    if (op == "Pad") {
      std::optional<std::vector<int64_t>> pads = attrInts("pads");
      if (!pads && present(1)) pads = constInts(values(1));
      if (!x || !pads) return;
      size_t r = x->size();
      std::vector<int64_t> axesList;
      if (present(3)) {
        auto ax = constInts(values(3));
        if (!ax) return;
        axesList = *ax;
      } else
        for (size_t i = 0; i < r; ++i) axesList.push_back(int64_t(i));
      if (pads->size() != 2 * axesList.size()) return;
      Dims d = *x;
      for (size_t i = 0; i < axesList.size(); ++i) {
        int64_t a = axesList[i] < 0 ? axesList[i] + int64_t(r) : axesList[i];
        if (a < 0 || a >= int64_t(r)) return;
        d[size_t(a)] = d[size_t(a)] + Expr((*pads)[i] + (*pads)[i + axesList.size()]);
      }
      o[0].shape = d;
      return;
    }
    if (op == "Resize" || op == "Upsample") return resize(o);
    if (op.rfind("Reduce", 0) == 0 || op == "ArgMax" || op == "ArgMin") return reduction(n, o);
    if (op == "NonZero" || op == "Compress" || op == "Unique" || op == "NonMaxSuppression") return dataDependent(n, o);
    if (op == "TopK") {
      auto k = constInts(values(1));
      if (!x || !k || k->size() != 1) return;
      int64_t r = int64_t(x->size()), axis = attrI("axis", -1);
      if (axis < 0) axis += r;
      if (axis < 0 || axis >= r) return;
      Dims d = *x;
      d[size_t(axis)] = Expr((*k)[0]);
      for (auto& i : o) i.shape = d;
      return;
    }
    if (op == "ConstantOfShape") {
      auto v = values(0);
      if (!v) return;
      o[0].shape = *v;
      // An integer fill (0 by default is float: only a `value` attribute of an integer type is followed).
      auto count = constOf(product(*v));
      if (const AttributeProto* a = attr("value"); a && a->type() == AttributeProto::TENSOR && count && *count <= int64_t(kMaxValues)) {
        TensorProto copy = a->t();
        if (auto t = tensorFromOnnx(copy, "value", true))
          if (auto ints = intValues(*t); ints && ints->size() == 1) o[0].values = std::vector<Expr>(size_t(*count), Expr((*ints)[0]));
      }
      return;
    }
    if (op == "Range") {
      auto s = values(0), l = values(1), d = values(2);
      if (!s || !l || !d || s->size() != 1 || l->size() != 1 || d->size() != 1) return;
      auto delta = constOf((*d)[0]);
      if (!delta || *delta == 0) return;
      Expr len = atLeastZero(sym::ceilDiv((*l)[0] - (*s)[0], Expr(*delta)));
      o[0].shape = Dims{len};
      if (auto c = constOf(len); c && *c <= int64_t(kMaxValues)) {
        std::vector<Expr> vals;
        for (int64_t i = 0; i < *c; ++i) vals.push_back((*s)[0] + Expr(i * *delta));
        o[0].values = vals;
      }
      return;
    }
    if (op == "DepthToSpace" || op == "SpaceToDepth") {
      int64_t b = attrI("blocksize", 0);
      if (!x || x->size() != 4 || b <= 0) return;
      const Dims& s = *x;
      if (op == "DepthToSpace") o[0].shape = Dims{s[0], divideDims(s[1], Expr(b * b)), s[2] * Expr(b), s[3] * Expr(b)};
      else o[0].shape = Dims{s[0], s[1] * Expr(b * b), divideDims(s[2], Expr(b)), divideDims(s[3], Expr(b))};
      return;
    }
    if (op == "LSTM" || op == "GRU" || op == "RNN") {
      int64_t hidden = attrI("hidden_size", 0), layout = attrI("layout", 0);
      if (!x || x->size() != 3 || hidden <= 0) return;
      Expr dirs(attrS("direction", "forward") == "bidirectional" ? 2 : 1);
      Expr seq = layout ? (*x)[1] : (*x)[0], batch = layout ? (*x)[0] : (*x)[1], h(hidden);
      if (o.size() > 0) o[0].shape = layout ? Dims{batch, seq, dirs, h} : Dims{seq, dirs, batch, h};
      for (size_t k = 1; k < o.size(); ++k) o[k].shape = layout ? Dims{batch, dirs, h} : Dims{dirs, batch, h};
      return;
    }
  }

  // Loop whose condition stays true (no condition, or a constant true one, and a body that passes it on
  // unchanged or sets it to a constant true) runs M times: each scan output has M rows — M's value, a
  // number or an input's value symbol (`M_value`) — and the dims ONNX infers for the rest.
  void loopScans(const NodeProto& n, std::vector<Info>& o) {
    const GraphProto* body = nullptr;
    for (auto& a : n.attribute())
      if (a.name() == "body" && a.type() == AttributeProto::GRAPH) body = &a.g();
    if (!body || n.input_size() < 2 || !present(0) || body->input_size() < 2 || body->output_size() < 1) return;
    auto m = values(0);
    if (!m || m->size() != 1) return;
    if (present(1)) {
      auto c = constInts(values(1));
      if (!c || c->size() != 1 || (*c)[0] == 0) return;
    }
    const std::string& condIn = body->input(1).name();
    const std::string& condOut = body->output(0).name();
    bool staysTrue = condOut == condIn;
    for (auto& b : body->node()) {
      if (b.output_size() != 1 || b.output(0) != condOut) continue;
      if (b.op_type() == "Identity" && b.input_size() == 1 && b.input(0) == condIn) staysTrue = true;
      if (b.op_type() == "Constant")
        for (auto& a : b.attribute())
          if (a.name() == "value" && a.has_t() && a.t().data_type() == TensorProto::BOOL)
            staysTrue = (a.t().int32_data_size() == 1 && a.t().int32_data(0) != 0) || (a.t().raw_data().size() == 1 && a.t().raw_data()[0] != 0);
    }
    if (!staysTrue) return;
    const size_t carried = size_t(n.input_size() - 2);
    for (size_t k = carried; k < o.size(); ++k) {
      auto it = onnxTypes_.find(n.output(int(k)));
      if (it == onnxTypes_.end() || !it->second->has_tensor_type() || !it->second->tensor_type().has_shape()) continue;
      const auto& dims = it->second->tensor_type().shape().dim();
      if (dims.size() < 1) continue;
      Dims d{(*m)[0]};
      for (int q = 1; q < dims.size(); ++q) {
        if (dims[q].has_dim_value() && dims[q].dim_value() >= 0) d.emplace_back(dims[q].dim_value());
        else if (dims[q].has_dim_param() && root_->params_.count(dims[q].dim_param())) d.push_back(param(dims[q].dim_param()));
        else break;
      }
      if (int(d.size()) == dims.size()) o[k].shape = d;
    }
  }

  // If: each branch walked with this graph's values in view; an output whose dims both branches agree
  // on has them.
  void branches(const NodeProto& n, std::vector<Info>& o) {
    const GraphProto* then = nullptr;
    const GraphProto* otherwise = nullptr;
    for (auto& a : n.attribute())
      if (a.type() == AttributeProto::GRAPH) (a.name() == "then_branch" ? then : otherwise) = &a.g();
    if (!then || !otherwise) return;
    Walker a(*then, opset_, this), b(*otherwise, opset_, this);
    const NodeProto* self = cur_;
    std::optional<bool> decided;
    if (auto c = constInts(values(0)); c && c->size() == 1) decided = (*c)[0] != 0;
    if (!decided || *decided) a.walk();
    if (!decided || !*decided) b.walk();
    cur_ = self;
    if (decided && n.output_size() > 0) root_->out_.decidedIfs[n.output(0)] = *decided;
    for (size_t k = 0; k < o.size(); ++k) {
      if (int(k) >= then->output_size() || int(k) >= otherwise->output_size()) break;
      const Info* x = a.lookup(then->output(int(k)).name());
      const Info* y = b.lookup(otherwise->output(int(k)).name());
      if (decided) {
        if (const Info* taken = *decided ? x : y) o[k] = *taken;
      } else if (x && y && x->shape && y->shape && *x->shape == *y->shape) {
        o[k].shape = x->shape;
      }
    }
  }

  void constant(std::vector<Info>& o) {
    if (const AttributeProto* a = attr("value"); a && a->type() == AttributeProto::TENSOR) {
      Dims d;
      for (auto x : a->t().dims()) d.emplace_back(x);
      o[0].shape = d;
      TensorProto copy = a->t();
      if (auto v = tensorFromOnnx(copy, "value", true); v && v->elementCount() <= int64_t(kMaxValues))
        if (auto ints = intValues(*v)) o[0].values = std::vector<Expr>(ints->begin(), ints->end());
    } else if (auto v = attrInts("value_ints")) {
      o[0].shape = Dims{Expr(int64_t(v->size()))};
      o[0].values = std::vector<Expr>(v->begin(), v->end());
    } else if (attr("value_int")) {
      o[0].shape = Dims{};
      o[0].values = std::vector<Expr>{Expr(attrI("value_int", 0))};
    }
  }

  void broadcasting(const NodeProto& n, std::vector<Info>& o) {
    const std::string& op = n.op_type();
    // Before opset 7, `broadcast` aligns B with A at `axis`: the output has A's shape.
    if (opset_ < 7 && attr("broadcast")) {
      if (auto a = shape(0); a && !o.empty()) o[0].shape = a;
      return;
    }
    std::optional<Dims> r;
    for (int k = 0; k < n.input_size(); ++k) {
      if (!present(k)) continue;
      auto s = shape(k);
      if (!s) return;
      r = r ? broadcastShapes(*r, *s, needs_) : *s;
    }
    if (!r || o.empty()) return;
    o[0].shape = r;
    // Integer shape arithmetic: elementwise on the values, a single value broadcast.
    auto count = constOf(product(*r));
    if (!count || *count > int64_t(kMaxValues)) return;
    std::vector<std::vector<Expr>> vs;
    for (int k = 0; k < n.input_size(); ++k) {
      auto v = values(k);
      if (!v || (v->size() != 1 && int64_t(v->size()) != *count)) return;
      vs.push_back(*v);
    }
    auto at = [&](size_t k, int64_t i) -> const Expr& { return vs[k].size() == 1 ? vs[k][0] : vs[k][size_t(i)]; };
    std::vector<Expr> res;
    for (int64_t i = 0; i < *count; ++i) {
      std::optional<Expr> e;
      if (vs.size() == 2 || (op == "Where" && vs.size() == 3) || ((op == "Max" || op == "Min" || op == "Sum") && !vs.empty())) {
        const Expr& a = at(0, i);
        if (op == "Add") e = a + at(1, i);
        else if (op == "Sub") e = a - at(1, i);
        else if (op == "Mul") e = a * at(1, i);
        else if (op == "Div") {
          if (auto d = constOf(at(1, i)); d && *d != 0) {
            if (auto c = constOf(a)) e = Expr(*c / *d); // ONNX integer division truncates
            else e = divideDims(a, at(1, i));
          }
        } else if (op == "Mod" && constOf(a) && constOf(at(1, i)) && *constOf(at(1, i)) != 0) {
          e = Expr(*constOf(a) % *constOf(at(1, i)));
        } else if (op == "Equal" || op == "Less" || op == "Greater") {
          auto ca = constOf(a), cb = constOf(at(1, i));
          if (ca && cb) e = Expr(int64_t(op == "Equal" ? *ca == *cb : op == "Less" ? *ca < *cb : *ca > *cb));
          else if (op == "Equal" && a == at(1, i)) e = Expr(1);
        } else if (op == "Where") {
          if (auto c = constOf(a)) e = *c ? at(1, i) : at(2, i);
        } else if (op == "Max" || op == "Min" || op == "Sum") {
          e = a;
          for (size_t k = 1; k < vs.size(); ++k)
            e = op == "Max" ? sym::max(*e, at(k, i)) : op == "Min" ? sym::min(*e, at(k, i)) : *e + at(k, i);
        }
      }
      if (!e) return;
      res.push_back(*e);
    }
    o[0].values = res;
  }

  // Output size of a sliding window along one dim (ONNX's formula; ceil_mode for pools).
  static Expr windowOut(const Expr& in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe, const std::string& autoPad,
                        bool ceil) {
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") return sym::ceilDiv(in, Expr(s));
    int64_t ext = d * (k - 1) + 1;
    if (autoPad == "VALID") return sym::floorDiv(in - Expr(ext), Expr(s)) + Expr(1);
    Expr span = in + Expr(pb + pe - ext);
    if (!ceil) return sym::floorDiv(span, Expr(s)) + Expr(1);
    Expr out = sym::ceilDiv(span, Expr(s)) + Expr(1);
    // The last window must start inside the input or its left padding.
    if (auto c = constOf(out); c && constOf(in) && (*c - 1) * s >= *constOf(in) + pb) return Expr(*c - 1);
    if (constOf(in)) return out;
    // A symbolic dim. The last window starts at s * ceil(span / s) <= span + s - 1 = in + pb + pe - ext + s - 1,
    // which is inside the input or its left padding whenever pe + s <= ext (a window at least as wide as the
    // stride plus the right padding: every pool exporters write).
    if (pe + s <= ext) return out;
    // Otherwise the window that would start past the input is dropped where the dims say so.
    const Expr start = (out - Expr(1)) * Expr(s), limit = in + Expr(pb);
    if (sym::proveLess(start, limit, dimsOf(start, limit)) == true) return out;
    return out - sym::ge(start, limit);
  }

  void convolution(const NodeProto& n, std::vector<Info>& o) {
    const std::string& op = n.op_type();
    auto x = shape(0);
    auto w = shape(op == "QLinearConv" ? 3 : 1);
    if (!x || !w || x->size() < 3 || w->size() != x->size()) return;
    size_t nd = x->size() - 2;
    std::vector<int64_t> kernel;
    if (auto k = attrInts("kernel_shape")) kernel = *k;
    else
      for (size_t i = 2; i < w->size(); ++i) {
        auto c = constOf((*w)[i]);
        if (!c) return;
        kernel.push_back(*c);
      }
    if (kernel.size() != nd) return;
    auto strides = attrInts("strides").value_or(std::vector<int64_t>(nd, 1));
    auto dil = attrInts("dilations").value_or(std::vector<int64_t>(nd, 1));
    auto pads = attrInts("pads").value_or(std::vector<int64_t>(2 * nd, 0));
    if (strides.size() != nd || dil.size() != nd || pads.size() != 2 * nd) return;
    std::string autoPad = attrS("auto_pad", "NOTSET");
    int64_t group = attrI("group", 1);
    Dims d{(*x)[0], op == "ConvTranspose" ? (*w)[1] * Expr(group) : (*w)[0]};
    if (op == "ConvTranspose") {
      auto outPad = attrInts("output_padding").value_or(std::vector<int64_t>(nd, 0));
      auto outShape = attrInts("output_shape");
      if (outPad.size() != nd) return;
      for (size_t i = 0; i < nd; ++i) {
        const Expr& in = (*x)[i + 2];
        if (outShape && outShape->size() == nd) d.emplace_back((*outShape)[i]);
        else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") d.push_back(in * Expr(strides[i]));
        else
          d.push_back(Expr(strides[i]) * (in - Expr(1)) + Expr(outPad[i] + (kernel[i] - 1) * dil[i] + 1 - pads[i] - pads[i + nd]));
      }
    } else {
      for (size_t i = 0; i < nd; ++i)
        d.push_back(windowOut((*x)[i + 2], kernel[i], strides[i], dil[i], pads[i], pads[i + nd], autoPad, false));
    }
    o[0].shape = d;
  }

  void pool(std::vector<Info>& o) {
    auto x = shape(0);
    auto kernel = attrInts("kernel_shape");
    if (!x || x->size() < 3 || !kernel || kernel->size() != x->size() - 2) return;
    size_t nd = kernel->size();
    auto strides = attrInts("strides").value_or(std::vector<int64_t>(nd, 1));
    auto dil = attrInts("dilations").value_or(std::vector<int64_t>(nd, 1));
    auto pads = attrInts("pads").value_or(std::vector<int64_t>(2 * nd, 0));
    if (strides.size() != nd || dil.size() != nd || pads.size() != 2 * nd) return;
    std::string autoPad = attrS("auto_pad", "NOTSET");
    bool ceil = attrI("ceil_mode", 0) != 0;
    Dims d{(*x)[0], (*x)[1]};
    for (size_t i = 0; i < nd; ++i) {
      d.push_back(windowOut((*x)[i + 2], (*kernel)[i], strides[i], dil[i], pads[i], pads[i + nd], autoPad, ceil));
    }
    for (auto& i : o) i.shape = d;
  }

  void reshape(std::vector<Info>& o) {
    auto x = shape(0);
    auto target = values(1);
    if (!target) {
      if (auto s = attrInts("shape")) target = std::vector<Expr>(s->begin(), s->end()); // opset 1-4
    }
    if (!x || !target) return;
    bool allowZero = attrI("allowzero", 0) != 0;
    Dims d;
    int inferred = -1;
    for (size_t i = 0; i < target->size(); ++i) {
      const Expr& t = (*target)[i];
      auto c = constOf(t);
      if (c && *c == 0 && !allowZero) {
        if (i >= x->size()) return;
        d.push_back((*x)[i]);
      } else if (c && *c == -1) {
        if (inferred >= 0) return;
        inferred = int(i);
        d.emplace_back(1);
      } else if (c && *c < 0) {
        return;
      } else {
        d.push_back(t);
      }
    }
    if (inferred >= 0) d[size_t(inferred)] = divideDims(product(*x), product(d));
    o[0].shape = d;
    o[0].values = values(0);
  }

  void split(const NodeProto& n, std::vector<Info>& o) {
    auto x = shape(0);
    if (!x) return;
    int64_t r = int64_t(x->size()), axis = attrI("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return;
    std::optional<std::vector<Expr>> parts;
    if (auto s = attrInts("split")) parts = std::vector<Expr>(s->begin(), s->end());
    else if (present(1)) parts = values(1);
    if (!parts) {
      auto cnt = int64_t(n.output_size());
      if (cnt <= 0) return;
      parts = std::vector<Expr>(size_t(cnt), divideDims((*x)[size_t(axis)], Expr(cnt)));
    }
    if (parts->size() != o.size()) return;
    for (size_t k = 0; k < o.size(); ++k) {
      Dims d = *x;
      d[size_t(axis)] = (*parts)[k];
      o[k].shape = d;
    }
  }

  void slice(std::vector<Info>& o) {
    auto x = shape(0);
    if (!x) return;
    int64_t r = int64_t(x->size());
    std::optional<std::vector<Expr>> starts, ends;
    std::optional<std::vector<int64_t>> ax, steps;
    if (opset_ < 10) {
      auto s = attrInts("starts"), e = attrInts("ends");
      if (!s || !e) return;
      starts = std::vector<Expr>(s->begin(), s->end());
      ends = std::vector<Expr>(e->begin(), e->end());
      ax = attrInts("axes");
    } else {
      starts = values(1);
      ends = values(2);
      if (present(3)) {
        ax = constInts(values(3));
        if (!ax) return;
      }
      if (present(4)) {
        steps = constInts(values(4));
        if (!steps) return;
      }
    }
    if (!starts || !ends || starts->size() != ends->size()) return;
    size_t m = starts->size();
    if (!ax) {
      ax = std::vector<int64_t>();
      for (size_t i = 0; i < m; ++i) ax->push_back(int64_t(i));
    }
    if (!steps) steps = std::vector<int64_t>(m, 1);
    if (ax->size() != m || steps->size() != m) return;
    Dims d = *x;
    for (size_t i = 0; i < m; ++i) {
      int64_t a = (*ax)[i] < 0 ? (*ax)[i] + r : (*ax)[i];
      if (a < 0 || a >= r || (*steps)[i] == 0) return;
      auto len = sliceLength((*x)[size_t(a)], (*starts)[i], (*ends)[i], (*steps)[i]);
      if (!len) return;
      d[size_t(a)] = *len;
    }
    o[0].shape = d;
    auto v = values(0);
    auto s = constInts(starts), e = constInts(ends);
    auto dims = numbers(*x);
    if (v && s && e && dims && int64_t(v->size()) == constOf(product(*x)).value_or(-1)) {
      std::vector<std::vector<int64_t>> keep;
      for (int64_t n : *dims) {
        keep.emplace_back();
        for (int64_t i = 0; i < n; ++i) keep.back().push_back(i);
      }
      for (size_t i = 0; i < m; ++i) {
        int64_t a = (*ax)[i] < 0 ? (*ax)[i] + r : (*ax)[i], n = (*dims)[size_t(a)], b = (*s)[i], end = (*e)[i], step = (*steps)[i];
        if (b < 0) b += n;
        if (end < 0) end += n;
        std::vector<int64_t> idx;
        if (step > 0) {
          b = std::clamp<int64_t>(b, 0, n);
          end = std::clamp<int64_t>(end, 0, n);
          for (int64_t j = b; j < end; j += step) idx.push_back(j);
        } else {
          b = std::clamp<int64_t>(b, 0, n - 1);
          end = std::clamp<int64_t>(end, -1, n - 1);
          for (int64_t j = b; j > end; j += step) idx.push_back(j);
        }
        keep[size_t(a)] = idx;
      }
      o[0].values = gatherValues(*dims, *v, keep);
    }
  }

  // Elements a slice keeps along a dim of extent `dim`. Numbers follow ONNX's clamping exactly; a
  // symbolic dim is taken to be at least as long as a non-negative start or end.
  static std::optional<Expr> sliceLength(const Expr& dim, const Expr& start, const Expr& end, int64_t step) {
    auto cd = constOf(dim), cs = constOf(start), ce = constOf(end);
    if (cd && cs && ce) {
      int64_t n = *cd, s = *cs, e = *ce;
      if (s < 0) s += n;
      if (e < 0) e += n;
      if (step > 0) {
        s = std::clamp<int64_t>(s, 0, n);
        e = std::clamp<int64_t>(e, 0, n);
        return Expr(std::max<int64_t>(0, (e - s + step - 1) / step));
      }
      s = std::clamp<int64_t>(s, 0, n - 1);
      e = std::clamp<int64_t>(e, -1, n - 1);
      return Expr(std::max<int64_t>(0, (s - e + (-step) - 1) / (-step)));
    }
    // Bounds for a positive step in [0, dim]; for a negative one in [-1, dim - 1].
    auto norm = [&](const Expr& v, bool isEnd) -> std::optional<Expr> {
      auto c = constOf(v);
      if (!c) return atMost(v, dim); // a computed bound (non-negative, as exporters compute them)
      if (step > 0) {
        if (*c >= kBigIndex) return isEnd ? std::optional(dim) : std::nullopt;
        if (*c <= -kBigIndex) return Expr(0);
        if (*c < 0) return atLeastZero(dim + Expr(*c));
        return atMost(Expr(*c), dim);
      }
      if (*c >= kBigIndex) return isEnd ? std::nullopt : std::optional(dim - Expr(1));
      if (*c <= -kBigIndex) return isEnd ? std::optional(Expr(-1)) : std::nullopt;
      if (*c < 0) return dim + Expr(*c);
      return atMost(Expr(*c), dim - Expr(1));
    };
    auto s = norm(start, false), e = norm(end, true);
    if (!s || !e) return std::nullopt;
    if (step > 0) return atLeastZero(step == 1 ? *e - *s : sym::ceilDiv(*e - *s, Expr(step)));
    return atLeastZero(sym::ceilDiv(*s - *e, Expr(-step)));
  }

  void resize(std::vector<Info>& o) {
    auto x = shape(0);
    if (!x) return;
    const std::string& op = cur_->op_type();
    std::optional<std::vector<float>> scales;
    if (op == "Upsample") scales = attrFloats("scales");
    if (!scales) scales = floatValues(op == "Upsample" ? 1 : (opset_ >= 11 ? 2 : 1));
    if (op == "Resize" && opset_ >= 11 && present(3)) {
      auto sizes = values(3);
      if (!sizes) return;
      if (sizes->size() == x->size()) {
        o[0].shape = *sizes;
        return;
      }
      auto ax = attrInts("axes");
      if (!ax || ax->size() != sizes->size()) return;
      Dims d = *x;
      for (size_t i = 0; i < ax->size(); ++i) {
        int64_t a = (*ax)[i] < 0 ? (*ax)[i] + int64_t(x->size()) : (*ax)[i];
        if (a < 0 || a >= int64_t(x->size())) return;
        d[size_t(a)] = (*sizes)[i];
      }
      o[0].shape = d;
      return;
    }
    if (!scales || scales->size() != x->size()) return;
    Dims d;
    for (size_t i = 0; i < x->size(); ++i) {
      float s = (*scales)[i];
      const Expr& in = (*x)[i];
      if (auto c = constOf(in)) d.emplace_back(int64_t(std::floor(double(*c) * double(s))));
      else if (s >= 1 && std::floor(s) == s) d.push_back(in * Expr(int64_t(s)));
      else return;
    }
    o[0].shape = d;
  }

  void reduction(const NodeProto& n, std::vector<Info>& o) {
    auto x = shape(0);
    if (!x) return;
    int64_t r = int64_t(x->size());
    bool keep = attrI("keepdims", 1) != 0;
    const std::string& op = n.op_type();
    std::vector<int64_t> ax;
    if (op == "ArgMax" || op == "ArgMin") {
      int64_t a = attrI("axis", 0);
      if (a < 0) a += r;
      if (a < 0 || a >= r) return;
      ax = {a};
    } else {
      bool fromInput = op == "ReduceSum" ? opset_ >= 13 : opset_ >= 18;
      std::optional<std::vector<int64_t>> a = fromInput ? (present(1) ? axes(1, r) : std::optional(std::vector<int64_t>{}))
                                                        : axes(99, r);
      if (!a && !fromInput && !attr("axes")) a = std::vector<int64_t>{};
      if (!a) return;
      ax = *a;
      if (ax.empty()) {
        if (attrI("noop_with_empty_axes", 0)) {
          o[0].shape = x;
          return;
        }
        for (int64_t i = 0; i < r; ++i) ax.push_back(i);
      }
    }
    Dims d;
    for (int64_t i = 0; i < r; ++i) {
      bool reduced = std::find(ax.begin(), ax.end(), i) != ax.end();
      if (!reduced) d.push_back((*x)[size_t(i)]);
      else if (keep) d.emplace_back(1);
    }
    o[0].shape = d;
    if (op == "ReduceProd" && r == 1 && values(0) && !keep) o[0].values = std::vector<Expr>{product(*values(0))};
  }
};

} // namespace

SymbolicShapes inferSymbolicShapes(const GraphProto& g, int64_t opset) { return Walker(g, opset).run(); }

} // namespace dcw::onnx
