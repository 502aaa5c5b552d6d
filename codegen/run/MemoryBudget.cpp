#include "codegen/run/MemoryBudget.h"

#include "core/support/IntList.h"

#include <cstdio>
#include <unistd.h>

namespace dcw::codegen {

int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? int64_t(pages) * size : 0;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char text[64];
  if (u == 0) std::snprintf(text, sizeof text, "%.0f %s", bytes, units[u]);
  else std::snprintf(text, sizeof text, "%.1f %s", bytes, units[u]);
  return text;
}

std::string shapeText(const std::vector<int64_t>& dims) { return "[" + joinInts(dims, ", ") + "]"; }

int64_t tensorBytes(const std::vector<int64_t>& dims, ir::DType dtype) {
  constexpr int64_t kLimit = int64_t(1) << 62;
  int64_t n = int64_t(ir::dtypeSize(dtype));
  if (n <= 0) n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
    if (n > kLimit / d) return -1;
    n *= d;
  }
  return n;
}

Expected<void> checkFitsInMemory(const std::string& where, const std::string& what, int64_t bytes) {
  const int64_t machine = physicalMemoryBytes();
  if (machine <= 0) return {};
  if (bytes >= 0 && bytes <= machine) return {};
  std::string need = bytes < 0 ? "more than 2^62 bytes" : formatBytes(double(bytes));
  return fail(where, what + ": " + need + " needed, more than this machine's " + formatBytes(double(machine)) + " of memory",
              "use smaller dims (--dim NAME=VALUE) or a machine with more memory");
}

} // namespace dcw::codegen
