// ApplyTransformation: the command that applies one registered transformation at one match.
// Script form: `apply <Name> slot=path ... option=value ...`. Executing re-checks the options and
// canApply on the model as it is, so a replayed script that no longer fits fails at its line, naming
// the element and what was expected, instead of applying something else. A slot may name a module group
// (`node=main/state0/module:block1`): the command then applies at each of its ops (transforms/ModuleScope.h).
#pragma once

#include "core/edit/Command.h"
#include "transforms/Match.h"

namespace dcw::transforms {
class Transformation;
}

namespace dcw::transforms {

class ApplyTransformation : public edit::Command {
public:
  explicit ApplyTransformation(Match match) : match_(std::move(match)) {}
  const Match& match() const { return match_; }
  std::string scriptLine() const override { return "apply " + match_.str(); }
  std::string title() const override;
  Expected<void> execute(edit::Editor& editor) const override;
  bool keepsDifferentiable() const override;

private:
  Expected<void> executeInModule(const Transformation& t, const std::string& slot, edit::Editor& editor) const;
  Match match_;
};

} // namespace dcw::transforms
