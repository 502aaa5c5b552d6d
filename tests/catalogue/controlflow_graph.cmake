# Control-flow and graph-level transformations, one suite each (models: tests/models/controlflow_graph_models.py).
set(DCW_CFG_LIBS dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io dcw_onnx)
dcw_add_test(InlineNestedSDFG SOURCES tst_InlineNestedSDFG.cpp LIBS ${DCW_CFG_LIBS})
dcw_add_test(StateFusion SOURCES tst_StateFusion.cpp LIBS ${DCW_CFG_LIBS})
dcw_add_test(MatMulAddToGemm SOURCES tst_MatMulAddToGemm.cpp LIBS ${DCW_CFG_LIBS})
dcw_add_test(ConvBatchNormFolding SOURCES tst_ConvBatchNormFolding.cpp LIBS ${DCW_CFG_LIBS})
dcw_add_test(LoopToMap SOURCES tst_LoopToMap.cpp LIBS ${DCW_CFG_LIBS})
dcw_add_test(MapToForLoop SOURCES tst_MapToForLoop.cpp LIBS ${DCW_CFG_LIBS})
