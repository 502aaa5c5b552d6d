#include "core/expansions/ops/TensorHelpers.h"

#include <map>
#include <optional>

#include <cmath>
#include <cstdio>
#include <limits>

namespace dcw::expansions::th {

using namespace dcw::ir;
using sym::Expr;

std::optional<int64_t> normAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

namespace {

std::optional<std::string> taskletInt(const Expr& e, const sym::Assumptions& dims) {
  using sym::Op;
  auto each = [&](const std::string& sep) -> std::optional<std::string> {
    std::string out;
    for (auto& o : e.operands()) {
      auto t = taskletInt(o, dims);
      if (!t) return std::nullopt;
      out += (out.empty() ? "" : sep) + "(" + *t + ")";
    }
    return out;
  };
  switch (e.op()) {
  case Op::Const: return std::to_string(*e.constantValue());
  case Op::Symbol: return e.symbolName();
  case Op::Add: return each(" + ");
  case Op::Mul: return each(" * ");
  case Op::FloorDiv:
  case Op::Mod: {
    const Expr& a = e.operands()[0];
    auto b = e.operands()[1].constantValue();
    if (!b || *b <= 0 || sym::proveLessEqual(Expr(0), a, dims) != std::optional<bool>(true)) return std::nullopt;
    return each(e.op() == Op::FloorDiv ? " / " : " % ");
  }
  case Op::Min:
  case Op::Max: {
    std::optional<std::string> acc;
    for (auto& o : e.operands()) {
      auto t = taskletInt(o, dims);
      if (!t) return std::nullopt;
      acc = acc ? std::string(e.op() == Op::Min ? "min(" : "max(") + *acc + ", " + *t + ")" : *t;
    }
    return acc;
  }
  case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
    static const std::map<Op, const char*> text{{Op::Eq, " == "}, {Op::Ne, " != "}, {Op::Lt, " < "},
                                                {Op::Le, " <= "}, {Op::Gt, " > "},  {Op::Ge, " >= "}};
    auto c = each(text.at(e.op()));
    return c ? std::optional<std::string>("select(" + *c + ", 1, 0)") : std::nullopt;
  }
  default: return std::nullopt;
  }
}

} // namespace

std::string taskletDim(const Expr& e) {
  sym::Assumptions dims;
  for (auto& s : e.freeSymbols()) dims.setLower(s, 0);
  if (auto t = taskletInt(e, dims)) return "(" + *t + ")";
  return par(e);
}

std::string par(const Expr& e) {
  std::string s = e.str();
  if (e.isConstant() ? *e.constantValue() >= 0 : e.isSymbol()) return s;
  return "(" + s + ")";
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) s += (k ? sep : "") + parts[k];
  return s;
}

std::string num(int64_t v) { return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v); }

Expr product(const Shape& s, size_t from, size_t to) {
  Expr p(1);
  for (size_t k = from; k < s.size() && k < to; ++k) p = p * s[k];
  return p;
}

std::string linearIndex(const std::vector<std::string>& idx, const Shape& shape) {
  if (idx.empty()) return "0";
  std::vector<std::string> terms;
  for (size_t k = 0; k < idx.size(); ++k) {
    Expr stride = product(shape, k + 1);
    if (stride == Expr(1)) terms.push_back("(" + idx[k] + ")");
    else terms.push_back("(" + idx[k] + ")*" + par(stride));
  }
  return join(terms, " + ");
}

std::vector<std::string> unflatten(const std::string& lin, const Shape& shape) {
  std::vector<std::string> out;
  for (size_t k = 0; k < shape.size(); ++k) {
    Expr stride = product(shape, k + 1);
    std::string q = stride == Expr(1) ? "(" + lin + ")" : "(" + lin + ") // " + par(stride);
    out.push_back(k == 0 ? q : "(" + q + ") % " + par(shape[k]));
  }
  return out;
}

