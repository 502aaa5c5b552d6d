// AtomicFile: the one way DCW writes a user's file (projects and autosaves, `.dcw.json`, scripts,
// tensor files, reports), so that a crash, a kill or a full disk at any moment leaves either the old
// file or the new one whole, never a torn mix and never nothing.
//
// The bytes go to a temporary file in the same folder (same filesystem, so the rename is atomic)
// under a name no other writer uses (`.NAME.PID-N-RANDOM.tmp`, created exclusively: two processes or
// threads saving the same file never share one), which is flushed to the disk (fsync) before it is
// renamed over the target; then the folder is flushed, so the rename itself survives a power loss.
// A replaced file keeps its permissions; a new one gets the usual ones (0666 less the umask). The
// temporaries of writers killed before their rename (whose pid is gone) are removed by the next write.
//
// With keepBackup, the file being replaced is first kept beside it as `PATH~` (backupPathOf), by a
// hard link where the filesystem allows one and a copy (written the same way) where it does not;
// the backup is itself swapped in by a rename, so there is always one whole previous version.
#pragma once

#include "core/support/Expected.h"

#include <string>
#include <string_view>

namespace dcw {

struct AtomicWriteOptions {
  bool keepBackup = false; // keep the file being replaced as backupPathOf(path)
};

// Where writeFileAtomically keeps the previous version of `path`: `path~`.
std::string backupPathOf(const std::string& path);

// Replaces (or creates) `path` with `bytes` as described above. Errors name `path`, say what failed
// with the system's reason, and say that the previous file is untouched when it is.
Expected<void> writeFileAtomically(const std::string& path, std::string_view bytes, const AtomicWriteOptions& options = {});

} // namespace dcw
