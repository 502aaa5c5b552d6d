// GraphTools: SDFG-wide queries the data and library-node transformations share — how often a
// container is accessed, whether control flow names it, a free container name, a node's input
// edge by connector, and dataflow reachability. Kept here so the catalogue answers these questions one way.
#pragma once

#include "core/ir/AccessNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>
#include <set>
#include <string>

namespace dcw::transforms::graph {

// Number of access nodes of `data` in every state of `sdfg` (nested SDFGs' states included).
size_t accessCount(const ir::Sdfg& sdfg, const std::string& data);

// Whether a control-flow condition or assignment of the SDFG (conservatively: of any SDFG below it)
// names `name`.
bool namedInControlFlow(const ir::Sdfg& s, const std::string& name);

// The symbols of `s` that something in `s` reads: data shapes, strides and offsets, map ranges, memlets,
// tasklet code, the symbol mappings of nested SDFGs, the symbols of control-flow ops' bodies, the control
// flow. A symbol outside this set sizes nothing and is read by nothing, so it may be dropped (folded shapes
// leave shape inference's unk__N so); one that only a tasklet names, a dim specialized to a number
// everywhere but in an index expression, stays.
std::set<std::string> symbolsInUse(const ir::Sdfg& s);

// Whether `code` names `id` as a whole identifier (not as part of a longer one).
bool containsIdentifier(const std::string& code, const std::string& id);

// A view whose access node is joined by an edge to `node` (an access node of `st`), showing its data
// (from it) or written through into it; nullptr when none is. A view's one access node is joined so to
// an access node of the array it shows, so this finds the views of an array without a walk per view.
const ir::DataDescriptor* viewJoinedTo(const ir::Sdfg& sdfg, const ir::State& st, const ir::AccessNode& node);

// `base`, or `base_1`, `base_2`, ... : the first name no data container of `s` has.
std::string freshDataName(const ir::Sdfg& s, const std::string& base);

// The values of `exprs` when every one is a constant, else nullopt.
std::optional<std::vector<int64_t>> constantValues(const std::vector<sym::Expr>& exprs);
// The dims of `d` when every one is a constant, else nullopt.
std::optional<std::vector<int64_t>> constantShape(const ir::DataDescriptor& d);

// The value of the one-element float32 or float64 constant that edge `e` reads, or nullopt (no edge,
// not an access node of constant data, more than one element, another type).
std::optional<double> scalarConstant(const ir::Sdfg& sdfg, const ir::State& st, const ir::DataflowEdge* e);

// The edge entering `n` at connector `conn`, or nullptr.
const ir::DataflowEdge* inEdge(const ir::State& st, const ir::Node& n, const std::string& conn);

// Whether a dataflow path in `st` leads from `from` to `to` without passing through a node of `avoid`.
bool reachesAvoiding(const ir::State& st, ir::ElementId from, ir::ElementId to, const std::set<ir::ElementId>& avoid);

} // namespace dcw::transforms::graph
