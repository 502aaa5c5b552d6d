// Script: a model's history as a human-readable, versioned text file that replays headless.
//
//   # DCW script: replay with `dcw apply MODEL --script FILE`
//   dcw-script 1
//   model resnet50.onnx sha256=9f2c...e1
//   apply ExpandLibraryNode node=main/state0/Conv_0 implementation=pure
//   apply MapTiling entry=main/state0/Conv_0/state0/conv_map tile_sizes=8,8   # a comment
//   set main/state0/Conv_0/state0/conv_map schedule=cpu_multicore
//
// Elements are named by readable paths (labels), never by ids or list positions, so scripts can be
// edited by hand. A line that does not parse, or a step that does not fit the model, fails with the
// file and line number, the element and what was expected; replay then undoes what it had applied.
#pragma once

#include "core/edit/Command.h"
#include "core/edit/History.h"
#include "core/support/Expected.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::transforms {

constexpr int kScriptVersion = 1;

struct ScriptStep {
  int line = 0;
  std::unique_ptr<edit::Command> command;
};

struct Script {
  int version = kScriptVersion;
  std::string model;  // the source model as written (a path)
  std::string sha256; // of the source model's file; empty if unknown
  std::vector<ScriptStep> steps;
};

// Parses one command line (`apply ...`, `set ...`, `rename ...`, `delete ...`, `differentiate ...`);
// `where` is "file:line".
Expected<std::unique_ptr<edit::Command>> parseCommand(std::string_view line, const std::string& where);
Expected<Script> parseScript(std::string_view text, const std::string& file);
Expected<Script> readScript(const std::string& file);

// The steps in effect in `history` (0 .. position) as script text.
std::string writeScript(const edit::History& history, const std::string& modelPath, const std::string& sha256);

// Replays the script's steps onto the history. On failure every step the replay applied is undone
// and dropped, and the error names the script line.
Expected<void> replay(Script& script, edit::History& history, const std::string& file);

} // namespace dcw::transforms
