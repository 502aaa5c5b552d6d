#include "views/Minimap.h"

#include <QGraphicsScene>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace dcw::views {

Minimap::Minimap(QGraphicsView* view, QWidget* parent) : QWidget(parent), view_(view) {
  setObjectName(QStringLiteral("minimap"));
  setFixedSize(200, 150);
  setCursor(Qt::PointingHandCursor);
  setToolTip(tr("Overview: click or drag to move the view"));
}

void Minimap::reposition() {
  if (!parentWidget()) return;
  QRect r = parentWidget()->rect();
  move(r.right() - width() - 12, r.bottom() - height() - 12);
}

void Minimap::refresh() {
  QGraphicsScene* scene = view_->scene();
  sceneRect_ = scene ? scene->itemsBoundingRect() : QRectF();
  image_ = QImage();
  if (!scene || sceneRect_.isEmpty()) {
    update();
    return;
  }
  // The widget takes the graph's proportions within 200 px across and up to 400 px down (less on a
  // small canvas), so a tall, narrow model gets a tall, narrow overview instead of a wide empty box.
  const int maxHeight = parentWidget() ? std::clamp(parentWidget()->height() * 3 / 5, 150, 400) : 150;
  QSizeF fit = sceneRect_.size().scaled(QSizeF(192, maxHeight - 8), Qt::KeepAspectRatio);
  setFixedSize(QSize(std::max(48, int(std::ceil(fit.width())) + 8), std::max(48, int(std::ceil(fit.height())) + 8)));
  reposition();
  const qreal dpr = devicePixelRatioF();
  image_ = QImage((fit * dpr).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
  image_.setDevicePixelRatio(dpr);
  image_.fill(Qt::transparent);
  QPainter p(&image_);
  scene->render(&p, QRectF(QPointF(0, 0), fit), sceneRect_, Qt::KeepAspectRatio);
  update();
}

QRectF Minimap::imageRect() const {
  QSizeF s = image_.deviceIndependentSize();
  return QRectF(QPointF((width() - s.width()) / 2, (height() - s.height()) / 2), s);
}

void Minimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  QColor bg = palette().color(QPalette::Base);
  bg.setAlpha(230);
  p.fillRect(rect(), bg);
  p.setPen(palette().color(QPalette::Mid));
  p.drawRect(rect().adjusted(0, 0, -1, -1));
  if (image_.isNull()) return;
  QRectF ir = imageRect();
  p.drawImage(ir.topLeft(), image_);
  // The visible part of the scene.
  QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  double sx = ir.width() / sceneRect_.width(), sy = ir.height() / sceneRect_.height();
  QRectF frame(ir.left() + (visible.left() - sceneRect_.left()) * sx, ir.top() + (visible.top() - sceneRect_.top()) * sy,
               visible.width() * sx, visible.height() * sy);
  frame = frame.intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
  QColor hl = palette().color(QPalette::Highlight);
  p.setPen(QPen(hl, 1.5));
  hl.setAlpha(40);
  p.setBrush(hl);
  p.drawRect(frame);
}

void Minimap::moveViewTo(const QPointF& pos) {
  if (image_.isNull()) return;
  QRectF ir = imageRect();
  QPointF scene(sceneRect_.left() + (pos.x() - ir.left()) / ir.width() * sceneRect_.width(),
                sceneRect_.top() + (pos.y() - ir.top()) / ir.height() * sceneRect_.height());
  view_->centerOn(scene);
  update();
  emit navigated();
}

void Minimap::mousePressEvent(QMouseEvent* e) { moveViewTo(e->position()); }
void Minimap::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) moveViewTo(e->position());
}

} // namespace dcw::views
