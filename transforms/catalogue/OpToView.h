// OpToView: what ReshapeToView and TransposeToView share — an unexpanded op outside maps that reads
// the whole of an array A at its data connector and writes the whole of a transient B becomes nothing:
// B turns into a view of A (core/ir/View.h), fed by A's access node. The checks here are those every
// such step needs (A an array that no other access node writes, so it does not change while B is read;
// B a transient array of A's element type with one access node, written by the op alone; neither named
// by control flow); each step adds its own (which ops, which layouts place B's elements on A's).
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/support/Diagnostic.h"
#include "transforms/Match.h"

#include <string>

namespace dcw::transforms {

struct OpToView {
  ir::State* state = nullptr;
  ir::Sdfg* sdfg = nullptr;
  const ir::AccessNode* input = nullptr;
  const ir::LibraryNode* op = nullptr;
  const ir::AccessNode* output = nullptr;
  const ir::DataflowEdge* in = nullptr;      // A into the op's data connector
  ir::DataDescriptor* view = nullptr;       // B
  const ir::DataDescriptor* array = nullptr; // A
};

// Binds the match's "input", `opKey` and "output" elements (an access node, a library node, an access
// node) into `p`; whyNot gets the reason, at the op's path, when they are not so.
bool bindOpToView(const Match& match, const ir::Sdfg& root, const std::string& opKey, OpToView& p, Diagnostics* whyNot);
// The shared preconditions (see above), `connector` being the op's data input; whyNot gets the first
// that fails, at `path`.
bool checkOpToView(OpToView& p, const std::string& connector, const std::string& path, Diagnostics* whyNot);
// Removes the op (with its edges), joins A's access node to B's with an edge carrying the whole of A,
// and makes B a view.
void applyOpToView(const OpToView& p, edit::Editor& ed);

} // namespace dcw::transforms
