// ModulePath: see the header.
#include "views/ModulePath.h"

namespace dcw::views {

namespace {
bool numeric(const QString& s) {
  if (s.isEmpty()) return false;
  for (QChar c : s)
    if (!c.isDigit()) return false;
  return true;
}
} // namespace

QStringList modulePath(std::string_view nodeName) {
  const QString name = QString::fromUtf8(nodeName.data(), qsizetype(nodeName.size()));
  const bool slashed = name.startsWith(QLatin1Char('/'));
  QStringList parts = name.split(slashed ? QLatin1Char('/') : QLatin1Char('.'), Qt::SkipEmptyParts);
  if (parts.size() < 2) return {};
  parts.removeLast(); // the op itself
  if (!slashed && parts.front() == QLatin1String("p2o")) return {};
  QStringList out;
  for (const QString& p : parts) {
    if (numeric(p) && !out.isEmpty()) out.back() += QLatin1Char('.') + p; // layers.0
    else out.push_back(p);
  }
  return out;
}

} // namespace dcw::views
