#include "views/TextMeasure.h"

namespace dcw::views {

TextMeasure::TextMeasure(const QFont& font) : metrics_(font) {
  for (size_t c = 0; c < ascii_.size(); ++c) ascii_[c] = metrics_.horizontalAdvance(QChar(char16_t(c)));
}

double TextMeasure::width(const QString& text) {
  double w = 0;
  for (QChar ch : text) {
    const char16_t c = ch.unicode();
    if (c < ascii_.size()) {
      w += ascii_[c];
      continue;
    }
    auto [it, fresh] = other_.try_emplace(c, 0.0);
    if (fresh) it->second = metrics_.horizontalAdvance(ch);
    w += it->second;
  }
  return w;
}

QString TextMeasure::elided(const QString& text, Qt::TextElideMode mode, double maxWidth) {
  if (width(text) <= maxWidth) return text;
  return metrics_.elidedText(text, mode, maxWidth);
}

} // namespace dcw::views
