// GraphItem: the one scene item that draws a laid-out VisualGraph, with a spatial index over its nodes
// and edges so that a frame draws and a click tests only what lies under it.
//
// Why one item and not one QGraphicsItem per node: QGraphicsScene draws a parent item's whole subtree
// whenever the parent is exposed, and a state's frame holds every node, so with an item per node each
// frame visited all of them (54 ms a frame at 50k ops, 100 % zoom), and creating 280k items took most
// of the 5 s the canvas needed to open such a graph. Here building is a few flat arrays and a grid; a
// frame looks up the grid cells it exposes, and paints what it finds in the order Qt painted items: a
// container, then inside it open containers (each with its contents), edges, and closed nodes.
#pragma once

#include "views/CanvasPainting.h"

#include <QGraphicsItem>

#include <vector>

namespace dcw::views {

class GraphItem : public QGraphicsItem {
public:
  enum { Type = UserType + 1 };
  GraphItem(const VisualGraph* graph, const CanvasPaintState* state);
  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  // What is under a scene point: the topmost node, or the edge drawn above any container frame there
  // (then node is -1); onMarker when the point is on the node's expand/collapse marker.
  struct Hit {
    int node = -1, edge = -1;
    bool onMarker = false;
  };
  Hit hit(const QPointF& scenePos) const;
  // The draw ranks of everything whose bounds meet `area` (scene coordinates), bottom to top.
  std::vector<int> ranksIn(const QRectF& area) const;
  int rankCount() const { return int(what_.size()); }

private:
  struct Entry {
    int index;    // node or edge index
    bool edge;
    QPointF origin; // where painting starts: a node's top-left, an edge container's content origin
    QRectF bounds;  // scene coordinates, with room for highlight strokes
  };
  void rank(int node);
  void index();

  const VisualGraph* graph_;
  const CanvasPaintState* state_;
  QRectF bounds_;
  std::vector<Entry> what_;       // by draw rank
  std::vector<int> containers_;   // ranks of open containers (few, large: tested one by one)
  QRectF gridArea_;
  double cell_ = 256;
  int cols_ = 0, rows_ = 0;
  std::vector<std::vector<int>> cells_; // ranks of closed nodes and edges meeting each cell
  mutable std::vector<unsigned> seen_;  // per rank: the query that last found it
  mutable unsigned query_ = 0;
};

} // namespace dcw::views
