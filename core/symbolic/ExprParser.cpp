// ExprParser.cpp: Expr::parse, a recursive-descent parser for the syntax Expr::str() prints, so that
// users can type shapes, ranges and conditions and every printed expression reads back unchanged.
// Precedence, loosest first: or (||) < and (&&) < not (!) < comparison (== != < <= > >=, not chained)
// < additive (+ -) < multiplicative (* // %) < unary minus. The text is user input: every problem is
// reported as a Diagnostic naming the column and what was expected, never as an assert or exception.
#include "core/symbolic/Expr.h"

#include <array>
#include <cctype>

namespace dcw::sym {

namespace {

constexpr std::array<std::string_view, 7> kKeywords = {"and", "or", "not", "true", "false", "min", "max"};
constexpr int kMaxNesting = 200; // deeper input is rejected rather than risking the stack

bool isKeyword(std::string_view s) {
  for (std::string_view k : kKeywords)
    if (s == k) return true;
  return false;
}

enum class Tok {
  End, Int, Ident, Keyword, Plus, Minus, Star, SlashSlash, Percent, LParen, RParen, Comma,
  EqEq, NotEq, Less, LessEq, Greater, GreaterEq, AndAnd, OrOr, Bang,
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text; // as written
  size_t column = 0;     // 1-based
};

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<Expr> parse() {
    if (!tokenize()) return error();
    if (tokens_.size() == 1) {
      failToken(tokens_[0], "the expression is empty", "write an integer expression such as 'N + 1'");
      return error();
    }
    auto e = parseOr();
    if (!e) return error();
    if (peek().kind != Tok::End) {
      failToken(peek(), "unexpected " + describe(peek()) + " after a complete expression",
            "remove it or join it with an operator");
      return error();
    }
    return *e;
  }

private:
  // ---- lexing ----

  bool tokenize() {
    size_t i = 0;
    const size_t n = text_.size();
    while (true) {
      while (i < n && std::isspace(static_cast<unsigned char>(text_[i]))) ++i;
      Token t;
      t.column = i + 1;
      if (i >= n) {
        t.kind = Tok::End;
        tokens_.push_back(t);
        return true;
      }
      const char c = text_[i];
      const char next = i + 1 < n ? text_[i + 1] : '\0';
      size_t len = 1;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        while (i + len < n && std::isdigit(static_cast<unsigned char>(text_[i + len]))) ++len;
        t.kind = Tok::Int;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        while (i + len < n && (std::isalnum(static_cast<unsigned char>(text_[i + len])) || text_[i + len] == '_')) ++len;
        t.kind = isKeyword(text_.substr(i, len)) ? Tok::Keyword : Tok::Ident;
      } else {
        switch (c) {
        case '+': t.kind = Tok::Plus; break;
        case '-': t.kind = Tok::Minus; break;
        case '*': t.kind = Tok::Star; break;
        case '%': t.kind = Tok::Percent; break;
        case '(': t.kind = Tok::LParen; break;
        case ')': t.kind = Tok::RParen; break;
        case ',': t.kind = Tok::Comma; break;
        case '/':
          if (next != '/') {
            failAt(t.column, "'/' is not an operator", "use '//' for floor division");
            return false;
          }
          t.kind = Tok::SlashSlash;
          len = 2;
          break;
        case '=':
          if (next != '=') {
            failAt(t.column, "'=' is not an operator", "use '==' to compare");
            return false;
          }
          t.kind = Tok::EqEq;
          len = 2;
          break;
        case '!':
          if (next == '=') { t.kind = Tok::NotEq; len = 2; }
          else t.kind = Tok::Bang;
          break;
        case '<':
          if (next == '=') { t.kind = Tok::LessEq; len = 2; }
          else t.kind = Tok::Less;
          break;
        case '>':
          if (next == '=') { t.kind = Tok::GreaterEq; len = 2; }
          else t.kind = Tok::Greater;
          break;
        case '&':
          if (next != '&') {
            failAt(t.column, "'&' is not an operator", "use 'and' (or '&&')");
            return false;
          }
          t.kind = Tok::AndAnd;
          len = 2;
          break;
        case '|':
          if (next != '|') {
            failAt(t.column, "'|' is not an operator", "use 'or' (or '||')");
            return false;
          }
          t.kind = Tok::OrOr;
          len = 2;
          break;
        default: {
          std::string shown = std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "\\x" + hex(c);
          failAt(t.column, "unexpected character '" + shown + "'",
                 "expressions use integers, identifiers, + - * // % ( ), min/max, comparisons and and/or/not");
          return false;
        }
        }
      }
      t.text = text_.substr(i, len);
      tokens_.push_back(t);
      i += len;
    }
  }

