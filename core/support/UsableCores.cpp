#include "core/support/UsableCores.h"

#include <algorithm>
#include <sched.h>
#include <unistd.h>

namespace dcw {

int usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

} // namespace dcw
