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
// dataflow. The rewrite is all or nothing: where any sequence value is not resolved (a graph input or
// output of sequence type, a run-time position, a Loop or SequenceMap over it), the graph is left as
// it is and the import refuses the sequence op as before, naming it.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace dcw::onnx {

// Rewrites the main graph `g` (nodes topologically sorted, value_info from ONNX's inference) for
// default-domain opset `opset`. Returns true when it changed the graph.
bool resolveStaticSequences(::onnx::GraphProto& g, int64_t opset);

} // namespace dcw::onnx
