#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/ops/Ops.h"

namespace dcw::expansions {

void registerOneDnn(ExpansionRegistry& r) {
  onednn::registerConvolutions(r);
  onednn::registerMatrixProducts(r);
  onednn::registerPooling(r);
  onednn::registerElementwise(r);
  onednn::registerNormalization(r);
  onednn::registerRecurrent(r);
}

} // namespace dcw::expansions
