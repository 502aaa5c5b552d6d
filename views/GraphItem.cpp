#include "views/GraphItem.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace dcw::views {

GraphItem::GraphItem(const VisualGraph* graph, const CanvasPaintState* state) : graph_(graph), state_(state) {
  setFlag(ItemUsesExtendedStyleOption); // paint() gets the exposed rectangle
  const VisualGraph& g = *graph;
  what_.reserve(g.nodes.size() + g.edges.size());
  // Top-level nodes as Qt stacked sibling items: open containers (z 0) below closed nodes (z 2).
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].parent < 0 && g.nodes[i].expanded == (pass == 0)) rank(int(i));
  index();
}

// Appends node v and what it contains, in paint order.
void GraphItem::rank(int v) {
  const VisualGraph& g = *graph_;
  const VisualNode& n = g.nodes[size_t(v)];
  const QPointF topLeft = g.scenePos(v);
  what_.push_back({v, false, topLeft, QRectF(topLeft, n.size).adjusted(-2, -2, 2, 2)});
  if (!n.expanded) return;
  if (what_.back().bounds.isValid()) containers_.push_back(int(what_.size()) - 1);
  for (int c : n.children)
    if (g.nodes[size_t(c)].expanded) rank(c);
  const QPointF content = topLeft + VisualGraph::contentOrigin();
  const QFontMetricsF small(state_->small);
  for (int e : n.edges) what_.push_back({e, true, content, edgeBounds(g.edges[size_t(e)], small).translated(content)});
  for (int c : n.children)
    if (!g.nodes[size_t(c)].expanded) rank(c);
}

void GraphItem::index() {
  for (const Entry& w : what_) bounds_ = bounds_.united(w.bounds);
  seen_.assign(what_.size(), 0);
  if (what_.empty()) return;
  // About four closed nodes or edges a cell, at most a million cells, none smaller than a node.
  const double area = std::max(1.0, bounds_.width()) * std::max(1.0, bounds_.height());
  cell_ = std::max(160.0, std::sqrt(area * 4 / double(std::max<size_t>(1, what_.size()))));
  while ((bounds_.width() / cell_ + 1) * (bounds_.height() / cell_ + 1) > 1e6) cell_ *= 1.5;
  gridArea_ = bounds_;
  cols_ = int(bounds_.width() / cell_) + 1;
  rows_ = int(bounds_.height() / cell_) + 1;
  cells_.assign(size_t(cols_) * size_t(rows_), {});
  for (size_t r = 0; r < what_.size(); ++r) {
    const Entry& w = what_[r];
    if (!w.edge && graph_->nodes[size_t(w.index)].expanded) continue;
    const int x0 = std::clamp(int((w.bounds.left() - gridArea_.left()) / cell_), 0, cols_ - 1);
    const int x1 = std::clamp(int((w.bounds.right() - gridArea_.left()) / cell_), 0, cols_ - 1);
    const int y0 = std::clamp(int((w.bounds.top() - gridArea_.top()) / cell_), 0, rows_ - 1);
    const int y1 = std::clamp(int((w.bounds.bottom() - gridArea_.top()) / cell_), 0, rows_ - 1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) cells_[size_t(y) * size_t(cols_) + size_t(x)].push_back(int(r));
  }
}

std::vector<int> GraphItem::ranksIn(const QRectF& area) const {
  std::vector<int> out;
  if (cells_.empty() || !area.adjusted(-1, -1, 1, 1).intersects(bounds_.adjusted(-1, -1, 1, 1))) return out;
  ++query_;
  for (int r : containers_)
    if (what_[size_t(r)].bounds.intersects(area)) out.push_back(r);
  const int x0 = std::clamp(int((area.left() - gridArea_.left()) / cell_), 0, cols_ - 1);
  const int x1 = std::clamp(int((area.right() - gridArea_.left()) / cell_), 0, cols_ - 1);
  const int y0 = std::clamp(int((area.top() - gridArea_.top()) / cell_), 0, rows_ - 1);
  const int y1 = std::clamp(int((area.bottom() - gridArea_.top()) / cell_), 0, rows_ - 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x)
      for (int r : cells_[size_t(y) * size_t(cols_) + size_t(x)]) {
        if (seen_[size_t(r)] == query_) continue;
        seen_[size_t(r)] = query_;
        if (what_[size_t(r)].bounds.intersects(area)) out.push_back(r);
      }
  std::sort(out.begin(), out.end());
  return out;
}

void GraphItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = state_->lod(option, painter);
  const QTransform base = painter->worldTransform();
  std::vector<QRectF> labels; // edge labels drawn so far: one does not cover another
  for (int r : ranksIn(option->exposedRect)) {
    const Entry& w = what_[size_t(r)];
    painter->setWorldTransform(QTransform::fromTranslate(w.origin.x(), w.origin.y()) * base);
    if (w.edge) paintEdge(*painter, *graph_, w.index, *state_, lod, state_->fullDetail ? nullptr : &labels);
    else paintNode(*painter, *graph_, w.index, *state_, lod);
  }
  painter->setWorldTransform(base);
}

GraphItem::Hit GraphItem::hit(const QPointF& at) const {
  Hit h;
  const std::vector<int> under = ranksIn(QRectF(at, QSizeF(0.01, 0.01)));
  for (auto r = under.rbegin(); r != under.rend(); ++r) { // topmost first
    const Entry& w = what_[size_t(*r)];
    if (w.edge) {
      if (h.edge >= 0) continue;
      QPainterPathStroker s;
      s.setWidth(8);
      if (s.createStroke(graph_->edges[size_t(w.index)].path).contains(at - w.origin)) h.edge = w.index;
      continue;
    }
    if (!w.bounds.contains(at)) continue;
    if (h.edge >= 0) return h; // an edge above a container frame wins
    h.node = w.index;
    h.onMarker = markerRect(graph_->nodes[size_t(w.index)]).contains(at - w.origin);
    return h;
  }
  return h;
}

} // namespace dcw::views
