// GradientProgram: the path shared by `dcw grad` and `dcw train` from a model file to a compiled
// program that computes gradients. Load (specialized to the data's shapes) -> for training, make the
// weights inputs (autodiff/Trainable.h) -> differentiate through the model's history with the
// `differentiate` command (the same step a script records) -> for training, append the optimizer's
// update (autodiff/OptimizerStep.h) -> the rest of the pipeline (pipeline/Pipeline.h: fold constants,
// expand, validate, generate, build, load); the steps above run as the pipeline's edit hook.
// Also reads tensor folders (input_0.pb, input_1.pb, ...), which both commands take.
#pragma once

#include "codegen/run/Executor.h"
#include "core/io/ModelFile.h"
#include "core/support/Expected.h"
#include "transforms/autodiff/OptimizerStep.h"
#include "transforms/autodiff/Trainable.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dcw::cli {

struct GradientRequest {
  std::string model;
  std::string of;                          // the output differentiated (summed)
  std::vector<std::string> wrt;            // inputs or constants; with trainWeights: constants (weights)
  std::vector<std::string> recompute;      // intermediates recomputed in the backward pass
  std::map<std::string, int64_t> fixedDims;
  int threads = 0;
  std::string target = "cpu";              // the target the program is built for (cuda: the whole step on the GPU)
  bool trainWeights = false;               // make `wrt` constants program inputs
  std::optional<autodiff::OptimizerConfig> optimizer; // with trainWeights: append the update
  bool memoryReport = false;               // fill storedBytes/recomputedBytes/stored
};

struct GradientProgram {
  io::LoadedModel model;                   // the differentiated, expanded SDFG
  std::unique_ptr<codegen::Executor> executor;
  std::vector<std::string> dataInputs;     // the model's own inputs, in order (first arguments)
  std::vector<std::string> gradients;      // per `wrt` (transient when an optimizer was appended)
  autodiff::TrainableWeights weights;
  autodiff::OptimizerArrays optimizer;
  // What the backward pass keeps alive (memoryReport): with the recompute choices, and with none.
  int64_t storedBytes = 0, storedBytesAllStored = 0;
  std::vector<std::string> stored;
  double compileSeconds = 0;

  // Position of an output by name in the executor's results (-1 when absent).
  int outputIndex(const std::string& name) const;
};

Expected<GradientProgram> buildGradientProgram(const GradientRequest& request);

// The tensors input_0.pb, input_1.pb, ... of a folder (at least one).
Expected<std::vector<ir::Tensor>> readTensorFolder(const std::string& dir);

} // namespace dcw::cli
