// Implementations: which implementation a library node gets on a target, and why not.
//
// A node's own choice (LibraryNode::implementation) wins; a node without one gets the target's
// default policy (cpu: `pure`, so the expansion of a model nobody touched stays what it was). A choice
// that does not exist for the op, or that is for another target, is refused with a diagnostic located
// at the node that names the op, the choice and every alternative with its targets and whether it is
// differentiable — the same check for expandAll (ExpandPass.h) and `set PATH implementation=X`.
#pragma once

#include "core/expansions/Expansion.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::expansions {

inline constexpr std::string_view kCpuTarget = "cpu";

// The targets an implementation may declare: cpu, cuda, fpga.
const std::vector<std::string>& knownTargets();

// The default policy: the preferred implementations on a target, best first; the first one the op has
// is used for nodes with no explicit choice (an op with none of them gets its first registered
// implementation for the target). cpu, fpga: {"pure"}; cuda: none yet.
const std::vector<std::string>& defaultPolicy(std::string_view target);

// Every implementation of the op, in registration order (what the inspector and `dcw inspect` list).
std::vector<const ExpansionInfo*> implementationsOf(std::string_view domain, std::string_view op);

// Every implementation of the op, as text ("pure (any target, differentiable), onednn (cpu, not differentiable)").
std::string alternativesText(std::string_view domain, std::string_view op);

// A sequence or optional op (Sequence*, SplitToSequence, ConcatFromSequence, Optional*): none has an
// implementation; the import resolves them into tensor ops where what they do is known.
bool isStructureOp(const ir::LibraryNode& node);

// The implementation `choice` of the node's op on `target` (an empty choice: the default policy).
// `where` locates the diagnostic (the node's path).
Expected<const ExpansionInfo*> chooseImplementation(const ir::LibraryNode& node, std::string_view choice,
                                                    std::string_view target, const std::string& where);

// The refusal of a choice the op does not have (what chooseImplementation returns for it).
Unexpected unknownImplementation(const ir::LibraryNode& node, std::string_view choice, const std::string& where);

} // namespace dcw::expansions
