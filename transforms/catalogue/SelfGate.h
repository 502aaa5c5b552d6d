// SelfGate: the x * gate(x) that exporters write for a self-gated activation — SiLU as x * Sigmoid(x)
// (ONNX up to opset 17 has no op for it), HardSwish as x * HardSigmoid(x) (torch before opset 14) —
// found from the gate op, its result and the Mul, and replaced by one node of the activation. The
// analysis and the rewrite that SiluFusion and HardSwishFusion share, so both read the pattern one way.
//
// Preconditions checked: unexpanded ai.onnx gate and Mul; the gate reads x (an access node) and its
// result is a transient with one access node in the whole SDFG that only the Mul reads; the Mul's
// other operand is x itself (a gate x * g(h) of another tensor is no self-gated activation); x and y
// are float32 or float64 of one shape; the Mul has one output edge.
#pragma once

#include "core/edit/Editor.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "transforms/Match.h"

#include <memory>
#include <string>

namespace dcw::transforms::selfgate {

struct Plan {
  ir::LibraryNode* gate = nullptr;
  ir::LibraryNode* mul = nullptr;
  ir::AccessNode* s = nullptr;           // the gate's result
  const ir::DataflowEdge* x = nullptr;   // x -> gate
  const ir::DataflowEdge* y = nullptr;   // Mul -> y
  ir::DType dtype = ir::DType::Undefined;
};

// The match's slots: `gateSlot` (the gate op), "output" (its result), "mul". `gateOp` is the ONNX op
// type ("Sigmoid"), `activation` the name of what replaces it ("Silu"), for the messages.
bool analyse(const Match& match, const ir::Sdfg& root, const std::string& gateSlot, const std::string& gateOp,
             const std::string& activation, Plan& plan, Diagnostics* whyNot);

// Replaces the gate, its result and the Mul by `node` (connectors X -> Y added here), labelled after the
// gate with its op type's suffix replaced by `suffix` ("Sigmoid" -> "Silu").
void replace(edit::Editor& ed, const Plan& plan, std::unique_ptr<ir::LibraryNode> node, const std::string& suffix);

} // namespace dcw::transforms::selfgate
