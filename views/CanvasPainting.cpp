#include "views/CanvasPainting.h"

#include "core/analysis/GraphDiff.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace dcw::views {

double CanvasPaintState::lod(const QStyleOptionGraphicsItem* option, const QPainter* painter) const {
  if (fullDetail) return 100;
  return option->levelOfDetailFromTransform(painter->worldTransform());
}

QPainterPath nodeOutline(VisualKind k, const QRectF& r) {
  QPainterPath p;
  switch (k) {
  case VisualKind::Access: p.addEllipse(r); break;
  case VisualKind::Tasklet: {
    double c = std::min(r.height(), r.width()) * 0.3;
    QPolygonF o;
    o << QPointF(r.left() + c, r.top()) << QPointF(r.right() - c, r.top()) << QPointF(r.right(), r.top() + c)
      << QPointF(r.right(), r.bottom() - c) << QPointF(r.right() - c, r.bottom()) << QPointF(r.left() + c, r.bottom())
      << QPointF(r.left(), r.bottom() - c) << QPointF(r.left(), r.top() + c);
    p.addPolygon(o);
    p.closeSubpath();
    break;
  }
  case VisualKind::Map:
  case VisualKind::MapEntry: { // long side at the bottom, as in DaCe
    double c = std::min(18.0, r.width() * 0.2);
    QPolygonF o;
    o << QPointF(r.left() + c, r.top()) << QPointF(r.right() - c, r.top()) << r.bottomRight() << r.bottomLeft();
    p.addPolygon(o);
    p.closeSubpath();
    break;
  }
  case VisualKind::MapExit: {
    double c = std::min(18.0, r.width() * 0.2);
    QPolygonF o;
    o << r.topLeft() << r.topRight() << QPointF(r.right() - c, r.bottom()) << QPointF(r.left() + c, r.bottom());
    p.addPolygon(o);
    p.closeSubpath();
    break;
  }
  case VisualKind::Library: p.addRect(r); break;
  default: p.addRoundedRect(r, 5, 5); break;
  }
  return p;
}

// ---- nodes ------------------------------------------------------------------------------------------

QRectF markerRect(const VisualNode& n) {
  if (!n.expandable) return {};
  if (n.expanded) return QRectF(n.size.width() - 20, 5, 14, 14);
  return QRectF(n.size.width() - 18, 4, 12, 12);
}

// Added green, removed red, changed amber.
QColor diffColour(int mark) {
  switch (analysis::DiffMark(mark)) {
  case analysis::DiffMark::Added: return QColor(0x2e, 0xa0, 0x43);
  case analysis::DiffMark::Removed: return QColor(0xd7, 0x3a, 0x31);
  default: return QColor(0xe0, 0x9b, 0x10);
  }
}

namespace {

// One node's paint: the node, the graph and the canvas state it reads.
class NodePainter {
public:
  NodePainter(const VisualGraph& g, int index, const CanvasPaintState& state) : graph_(&g), index_(index), state_(&state) {}
  void paint(QPainter* p, double lod) {
    const VisualNode& n = graph_->nodes[size_t(index_)];
    if (n.expanded) paintContainer(p, lod, n);
    else paintLeaf(p, lod, n);
  }

private:
  void paintContainer(QPainter* p, double lod, const VisualNode& n);
  void paintLeaf(QPainter* p, double lod, const VisualNode& n);
  void paintFarLabel(QPainter* p, double lod, const VisualNode& n, const QRectF& r);
  void markLabelled() const;
  int diffOf() const;
  QColor fillOf(const VisualNode& n) const;
  QRectF markerRect() const { return views::markerRect(graph_->nodes[size_t(index_)]); }

