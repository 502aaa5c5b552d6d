// CategoryLegend: the key to the canvas's op colours — a small box in the canvas's bottom-left corner
// listing, for the graph on screen, each kind of op it holds (OpCategory) with its colour and count.
// A widget over the viewport rather than scene paint, so panning never repaints it. Hidden while a
// value overlay recolours the nodes (that overlay draws its own scale) or when the user turns it off.
#pragma once

#include "views/OpCategory.h"
#include "views/Theme.h"

#include <QWidget>

#include <utility>
#include <vector>

namespace dcw::views {

class CategoryLegend : public QWidget {
  Q_OBJECT
public:
  explicit CategoryLegend(QWidget* parent = nullptr);
  // The categories present with their counts (in OpCategory order; empty hides the legend).
  void setCategories(std::vector<std::pair<OpCategory, int>> counts, const CanvasTheme& theme);
  const std::vector<std::pair<OpCategory, int>>& categories() const { return counts_; }
  // Where it sits: the bottom-left corner of its parent, with a margin.
  void reposition();

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  std::vector<std::pair<OpCategory, int>> counts_;
  CanvasTheme theme_;
};

} // namespace dcw::views
