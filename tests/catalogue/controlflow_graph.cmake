# Control-flow and graph-level transformations, one suite each (models: tests/models/controlflow_graph_models.py).
dcw_add_tests(NAMES InlineNestedSDFG StateFusion MatMulAddToGemm ConvBatchNormFolding LoopToMap MapToForLoop
  GeluFusion LayerNormFusion SiluFusion HardSwishFusion SqueezeExcitationFusion MatMulScaleFusion AddFusion ActivationFusion ConcatBatchNormFusion ChannelShuffleFusion ChannelsLast InputChannelsLast BlockedLayout
  OneDnnPostOps
  LIBS ${DCW_CATALOGUE_LIBS} dcw_onnx)
