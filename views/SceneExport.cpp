#include "views/SceneExport.h"

#include <QFile>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <cmath>

namespace dcw::views {

namespace {

bool checkWritable(const QString& path, QString* error) {
  QFile probe(path);
  if (!probe.open(QIODevice::WriteOnly)) {
    if (error) *error = QStringLiteral("%1: cannot write the file (%2)").arg(path, probe.errorString());
    return false;
  }
  return true;
}

void draw(QGraphicsScene& scene, QPainter& p, const QRectF& target, const ExportOptions& o) {
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.fillRect(target, o.background);
  scene.render(&p, target, o.sceneRect, Qt::KeepAspectRatio);
  if (o.decorate) o.decorate(p, target);
}

} // namespace

bool exportSvg(QGraphicsScene& scene, const QString& path, const ExportOptions& o, QString* error) {
  if (o.sceneRect.isEmpty()) {
    if (error) *error = QStringLiteral("%1: nothing to export (the graph is empty)").arg(path);
    return false;
  }
  if (!checkWritable(path, error)) return false;
  QSizeF size = o.sceneRect.size() * o.scale;
  QSvgGenerator gen;
  gen.setFileName(path);
  gen.setSize(size.toSize());
  gen.setViewBox(QRectF(QPointF(0, 0), size));
  gen.setResolution(72); // one user unit per point, so text sizes stay as on screen
  gen.setTitle(o.title);
  gen.setDescription(QStringLiteral("Exported by DCW, the Data-Centric Workbench"));
  QPainter p;
  if (!p.begin(&gen)) {
    if (error) *error = QStringLiteral("%1: cannot start the SVG writer").arg(path);
    return false;
  }
  draw(scene, p, QRectF(QPointF(0, 0), size), o);
  p.end();
  return true;
}

bool exportPng(QGraphicsScene& scene, const QString& path, const ExportOptions& o, QString* error) {
  if (o.sceneRect.isEmpty()) {
    if (error) *error = QStringLiteral("%1: nothing to export (the graph is empty)").arg(path);
    return false;
  }
  const double w = std::ceil(o.sceneRect.width() * o.scale), h = std::ceil(o.sceneRect.height() * o.scale);
  if (w < 1 || h < 1 || w > kMaxPngSide || h > kMaxPngSide) {
    if (error)
      *error = QStringLiteral("%1: a %2×%3 picture is too large (at most %4 pixels a side); choose a smaller scale")
                   .arg(path)
                   .arg(qint64(w))
                   .arg(qint64(h))
                   .arg(kMaxPngSide);
    return false;
  }
  QImage image(int(w), int(h), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    if (error) *error = QStringLiteral("%1: not enough memory for a %2×%3 picture").arg(path).arg(int(w)).arg(int(h));
    return false;
  }
  {
    QPainter p(&image);
    draw(scene, p, QRectF(0, 0, w, h), o);
  }
  if (!image.save(path, "PNG")) {
    if (error) *error = QStringLiteral("%1: cannot write the PNG file").arg(path);
    return false;
  }
  return true;
}

} // namespace dcw::views
