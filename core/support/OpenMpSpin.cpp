#include "core/support/OpenMpSpin.h"

#include <cstdlib>

namespace dcw {

bool useModerateOpenMpSpin() {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return false;
  return ::setenv("GOMP_SPINCOUNT", kModerateOpenMpSpin, 0) == 0;
}

} // namespace dcw
