// Pure expansions of the elementwise ONNX ops (see Ops.h): one map over the output's shape with one
// tasklet; inputs are read through single-element memlets, broadcast by numpy rules (size-1 dims read
// index 0, missing leading dims are not indexed).
//
//   Unary   Y[i...] = f(X[i...])             Abs Neg Exp Log Sqrt Reciprocal Floor Ceil Round Sign, the
//                                            trigonometric and hyperbolic functions, Erf Not IsNaN IsInf,
//                                            the activations (Relu ... Shrink), Identity
//                                            (inference: Y = X, mask all true), Cast, CastLike.
//   N-ary   C[i...] = f(A[bcast], B[bcast])  Add Sub Mul Div Pow Mod Max Min Sum Mean And Or Xor Equal Less
//                                            Greater LessOrEqual GreaterOrEqual BitShift PRelu Where Clip.
// Before opset 7, Add/Sub/Mul/Div/Pow and the logical and comparison ops broadcast B only with the
// `broadcast` attribute, aligned at `axis` (default: trailing dims); that rule is followed, as is
// PRelu's (a slope [C, ...] follows X's channel axis 1 before opset 7).
//
// Types: float16/bfloat16 values are computed in float32 and rounded back; integer Div truncates
// toward zero; Mod with fmod=0 follows Python's sign rule; integer Pow is an exact integer power;
// comparisons and logic produce bool. Preconditions: tensor (not sequence/optional) operands whose
// rank is known; string-typed Cast/CastLike are refused.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"

#include <functional>

