# The "Data" group of the transformation catalogue (models: tests/models/data_models.py).
set(_dcw_data_libs dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io)
dcw_add_test(DeadDataflowElimination SOURCES tst_DeadDataflowElimination.cpp LIBS ${_dcw_data_libs})
dcw_add_test(RedundantArray SOURCES tst_RedundantArray.cpp LIBS ${_dcw_data_libs})
dcw_add_test(ConstantFolding SOURCES tst_ConstantFolding.cpp LIBS ${_dcw_data_libs})
dcw_add_test(LocalStorage SOURCES tst_LocalStorage.cpp LIBS ${_dcw_data_libs})
dcw_add_test(AccumulateTransient SOURCES tst_AccumulateTransient.cpp LIBS ${_dcw_data_libs})
dcw_add_test(BufferTiling SOURCES tst_BufferTiling.cpp LIBS ${_dcw_data_libs})
