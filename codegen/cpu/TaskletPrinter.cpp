// TaskletPrinter: kind inference and C++ printing of tasklet ASTs. Every compound expression is
// printed fully parenthesised, so C++ precedence never changes the meaning.
#include "codegen/cpu/TaskletPrinter.h"

#include <set>

namespace dcw::codegen::cpu {

using tasklet::ExprKind;

std::optional<ValueKind> kindOf(ir::DType t) {
  using ir::DType;
  switch (t) {
  case DType::Bool: return ValueKind::Bool;
  case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
  case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64: return ValueKind::Int;
  case DType::Float16: case DType::BFloat16: case DType::Float32: return ValueKind::Float;
  case DType::Float64: return ValueKind::Double;
  default: return std::nullopt;
  }
}

std::string cppType(ValueKind k) {
  switch (k) {
  case ValueKind::Bool: return "bool";
  case ValueKind::Int: return "int64_t";
  case ValueKind::Float: return "float";
  case ValueKind::Double: return "double";
  }
  return "float";
}

std::string storageType(ir::DType t) {
  using ir::DType;
  switch (t) {
  case DType::Bool: return "uint8_t";
  case DType::Int8: return "int8_t";
  case DType::Int16: return "int16_t";
  case DType::Int32: return "int32_t";
  case DType::Int64: return "int64_t";
  case DType::UInt8: return "uint8_t";
  case DType::UInt16: return "uint16_t";
  case DType::UInt32: return "uint32_t";
  case DType::UInt64: return "uint64_t";
  case DType::Float16: case DType::BFloat16: return "uint16_t";
  case DType::Float32: return "float";
  case DType::Float64: return "double";
  default: return {};
  }
}

std::string convertValue(const std::string& text, ValueKind from, ValueKind to) {
  if (from == to) return text;
  switch (to) {
  case ValueKind::Bool: return "(" + text + " != 0)";
  case ValueKind::Int:
    if (from == ValueKind::Bool) return "static_cast<int64_t>(" + text + ")";
    return "dcw_rt::to_i64(" + text + ")";
  case ValueKind::Float: return "static_cast<float>(" + text + ")";
  case ValueKind::Double: return "static_cast<double>(" + text + ")";
  }
  return text;
}

std::string loadValue(ir::DType storage, const std::string& lvalue, ValueKind to) {
  using ir::DType;
  switch (storage) {
  case DType::Float16: return convertValue("dcw_rt::f16_to_f32(" + lvalue + ")", ValueKind::Float, to);
  case DType::BFloat16: return convertValue("dcw_rt::bf16_to_f32(" + lvalue + ")", ValueKind::Float, to);
  case DType::Float32: return convertValue(lvalue, ValueKind::Float, to);
  case DType::Float64: return convertValue(lvalue, ValueKind::Double, to);
  case DType::Bool: return convertValue("(" + lvalue + " != 0)", ValueKind::Bool, to);
  case DType::Int64: return convertValue(lvalue, ValueKind::Int, to);
  default: return convertValue("static_cast<int64_t>(" + lvalue + ")", ValueKind::Int, to);
  }
}

std::string storeValue(ir::DType storage, const std::string& value, ValueKind from) {
  using ir::DType;
  switch (storage) {
  case DType::Float16: return "dcw_rt::f32_to_f16(" + convertValue(value, from, ValueKind::Float) + ")";
  case DType::BFloat16: return "dcw_rt::f32_to_bf16(" + convertValue(value, from, ValueKind::Float) + ")";
  case DType::Float32: return convertValue(value, from, ValueKind::Float);
  case DType::Float64: return convertValue(value, from, ValueKind::Double);
  case DType::Bool: return "static_cast<uint8_t>(" + convertValue(value, from, ValueKind::Bool) + ")";
  default: {
    std::string t = storageType(storage);
    if (from == ValueKind::Float || from == ValueKind::Double) return "dcw_rt::to_int<" + t + ">(" + value + ")";
    if (storage == DType::Int64 && from == ValueKind::Int) return value;
    return "static_cast<" + t + ">(" + value + ")";
  }
  }
}

namespace {

bool isFloatFunction(std::string_view f) {
  static const std::set<std::string_view> fs{"exp",   "log",   "sqrt",  "sin",   "cos",  "tan",     "asin",
                                             "acos",  "atan",  "sinh",  "cosh",  "tanh", "asinh",   "acosh",
                                             "atanh", "erf",   "atan2", "fmod",  "sigmoid"};
  return fs.count(f) > 0;
}

} // namespace

Unexpected TaskletPrinter::error(const std::string& what) const { return fail(where_, what); }

std::string TaskletPrinter::localId(const std::string& name) { return locals_.get(name) + "_"; }

Expected<TaskletName> TaskletPrinter::lookup(const std::string& name) {
  if (auto it = declared_.find(name); it != declared_.end()) {
    TaskletName n;
    n.cpp = localId(name);
    n.kind = it->second;
    n.writable = true;
    return n;
  }
  if (auto it = bound_.find(name); it != bound_.end()) return it->second;
  if (resolver_)
    if (auto r = resolver_(name)) return *r;
  return error("tasklet reads '" + name + "', which is neither a connector, a local nor a symbol");
}

Expected<TaskletPrinter::K> TaskletPrinter::infer(const tasklet::Expr& e) {
  if (auto it = kinds_.find(&e); it != kinds_.end()) return it->second;
  auto numeric = [](K k) { return k == K::Bool ? K::Int : k; };
  auto join = [&](K a, K b) {
    a = numeric(a), b = numeric(b);
    return static_cast<int>(a) > static_cast<int>(b) ? a : b;
  };
  auto argKind = [&](size_t i) -> Expected<K> {
    if (i >= e.args.size() || !e.args[i]) return error("malformed tasklet expression");
    return infer(*e.args[i]);
  };
  K result = K::Int;
  switch (e.kind) {
  case ExprKind::Number:
    if (e.text == "true" || e.text == "false") result = K::Bool;
    else result = e.isInteger ? K::Int : K::FloatLit;
    break;
  case ExprKind::Name: {
    auto n = lookup(e.text);
    if (!n) return n.takeError();
    if (n->array) return error("'" + e.text + "' is an array connector; read an element as " + e.text + "[i]");
    result = n->kind == ValueKind::Bool ? K::Bool : n->kind == ValueKind::Int ? K::Int
                                                  : n->kind == ValueKind::Float ? K::Float : K::Double;
    break;
  }
  case ExprKind::Index: {
    auto n = lookup(e.text);
    if (!n) return n.takeError();
    if (!n->array) return error("'" + e.text + "' is a scalar and cannot be indexed");
    auto ik = argKind(0);
    if (!ik) return ik.takeError();
    if (*ik != K::Int && *ik != K::Bool) return error("the index of '" + e.text + "' must be an integer");
    result = n->kind == ValueKind::Bool ? K::Bool : n->kind == ValueKind::Int ? K::Int
                                                  : n->kind == ValueKind::Float ? K::Float : K::Double;
    break;
  }
  case ExprKind::Unary: {
    auto a = argKind(0);
    if (!a) return a.takeError();
    result = e.text == "!" ? K::Bool : numeric(*a);
    break;
  }
  case ExprKind::Binary: {
    auto a = argKind(0);
    if (!a) return a.takeError();
    auto b = argKind(1);
    if (!b) return b.takeError();
    const std::string& op = e.text;
    if (op == "&&" || op == "||" || op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=")
      result = K::Bool;
    else result = join(*a, *b);
    break;
  }
  case ExprKind::Ternary: {
    auto c = argKind(0);
    if (!c) return c.takeError();
    auto a = argKind(1);
    if (!a) return a.takeError();
    auto b = argKind(2);
    if (!b) return b.takeError();
    result = (*a == K::Bool && *b == K::Bool) ? K::Bool : join(*a, *b);
    break;
  }
  case ExprKind::Call: {
    std::vector<K> ks;
    for (size_t i = 0; i < e.args.size(); ++i) {
      auto k = argKind(i);
      if (!k) return k.takeError();
      ks.push_back(*k);
    }
    const std::string& f = e.text;
    auto floatOf = [&]() {
      K k = K::FloatLit;
      for (K x : ks) k = join(k, x);
      return k == K::Int ? K::Float : k;
    };
    if (auto t = ir::dtypeFromName(f)) {
      auto vk = kindOf(*t);
      if (!vk) return error("cast to " + f + " is not supported by the CPU target");
      result = *vk == ValueKind::Bool ? K::Bool : *vk == ValueKind::Int ? K::Int : *vk == ValueKind::Float ? K::Float : K::Double;
    } else if (isFloatFunction(f)) {
      result = floatOf();
    } else if (f == "abs" || f == "relu" || f == "sign") {
      result = numeric(ks[0]);
    } else if (f == "floor" || f == "ceil" || f == "round" || f == "trunc") {
      result = numeric(ks[0]) == K::Int ? K::Int : numeric(ks[0]);
    } else if (f == "pow") {
      result = (numeric(ks[0]) == K::Int && numeric(ks[1]) == K::Int) ? K::Int : floatOf();
    } else if (f == "min" || f == "max") {
      result = join(ks[0], ks[1]);
    } else if (f == "isnan" || f == "isinf") {
      result = K::Bool;
    } else if (f == "random_uniform") {
      result = K::Double;
    } else if (f == "select") {
      result = (ks[1] == K::Bool && ks[2] == K::Bool) ? K::Bool : join(ks[1], ks[2]);
    } else {
      return error("function '" + f + "' is not supported by the CPU target");
    }
    break;
  }
  }
  kinds_[&e] = result;
  return result;
}

namespace {
ValueKind toValue(int k) {
  // K: Bool 0, Int 1, FloatLit 2, Float 3, Double 4
  switch (k) {
  case 0: return ValueKind::Bool;
  case 1: return ValueKind::Int;
  case 4: return ValueKind::Double;
  default: return ValueKind::Float;
  }
}
} // namespace

Expected<std::string> TaskletPrinter::emit(const tasklet::Expr& e, K want) {
  auto natural = infer(e);
  if (!natural) return natural.takeError();
  // The kind an operation computes in: a literal-only float expression adopts double when wanted.
  auto opKind = [&](K k) {
    if (k == K::FloatLit) return want == K::Double ? K::Double : K::Float;
    return k;
  };
  auto vk = [](K k) { return toValue(static_cast<int>(k)); };
  auto conv = [&](const std::string& text, K from) { return convertValue(text, vk(from), vk(want)); };
  auto sub = [&](size_t i, K k) -> Expected<std::string> { return emit(*e.args[i], k); };

  switch (e.kind) {
  case ExprKind::Number: {
    const std::string& t = e.text;
    if (t == "true" || t == "false") {
      if (want == K::Bool) return t;
      return conv(t, K::Bool);
    }
    if (t == "inf" || t == "nan") {
      if (want == K::Double) return "dcw_rt::" + t + "_d()";
      if (want == K::Float || want == K::FloatLit) return "dcw_rt::" + t + "_f()";
      return conv("dcw_rt::" + t + "_d()", K::Double);
    }
    if (e.isInteger) {
      switch (want) {
      case K::Bool: return std::string(t == "0" ? "false" : "true");
      case K::Int: return t.size() > 9 ? t + "LL" : t;
      case K::Double: return t + ".0";
      default: return t + ".0f";
      }
    }
    switch (want) {
    case K::Double: return t;
    case K::Float: case K::FloatLit: return t + "f";
    case K::Int: return "dcw_rt::to_i64(" + t + ")";
    case K::Bool: return "(" + t + " != 0)";
    }
    return t;
  }
  case ExprKind::Name: {
    auto n = lookup(e.text);
    if (!n) return n.takeError();
    return convertValue(n->cpp, n->kind, vk(want));
  }
  case ExprKind::Index: {
    auto n = lookup(e.text);
    if (!n) return n.takeError();
    auto idx = sub(0, K::Int);
    if (!idx) return idx;
    return loadValue(n->storage, n->cpp + "[" + *idx + "]", vk(want));
  }
  case ExprKind::Unary: {
    if (e.text == "!") {
      auto a = sub(0, K::Bool);
      if (!a) return a;
      return conv("(!" + *a + ")", K::Bool);
    }
    K k = opKind(*natural);
    auto a = sub(0, k);
    if (!a) return a;
    return conv("(-" + *a + ")", k);
  }
  case ExprKind::Binary: {
    const std::string& op = e.text;
    if (op == "&&" || op == "||") {
      auto a = sub(0, K::Bool);
      if (!a) return a;
      auto b = sub(1, K::Bool);
      if (!b) return b;
      return conv("(" + *a + " " + op + " " + *b + ")", K::Bool);
    }
    bool cmp = op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
    K k;
    if (cmp) {
      auto ka = infer(*e.args[0]);
      auto kb = infer(*e.args[1]);
      if (!ka) return ka.takeError();
      if (!kb) return kb.takeError();
      K x = *ka == K::Bool ? K::Int : *ka, y = *kb == K::Bool ? K::Int : *kb;
      k = static_cast<int>(x) > static_cast<int>(y) ? x : y;
      if (k == K::FloatLit) k = K::Float;
    } else {
      k = opKind(*natural);
    }
    auto a = sub(0, k);
    if (!a) return a;
    auto b = sub(1, k);
    if (!b) return b;
    std::string text;
    if (op == "/" && k == K::Int) text = "dcw_rt::idiv(" + *a + ", " + *b + ")";
    else if (op == "%" && k == K::Int) text = "dcw_rt::imod(" + *a + ", " + *b + ")";
    else if (op == "%") text = "dcw_rt::fmod(" + *a + ", " + *b + ")";
    else text = "(" + *a + " " + op + " " + *b + ")";
    return conv(text, cmp ? K::Bool : k);
  }
  case ExprKind::Ternary: {
    auto c = sub(0, K::Bool);
    if (!c) return c;
    K k = opKind(*natural);
    auto a = sub(1, k);
    if (!a) return a;
    auto b = sub(2, k);
    if (!b) return b;
    return conv("(" + *c + " ? " + *a + " : " + *b + ")", k);
  }
  case ExprKind::Call: {
    const std::string& f = e.text;
    if (auto t = ir::dtypeFromName(f)) {
      auto ak = infer(*e.args[0]);
      if (!ak) return ak.takeError();
      K from = opKind(*ak);
      if (from == K::FloatLit) from = K::Double;
      auto a = sub(0, from);
      if (!a) return a;
      ValueKind fv = vk(from);
      std::string text;
      K result = *natural;
      switch (*t) {
      case ir::DType::Bool: text = convertValue(*a, fv, ValueKind::Bool); break;
      case ir::DType::Float32: text = convertValue(*a, fv, ValueKind::Float); break;
      case ir::DType::Float64: text = convertValue(*a, fv, ValueKind::Double); break;
      case ir::DType::Float16: text = "dcw_rt::round_f16(" + convertValue(*a, fv, ValueKind::Float) + ")"; break;
      case ir::DType::BFloat16: text = "dcw_rt::round_bf16(" + convertValue(*a, fv, ValueKind::Float) + ")"; break;
      default: {
        std::string st = storageType(*t);
        if (fv == ValueKind::Float || fv == ValueKind::Double) text = "dcw_rt::to_int<" + st + ">(" + *a + ")";
        else text = "static_cast<" + st + ">(" + *a + ")";
        if (*t != ir::DType::Int64 || fv == ValueKind::Bool) text = "static_cast<int64_t>(" + text + ")";
        break;
      }
      }
      return conv(text, result);
    }
    if (f == "select") {
      auto c = sub(0, K::Bool);
      if (!c) return c;
      K k = opKind(*natural);
      auto a = sub(1, k);
      if (!a) return a;
      auto b = sub(2, k);
      if (!b) return b;
      return conv("(" + *c + " ? " + *a + " : " + *b + ")", k);
    }
    if (f == "isnan" || f == "isinf") {
      auto ak = infer(*e.args[0]);
      if (!ak) return ak.takeError();
      if (*ak == K::Int || *ak == K::Bool) return conv("false", K::Bool);
      K k = opKind(*ak);
      auto a = sub(0, k);
      if (!a) return a;
      return conv("dcw_rt::" + f + "(" + *a + ")", K::Bool);
    }
    K k = opKind(*natural);
    if ((f == "floor" || f == "ceil" || f == "round" || f == "trunc") && k == K::Int) {
      auto a = sub(0, K::Int);
      if (!a) return a;
      return conv(*a, K::Int);
    }
    if (f == "pow" && k == K::Int) {
      auto a = sub(0, K::Int);
      if (!a) return a;
      auto b = sub(1, K::Int);
      if (!b) return b;
      return conv("dcw_rt::ipow(" + *a + ", " + *b + ")", K::Int);
    }
    std::string text = "dcw_rt::" + f + "(";
    for (size_t i = 0; i < e.args.size(); ++i) {
      auto a = sub(i, k);
      if (!a) return a;
      if (i) text += ", ";
      text += *a;
    }
    text += ")";
    return conv(text, k);
  }
  }
  return error("malformed tasklet expression");
}

Expected<std::string> TaskletPrinter::printExpr(const tasklet::Expr& e, ValueKind want) {
  K k = want == ValueKind::Bool ? K::Bool : want == ValueKind::Int ? K::Int : want == ValueKind::Float ? K::Float : K::Double;
  return emit(e, k);
}

Expected<std::vector<std::string>> TaskletPrinter::print(const tasklet::Program& program) {
  std::vector<std::string> lines;
  for (auto& st : program.statements) {
    if (!st.value) return error("malformed tasklet statement");
    if (st.local) {
      if (bound_.count(st.target)) return error("local '" + st.target + "' has the name of a connector");
      auto k = infer(*st.value);
      if (!k) return k.takeError();
      ValueKind v = toValue(static_cast<int>(*k));
      auto text = printExpr(*st.value, v);
      if (!text) return text.takeError();
      declared_[st.target] = v; // declared after its initialiser: `let x = x` reads an outer x
      lines.push_back(cppType(v) + " " + localId(st.target) + " = " + *text + ";");
      continue;
    }
    auto target = lookup(st.target);
    if (!target || !target->writable || target->array)
      return fail(where_, "tasklet assigns '" + st.target + "', which is not an output connector or a local",
                  "declare a local with `let " + st.target + " = ...` or add an output connector");
    auto text = printExpr(*st.value, target->kind);
    if (!text) return text.takeError();
    lines.push_back(target->cpp + " = " + *text + ";");
  }
  return lines;
}

} // namespace dcw::codegen::cpu
