// MainWindow: the dcw-gui workbench window — the graph canvas in the centre (views::GraphCanvas),
// docks for the outline of the hierarchy, the property inspector, the summary, the weight viewer,
// the symbol values and the problems list, a canvas toolbar (search by name / op type / regex with
// next and previous, overlays for parameters / FLOPs / bytes moved, expand and collapse, fit), a
// status bar with the model's totals, dark and light themes, and SVG/PNG export.
//
// Views emit intent, the window acts: a click on the canvas, a row of the outline or a problem asks
// for a selection; the window sets the one shared views::Selection and every panel follows it.
// Nothing here edits the SDFG.
//
// Loading runs on a worker thread (io::loadModel + analysis::summarize + analysis::analyzeCost), so a
// big model never freezes the window; the model on screen stays until the new one has loaded. If
// loading fails the window keeps the previous model, emits loadFailed() with the Diagnostic's
// one-line text (it names the file and the problem) and, when showsDialogs is true, also shows it in
// a message box. Tests and the headless --screenshot mode turn dialogs off and listen to the signals.
// Dock layout, geometry and theme are saved in QSettings when the window closes; restoreLayout()
// brings them back (the interactive app calls it; tests and headless runs do not).
#pragma once

#include "core/ir/Element.h"
#include "views/ProfileTableModel.h"
#include "views/Theme.h"

#include <QMainWindow>
#include <QStringList>

#include <atomic>

#include <map>
#include <unordered_map>
#include <memory>
#include <string>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QMenu;
class QProgressBar;
class QListView;
class QTreeView;

namespace dcw::ir {
class Sdfg;
}
namespace dcw::edit {
class Command;
class History;
}
namespace dcw::analysis {
struct CostReport;
}
namespace dcw::views {
class CodeView;
class CodeDiffView;
class CompareView;
class ProfilePanel;
class GraphCanvas;
class HistoryModel;
class TransformationsPanel;
class OutlineModel;
class PropertyModel;
class Selection;
class SummaryView;
class SymbolsView;
class WeightView;
} // namespace dcw::views

namespace dcw::gui {

struct LoadResult; // what the worker thread hands back (MainWindow.cpp)
struct VerifyResult; // what the verification worker hands back (MainWindowEditing.cpp)
struct PendingProject; // a project whose model is loading (MainWindowEditing.cpp)
struct CodeResult; // what the code-generation worker hands back (MainWindow.cpp)

class MainWindow : public QMainWindow {
  Q_OBJECT
  Q_PROPERTY(bool showsDialogs READ showsDialogs WRITE setShowsDialogs)
  Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)

public:
  static constexpr int kMaxRecentFiles = 8;
  // Static cost overlays, then measured ones (from the last profile).
  // FpgaCycles: an FPGA profile's cycles per run — each kernel's state its total (RTL-measured where it was
  // simulated, else estimated), each node the estimated cycles of the loops inside it.
  enum class Overlay { None, Parameters, Flops, Bytes, MeasuredTime, AchievedFlops, AchievedBandwidth, FpgaCycles };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading `path` in the background. A later call supersedes an earlier one still running
  // (its result is dropped). Emits modelLoaded() or loadFailed() when done. Steps of the model on screen
  // that no project holds are offered for saving first (closeModel); a Cancel leaves everything as is.
  void openFile(const QString& path);
  // The input shapes for opening a TorchScript model without asking (tests, `dcw-gui --torch-input`):
  // specs as `dcw import-torch --input` takes them, separated by spaces. Empty: ask when dialogs are on.
  void setTorchInputs(const QString& specs) { torchInputs_ = specs; }
  // For a Python file: the nn.Module class to build without asking (`dcw-gui --torch-class`).
  void setTorchClass(const QString& name) { torchClass_ = name; }
  // File > Compare: a window with `other` (a model file; empty: this model as imported) beside the model
  // on screen at its current step, the differences marked (views/CompareView). False when it cannot load.
  bool compareWith(const QString& other);
  // The model at two points of its history (0: as imported, k: after k steps) side by side, `left` on
  // the left; each is the model file replayed to that point. False (with loadFailed) when a point is out
  // of range or does not replay.
  bool compareHistoryPoints(int left, int right);
  views::CompareView* compareView() const { return compare_; }

  // File ▸ Close: back to the empty window, the model and everything computed from it freed. A load,
  // code generation, verification or profile still running is cancelled and its result dropped. With
  // dialogs on, steps not saved in a project are offered for saving first; returns false when the
  // user cancels. The model's autosave goes once its steps are saved or discarded; without dialogs
  // (no one to ask) it stays, and the next start offers the steps back. Quit, the window's close button
  // and Open over a model with unsaved steps ask the same question.
  bool closeModel();

