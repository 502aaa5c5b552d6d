// TaskletCode: the tasklet language — scalar statements over a tasklet's connectors, parsed from
// text into a small typed AST so that code generators print it (C++ now, CUDA and HLS later),
// autodiff can differentiate it symbolically, and no model string is ever pasted raw into
// generated source.
//
// Syntax (C-like):
//   program   := statement (';' | newline)*
//   statement := name '=' expr            (assign an output connector or a local)
//              | 'let' name '=' expr      (a local value)
//   expr      := expr '?' expr ':' expr | expr op expr | unary expr | call | name | name '[' expr ']' | number
//   ops       := || && == != < <= > >= + - * / // % ; unary - !   (`//`: floor division of integers, as
//                symbolic dims write it; `/` and `%` truncate on integers, as in C)
//   calls     := exp log sqrt abs sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh erf
//                floor ceil round(half to even) trunc pow atan2 fmod min max sign isnan isinf
//                sigmoid relu select(c, a, b) and casts named by dtype: float32(x), int64(x), bool(x), ...
//   numbers   := 12, 1.5, 1e-5, 0x1F, true, false, inf, nan
// Names are connector names, locals, or SDFG symbols; `a[i]` indexes an array connector (linear index).
#pragma once

#include "core/ir/DType.h"
#include "core/support/Expected.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::tasklet {

enum class ExprKind { Number, Name, Index, Unary, Binary, Ternary, Call };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::Number;
  std::string text;            // Number: literal as written (normalized); Name/Index: the name; Unary/Binary: operator; Call: function
  bool isInteger = false;      // Number: an integer literal
  std::vector<ExprPtr> args;   // operands (Index: the index expression)
};

struct Statement {
  std::string target;
  bool local = false;          // declared with `let`
  ExprPtr value;
};

struct Program {
  std::vector<Statement> statements;
  std::string str() const;     // canonical text (re-parseable)
};

// Parses tasklet code; `where` locates errors (an element path), which name line and column.
Expected<Program> parse(std::string_view code, const std::string& where);

// Names the program reads that are not its own locals (connectors or symbols), in first-use order.
std::vector<std::string> readNames(const Program& p);
// Names assigned that are not locals (output connectors), in order.
std::vector<std::string> writtenNames(const Program& p);
// True if `name` is a function of the language (including dtype casts).
bool isFunction(std::string_view name);

} // namespace dcw::tasklet
