#include "core/onnx/ShapeArithmetic.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace dcw::onnx {

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

} // namespace

std::optional<std::vector<int64_t>> intValues(const Tensor& t) {
  auto x = intsOf(t);
  if (!x) return std::nullopt;
  return x->v;
}

std::optional<Tensor> evaluateShapeOp(const std::string& op, int64_t opsetVersion, const std::vector<Attribute>& attrs,
                                      const std::vector<ShapeOpInput>& in, const std::optional<std::vector<int64_t>>& outShape) {
  auto attr = [&](const char* name) -> const Attribute* {
    for (auto& a : attrs)
      if (a.name == name) return &a;
    return nullptr;
  };
  auto attrInt = [&](const char* name, int64_t fallback) {
    auto* a = attr(name);
    auto* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
    return v ? *v : fallback;
  };
  auto attrInts = [&](const char* name) -> std::optional<std::vector<int64_t>> {
    auto* a = attr(name);
    auto* v = a ? std::get_if<std::vector<int64_t>>(&a->value) : nullptr;
    return v ? std::optional(*v) : std::nullopt;
  };
  auto cint = [&](size_t i) -> std::optional<Ints> {
    if (i >= in.size() || !in[i].value) return std::nullopt;
    return intsOf(*in[i].value);
  };
    std::optional<Tensor> result;
    
    if (op == "Constant") {
      if (auto* a = attr("value"); a && std::holds_alternative<Tensor>(a->value)) result = std::get<Tensor>(a->value);
      else if (auto v = attrInts("value_ints")) result = tensorOf(Ints{{int64_t(v->size())}, *v, DType::Int64});
      else if (attr("value_int")) result = tensorOf(Ints{{}, {attrInt("value_int", 0)}, DType::Int64});
    } else if (op == "Shape" || op == "Size") {
      if (in.empty() || !in[0].staticShape) return std::nullopt;
      std::vector<int64_t> dims = *in[0].staticShape;
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
      if (in.empty() || !in[0].value) return std::nullopt;
      result = *in[0].value;
    } else {
      auto x = cint(0);
      if (!x) return std::nullopt;
      if (op == "Cast") {
        auto to = attrInt("to", 0);
        DType t = to == 7 ? DType::Int64 : to == 6 ? DType::Int32 : to == 9 ? DType::Bool : DType::Undefined;
        if (t == DType::Undefined) return std::nullopt;
        x->dtype = t;
        if (t == DType::Bool)
          for (auto& v : x->v) v = v != 0;
        result = tensorOf(*x);
      } else if (op == "Not") {
        if (x->dtype != DType::Bool) return std::nullopt;
        for (auto& v : x->v) v = !v;
        result = tensorOf(*x);
      } else if (op == "Neg" || op == "Abs") {
        for (auto& v : x->v) v = op == "Neg" ? -v : std::abs(v);
        result = tensorOf(*x);
      } else if (op == "Unsqueeze" || op == "Squeeze") {
        if (!outShape) return std::nullopt;
        std::vector<int64_t> dims = *outShape;
        if (count(dims) != int64_t(x->v.size())) return std::nullopt;
        x->dims = dims;
        result = tensorOf(*x);
      } else if (op == "Reshape") {
        if (!outShape) return std::nullopt;
        std::vector<int64_t> dims = *outShape;
        if (count(dims) != int64_t(x->v.size())) return std::nullopt;
        x->dims = dims;
        result = tensorOf(*x);
      } else if (op == "Gather") {
        auto idx = cint(1);
        if (!idx || x->dims.size() != 1) return std::nullopt; // 1-D data: the shape-arithmetic case
        Ints r{idx->dims, {}, x->dtype};
        for (auto i : idx->v) {
          if (i < 0) i += int64_t(x->v.size());
          if (i < 0 || i >= int64_t(x->v.size())) return std::nullopt;
          r.v.push_back(x->v[size_t(i)]);
        }
        result = tensorOf(r);
      } else if (op == "Concat") {
        Ints r{{0}, {}, x->dtype};
        for (size_t i = 0; i < in.size(); ++i) {
          auto p = cint(i);
          if (!p || p->dims.size() != 1) return std::nullopt;
          r.v.insert(r.v.end(), p->v.begin(), p->v.end());
        }
        r.dims = {int64_t(r.v.size())};
        result = tensorOf(r);
      } else if (op == "Slice" && opsetVersion >= 10) {
        auto starts = cint(1), ends = cint(2);
        if (!starts || !ends || x->dims.size() != 1 || starts->v.size() != 1 || ends->v.size() != 1) return std::nullopt;
        if (in.size() > 3 && in[3].present && (!cint(3) || cint(3)->v != std::vector<int64_t>{0})) return std::nullopt;
        int64_t step = 1;
        if (in.size() > 4 && in[4].present) {
          auto s = cint(4);
          if (!s || s->v.size() != 1) return std::nullopt;
          step = s->v[0];
        }
        if (step != 1) return std::nullopt;
        int64_t len = int64_t(x->v.size()), b = starts->v[0], e = ends->v[0];
        if (b < 0) b += len;
        if (e < 0) e += len;
        b = std::clamp<int64_t>(b, 0, len);
        e = std::clamp<int64_t>(e, 0, len);
        Ints r{{std::max<int64_t>(0, e - b)}, std::vector<int64_t>(x->v.begin() + b, x->v.begin() + std::max(b, e)), x->dtype};
        result = tensorOf(r);
      } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Equal") {
        auto y = cint(1);
        if (!y) return std::nullopt;
        std::function<std::optional<int64_t>(int64_t, int64_t)> f;
        // A result past int64 is not folded (the op then runs, wrapping as the model's integer type does).
        // `op` writes a + b (or -, *) and says whether it overflowed; nullopt then.
        auto checked = [](auto op) {
          return [op](int64_t a, int64_t b) -> std::optional<int64_t> {
            int64_t v;
            if (op(a, b, &v)) return std::nullopt;
            return v;
          };
        };
        if (op == "Add") f = checked([](int64_t a, int64_t b, int64_t* v) { return __builtin_add_overflow(a, b, v); });
        if (op == "Sub") f = checked([](int64_t a, int64_t b, int64_t* v) { return __builtin_sub_overflow(a, b, v); });
        if (op == "Mul") f = checked([](int64_t a, int64_t b, int64_t* v) { return __builtin_mul_overflow(a, b, v); });
        if (op == "Div")
          f = [](int64_t a, int64_t b) { return b == 0 || (a == INT64_MIN && b == -1) ? std::nullopt : std::optional(a / b); };
        if (op == "Equal") f = [](int64_t a, int64_t b) { return std::optional<int64_t>(a == b); };
        auto r = broadcast(*x, *y, op == "Equal" ? DType::Bool : x->dtype, f);
        if (!r) return std::nullopt;
        result = tensorOf(*r);
      } else if (op == "Where") {
        auto a = cint(1), b = cint(2);
        if (!a || !b) return std::nullopt;
        auto ca = broadcast(*x, *a, a->dtype, [](int64_t c, int64_t v) { return std::optional(c ? v : INT64_MIN); });
        if (!ca) return std::nullopt;
        auto r = broadcast(*ca, *b, a->dtype, [](int64_t v, int64_t w) { return std::optional(v == INT64_MIN ? w : v); });
        if (!r) return std::nullopt;
        result = tensorOf(*r);
      } else if (op == "ConstantOfShape") {
        int64_t total = count(x->v);
        if (total > kMaxFoldedElements || total < 0) return std::nullopt;
        Tensor t;
        t.dtype = DType::Float32;
        std::string one(4, '\0');
        if (auto* a = attr("value"); a && std::holds_alternative<Tensor>(a->value)) {
          const Tensor& v = std::get<Tensor>(a->value);
          if (!v.bytes || v.elementCount() != 1) return std::nullopt;
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
        if (!l || !d || x->v.size() != 1 || d->v[0] == 0) return std::nullopt;
        Ints r{{0}, {}, x->dtype};
        for (int64_t v = x->v[0]; d->v[0] > 0 ? v < l->v[0] : v > l->v[0]; v += d->v[0]) {
          r.v.push_back(v);
          if (int64_t(r.v.size()) > kMaxFoldedElements) return std::nullopt;
        }
        r.dims = {int64_t(r.v.size())};
        result = tensorOf(r);
      } else if (op == "ReduceProd" && x->dims.size() == 1 && attrInt("keepdims", 1) == 0 && !attr("axes")) {
        int64_t p = 1;
        for (auto v : x->v) p *= v;
        result = tensorOf(Ints{{}, {p}, x->dtype});
      }
    }
  return result;
}

} // namespace dcw::onnx
