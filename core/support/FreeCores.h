#pragma once
// FreeCores: the thread count of a program's next run when the user fixed none (no --threads, no
// OMP_NUM_THREADS): the usable cores less those other processes kept busy since the last measurement
// (rounded), at least one; measured again once MachineLoad::kShortest has passed, so a series of runs
// follows the machine as it changes. The processes that run the program count as ours.
//
// Why: a statically split oneDNN primitive waits at its end for whichever of its threads the scheduler
// set aside. With one of 2 cores busy with other work, one thread beat two by far (EfficientNet-B0
// 10.2 against 40.4 ms, `dcw bench` beside a busy loop, 2 cores). The program keeps what it made for
// each thread count (OneDnnRuntime.cpp's calls), so going back and forth makes nothing again.

#include "core/support/MachineLoad.h"

#include <sys/types.h>

#include <optional>
#include <vector>

namespace dcw {

class FreeCores {
public:
  FreeCores();
  // The thread count for the next run; `ours`: the processes that run the program besides this one (a
  // worker process). Another set than last time starts a new measurement.
  int next(const std::vector<pid_t>& ours = {});
  int usable() const { return usable_; }

private:
  int usable_ = 1;
  int threads_ = 1;
  std::vector<pid_t> ours_;
  std::optional<MachineLoad> window_;
};

} // namespace dcw
