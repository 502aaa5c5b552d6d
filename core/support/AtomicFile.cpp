#include "core/support/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dcw {

namespace fs = std::filesystem;

namespace {

std::string errnoText(int err) { return std::strerror(err); }

// A name in `dir` that no other writer uses: the pid, a per-process counter and a random number,
// and the file is created with O_EXCL, so even a collision is noticed (and another name tried).
struct TempFile {
  std::string path;
  int fd = -1;
};

Expected<TempFile> createTemp(const fs::path& target, mode_t mode) {
  static std::atomic<unsigned long long> counter{0};
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  int err = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = "." + target.filename().string() + "." + std::to_string(::getpid()) + "-" +
                       std::to_string(counter.fetch_add(1)) + "-" + std::to_string(random() % 1000000) + ".tmp";
    std::string path = (dir / name).string();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) return TempFile{path, fd};
    err = errno;
    if (err != EEXIST) break;
  }
  return fail(target.string(), "cannot be written: " + errnoText(err), "check that the folder exists and is writable");
}

// Temporaries of `target` left by writers that were killed before their rename (their pid is gone)
// are removed after each write, so kills do not fill the folder. A live pid's temporary is in flight.
void removeStaleTemps(const fs::path& target) {
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = "." + target.filename().string() + ".";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 || !name.ends_with(".tmp")) continue;
    const std::string rest = name.substr(prefix.size());
    const size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) continue;
    const long long pid = std::stoll(rest.substr(0, dash));
    if (pid > 0 && pid <= 0x7fffffff && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

// Writes every byte (retrying short writes and interruptions) and flushes them to the disk.
int writeAllAndSync(int fd, std::string_view bytes) {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= size_t(n);
  }
  while (::fsync(fd) != 0)
    if (errno != EINTR) return errno;
  return 0;
}

// Flushes the folder's entries (the rename) to the disk. Filesystems that cannot sync a folder say
// EINVAL; that is as durable as they get.
int syncFolder(const fs::path& target) {
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = 0;
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    if (errno != EINVAL && errno != ENOTSUP) err = errno;
    break;
  }
  ::close(fd);
  return err;
}

// Keeps `path` (which exists) as its backup: a hard link under a temporary name renamed over the
// backup, or, where links are refused, a copy written atomically.
Expected<void> keepBackup(const std::string& path) {
  const std::string backup = backupPathOf(path);
  auto temp = createTemp(fs::path(backup), 0600);
  if (!temp) return fail(path, "cannot keep the previous version: " + temp.error().message, temp.error().hint);
  ::close(temp->fd);
  ::unlink(temp->path.c_str());
  if (::link(path.c_str(), temp->path.c_str()) == 0) {
    int err = ::rename(temp->path.c_str(), backup.c_str()) == 0 ? 0 : errno;
    ::unlink(temp->path.c_str()); // left when the backup already was this very file (rename does nothing)
    if (err) return fail(path, "cannot keep the previous version as " + backup + ": " + errnoText(err), "the file is untouched");
    return {};
  }
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return fail(path, "cannot keep the previous version: " + ec.message(), "the file is untouched");
  std::string old(size, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(path, "cannot keep the previous version: " + errnoText(errno), "the file is untouched");
  size_t got = 0;
  while (got < old.size()) {
    ssize_t n = ::read(fd, old.data() + got, old.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += size_t(n);
  }
  ::close(fd);
  old.resize(got);
  return writeFileAtomically(backup, old);
}

} // namespace

std::string backupPathOf(const std::string& path) { return path + "~"; }

Expected<void> writeFileAtomically(const std::string& path, std::string_view bytes, const AtomicWriteOptions& options) {
  const fs::path target(path);
  struct stat existing {};
  const bool replaces = ::stat(path.c_str(), &existing) == 0;
  if (replaces && S_ISDIR(existing.st_mode)) return fail(path, "cannot be written: it is a folder", "choose a file name");
  DCW_TRY(TempFile temp, createTemp(target, 0666));
  if (replaces) ::fchmod(temp.fd, existing.st_mode & 07777); // a replaced file keeps its permissions
  int err = writeAllAndSync(temp.fd, bytes);
  if (::close(temp.fd) != 0 && err == 0) err = errno;
  if (err) {
    ::unlink(temp.path.c_str());
    return fail(path, "could not be written completely: " + errnoText(err), "check the free disk space; the previous file is untouched");
  }
  if (options.keepBackup && replaces && S_ISREG(existing.st_mode)) {
    if (auto kept = keepBackup(path); !kept) {
      ::unlink(temp.path.c_str());
      return kept;
    }
  }
  if (::rename(temp.path.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(temp.path.c_str());
    return fail(path, "cannot be replaced: " + errnoText(err), "the previous file is untouched");
  }
  removeStaleTemps(target);
  if (int e = syncFolder(target))
    return fail(path, "was written, but its folder could not be flushed to the disk: " + errnoText(e),
                "the new file may not survive a power loss; save again");
  return {};
}

} // namespace dcw
