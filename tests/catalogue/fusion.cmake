# Fusion group: MapFusion, MapFusionHorizontal, SubgraphFusion, TaskletFusion, MapReduceFusion,
# ElementwiseChainFusion (paths relative to tests/).
set(DCW_FUSION_LIBS dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io)
dcw_add_test(MapFusion SOURCES tst_MapFusion.cpp LIBS ${DCW_FUSION_LIBS})
dcw_add_test(ElementwiseChainFusion SOURCES tst_ElementwiseChainFusion.cpp LIBS ${DCW_FUSION_LIBS})
dcw_add_test(MapFusionHorizontal SOURCES tst_MapFusionHorizontal.cpp LIBS ${DCW_FUSION_LIBS})
dcw_add_test(TaskletFusion SOURCES tst_TaskletFusion.cpp LIBS ${DCW_FUSION_LIBS})
dcw_add_test(MapReduceFusion SOURCES tst_MapReduceFusion.cpp LIBS ${DCW_FUSION_LIBS})
dcw_add_test(SubgraphFusion SOURCES tst_SubgraphFusion.cpp LIBS ${DCW_FUSION_LIBS})
