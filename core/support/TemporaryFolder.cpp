// TemporaryFolder: see the header.
#include "core/support/TemporaryFolder.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace dcw {

namespace fs = std::filesystem;

Expected<TemporaryFolder> TemporaryFolder::create(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return fail(parent.string(), "cannot create the folder: " + ec.message());
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return fail(parent.string(), std::string("cannot create a temporary folder: ") + std::strerror(errno));
  return TemporaryFolder(fs::path(buf.data()));
}

Expected<TemporaryFolder> TemporaryFolder::create(const std::string& prefix) {
  std::error_code ec;
  fs::path parent = fs::temp_directory_path(ec);
  if (ec) return fail("$TMPDIR", "no temporary folder: " + ec.message(), "set TMPDIR to a writable folder");
  return create(parent, prefix);
}

TemporaryFolder& TemporaryFolder::operator=(TemporaryFolder&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

TemporaryFolder::~TemporaryFolder() { remove(); }

fs::path TemporaryFolder::release() {
  fs::path p = std::move(path_);
  path_.clear();
  return p;
}

void TemporaryFolder::remove() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  path_.clear();
}

} // namespace dcw
