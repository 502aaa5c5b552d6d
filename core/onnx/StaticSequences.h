// StaticSequences: removes ONNX sequences whose structure the model fixes, before import. A sequence
// built in the graph (SequenceEmpty, SequenceConstruct, SequenceInsert/Erase at constant positions,
// SplitToSequence of a static dim or a split of known length) and consumed there (SequenceAt at a
// constant position, SequenceLength, ConcatFromSequence, Identity) is a list of tensors the importer
// knows; its ops become the tensor ops they amount to:
//
//   before:  s1 = SequenceConstruct(X, Y, Z); s2 = SequenceErase(s1, 1); out = ConcatFromSequence(s2, axis=1)
//   after:   out = Concat(X, Z, axis=1)
//
//   before:  s = SplitToSequence(X [4, 6], axis=0, keepdims=0); n = SequenceLength(s); t = SequenceAt(s, -1)
//   after:   x0..x3 = Split(X, axis=0); t = Squeeze(x3, [0]); n = Constant(4)
//
// So PyTorch's list code (torch.split, torch.stack/cat of a Python list) compiles to plain SDFG
// dataflow.
//
// Given a run's inputs (InterfaceValue.h), sequence and optional graph inputs become their tensors, and
// what their structure then decides resolves too: Optional/OptionalHasElement/OptionalGetElement, an If
// whose condition is known (a constant, or a one-element input folded for this run) is replaced by its
// taken branch, a Loop over sequences whose trip count and condition are known is unrolled, and a
// SequenceMap becomes its body once per element:
//
//   before:  in: s (3 tensors); y = SequenceMap<body: b = Add(a, x)>(s, x)
//   after:   in: s_0, s_1, s_2; y_0 = Add(s_0, x); y_1 = Add(s_1, x); y_2 = Add(s_2, x)   (layout out y s(t,t,t))
//
// Given a run's inputs, a sequence or optional graph output becomes the tensors it holds (without them,
// such an output leaves the graph as it is); `interface` receives the layout.
// The rewrite is all or nothing: where any sequence or optional value is not resolved (a run-time
// position or condition, a sequence input without a bound value), the graph is left as it is and the
// import refuses the op as before, naming it.
#pragma once

#include "core/onnx/InterfaceValue.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

namespace dcw::onnx {

// Rewrites the main graph `g` (nodes topologically sorted, value_info from ONNX's inference) for
// default-domain opset `opset`. `inputs`: the run's values by graph input name, or null. Returns true
// when it changed the graph; then `interface` (when given) holds the inputs' and outputs' layouts.
// When it leaves sequence or optional ops it could not resolve, `why` (when given) says where (the first
// node that failed, or the input or output) and, after a newline, why ("node 'pick' (SequenceAt)\ncannot
// be resolved into tensors: its sequence or its position is known only at run time").
bool resolveStaticSequences(::onnx::GraphProto& g, int64_t opset, const std::map<std::string, InterfaceValue>* inputs = nullptr,
                            ModelInterface* interface = nullptr, std::string* why = nullptr);

} // namespace dcw::onnx
