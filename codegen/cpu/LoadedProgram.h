// LoadedProgram: a compiled program loaded into the process (dlopen) — call it with argument pointers
// and symbol values (see CppGenerator.h for the ABI). An instrumented program also exposes its event
// buffer (profiling()); the functions below are no-ops on a program built without instrumentation.
#pragma once

#include "core/support/Expected.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace dcw::codegen {

// Layout of the generated program's `dcw_event` (CppGenerator.h).
struct ProfileEvent {
  uint32_t element;   // index into GeneratedCode::profiled
  uint32_t thread;    // OpenMP thread number
  int64_t startNs;    // steady_clock
  int64_t endNs;
  int64_t counters[4];
};
static_assert(sizeof(ProfileEvent) == 56, "must match dcw_event in the generated code");

class LoadedProgram {
public:
  static Expected<std::shared_ptr<LoadedProgram>> load(const std::string& libraryPath);
  ~LoadedProgram();
  Expected<void> run(void* const* args, const int64_t* symbols) const;
  void setThreads(int n) const;

  // ---- profiling (instrumented programs) ----
  bool profiling() const { return events_ != nullptr; }
  size_t profileElementCount() const { return elementCount_ ? elementCount_() : 0; }
  // The events recorded since the last reset (valid until the next run or reset).
  std::span<const ProfileEvent> profileEvents() const;
  void profileReset() const;
  size_t profileDropped() const;
  bool setProfileCapacity(size_t events) const;
  // Leader fds of perf_event groups (PERF_FORMAT_GROUP, `counters` members each); groups = 0 turns off.
  void setProfileCounters(const int* groupFds, int groups, int counters) const;
  // FPGA C-simulation programs: the streams' counts since the last profileReset, as the program's
  // dcw_fpga_stream_stats writes them (a tab-separated line per stream); empty for other programs.
  std::string fpgaStreamStats() const;

private:
  LoadedProgram() = default;
  void* handle_ = nullptr;
  int (*entry_)(void* const*, const int64_t*, char*, size_t) = nullptr;
  void (*setThreads_)(int) = nullptr;
  const ProfileEvent* (*events_)(size_t*) = nullptr;
  void (*reset_)() = nullptr;
  size_t (*dropped_)() = nullptr;
  int (*setCapacity_)(size_t) = nullptr;
  void (*setCounters_)(const int*, int, int) = nullptr;
  size_t (*elementCount_)() = nullptr;
  size_t (*streamStats_)(char*, size_t) = nullptr;
  void (*streamStatsReset_)() = nullptr;
  void (*teardown_)() = nullptr;          // programs with C++ tasklets (CppGenerator.h)
  std::string path_;
};

} // namespace dcw::codegen
