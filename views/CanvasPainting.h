// CanvasPainting: how one node or edge of a laid-out VisualGraph is drawn, in DaCe's visual language —
// access nodes as ellipses, tasklets as octagons, map entry/exit as trapezoids, library nodes as
// rectangles with the op name, states/SDFGs/nested SDFGs/opened nodes as framed boxes — and the
// memlet edges with their `data[subset] · shape` labels. GraphItem decides which ones a frame draws.
//
// Level of detail keeps big graphs fast and readable: below ~0.4 px per unit the second and third lines
// are dropped and an op keeps only its name, drawn at a legible size on screen while it fits the node;
// below 0.3 nodes are plain fills (library nodes coloured by what their op does, OpCategory) and edges
// straight lines without arrows; below 0.12 access nodes (the small ones) drop out entirely. Exports set CanvasPaintState::fullDetail to draw everything.
// Painting reads highlight, selection and overlay state from one CanvasPaintState owned by the canvas,
// so changing a search or an overlay repaints without rebuilding anything.
#pragma once

#include "views/Theme.h"
#include "views/VisualGraph.h"

#include <QFont>
#include <QPainterPath>

class QFontMetricsF;
class QPainter;
class QStyleOptionGraphicsItem;

#include <vector>

namespace dcw::views {

struct CanvasPaintState {
  CanvasTheme theme = CanvasTheme::light();
  QFont font, bold, small, title;
  bool fullDetail = false;
  int selected = -1;                 // visual node index
  int selectedEdge = -1;             // visual edge index
  std::vector<unsigned char> match;  // per visual node: 0 none, 1 match, 2 current match
  std::vector<float> overlay;        // per visual node: position on the ramp in [0, 1], < 0 for none
  std::vector<unsigned char> diff;   // per visual node: analysis::DiffMark (compare view), 0 for none
  double lodText = 0.4, lodShapes = 0.3, lodSmall = 0.12, lodEdgeLabels = 0.7;
  // Below lodText an op's name is still drawn this many pixels high on screen while it fits its node.
  static constexpr double kFarLabelPixels = 8;
  // Per visual node: whether a paint drew its name (GraphCanvas::unlabelledOpsOnScreen; paints only set it).
  mutable std::vector<unsigned char> labelled;

  double lod(const QStyleOptionGraphicsItem* option, const QPainter* painter) const;
};

// Node v with its top-left corner at the painter's origin; lod: pixels per unit on screen.
void paintNode(QPainter& p, const VisualGraph& g, int v, const CanvasPaintState& state, double lod);
// Edge e in its container's content coordinates (the content origin at the painter's origin). With
// `labels` (device rectangles of the labels this paint drew so far), a label that would overlap one
// of them is left out, and its rectangle is added when drawn.
void paintEdge(QPainter& p, const VisualGraph& g, int e, const CanvasPaintState& state, double lod,
               std::vector<QRectF>* labels = nullptr);
// What edge e covers in its container's content coordinates: its path and, roughly, its label
// (`small`: the label font's metrics).
QRectF edgeBounds(const VisualEdge& e, const QFontMetricsF& small);
// The expand/collapse marker of node n, in node coordinates (empty when not expandable).
QRectF markerRect(const VisualNode& n);
// Compare marks: added green, removed red, changed amber.
QColor diffColour(int mark);

// The outline of a node of kind k in rect r (ellipse, octagon, trapezoid, rectangle).
QPainterPath nodeOutline(VisualKind k, const QRectF& r);

} // namespace dcw::views
