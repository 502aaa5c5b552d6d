// Walk: visits every element of an SDFG subtree in one deterministic pre-order — an SDFG, its data,
// its blocks (a state's nodes, each followed by the SDFGs nested in it, then the state's edges; a
// region's blocks then its interstate edges; a conditional's branches). Paths, lookups, id
// assignment, serialization and statistics all rely on this single order. The walk keeps a work
// list, not a call stack, so its depth costs no stack however deep SDFGs nest.
#pragma once

#include <functional>

namespace dcw::ir {

class Element;
class Sdfg;
class ControlFlowBlock;
class Node;

using ElementVisitor = std::function<void(Element&)>;

void walk(Sdfg& sdfg, const ElementVisitor& fn);
void walk(ControlFlowBlock& block, const ElementVisitor& fn);
void walk(Node& node, const ElementVisitor& fn);

} // namespace dcw::ir
