# Catalogue group "maps": StripMining, MapInterchange, MapCollapse, MapExpansion,
# TrivialMapElimination, MapUnroll, Vectorization (models: tests/models/maps_models.py).
dcw_add_tests(NAMES MapNests MapDimShuffle MapFlatten TrivialMapElimination MapSchedules LIBS ${DCW_CATALOGUE_LIBS})
