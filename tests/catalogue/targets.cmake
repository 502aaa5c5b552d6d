# Transformations onto a device target, with the code their targets generate (FpgaTransform, StreamingComposition,
# FpgaMemoryBank, FpgaArrayPartition, InterleaveAccumulation: codegen/fpga; GpuTransform, GpuBlockTiling: codegen/cuda).
dcw_add_tests(NAMES Fpga Cuda LIBS ${DCW_CATALOGUE_LIBS} dcw_codegen dcw_pipeline)
