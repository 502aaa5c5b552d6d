// dcw-worker: runs one compiled program for a host process (codegen/run/WorkerProcess.h), so that a
// crash, abort, endless loop or memory blow-up in generated code ends this process and not the host.
//   dcw-worker LIBRARY SHARED_FD REQUEST_FD REPLY_FD [MEMORY_LIMIT_BYTES]
// Loads LIBRARY (the host never loads it), answers "ready" (or why not), then serves run requests
// until the request pipe closes. No core dumps; the memory limit is an address-space limit.
#include "codegen/run/WorkerProtocol.h"
#include "core/support/OpenMpSpin.h"
#include "core/support/ProcessIo.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

using namespace dcw::codegen::worker;
using dcw::readFully;
using dcw::writeFully;

namespace {

bool reply(int fd, uint32_t status, const std::string& message, uint64_t elements = 0) {
  Reply r;
  r.status = status;
  r.messageBytes = message.size();
  r.elements = elements;
  return writeFully(fd, &r, sizeof r) && writeFully(fd, message.data(), message.size());
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "dcw-worker: started by DCW to run one compiled program; not for direct use\n");
    return 2;
  }
  const char* library = argv[1];
  const int sharedFd = std::atoi(argv[2]), in = std::atoi(argv[3]), out = std::atoi(argv[4]);
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reserves terabytes of address space for its shadow memory, so an address-space
  // limit would stop the worker before main. A sanitizer build's worker runs without it; ASan's
  // allocator refuses impossible sizes itself.
  const bool limitAddressSpace = false;
#else
  const bool limitAddressSpace = true;
