#include "codegen/run/WorkerProcess.h"

#include "codegen/run/MemoryBudget.h"
#include "codegen/run/WorkerProtocol.h"
#include "core/support/ProcessIo.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace dcw::codegen {

namespace fs = std::filesystem;
using namespace worker;

namespace {

constexpr uint64_t align64(uint64_t v) { return (v + 63) / 64 * 64; }

// An fd at 64 or above, close-on-exec (so that dup2 onto 3..5 in the child always copies it).
int high(int fd) {
  if (fd < 0) return fd;
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 64);
  ::close(fd);
  return h;
}

// Writes to this process's stderr with SIGPIPE blocked: a stderr whose reader is gone (`dcw ... 2>&1 |
// head -1`) loses the text instead of ending this process because the program it runs wrote something.
void passOn(const char* buf, size_t n) {
  sigset_t pipe, old;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  bool broken = false;
  for (size_t off = 0; off < n;) {
    ssize_t w = ::write(2, buf + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      broken = w < 0 && errno == EPIPE;
      break;
    }
    off += size_t(w);
  }
  if (broken) { // the SIGPIPE that write raised stays pending while blocked: take it
    const timespec now{0, 0};
    while (sigtimedwait(&pipe, nullptr, &now) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

} // namespace

std::string WorkerProcess::executablePath() {
  if (const char* e = std::getenv("DCW_WORKER"); e && *e) return e;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path next = self.parent_path() / "dcw-worker";
    if (fs::exists(next, ec)) return next.string();
  }
  return DCW_WORKER_PATH;
}

WorkerProcess::WorkerProcess(std::string libraryPath, WorkerLimits limits) : library_(std::move(libraryPath)), limits_(limits) {}

WorkerProcess::~WorkerProcess() {
  stop();
  if (shm_) munmap(shm_, shmBytes_);
  if (shmFd_ >= 0) ::close(shmFd_);
}

void WorkerProcess::stop() {
  if (sock_ >= 0) ::close(sock_);
  sock_ = -1;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  readMessages();
  if (err_ >= 0) ::close(err_);
  err_ = -1;
}

void WorkerProcess::readMessages() {
  if (err_ < 0) return;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(err_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return; // EAGAIN: nothing more now
    if (n == 0) {      // the worker is gone
      ::close(err_);
      err_ = -1;
      return;
    }
    // Passed on as it arrives (the command line shows the program's diagnostics as before) and kept.
    if (limits_.passMessagesOn) passOn(buf, size_t(n));
    messages_.append(buf, size_t(n));
    constexpr size_t kKeep = 256 << 10;
    if (messages_.size() > kKeep) { // the oldest go, whole lines
      const size_t nl = messages_.find('\n', messages_.size() - kKeep);
      messages_.erase(0, nl == std::string::npos ? messages_.size() - kKeep : nl + 1);
    }
  }
}

std::string WorkerProcess::takeMessages() {
  readMessages();
  const size_t end = messages_.rfind('\n');
  if (end == std::string::npos) return {};
  std::string out = messages_.substr(0, end + 1);
  messages_.erase(0, end + 1);
  return out;
}

int WorkerProcess::waitForReply(int timeoutMs) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    pollfd pfd[2] = {{sock_, POLLIN, 0}, {err_, POLLIN, 0}};
    int wait = 50;
    if (timeoutMs >= 0) {
      const int64_t left = timeoutMs - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
      if (left <= 0) return 0;
      wait = int(std::min<int64_t>(left, 50));
    }
    int n = ::poll(pfd, err_ >= 0 ? 2 : 1, wait);
    if (n < 0 && errno != EINTR) return -errno;
    if (n > 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))) readMessages();
    if (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR))) return 1;
  }
}

Expected<void> WorkerProcess::resize(uint64_t bytes) {
  if (shmFd_ < 0) {
    shmFd_ = high(memfd_create("dcw-worker-tensors", MFD_CLOEXEC));
    if (shmFd_ < 0) return fail("worker", std::string("cannot create shared memory: ") + std::strerror(errno));
  }
  if (bytes == shmBytes_) return {};
  if (shm_) munmap(shm_, shmBytes_);
  shm_ = nullptr;
  shmBytes_ = 0;
  if (ftruncate(shmFd_, off_t(bytes)) != 0)
    return fail("worker", "cannot size shared memory to " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shmFd_, 0);
  if (p == MAP_FAILED) return fail("worker", std::string("cannot map shared memory: ") + std::strerror(errno));
  shm_ = static_cast<char*>(p);
  shmBytes_ = bytes;
  return {};
}

