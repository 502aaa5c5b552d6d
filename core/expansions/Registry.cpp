// The one explicit list of expansions (implementations of library nodes): every family registers
// here, in this order; each registration carries the implementation's declaration (Expansion.h).
#include "core/expansions/Expansion.h"
#include "core/expansions/cuda/CublasOps.h"
#include "core/expansions/cuda/CudnnOps.h"
#include "core/expansions/fpga/SystolicOps.h"
#include "core/expansions/ops/Ops.h"

namespace dcw::expansions {

const ExpansionRegistry& registry() {
  static const ExpansionRegistry r = [] {
    ExpansionRegistry reg;
    registerElementwise(reg);
    registerReductions(reg);
    registerSoftmax(reg);
    registerNormalization(reg);
    registerLinalg(reg);
    registerConvolution(reg);
    registerPooling(reg);
    registerTensorOps(reg);
    registerLosses(reg);
    registerQuantization(reg);
    registerMisc(reg);
    registerRecurrent(reg);
    registerRandom(reg);
    registerOptimizers(reg);
    registerTfIdfVectorizer(reg);
    registerDataDependentOps(reg);
    registerMlPreprocessing(reg);
    registerMlLinear(reg);
    registerTreeEnsemble(reg);
    registerControlFlow(reg);
    registerFused(reg);
    registerOneDnn(reg);
    cuda::registerCublas(reg);
    cuda::registerCudnn(reg);
    fpga::registerSystolic(reg);
    return reg;
  }();
  return r;
}

} // namespace dcw::expansions
