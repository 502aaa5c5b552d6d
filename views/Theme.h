// Theme: the two colour schemes of dcw-gui (light and dark) — the application palette for widgets and
// the canvas colours for the graph (one fill per kind of node, frames per kind of container, edges,
// selection, search highlights and the overlay ramp). One place decides colours so that the canvas,
// the minimap, the legend and exported images always agree.
#pragma once

#include "views/OpCategory.h"

#include <QColor>
#include <QPalette>
#include <QString>

#include <array>
#include <optional>

namespace dcw::views {

enum class ThemeKind { Light, Dark };

struct CanvasTheme {
  ThemeKind kind = ThemeKind::Light;
  QColor background, text, textDim, stroke;
  QColor access, accessTransient, constant, tasklet, map, library, nested, state;
  QColor frameState, frameMap, frameSdfg, frameLibrary, frameRegion; // container backgrounds
  QColor frameBorder, edge, edgeLabel, interstate;
  QColor selection, match, currentMatch;
  QColor rampLow, rampMid, rampHigh; // overlay colours from small to large values
  std::array<QColor, kOpCategoryCount> categories; // library nodes' fills by what their op does

  QColor category(OpCategory c) const { return categories[size_t(c)]; }

  static CanvasTheme light();
  static CanvasTheme dark();
  static CanvasTheme of(ThemeKind k) { return k == ThemeKind::Dark ? dark() : light(); }
  // A colour on the overlay ramp for t in [0, 1].
  QColor ramp(double t) const;
};

// The widget palette for a theme (used with the Fusion style).
QPalette applicationPalette(ThemeKind kind);
QString themeName(ThemeKind kind);                     // "light", "dark"
std::optional<ThemeKind> themeFromName(const QString& name);

} // namespace dcw::views
