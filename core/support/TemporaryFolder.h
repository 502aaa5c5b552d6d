// TemporaryFolder: a fresh, private folder under a parent (mkdtemp: an unpredictable name no other
// process shares), for builds and simulations whose files must not collide with a concurrent run's.
// The owner decides what happens to it: a TemporaryFolder removes it with everything inside when it
// goes out of scope, unless released (the compiler renames a finished build into its cache entry).
#pragma once

#include "core/support/Expected.h"

#include <filesystem>
#include <string>

namespace dcw {

class TemporaryFolder {
public:
  // `parent/prefixXXXXXX`; the parent is created when missing. Fails naming the parent.
  static Expected<TemporaryFolder> create(const std::filesystem::path& parent, const std::string& prefix);
  // Under the system's temporary folder ($TMPDIR or /tmp).
  static Expected<TemporaryFolder> create(const std::string& prefix);

  TemporaryFolder(TemporaryFolder&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TemporaryFolder& operator=(TemporaryFolder&& o) noexcept;
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder();

  const std::filesystem::path& path() const { return path_; }
  // The folder is no longer removed at the end of this object's life; returns its path.
  std::filesystem::path release();

private:
  explicit TemporaryFolder(std::filesystem::path p) : path_(std::move(p)) {}
  void remove();
  std::filesystem::path path_;
};

} // namespace dcw
