// History: the sequence of commands applied to one model, with a cursor. Executing a command runs
// it through a fresh Editor, re-validates the model and keeps the command with its journal; a command
// that fails, or leaves the model invalid, is rolled back completely and reported (nothing is half
// applied). Undo, redo and jumps to any step replay journals, so they are exact and fast. The GUI's
// undo stack mirrors this history; scripts are written from it (transforms/Script.h).
#pragma once

#include "core/edit/Command.h"
#include "core/edit/Journal.h"

#include <functional>
#include <memory>
#include <vector>

namespace dcw::edit {

class History {
public:
  explicit History(ir::Sdfg& model);
  ~History();
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  ir::Sdfg& model() { return model_; }
  const ir::Sdfg& model() const { return model_; }

  // Executes the command after the current step; the steps that were undone are dropped.
  Expected<void> execute(std::unique_ptr<Command> command);

  size_t size() const { return steps_.size(); }
  size_t position() const { return position_; } // number of steps in effect
  bool canUndo() const { return position_ > 0; }
  bool canRedo() const { return position_ < steps_.size(); }
  void undo();
  void redo();
  void jumpTo(size_t position); // 0 = the model as imported
  const Command& command(size_t i) const { return *steps_[i].command; }
  // Drops every step after the current one.
  void truncate();

  // Validation after each command (on by default; the stress test keeps it on; a script's replay
  // validates once after all its steps and, when the model is invalid then, step by step again).
  bool validateEachStep = true;
  // The error execute() reports for `command` when the model it left fails validation (`problems`).
  static Diagnostic invalidAfter(const Command& command, const Diagnostics& problems);
  // Called after every change of the model or the cursor.
  std::function<void()> onChanged;

private:
  struct Step {
    std::unique_ptr<Command> command;
    Journal journal;
  };
  ir::Sdfg& model_;
  std::vector<Step> steps_;
  size_t position_ = 0;
};

} // namespace dcw::edit
