// CppGenerator: the CPU target. Turns an SDFG whose library nodes are all expanded (maps, tasklets,
// memlets, nested SDFGs, control flow) into one C++17 translation unit with OpenMP for multicore maps,
// plus a source map from generated line ranges to element paths. Identifiers come from
// codegen/Identifier (model names are untrusted); tasklet code is re-printed from its parsed AST.
//
// The generated entry point (C ABI):
//   extern "C" int dcw_program(void* const* args, const int64_t* symbols, char* error, size_t errorSize);
//   extern "C" void dcw_set_threads(int n);
// `args` holds one pointer per ProgramSignature::args entry, in order; `symbols` one value per
// ProgramSignature::symbols entry. Transients are allocated inside by lifetime. Returns 0 on success,
// otherwise writes a message to `error`.
#pragma once

#include "core/ir/DataDescriptor.h"
#include "core/ir/Element.h"
#include "core/support/Expected.h"

#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct ProgramArg {
  enum class Role { Input, Output, Constant };
  std::string name;                 // data descriptor name in the root SDFG
  Role role = Role::Input;
  ir::DType dtype = ir::DType::Float32;
  std::vector<sym::Expr> shape;     // symbolic, in root-SDFG symbols
};

struct ProgramSignature {
  std::vector<ProgramArg> args;     // inputs (Sdfg::inputs order), outputs (Sdfg::outputs), constants (data order)
  std::vector<std::string> symbols; // root SDFG symbols, by name
};

struct SourceMapEntry {
  int firstLine = 0;                // 1-based, inclusive
  int lastLine = 0;
  ir::ElementId element = ir::kNoId;
  std::string path;
};

struct GeneratedCode {
  std::string source;
  std::vector<SourceMapEntry> sourceMap;
  ProgramSignature signature;
};

struct CpuOptions {
  bool openmp = true;               // emit OpenMP pragmas for CpuMulticore (and Default top-level) maps
};

// Fails (naming the node and op) when a library node is left unexpanded or an element cannot be
// generated.
Expected<GeneratedCode> generateCpp(const ir::Sdfg& sdfg, const CpuOptions& options = {});

} // namespace dcw::codegen