namespace dcw::expansions {

namespace {

using namespace ew;
using ir::DType;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

bool isUnsigned(DType t) {
  return t == DType::UInt8 || t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

// Every connected operand must be a plain tensor of known rank and a computable type.
Expected<void> requireTensors(const ExpansionContext& ctx, bool allowString = false) {
  auto check = [&](const std::string& c, const ir::DataDescriptor* d) -> Expected<void> {
    if (!d->wrappers.empty())
      return ctx.error("operand '" + c + "' is a " + d->typeString() + "; this expansion handles tensors only",
                       "sequence and optional values need their own lowering");
    if (!d->rankKnown)
      return ctx.error("the rank of operand '" + c + "' is unknown (its shape is data-dependent)",
                       "give the model static shapes (e.g. with ONNX shape inference) before expanding");
    if (!allowString && d->dtype == DType::String)
      return ctx.error("operand '" + c + "' has type string, which a pure expansion cannot compute with");
    if (d->dtype == DType::Complex64 || d->dtype == DType::Complex128 || d->dtype == DType::Undefined)
      return ctx.error("operand '" + c + "' has type " + typeName(d->dtype) + ", which is not supported");
    return {};
  };
  for (auto& c : ctx.inputs())
    DCW_CHECK(check(c, ctx.in(c)));
  for (auto& c : ctx.outputs())
    DCW_CHECK(check(c, ctx.out(c)));
  if (ctx.outputs().empty()) return ctx.error("no output is connected");
  return {};
}

// Expression builder: receives the inputs as values of the compute type.
using Fn = std::function<std::string(const std::vector<std::string>& xs)>;

struct NarySpec {
  DType compute = DType::Undefined;            // the type the inputs are converted to
  DType result = DType::Undefined;             // the type of f's expression
  std::vector<std::optional<size_t>> offsets;  // per input broadcast alignment (empty: numpy)
  std::vector<bool> convertInput;              // per input: convert to `compute` (empty: all)
};

// Y = f(inputs...) over the output's shape. Inputs whose type differs from the compute type are
// converted first (`let x0 = float32(a0)`), the result is converted to the output's type.
Result nary(const ExpansionContext& ctx, const std::string& label, const NarySpec& spec, const Fn& f,
            const std::vector<std::string>& inputNames = {}) {
  DCW_CHECK(requireTensors(ctx));
  std::vector<std::string> ins = inputNames.empty() ? ctx.inputs() : inputNames;
  if (ins.empty()) return ctx.error("no input is connected");
  const std::string out = ctx.outputs().front();
  DType outT = ctx.out(out)->dtype;
  SdfgBuilder b(ctx);
  std::vector<Arg> args;
  std::vector<std::string> xs;
  std::string code;
  for (size_t i = 0; i < ins.size(); ++i) {
    DType t = ctx.in(ins[i])->dtype;
    std::string x = ins.size() == 1 ? "x" : "x" + std::to_string(i);
    std::optional<size_t> off = i < spec.offsets.size() ? spec.offsets[i] : std::nullopt;
    bool conv = spec.convertInput.empty() || spec.convertInput[i];
    if (!conv || t == spec.compute) {
      args.push_back({x, ins[i], off});
    } else {
      std::string a = ins.size() == 1 ? "a" : "a" + std::to_string(i);
      args.push_back({a, ins[i], off});
      code += "let " + x + " = " + castTo(spec.compute, a) + "\n";
    }
    xs.push_back(x);
  }
  code += "y = " + convert(f(xs), spec.result, outT);
  broadcastMap(b, label, args, code, {{"y", out}});
  return b.finish();
}

DType inType(const ExpansionContext& ctx, size_t i = 0) {
  auto ins = ctx.inputs();
  return i < ins.size() ? ctx.in(ins[i])->dtype : DType::Undefined;
}

DType outType(const ExpansionContext& ctx) {
  auto outs = ctx.outputs();
  return outs.empty() ? DType::Undefined : ctx.out(outs.front())->dtype;
}

// ---------------------------------------------------------------------------------------------
// Unary ops: f(x, ct, ctx) over x converted to ct = computeType(input type).

using UnaryFn = std::function<std::string(const std::string& x, DType ct, const ExpansionContext& ctx)>;

enum class UnaryResult { Compute, Bool };

void addUnary(ExpansionRegistry& r, const std::string& op, const std::string& what, UnaryFn f,
              UnaryResult res = UnaryResult::Compute, bool floatCompute = false) {
  std::string label = op;
  for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  r.add("", op, "pure",
        [f, res, label, floatCompute](const ExpansionContext& ctx) -> Result {
          if (ctx.inputs().empty()) return ctx.error("input is not connected");
          DType t = inType(ctx);
          DType ct = computeType(t);
          if (floatCompute && !ir::isFloating(ct)) ct = DType::Float64;
          NarySpec spec{ct, res == UnaryResult::Bool ? DType::Bool : ct, {}, {}};
          return nary(ctx, label, spec, [&](const std::vector<std::string>& xs) { return f(xs[0], ct, ctx); },
                      {ctx.inputs().front()});
        },
        "Y[i] = " + what);
}

std::string call(const std::string& fn, const std::string& x) { return fn + "(" + x + ")"; }

void registerUnary(ExpansionRegistry& r) {
  for (const char* fn : {"exp", "log", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                         "atanh", "erf", "floor", "ceil", "round", "tanh", "sign"}) {
    std::string op = fn;
    op[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(op[0])));
    std::string f = fn;
    addUnary(r, op, f + "(X[i])", [f](const std::string& x, DType, const ExpansionContext&) { return call(f, x); });
  }
  addUnary(r, "Abs", "abs(X[i])", [](const std::string& x, DType ct, const ExpansionContext&) {
    return isUnsigned(ct) || ct == DType::Bool ? x : call("abs", x);
  });
  addUnary(r, "Neg", "-X[i]", [](const std::string& x, DType, const ExpansionContext&) { return "-" + x; });
  addUnary(r, "Reciprocal", "1 / X[i]",
           [](const std::string& x, DType ct, const ExpansionContext&) { return literal(1, ct) + " / " + x; });
  addUnary(r, "Not", "!X[i]", [](const std::string& x, DType, const ExpansionContext&) { return "!" + x; });
  addUnary(r, "IsNaN", "isnan(X[i])", [](const std::string& x, DType, const ExpansionContext&) { return call("isnan", x); },
           UnaryResult::Bool);
  addUnary(r, "IsInf", "isinf(X[i]) restricted by detect_negative/detect_positive",
           [](const std::string& x, DType ct, const ExpansionContext& ctx) -> std::string {
             bool neg = ctx.attrInt("detect_negative", 1) != 0, pos = ctx.attrInt("detect_positive", 1) != 0;
             if (neg && pos) return call("isinf", x);
             if (pos) return call("isinf", x) + " && " + x + " > " + literal(0, ct);
             if (neg) return call("isinf", x) + " && " + x + " < " + literal(0, ct);
             return "false";
           },
           UnaryResult::Bool);

  // Activations.
  addUnary(r, "Relu", "max(X[i], 0)", [](const std::string& x, DType ct, const ExpansionContext&) {
    return "max(" + x + ", " + literal(0, ct) + ")";
  });
  addUnary(r, "LeakyRelu", "X < 0 ? alpha * X : X", [](const std::string& x, DType ct, const ExpansionContext& ctx) {
    return x + " < " + literal(0, ct) + " ? " + literal(ctx.attrFloat("alpha", 0.01), ct) + " * " + x + " : " + x;
  });
  addUnary(r, "Elu", "X < 0 ? alpha * (exp(X) - 1) : X", [](const std::string& x, DType ct, const ExpansionContext& ctx) {
    return x + " < " + literal(0, ct) + " ? " + literal(ctx.attrFloat("alpha", 1.0), ct) + " * (exp(" + x + ") - " +
           literal(1, ct) + ") : " + x;
  });
  addUnary(r, "Selu", "X <= 0 ? gamma * (alpha * exp(X) - alpha) : gamma * X",
           [](const std::string& x, DType ct, const ExpansionContext& ctx) {
             std::string a = literal(ctx.attrFloat("alpha", 1.67326319217681884765625), ct);
             std::string g = literal(ctx.attrFloat("gamma", 1.05070102214813232421875), ct);
             return x + " <= " + literal(0, ct) + " ? " + g + " * (" + a + " * exp(" + x + ") - " + a + ") : " + g + " * " + x;
           });
  addUnary(r, "Celu", "max(0, X) + min(0, alpha * (exp(X / alpha) - 1))",
           [](const std::string& x, DType ct, const ExpansionContext& ctx) {
             std::string a = literal(ctx.attrFloat("alpha", 1.0), ct), z = literal(0, ct);
             return "max(" + z + ", " + x + ") + min(" + z + ", " + a + " * (exp(" + x + " / " + a + ") - " + literal(1, ct) + "))";
           });
  addUnary(r, "HardSigmoid", "max(0, min(1, alpha * X + beta))",
           [](const std::string& x, DType ct, const ExpansionContext& ctx) {
             return "max(" + literal(0, ct) + ", min(" + literal(1, ct) + ", " + literal(ctx.attrFloat("alpha", 0.2), ct) +
                    " * " + x + " + " + literal(ctx.attrFloat("beta", 0.5), ct) + "))";
           });
  addUnary(r, "HardSwish", "X * max(0, min(1, X / 6 + 0.5))", [](const std::string& x, DType ct, const ExpansionContext&) {
    return x + " * max(" + literal(0, ct) + ", min(" + literal(1, ct) + ", " + literal(1.0 / 6.0, ct) + " * " + x + " + " +
           literal(0.5, ct) + "))";
  });
  addUnary(r, "Sigmoid", "1 / (1 + exp(-X))", [](const std::string& x, DType ct, const ExpansionContext&) {
    return literal(1, ct) + " / (" + literal(1, ct) + " + exp(-" + x + "))";
  });
  addUnary(r, "Softplus", "log(1 + exp(X)), computed without overflow",
           [](const std::string& x, DType ct, const ExpansionContext&) {
             std::string one = literal(1, ct);
             return x + " > " + literal(0, ct) + " ? " + x + " + log(" + one + " + exp(-" + x + ")) : log(" + one + " + exp(" +
                    x + "))";
           });
  addUnary(r, "Softsign", "X / (1 + abs(X))", [](const std::string& x, DType ct, const ExpansionContext&) {
    return x + " / (" + literal(1, ct) + " + abs(" + x + "))";
  });
  addUnary(r, "ThresholdedRelu", "X > alpha ? X : 0", [](const std::string& x, DType ct, const ExpansionContext& ctx) {
    return x + " > " + literal(ctx.attrFloat("alpha", 1.0), ct) + " ? " + x + " : " + literal(0, ct);
  });
  addUnary(r, "Shrink", "X < -lambd ? X + bias : X > lambd ? X - bias : 0",
           [](const std::string& x, DType ct, const ExpansionContext& ctx) {
             double l = ctx.attrFloat("lambd", 0.5), bias = ctx.attrFloat("bias", 0.0);
             return x + " < " + literal(-l, ct) + " ? " + x + " + " + literal(bias, ct) + " : (" + x + " > " + literal(l, ct) +
                    " ? " + x + " - " + literal(bias, ct) + " : " + literal(0, ct) + ")";
           },
           UnaryResult::Compute, /*floatCompute=*/true);
  addUnary(r, "Identity", "X[i]", [](const std::string& x, DType, const ExpansionContext&) { return x; });
}

// ---------------------------------------------------------------------------------------------
// Casts.

Result expandCast(const ExpansionContext& ctx) {
  DCW_CHECK(requireTensors(ctx, /*allowString=*/true));
  if (ctx.inputs().empty()) return ctx.error("input is not connected");
  DType from = inType(ctx), to = outType(ctx);
  if (from == DType::String || to == DType::String)
    return ctx.error("casts from or to string are not supported by the pure expansion (" + typeName(from) + " -> " +
                         typeName(to) + ")",
                     "convert strings before the model or implement the cast outside the graph");
  NarySpec spec{from, from, {}, {}};
  return nary(ctx, "cast", spec, [](const std::vector<std::string>& xs) { return xs[0]; }, {ctx.inputs().front()});
}

// ---------------------------------------------------------------------------------------------
// Binary and variadic ops.

// Broadcast offsets for the legacy (opset < 7) broadcast attribute: B aligned at `axis`.
std::vector<std::optional<size_t>> legacyOffsets(const ExpansionContext& ctx) {
  if (ctx.node().opsetVersion >= 7 || !ctx.hasAttr("axis")) return {};
  auto ins = ctx.inputs();
  if (ins.size() != 2) return {};
  int64_t rank = static_cast<int64_t>(ctx.in(ins[0])->shape.size());
  auto a = normalizeAxis(ctx.attrInt("axis", 0), rank);
  if (!a) return {};
  return {std::nullopt, static_cast<size_t>(*a)};
}

using BinFn = std::function<std::string(const std::vector<std::string>& xs, DType ct, const ExpansionContext& ctx)>;

// Arithmetic over the output's compute type (inputs and output share one type).
void addArith(ExpansionRegistry& r, const std::string& op, const std::string& what, BinFn f, bool boolResult = false) {
  std::string label = op;
  for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  r.add("", op, "pure",
        [f, label, boolResult](const ExpansionContext& ctx) -> Result {
          if (ctx.inputs().empty()) return ctx.error("no input is connected");
          DType ct = computeType(inType(ctx));
          NarySpec spec{ct, boolResult ? DType::Bool : ct, legacyOffsets(ctx), {}};
          return nary(ctx, label, spec, [&](const std::vector<std::string>& xs) { return f(xs, ct, ctx); });
        },
        what);
}

std::string fold(const std::vector<std::string>& xs, const std::string& op) {
  std::string s = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) s += " " + op + " " + xs[i];
  return s;
}

std::string foldCall(const std::vector<std::string>& xs, const std::string& fn) {
  std::string s = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) s = fn + "(" + s + ", " + xs[i] + ")";
  return s;
}

