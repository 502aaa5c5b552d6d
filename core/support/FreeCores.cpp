#include "core/support/FreeCores.h"

#include "core/support/UsableCores.h"

#include <algorithm>
#include <cmath>

namespace dcw {

FreeCores::FreeCores() : usable_(usableCores()), threads_(usable_) {}

int FreeCores::next(const std::vector<pid_t>& ours) {
  if (!window_ || ours != ours_) {
    ours_ = ours;
    window_.emplace(ours_);
  } else if (auto busy = window_->otherBusyCores()) {
    threads_ = std::clamp(usable_ - int(std::lround(*busy)), 1, usable_);
    window_.emplace(ours_);
  }
  return threads_;
}

} // namespace dcw
