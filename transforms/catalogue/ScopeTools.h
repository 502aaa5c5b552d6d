// ScopeTools: the small structural queries and rewrites most map transformations share — a map's
// exit and scope, the edges through its entry and exit, and wrapping a map in another map.
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/State.h"

#include <string>
#include <vector>

namespace dcw::transforms::scope {

ir::MapExit* exitOf(const ir::State& st, const ir::MapEntry& entry);
// Nodes strictly inside the map (between entry and exit, nested maps included), in state order.
std::vector<ir::Node*> nodesInside(const ir::State& st, const ir::MapEntry& entry);
// The innermost map enclosing `n` (nullptr at top level), or nullptr on malformed scopes.
const ir::MapEntry* enclosing(const ir::State& st, const ir::Node& n);
// Whether a map's body holds exactly one node of kind T (besides nested maps' ends).
bool isPerfectNest(const ir::State& st, const ir::MapEntry& outer, const ir::MapEntry** inner);

// Puts a new map (params, ranges) around `entry`...`exit`: every edge entering the entry from
// outside now passes through the new entry (same memlet on both sides, which over-approximates the
// data an iteration of the outer map needs), and likewise every edge leaving the exit. Returns the
// new entry; the new exit is `exitOf(st, *newEntry)`.
ir::MapEntry* wrapInMap(edit::Editor& ed, ir::State& st, ir::MapEntry& entry, const std::string& label,
                        std::vector<std::string> params, ir::Subset ranges, ir::Schedule schedule);

// A parameter name not used by any map enclosing or inside `entry` nor by the SDFG's symbols.
std::string freshParam(const ir::State& st, const ir::MapEntry& entry, const std::string& base);

} // namespace dcw::transforms::scope
