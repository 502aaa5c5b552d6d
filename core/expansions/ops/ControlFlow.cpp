// Pure expansions of the control-flow ops If, Loop and Scan (see Ops.h). Work in progress.
#include "core/expansions/Expansion.h"
#include "core/expansions/ops/Ops.h"

namespace dcw::expansions {

void registerControlFlow(ExpansionRegistry&) {}

} // namespace dcw::expansions
