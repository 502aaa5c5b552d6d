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
//
// A program with C++ tasklets (ir::Tasklet language cpp, e.g. the `onednn` implementations) also
// exports, and needs its loader to call:
//   extern "C" int dcw_init(char* error, size_t errorSize);  // once after loading, before dcw_program
//   extern "C" void dcw_teardown();                          // once before unloading
// dcw_init runs the init code of every environment the tasklets use (core/expansions/Environment.h:
// e.g. the oneDNN engine and stream), in order of first use; it returns 0, or 1 with the exception's
// message after tearing down what it had set up. dcw_teardown runs their teardown in reverse order.
// They are counted: each successful dcw_init needs one dcw_teardown; the environments are set up by
// the first and torn down by the last (dlopen of the same library twice shares one copy). dcw_program
// fails ("dcw_init was not called") while no dcw_init is outstanding. An
// exception thrown by a C++ tasklet fails the run with the tasklet's path and the exception's message.
// Such a program must be linked with GeneratedCode::linkFlags (the environments' libraries).
// Programs without C++ tasklets have neither entry point (their code is what it was before).
//
// Instrumentation (CpuOptions::instrument; off by default, and then the generated code is exactly
// what it is without it): the chosen elements are timed with steady_clock (ns) into a preallocated
// event buffer, optionally with hardware-counter deltas read from perf_event fds the host passes in.
// The extra C ABI of an instrumented program:
//   struct dcw_event { uint32_t element, thread; int64_t start_ns, end_ns; int64_t counters[4]; };
//   extern "C" const dcw_event* dcw_profile_events(size_t* count);   // events since the last reset
//   extern "C" void dcw_profile_reset();                               // also clears the dropped count
//   extern "C" size_t dcw_profile_dropped();                           // events lost to a full buffer
//   extern "C" int dcw_profile_set_capacity(size_t events);           // 0 on success
//   extern "C" void dcw_profile_set_counters(const int* groupFds, int groups, int counters);
//   extern "C" size_t dcw_profile_element_count();                     // == GeneratedCode::profiled.size()
// `element` indexes GeneratedCode::profiled. Nothing is printed.
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

// One timed element of an instrumented program; its index is the event's `element` id.
struct ProfiledElement {
  enum class Kind { Model, State, Map, NestedSdfg, Tasklet, Copy };
  ir::ElementId element = ir::kNoId; // the root SDFG's id for the whole-model entry
  std::string path;
  std::string label;                 // the element's own label (last path segment)
  Kind kind = Kind::Model;
  int parent = -1;                   // the enclosing timed element (static nesting), -1 for the model
  bool masterOnly = false;           // inside an OpenMP parallel loop: only thread 0 records it
};
const char* profiledKindName(ProfiledElement::Kind k);

struct GeneratedCode {
  std::string source;
  std::vector<SourceMapEntry> sourceMap;
  ProgramSignature signature;
  std::vector<ProfiledElement> profiled; // empty when not instrumented; [0] is the whole model
  std::vector<std::string> linkFlags;    // the used environments' libraries ("-ldnnl"): append to the compile flags
};

// What an instrumented program times. Kind selections apply outside map scopes only (states of the
// root and of nested SDFGs, the top-level maps of a state — timed around the whole parallel loop —
// and nested SDFG nodes, which is what each expanded ONNX op becomes); explicit paths may name any
// state, map, nested SDFG node, tasklet or copy edge, also inside parallel loops (then only the
// thread that runs OpenMP thread 0 records). Whenever anything is selected the whole model is timed too.
struct Instrumentation {
  bool model = false;
  bool states = false;
  bool maps = false;
  bool nestedSdfgs = false;
  std::vector<std::string> paths;
  bool any() const { return model || states || maps || nestedSdfgs || !paths.empty(); }
};

struct CpuOptions {
  bool openmp = true;               // emit OpenMP pragmas for CpuMulticore (and Default top-level) maps
  Instrumentation instrument;       // default: nothing (the generated code carries no instrumentation)
};

// Fails (naming the node and op) when a library node is left unexpanded or an element cannot be
// generated.
Expected<GeneratedCode> generateCpp(const ir::Sdfg& sdfg, const CpuOptions& options = {});

} // namespace dcw::codegen
