// HardwareCounters: perf_event_open counters for every thread of this process, handed to an
// instrumented program (LoadedProgram::setProfileCounters), which reads them around each timed element.
//
// Why per thread and in the host: OpenMP workers do most of the work, and a counter opened on the
// calling thread alone would miss it; system-wide counters need perf_event_paranoid <= 0. So the host
// opens one group per existing thread (after a warm-up run has created the OpenMP pool) — leader
// cycles with instructions and cache misses as members, read in one read() with PERF_FORMAT_GROUP —
// and the program sums the groups. Only user-space events are counted (allowed up to paranoid 2).
// Where the kernel exposes no hardware PMU or forbids it (ENOENT in VMs and containers, EACCES/EPERM
// by perf_event_paranoid or seccomp), `unavailable` says why and profiling goes on with timers only —
// or, when asked (softwareFallback), with software counters (task clock, page faults, context
// switches). Those are opt-in because reading another thread's software counter costs an
// inter-processor call (tens of µs per timed element here), which would distort the timings.
#pragma once

#include <string>
#include <vector>

namespace dcw::codegen {

class HardwareCounters {
public:
  HardwareCounters() = default;
  HardwareCounters(HardwareCounters&& o) noexcept;
  HardwareCounters& operator=(HardwareCounters&& o) noexcept;
  HardwareCounters(const HardwareCounters&) = delete;
  HardwareCounters& operator=(const HardwareCounters&) = delete;
  ~HardwareCounters();

  // Opens the counters for every thread of this process; never fails (see unavailable()).
  static HardwareCounters open(bool softwareFallback = false);

  bool hardware() const { return hardware_; }            // true: cycles/instructions/cache misses
  const std::string& kind() const { return kind_; }      // "hardware", "software" or "none"
  const std::string& unavailable() const { return unavailable_; } // why hardware counters are off ("" if on)
  const std::vector<std::string>& names() const { return names_; } // one per counter, in event order
  const std::vector<int>& groupFds() const { return leaders_; }
  int counterCount() const { return static_cast<int>(names_.size()); }

private:
  void close();
  bool hardware_ = false;
  std::string kind_ = "none";
  std::string unavailable_;
  std::vector<std::string> names_;
  std::vector<int> leaders_;
  std::vector<int> fds_; // every fd opened (leaders and members)
};

// The kernel's perf_event_paranoid setting, or -99 when it cannot be read.
int perfEventParanoid();

} // namespace dcw::codegen
