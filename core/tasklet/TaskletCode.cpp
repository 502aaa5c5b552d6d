// TaskletCode: a hand-written lexer and recursive-descent parser for the tasklet language, the
// canonical printer (minimal parentheses, re-parseable) and the name analyses. Anything outside the
// grammar (quotes, '#', braces, backslashes, non-ASCII bytes, unknown functions) is rejected with
// "line L, column C: ..." so that no model string can smuggle text into generated source.
#include "core/tasklet/TaskletCode.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace dcw::tasklet {

namespace {

constexpr int kMaxDepth = 200;        // expression nesting (parentheses, unary chains, operators)
constexpr int kMaxTreeDepth = 2000;   // depth of the tree, long flat chains included (printers recurse)
constexpr size_t kMaxTreeSize = 100000; // nodes as printed: each `//` repeats its operands three times
constexpr size_t kMaxNameLength = 256;

struct FunctionInfo {
  std::string_view name;
  int arity;
};

constexpr std::array<FunctionInfo, 33> kFunctions{{
    {"exp", 1},   {"log", 1},   {"sqrt", 1},  {"abs", 1},   {"sin", 1},    {"cos", 1},     {"tan", 1},
    {"asin", 1},  {"acos", 1},  {"atan", 1},  {"sinh", 1},  {"cosh", 1},   {"tanh", 1},    {"asinh", 1},
    {"acosh", 1}, {"atanh", 1}, {"erf", 1},   {"floor", 1}, {"ceil", 1},   {"round", 1},   {"trunc", 1},
    {"pow", 2},   {"atan2", 2}, {"fmod", 2},  {"min", 2},   {"max", 2},    {"sign", 1},    {"isnan", 1},
    {"isinf", 1}, {"sigmoid", 1}, {"relu", 1}, {"select", 3}, {"random_uniform", 2},
}};

// dtype casts: every element type the CPU target can compute with.
bool isCastName(std::string_view name) {
  auto t = ir::dtypeFromName(name);
  if (!t) return false;
  switch (*t) {
  case ir::DType::Undefined:
  case ir::DType::String:
  case ir::DType::Complex64:
  case ir::DType::Complex128: return false;
  default: return true;
  }
}

int arityOf(std::string_view name) {
  for (auto& f : kFunctions)
    if (!f.name.empty() && f.name == name) return f.arity;
  if (isCastName(name)) return 1;
  return -1;
}

std::string functionListHint() {
  std::string s = "known functions:";
  for (auto& f : kFunctions)
    if (!f.name.empty()) s += " " + std::string(f.name);
  s += "; casts by dtype: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, "
       "float32, float64";
  return s;
}

bool isReservedWord(std::string_view s) {
  return s == "let" || s == "true" || s == "false" || s == "inf" || s == "nan";
}

enum class Tok { Name, Number, Punct, Separator, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  bool isInteger = false;
  int line = 1;
  int column = 1;
};

std::string describe(const Token& t) {
  switch (t.kind) {
  case Tok::End: return "the end of the code";
  case Tok::Separator: return t.text == ";" ? "';'" : "the end of the line";
  default: return "'" + t.text + "'";
  }
}

class Parser {
public:
  Parser(std::string_view code, const std::string& where) : code_(code), where_(where) {}

