// LoadedProgram: dlopen with RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE (programs never see each other's
// symbols, as they are built with -fno-gnu-unique; a missing symbol fails at load, not at the first
// call; the code stays mapped after dlclose, because OpenMP's and the GPU runtime's threads it started
// outlive the program), then the entry points of the ABI; a program with C++
// tasklets gets dcw_init called here (its environments set up once per load) and dcw_teardown before
// dlclose.
#include "codegen/cpu/LoadedProgram.h"

#include <dlfcn.h>

namespace dcw::codegen {

Expected<std::shared_ptr<LoadedProgram>> LoadedProgram::load(const std::string& libraryPath) {
  dlerror();
  void* h = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* e = dlerror();
    return fail(libraryPath, std::string("cannot load the compiled program: ") + (e ? e : "unknown error"),
                "rebuild it (delete the cache entry)");
  }
  std::shared_ptr<LoadedProgram> p(new LoadedProgram());
  p->handle_ = h;
  p->path_ = libraryPath;
  p->entry_ = reinterpret_cast<int (*)(void* const*, const int64_t*, char*, size_t)>(dlsym(h, "dcw_program"));
  p->setThreads_ = reinterpret_cast<void (*)(int)>(dlsym(h, "dcw_set_threads"));
  p->events_ = reinterpret_cast<const ProfileEvent* (*)(size_t*)>(dlsym(h, "dcw_profile_events"));
  p->reset_ = reinterpret_cast<void (*)()>(dlsym(h, "dcw_profile_reset"));
  p->dropped_ = reinterpret_cast<size_t (*)()>(dlsym(h, "dcw_profile_dropped"));
  p->setCapacity_ = reinterpret_cast<int (*)(size_t)>(dlsym(h, "dcw_profile_set_capacity"));
  p->setCounters_ = reinterpret_cast<void (*)(const int*, int, int)>(dlsym(h, "dcw_profile_set_counters"));
  p->elementCount_ = reinterpret_cast<size_t (*)()>(dlsym(h, "dcw_profile_element_count"));
  p->streamStats_ = reinterpret_cast<size_t (*)(char*, size_t)>(dlsym(h, "dcw_fpga_stream_stats"));
  p->streamStatsReset_ = reinterpret_cast<void (*)()>(dlsym(h, "dcw_fpga_stream_stats_reset"));
  if (!p->events_ || !p->reset_ || !p->dropped_ || !p->setCapacity_ || !p->setCounters_ || !p->elementCount_)
    p->events_ = nullptr; // all or nothing: a partial profiling ABI is not used
  if (!p->entry_)
    return fail(libraryPath, "the library has no dcw_program entry point", "it was not built by DCW's code generator");
  // A CUDA program keeps the weights it uploaded while loaded; this load may bring other weights.
  if (auto forget = reinterpret_cast<void (*)()>(dlsym(h, "dcw_cuda_forget_uploads"))) forget();
  if (auto init = reinterpret_cast<int (*)(char*, size_t)>(dlsym(h, "dcw_init"))) {
    char error[1024] = {0};
    if (init(error, sizeof error) != 0)
      return fail(libraryPath, std::string("the program's environments could not be set up: ") + error,
                  "check that the libraries its implementations need are installed, or choose the `pure` implementations");
    p->teardown_ = reinterpret_cast<void (*)()>(dlsym(h, "dcw_teardown")); // one per successful dcw_init
  }
  return p;
}

LoadedProgram::~LoadedProgram() {
  if (teardown_) teardown_();
  if (handle_) dlclose(handle_);
}

Expected<void> LoadedProgram::run(void* const* args, const int64_t* symbols) const {
  char error[1024] = {0};
  int rc = entry_(args, symbols, error, sizeof error);
  if (rc != 0) return fail(path_, error[0] ? std::string(error) : "the program failed (code " + std::to_string(rc) + ")");
  return {};
}

void LoadedProgram::setThreads(int n) const {
  if (setThreads_) setThreads_(n);
}

std::span<const ProfileEvent> LoadedProgram::profileEvents() const {
  if (!events_) return {};
  size_t n = 0;
  const ProfileEvent* e = events_(&n);
  return {e, n};
}

std::string LoadedProgram::fpgaStreamStats() const {
  if (!streamStats_) return {};
  std::string text(streamStats_(nullptr, 0), '\0');
  text.resize(streamStats_(text.data(), text.size()));
  return text;
}

void LoadedProgram::profileReset() const {
  if (streamStatsReset_) streamStatsReset_();
  if (reset_) reset_();
}

size_t LoadedProgram::profileDropped() const { return dropped_ ? dropped_() : 0; }

bool LoadedProgram::setProfileCapacity(size_t events) const { return setCapacity_ && setCapacity_(events) == 0; }

void LoadedProgram::setProfileCounters(const int* groupFds, int groups, int counters) const {
  if (setCounters_) setCounters_(groupFds, groups, counters);
}

} // namespace dcw::codegen