  const VisualGraph* graph_;
  int index_;
  const CanvasPaintState* state_;
};

QColor NodePainter::fillOf(const VisualNode& n) const {
  const CanvasTheme& t = state_->theme;
  if (size_t(index_) < state_->overlay.size() && state_->overlay[size_t(index_)] >= 0)
    return t.ramp(state_->overlay[size_t(index_)]);
  switch (n.kind) {
  case VisualKind::Access: return n.constant ? t.constant : n.transient ? t.accessTransient : t.access;
  case VisualKind::Tasklet: return t.tasklet;
  case VisualKind::Map:
  case VisualKind::MapEntry:
  case VisualKind::MapExit: return t.map;
  case VisualKind::Library: return t.category(n.category);
  case VisualKind::NestedSdfg:
  case VisualKind::Sdfg: return t.nested;
  case VisualKind::Group: return t.frameRegion.darker(108);
  default: return t.state;
  }
}

void drawMarker(QPainter* p, const QRectF& r, bool expanded, const CanvasTheme& t) {
  p->setPen(QPen(t.textDim, 1));
  p->setBrush(Qt::NoBrush);
  p->drawRect(r);
  QPointF c = r.center();
  double h = r.width() * 0.3;
  p->drawLine(QPointF(c.x() - h, c.y()), QPointF(c.x() + h, c.y()));
  if (!expanded) p->drawLine(QPointF(c.x(), c.y() - h), QPointF(c.x(), c.y() + h));
}

void NodePainter::paintContainer(QPainter* p, double lod, const VisualNode& n) {
  const CanvasTheme& t = state_->theme;
  QRectF r(0, 0, n.size.width(), n.size.height());
  QColor fill;
  switch (n.kind) {
  case VisualKind::Map: fill = t.frameMap; break;
  case VisualKind::Library: fill = t.frameLibrary; break;
  case VisualKind::Sdfg:
  case VisualKind::NestedSdfg: fill = t.frameSdfg; break;
  case VisualKind::State: fill = t.frameState; break;
  default: fill = t.frameRegion; break;
  }
  if (size_t(index_) < state_->overlay.size() && state_->overlay[size_t(index_)] >= 0)
    fill = t.ramp(state_->overlay[size_t(index_)]);
  int match = size_t(index_) < state_->match.size() ? state_->match[size_t(index_)] : 0;
  bool selected = state_->selected == index_;
  QPen border(selected ? t.selection : match == 2 ? t.currentMatch : match ? t.match : t.frameBorder,
              selected || match ? 3 : 1);
  if (n.kind == VisualKind::Map) border.setStyle(selected || match ? Qt::SolidLine : Qt::DashLine);
  if (lod < state_->lodShapes) border.setCosmetic(true);
  p->setPen(border);
  p->setBrush(fill);
  p->drawRoundedRect(r, 6, 6);
  if (lod * 10 < 2.5) return; // the title would be less than 2.5 px high
  p->setFont(state_->title);
  p->setPen(t.text);
  QRectF head(8, 0, r.width() - 34, VisualGraph::kHeader);
  QFontMetricsF fm(state_->title);
  QString title = fm.elidedText(n.label, Qt::ElideRight, head.width());
  p->drawText(head, Qt::AlignVCenter | Qt::AlignLeft, title);
  double used = fm.horizontalAdvance(title) + 10;
  if (!n.detail.isEmpty() && used < head.width()) {
    p->setFont(state_->small);
    p->setPen(t.textDim);
    QRectF rest = head.adjusted(used, 0, 0, 0);
    p->drawText(rest, Qt::AlignVCenter | Qt::AlignLeft,
                QFontMetricsF(state_->small).elidedText(n.detail, Qt::ElideRight, rest.width()));
  }
  if (n.expandable) drawMarker(p, markerRect(), true, t);
}

void NodePainter::paintFarLabel(QPainter* p, double lod, const VisualNode& n, const QRectF& r) {
  // What a node does (an op, a map, a tasklet, a nested SDFG) stays named at small sizes; arrays,
  // whose names are long and many, show their shape only from closer. The name may spill a little
  // past a narrow box (nodes are spaced further apart than that).
  if (n.kind == VisualKind::Access || lod <= 0) return;
  const double px = CanvasPaintState::kFarLabelPixels;
  const double room = r.width() * 1.5;
  if (r.height() * lod < px + 2 || room * lod < 2.5 * px) return; // no room for a legible word
  QFont f = state_->bold;
  f.setPixelSize(std::max(1, int(std::lround(px / lod))));
  QFontMetricsF fm(f);
  const QString text = fm.elidedText(n.label, Qt::ElideRight, room);
  if (text.size() < 3 && text != n.label) return;
  p->setFont(f);
  p->setPen(state_->theme.text);
  p->drawText(QRectF(r.center().x() - room / 2, r.top(), room, r.height()), Qt::AlignCenter | Qt::TextDontClip, text);
  markLabelled();
}

int NodePainter::diffOf() const { return size_t(index_) < state_->diff.size() ? state_->diff[size_t(index_)] : 0; }

void NodePainter::markLabelled() const {
  if (size_t(index_) < state_->labelled.size()) state_->labelled[size_t(index_)] = 1;
}

void NodePainter::paintLeaf(QPainter* p, double lod, const VisualNode& n) {
  const CanvasTheme& t = state_->theme;
  QRectF r(0, 0, n.size.width(), n.size.height());
  int match = size_t(index_) < state_->match.size() ? state_->match[size_t(index_)] : 0;
  bool selected = state_->selected == index_;
  QColor fill = fillOf(n);
  if (lod < state_->lodShapes) {
    // Far away: small nodes drop out, others become plain fills (selection and matches stay visible),
    // ops keep their name while it fits.
    if (n.kind == VisualKind::Access && lod < state_->lodSmall && !selected && !match) return;
    const int d = diffOf();
    p->fillRect(r, selected ? t.selection : match ? t.currentMatch : d ? diffColour(d) : fill);
    paintFarLabel(p, lod, n, r);
    return;
  }
  QPainterPath outline = nodeOutline(n.kind, r);
  QPen pen(t.stroke, n.kind == VisualKind::Access && !n.transient && !n.constant ? 2.0 : 1.0);
  p->setPen(pen);
  p->setBrush(fill);
  p->drawPath(outline);
  if (n.kind == VisualKind::NestedSdfg || n.kind == VisualKind::State || n.kind == VisualKind::Sdfg || n.kind == VisualKind::Group)
    p->drawRoundedRect(r.adjusted(3, 3, -3, -3), 4, 4);
  if (selected || match) {
    p->setBrush(Qt::NoBrush);
    p->setPen(QPen(selected ? t.selection : match == 2 ? t.currentMatch : t.match, 3.5));
    p->drawPath(outline);
  } else if (const int d = diffOf(); d) {
    p->setBrush(Qt::NoBrush);
    p->setPen(QPen(diffColour(d), 4));
    p->drawPath(outline);
  }
  if (lod < state_->lodText) {
    paintFarLabel(p, lod, n, r);
    return;
  }
  const bool details = lod >= 0.6;
  QFontMetricsF fb(state_->bold), fs(state_->small);
  int lines = 1 + (details && !n.detail.isEmpty()) + (details && !n.extra.isEmpty());
  double h = fb.height() + (lines - 1) * fs.height();
  double y = (r.height() - h) / 2;
  QRectF textRect = r.adjusted(4, 0, n.expandable ? -16 : -4, 0);
  p->setPen(t.text);
  p->setFont(state_->bold);
  p->drawText(QRectF(textRect.left(), y, textRect.width(), fb.height()), Qt::AlignCenter, n.label);
  y += fb.height();
  markLabelled();
  if (details) {
    p->setFont(state_->small);
    p->setPen(t.textDim);
    if (!n.detail.isEmpty()) {
      p->drawText(QRectF(textRect.left(), y, textRect.width(), fs.height()), Qt::AlignCenter, n.detail);
      y += fs.height();
    }
    if (!n.extra.isEmpty()) p->drawText(QRectF(textRect.left(), y, textRect.width(), fs.height()), Qt::AlignCenter, n.extra);
  }
  if (n.expandable) drawMarker(p, markerRect(), false, t);
}

} // namespace

