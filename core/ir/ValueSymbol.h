// ValueSymbol: a root SDFG symbol that stands for an element of a small integer model input (a window
// length, a Range limit, a trip count given as an input), recorded by the importer as metadata
// "value-symbol:SYMBOL" = input, newline, element (core/onnx/SymbolicShapes.h). The executor binds such
// a symbol from the input's value when the program starts; loading a saved model for fixed input values
// specializes it; the Loop expansion counts it as known.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcw::ir {

class Sdfg;

struct ValueSymbol {
  std::string symbol;
  std::string input;   // the data name of the model input
  int64_t element = 0; // which of its elements
};

// The value symbols recorded on `root` (malformed entries are skipped).
std::vector<ValueSymbol> valueSymbols(const Sdfg& root);

} // namespace dcw::ir