Expected<void> WorkerProcess::start() {
  if (shmFd_ < 0)
    if (auto r = resize(kHeaderBytes); !r) return r;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return fail("worker", std::string("cannot create a socket pair: ") + std::strerror(errno));
  int mine = high(pair[0]), theirs = high(pair[1]);
  int errPipe[2];
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    ::close(mine);
    ::close(theirs);
    return fail("worker", std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const int errRead = high(errPipe[0]), errWrite = high(errPipe[1]);
  fcntl(errRead, F_SETFL, fcntl(errRead, F_GETFL) | O_NONBLOCK);
  fcntl(errRead, F_SETPIPE_SZ, 1 << 20); // room for a burst of messages while this process is busy
  const std::string exe = executablePath();
  int64_t mem = limits_.memoryBytes < 0 ? physicalMemoryBytes() : limits_.memoryBytes;
  // The worker's own mappings (libraries, the shared tensors) count against an address-space limit.
  if (mem > 0) mem += int64_t(shmBytes_) + (int64_t(1) << 30);
  std::vector<std::string> argvs = {exe, library_, "3", "4", "4", std::to_string(mem > 0 ? mem : 0)};
  std::vector<char*> argv;
  for (auto& a : argvs) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, shmFd_, 3);
  posix_spawn_file_actions_adddup2(&fa, theirs, 4);
  posix_spawn_file_actions_adddup2(&fa, errWrite, 2);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(theirs);
  ::close(errWrite);
  if (err_ >= 0) ::close(err_);
  err_ = errRead;
  if (rc != 0) {
    ::close(mine);
    ::close(err_);
    err_ = -1;
    return fail(exe, std::string("cannot start the worker process: ") + std::strerror(rc),
                "build dcw-worker (it is installed next to dcw), or set DCW_WORKER to its path");
  }
  pid_ = pid;
  sock_ = mine;
  Reply r;
  std::string msg;
  if (waitForReply(-1) <= 0 || !readFully(sock_, &r, sizeof r) || r.magic != kMagic) {
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    stop();
    return fail(library_, "the worker process ended while loading the program", describeExit(status, ""));
  }
  if (r.messageBytes > (1u << 20)) {
    stop();
    return fail(library_, "the worker answered with a malformed reply");
  }
  msg.resize(r.messageBytes);
  if (r.messageBytes && !readFully(sock_, msg.data(), msg.size())) msg.clear();
  elements_ = r.elements;
  if (r.status != 0) {
    stop();
    return fail(library_, msg.empty() ? "the worker could not load the program" : msg, "rebuild it (delete the cache entry)");
  }
  return {};
}

Expected<void> WorkerProcess::layout(const std::vector<WorkerArg>& args, std::vector<uint64_t>& offsets) {
  std::vector<std::pair<const void*, size_t>> constants;
  for (auto& a : args)
    if (a.kind == WorkerArg::Kind::Constant) constants.push_back({a.data, a.bytes});
  const bool sameConstants = constants == constants_;
  uint64_t end = kHeaderBytes;
  offsets.assign(args.size(), 0);
  // Constants given as one buffer (a model's layers tied to one weight: ConstantFolding's Identity
  // copies share their bytes) share one place, as they share one pointer in process: one copy, and
  // the oneDNN calls that pack them pack it once.
  std::map<std::pair<const void*, size_t>, uint64_t> placed;
  std::vector<bool> first(args.size(), false);
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].kind == WorkerArg::Kind::Constant) {
      auto [at, fresh] = placed.emplace(std::make_pair(static_cast<const void*>(args[k].data), args[k].bytes), end);
      offsets[k] = at->second;
      first[k] = fresh;
      if (fresh) end = align64(end + std::max<size_t>(args[k].bytes, 1));
    }
  const uint64_t constantsEnd = end;
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].kind != WorkerArg::Kind::Constant) {
      offsets[k] = end;
      end = align64(end + std::max<size_t>(args[k].bytes, 1));
    }
  if (end > shmBytes_ || end < shmBytes_ / 4) {
    if (auto r = resize(end); !r) return r;
  }
  if (!sameConstants || constantsEnd != constantsEnd_) {
    for (size_t k = 0; k < args.size(); ++k)
      if (first[k] && args[k].bytes) std::memcpy(shm_ + offsets[k], args[k].data, args[k].bytes);
    constants_ = std::move(constants);
    constantsEnd_ = constantsEnd;
  }
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].kind == WorkerArg::Kind::Input && args[k].bytes) std::memcpy(shm_ + offsets[k], args[k].data, args[k].bytes);
  return {};
}

std::string WorkerProcess::describeExit(int status, const std::string& where) const {
  std::string in = where.empty() ? std::string() : " in " + where;
  if (WIFSIGNALED(status)) return "the program was stopped by " + signalText(WTERMSIG(status)) + in;
  if (WIFEXITED(status)) return "the worker exited with status " + std::to_string(WEXITSTATUS(status)) + in;
  return "the worker ended" + in;
}

