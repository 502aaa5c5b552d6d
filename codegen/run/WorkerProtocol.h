// WorkerProtocol: what the host (WorkerProcess) and the worker executable (dcw-worker) say to each
// other. Tensors never go through the pipes: they live in one shared-memory file (a memfd the worker
// inherits) laid out as [header | constants | this run's inputs and outputs]; the pipes carry small
// fixed-size messages. The header's progress slot is where the program records the element it is in
// (dcw_rt::at), so the host can name it after the worker crashed, hung or was killed.
#pragma once

#include <cstdint>

namespace dcw::codegen::worker {

constexpr uint32_t kMagic = 0x44435757; // "DCWW"
constexpr uint64_t kHeaderBytes = 64;     // the shared file starts with this; offset 0: the progress slot
constexpr uint32_t kMaxArgs = 1u << 16;
constexpr uint32_t kMaxSymbols = 1u << 12;

// host -> worker, followed by `args` uint64 offsets (into the shared file) and `symbols` int64 values.
struct RunRequest {
  uint32_t magic = kMagic;
  uint32_t args = 0;
  uint32_t symbols = 0;
  int32_t threads = 0;
  uint64_t sharedBytes = 0;     // current size of the shared file
  uint64_t profileCapacity = 0; // instrumented programs: events kept per run; 0: no events wanted
};

// After a successful profiled run the reply's message is this header, `events` records of the
// program's dcw_event layout (codegen/cpu/LoadedProgram.h: ProfileEvent, 56 bytes), then `streamBytes`
// of an FPGA C-simulation's stream counts (LoadedProgram::fpgaStreamStats).
struct EventsHeader {
  uint64_t dropped = 0;
  uint64_t events = 0;
  uint64_t streamBytes = 0;
};

// worker -> host after loading (status 0: ready) and after each run (0: ok, 1: the program reported
// an error, 2: the worker could not do what was asked); followed by `messageBytes` of text (or events).
// In the ready reply, `elements` is the program's dcw_profile_element_count (0: not instrumented).
struct Reply {
  uint32_t magic = kMagic;
  uint32_t status = 0;
  uint64_t messageBytes = 0;
  uint64_t elements = 0;
};

} // namespace dcw::codegen::worker
