// WorkerProcess: runs a built program in a separate process (dcw-worker, codegen/run/WorkerMain.cpp)
// instead of loading it into the caller. Generated code is untrusted for the process that hosts the
// app: an out-of-bounds write, an integer division by zero, an endless loop or a huge allocation in it
// ends or stops the worker, and the caller gets an error that says what happened (the signal, the
// limit) and names the element the program was in — never a crash or a hang of the caller.
//
// Tensors travel through one shared-memory file (WorkerProtocol.h): constants are copied in once, each
// run's inputs in and outputs out. What the program writes to stderr (its own diagnostics, such as a
// Winograd convolution's measured error on the first run) comes through a pipe: it is passed on to
// this process's stderr as it arrives, as if the program ran here, and kept for takeMessages() (the
// app shows it with the run's profile). A worker that died is started again by the next run. Limits: wall
// time per run and the worker's address space; a cancel flag, polled while waiting, kills it at once.
#pragma once

#include "codegen/cpu/LoadedProgram.h"
#include "core/support/Expected.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace dcw::codegen {

struct WorkerLimits {
  double seconds = 0;       // wall time of one run; 0: none
  int64_t memoryBytes = -1; // address space of the worker; -1: the machine's physical memory; 0: none
  bool passMessagesOn = true; // the program's stderr also goes to this process's stderr as it arrives
};

struct WorkerArg {
  enum class Kind { Input, Output, Constant };
  void* data = nullptr;
  size_t bytes = 0;
  Kind kind = Kind::Input;
};

// The events of one profiled run (instrumented programs), as LoadedProgram gives them in process.
struct ProfileCapture {
  size_t capacity = 1 << 18;       // events kept per run
  std::vector<ProfileEvent> events;
  size_t dropped = 0;
  std::string fpgaStreams;         // FPGA C-simulation: the streams' counts of the run (LoadedProgram::fpgaStreamStats)
};

class WorkerProcess {
public:
  explicit WorkerProcess(std::string libraryPath, WorkerLimits limits = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Runs the program once with the arguments in ABI order. `cancel` (may be null) is polled while the
  // program runs; `elementName` turns the progress slot's element id into a path for messages.
  // With `capture`, the program's timing events of this run come back into it.
  Expected<void> run(const std::vector<WorkerArg>& args, const std::vector<int64_t>& symbols, int threads,
                     const std::atomic<bool>* cancel, const std::function<std::string(int64_t)>& elementName,
                     ProfileCapture* capture = nullptr);
  // The program's dcw_profile_element_count (0: not instrumented); starts the worker if needed.
  Expected<size_t> profiledElements();
  // The worker executable: $DCW_WORKER, else dcw-worker next to the running executable, else the one
  // this build made.
  static std::string executablePath();
  pid_t pid() const { return pid_; }
  // What the program wrote to stderr since the last call (whole lines; at most the last 256 KiB).
  std::string takeMessages();

private:
  Expected<void> start();
  void stop();
  Expected<void> layout(const std::vector<WorkerArg>& args, std::vector<uint64_t>& offsets);
  Expected<void> resize(uint64_t bytes);
  std::string describeExit(int status, const std::string& where) const;
  // Waits until the socket has data (true) or `timeoutMs` passed (false; -1: none), reading the
  // program's stderr meanwhile. Negative errno on a poll failure.
  int waitForReply(int timeoutMs);
  // Reads what the program's stderr pipe holds now (without blocking); at EOF closes it.
  void readMessages();

  std::string library_;
  WorkerLimits limits_;
  int shmFd_ = -1;
  char* shm_ = nullptr;
  uint64_t shmBytes_ = 0;
  int sock_ = -1;
  int err_ = -1;            // read end of the worker's stderr
  std::string messages_;    // read from it, not yet taken
  pid_t pid_ = -1;
  size_t elements_ = 0;
  // The constants copied in (pointer and size each, in order) and the end of their region.
  std::vector<std::pair<const void*, size_t>> constants_;
  uint64_t constantsEnd_ = 0;
};

} // namespace dcw::codegen
