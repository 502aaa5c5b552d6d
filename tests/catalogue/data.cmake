# The "Data" group of the transformation catalogue (models: tests/models/data_models.py).
dcw_add_tests(NAMES DeadDataflowElimination RedundantArray ReshapeToView TransposeToView CopyToView StridedView ConstantFolding LocalStorage AccumulateTransient BufferTiling
  LIBS ${DCW_CATALOGUE_LIBS})
