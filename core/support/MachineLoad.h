#pragma once
// MachineLoad: how many cores other processes kept busy over an interval. A latency measured while
// other work shares the cores is that of a shared machine, not of the program: the OpenMP threads of
// oneDNN's statically split primitives wait for whichever of them the scheduler set aside (one busy
// core of two made DCW's runs 1.2-3x slower, ONNX Runtime's much less; core/support/OpenMpSpin.h).
// `dcw bench` says so beside its figures.
//
// The interval's busy time of all CPUs (/proc/stat: user, nice, system, irq, softirq; not steal, which
// other virtual machines take) less the CPU time of our own processes (/proc/PID/stat: utime and stime
// of all their threads), over the wall time. The kernel counts both in clock ticks (10 ms), so an
// interval shorter than kShortest says nothing.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace dcw {

class MachineLoad {
public:
  // Starts the interval; `ours` are the processes whose work is not "other" (this process is always).
  explicit MachineLoad(std::vector<pid_t> ours = {});

  // The cores other processes kept busy since construction, or nothing when the interval was shorter
  // than kShortest or /proc could not be read.
  std::optional<double> otherBusyCores() const;

  static constexpr std::chrono::milliseconds kShortest{200};
  // From this many cores up, figures are a shared machine's, and DCW says so.
  static constexpr double kNoticeable = 0.25;

  // What DCW says beside figures measured while other processes kept `cores` busy: empty below
  // kNoticeable or when nothing could be told.
  static std::string note(std::optional<double> cores);

private:
  struct Sample {
    long long machineTicks = -1; // busy ticks of all CPUs
    long long ourTicks = 0;      // utime + stime of `ours`
    std::chrono::steady_clock::time_point at;
  };
  Sample sample() const;
  std::vector<pid_t> ours_;
  Sample start_;
};

} // namespace dcw
