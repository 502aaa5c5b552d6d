// IsolatedInference: see the header. The child answers through a pipe with one frame: a status byte
// (0 finished, 1 stopped with a message), the message's length as 8 bytes, the message, then the
// serialized model. Anything short of a whole frame is a crash.
#include "core/onnx/IsolatedInference.h"

#include "core/support/ProcessIo.h"

#include <onnx/defs/schema.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dcw::onnx {
namespace {

[[noreturn]] void childMain(int fd, ::onnx::ModelProto& model,
                            const std::function<std::optional<std::string>(::onnx::ModelProto&)>& work) {
  // A crash here must end this child quietly: no core file, and none of the parent's crash handlers
  // (a fuzzer's or a sanitizer's would report the parent's input as a crash).
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) std::signal(sig, SIG_DFL);
  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  std::optional<std::string> stopped;
  try {
    stopped = work(model);
  } catch (const std::exception& e) {
    stopped = std::string(e.what());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) ::_exit(3);
  const char status = stopped ? 1 : 0;
  const std::string message = stopped.value_or("");
  const uint64_t length = message.size();
  bool ok = writeFully(fd, &status, 1) && writeFully(fd, reinterpret_cast<const char*>(&length), sizeof length) &&
            writeFully(fd, message.data(), message.size()) && writeFully(fd, bytes.data(), bytes.size());
  ::_exit(ok ? 0 : 4);
}

std::string describeEnd(int status) {
  if (WIFSIGNALED(status)) {
    return "it crashed: " + signalText(WTERMSIG(status));
  }
  if (WIFEXITED(status)) return "it ended with exit code " + std::to_string(WEXITSTATUS(status)) + " before answering";
  return "it ended before answering";
}

} // namespace

IsolatedOutcome runIsolated(::onnx::ModelProto& model,
                            const std::function<std::optional<std::string>(::onnx::ModelProto&)>& work,
                            std::chrono::seconds limit) {
  IsolatedOutcome out;
  auto inProcess = [&] {
    out.isolated = false;
    try {
      if (auto stopped = work(model)) {
        out.kind = IsolatedOutcome::Kind::Stopped;
        out.message = *stopped;
      }
    } catch (const std::exception& e) {
      out.kind = IsolatedOutcome::Kind::Stopped;
      out.message = e.what();
    }
    return out;
  };
  ::onnx::OpSchemaRegistry::Instance(); // built here once, not in every child
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return inProcess();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return inProcess();
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], model, work);
  }
  ::close(fds[1]);

  std::string frame;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  bool timedOut = false;
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    struct pollfd p = {fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (ready == 0) continue;
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; // end of the answer
    frame.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) {
    out.kind = IsolatedOutcome::Kind::TimedOut;
    out.message = "it ran longer than " + std::to_string(limit.count()) + " s and was stopped";
    return out;
  }
  constexpr size_t header = 1 + sizeof(uint64_t);
  uint64_t length = 0;
  if (frame.size() >= header) std::memcpy(&length, frame.data() + 1, sizeof length);
  const bool whole = WIFEXITED(status) && WEXITSTATUS(status) == 0 && frame.size() >= header &&
                     length <= frame.size() - header;
  ::onnx::ModelProto answer;
  if (!whole || !answer.ParseFromArray(frame.data() + header + length, static_cast<int>(frame.size() - header - length))) {
    out.kind = IsolatedOutcome::Kind::Crashed;
    out.message = describeEnd(status);
    return out;
  }
  model = std::move(answer);
  if (frame[0] == 1) {
    out.kind = IsolatedOutcome::Kind::Stopped;
    out.message = frame.substr(header, length);
  }
  return out;
}

} // namespace dcw::onnx
