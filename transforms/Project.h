// Project: a model with its whole history, saved as `.dcwproj` (JSON): the source model's path
// (relative to the project file when it lies beside it) and SHA-256, every step of the history as
// script lines — including steps that were undone, so redo survives a reopen — and the position.
// The GUI saves projects on request and autosaves them after every change, so a crash loses nothing.
//
// No lost work: a save is atomic and durable (core/support/AtomicFile.h), and it keeps the version it
// replaces beside it as `NAME.dcwproj~` (unless that version was corrupt: then the older kept copy,
// the last good one, stays). Opening a project that is corrupt says so and names the kept copy when
// it loads; a project of a newer format version says which version and that a newer DCW reads it.
//   {"format": "dcwproj", "version": 1, "model": "resnet50.onnx", "sha256": "...",
//    "position": 2, "steps": [["apply ExpandLibraryNode node=main/state0/Conv_0"], ["set ..."]]}
#pragma once

#include "core/edit/History.h"
#include "core/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::transforms {

struct Project {
  std::string model;                           // absolute path of the source model
  std::string sha256;
  std::vector<std::vector<std::string>> steps; // one entry per history step: its script line(s)
  size_t position = 0;
};

Project projectOf(const edit::History& history, const std::string& modelPath, const std::string& sha256);
Expected<void> saveProject(const Project& project, const std::string& file);
// Errors, each located at `file` (plus ", or open the previous good copy kept as FILE~" / "the previous
// good copy is kept as FILE~: open that instead" as the hint when that copy loads):
//   cannot be read · is corrupt: cut short after N bytes · is corrupt: not valid JSON (at byte N)
//   is not a DCW project (no "format": "dcwproj") · is corrupt: "version" is missing or not a whole number
//   is corrupt: format version N does not exist (this DCW reads 1) · is corrupt: "FIELD" is missing or
//   malformed · is corrupt: its position (P) is past its last step (S)
//   was written by a newer DCW (format version N; this one reads 1)
Expected<Project> loadProject(const std::string& file);
// The text saveProject writes and the parse loadProject does, for a project file named `file` (the
// model path is written relative to its folder and read back against it; errors name it). Any text
// either parses or is refused with a diagnostic — never an exception (the fuzz target feeds it bytes).
std::string projectText(const Project& project, const std::string& file);
Expected<Project> parseProject(std::string_view text, const std::string& file);
// Replays every step onto a history of the freshly loaded model and moves to the saved position.
// Errors name the project file and the step.
Expected<void> restoreProject(const Project& project, edit::History& history, const std::string& file);

} // namespace dcw::transforms
