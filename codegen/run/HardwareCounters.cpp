// HardwareCounters: see the header. One group per thread; a counter kind that fails to open as a
// member on the first thread is dropped (e.g. cache misses on a PMU without that event) so the rest
// still count; a thread that exits between listing and opening is skipped.
#include "codegen/run/HardwareCounters.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace dcw::codegen {

namespace {

struct CounterKind {
  const char* name;
  uint32_t type;
  uint64_t config;
};

int perfOpen(const CounterKind& k, pid_t tid, int groupFd) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = k.type;
  a.config = k.config;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_GROUP;
  return static_cast<int>(syscall(SYS_perf_event_open, &a, tid, -1, groupFd, PERF_FLAG_FD_CLOEXEC));
}

std::vector<pid_t> threadsOfProcess() {
  std::vector<pid_t> out;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out.push_back(static_cast<pid_t>(std::atol(e->d_name)));
    closedir(d);
  }
  if (out.empty()) out.push_back(static_cast<pid_t>(syscall(SYS_gettid)));
  return out;
}

std::string explain(int err, int paranoid) {
  std::string why = std::strerror(err);
  if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)
    why += " (the kernel exposes no hardware performance-monitoring unit here: a VM or container without PMU passthrough)";
  else if (err == EACCES || err == EPERM)
    why += " (kernel.perf_event_paranoid is " + std::to_string(paranoid) +
           "; set it to 2 or lower, grant CAP_PERFMON, or allow perf_event_open in the container's seccomp profile)";
  else if (err == ENOSYS)
    why += " (the kernel has no perf_event support)";
  return why;
}

} // namespace

int perfEventParanoid() {
  std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
  int v = -99;
  if (f >> v) return v;
  return -99;
}

HardwareCounters::HardwareCounters(HardwareCounters&& o) noexcept { *this = std::move(o); }

HardwareCounters& HardwareCounters::operator=(HardwareCounters&& o) noexcept {
  if (this != &o) {
    close();
    hardware_ = o.hardware_;
    kind_ = std::move(o.kind_);
    unavailable_ = std::move(o.unavailable_);
    names_ = std::move(o.names_);
    leaders_ = std::move(o.leaders_);
    fds_ = std::move(o.fds_);
    o.fds_.clear();
    o.leaders_.clear();
  }
  return *this;
}

HardwareCounters::~HardwareCounters() { close(); }

void HardwareCounters::close() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
  leaders_.clear();
}

HardwareCounters HardwareCounters::open(bool softwareFallback) {
  HardwareCounters c;
  const int paranoid = perfEventParanoid();
  const std::vector<pid_t> threads = threadsOfProcess();
  // Tries one group of counter kinds; true when at least the leader opened on the first thread.
  auto tryGroup = [&](const std::vector<CounterKind>& kinds, int* firstErr) {
    std::vector<CounterKind> usable;
    std::vector<int> opened, leaders;
    bool firstThread = true;
    for (pid_t tid : threads) {
      int leader = perfOpen(kinds[0], tid, -1);
      if (leader < 0) {
        if (firstThread) {
          *firstErr = errno;
          return false;
        }
        continue; // the thread exited meanwhile
      }
      opened.push_back(leader);
      if (firstThread) {
        usable.push_back(kinds[0]);
        for (size_t k = 1; k < kinds.size(); ++k) {
          int fd = perfOpen(kinds[k], tid, leader);
          if (fd >= 0) {
            opened.push_back(fd);
            usable.push_back(kinds[k]);
          }
        }
      } else {
        for (size_t k = 1; k < usable.size(); ++k)
          if (int fd = perfOpen(usable[k], tid, leader); fd >= 0) opened.push_back(fd);
      }
      leaders.push_back(leader);
      firstThread = false;
    }
    for (auto& k : usable) c.names_.push_back(k.name);
    c.leaders_ = std::move(leaders);
    c.fds_ = std::move(opened);
    return true;
  };
  int err = 0;
  if (tryGroup({{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
                {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
                {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES}},
               &err)) {
    c.hardware_ = true;
    c.kind_ = "hardware";
    return c;
  }
  c.unavailable_ = "perf_event_open(cycles) failed: " + explain(err, paranoid);
  if (!softwareFallback) return c;
  int swErr = 0;
  if (tryGroup({{"task_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
                {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
                {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES}},
               &swErr)) {
    c.kind_ = "software";
    return c;
  }
  c.unavailable_ += "; software counters failed too: " + explain(swErr, paranoid);
  return c;
}

} // namespace dcw::codegen
