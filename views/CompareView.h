// CompareView: two models side by side — two files, or a model as imported and as edited — each on
// its own canvas, the differences marked (analysis::GraphDiff: added green on the right, removed red on
// the left, changed amber on both) and listed; a click on a listed difference shows it on its side,
// and the two canvases move together (scroll and zoom follow each other: the node nearest the middle
// of the moved side that both sides draw stays at the same place on the other; in proportion when none).
#pragma once

#include "core/analysis/GraphDiff.h"

#include <QPointF>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

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
  // A node drawn on both sides near `near` (in `from`'s scene): its centre in `from` and in `to`.
  std::optional<std::pair<QPointF, QPointF>> commonAnchor(const GraphCanvas* from, const GraphCanvas* to, QPointF near) const;
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
