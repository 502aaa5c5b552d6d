// CopyMap: a top-level map whose one tasklet copies one element of an array into a whole transient
// (`y = x`), each dim of the transient indexed by a parameter of its own over the dim's extent — what
// a Transpose, a Slice or a Split expands to. CopyToView and StridedView turn such maps into views;
// they share this recognition and differ in which orders of reading they take.
#pragma once

#include "core/ir/AccessNode.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Memlet.h"
#include "core/ir/State.h"
#include "core/support/Diagnostic.h"
#include "transforms/Match.h"

#include <map>
#include <string>

namespace dcw::transforms {

struct CopyMap {
  ir::State* state = nullptr;
  ir::Sdfg* sdfg = nullptr;
  const ir::MapEntry* entry = nullptr;
  const ir::AccessNode* input = nullptr;  // the access node the map reads
  const ir::AccessNode* output = nullptr; // the transient's
  ir::DataDescriptor* target = nullptr;   // the transient S, written whole
  const ir::DataDescriptor* source = nullptr; // what `input` shows
  ir::Memlet read, write;                 // the tasklet's element accesses
  std::map<std::string, sym::Expr> fixed; // parameters of one iteration, by their value
};

// Recognizes the map the match's "entry" slot names (see above): S a transient row-major array of
// constant shape with that one access node, written by the map alone and not named by control flow, of
// the source's element type. Fills `c`; whyNot gets the first reason when it is not such a map.
bool recognizeCopyMap(const Match& match, const ir::Sdfg& root, CopyMap& c, Diagnostics* whyNot);

// Whether some access node of `array` other than `readFrom` is written (in any state): then a view of
// it could change under its readers.
bool writtenElsewhere(const ir::Sdfg& sdfg, const std::string& array, const ir::AccessNode* readFrom);

} // namespace dcw::transforms
