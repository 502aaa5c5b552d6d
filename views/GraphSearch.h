// GraphSearch: finds elements by name (case-insensitive substring of the label), by op type (the
// library node's class such as "Conv", or a kind such as "map", "tasklet", "access"; exact,
// case-insensitive) or by a regular expression matched against both. Results come in the
// ElementTree's pre-order, so next/previous walk the model top to bottom, hidden elements included.
// Module groups (ModuleGroups) are found too, after the elements: by name or path, by the kind
// "module", or by a regular expression on their path.
#pragma once

#include "views/ElementTree.h"
#include "views/ModuleGroups.h"

#include <QString>

#include <vector>

namespace dcw::views {

enum class SearchMode { Name, OpType, Regex };

struct SearchResult {
  std::vector<ir::ElementId> hits;
  QString error; // a bad regular expression, with the column; empty when fine
};

SearchResult searchElements(const ElementTree& tree, const QString& text, SearchMode mode,
                            const std::vector<ModuleGroup>* modules = nullptr);

} // namespace dcw::views
