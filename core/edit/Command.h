// Command: one step of a model's history — apply a transformation, expand a library node, set a
// property, rename, delete, differentiate. A command holds paths and plain values, never pointers,
// so it can be written as one script line and replayed on a freshly imported model. It changes the
// model only through the Editor, which journals every primitive edit; undo needs no code here.
#pragma once

#include "core/edit/Editor.h"
#include "core/support/Expected.h"

#include <memory>
#include <string>

namespace dcw::edit {

class Command {
public:
  virtual ~Command() = default;
  // The script line that replays this command (see core/edit/ScriptSyntax.h).
  virtual std::string scriptLine() const = 0;
  // A short title for the history panel ("MapTiling on Conv_3/map_oc").
  virtual std::string title() const = 0;
  // Applies the command. An error names the element or option at fault; the History rolls back
  // whatever the command had done before failing.
  virtual Expected<void> execute(Editor& editor) const = 0;
  // Whether the result stays differentiable by autodiff (false e.g. for a step that replaces a
  // pure expansion by an opaque implementation).
  virtual bool keepsDifferentiable() const { return true; }
};

} // namespace dcw::edit
