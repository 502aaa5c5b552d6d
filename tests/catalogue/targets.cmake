# Transformations onto a device target, with the code their targets generate (FpgaTransform, StreamingComposition: codegen/fpga).
dcw_add_tests(NAMES Fpga LIBS ${DCW_CATALOGUE_LIBS} dcw_codegen)
