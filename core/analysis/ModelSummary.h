// ModelSummary: the static facts a user wants first about a model — operations by type, data
// containers with shapes and dtypes, symbols, parameter count and bytes, and graph depth (longest
// chain of operations, and nesting depth of subgraphs). Used by `dcw inspect` and the GUI.
#pragma once

#include "core/ir/Sdfg.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dcw::analysis {

struct ArrayInfo {
  std::string name;
  std::string path;
  std::string dtype;
  std::vector<std::string> shape; // symbolic dims as text
  std::string role;               // "input", "output", "constant", "transient", "argument"
  int64_t elements = -1;          // -1 when symbolic or unknown
  int64_t bytes = -1;
};

struct ModelSummary {
  std::string name;
  std::map<std::string, int64_t> opsByType;   // class name -> count (all nesting levels)
  int64_t nodeCount = 0;                      // library nodes + tasklets + maps + nested SDFGs
  int64_t stateCount = 0;
  std::vector<ArrayInfo> arrays;              // root SDFG's data, in declaration order
  std::map<std::string, std::string> symbols; // name -> dtype
  int64_t parameterCount = 0;                 // elements of constant arrays (all levels)
  int64_t parameterBytes = 0;
  int64_t opaqueOps = 0;
  int depth = 0;                              // longest path of operations through the dataflow
  int nesting = 0;                            // deepest subgraph nesting (0 = flat)
  std::vector<std::string> inputs, outputs;
  std::map<std::string, std::string> metadata;
};

ModelSummary summarize(const ir::Sdfg& sdfg);

} // namespace dcw::analysis
