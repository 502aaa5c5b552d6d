// MainWindow: the dcw-gui main window — the outline of the open model (views::OutlineModel in a
// tree), its summary (views::SummaryView), a Problems list with the load warnings and validation
// diagnostics, and a status bar. Models open from File ▸ Open, File ▸ Open Recent, drag and drop,
// or the command line.
//
// Loading runs on a worker thread (io::loadModel + analysis::summarize), so a big model never
// freezes the window; the model on screen stays until the new one has loaded. If loading fails the
// window keeps the previous model, emits loadFailed() with the Diagnostic's one-line text (it names
// the file and the problem) and, when showsDialogs is true, also shows it in a message box. Tests and
// the headless --screenshot mode turn dialogs off and listen to the signals instead.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QMenu;
class QProgressBar;
class QTreeView;

namespace dcw::ir {
class Sdfg;
}
namespace dcw::views {
class OutlineModel;
class SummaryView;
} // namespace dcw::views

namespace dcw::gui {

struct LoadResult; // what the worker thread hands back (MainWindow.cpp)

class MainWindow : public QMainWindow {
  Q_OBJECT
  Q_PROPERTY(bool showsDialogs READ showsDialogs WRITE setShowsDialogs)
  Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)

public:
  static constexpr int kMaxRecentFiles = 8;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Starts loading `path` in the background. A later call supersedes an earlier one still running
  // (its result is dropped). Emits modelLoaded() or loadFailed() when done.
  void openFile(const QString& path);

  bool isLoading() const;
  QString currentFile() const { return file_; } // the file on screen ("" when none)
  const ir::Sdfg* sdfg() const;                 // the SDFG on screen, or nullptr

  // Modal error dialogs on load failure (default true; off in tests and headless runs).
  bool showsDialogs() const { return showsDialogs_; }
  void setShowsDialogs(bool on) { showsDialogs_ = on; }

  QStringList recentFiles() const; // most recent first, at most kMaxRecentFiles

  views::OutlineModel* outlineModel() const { return outline_; }
  QTreeView* outlineView() const { return outlineView_; }
  views::SummaryView* summaryView() const { return summary_; }
  QListWidget* problemsList() const { return problems_; }

signals:
  void modelLoaded(const QString& path);
  void loadFailed(const QString& message); // "<file>: <problem>[; <hint>]"
  void loadingChanged(bool loading);

protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  void createActions();
  void createDocks();
  void showOpenDialog();
  void rebuildRecentMenu();
  void addRecentFile(const QString& path);
  void finishLoad(std::shared_ptr<LoadResult> result);
  void fillProblems();
  void selectProblemElement(QListWidgetItem* item);
  void showSelectedPath();
  void updateTitle();
  void setBusy(bool busy);

  struct Model;                  // the loaded model and its summary (MainWindow.cpp)
  std::unique_ptr<Model> model_; // what is on screen; nullptr when nothing is open
  QString file_;
  quint64 loadSerial_ = 0;       // bumped by every openFile(); stale results are dropped
  bool loading_ = false;
  bool showsDialogs_ = true;

  views::OutlineModel* outline_ = nullptr;
  QTreeView* outlineView_ = nullptr;
  views::SummaryView* summary_ = nullptr;
  QListWidget* problems_ = nullptr;
  QDockWidget* outlineDock_ = nullptr;
  QDockWidget* problemsDock_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QLabel* modelInfo_ = nullptr;
  QMenu* recentMenu_ = nullptr;
};

} // namespace dcw::gui