  bool isLoading() const;
  QString currentFile() const { return file_; } // the file on screen ("" when none)
  const ir::Sdfg* sdfg() const;                 // the SDFG on screen, or nullptr
  const analysis::CostReport* cost() const;     // its static cost, or nullptr

  // Modal error dialogs on load failure (default true; off in tests and headless runs).
  bool showsDialogs() const { return showsDialogs_; }
  void setShowsDialogs(bool on) { showsDialogs_ = on; }
  // Whether history changes are autosaved for recovery after a crash (default true; off in headless
  // runs, whose steps come from a script file and must not replace a crashed session's autosave).
  void setAutosaves(bool on) { autosaves_ = on; }

  QStringList recentFiles() const; // most recent first, at most kMaxRecentFiles

  void setTheme(views::ThemeKind kind);
  views::ThemeKind theme() const { return theme_; }
  void setOverlay(Overlay overlay);
  Overlay overlay() const { return overlay_; }
  // Selects element `id` in every panel (what a click on any of them does).
  void select(ir::ElementId id);
  // Selects the element or module group (main/state0/module:block1) at `path`; the error names it.
  Expected<void> selectPath(const std::string& path);
  // Restores dock layout, geometry and theme saved by the last closed window.
  void restoreLayout();

  views::GraphCanvas* canvas() const { return canvas_; }
  views::Selection* selection() const { return selection_; }
  views::OutlineModel* outlineModel() const { return outline_; }
  QTreeView* outlineView() const { return outlineView_; }
  views::PropertyModel* inspectorModel() const { return inspector_; }
  QTreeView* inspectorView() const { return inspectorView_; }
  views::SummaryView* summaryView() const { return summary_; }
  views::WeightView* weightView() const { return weights_; }
  views::SymbolsView* symbolsView() const { return symbols_; }
  QListWidget* problemsList() const { return problems_; }
  views::CodeView* codeView() const { return code_; }
  bool isGeneratingCode() const { return generatingCode_; }
  QLineEdit* searchField() const { return searchEdit_; }

