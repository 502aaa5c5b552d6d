#include "core/expansions/ops/ElementwiseHelpers.h"

#include <charconv>
#include <cmath>

namespace dcw::expansions::ew {

using sym::Expr;

std::string typeName(DType t) { return std::string(ir::dtypeName(t)); }

DType computeType(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

std::string castTo(DType t, const std::string& expr) { return typeName(t) + "(" + expr + ")"; }

std::string convert(const std::string& expr, DType from, DType to) { return from == to ? expr : castTo(to, expr); }

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string literal(double v, DType t) {
  if (t == DType::Bool) return v != 0 ? "true" : "false";
  if (t == DType::Float64) return number(v);
  if (ir::isFloating(t)) return castTo(t, number(v));
  if (ir::isInteger(t)) return castTo(t, std::to_string(static_cast<int64_t>(v)));
  return number(v);
}

std::string lowest(DType t) {
  switch (t) {
  case DType::Bool: return "false";
  case DType::Int8: return "int8(-128)";
  case DType::Int16: return "int16(-32768)";
  case DType::Int32: return "int32(-2147483647 - 1)";
  case DType::Int64: return "int64(-9223372036854775807 - 1)";
  case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: return castTo(t, "0");
  default: return literal(-INFINITY, t);
  }
}

std::string highest(DType t) {
  switch (t) {
  case DType::Bool: return "true";
  case DType::Int8: return "int8(127)";
  case DType::Int16: return "int16(32767)";
  case DType::Int32: return "int32(2147483647)";
  case DType::Int64: return "int64(9223372036854775807)";
  case DType::UInt8: return "uint8(255)";
  case DType::UInt16: return "uint16(65535)";
  case DType::UInt32: return "uint32(4294967295)";
  case DType::UInt64: return "uint64(-1)";
  default: return literal(INFINITY, t);
  }
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::string alignedSubset(const std::vector<Expr>& in, const std::vector<Expr>& out, size_t offset,
                          const std::string& prefix) {
  std::string s;
  for (size_t k = 0; k < in.size(); ++k) {
    size_t o = k + offset;
    std::string idx = prefix + std::to_string(o);
    if (o >= out.size() || (in[k] == Expr(1) && out[o] != Expr(1))) idx = "0";
    s += (k ? ", " : "") + idx;
  }
  return s;
}

std::vector<Expr> reducedShape(const std::vector<Expr>& shape, const std::vector<bool>& reduced, bool keepdims) {
  std::vector<Expr> out;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (!reduced[k]) out.push_back(shape[k]);
    else if (keepdims) out.push_back(Expr(1));
  }
  return out;
}

std::string reducedSubset(const std::vector<bool>& reduced, bool keepdims, const std::string& prefix) {
  std::string s;
  bool first = true;
  for (size_t k = 0; k < reduced.size(); ++k) {
    std::string idx;
    if (!reduced[k]) idx = prefix + std::to_string(k);
    else if (keepdims) idx = "0";
    else continue;
    s += (first ? "" : ", ") + idx;
    first = false;
  }
  return s;
}

Expr reducedCount(const std::vector<Expr>& shape, const std::vector<bool>& reduced) {
  Expr n = 1;
  for (size_t k = 0; k < shape.size(); ++k)
    if (reduced[k]) n = n * shape[k];
  return n;
}

void broadcastMap(SdfgBuilder& b, const std::string& label, const std::vector<Arg>& ins, const std::string& code,
                  const std::vector<Arg>& outs) {
  const auto& shape = b.data(outs.front().data).shape;
  std::vector<TaskletIn> ti;
  for (auto& a : ins) {
    const auto& s = b.data(a.data).shape;
    size_t offset = a.offset ? *a.offset : (shape.size() >= s.size() ? shape.size() - s.size() : 0);
    ti.push_back({a.conn, a.data, alignedSubset(s, shape, offset)});
  }
  std::vector<TaskletOut> to;
  for (auto& a : outs) to.push_back({a.conn, a.data, indexList(shape.size()), ""});
  b.mappedTasklet(label, fullRangeParams(shape), ti, code, to);
}

void fill(SdfgBuilder& b, const std::string& label, const std::string& data, const std::string& value) {
  const auto& shape = b.data(data).shape;
  b.mappedTasklet(label, fullRangeParams(shape), {}, "o = " + value, {{"o", data, indexList(shape.size()), ""}});
}

Expected<void> requireRanked(const ExpansionContext& ctx) {
  for (auto& c : ctx.inputs()) {
    auto* d = ctx.in(c);
    if (!d->wrappers.empty() || !d->rankKnown)
      return ctx.error("operand '" + c + "' (" + d->typeString() + ") is not a tensor of known rank",
                       "give the model static shapes (ONNX shape inference) before expanding");
  }
  for (auto& c : ctx.outputs()) {
    auto* d = ctx.out(c);
    if (!d->wrappers.empty() || !d->rankKnown)
      return ctx.error("the rank of output '" + c + "' is unknown (its shape is data-dependent)",
                       "give the model static shapes (ONNX shape inference) before expanding");
  }
  return {};
}

} // namespace dcw::expansions::ew
