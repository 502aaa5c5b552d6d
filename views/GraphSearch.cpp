#include "views/GraphSearch.h"

#include <QRegularExpression>

namespace dcw::views {

SearchResult searchElements(const ElementTree& tree, const QString& text, SearchMode mode,
                            const std::vector<ModuleGroup>* modules) {
  SearchResult r;
  const QString needle = text.trimmed();
  if (needle.isEmpty()) return r;
  QRegularExpression re;
  if (mode == SearchMode::Regex) {
    re = QRegularExpression(needle, QRegularExpression::CaseInsensitiveOption);
    if (!re.isValid()) {
      r.error = QStringLiteral("bad regular expression at column %1: %2")
                    .arg(re.patternErrorOffset() + 1)
                    .arg(re.errorString());
      return r;
    }
  }
  for (const ElementEntry& e : tree.entries()) {
    if (e.container == ir::kNoId) continue; // the root SDFG is not a search result
    bool hit = false;
    switch (mode) {
    case SearchMode::Name: hit = e.label.contains(needle, Qt::CaseInsensitive); break;
    case SearchMode::OpType: hit = e.opType.compare(needle, Qt::CaseInsensitive) == 0; break;
    case SearchMode::Regex: hit = re.match(e.label).hasMatch() || re.match(e.opType).hasMatch(); break;
    }
    if (hit) r.hits.push_back(e.id);
  }
  if (modules)
    for (const ModuleGroup& g : *modules) {
      bool hit = false;
      switch (mode) {
      case SearchMode::Name: hit = g.path.contains(needle, Qt::CaseInsensitive); break;
      case SearchMode::OpType: hit = needle.compare(QStringLiteral("module"), Qt::CaseInsensitive) == 0; break;
      case SearchMode::Regex: hit = re.match(g.path).hasMatch(); break;
      }
      if (hit) r.hits.push_back(g.id);
    }
  return r;
}

} // namespace dcw::views
