#include "core/expansions/Implementations.h"

#include "core/ir/LibraryNode.h"

#include <algorithm>

namespace dcw::expansions {

const std::vector<std::string>& knownTargets() {
  static const std::vector<std::string> t{"cpu", "cuda", "fpga"};
  return t;
}

const std::vector<std::string>& defaultPolicy(std::string_view target) {
  static const std::vector<std::string> pure{"pure"};
  static const std::vector<std::string> none;
  return target == kCpuTarget || target == "fpga" ? pure : none;
}

std::vector<const ExpansionInfo*> implementationsOf(std::string_view domain, std::string_view op) {
  std::vector<const ExpansionInfo*> out;
  for (auto& e : registry().all())
    if (e.domain == domain && e.op == op) out.push_back(&e);
  return out;
}

std::string alternativesText(std::string_view domain, std::string_view op) {
  std::string s;
  for (auto& e : registry().all())
    if (e.domain == domain && e.op == op)
      s += (s.empty() ? "" : ", ") + e.implementation + " (" + e.decl.targetsText() + ", " +
           (e.decl.differentiable ? "differentiable" : "not differentiable") + ")";
  return s;
}

bool isStructureOp(const ir::LibraryNode& node) {
  const std::string& op = node.opType;
  return node.domain.empty() && (op.rfind("Sequence", 0) == 0 || op.rfind("Optional", 0) == 0 || op == "SplitToSequence" ||
                                 op == "ConcatFromSequence");
}

Unexpected unknownImplementation(const ir::LibraryNode& node, std::string_view choice, const std::string& where) {
  const std::string alternatives = alternativesText(node.domain, node.opType);
  return fail(where + " (" + node.className() + ")",
              "op " + node.className() + " has no '" + std::string(choice) + "' implementation" +
                  (alternatives.empty() ? " (DCW cannot run this op yet)" : "; available: " + alternatives),
              alternatives.empty() ? "replace the op, or wait for its implementation"
                                   : "choose one of the available implementations (set " + where + " implementation=NAME)");
}

Expected<const ExpansionInfo*> chooseImplementation(const ir::LibraryNode& node, std::string_view choice,
                                                    std::string_view target, const std::string& where) {
  const std::string location = where + " (" + node.className() + ")";
  const std::string alternatives = alternativesText(node.domain, node.opType);
  if (choice.empty()) {
    for (auto& name : defaultPolicy(target))
      if (auto* e = registry().find(node.domain, node.opType, name); e && e->decl.forTarget(target)) return e;
    for (auto& e : registry().all()) // no preferred one: the first registered for the target
      if (e.domain == node.domain && e.op == node.opType && e.decl.forTarget(target)) return &e;
    if (alternatives.empty() && isStructureOp(node)) // the import could not resolve it
      return fail(location,
                  "op " + node.className() + " works on an ONNX sequence or optional, which DCW resolves into tensors on import only where "
                  "its length, positions and conditions are known (from constants, or from the values a run gives); here one is not",
                  "run with the model's inputs (dcw run --inputs DIR, SequenceProto/OptionalProto files for sequence and optional "
                  "inputs), or make the positions constants");
    return fail(location,
                "op " + node.className() + " has no implementation for target " + std::string(target) +
                    (alternatives.empty() ? " (DCW cannot run this op yet)" : "; available: " + alternatives),
                alternatives.empty() ? "replace the op, or wait for its implementation"
                                     : "run it on a target one of them is for");
  }
  const ExpansionInfo* e = registry().find(node.domain, node.opType, choice);
  if (!e) return unknownImplementation(node, choice, where);
  if (!e->decl.forTarget(target))
    return fail(location,
                "implementation '" + std::string(choice) + "' of " + node.className() + " is for " + e->decl.targetsText() +
                    ", not for target " + std::string(target) + "; available: " + alternatives,
                "choose an implementation for " + std::string(target) + " (set " + where + " implementation=NAME)");
  return e;
}

} // namespace dcw::expansions
