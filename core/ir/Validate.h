// Validation of an SDFG tree: structure (ids, labels, edges and connectors, acyclic states,
// well-formed map scopes, control flow), data (declared containers and symbols, subset ranks,
// constant payloads) and nesting (subgraphs and nested SDFGs, recursively). Every problem is a
// Diagnostic located by the element's path, with a hint on how to fix it.
#pragma once

#include "core/support/Diagnostic.h"

namespace dcw::ir {

class Sdfg;

Diagnostics validate(const Sdfg& sdfg);

} // namespace dcw::ir