  // ---- editing (MainWindowEditing.cpp) ----
  // Every change is a command executed through the model's history (core/edit/History.h); the
  // panels emit script lines as intent and the window parses and executes them. Failures are shown
  // (status bar, commandFailed) and change nothing.
  bool executeCommand(const QString& scriptLine);
  bool execute(std::unique_ptr<edit::Command> command);
  const edit::History* history() const;
  // What the command would change ("+3 nodes, −1 node, …"), by applying it and rolling it back.
  QString dryRun(const QString& scriptLine);
  void undo();
  void redo();
  void jumpTo(int position);
  // File > Export script: the history up to the current step as a DCW script.
  bool exportScript(const QString& path, QString* error = nullptr);
  // Projects: the model and its whole history (.dcwproj). Opening one goes through openFile().
  bool saveProject(const QString& path, QString* error = nullptr);
  QString projectFile() const { return projectFile_; }
  // Autosave: after every change the session is written to autosavePath() (atomically, keeping the
  // previous autosave as autosavePath() + "~"), then autosaved() is emitted; both files go when the
  // project is saved or the window closes normally. recoverableSessions() lists the autosaves left by
  // sessions that did not close normally, newest first; recoveryProblem() reads one the way opening it
  // would: empty when it can be reopened, else the reason — such an autosave is reported and kept,
  // never deleted, since it may be the only copy of the work. A reopened autosave or kept copy
  // (NAME.dcwproj~, which openFile() opens like a project) is not the project's file: Save Project
  // asks where to save.
  QString autosavePath() const;
  static QStringList recoverableSessions();
  static QString recoveryProblem(const QString& autosave);
  static bool isAutosave(const QString& file);
  static void discardAutosave(const QString& autosave); // the autosave and its kept copy
  // Runs the model before (at step `from`) and after (at step `to`, -1: the current step) on the
  // same random inputs in the background; emits verifyFinished with the largest difference.
  void verify(int from = 0, int to = -1);
  void cancelVerify();
  bool isVerifying() const { return verifying_; }
  // The generated code before and after history step `step` (1-based), diffed in the background;
  // shown in the Code Changes panel, then codeDiffReady.
  void showCodeDiff(int step);
  views::CodeDiffView* codeDiffView() const { return codeDiff_; }
  // ---- profiling (MainWindowProfiling.cpp) ----
  // Compiles the model at the current step with timers (states, library nodes, top-level maps) and
  // hardware counters where the kernel allows, runs it `repeat` times on random inputs in the
  // background and shows the report (table, timeline, roofline, measured overlays). A build that
  // fails is reported with the compiler's message and, where its line maps to one, the element.
  void profile(int repeat = 5);
  // Profiles the model before and after history step `step` (1-based) and shows the comparison.
  void compareStepProfiles(int step, int repeat = 5);
  void cancelProfile();
  bool isProfiling() const { return profiling_; }
  // What Run ▸ Profile instruments: "all", "states", "nodes" (library nodes), "maps" (top-level),
  // "model", or element paths (Run ▸ Instrumentation ▸ Selected Element) — as for `dcw profile --instrument`.
  void setInstrumentation(std::vector<std::string> what) { instrument_ = std::move(what); }
  const std::vector<std::string>& instrumentation() const { return instrument_; }
  // Run ▸ Target: the target Profile builds for and the Code panel shows ("cpu", "fpga-sim", "cuda", "cuda-sim").
  void setTarget(const std::string& target);
  const std::string& target() const { return target_; }
  // Run ▸ Target ▸ Also Simulate FPGA Kernels as RTL: an FPGA profile also measures the kernels RTL
  // covers in Verilator co-simulation (codegen/fpga/RtlCosim.h), shown beside the estimates.
  void setRtlProfiling(bool on);
  bool rtlProfiling() const { return rtlProfile_; }
  views::ProfilePanel* profilePanel() const { return profile_; }
  // Edit ▸ Differentiate with Respect to…: the selected output (or the only one), a dialog to choose
  // inputs/weights and store or recompute, then one `differentiate` step in the history.
  bool differentiateSelected();
  std::string selectedOutput() const;
  // Auto-optimize: one history step applying the default pipeline.
  bool autoOptimize();
  views::TransformationsPanel* transformationsPanel() const { return transforms_; }
  views::HistoryModel* historyModel() const { return historyModel_; }
  QListView* historyView() const { return historyView_; }
  QLabel* totalsLabel() const { return totals_; }

signals:
  void modelLoaded(const QString& path);
  void modelClosed();
  void loadFailed(const QString& message); // "<file>: <problem>[; <hint>]"
  void loadingChanged(bool loading);
  // The Code panel has new content for `path` (generated code, or the reason there is none).
  void codeGenerated(const QString& path, bool ok);
  void historyChanged();                       // a command, undo, redo or jump
  void autosaved(const QString& file, qulonglong steps, qulonglong position); // the session reached the disk
  void commandFailed(const QString& message);  // "<where>: <problem>[; <hint>]"
  void verifyFinished(bool ok, double maxAbsDiff, const QString& message);
  void verifyProgress(int percent, const QString& stage);
  void codeDiffReady(int step, int added, int removed);
  void profileFinished(bool ok, const QString& message); // message: the failure, located when possible
  void profileProgress(int percent, const QString& stage);
  void comparisonFinished(bool ok, const QString& message);

protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

private:
  void createActions();
  void createDocks();
  void createCanvasToolbar();
  void showOpenDialog();
  void rebuildRecentMenu();
  void addRecentFile(const QString& path);
  void finishLoad(std::shared_ptr<LoadResult> result);
  void fillProblems();
  void selectProblemElement(QListWidgetItem* item);
  void followSelection(ir::ElementId id);
  void refreshInspector();
  void refreshTotals();
  // Each op's FLOPs under symbol values (unset symbols 1), for the canvas's module group totals.
  static std::unordered_map<ir::ElementId, double> nodeFlops(const analysis::CostReport& cost,
                                                            const std::map<std::string, int64_t>& symbols);
  void runSearch();
  void showSearchState(int current, int total);
  void exportImage(bool svg, bool wholeGraph);
  void updateTitle();
  void setBusy(bool busy);
  void generateCode();
  void finishCode(std::shared_ptr<CodeResult> result);
  void highlightCode(ir::ElementId id);
  void selectCodePath(const QString& path);
  void createEditing();
  void expandOutlineTop();
  std::string pathOfId(ir::ElementId id) const; // "" when unknown
  // Refreshes every view after the history moved. `modelChanged` false: the SDFG is the one the views
  // were just given (a model opened without a project to replay), so the derived data (summary, cost,
  // outline, canvas layout, problems) is not computed a second time.
  void afterHistoryChange(bool modelChanged = true);
  void refreshTransformations();
  void finishVerify(std::shared_ptr<VerifyResult> result);
  std::vector<std::string> scriptLines(size_t upTo) const;
  QString pointTitle(int point) const; // "model.onnx after 3 steps"
  void showComparison(std::shared_ptr<const ir::Sdfg> left, const QString& leftTitle, std::shared_ptr<const ir::Sdfg> right,
                      const QString& rightTitle);
  void writeAutosave();
  void restorePendingProject();
  static QString projectFileOf(const PendingProject& p);
  void removeAutosave();
  // Before Quit, Close or Open discards the session on screen: with dialogs on, steps not saved in a
  // project are offered for saving (Save), dropped with their autosave (Discard), or kept on screen
  // (Cancel: false). Without dialogs nothing is asked and the autosave stays. `title` has %1 for the file.
  bool settleUnsavedSteps(const QString& title);
  void openSettled(const QString& path); // openFile() once the session on screen is settled
  bool saveProjectAsked(); // File ▸ Save Project: to the project's file, else where the user says
  bool hasUnsavedSteps() const; // steps (or a position) that the project file does not hold

