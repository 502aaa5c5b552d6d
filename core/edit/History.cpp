#include "core/edit/History.h"

#include "core/ir/Validate.h"

namespace dcw::edit {

History::History(ir::Sdfg& model) : model_(model) {}

History::~History() {
  // Journals of undone steps own elements that reference nothing outside them; drop newest first.
  while (!steps_.empty()) steps_.pop_back();
}

void History::truncate() {
  while (steps_.size() > position_) steps_.pop_back();
}

Expected<void> History::execute(std::unique_ptr<Command> command) {
  Editor editor(model_);
  auto result = command->execute(editor);
  if (result && validateEachStep) {
    auto problems = ir::validate(model_);
    if (problems.hasErrors()) {
      editor.rollbackTo(0);
      return fail(invalidAfter(*command, problems));
    }
  }
  if (!result) {
    editor.rollbackTo(0);
    return result;
  }
  truncate();
  steps_.push_back(Step{std::move(command), editor.takeJournal()});
  position_ = steps_.size();
  if (onChanged) onChanged();
  return {};
}

Diagnostic History::invalidAfter(const Command& command, const Diagnostics& problems) {
  Diagnostic d = *problems.firstError();
  return Diagnostic::error(d.location, "'" + command.scriptLine() + "' would leave the model invalid (" + d.message + "); nothing was changed",
                           "this is a bug in the command; please report it with the model");
}

void History::undo() {
  if (!canUndo()) return;
  steps_[--position_].journal.undo();
  if (onChanged) onChanged();
}

void History::redo() {
  if (!canRedo()) return;
  steps_[position_++].journal.redo();
  if (onChanged) onChanged();
}

void History::jumpTo(size_t position) {
  position = std::min(position, steps_.size());
  auto notify = std::move(onChanged);
  while (position_ > position) undo();
  while (position_ < position) redo();
  onChanged = std::move(notify);
  if (onChanged) onChanged();
}

} // namespace dcw::edit
