// What the two halves of the main window (MainWindow.cpp: loading and viewing; MainWindowEditing.cpp:
// the history and its panels) share: the model on screen, a project whose model is still loading,
// and the result of a background verification run.
#pragma once

#include "app/gui/MainWindow.h"
#include "codegen/cpu/CppGenerator.h"
#include "core/analysis/Cost.h"
#include "core/analysis/ModelSummary.h"
#include "core/edit/History.h"
#include "core/io/ModelFile.h"
#include "transforms/Project.h"
#include "views/PureExpansions.h"

#include <QString>

namespace dcw::gui {

struct MainWindow::Model {
  io::LoadedModel loaded;
  std::unique_ptr<edit::History> history; // every change to `loaded.sdfg` goes through it
  std::string sha256;                     // of the source file, for scripts and projects
  analysis::ModelSummary summary;
  analysis::CostReport cost;
  std::unique_ptr<views::PureExpansions> pure; // library nodes' `pure` implementations, shown in place
};

// What the code-generation worker produces: the CPU source and its source map, or why there is none.
struct CodeResult {
  QString path;
  QString source;
  std::vector<codegen::SourceMapEntry> sourceMap;
  QString error;
};
// Loads the model file again, replays `steps` (script lines) on that copy, expands it and generates
// the CPU code. Runs on a worker thread; touches nothing of the window.
std::shared_ptr<CodeResult> generateInBackground(const QString& path, std::vector<std::string> steps, std::string target);

struct PendingProject {
  QString file;               // the .dcwproj
  transforms::Project project;
};

struct VerifyResult {
  bool ok = false;
  bool cancelled = false;
  double maxAbsDiff = 0;
  double maxRelDiff = 0;
  QString message;            // the verdict, or why there is none
  qint64 elapsedMs = 0;
};

} // namespace dcw::gui
