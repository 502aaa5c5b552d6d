// Tasklet: a computation over its connectors (DaCe's octagon). The code is kept as text in a stated
// language:
//   dcw  the tasklet language (core/tasklet): scalar statements, parsed, analysed, differentiated and
//        re-printed by every target. Connectors are single elements.
//   cpp  opaque C++ that an implementation (e.g. `onednn`) emits and the CPU target pastes verbatim into
//        a block of its own. Not parsed, not transformable, not differentiable. Connectors: one whose
//        data is an Array is a typed pointer to the memlet subset's first element (`const T*` for
//        inputs, `T*` for outputs); one whose data is a Scalar is a value (`const T` input; an output
//        is a local `T` written back through its memlet, with its WCR). The code may use the globals
//        of the environments it names (Environment.h: `dcw_env_<name>::...`) and may throw a
//        std::exception, which fails the run with the tasklet's path and the exception's message.
//        `flops` is the work of one execution as the implementation declared it (static cost
//        analysis uses it; without it the tasklet's FLOPs are unknown: counted 0 and marked estimated).
//        `inPlace` pairs an output connector with an input connector whose storage it may be given
//        (the code reads that input only through the output, or before writing it: oneDNN's sum
//        post-op, dst = conv(X) + dst): the CPU target's arena places the output's data where the
//        input's is when no node reads the input after the tasklet, so no copy of the input is made.
#pragma once

#include "core/ir/Node.h"
#include "core/symbolic/Expr.h"

#include <optional>

namespace dcw::ir {

enum class TaskletLanguage { Dcw, Cpp };
std::string_view taskletLanguageName(TaskletLanguage l);

class Tasklet : public Node {
public:
  explicit Tasklet(std::string label, std::string code = {}, TaskletLanguage lang = TaskletLanguage::Dcw)
      : Node(ElementKind::Tasklet, std::move(label)), code(std::move(code)), language(lang) {}
  std::string code;
  TaskletLanguage language;
  std::vector<std::string> environments; // cpp: the environments the code uses, by name
  std::optional<sym::Expr> flops;        // cpp: declared FLOPs per execution
  std::vector<std::pair<std::string, std::string>> inPlace; // cpp: {output connector, input connector}

  // A new tasklet with the same label, code, language, environments, flops and in-place pairs (no
  // connectors, no id).
  std::unique_ptr<Tasklet> copyPayload() const {
    auto t = std::make_unique<Tasklet>(label(), code, language);
    t->environments = environments;
    t->flops = flops;
    t->inPlace = inPlace;
    return t;
  }
};

} // namespace dcw::ir
