// CppGenerator: the CPU target's generator. Turns an SDFG whose library nodes are all expanded (maps,
// tasklets, memlets, nested SDFGs, control flow) into one C++17 translation unit with OpenMP for
// multicore maps, plus a source map from generated line ranges to element paths. Identifiers come
// from codegen/Identifier (model names are untrusted); tasklet code is re-printed from its parsed AST.
// The program's C ABI and the instrumentation ABI are in codegen/GeneratedCode.h. Callers go through
// the Target interface (codegen/cpu/CpuTarget.h), which checks schedules and storages first.
#pragma once

#include "codegen/GeneratedCode.h"
#include "core/support/Expected.h"

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct CpuOptions {
  bool openmp = true;               // emit OpenMP pragmas for CpuMulticore (and Default top-level) maps
  Instrumentation instrument;       // default: nothing (the generated code carries no instrumentation)
  int branchThreads = 0;            // threads concurrent branches are planned for (codegen/ConcurrentBranches.h);
                                    // 0: the usable cores, 1: none
};

// Fails (naming the node and op) when a library node is left unexpanded or an element cannot be
// generated.
Expected<GeneratedCode> generateCpp(const ir::Sdfg& sdfg, const CpuOptions& options = {});

} // namespace dcw::codegen
