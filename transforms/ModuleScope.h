// ModuleScope: a command over a module group. Where `apply` and `set` take one element, a script (or
// the app) may give a module address (core/ir/ModulePath.h) and the command acts on each op of the
// group in the state's order, as one step of the history (one undo):
//   apply ExpandLibraryNode node=main/state0/module:encoder/layer.3 implementation=onednn
//   apply ActivationFusion producer=main/state0/module:block1     (every Conv→Relu pair in block1)
//   set main/state0/module:block1 implementation=onednn           (every op of block1 that has it)
// `apply`: the transformation's matches whose slot binds an op of the group (other slots as given, or
// any); each is checked again just before it is applied, since earlier ones change the graph, and one
// that no longer fits is passed over. `set`: each op with the property that accepts the value. Either
// fails, naming the address and the first op's reason, when nothing in the group takes it.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "transforms/Match.h"
#include "transforms/Matcher.h"

#include <string>
#include <vector>

namespace dcw::transforms {

class Transformation;

// The slot of `m` bound to a module address ("" when none); fails when more than one is.
Expected<std::string> moduleSlot(const Match& m, const std::string& where);
// The matches a module match stands for: `t`'s structural matches whose `slot` binds an op of the
// group and whose other slots equal those `m` gives; `m`'s options on each.
Expected<std::vector<Match>> matchesInModule(const Transformation& t, const Match& m, const std::string& slot, const ir::Sdfg& root);
// canApply for any match: for a module match, whether one of the matches it stands for applies (the
// first one's reason otherwise).
bool canApplyMatch(const Transformation& t, const Match& m, const ir::Sdfg& root, Diagnostics* whyNot);
// What applies over a module group, for the panel and `dcw transforms --at ADDRESS`: per transformation
// among `candidates` (those at the group's ops) with an applicable one, a match with its first slot
// that binds an op of the group bound to the group instead, and how many applicable places it covers.
struct ModuleCandidate {
  const Transformation* transformation = nullptr;
  Match match;
  size_t places = 0;
};
std::vector<ModuleCandidate> moduleCandidates(const std::vector<Candidate>& candidates, const std::string& address,
                                              const ir::Sdfg& root);

// The elements `m` touches, module addresses resolved to their ops (for previews).
std::vector<ir::ElementId> touchedElements(const Match& m, const ir::Sdfg& root);

} // namespace dcw::transforms
