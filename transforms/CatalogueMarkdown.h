// CatalogueMarkdown: the transformation registry as a Markdown reference (`dcw transforms --markdown`,
// kept as docs/transformations.md). Everything in it comes from the registry's own data — name,
// category, description, whether the result stays differentiable, the pattern's slots and the typed
// options with their defaults — so the reference cannot drift from the code: a ctest regenerates it
// and fails when the committed file differs.
#pragma once

#include "transforms/TransformationRegistry.h"

#include <string>

namespace dcw::transforms {

// The whole document, grouped by category in the order the registry first names each category, the
// transformations of a category in registry order.
std::string catalogueMarkdown(const TransformationRegistry& registry);

} // namespace dcw::transforms
