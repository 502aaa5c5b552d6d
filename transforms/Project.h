// Project: a model with its whole history, saved as `.dcwproj` (JSON): the source model's path
// (relative to the project file when it lies beside it) and SHA-256, every step of the history as
// script lines — including steps that were undone, so redo survives a reopen — and the position.
// The GUI saves projects on request and autosaves them after every change, so a crash loses nothing.
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
