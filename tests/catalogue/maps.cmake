# Catalogue group "maps": StripMining, MapInterchange, MapCollapse, MapExpansion,
# TrivialMapElimination, MapUnroll, Vectorization (models: tests/models/maps_models.py).
dcw_add_test(MapNests SOURCES tst_MapNests.cpp LIBS dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io)
dcw_add_test(TrivialMapElimination SOURCES tst_TrivialMapElimination.cpp LIBS dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io)
dcw_add_test(MapSchedules SOURCES tst_MapSchedules.cpp LIBS dcw_transforms dcw_run dcw_serialize dcw_expansions dcw_io)
