// TimelineView: one profiled run on a time axis — every traced event (codegen/run/ProfileReport
// TraceEvent) as a bar in a lane per thread, nested elements below their parents, coloured by kind,
// labelled when wide enough. The wheel zooms around the cursor, dragging pans, a tooltip gives the
// element, duration and start; a click emits elementClicked(path) so the canvas selects it.
#pragma once

#include "codegen/run/ProfileReport.h"

#include <QWidget>

namespace dcw::views {

class TimelineView : public QWidget {
  Q_OBJECT
public:
  explicit TimelineView(QWidget* parent = nullptr);
  void setReport(const codegen::ProfileReport* report);
  // The element path of the bar at a widget position ("" if none).
  QString pathAt(const QPoint& pos) const;
  QRectF barRect(size_t event) const; // widget coordinates of a trace event's bar
  void setHighlightedPath(const QString& path);

signals:
  void elementClicked(const QString& path);

protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

private:
  int rowOf(size_t event) const;
  const codegen::ProfileReport* report_ = nullptr;
  std::vector<int> depth_;     // per element: nesting depth below the model
  std::vector<uint32_t> lanes_; // distinct threads, sorted
  int maxDepth_ = 0;
  double startUs_ = 0, spanUs_ = 1; // visible window
  QPoint pressPos_;
  double pressStart_ = 0;
  bool dragged_ = false;
  QString highlighted_;
};

} // namespace dcw::views
