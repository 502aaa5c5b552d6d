// InterfaceValue: what a model's graph inputs and outputs hold when they are not plain tensors — ONNX
// sequences (a list of tensors) and optionals (a tensor or a sequence, or nothing) — and how such an
// interface meets a compiled program, which takes and returns plain tensors only.
//
// A run knows how long each sequence is and whether each optional is there, so the import is
// specialized to that (ImportOptions::interface): every sequence or optional input becomes its tensors,
// the sequence ops resolve to tensor ops (StaticSequences.h), and each sequence or optional output
// becomes the tensors it holds. The import writes the interface's layout in the SDFG's metadata
// ("interface"); `flatten` turns a run's values into the program's inputs by it, and `regroup` turns the
// program's outputs back into the model's values:
//
//   model:    seq_in: sequence<float[N]> (3 tensors), pos: int64 scalar  ─▶  out: sequence<float[N]>
//   layout:   in seq_in s(t,t,t)   in pos f   out out s(t,t,t,t)
//   program:  seq_in_0, seq_in_1, seq_in_2  ─▶  out_0, out_1, out_2, out_3
//
// A small integer or boolean input that decides structure (a sequence position, an If's condition, a
// Loop's trip count over sequences) is folded into the program as a constant ("f": it is not passed).
#pragma once

#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace dcw::onnx {

// A value at a model's interface: a tensor, a sequence of values, or an optional (0 or 1 value).
struct InterfaceValue {
  enum class Kind { Tensor, Sequence, Optional };
  Kind kind = Kind::Tensor;
  ir::Tensor tensor;                    // Kind::Tensor
  std::vector<InterfaceValue> elements; // Sequence: its elements; Optional: none or one
  static InterfaceValue ofTensor(ir::Tensor t);
  std::string describe() const; // "sequence of 3 tensors", "empty optional", "float32[3, 4]"
};

// How one interface value maps onto the program's tensors, as the import specialized it.
struct InterfaceLayout {
  enum class Kind { Tensor, Sequence, Optional, Folded };
  Kind kind = Kind::Tensor;
  std::vector<InterfaceLayout> elements; // Sequence: one per element; Optional: none or one

  // "t", "f", "s(t,t)", "o()", "o(s(t))".
  std::string str() const;
  static Expected<InterfaceLayout> parse(const std::string& text);
  size_t tensorCount() const; // program tensors it stands for
  static InterfaceLayout of(const InterfaceValue& v); // the layout of a value passed as it is
};

// The layout of a whole model: inputs and outputs in the model's order.
struct ModelInterface {
  std::vector<std::pair<std::string, InterfaceLayout>> inputs, outputs;
  std::string str() const; // one "in NAME LAYOUT" / "out NAME LAYOUT" line each
  static Expected<ModelInterface> parse(const std::string& text);
  // The program's inputs for the model's values (in the model's input order). Errors name the input
  // whose value does not fit the layout the program was built for.
  Expected<std::vector<ir::Tensor>> flatten(const std::vector<InterfaceValue>& values) const;
  // The model's outputs from the program's.
  Expected<std::vector<InterfaceValue>> regroup(const std::vector<ir::Tensor>& outputs) const;
};

// The SDFG metadata key under which the import stores ModelInterface::str().
inline constexpr const char* kInterfaceMetadata = "interface";
// The SDFG metadata key under which the import says why sequence or optional ops are left unresolved
// (StaticSequences.h): where (the node, input or output), a newline, and why. A run refuses the model
// with it.
inline constexpr const char* kUnresolvedStructureMetadata = "unresolved-structure";

// The kind each graph input and output of an ONNX model file declares (Tensor for plain tensors).
struct DeclaredInterface {
  std::vector<std::pair<std::string, InterfaceValue::Kind>> inputs, outputs;
  std::map<std::string, ir::DType> scalarIntegers; // inputs declared int32/int64 of rank 0 or [1]
  bool structured() const; // any sequence or optional
};
Expected<DeclaredInterface> declaredInterface(const std::string& onnxPath);

// A serialized TensorProto, SequenceProto or OptionalProto (ONNX's test data format), read as the kind
// the model declares for it.
Expected<InterfaceValue> readInterfaceValue(const std::string& path, InterfaceValue::Kind kind);
// Writes a value in the same format (a TensorProto, SequenceProto or OptionalProto named `name`).
Expected<void> writeInterfaceValue(const std::string& path, const InterfaceValue& value, const std::string& name);

} // namespace dcw::onnx
