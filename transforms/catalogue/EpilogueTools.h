// EpilogueTools: what ActivationFusion and AddFusion share — recognising a producer whose epilogue can
// grow (an unexpanded Conv, ConvTranspose, MatMul, Gemm or BatchNormalization of ai.onnx, or a dcw fused op:
// core/expansions/FusedOp.h), checking that its output is a float32 transient only the next op reads,
// turning the producer into its fused op in place (same id, label and edges), and putting the
// producer's output where the consumer's was once the consumer is gone.
#pragma once

#include "core/expansions/FusedOp.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/support/Diagnostic.h"
#include "transforms/Binding.h"

#include <set>
#include <string>

namespace dcw::edit {
class Editor;
}

namespace dcw::transforms::epilogue {

struct Producer {
  ir::LibraryNode* node = nullptr;             // the producer
  ir::AccessNode* output = nullptr;             // T, its output
  ir::LibraryNode* consumer = nullptr;          // the only reader of T
  const expansions::fused::Base* base = nullptr;
  expansions::fused::Epilogue epilogue;        // what the producer computes after its base op already
  const ir::DataflowEdge* consumerOut = nullptr; // the consumer's one output edge (to an access node)
};

// Fills `p` from the match's slots `producer`, `output` and `consumer` (names given), or reports why
// not at the producer's path: the producer is no base op or fused op, has a chosen implementation its
// fused op lacks, T is not a float32 transient written by the producer alone and read by the
// consumer alone (one access node in the whole SDFG), or the consumer does not have exactly one
// output, to an access node of T's type.
bool analyse(const Binding& bind, const Match& match, const std::string& producerSlot, const std::string& outputSlot,
             const std::string& consumerSlot, Producer& p, Diagnostics* whyNot);

// Makes `node` (a base op, see analyse) its dcw fused op in place; a fused op is left as it is.
void makeFused(edit::Editor& ed, ir::LibraryNode& node, const expansions::fused::Base& base);

// Removes the consumer and T (node and data), then connects the producer's Y to where the consumer's
// output went. Access nodes the consumer read that nothing reads any more are removed, and their
// constant data too when no access node of it is left.
void bypassConsumer(edit::Editor& ed, Producer& p);

// Removes those of `nodes` (access nodes) that no edge touches any more, and their constant data when
// no access node of it is left and it is no argument of the SDFG.
void removeUnread(edit::Editor& ed, ir::State& st, const std::set<ir::ElementId>& nodes);

// Whether `d` has the shape `shape` (each dim provably equal).
bool sameShape(const ir::DataDescriptor& d, const std::vector<sym::Expr>& shape);

} // namespace dcw::transforms::epilogue
