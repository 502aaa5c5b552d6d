// ScopeTools: the small structural queries and rewrites most map transformations share — a map's
// exit and scope, the edges through its entry and exit, the assumptions its parameters give the
// provers, and wrapping a map in another map.
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/State.h"
#include "core/ir/Tasklet.h"
#include "core/support/Diagnostic.h"
#include "core/symbolic/Expr.h"
#include "core/tasklet/TaskletCode.h"
#include "transforms/Match.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace dcw::transforms::scope {

ir::MapExit* exitOf(const ir::State& st, const ir::MapEntry& entry);
// Nodes strictly inside the map (between entry and exit, nested maps included), in state order.
std::vector<ir::Node*> nodesInside(const ir::State& st, const ir::MapEntry& entry);
// The innermost map enclosing `n` (nullptr at top level), or nullptr on malformed scopes.
const ir::MapEntry* enclosing(const ir::State& st, const ir::Node& n);
// The non-empty memlets of a map's body, by where they run: from the entry into the body (`reads`),
// between nodes inside (`inner`), from the body into the exit (`writes`). The memlets the map's loops
// index are reads and writes; `inner` ones reach transients local to an iteration, or nested maps.
struct BodyMemlets {
  std::vector<const ir::Memlet*> reads, inner, writes;
  std::vector<const ir::Memlet*> boundary() const; // reads, then writes
  std::vector<const ir::Memlet*> all() const;      // reads, inner, then writes
};
BodyMemlets bodyMemlets(const ir::State& st, const ir::MapEntry& entry);
// Whether a map's body holds exactly one node of kind T (besides nested maps' ends).
bool isPerfectNest(const ir::State& st, const ir::MapEntry& outer, const ir::MapEntry** inner);

// Puts a new map (params, ranges) around `entry`...`exit`: every edge entering the entry from
// outside now passes through the new entry (same memlet on both sides, which over-approximates the
// data an iteration of the outer map needs), and likewise every edge leaving the exit. Returns the
// new entry; the new exit is `exitOf(st, *newEntry)`.
ir::MapEntry* wrapInMap(edit::Editor& ed, ir::State& st, ir::MapEntry& entry, const std::string& label,
                        std::vector<std::string> params, ir::Subset ranges, ir::Schedule schedule);

// Whether tasklet `t` reads any of `names` (map parameters) in its code. Sets `problem` where the code
// could not be rewritten: a C++ tasklet that may name one, code that does not parse, a statement that
// assigns one, or an input connector named like one.
bool taskletUses(const ir::Tasklet& t, const std::set<std::string>& names, std::string* problem);
// Whether tasklet code can write the value `v` (its language has no // or %).
bool taskletCanWrite(const sym::Expr& v);
// The parameters of `entry` replaced by `values` throughout its body: the memlets of the edges from
// the entry to the exit, nested maps' ranges, nested SDFGs' symbol mappings and the tasklets' code
// (an error names a tasklet that uses a parameter whose value tasklet code cannot write). The entry's
// own parameters and ranges are the caller's to change.
Expected<void> substituteInBody(edit::Editor& ed, ir::State& st, const ir::MapEntry& entry,
                                const std::map<std::string, sym::Expr>& values);

// A parameter name not used by any map enclosing or inside `entry` nor by the SDFG's symbols.
std::string freshParam(const ir::State& st, const ir::MapEntry& entry, const std::string& base);

// `conn` with its prefix `from` replaced by `to` (IN_x <-> OUT_x); unchanged when it lacks the prefix.
std::string swapPrefix(const std::string& conn, const std::string& from, const std::string& to);

// A copy of the tasklet expression `e` with the names (and index names) in `names` renamed.
tasklet::ExprPtr renameExpr(const tasklet::ExprPtr& e, const std::map<std::string, std::string>& names);

// The edges inside map exits that feed connector `conn` of `n` (transitively through nested exits),
// appended to `out`; nothing when `n` is no map exit or `conn` no OUT_ connector.
void upstream(const ir::State& st, const ir::Node& n, const std::string& conn, std::vector<ir::DataflowEdge*>& out);
// The edges inside map entries fed by connector `conn` of `n` (transitively through nested entries),
// appended to `out`; nothing when `n` is no map entry or `conn` no IN_ connector.
void downstream(const ir::State& st, const ir::Node& n, const std::string& conn, std::vector<ir::DataflowEdge*>& out);

// Assumptions for the provers: every parameter of the maps enclosing `n` lies in its range.
sym::Assumptions scopeAssumptions(const ir::State& st, const ir::Node& n);

// The canApply preamble of the two-map transformations (MapCollapse, MapInterchange): resolves the
// match's `outer` and `inner` map entries and checks they form a perfect nest in one state. On
// failure reports why to `whyNot` at the outer map's path (with `hint` for a non-perfect nest) and
// returns false.
bool resolvePerfectNest(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot, const std::string& hint,
                        ir::MapEntry*& outer, ir::MapEntry*& inner);

// The first range of `inner` that depends on a parameter of `outer` ("" when none): such a nest
// cannot be collapsed or interchanged. `param` receives the parameter it depends on.
std::string rangeDependingOnOuter(const ir::MapEntry& outer, const ir::MapEntry& inner, std::string* param);

} // namespace dcw::transforms::scope
