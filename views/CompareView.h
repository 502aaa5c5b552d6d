// CompareView: two models side by side — two files, or a model as imported and as edited — each on
// its own canvas, the differences marked (analysis::GraphDiff: added green on the right, removed red on
// the left, changed amber on both) and listed; a click on a listed difference shows it on its side,
// and the two canvases move together (scroll and zoom follow each other in proportion).
#pragma once

#include "core/analysis/GraphDiff.h"

#include <QWidget>

#include <memory>

class QLabel;
class QListWidget;

namespace dcw::ir {
class Sdfg;
}

namespace dcw::views {

class GraphCanvas;

class CompareView : public QWidget {
  Q_OBJECT
public:
  // Keeps both SDFGs alive as long as it shows them.
  CompareView(std::shared_ptr<const ir::Sdfg> left, const QString& leftTitle, std::shared_ptr<const ir::Sdfg> right,
              const QString& rightTitle, QWidget* parent = nullptr);
  ~CompareView() override;

  const analysis::GraphDiff& diff() const { return diff_; }
  GraphCanvas* leftCanvas() const { return left_; }
  GraphCanvas* rightCanvas() const { return right_; }
  QListWidget* differences() const { return list_; }
  QLabel* summary() const { return summary_; }

private:
  void follow(GraphCanvas* from, GraphCanvas* to);
  void showDifference(int row);

  std::shared_ptr<const ir::Sdfg> leftSdfg_, rightSdfg_;
  analysis::GraphDiff diff_;
  GraphCanvas* left_ = nullptr;
  GraphCanvas* right_ = nullptr;
  QListWidget* list_ = nullptr;
  QLabel* summary_ = nullptr;
  bool following_ = false;
};

} // namespace dcw::views
