// The one list of every transformation DCW offers, in the order menus show them (grouped by
// category). Add a transformation here and it appears in the GUI, in `dcw transforms --list`,
// in scripts and in auto-optimize's reach.
#include "transforms/TransformationRegistry.h"

#include "transforms/catalogue/AccumulateTransient.h"
#include "transforms/catalogue/ActivationFusion.h"
#include "transforms/catalogue/ChannelShuffleFusion.h"
#include "transforms/catalogue/ConcatBatchNormFusion.h"
#include "transforms/catalogue/AddFusion.h"
#include "transforms/catalogue/MatMulScaleFusion.h"
#include "transforms/catalogue/BufferTiling.h"
#include "transforms/catalogue/BlockedLayout.h"
#include "transforms/catalogue/ChannelsLast.h"
#include "transforms/catalogue/InputChannelsLast.h"
#include "transforms/catalogue/ReshapeToView.h"
#include "transforms/catalogue/TransposeToView.h"
#include "transforms/catalogue/CopyToView.h"
#include "transforms/catalogue/StridedView.h"
#include "transforms/catalogue/ConstantFolding.h"
#include "transforms/catalogue/ConvBatchNormFolding.h"
#include "transforms/catalogue/DeadDataflowElimination.h"
#include "transforms/catalogue/FpgaTransform.h"
#include "transforms/catalogue/GpuTransform.h"
#include "transforms/catalogue/GpuBlockTiling.h"
#include "transforms/catalogue/InLocalStorage.h"
#include "transforms/catalogue/InlineNestedSDFG.h"
#include "transforms/catalogue/LoopToMap.h"
#include "transforms/catalogue/MapToForLoop.h"
#include "transforms/catalogue/MatMulAddToGemm.h"
#include "transforms/catalogue/OutLocalStorage.h"
#include "transforms/catalogue/RedundantArray.h"
#include "transforms/catalogue/RedundantSecondArray.h"
#include "transforms/catalogue/SiluFusion.h"
#include "transforms/catalogue/HardSwishFusion.h"
#include "transforms/catalogue/SqueezeExcitationFusion.h"
#include "transforms/catalogue/StateFusion.h"
#include "transforms/catalogue/FpgaMemoryBank.h"
#include "transforms/catalogue/FpgaArrayPartition.h"
#include "transforms/catalogue/InterleaveAccumulation.h"
#include "transforms/catalogue/StreamingComposition.h"
#include "transforms/catalogue/StreamingMemory.h"
#include "transforms/catalogue/ElementwiseChainFusion.h"
#include "transforms/catalogue/ExpandLibraryNode.h"
#include "transforms/catalogue/GeluFusion.h"
#include "transforms/catalogue/LayerNormFusion.h"
#include "transforms/catalogue/MapCollapse.h"
#include "transforms/catalogue/MapFlatten.h"
#include "transforms/catalogue/MapExpansion.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/MapFusionHorizontal.h"
#include "transforms/catalogue/MapInterchange.h"
#include "transforms/catalogue/MapDimShuffle.h"
#include "transforms/catalogue/MapReduceFusion.h"
#include "transforms/catalogue/MapTiling.h"
#include "transforms/catalogue/MapUnroll.h"
#include "transforms/catalogue/StripMining.h"
#include "transforms/catalogue/SubgraphFusion.h"
#include "transforms/catalogue/TaskletFusion.h"
#include "transforms/catalogue/TrivialMapElimination.h"
#include "transforms/catalogue/Vectorization.h"

namespace dcw::transforms {

const TransformationRegistry& TransformationRegistry::instance() {
  static const TransformationRegistry r = [] {
    TransformationRegistry r;
    // Library nodes
    r.add(std::make_unique<ExpandLibraryNode>());
    // Maps
    r.add(std::make_unique<MapTiling>());
    r.add(std::make_unique<StripMining>());
    r.add(std::make_unique<MapExpansion>());
    r.add(std::make_unique<MapCollapse>());
    r.add(std::make_unique<MapFlatten>());
    r.add(std::make_unique<MapInterchange>());
    r.add(std::make_unique<MapDimShuffle>());
    r.add(std::make_unique<TrivialMapElimination>());
    r.add(std::make_unique<MapUnroll>());
    r.add(std::make_unique<Vectorization>());
    // Fusion
    r.add(std::make_unique<MapFusion>());
    r.add(std::make_unique<MapFusionHorizontal>());
    r.add(std::make_unique<SubgraphFusion>());
    r.add(std::make_unique<MapReduceFusion>());
    r.add(std::make_unique<TaskletFusion>());
    // Data
    r.add(std::make_unique<DeadDataflowElimination>());
    r.add(std::make_unique<RedundantArray>());
    r.add(std::make_unique<RedundantSecondArray>());
    r.add(std::make_unique<ConstantFolding>());
    r.add(std::make_unique<InLocalStorage>());
    r.add(std::make_unique<OutLocalStorage>());
    r.add(std::make_unique<AccumulateTransient>());
    r.add(std::make_unique<BufferTiling>());
    r.add(std::make_unique<ChannelsLast>());
    r.add(std::make_unique<InputChannelsLast>());
    r.add(std::make_unique<BlockedLayout>());
    r.add(std::make_unique<ReshapeToView>());
    r.add(std::make_unique<TransposeToView>());
    r.add(std::make_unique<CopyToView>());
    r.add(std::make_unique<StridedView>());
    // Control flow
    r.add(std::make_unique<InlineNestedSDFG>());
    r.add(std::make_unique<StateFusion>());
    r.add(std::make_unique<LoopToMap>());
    r.add(std::make_unique<MapToForLoop>());
    // Graph
    r.add(std::make_unique<ElementwiseChainFusion>());
    r.add(std::make_unique<MatMulAddToGemm>());
    // Targets
    r.add(std::make_unique<FpgaTransform>());
    r.add(std::make_unique<GpuTransform>());
    r.add(std::make_unique<GpuBlockTiling>());
    r.add(std::make_unique<StreamingComposition>());
    r.add(std::make_unique<StreamingMemory>());
    r.add(std::make_unique<FpgaMemoryBank>());
    r.add(std::make_unique<FpgaArrayPartition>());
    r.add(std::make_unique<InterleaveAccumulation>());
    r.add(std::make_unique<ConvBatchNormFolding>());
    r.add(std::make_unique<GeluFusion>());
    r.add(std::make_unique<LayerNormFusion>());
    r.add(std::make_unique<SiluFusion>());
    r.add(std::make_unique<HardSwishFusion>());
    r.add(std::make_unique<SqueezeExcitationFusion>());
    r.add(std::make_unique<MatMulScaleFusion>());
    r.add(std::make_unique<AddFusion>());
    r.add(std::make_unique<ActivationFusion>());
    r.add(std::make_unique<ConcatBatchNormFusion>());
    r.add(std::make_unique<ChannelShuffleFusion>());
    return r;
  }();
  return r;
}

const Transformation* TransformationRegistry::find(std::string_view name) const {
  for (auto& t : all_)
    if (t->name() == name) return t.get();
  return nullptr;
}

} // namespace dcw::transforms