std::string literal(double v, DType t) {
  if (t == DType::Bool) return v != 0 ? "true" : "false";
  if (!isFloating(t)) {
    int64_t i = static_cast<int64_t>(v);
    return i < 0 ? "(" + std::to_string(i) + ")" : std::to_string(i);
  }
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "(-inf)";
  char buf[64];
  std::snprintf(buf, sizeof buf, t == DType::Float64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

std::string lowestLiteral(DType t) {
  switch (t) {
  case DType::Bool: return "false";
  case DType::Int8: return "(-128)";
  case DType::Int16: return "(-32768)";
  case DType::Int32: return "(-2147483648)";
  case DType::Int64: return "(-9223372036854775807 - 1)";
  case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: return "0";
  default: return "(-inf)";
  }
}

std::string highestLiteral(DType t) {
  switch (t) {
  case DType::Bool: return "true";
  case DType::Int8: return "127";
  case DType::Int16: return "32767";
  case DType::Int32: return "2147483647";
  case DType::Int64: return "9223372036854775807";
  case DType::UInt8: return "255";
  case DType::UInt16: return "65535";
  case DType::UInt32: return "4294967295";
  case DType::UInt64: return "18446744073709551615";
  default: return "inf";
  }
}

std::string castTo(DType t, const std::string& code) { return std::string(dtypeName(t)) + "(" + code + ")"; }

Expected<MatMulOperands> matmulOperands(const ExpansionContext& ctx, const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                                        const std::vector<int64_t>& ys) {
  auto text = [](const std::vector<int64_t>& d) {
    std::string s;
    for (auto x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
    return s.empty() ? std::string("scalar") : s;
  };
  if (as.empty() || bs.empty()) return ctx.error("MatMul operands must have rank >= 1");
  MatMulOperands o;
  o.a = as;
  o.b = bs;
  if (o.a.size() == 1) o.a.insert(o.a.begin(), 1);
  if (o.b.size() == 1) o.b.push_back(1);
  o.rank = std::max(o.a.size(), o.b.size());
  o.a.insert(o.a.begin(), o.rank - o.a.size(), 1);
  o.b.insert(o.b.begin(), o.rank - o.b.size(), 1);
  o.M = o.a[o.rank - 2];
  o.K = o.a[o.rank - 1];
  o.N = o.b[o.rank - 1];
  if (o.b[o.rank - 2] != o.K) return ctx.error("inner dims differ: A is " + text(as) + ", B is " + text(bs));
  o.y.resize(o.rank);
  for (size_t k = 0; k + 2 < o.rank; ++k) {
    if (o.a[k] != o.b[k] && o.a[k] != 1 && o.b[k] != 1)
      return ctx.error("batch dims do not broadcast: A is " + text(as) + ", B is " + text(bs));
    o.y[k] = std::max(o.a[k], o.b[k]);
    o.batch *= o.y[k];
  }
  o.y[o.rank - 2] = o.M;
  o.y[o.rank - 1] = o.N;
  int64_t py = 1, pys = 1;
  for (auto x : o.y) py *= x;
  for (auto x : ys) pys *= x;
  if (py != pys) return ctx.error("the output " + text(ys) + " does not fit A " + text(as) + " x B " + text(bs));
  return o;
}

Expected<const DataDescriptor*> needIn(const ExpansionContext& ctx, const std::string& conn) {
  const DataDescriptor* d = ctx.in(conn);
  if (!d) return ctx.error("input '" + conn + "' is not connected", "connect the input");
  if (!d->rankKnown || !d->wrappers.empty())
    return ctx.error("the rank of input '" + conn + "' is unknown (data-dependent shape)",
                     "give the model static shapes (e.g. run ONNX shape inference with concrete input shapes)");
  return d;
}

Expected<const DataDescriptor*> needOut(const ExpansionContext& ctx, const std::string& conn) {
  const DataDescriptor* d = ctx.out(conn);
  if (!d) return ctx.error("output '" + conn + "' is not connected", "connect the output");
  if (!d->rankKnown || !d->wrappers.empty())
    return ctx.error("the rank of output '" + conn + "' is unknown: its shape is data-dependent",
                     "give the model static shapes (e.g. run ONNX shape inference with concrete input shapes)");
  return d;
}

Expected<Window> window(const ExpansionContext& ctx, const std::vector<int64_t>& kernel, const Shape& in, const Shape& out) {
  Window w;
  w.nd = kernel.size();
  w.kernel = kernel;
  w.strides = ctx.attrInts("strides", std::vector<int64_t>(w.nd, 1));
  w.dilations = ctx.attrInts("dilations", std::vector<int64_t>(w.nd, 1));
  if (w.strides.empty()) w.strides.assign(w.nd, 1);
  if (w.dilations.empty()) w.dilations.assign(w.nd, 1);
  if (w.strides.size() != w.nd || w.dilations.size() != w.nd || in.size() != w.nd || out.size() != w.nd)
    return ctx.error("strides/dilations/kernel do not match the " + std::to_string(w.nd) + " spatial dims of the input");
  std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
  std::vector<int64_t> pads = ctx.attrInts("pads", std::vector<int64_t>(2 * w.nd, 0));
  if (pads.empty()) pads.assign(2 * w.nd, 0);
  if (pads.size() != 2 * w.nd) return ctx.error("pads has " + std::to_string(pads.size()) + " values; expected " + std::to_string(2 * w.nd));
  for (size_t k = 0; k < w.nd; ++k) {
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      Expr total = sym::max(Expr(0), (out[k] - 1) * w.strides[k] + (kernel[k] - 1) * w.dilations[k] + 1 - in[k]);
      Expr small = sym::floorDiv(total, 2);
      w.padBegin.push_back(autoPad == "SAME_UPPER" ? small : total - small);
      w.padEnd.push_back(autoPad == "SAME_UPPER" ? total - small : small);
    } else if (autoPad == "VALID") {
      w.padBegin.push_back(0);
      w.padEnd.push_back(0);
    } else if (autoPad == "NOTSET" || autoPad.empty()) {
      w.padBegin.push_back(pads[k]);
      w.padEnd.push_back(pads[k + w.nd]);
    } else {
      return ctx.error("auto_pad '" + autoPad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
  }
  return w;
}

Expected<std::vector<int64_t>> constInts(const ExpansionContext& ctx, const std::string& conn, const std::string& what) {
  auto v = ctx.constantInts(conn);
  if (!v) return ctx.error(what + " (input '" + conn + "') must be a constant", "make it an initializer or a Constant folded at import");
  return *v;
}

ir::Tensor int64Tensor(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  ir::Tensor t;
  t.dtype = ir::DType::Int64;
  t.dims = std::move(dims);
  t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(values.data()), values.size() * 8);
  return t;
}

ir::Tensor float32Tensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  ir::Tensor t;
  t.dtype = ir::DType::Float32;
  t.dims = std::move(dims);
  t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  return t;
}

std::string constantArray(SdfgBuilder& b, const std::string& base, ir::Tensor t) {
  std::vector<sym::Expr> shape;
  for (auto d : t.dims) shape.emplace_back(d);
  std::string name = b.transient(base, t.dtype, shape);
  b.sdfg().findData(name)->constant = std::make_shared<const ir::Tensor>(std::move(t));
  return name;
}

} // namespace dcw::expansions::th
