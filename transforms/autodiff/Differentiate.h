// Differentiate: the history command for reverse-mode autodiff (transforms/autodiff/Autodiff.h).
// Script form, one line:
//   differentiate of=loss wrt=x,W1,b1 [sum=true | seeds=true] [recompute=t1,t2]
// Without either, `of` must be a scalar loss (a non-scalar one is refused, naming it); `sum=true`
// differentiates the sum of its elements; `seeds=true` adds `<of>_seed` inputs for the seed gradients;
// `recompute` lists intermediates re-run in the backward pass instead of stored. Undo restores the
// model exactly (every change goes through the editor).
#pragma once

#include "core/edit/Command.h"
#include "core/edit/ScriptSyntax.h"
#include "transforms/autodiff/Autodiff.h"

#include <memory>
#include <string>
#include <vector>

namespace dcw::autodiff {

class Differentiate : public edit::Command {
public:
  explicit Differentiate(Request request) : request_(std::move(request)) {}
  const Request& request() const { return request_; }

  std::string scriptLine() const override;
  std::string title() const override;           // "Differentiate loss w.r.t. x, W1"
  Expected<void> execute(edit::Editor& editor) const override;

  // Parses the tokens of a `differentiate` line (tokens[0] is the verb); `where` locates errors.
  static Expected<std::unique_ptr<edit::Command>> parse(const std::vector<edit::Token>& tokens, const std::string& where);

private:
  Request request_;
};

} // namespace dcw::autodiff
