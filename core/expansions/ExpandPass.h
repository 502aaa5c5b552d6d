// ExpandPass: replaces library nodes by their implementation — one node (by id) or every node of a
// model, recursively through subgraphs — keeping the SDFG valid. The node's connectors and edges
// stay as they were; the NestedSdfgNode that takes its place keeps its label, so paths stay stable.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

#include <string>

namespace dcw::edit {
class Editor;
}
namespace dcw::ir {
class LibraryNode;
}

namespace dcw::expansions {

// Expands one library node with the named implementation ("pure").
Expected<void> expandNode(ir::Sdfg& root, ir::ElementId node, const std::string& implementation = "pure");
// The same through a journaling editor (the ExpandLibraryNode transformation; undoable).
Expected<void> expandNode(edit::Editor& editor, ir::LibraryNode& node, const std::string& implementation = "pure");

struct ExpandReport {
  int expanded = 0;
};
// Expands every library node (repeatedly, until none is left, since an expansion may itself contain
// library nodes). Fails on the first node without the implementation, naming the node and op.
Expected<ExpandReport> expandAll(ir::Sdfg& root, const std::string& implementation = "pure");

} // namespace dcw::expansions
