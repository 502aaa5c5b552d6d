// GpuTransform: moves a model's computation onto the GPU — every state of the root that computes becomes
// a GPU state, whose top-level maps the CUDA target (codegen/cuda) launches as kernels, and the data
// crosses between host and GPU memory in explicit states, as DaCe's GPUTransformSDFG does.
//
// Before:  state0: X -> Conv -> T -> Relu -> Y                (X input, Y output, T transient; host memory)
// After:   host_to_device: X -> gpu_X                           (a copy into GPU global memory)
//          state0:         gpu_X -> Conv -> T -> Relu -> gpu_Y   (T now in GPU global memory; top-level maps gpu_device)
//          device_to_host: gpu_Y -> Y
//
// What moves and what gets a copy, and the option whole_sdfg, are DeviceMove's (DeviceMove.h). Maps at
// the top of a GPU state get the gpu_device schedule (a kernel each), maps inside them run in each GPU
// thread; library nodes expand later, for target cuda, and scheduleGpuMaps places what they become.
// Keeps the model differentiable (only storage and schedules change).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class GpuTransform : public Transformation {
public:
  std::string_view name() const override { return "GpuTransform"; }
  std::string_view description() const override {
    return "Run the model's states on the GPU (each top-level map a CUDA kernel), with explicit copies between host and GPU memory";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

// Places the contents of GPU states as the GPU runs them (GpuTransform does it to the states it moves;
// the CUDA target's pipeline again after expanding library nodes, whose pure expansions ask for
// cpu_multicore):
//  - a map at the top of a GPU state, or of a state of a nested SDFG that runs on the host between
//    kernels (a nested SDFG at the top of a GPU state), gets gpu_device where it had a CPU schedule or
//    none; such a nested SDFG's data move to GPU global memory;
//  - maps inside a kernel (and in nested SDFGs inside one) run in each GPU thread: default where they
//    had a CPU schedule; transients there with default storage become registers (thread-local).
void scheduleGpuMaps(edit::Editor& editor);

// What the CUDA target's pipeline does first (pipeline/Pipeline.h): unless a state of the model is on
// the GPU already (a script applied GpuTransform as the user chose), GpuTransform moves the whole model,
// from its first computing state. Returns the path of that state, or "" when nothing moved.
Expected<std::string> moveModelToGpu(edit::Editor& editor);

} // namespace dcw::transforms
