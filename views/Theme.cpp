#include "views/Theme.h"

#include <algorithm>

namespace dcw::views {

namespace {
// One hue per category, pale on the light canvas and deep on the dark one so the op names stay
// readable; "other" keeps the plain library fill.
std::array<QColor, kOpCategoryCount> categoryFills(ThemeKind kind, const QColor& other) {
  const int hues[kOpCategoryCount] = {
      215, // convolution: blue
      265, // matmul: violet
      185, // recurrent: teal
      145, // normalization: green
      5,   // activation: red
      85,  // pooling: lime
      35,  // arithmetic: orange
      50,  // reduction: amber
      25,  // data movement: brown (low saturation below)
      220, // shape arithmetic: grey-blue (low saturation below)
      320, // control flow: magenta
      0,
  };
  std::array<QColor, kOpCategoryCount> c;
  for (int i = 0; i < kOpCategoryCount; ++i) {
    const auto cat = OpCategory(i);
    const bool muted = cat == OpCategory::DataMovement || cat == OpCategory::Shape;
    const int sat = muted ? 40 : 150;
    c[size_t(i)] = kind == ThemeKind::Light ? QColor::fromHsl(hues[i], sat, 208) : QColor::fromHsl(hues[i], muted ? 30 : 90, 62);
  }
  c[size_t(OpCategory::Other)] = other;
  return c;
}
} // namespace

CanvasTheme CanvasTheme::light() {
  CanvasTheme t;
  t.kind = ThemeKind::Light;
  t.background = QColor(0xfa, 0xfa, 0xf8);
  t.text = QColor(0x1d, 0x1f, 0x23);
  t.textDim = QColor(0x5f, 0x64, 0x6d);
  t.stroke = QColor(0x3c, 0x40, 0x46);
  t.access = QColor(0xff, 0xff, 0xff);
  t.accessTransient = QColor(0xee, 0xf1, 0xf5);
  t.constant = QColor(0xf4, 0xe9, 0xd2);
  t.tasklet = QColor(0xe0, 0xf2, 0xe3);
  t.map = QColor(0xd9, 0xe7, 0xfb);
  t.library = QColor(0xfc, 0xe3, 0xc4);
  t.nested = QColor(0xea, 0xe0, 0xf7);
  t.state = QColor(0xee, 0xee, 0xee);
  t.frameState = QColor(0xf1, 0xf2, 0xf4);
  t.frameMap = QColor(0xe8, 0xf0, 0xfc);
  t.frameSdfg = QColor(0xff, 0xff, 0xff);
  t.frameLibrary = QColor(0xfe, 0xf3, 0xe5);
  t.frameRegion = QColor(0xf3, 0xf0, 0xf8);
  t.frameBorder = QColor(0xa8, 0xad, 0xb5);
  t.edge = QColor(0x55, 0x5b, 0x66);
  t.edgeLabel = QColor(0x4a, 0x56, 0x6e);
  t.interstate = QColor(0x2f, 0x6f, 0xb5);
  t.selection = QColor(0xe6, 0x4a, 0x19);
  t.match = QColor(0xff, 0xd5, 0x4f);
  t.currentMatch = QColor(0xff, 0x98, 0x00);
  t.rampLow = QColor(0xe8, 0xf3, 0xe0);
  t.rampMid = QColor(0xfd, 0xd4, 0x6a);
  t.rampHigh = QColor(0xd7, 0x3b, 0x2a);
  t.categories = categoryFills(ThemeKind::Light, t.library);
  return t;
}

CanvasTheme CanvasTheme::dark() {
  CanvasTheme t;
  t.kind = ThemeKind::Dark;
  t.background = QColor(0x1e, 0x20, 0x24);
  t.text = QColor(0xe6, 0xe8, 0xeb);
  t.textDim = QColor(0xa0, 0xa6, 0xb0);
  t.stroke = QColor(0x9a, 0xa1, 0xab);
  t.access = QColor(0x2c, 0x31, 0x38);
  t.accessTransient = QColor(0x27, 0x2b, 0x31);
  t.constant = QColor(0x4a, 0x40, 0x2c);
  t.tasklet = QColor(0x24, 0x45, 0x30);
  t.map = QColor(0x25, 0x3d, 0x5e);
  t.library = QColor(0x5a, 0x3e, 0x1e);
  t.nested = QColor(0x3f, 0x33, 0x57);
  t.state = QColor(0x33, 0x36, 0x3c);
  t.frameState = QColor(0x26, 0x29, 0x2e);
  t.frameMap = QColor(0x22, 0x2c, 0x3a);
  t.frameSdfg = QColor(0x1b, 0x1d, 0x21);
  t.frameLibrary = QColor(0x33, 0x2a, 0x1f);
  t.frameRegion = QColor(0x2b, 0x27, 0x33);
  t.frameBorder = QColor(0x55, 0x5b, 0x66);
  t.edge = QColor(0x98, 0xa0, 0xac);
  t.edgeLabel = QColor(0xa9, 0xb6, 0xcc);
  t.interstate = QColor(0x6c, 0xa8, 0xef);
  t.selection = QColor(0xff, 0x7a, 0x45);
  t.match = QColor(0x8c, 0x6d, 0x00);
  t.currentMatch = QColor(0xd6, 0x8a, 0x00);
  t.rampLow = QColor(0x2a, 0x4a, 0x35);
  t.rampMid = QColor(0x9c, 0x7a, 0x1c);
  t.rampHigh = QColor(0xc2, 0x3b, 0x2e);
  t.categories = categoryFills(ThemeKind::Dark, t.library);
  return t;
}

namespace {
QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t), float(a.greenF() + (b.greenF() - a.greenF()) * t),
                          float(a.blueF() + (b.blueF() - a.blueF()) * t));
}
} // namespace

QColor CanvasTheme::ramp(double t) const {
  t = std::clamp(t, 0.0, 1.0);
  return t < 0.5 ? mix(rampLow, rampMid, t * 2) : mix(rampMid, rampHigh, (t - 0.5) * 2);
}

QPalette applicationPalette(ThemeKind kind) {
  if (kind == ThemeKind::Light) {
    QPalette p(QColor(0xef, 0xef, 0xef));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf5, 0xf6, 0xf8));
    p.setColor(QPalette::Highlight, QColor(0x30, 0x7c, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    return p;
  }
  QPalette p;
  const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x20, 0x24), text(0xe6, 0xe8, 0xeb), dim(0x80, 0x86, 0x90);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(0x25, 0x27, 0x2b));
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, dim);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xef));
  p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Light, QColor(0x3a, 0x3d, 0x42));
  p.setColor(QPalette::Midlight, QColor(0x34, 0x37, 0x3c));
  p.setColor(QPalette::Mid, QColor(0x24, 0x26, 0x2a));
  p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1c));
  p.setColor(QPalette::Shadow, Qt::black);
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, dim);
  return p;
}

QString themeName(ThemeKind kind) { return kind == ThemeKind::Dark ? QStringLiteral("dark") : QStringLiteral("light"); }

std::optional<ThemeKind> themeFromName(const QString& name) {
  if (name.compare(QLatin1String("dark"), Qt::CaseInsensitive) == 0) return ThemeKind::Dark;
  if (name.compare(QLatin1String("light"), Qt::CaseInsensitive) == 0) return ThemeKind::Light;
  return std::nullopt;
}

} // namespace dcw::views
