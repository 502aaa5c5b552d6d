// ConcurrentBranches: where a state's top level splits into branches that touch none of each other's
// data, and how a code generator shares them out among threads — an inception block's four towers,
// a fire module's two expands, the two paths of a ShuffleNet downsampling unit.
//
// Why: the CPU target runs each operation on all threads, one after another, and a small layer does not
// keep two cores busy. Two towers of two 3x3 convolutions (24 channels, 28x28), each tower on a core of
// its own, took 0.59-0.93x the time of one convolution after another on both cores (medians of 5-9
// turns each, three measurements, 2 cores). Where one branch is most of the work, or the layers scale
// well, running together gains nothing (GoogLeNet's inception blocks, ResNet-50's downsampling paths:
// within 3% either way). So the estimate below only proposes groups, and the program measures both
// ways on its first runs (the CPU target's dcw_rt::BranchChoice).
//
// Before (top-level order):  conv_a  conv_b1  pool_c  conv_b2  conv_c  concat
// After (threads = 2):        [thread 0: conv_b1 conv_b2 | thread 1: conv_a pool_c conv_c]  concat
//
// Independence is by storage: a unit (a top-level node with everything inside it) reads and writes the
// arrays its edges name (a view counts as the array it shows); two units conflict when one writes what
// the other reads or writes, or an edge joins them directly (an ordering edge). Conflicting units go in
// one branch in their order. A group is a run of consecutive top-level nodes, so everything before it
// has run when it starts and nothing after it starts before it ends; nodes the generator cannot run in
// a branch (it says so through the cost function) end a group.
#pragma once

#include "core/ir/StateScopes.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace dcw::ir {
class Node;
class Sdfg;
} // namespace dcw::ir

namespace dcw::codegen {

struct BranchGroup {
  size_t begin = 0, end = 0;                // positions [begin, end) in the state's top-level order
  std::vector<std::vector<size_t>> threads; // per thread, the positions it runs, in order (all of [begin, end))
  int branches = 0;                         // independent branches with work
  double total = 0, busiest = 0;            // estimated seconds on one thread: all of it, and the busiest thread's
};

// The estimated seconds of a top-level node on one thread; nullopt when it cannot run in a branch.
using UnitCost = std::function<std::optional<double>(const ir::Node&)>;

// The groups of `si`'s top level (its root scope) worth running on `threads` threads, in order.
// `sdfg` resolves views to the arrays they show.
std::vector<BranchGroup> concurrentBranches(const ir::Sdfg& sdfg, const ir::StateScopes& si, const UnitCost& cost, int threads);

// A group is kept when its busiest thread takes at most this share of what the same work takes on
// all threads one operation after another, estimated as total / (threads * kSequentialEfficiency);
// and when its total is at least kMinGroupSeconds (a parallel region costs a few microseconds).
constexpr double kSequentialEfficiency = 0.7;
constexpr double kMinGroupSeconds = 50e-6;

} // namespace dcw::codegen
