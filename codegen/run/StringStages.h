// StringStages: the string ops at a model's edges, run by the host around the compiled program.
// Generated code computes numbers; text enters a model at its inputs (tokens to normalize, numbers
// written as text) and leaves it at its outputs (labels, numbers as text). So before lowering, the
// pipeline peels the ops that touch string tensors off the root graph — those whose inputs are the
// model's inputs, constants or other peeled ops' outputs (the front), and those whose outputs are the
// model's outputs or feed only other peeled ops (the back) — and the executor runs them on the host
// (C++ kernels here) before and after the program:
//
//   X: string[C] ─▶ StringNormalizer ─▶ Cast(to float) ─▶ ... program ... ─▶ Y: float[N]
//   becomes: front [StringNormalizer, Cast] on the host; the program takes Cast's output as an input
//
// The model's interface stays as it was: its string inputs and outputs remain the first arguments of
// the program (which never touches them), the values crossing between host and program are appended
// after them, and the executor takes and returns the model's tensors. A string op between computed
// values (fed by the program and feeding it) is refused, naming it. Host kernels: StringNormalizer
// (stopwords, case-sensitive or not, LOWER/UPPER on ASCII letters; other bytes are kept), Cast and
// CastLike between strings and numbers (text as the shortest decimal that reads back the same value,
// as ONNX Runtime and numpy write it), TfIdfVectorizer over string tokens (pool_strings), Identity.
#pragma once

#include "core/ir/Attribute.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <map>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct HostOp {
  std::string path;                              // where it was in the model
  std::string opType;
  std::vector<ir::Attribute> attributes;
  std::map<std::string, std::string> inputs;     // connector -> data name
  std::map<std::string, std::string> outputs;    // connector -> data name
  std::map<std::string, ir::DType> outputTypes;  // connector -> its data's element type
};

struct StringStages {
  std::vector<HostOp> front, back;               // in the order they run
  size_t modelInputs = 0, modelOutputs = 0;      // the model's own arguments: the first of Sdfg::inputs / outputs
  bool empty() const { return front.empty() && back.empty(); }
};

// Peels the string ops off `root` (before expansion) and says what the host runs; an SDFG without
// string ops is left as it is. Fails naming a string op that sits between computed values.
Expected<StringStages> peelStringOps(ir::Sdfg& root);

// Runs one host op, reading and writing `values` by data name.
Expected<void> runHostOp(const HostOp& op, std::map<std::string, ir::Tensor>& values);

} // namespace dcw::codegen