  static std::string hex(char c) {
    static const char* digits = "0123456789abcdef";
    const auto u = static_cast<unsigned char>(c);
    return {digits[u >> 4], digits[u & 15]};
  }

  // ---- errors ----

  void failAt(size_t column, const std::string& message, const std::string& hint = {}) {
    if (failed_) return; // keep the first, innermost error
    failed_ = true;
    message_ = "column " + std::to_string(column) + ": " + message;
    hint_ = hint;
  }
  void failToken(const Token& t, const std::string& message, const std::string& hint = {}) {
    failAt(t.column, message, hint);
  }
  Unexpected error() const { return fail("expression '" + std::string(text_) + "'", message_, hint_); }

  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return "the end of the input";
    return "'" + std::string(t.text) + "'";
  }

  void expected(const std::string& what) { failToken(peek(), "expected " + what + ", found " + describe(peek())); }

  // ---- tokens ----

  const Token& peek() const { return tokens_[pos_]; }
  const Token& advance() {
    const Token& t = tokens_[pos_];
    if (t.kind != Tok::End) ++pos_;
    return t;
  }
  bool atKeyword(std::string_view k) const { return peek().kind == Tok::Keyword && peek().text == k; }

  // Guards recursion on nested parentheses, unary operators and `not`.
  struct Nesting {
    explicit Nesting(Parser& p) : p_(p) { ++p_.depth_; }
    ~Nesting() { --p_.depth_; }
    Parser& p_;
  };
  bool tooDeep() {
    if (depth_ <= kMaxNesting) return false;
    failToken(peek(), "the expression is nested too deeply", "split it up");
    return true;
  }

  // ---- grammar ----

  std::optional<Expr> parseOr() {
    Nesting guard(*this);
    if (tooDeep()) return std::nullopt;
    auto first = parseAnd();
    if (!first) return std::nullopt;
    std::vector<Expr> items{*first};
    while (atKeyword("or") || peek().kind == Tok::OrOr) {
      advance();
      auto rhs = parseAnd();
      if (!rhs) return std::nullopt;
      items.push_back(*rhs);
    }
    return items.size() == 1 ? items[0] : detail::simplified(Op::Or, std::move(items));
  }

  std::optional<Expr> parseAnd() {
    auto first = parseNot();
    if (!first) return std::nullopt;
    std::vector<Expr> items{*first};
    while (atKeyword("and") || peek().kind == Tok::AndAnd) {
      advance();
      auto rhs = parseNot();
      if (!rhs) return std::nullopt;
      items.push_back(*rhs);
    }
    return items.size() == 1 ? items[0] : detail::simplified(Op::And, std::move(items));
  }

  std::optional<Expr> parseNot() {
    if (atKeyword("not") || peek().kind == Tok::Bang) {
      Nesting guard(*this);
      if (tooDeep()) return std::nullopt;
      advance();
      auto x = parseNot();
      if (!x) return std::nullopt;
      return logicalNot(*x);
    }
    return parseComparison();
  }

  static std::optional<Op> comparisonOp(Tok k) {
    switch (k) {
    case Tok::EqEq: return Op::Eq;
    case Tok::NotEq: return Op::Ne;
    case Tok::Less: return Op::Lt;
    case Tok::LessEq: return Op::Le;
    case Tok::Greater: return Op::Gt;
    case Tok::GreaterEq: return Op::Ge;
    default: return std::nullopt;
    }
  }

  std::optional<Expr> parseComparison() {
    auto lhs = parseAdditive();
    if (!lhs) return std::nullopt;
    auto op = comparisonOp(peek().kind);
    if (!op) return lhs;
    advance();
    auto rhs = parseAdditive();
    if (!rhs) return std::nullopt;
    if (comparisonOp(peek().kind)) {
      failToken(peek(), "comparisons cannot be chained", "join them with 'and', e.g. 'a < b and b < c'");
      return std::nullopt;
    }
    return detail::simplified(*op, {*lhs, *rhs});
  }

  std::optional<Expr> parseAdditive() {
    auto first = parseMultiplicative();
    if (!first) return std::nullopt;
    std::vector<Expr> terms{*first}; // summed at once: long sums stay linear-time
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      const bool minus = advance().kind == Tok::Minus;
      auto rhs = parseMultiplicative();
      if (!rhs) return std::nullopt;
      terms.push_back(minus ? -*rhs : *rhs);
    }
    return terms.size() == 1 ? terms[0] : detail::makeAdd(std::move(terms));
  }

  std::optional<Expr> parseMultiplicative() {
    auto first = parseUnary();
    if (!first) return std::nullopt;
    std::vector<Expr> factors{*first}; // a run of '*' is multiplied at once
    while (peek().kind == Tok::Star || peek().kind == Tok::SlashSlash || peek().kind == Tok::Percent) {
      const Tok k = advance().kind;
      auto rhs = parseUnary();
      if (!rhs) return std::nullopt;
      if (k == Tok::Star) {
        factors.push_back(*rhs);
        continue;
      }
      Expr lhs = factors.size() == 1 ? factors[0] : detail::makeMul(std::move(factors));
      factors = {k == Tok::SlashSlash ? floorDiv(lhs, *rhs) : mod(lhs, *rhs)};
    }
    return factors.size() == 1 ? factors[0] : detail::makeMul(std::move(factors));
  }

  std::optional<Expr> parseUnary() {
    if (peek().kind == Tok::Minus || peek().kind == Tok::Plus) {
      Nesting guard(*this);
      if (tooDeep()) return std::nullopt;
      const bool minus = advance().kind == Tok::Minus;
      if (minus && peek().kind == Tok::Int) // "-9223372036854775808" is a literal of its own
        return integer(advance(), true);
      auto x = parseUnary();
      if (!x) return std::nullopt;
      return minus ? -*x : *x;
    }
    return parsePrimary();
  }

  std::optional<Expr> integer(const Token& t, bool negative) {
    // Accumulate the magnitude as unsigned so that -2^63 is representable.
    const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(INT64_MAX);
    uint64_t v = 0;
    for (char c : t.text) {
      const auto digit = static_cast<uint64_t>(c - '0');
      if (v > (limit - digit) / 10) {
        failToken(t, "integer literal " + std::string(negative ? "-" : "") + std::string(t.text) +
                     " does not fit in 64 bits",
              "use a value between -9223372036854775808 and 9223372036854775807");
        return std::nullopt;
      }
      v = v * 10 + digit;
    }
    if (!negative) return Expr(static_cast<int64_t>(v));
    return Expr(v == (uint64_t{1} << 63) ? INT64_MIN : -static_cast<int64_t>(v));
  }

  std::optional<Expr> parsePrimary() {
    const Token& t = peek();
    switch (t.kind) {
    case Tok::Int: return integer(advance(), false);
    case Tok::Ident: {
      advance();
      if (peek().kind == Tok::LParen) {
        failToken(t, "unknown function '" + std::string(t.text) + "'", "the functions are min(...) and max(...)");
        return std::nullopt;
      }
      return Expr::symbol(std::string(t.text));
    }
    case Tok::Keyword:
      if (t.text == "true" || t.text == "false") {
        advance();
        return Expr(t.text == "true" ? 1 : 0);
      }
      if (t.text == "min" || t.text == "max") return parseCall();
      break;
    case Tok::LParen: {
      advance();
      auto inner = parseOr();
      if (!inner) return std::nullopt;
      if (peek().kind != Tok::RParen) {
        expected("')'");
        return std::nullopt;
      }
      advance();
      return inner;
    }
    default: break;
    }
    expected("an operand");
    return std::nullopt;
  }

  std::optional<Expr> parseCall() {
    const Token& name = advance();
    const Op op = name.text == "min" ? Op::Min : Op::Max;
    if (peek().kind != Tok::LParen) {
      expected("'(' after '" + std::string(name.text) + "'");
      return std::nullopt;
    }
    advance();
    std::vector<Expr> args;
    while (true) {
      auto arg = parseOr();
      if (!arg) return std::nullopt;
      args.push_back(*arg);
      if (peek().kind == Tok::Comma) {
        advance();
        continue;
      }
      if (peek().kind == Tok::RParen) {
        advance();
        break;
      }
      expected("',' or ')' in " + std::string(name.text) + "(...)");
      return std::nullopt;
    }
    return detail::simplified(op, std::move(args));
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
  std::string message_;
  std::string hint_;
};

} // namespace

Expected<Expr> Expr::parse(std::string_view text) { return Parser(text).parse(); }

bool isIdentifier(std::string_view s) {
  if (s.empty()) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return !isKeyword(s);
}

} // namespace dcw::sym