Result expandPow(const ExpansionContext& ctx) {
  if (ctx.inputs().size() != 2) return ctx.error("Pow needs inputs X and Y");
  DType tb = inType(ctx, 0), te = inType(ctx, 1);
  if (ir::isInteger(tb) && ir::isInteger(te)) { // exact integer power
    NarySpec spec{DType::Int64, DType::Int64, legacyOffsets(ctx), {false, false}};
    return nary(ctx, "pow", spec, [](const std::vector<std::string>& xs) { return "pow(" + xs[0] + ", " + xs[1] + ")"; });
  }
  // Otherwise in floating point (float32 when both are at most float32); an integer result truncates.
  DType ct = computeType(tb) == DType::Float32 && computeType(te) == DType::Float32 ? DType::Float32 : DType::Float64;
  NarySpec spec{ct, ct, legacyOffsets(ctx), {}};
  return nary(ctx, "pow", spec, [](const std::vector<std::string>& xs) { return "pow(" + xs[0] + ", " + xs[1] + ")"; });
}

Result expandMod(const ExpansionContext& ctx) {
  if (ctx.inputs().size() != 2) return ctx.error("Mod needs inputs A and B");
  DType ct = computeType(inType(ctx));
  bool fmod = ctx.attrInt("fmod", 0) != 0;
  NarySpec spec{ct, ct, {}, {}};
  return nary(ctx, "mod", spec, [&](const std::vector<std::string>& xs) -> std::string {
    const std::string &a = xs[0], &b = xs[1];
    std::string z = literal(0, ct);
    if (ir::isFloating(ct)) {
      if (fmod) return "fmod(" + a + ", " + b + ")";
      // Python's modulo for floats: the result takes the divisor's sign.
      return "select(fmod(" + a + ", " + b + ") != " + z + " && (fmod(" + a + ", " + b + ") < " + z + ") != (" + b + " < " + z +
             "), fmod(" + a + ", " + b + ") + " + b + ", fmod(" + a + ", " + b + "))";
    }
    if (fmod || isUnsigned(ct)) return a + " % " + b;
    return "(" + a + " % " + b + " != " + z + " && (" + a + " % " + b + " < " + z + ") != (" + b + " < " + z + ")) ? " + a + " % " +
           b + " + " + b + " : " + a + " % " + b;
  });
}