Expected<size_t> WorkerProcess::profiledElements() {
  if (pid_ <= 0)
    if (auto r = start(); !r) return r.takeError();
  return elements_;
}

Expected<void> WorkerProcess::run(const std::vector<WorkerArg>& args, const std::vector<int64_t>& symbols, int threads,
                                  const std::atomic<bool>* cancel, const std::function<std::string(int64_t)>& elementName,
                                  ProfileCapture* capture) {
  if (pid_ <= 0)
    if (auto r = start(); !r) return r;
  std::vector<uint64_t> offsets;
  if (auto r = layout(args, offsets); !r) return r;
  volatile int64_t* progress = reinterpret_cast<volatile int64_t*>(shm_);
  *progress = -1;
  RunRequest rq;
  rq.args = uint32_t(args.size());
  rq.symbols = uint32_t(symbols.size());
  rq.threads = threads;
  rq.sharedBytes = shmBytes_;
  rq.profileCapacity = capture ? std::max<size_t>(capture->capacity, 1) : 0;
  auto where = [&]() -> std::string {
    int64_t id = *progress;
    if (id < 0) return {};
    std::string name = elementName ? elementName(id) : std::string();
    return name.empty() ? "element #" + std::to_string(id) : name;
  };
  auto died = [&](const std::string& what) -> Unexpected {
    int status = 0;
    pid_t p = pid_;
    ::close(sock_);
    sock_ = -1;
    // Dead already (then its status stays what it was), or alive but no longer trusted.
    ::kill(p, SIGKILL);
    while (waitpid(p, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    readMessages(); // what it said before it went (up to EOF)
    const std::string at = where();
    return fail(at.empty() ? library_ : at, what.empty() ? describeExit(status, "") : what,
                "see the element's code (`dcw codegen`); the next run starts a new worker");
  };
  if (!writeFully(sock_, &rq, sizeof rq) || !writeFully(sock_, offsets.data(), offsets.size() * sizeof(uint64_t)) ||
      !writeFully(sock_, symbols.data(), symbols.size() * sizeof(int64_t)))
    return died({});
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    int n = waitForReply(50);
    if (n < 0) return died({});
    if (n > 0) break;
    if (cancel && cancel->load()) {
      std::string at = where();
      ::kill(pid_, SIGKILL);
      died({});
      return fail(at.empty() ? library_ : at, "cancelled");
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (limits_.seconds > 0 && s > limits_.seconds) {
      std::string at = where();
      ::kill(pid_, SIGKILL);
      died({});
      char text[64];
      std::snprintf(text, sizeof text, "%g", limits_.seconds);
      return fail(at.empty() ? library_ : at, "the program ran longer than the time limit of " + std::string(text) + " s and was stopped here",
                  "raise the limit, or look for an endless loop here");
    }
  }
  Reply r;
  if (!readFully(sock_, &r, sizeof r) || r.magic != kMagic) return died({});
  const uint64_t maxMessage = sizeof(EventsHeader) + uint64_t(rq.profileCapacity) * sizeof(ProfileEvent) + (1u << 20);
  if (r.messageBytes > maxMessage) return died("the worker answered with a malformed reply");
  std::string msg(r.messageBytes, '\0');
  if (r.messageBytes && !readFully(sock_, msg.data(), msg.size())) return died({});
  readMessages(); // everything the run wrote is in the pipe by now
  if (r.status != 0) {
    std::string at = where();
    if (!at.empty() && msg.rfind(at + ": ", 0) == 0) msg = msg.substr(at.size() + 2); // already located there
    if (msg.find("out of memory") != std::string::npos && limits_.memoryBytes != 0)
      msg += " (the worker may use at most " +
             std::to_string((limits_.memoryBytes < 0 ? physicalMemoryBytes() : limits_.memoryBytes) >> 20) + " MiB)";
    return fail(at.empty() ? library_ : at, msg);
  }
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].kind == WorkerArg::Kind::Output && args[k].bytes) std::memcpy(args[k].data, shm_ + offsets[k], args[k].bytes);
  if (capture) {
    capture->events.clear();
    capture->dropped = 0;
    EventsHeader head;
    if (msg.size() >= sizeof head) {
      std::memcpy(&head, msg.data(), sizeof head);
      if (msg.size() != sizeof head + head.events * sizeof(ProfileEvent) + head.streamBytes)
        return fail(library_, "the worker sent malformed profiling events");
      capture->events.resize(head.events);
      if (head.events) std::memcpy(capture->events.data(), msg.data() + sizeof head, head.events * sizeof(ProfileEvent));
      capture->fpgaStreams = msg.substr(sizeof head + head.events * sizeof(ProfileEvent));
      capture->dropped = head.dropped;
    }
  }
  return {};
}

} // namespace dcw::codegen
