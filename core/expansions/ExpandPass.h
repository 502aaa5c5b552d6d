// ExpandPass: replaces library nodes by their implementation — one node (by id) or every node of a
// model, recursively through subgraphs — keeping the SDFG valid. The node's connectors and edges
// stay as they were; the NestedSdfgNode that takes its place keeps its label, so paths stay stable.
// expandAll honours each node's chosen implementation (LibraryNode::implementation) and fills the
// others from the target's default policy (Implementations.h); the nested SDFG records the
// implementation used in its metadata ("implementation", "expanded_from").
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

#include <map>
#include <string>
#include <vector>

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
  std::map<std::string, int> byImplementation; // "pure" -> 120, "onednn" -> 53
};
struct ExpandOptions {
  std::string target = "cpu";   // the target the expanded model is generated for
  // For nodes without a choice of their own: implementations to try first, in order (e.g. {"onednn"});
  // one that the op lacks, that is for another target, or that refuses the node (a dtype, an
  // attribute it does not support) is passed over, and the target's default policy fills the rest.
  std::vector<std::string> prefer;
};
// Expands every library node (repeatedly, until none is left, since an expansion may itself contain
// library nodes), each with its own choice, else the first preferred implementation that takes it,
// else the target's default. Fails on the first node whose own choice does not exist or is for
// another target (naming node, op, choice and the alternatives).
Expected<ExpandReport> expandAll(ir::Sdfg& root, const ExpandOptions& options = {});

// Whether `implementation` takes the node as it is (nothing is changed): the op has it for `target`
// and its expansion accepts the node; otherwise the refusal, naming the node and what does not fit.
Expected<void> canExpand(const ir::LibraryNode& node, const std::string& implementation, const std::string& target = "cpu");

} // namespace dcw::expansions
