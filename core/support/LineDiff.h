// LineDiff: a unified diff (`diff -u` style, with @@ hunks and `context` lines around changes) of
// two texts, line by line. Used to show what a history step changed in the generated code. The
// common prefix and suffix are trimmed first (a transformation changes code locally); the middle is
// diffed by longest common subsequence when it is small enough (up to `maxCells` line pairs), else
// reported as replaced as a whole, so a diff is always produced in bounded time and memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dcw {

struct DiffStats {
  size_t added = 0;
  size_t removed = 0;
};

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeName,
                        const std::string& afterName, int context = 3, DiffStats* stats = nullptr,
                        size_t maxCells = 25'000'000);

} // namespace dcw
