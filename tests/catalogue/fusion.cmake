# Fusion group: MapFusion, MapFusionHorizontal, SubgraphFusion, TaskletFusion, MapReduceFusion,
# ElementwiseChainFusion (paths relative to tests/).
dcw_add_tests(NAMES MapFusion ElementwiseChainFusion MapFusionHorizontal TaskletFusion MapReduceFusion SubgraphFusion
  LIBS ${DCW_CATALOGUE_LIBS})