void paintNode(QPainter& p, const VisualGraph& g, int v, const CanvasPaintState& state, double lod) {
  NodePainter(g, v, state).paint(&p, lod);
}

// ---- edges ------------------------------------------------------------------------------------------

static QPointF labelAt(const VisualEdge& e) { return e.middle + QPointF(5, -2); }

QRectF edgeBounds(const VisualEdge& e, const QFontMetricsF& small) {
  QRectF bounds = e.path.boundingRect().adjusted(-6, -6, 6, 6);
  if (!e.label.isEmpty() && !e.path.isEmpty()) {
    // The label's width from its length (measuring 100k labels costs more than the culling saves;
    // the estimate errs on the wide side).
    const QPointF at = labelAt(e);
    QRectF lr(at.x(), at.y() - small.ascent(), small.averageCharWidth() * 1.5 * double(e.label.size()) + 4, small.height());
    bounds = bounds.united(lr.adjusted(-2, -2, 2, 2));
  }
  return bounds;
}

void paintEdge(QPainter& painter, const VisualGraph& g, int index, const CanvasPaintState& state, double lod,
               std::vector<QRectF>* labels) {
  QPainter* p = &painter;
  const VisualEdge& e = g.edges[size_t(index)];
  if (e.path.isEmpty()) return;
  const CanvasTheme& t = state.theme;
  const bool selected = state.selectedEdge == index;
  QColor color = selected ? t.selection : e.interstate ? t.interstate : t.edge;
  if (lod < state.lodShapes) { // far away: one straight cosmetic line, no arrow
    QPen pen(color, 1);
    pen.setCosmetic(true);
    p->setPen(pen);
    p->drawLine(e.start, e.path.currentPosition());
    return;
  }
  QPen pen(color, selected ? 2.5 : e.interstate ? 1.8 : 1.2);
  if (e.merged) pen.setStyle(Qt::DashLine);
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawPath(e.path);
  // Arrowhead along the last stretch of the path.
  QPointF tip = e.path.currentPosition();
  QPointF from = e.arrowFrom;
  QPointF d = tip - from;
  double len = std::hypot(d.x(), d.y());
  if (len > 0.01) {
    d /= len;
    QPointF n(-d.y(), d.x());
    QPolygonF head;
    head << tip << tip - d * 8 + n * 3.5 << tip - d * 8 - n * 3.5;
    p->setPen(Qt::NoPen);
    p->setBrush(color);
    p->drawPolygon(head);
  }
  if (!e.label.isEmpty() && lod >= state.lodEdgeLabels) {
    const QPointF at = labelAt(e);
    if (labels && !selected) { // a label where another one is already drawn is left out
      const QFontMetricsF fs(state.small);
      const QRectF r = p->worldTransform().mapRect(QRectF(at.x(), at.y() - fs.ascent(), fs.horizontalAdvance(e.label), fs.height()));
      for (const QRectF& other : *labels)
        if (other.intersects(r)) return;
      labels->push_back(r);
    }
    p->setFont(state.small);
    p->setPen(selected ? t.selection : t.edgeLabel);
    p->drawText(at, e.label);
  }
}

} // namespace dcw::views
