// TextMeasure: text widths for sizing thousands of boxes, from cached per-character advances.
//
// Why: QFontMetricsF shapes every string it measures; sizing the 130k nodes and 150k edge labels of a
// 50k-op graph spent more than half of VisualGraph::build there. Summing cached advances ignores kerning,
// which narrows Latin text, so boxes err on the roomy side; a string too wide for its box is elided by
// Qt as before (rare: names and shapes are short).
#pragma once

#include <QFont>
#include <QFontMetricsF>
#include <QString>

#include <array>
#include <unordered_map>

namespace dcw::views {

class TextMeasure {
public:
  explicit TextMeasure(const QFont& font);
  double width(const QString& text);
  // `text`, elided by Qt when wider than maxWidth.
  QString elided(const QString& text, Qt::TextElideMode mode, double maxWidth);
  double height() const { return metrics_.height(); }

private:
  QFontMetricsF metrics_;
  std::array<double, 128> ascii_{};
  std::unordered_map<char16_t, double> other_;
};

} // namespace dcw::views
