// UsableCores: the cores this process may run on (its affinity mask; the online CPUs when that cannot be
// read) — the thread count OpenMP uses by default, and so the one DCW plans for and profiles with.
#pragma once

namespace dcw {

int usableCores();

} // namespace dcw
