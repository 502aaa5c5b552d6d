// Minimap: a small overview of the whole graph in a corner of the canvas, with the visible part
// framed; clicking or dragging in it moves the view there. The overview is rendered once into an
// image whenever the scene changes (layout, theme, overlay), so panning costs only the frame.
#pragma once

#include <QImage>
#include <QWidget>

class QGraphicsView;

namespace dcw::views {

class Minimap : public QWidget {
  Q_OBJECT
public:
  explicit Minimap(QGraphicsView* view, QWidget* parent = nullptr);
  // Re-renders the overview (call after the scene changed).
  void refresh();
  // Where the minimap sits: the bottom-right corner of its parent, with a margin.
  void reposition();

signals:
  void navigated(); // the user moved the view from the minimap

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

private:
  void moveViewTo(const QPointF& widgetPos);
  QRectF imageRect() const;

  QGraphicsView* view_;
  QImage image_;
  QRectF sceneRect_;
};

} // namespace dcw::views