Result expandBitShift(const ExpansionContext& ctx) {
  if (ctx.inputs().size() != 2) return ctx.error("BitShift needs inputs X and Y");
  std::string dir = ctx.attrString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") return ctx.error("BitShift direction must be LEFT or RIGHT, not '" + dir + "'");
  DType t = inType(ctx);
  if (!isUnsigned(t)) return ctx.error("BitShift is defined for unsigned integers, not " + typeName(t));
  // x << s == x * 2^s and x >> s == x / 2^s on unsigned integers; the store wraps to X's width.
  NarySpec spec{t, t, {}, {}};
  return nary(ctx, "bitshift", spec, [&](const std::vector<std::string>& xs) {
    return xs[0] + (dir == "LEFT" ? " * " : " / ") + "pow(" + castTo(t, "2") + ", " + xs[1] + ")";
  });
}

Result expandWhere(const ExpansionContext& ctx) {
  if (ctx.inputs().size() != 3) return ctx.error("Where needs inputs condition, X and Y");
  DType t = outType(ctx);
  NarySpec spec{t, t, {}, {false, false, false}};
  return nary(ctx, "where", spec, [](const std::vector<std::string>& xs) { return xs[0] + " ? " + xs[1] + " : " + xs[2]; });
}

// Clip: min/max attributes before opset 11, optional inputs from 11.
Result expandClip(const ExpansionContext& ctx) {
  DCW_CHECK(requireTensors(ctx));
  if (!ctx.hasIn("input") || !ctx.hasOut("output")) return ctx.error("Clip needs input and output connected");
  DType t = ctx.in("input")->dtype, ct = computeType(t);
  SdfgBuilder b(ctx);
  std::vector<Arg> args;
  std::string code, x = "x";
  if (ct != t) {
    args.push_back({"a", "input"});
    code += "let x = " + castTo(ct, "a") + "\n";
  } else {
    args.push_back({"x", "input"});
  }
  std::string e = x;
  if (ctx.node().opsetVersion < 11) {
    if (ctx.hasAttr("min")) e = "max(" + e + ", " + literal(ctx.attrFloat("min", 0), ct) + ")";
    if (ctx.hasAttr("max")) e = "min(" + e + ", " + literal(ctx.attrFloat("max", 0), ct) + ")";
  } else {
    for (const char* bound : {"min", "max"}) {
      if (!ctx.hasIn(bound)) continue;
      std::string conn = std::string(bound) == "min" ? "lo" : "hi";
      if (ctx.in(bound)->totalSize() != sym::Expr(1))
        return ctx.error(std::string("Clip's ") + bound + " must be a scalar (one element), not " + ctx.in(bound)->typeString());
      std::string v = conn;
      if (ct != t) {
        args.push_back({conn + "_raw", bound, std::nullopt});
        code += "let " + conn + " = " + castTo(ct, conn + "_raw") + "\n";
      } else {
        args.push_back({conn, bound});
      }
      // A one-element bound reads its only element, whatever its rank.
      args.back().offset = ctx.out("output")->shape.size();
      e = (conn == "lo" ? "max(" : "min(") + e + ", " + v + ")";
    }
  }
  code += "y = " + convert(e, ct, ctx.out("output")->dtype);
  broadcastMap(b, "clip", args, code, {{"y", "output"}});
  return b.finish();
}

