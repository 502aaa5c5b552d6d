// ExpandPass: replaces library nodes by their implementation — one node (by id) or every node of a
// model, recursively through subgraphs — keeping the SDFG valid. The node's connectors and edges
// stay as they were; the NestedSdfgNode that takes its place keeps its label, so paths stay stable.
// expandAll honours each node's chosen implementation (LibraryNode::implementation) and fills the
// others from the target's default policy (Implementations.h); the nested SDFG records the
// implementation used in its metadata ("implementation", "expanded_from").
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
struct ExpandOptions {
  std::string target = "cpu";   // the target the expanded model is generated for
};
// Expands every library node (repeatedly, until none is left, since an expansion may itself contain
// library nodes), each with its own choice or the target's default. Fails on the first node whose
// choice does not exist or is for another target (naming node, op, choice and the alternatives).
Expected<ExpandReport> expandAll(ir::Sdfg& root, const ExpandOptions& options = {});

} // namespace dcw::expansions