#endif
  if (argc > 5 && limitAddressSpace) {
    rlim_t limit = std::strtoull(argv[5], nullptr, 10);
    if (limit > 0) {
      rlimit as{limit, limit};
      setrlimit(RLIMIT_AS, &as);
    }
  }
  dcw::useModerateOpenMpSpin(); // before the program brings libgomp in (core/support/OpenMpSpin.h)
  void* h = dlopen(library, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* e = dlerror();
    reply(out, 2, std::string("cannot load the compiled program: ") + (e ? e : "unknown error"));
    return 3;
  }
  auto entry = reinterpret_cast<int (*)(void* const*, const int64_t*, char*, size_t)>(dlsym(h, "dcw_program"));
  auto setThreads = reinterpret_cast<void (*)(int)>(dlsym(h, "dcw_set_threads"));
  auto setSlot = reinterpret_cast<void (*)(volatile int64_t*)>(dlsym(h, "dcw_set_progress_slot"));
  if (!entry) {
    reply(out, 2, "the library has no dcw_program entry point");
    return 3;
  }
  // A program with C++ tasklets sets up its environments (e.g. a oneDNN engine) once, here.
  auto teardown = reinterpret_cast<void (*)()>(dlsym(h, "dcw_teardown"));
  if (auto init = reinterpret_cast<int (*)(char*, size_t)>(dlsym(h, "dcw_init"))) {
    char error[1024] = {0};
    if (init(error, sizeof error) != 0) {
      reply(out, 2, std::string("the program's environments could not be set up: ") + error);
      return 3;
    }
  } else {
    teardown = nullptr;
  }
  // Instrumented programs: the event buffer (codegen/GeneratedCode.h), all or nothing.
  struct Event { uint32_t element, thread; int64_t start, end; int64_t counters[4]; };
  static_assert(sizeof(Event) == 56, "dcw_event");
  auto events = reinterpret_cast<const Event* (*)(size_t*)>(dlsym(h, "dcw_profile_events"));
  auto resetEvents = reinterpret_cast<void (*)()>(dlsym(h, "dcw_profile_reset"));
  auto dropped = reinterpret_cast<size_t (*)()>(dlsym(h, "dcw_profile_dropped"));
  auto setCapacity = reinterpret_cast<int (*)(size_t)>(dlsym(h, "dcw_profile_set_capacity"));
  auto elementCount = reinterpret_cast<size_t (*)()>(dlsym(h, "dcw_profile_element_count"));
  // FPGA C-simulation programs: their streams' counts (LoadedProgram::fpgaStreamStats).
  auto streamStats = reinterpret_cast<size_t (*)(char*, size_t)>(dlsym(h, "dcw_fpga_stream_stats"));
  auto streamStatsReset = reinterpret_cast<void (*)()>(dlsym(h, "dcw_fpga_stream_stats_reset"));
  const bool profiling = events && resetEvents && dropped && setCapacity && elementCount;
  uint64_t capacity = 0;
  if (!reply(out, 0, "ready", profiling ? elementCount() : 0)) return 4;

  char* base = nullptr;
  uint64_t mapped = 0;
  std::vector<uint64_t> offsets;
  std::vector<void*> args;
  std::vector<int64_t> symbols;
  for (;;) {
    RunRequest rq;
    if (!readFully(in, &rq, sizeof rq)) { // the host closed the pipe: done
      if (teardown) teardown();
      return 0;
    }
    if (rq.magic != kMagic || rq.args > kMaxArgs || rq.symbols > kMaxSymbols || rq.sharedBytes < kHeaderBytes) {
      reply(out, 2, "malformed request");
      return 5;
    }
    offsets.resize(rq.args);
    symbols.resize(rq.symbols);
    if (!readFully(in, offsets.data(), offsets.size() * sizeof(uint64_t)) ||
        !readFully(in, symbols.data(), symbols.size() * sizeof(int64_t)))
      return 0;
    if (rq.sharedBytes != mapped) {
      if (base) munmap(base, mapped);
      void* p = mmap(nullptr, rq.sharedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, sharedFd, 0);
      if (p == MAP_FAILED) {
        base = nullptr;
        mapped = 0;
        reply(out, 2, std::string("cannot map the shared tensors: ") + std::strerror(errno));
        continue;
      }
      base = static_cast<char*>(p);
      mapped = rq.sharedBytes;
      if (setSlot) setSlot(reinterpret_cast<volatile int64_t*>(base));
    }
    args.resize(rq.args);
    bool ok = true;
    for (size_t k = 0; k < offsets.size(); ++k) {
      if (offsets[k] >= mapped) ok = false;
      args[k] = base + offsets[k];
    }
    if (!ok) {
      reply(out, 2, "an argument lies outside the shared tensors");
      continue;
    }
    if (setThreads) setThreads(rq.threads);
    const bool profiled = profiling && rq.profileCapacity > 0;
    if (profiled) {
      if (rq.profileCapacity != capacity && setCapacity(rq.profileCapacity) != 0) {
        reply(out, 2, "cannot allocate the profiling event buffer (" + std::to_string(rq.profileCapacity) + " events)");
        continue;
      }
      capacity = rq.profileCapacity;
      resetEvents();
      if (streamStatsReset) streamStatsReset();
    }
    char error[1024] = {0};
    int rc = entry(args.data(), symbols.data(), error, sizeof error);
    if (rc == 0 && profiled) {
      size_t n = 0;
      const Event* e = events(&n);
      std::string streams;
      if (streamStats) {
        streams.resize(streamStats(nullptr, 0));
        streams.resize(streamStats(streams.data(), streams.size()));
      }
      EventsHeader head{dropped(), n, streams.size()};
      std::string payload(sizeof head + n * sizeof(Event), '\0');
      std::memcpy(payload.data(), &head, sizeof head);
      if (n) std::memcpy(payload.data() + sizeof head, e, n * sizeof(Event));
      payload += streams;
      reply(out, 0, payload);
    } else if (rc == 0) reply(out, 0, {});
    else reply(out, 1, error[0] ? std::string(error) : "the program failed (code " + std::to_string(rc) + ")");
  }
}
