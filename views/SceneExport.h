// SceneExport: writes a region of a QGraphicsScene as SVG (QSvgGenerator: vector shapes, text kept as
// <text> so names stay searchable and selectable) or as PNG at any scale. The canvas uses it for
// File ▸ Export and `dcw-gui --export-svg`; callers decide the region (the whole graph or the view).
// Errors (an unwritable file, a picture too large to allocate) come back as text, never as a crash.
#pragma once

#include <QColor>
#include <QRectF>
#include <QString>

#include <functional>

class QGraphicsScene;
class QPainter;

namespace dcw::views {

struct ExportOptions {
  QRectF sceneRect;                           // what to draw
  QColor background = Qt::white;
  double scale = 1.0;                         // PNG pixels per scene unit; SVG user units per unit
  QString title;                              // SVG <title>
  std::function<void(QPainter&, const QRectF&)> decorate; // drawn last over the target rect (legend)
};

// Largest PNG side in pixels (keeps a mistaken scale from allocating gigabytes).
constexpr int kMaxPngSide = 32768;

bool exportSvg(QGraphicsScene& scene, const QString& path, const ExportOptions& options, QString* error);
bool exportPng(QGraphicsScene& scene, const QString& path, const ExportOptions& options, QString* error);

} // namespace dcw::views
