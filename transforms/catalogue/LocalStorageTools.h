// LocalStorageTools: what the local-buffer transformations (InLocalStorage, OutLocalStorage,
// AccumulateTransient, BufferTiling) share — the box of a container one map iteration reads or
// writes, its constant extent, memlets moved into a buffer's coordinates, and the scope-local buffer
// itself. One implementation, so the four agree on what fits in a buffer and where it lives.
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/support/Expected.h"
#include "core/symbolic/Expr.h"
#include "transforms/Binding.h"

#include <optional>
#include <string>
#include <vector>

namespace dcw::transforms::localstorage {

// [lo, hi) per dimension.
struct Box {
  std::vector<sym::Expr> lo, hi;
};
// The box of the union of `subsets` over the map's range; nullopt when a subset is not monotone in
// the parameters, the ranks differ or the map has a non-unit step.
std::optional<Box> boxOver(const std::vector<ir::Subset>& subsets, const ir::MapEntry& m);

// The buffer's shape: the constant size per dimension of `box` under the assumptions of the maps
// around `inner`. Errors at `path`: the box's rank is not `desc`'s, or the region of `array` `verb`
// ("read", "written") per iteration has no constant size.
Expected<std::vector<sym::Expr>> bufferShape(const Box& box, const ir::DataDescriptor& desc, const ir::State& st,
                                             const ir::MapEntry& inner, const std::string& path, const std::string& array,
                                             const std::string& verb);

// The container `array` of `sdfg` when it can be buffered: an array of known rank without wrappers.
Expected<const ir::DataDescriptor*> bufferableArray(const ir::Sdfg& sdfg, const std::string& array, const std::string& path);

// The match's `inner` and `outer` map exits (OutLocalStorage, AccumulateTransient), resolved with
// their entries; the inner map must sit directly inside the outer one, in one state.
struct NestedExits {
  ir::State* st = nullptr;
  ir::MapExit *ix = nullptr, *ox = nullptr;
  ir::MapEntry *inner = nullptr, *outer = nullptr;
};
Expected<NestedExits> resolveNestedExits(const Binding& b, const std::string& path);

// Whether nothing inside the outer map but the edges of `chain` touches `array` (no other memlet,
// no access node), so that a local buffer hides no access; else an error at `path` with `hint`.
Expected<void> onlyChainTouches(const ir::State& st, const ir::MapEntry& outer, const std::string& array,
                                const std::vector<ir::DataflowEdge*>& chain, const std::string& path, const std::string& hint);

// The box as ranges of the container ([lo, hi)) and of a buffer holding it ([0, hi - lo)).
struct BoxRanges {
  std::vector<ir::Range> region, inBuffer;
};
BoxRanges rangesOf(const Box& box);

// Points every non-empty memlet of `edges` at `buffer`, its subset moved back by the box's origin.
void redirectIntoBuffer(edit::Editor& ed, const std::vector<ir::DataflowEdge*>& edges, const std::string& buffer,
                        const Box& box);

// Adds a transient, scope-lifetime buffer shaped `shape` with `like`'s element type, named after
// `base` (made unique), in `storage`; by default on the CPU stack when it is constant and at most
// 4 KiB. Returns its name.
std::string addScopeBuffer(edit::Editor& ed, ir::Sdfg& sdfg, const ir::DataDescriptor& like, const std::string& base,
                           const std::vector<sym::Expr>& shape, ir::StorageType storage = ir::StorageType::Default);

} // namespace dcw::transforms::localstorage
