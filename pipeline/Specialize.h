// Specialize: values for a model's dynamic dims (ONNX dim_param names), for Options::fixedDims — from
// the input tensors a run is given, or from values by symbol name (random inputs, `--dim`).
#pragma once

#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dcw::pipeline {

// Model dim names of the inputs' symbolic dims with the values the given input tensors have.
Expected<std::map<std::string, int64_t>> dimsFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs);
// Model dim names of the inputs' symbolic dims, each with the value given in `values` by its symbol's
// name or by the model's own dim name (default 1), for specialization before random inputs are made.
// `unmatched`, when given, receives the names in `values` that name no dim of the inputs.
Expected<std::map<std::string, int64_t>> dimsFromValues(const std::string& path, const std::map<std::string, int64_t>& values,
                                                        std::vector<std::string>* unmatched = nullptr);

} // namespace dcw::pipeline