  Expected<Program> run() {
    if (auto lexed = lex(); !lexed.ok()) return lexed.takeError();
    Program p;
    std::set<std::string> locals;
    while (true) {
      while (peek().kind == Tok::Separator) ++pos_;
      if (peek().kind == Tok::End) break;
      DCW_TRY(auto st, statement(locals));
      p.statements.push_back(std::move(st));
      const Token& t = peek();
      if (t.kind != Tok::Separator && t.kind != Tok::End)
        return error(t, "expected ';' or a new line after the statement, found " + describe(t));
    }
    return p;
  }

private:
  // ---- lexer ----
  Expected<void> lex() {
    int line = 1, col = 1;
    size_t i = 0;
    auto at = [&](size_t k) -> char { return k < code_.size() ? code_[k] : '\0'; };
    while (i < code_.size()) {
      char c = code_[i];
      Token t;
      t.line = line;
      t.column = col;
      if (c == '\n') {
        t.kind = Tok::Separator;
        t.text = "\n";
        tokens_.push_back(t);
        ++i, ++line, col = 1;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i, ++col;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i;
        while (j < code_.size() && (std::isalnum(static_cast<unsigned char>(code_[j])) || code_[j] == '_')) ++j;
        t.kind = Tok::Name;
        t.text = std::string(code_.substr(i, j - i));
        if (t.text.size() > kMaxNameLength) return errorAt(line, col, "name is longer than 256 characters");
        tokens_.push_back(t);
        col += static_cast<int>(j - i);
        i = j;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
        size_t j = i;
        auto r = number(j, t, line, col);
        if (!r.ok()) return r;
        tokens_.push_back(t);
        col += static_cast<int>(j - i);
        i = j;
        continue;
      }
      static const std::array<std::string_view, 8> two{"||", "&&", "==", "!=", "<=", ">=", "->", "//"};
      std::string_view rest = code_.substr(i);
      bool matched = false;
      for (auto op : two)
        if (rest.substr(0, 2) == op) {
          if (op == "->") break; // not an operator of the language
          t.kind = Tok::Punct;
          t.text = std::string(op);
          tokens_.push_back(t);
          i += 2, col += 2;
          matched = true;
          break;
        }
      if (matched) continue;
      if (std::string_view("+-*/%<>!?:=()[],;").find(c) != std::string_view::npos) {
        t.kind = c == ';' ? Tok::Separator : Tok::Punct;
        t.text = std::string(1, c);
        tokens_.push_back(t);
        ++i, ++col;
        continue;
      }
      std::string shown;
      if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) shown = std::string("'") + c + "'";
      else {
        static const char* hex = "0123456789abcdef";
        shown = std::string("byte 0x") + hex[(static_cast<unsigned char>(c) >> 4) & 15] + hex[static_cast<unsigned char>(c) & 15];
      }
      std::string why = (c == '"' || c == '\'') ? " (the tasklet language has no strings)"
                        : c == '#'              ? " (the tasklet language has no preprocessor or comments)"
                                                : "";
      return errorAt(line, col, "unexpected character " + shown + why);
    }
    Token end;
    end.kind = Tok::End;
    end.line = line;
    end.column = col;
    tokens_.push_back(end);
    return {};
  }

