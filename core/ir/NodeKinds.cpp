// Names of the enumerations that belong to node kinds (schedules, tasklet languages).
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

#include <array>

namespace dcw::ir {

namespace {
constexpr std::array<std::pair<Schedule, std::string_view>, 8> kSchedules{{
    {Schedule::Default, "default"}, {Schedule::Sequential, "sequential"}, {Schedule::CpuMulticore, "cpu_multicore"},
    {Schedule::GpuDevice, "gpu_device"}, {Schedule::GpuThreadBlock, "gpu_threadblock"},
    {Schedule::FpgaPipeline, "fpga_pipeline"}, {Schedule::Unrolled, "unrolled"},
    {Schedule::Vectorized, "vectorized"}}};
} // namespace

std::string_view scheduleName(Schedule s) {
  for (auto& [k, n] : kSchedules)
    if (k == s) return n;
  return "default";
}

std::optional<Schedule> scheduleFromName(std::string_view s) {
  for (auto& [k, n] : kSchedules)
    if (n == s) return k;
  return std::nullopt;
}

std::string_view taskletLanguageName(TaskletLanguage l) { return l == TaskletLanguage::Cpp ? "cpp" : "dcw"; }

} // namespace dcw::ir
