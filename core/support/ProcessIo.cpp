#include "core/support/ProcessIo.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace dcw {

bool writeFully(int fd, const void* buf, size_t n) {
  const char* p = static_cast<const char*>(buf);
  bool socket = true;
  while (n > 0) {
    ssize_t w = socket ? ::send(fd, p, n, MSG_NOSIGNAL) : ::write(fd, p, n);
    if (w < 0 && socket && errno == ENOTSOCK) {
      socket = false; // a pipe
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

bool readFully(int fd, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

std::string signalText(int sig) {
  switch (sig) {
  case SIGSEGV: return "SIGSEGV (segmentation fault: an access outside the program's memory, e.g. an out-of-bounds index)";
  case SIGBUS: return "SIGBUS (bus error: a misaligned or unmapped access)";
  case SIGFPE: return "SIGFPE (arithmetic error, e.g. an integer division by zero)";
  case SIGILL: return "SIGILL (illegal instruction: code built for another processor, or a corrupted program)";
  case SIGABRT: return "SIGABRT (the program aborted, e.g. an unhandled exception or a failed allocation)";
  case SIGKILL: return "SIGKILL (killed, e.g. by the kernel when the machine ran out of memory)";
  default: {
    const char* s = strsignal(sig);
    return "signal " + std::to_string(sig) + (s ? " (" + std::string(s) + ")" : std::string());
  }
  }
}

} // namespace dcw