  Expected<void> number(size_t& j, Token& t, int line, int col) {
    size_t i = j;
    t.kind = Tok::Number;
    auto isIdChar = [&](size_t k) {
      return k < code_.size() && (std::isalnum(static_cast<unsigned char>(code_[k])) || code_[k] == '_' || code_[k] == '.');
    };
    if (code_[i] == '0' && i + 1 < code_.size() && (code_[i + 1] == 'x' || code_[i + 1] == 'X')) {
      size_t k = i + 2;
      uint64_t v = 0;
      bool any = false;
      while (k < code_.size() && std::isxdigit(static_cast<unsigned char>(code_[k]))) {
        char h = code_[k];
        int d = std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
        if (v > (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(d)) / 16)
          return errorAt(line, col, "integer literal is out of range (larger than 2^63 - 1)");
        v = v * 16 + static_cast<uint64_t>(d);
        any = true;
        ++k;
      }
      if (!any || isIdChar(k)) return errorAt(line, col, "malformed hexadecimal literal");
      t.text = std::to_string(v);
      t.isInteger = true;
      j = k;
      return {};
    }
    size_t k = i;
    while (k < code_.size() && std::isdigit(static_cast<unsigned char>(code_[k]))) ++k;
    bool isFloat = false;
    if (k < code_.size() && code_[k] == '.') {
      isFloat = true;
      ++k;
      while (k < code_.size() && std::isdigit(static_cast<unsigned char>(code_[k]))) ++k;
    }
    if (k < code_.size() && (code_[k] == 'e' || code_[k] == 'E')) {
      size_t e = k + 1;
      if (e < code_.size() && (code_[e] == '+' || code_[e] == '-')) ++e;
      if (e >= code_.size() || !std::isdigit(static_cast<unsigned char>(code_[e])))
        return errorAt(line, col, "malformed exponent in number");
      while (e < code_.size() && std::isdigit(static_cast<unsigned char>(code_[e]))) ++e;
      k = e;
      isFloat = true;
    }
    if (isIdChar(k)) return errorAt(line, col, "malformed number");
    std::string text(code_.substr(i, k - i));
    if (isFloat) {
      errno = 0;
      double v = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(v)) return errorAt(line, col, "floating-point literal is out of range");
      t.text = text;
      t.isInteger = false;
    } else {
      size_t first = text.find_first_not_of('0');
      std::string digits = first == std::string::npos ? "0" : text.substr(first);
      if (digits.size() > 19 || (digits.size() == 19 && digits > "9223372036854775807"))
        return errorAt(line, col, "integer literal is out of range (larger than 2^63 - 1)");
      t.text = digits;
      t.isInteger = true;
    }
    j = k;
    return {};
  }

  // ---- parser ----
  const Token& peek(size_t ahead = 0) const {
    size_t k = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[k];
  }
  bool isPunct(const Token& t, std::string_view p) const { return t.kind == Tok::Punct && t.text == p; }

  Unexpected errorAt(int line, int col, const std::string& what) const {
    return fail(where_, "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what);
  }
  Unexpected error(const Token& t, const std::string& what, std::string hint = {}) const {
    return fail(where_, "line " + std::to_string(t.line) + ", column " + std::to_string(t.column) + ": " + what,
                std::move(hint));
  }

  Expected<Statement> statement(std::set<std::string>& locals) {
    Statement st;
    Token t = peek();
    if (t.kind == Tok::Name && t.text == "let") {
      ++pos_;
      st.local = true;
      t = peek();
    }
    if (t.kind != Tok::Name) return error(t, "expected the name of an output or local, found " + describe(t));
    if (isReservedWord(t.text)) return error(t, "'" + t.text + "' is a reserved word and cannot be assigned");
    ++pos_;
    const Token& eq = peek();
    if (!isPunct(eq, "=")) {
      if (isPunct(eq, "(")) return error(eq, "expected '=' after '" + t.text + "': a statement assigns a value, it does not call a function");
      return error(eq, "expected '=' after '" + t.text + "', found " + describe(eq));
    }
    ++pos_;
    if (st.local) {
      if (locals.count(t.text)) return error(t, "local '" + t.text + "' is already declared");
      if (written_.count(t.text)) return error(t, "'" + t.text + "' is already assigned as an output; pick another local name");
    }
    DCW_TRY(auto value, expr(0));
    if (st.local) locals.insert(t.text);
    else if (!locals.count(t.text)) written_.insert(t.text);
    st.target = t.text;
    st.value = std::move(value);
    return st;
  }

  ExprPtr make(ExprKind k, std::string text, std::vector<ExprPtr> args = {}, bool isInteger = false) {
    int d = 0;
    size_t size = 1;
    for (auto& a : args) d = std::max(d, treeDepth_[a.get()]), size = std::min(size + treeSize_[a.get()], kMaxTreeSize + 1);
    auto e = std::make_shared<Expr>();
    treeDepth_[e.get()] = d + 1;
    treeSize_[e.get()] = size;
    e->kind = k;
    e->text = std::move(text);
    e->args = std::move(args);
    e->isInteger = isInteger;
    return e;
  }

  // Binary precedence: 1 ||, 2 &&, 3 == !=, 4 < <= > >=, 5 + -, 6 * / // %; 0 means not a binary operator.
  static int binaryPrec(const Token& t) {
    if (t.kind != Tok::Punct) return 0;
    const std::string& s = t.text;
    if (s == "||") return 1;
    if (s == "&&") return 2;
    if (s == "==" || s == "!=") return 3;
    if (s == "<" || s == "<=" || s == ">" || s == ">=") return 4;
    if (s == "+" || s == "-") return 5;
    if (s == "*" || s == "/" || s == "//" || s == "%") return 6;
    return 0;
  }

  struct DepthGuard {
    int& d;
    explicit DepthGuard(int& depth) : d(depth) { ++d; }
    ~DepthGuard() { --d; }
  };

  // expr := binary ('?' expr ':' expr)?
  Expected<ExprPtr> expr(int) {
    DepthGuard g(depth_);
    if (depth_ > kMaxDepth) return error(peek(), "expression is nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    auto cond = binary(1);
    if (!cond) return cond;
    if (!isPunct(peek(), "?")) return cond;
    ++pos_;
    auto a = expr(0);
    if (!a) return a;
    if (!isPunct(peek(), ":")) return error(peek(), "expected ':' in a conditional expression, found " + describe(peek()));
    ++pos_;
    auto b = expr(0);
    if (!b) return b;
    return make(ExprKind::Ternary, "?", {*cond, *a, *b});
  }

  Expected<ExprPtr> binary(int minPrec) {
    auto lhs = unary();
    if (!lhs) return lhs;
    ExprPtr left = *lhs;
    while (true) {
      const Token& op = peek();
      int p = binaryPrec(op);
      if (p == 0 || p < minPrec) break;
      std::string text = op.text;
      ++pos_;
      DepthGuard g(depth_);
      if (depth_ > kMaxDepth) return error(op, "expression is nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
      auto rhs = binary(p + 1);
      if (!rhs) return rhs;
      left = text == "//" ? floorDivision(left, *rhs) : make(ExprKind::Binary, text, {left, *rhs});
      if (treeSize_[left.get()] > kMaxTreeSize)
        return error(op, "expression is too long (more than " + std::to_string(kMaxTreeSize) + " terms, each floor division counting its operands three times)");
      if (treeDepth_[left.get()] > kMaxTreeDepth)
        return error(op, "expression is too long (more than " + std::to_string(kMaxTreeDepth) + " operators in a chain)");
    }
    return left;
  }

  // a // b, the floor division of symbolic dims (sym::Expr prints it so), in the language's truncating
  // integer operators: a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0).
  ExprPtr floorDivision(const ExprPtr& a, const ExprPtr& b) {
    auto number = [&](const char* v) { return make(ExprKind::Number, v, {}, true); };
    auto bin = [&](const char* op, ExprPtr x, ExprPtr y) { return make(ExprKind::Binary, op, {std::move(x), std::move(y)}); };
    auto zero = number("0");
    auto inexact = bin("!=", bin("%", a, b), zero);
    auto signsDiffer = bin("!=", bin("<", a, zero), bin("<", b, zero));
    auto adjust = make(ExprKind::Call, "select", {bin("&&", inexact, signsDiffer), number("1"), zero});
    return bin("-", bin("/", a, b), adjust);
  }

  Expected<ExprPtr> unary() {
    DepthGuard g(depth_);
    if (depth_ > kMaxDepth) return error(peek(), "expression is nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    const Token& t = peek();
    if (isPunct(t, "-") || isPunct(t, "!")) {
      std::string op = t.text;
      ++pos_;
      auto e = unary();
      if (!e) return e;
      return make(ExprKind::Unary, op, {*e});
    }
    if (isPunct(t, "+")) { // unary plus: no node
      ++pos_;
      return unary();
    }
    return primary();
  }

  Expected<ExprPtr> primary() {
    Token t = peek();
    if (t.kind == Tok::Number) {
      ++pos_;
      return make(ExprKind::Number, t.text, {}, t.isInteger);
    }
    if (isPunct(t, "(")) {
      ++pos_;
      auto e = expr(0);
      if (!e) return e;
      if (!isPunct(peek(), ")")) return error(peek(), "expected ')', found " + describe(peek()));
      ++pos_;
      return e;
    }
    if (t.kind == Tok::Name) {
      ++pos_;
      if (isPunct(peek(), "(")) {
        int arity = arityOf(t.text);
        if (arity < 0) return error(t, "unknown function '" + t.text + "'", functionListHint());
        ++pos_;
        std::vector<ExprPtr> args;
        if (!isPunct(peek(), ")")) {
          while (true) {
            auto a = expr(0);
            if (!a) return a;
            args.push_back(*a);
            if (isPunct(peek(), ",")) {
              ++pos_;
              continue;
            }
            break;
          }
        }
        if (!isPunct(peek(), ")")) return error(peek(), "expected ',' or ')' in the call of '" + t.text + "', found " + describe(peek()));
        ++pos_;
        if (static_cast<int>(args.size()) != arity)
          return error(t, "function '" + t.text + "' takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                              ", not " + std::to_string(args.size()));
        return make(ExprKind::Call, t.text, std::move(args));
      }
      if (t.text == "true" || t.text == "false" || t.text == "inf" || t.text == "nan") return make(ExprKind::Number, t.text);
      if (t.text == "let") return error(t, "'let' starts a statement; it cannot appear in an expression");
      if (isPunct(peek(), "[")) {
        ++pos_;
        auto idx = expr(0);
        if (!idx) return idx;
        if (!isPunct(peek(), "]")) return error(peek(), "expected ']', found " + describe(peek()));
        ++pos_;
        return make(ExprKind::Index, t.text, {*idx});
      }
      return make(ExprKind::Name, t.text);
    }
    return error(t, "expected an expression, found " + describe(t));
  }

  std::string_view code_;
  const std::string& where_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::set<std::string> written_;
  std::map<const Expr*, int> treeDepth_;
  std::map<const Expr*, size_t> treeSize_;
};

// ---- printer ----

int precOf(const Expr& e) {
  switch (e.kind) {
  case ExprKind::Ternary: return 0;
  case ExprKind::Binary: {
    const std::string& s = e.text;
    if (s == "||") return 1;
    if (s == "&&") return 2;
    if (s == "==" || s == "!=") return 3;
    if (s == "<" || s == "<=" || s == ">" || s == ">=") return 4;
    if (s == "+" || s == "-") return 5;
    return 6;
  }
  case ExprKind::Unary: return 7;
  default: return 8;
  }
}

void printExpr(const Expr& e, int minPrec, std::string& out);

void printAt(const ExprPtr& e, int minPrec, std::string& out) {
  if (!e) {
    out += "0";
    return;
  }
  printExpr(*e, minPrec, out);
}

void printExpr(const Expr& e, int minPrec, std::string& out) {
  int p = precOf(e);
  bool paren = p < minPrec;
  if (paren) out += '(';
  switch (e.kind) {
  case ExprKind::Number:
  case ExprKind::Name: out += e.text; break;
  case ExprKind::Index:
    out += e.text + "[";
    printAt(e.args.empty() ? nullptr : e.args[0], 0, out);
    out += "]";
    break;
  case ExprKind::Call:
    out += e.text + "(";
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i) out += ", ";
      printAt(e.args[i], 0, out);
    }
    out += ")";
    break;
  case ExprKind::Unary: {
    out += e.text;
    // A unary operand of a unary operator is printed after a blank ("- -a", never "--a", which would
    // read as a decrement in C++), not in parentheses: "-(-(-a))" costs the parser three nesting
    // levels per operator where "- - -a" costs one, so a program within the nesting limit printed
    // back into one beyond it (found by tests/fuzz/FuzzTaskletCode.cpp).
    const ExprPtr operand = e.args.empty() ? nullptr : e.args[0];
    if (operand && operand->kind == ExprKind::Unary) {
      out += ' ';
      printExpr(*operand, 7, out);
    } else {
      printAt(operand, 8, out);
    }
    break;
  }
  case ExprKind::Binary:
    printAt(e.args.size() > 0 ? e.args[0] : nullptr, p, out);
    out += " " + e.text + " ";
    printAt(e.args.size() > 1 ? e.args[1] : nullptr, p + 1, out);
    break;
  case ExprKind::Ternary:
    printAt(e.args.size() > 0 ? e.args[0] : nullptr, 1, out);
    out += " ? ";
    printAt(e.args.size() > 1 ? e.args[1] : nullptr, 0, out);
    out += " : ";
    printAt(e.args.size() > 2 ? e.args[2] : nullptr, 0, out);
    break;
  }
  if (paren) out += ')';
}

void collectReads(const Expr& e, const std::set<std::string>& known, std::set<std::string>& seen,
                  std::vector<std::string>& out) {
  if (e.kind == ExprKind::Name || e.kind == ExprKind::Index)
    if (!known.count(e.text) && seen.insert(e.text).second) out.push_back(e.text);
  for (auto& a : e.args)
    if (a) collectReads(*a, known, seen, out);
}

} // namespace

std::string Program::str() const {
  std::string out;
  for (size_t i = 0; i < statements.size(); ++i) {
    if (i) out += "\n";
    const auto& s = statements[i];
    if (s.local) out += "let ";
    out += s.target + " = ";
    printAt(s.value, 0, out);
  }
  return out;
}

Expected<Program> parse(std::string_view code, const std::string& where) {
  if (code.size() > (1u << 20)) return fail(where, "tasklet code is longer than 1 MiB");
  Parser p(code, where);
  return p.run();
}

std::vector<std::string> readNames(const Program& p) {
  // A name counts as read from outside unless a statement before the read defined it (a `let` local,
  // or an output already assigned, whose current value is then the tasklet's own).
  std::set<std::string> known, seen;
  std::vector<std::string> out;
  for (auto& s : p.statements) {
    if (s.value) collectReads(*s.value, known, seen, out);
    known.insert(s.target);
  }
  return out;
}

std::vector<std::string> writtenNames(const Program& p) {
  std::set<std::string> locals, seen;
  std::vector<std::string> out;
  for (auto& s : p.statements) {
    if (s.local) {
      locals.insert(s.target);
      continue;
    }
    if (!locals.count(s.target) && seen.insert(s.target).second) out.push_back(s.target);
  }
  return out;
}

bool isFunction(std::string_view name) { return arityOf(name) >= 0; }

} // namespace dcw::tasklet
