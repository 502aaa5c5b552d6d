# Transformations onto a device target, with the code their targets generate (FpgaTransform: codegen/fpga).
dcw_add_tests(NAMES FpgaTransform LIBS ${DCW_CATALOGUE_LIBS} dcw_codegen)
