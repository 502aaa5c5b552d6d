// TourDialog: Help ▸ Tour — the ten-minute tour of the app (open a model, find a node, apply a
// suggested transformation, undo, read the code, profile, export the script and replay it headless),
// shown as rendered Markdown. The text is docs/tour.md, compiled in as the resource :/docs/tour.md;
// the README shows the same text (ctest docs_readme_rules checks that they stay identical), so the
// tour in the app and the one on the project page cannot drift apart. Non-modal, so it stays open
// beside the window while the user follows it.
#pragma once

#include <QDialog>

class QTextBrowser;

namespace dcw::views {

class TourDialog : public QDialog {
  Q_OBJECT
public:
  explicit TourDialog(QWidget* parent = nullptr);

  QTextBrowser* browser() const { return browser_; }
  // The tour's Markdown as compiled in (empty only if the resource is missing, which the build prevents).
  static QString tourMarkdown();

private:
  QTextBrowser* browser_ = nullptr;
};

} // namespace dcw::views