  struct Model;                  // the loaded model, its summary and cost (MainWindow.cpp)
  std::unique_ptr<Model> model_; // what is on screen; nullptr when nothing is open
  QString file_;
  std::vector<std::vector<std::string>> savedSteps_; // what projectFile_ holds (hasUnsavedSteps)
  size_t savedPosition_ = 0;
  quint64 loadSerial_ = 0;       // bumped by every openFile(); stale results are dropped
  quint64 codeSerial_ = 0;       // bumped by every generateCode(); stale results are dropped
  bool generatingCode_ = false;
  bool loading_ = false;
  bool showsDialogs_ = true;
  bool autosaves_ = true;
  bool problemsChosen_ = false;
  QString torchInputs_, torchClass_;
  views::CompareView* compare_ = nullptr; // a top-level window, deleted with this one
  void openTorchModel(const QString& path);  // the user showed or hid the Problems dock against what its count suggests
  bool syncingOutline_ = false;  // the outline follows the selection without re-requesting it
  views::ThemeKind theme_ = views::ThemeKind::Light;
  Overlay overlay_ = Overlay::None;

  views::Selection* selection_ = nullptr;
  views::GraphCanvas* canvas_ = nullptr;
  views::OutlineModel* outline_ = nullptr;
  QTreeView* outlineView_ = nullptr;
  views::PropertyModel* inspector_ = nullptr;
  QTreeView* inspectorView_ = nullptr;
  views::SummaryView* summary_ = nullptr;
  views::WeightView* weights_ = nullptr;
  views::SymbolsView* symbols_ = nullptr;
  QListWidget* problems_ = nullptr;
  QDockWidget* outlineDock_ = nullptr;
  QDockWidget* inspectorDock_ = nullptr;
  QDockWidget* summaryDock_ = nullptr;
  QDockWidget* weightsDock_ = nullptr;
  QDockWidget* symbolsDock_ = nullptr;
  QDockWidget* problemsDock_ = nullptr;
  views::CodeView* code_ = nullptr;
  QDockWidget* codeDock_ = nullptr;
  QLineEdit* searchEdit_ = nullptr;
  QComboBox* searchMode_ = nullptr;
  QLabel* searchState_ = nullptr;
  QComboBox* overlayBox_ = nullptr;
  QAction* darkAction_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QLabel* modelInfo_ = nullptr;
  QLabel* totals_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  views::TransformationsPanel* transforms_ = nullptr;
  QDockWidget* transformsDock_ = nullptr;
  views::HistoryModel* historyModel_ = nullptr;
  views::CodeDiffView* codeDiff_ = nullptr;
  views::ProfilePanel* profile_ = nullptr;
  QDockWidget* profileDock_ = nullptr;
  bool profiling_ = false;
  std::vector<std::string> instrument_{"all"};
  std::string target_ = "cpu";
  bool rtlProfile_ = false;
  quint64 profileSerial_ = 0;
  std::shared_ptr<std::atomic<bool>> profileCancel_;
  void createProfiling();
  // The time of each module group's ops in a profile (rows of the profile table).
  std::vector<views::ProfileTableModel::ModuleTime> moduleTimes(const codegen::ProfileReport& report) const;
  std::unordered_map<ir::ElementId, double> measuredOverlay(Overlay overlay) const;
  QDockWidget* codeDiffDock_ = nullptr;
  quint64 diffSerial_ = 0;
  QListView* historyView_ = nullptr;
  QDockWidget* historyDock_ = nullptr;
  QAction* undoAction_ = nullptr;
  QAction* redoAction_ = nullptr;
  QString projectFile_;
  std::shared_ptr<PendingProject> pendingProject_;
  bool verifying_ = false;
  quint64 verifySerial_ = 0;
  std::shared_ptr<std::atomic<bool>> verifyCancel_;
};

} // namespace dcw::gui
