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

// The inputs a run specializes the program to by value (Options::fixedValues): those among `inputs`
// that hold one integer or boolean (a sample rate an If branches on, a window length, a k),
// by the model's input names. None for a saved SDFG (specialized when it was converted: `dcw convert --dim`).
Expected<std::map<std::string, ir::Tensor>> valuesFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs);
// Model dim names of the inputs' symbolic dims with the values the given input tensors have (the model
// loaded specialized to `fixedValues`).
Expected<std::map<std::string, int64_t>> dimsFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs,
                                                        const std::map<std::string, ir::Tensor>& fixedValues = {});
// Model dim names of the inputs' symbolic dims, each with the value given in `values` by its symbol's
// name or by the model's own dim name (default 1), for specialization before random inputs are made.
// `unmatched`, when given, receives the names in `values` that name no dim of the inputs.
Expected<std::map<std::string, int64_t>> dimsFromValues(const std::string& path, const std::map<std::string, int64_t>& values,
                                                        std::vector<std::string>* unmatched = nullptr,
                                                        const std::map<std::string, ir::Tensor>& fixedValues = {});
// `--dim NAME=VALUE` options split into dims and the values of small integer inputs named so (a model
// whose structure depends on such an input, a sample rate, may not even load without its value).
struct Specialization {
  std::map<std::string, int64_t> dims;
  std::map<std::string, ir::Tensor> values;
};
// The names in `values` that name a scalar integer input of the model (not one of its dims) become
// fixed values; `unmatched` receives the names that are neither.
Expected<Specialization> specializationFromValues(const std::string& path, const std::map<std::string, int64_t>& values,
                                                  std::vector<std::string>* unmatched = nullptr);

} // namespace dcw::pipeline
