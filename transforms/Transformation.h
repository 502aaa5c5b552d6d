// Transformation: a rewrite of the IR that keeps the program's meaning. Match and apply are
// separate and a match is plain data (transforms/Match.h), so the GUI can list, preview and explain
// matches, and scripts can replay them.
//  - pattern(): the structural shape, enumerated by the matcher;
//  - canApply(): the precise preconditions; `whyNot` receives the reason when they fail;
//  - apply(): the rewrite, only through the journaling Editor (undo comes for free).
// Options are named and typed, so the transformations panel can edit them and scripts record them.
// Each concrete transformation's header shows a before/after and its preconditions.
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "transforms/Match.h"
#include "transforms/Pattern.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::transforms {

struct OptionSpec {
  enum class Type { Int, IntList, Bool, Choice, Text };
  std::string name;
  Type type = Type::Int;
  std::string defaultValue;         // as text, the way scripts write it
  std::string description;
  std::vector<std::string> choices; // for Choice
};
std::string_view optionTypeName(OptionSpec::Type t);

class Transformation {
public:
  virtual ~Transformation() = default;
  virtual std::string_view name() const = 0;        // stable; used in scripts
  virtual std::string_view description() const = 0; // one sentence for the browser and menus
  // Grouping in menus: "Library nodes", "Maps", "Fusion", "Data", "Control flow", "Graph", "Targets".
  virtual std::string_view category() const = 0;
  virtual const Pattern& pattern() const = 0;
  virtual std::vector<OptionSpec> options() const { return {}; }
  virtual bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const = 0;
  virtual Expected<void> apply(const Match& match, edit::Editor& editor) const = 0;
  // Whether autodiff can still differentiate the result (true for rewrites that keep maps, tasklets
  // and memlets analysable; false for those that introduce opaque code).
  virtual bool keepsDifferentiable() const { return true; }

  // The option's value in the match, or its default.
  std::string option(const Match& match, const std::string& name) const;
  // Checks that every option in the match is declared and parses as its type; errors name the option.
  Expected<void> checkOptions(const Match& match, const std::string& where) const;
};

// apply's side of a transformation whose canApply is an analysis filling a plan
// (`analyse(match, root, plan, whyNot)`): runs it and turns a refusal into an error at the path of
// `slot`, with the first reason the analysis gave, or `fallback` when it gave none.
template <class Plan, class Analyse>
Expected<void> analyseForApply(Analyse&& analyse, const Match& match, const ir::Sdfg& root, Plan& plan,
                               const std::string& slot, const std::string& fallback = "does not apply") {
  Diagnostics why;
  if (analyse(match, root, plan, &why)) return {};
  return fail(match.elements.at(slot), why.firstError() ? why.firstError()->message : fallback);
}

} // namespace dcw::transforms