// PRelu: slope broadcasts to X (numpy rules from opset 7; before, a slope [C, ...] follows X's channel axis 1).
Result expandPRelu(const ExpansionContext& ctx) {
  if (ctx.inputs().size() != 2) return ctx.error("PRelu needs inputs X and slope");
  DType ct = computeType(inType(ctx));
  NarySpec spec{ct, ct, {}, {}};
  const auto& x = ctx.in(ctx.inputs()[0])->shape;
  const auto& slope = ctx.in(ctx.inputs()[1])->shape;
  if (ctx.node().opsetVersion < 7 && x.size() >= 2 && !slope.empty() && slope.size() < x.size()) spec.offsets = {std::nullopt, size_t(1)};
  return nary(ctx, "prelu", spec, [&](const std::vector<std::string>& xs) {
    return xs[0] + " < " + literal(0, ct) + " ? " + xs[1] + " * " + xs[0] + " : " + xs[0];
  });
}

void registerBinary(ExpansionRegistry& r) {
  addArith(r, "Add", "C = A + B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "+"); });
  addArith(r, "Sub", "C = A - B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "-"); });
  addArith(r, "Mul", "C = A * B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "*"); });
  addArith(r, "Div", "C = A / B (broadcast; integers truncate toward zero)", [](auto& xs, DType, auto&) { return fold(xs, "/"); });
  addArith(r, "Sum", "sum = data_0 + data_1 + ... (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "+"); });
  addArith(r, "Mean", "mean = (data_0 + data_1 + ...) / n (broadcast)", [](auto& xs, DType ct, auto&) {
    return xs.size() == 1 ? xs[0] : "(" + fold(xs, "+") + ") / " + literal(double(xs.size()), ct);
  });
  addArith(r, "Max", "max = max(data_0, data_1, ...) (broadcast)", [](auto& xs, DType, auto&) { return foldCall(xs, "max"); });
  addArith(r, "Min", "min = min(data_0, data_1, ...) (broadcast)", [](auto& xs, DType, auto&) { return foldCall(xs, "min"); });
  addArith(r, "And", "C = A && B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "&&"); });
  addArith(r, "Or", "C = A || B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "||"); });
  addArith(r, "Xor", "C = A != B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "!="); });
  addArith(r, "Equal", "C = A == B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "=="); }, true);
  addArith(r, "Less", "C = A < B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "<"); }, true);
  addArith(r, "Greater", "C = A > B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, ">"); }, true);
  addArith(r, "LessOrEqual", "C = A <= B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, "<="); }, true);
  addArith(r, "GreaterOrEqual", "C = A >= B (broadcast)", [](auto& xs, DType, auto&) { return fold(xs, ">="); }, true);
  r.add("", "PRelu", "pure", expandPRelu, "Y = X < 0 ? slope * X : X (slope broadcast to X; before opset 7 along the channels)");
  r.add("", "Pow", "pure", expandPow, "Z = pow(X, Y) (broadcast; the result has X's type)");
  r.add("", "Mod", "pure", expandMod, "C = A mod B (fmod=1: C's fmod; fmod=0: Python's sign rule)");
  r.add("", "BitShift", "pure", expandBitShift, "Z = X << Y or X >> Y (unsigned, broadcast)");
  r.add("", "Where", "pure", expandWhere, "output = condition ? X : Y (broadcast)");
  r.add("", "Clip", "pure", expandClip, "output = min(max(input, min), max)");
}

} // namespace

void registerElementwise(ExpansionRegistry& r) {
  registerUnary(r);
  r.add("", "Cast", "pure", expandCast, "output = to(input) (numeric types)");
  r.add("", "CastLike", "pure", expandCast, "output = input converted to target_type's type (numeric types)");
  registerBinary(r);
}

} // namespace dcw::expansions
