// GeneratedCode: what a target's generator produces — the sources, a source map from generated lines
// to element paths, the program's signature (arguments and symbols) and, when instrumented, the
// table of timed elements. Target-neutral: every target builds a shared library with this C ABI, so
// one loader (LoadedProgram) and one executor run them all.
//
// The entry point (C ABI):
//   extern "C" int dcw_program(void* const* args, const int64_t* symbols, char* error, size_t errorSize);
//   extern "C" void dcw_set_threads(int n);
// `args` holds one pointer per ProgramSignature::args entry, in order; `symbols` one value per
// ProgramSignature::symbols entry. Transients are allocated inside by lifetime. Returns 0 on success,
// otherwise writes a message to `error`. When the program has data-dependent extents
// (ProgramSignature::extents, core/ir/DynamicExtent.h), `args` holds one more pointer after those of
// the arguments: an int64_t array with one slot per extent, into which the program writes each count
// once it is known. Outputs whose shape uses one are allocated by the caller at the bound and hold
// the result packed at the actual dims (row-major), i.e. in their first elements.
//   extern "C" void dcw_set_progress_slot(volatile int64_t* slot);
// makes the program record, in `*slot`, the id of the element it is in (states, and ops, maps and
// copies outside parallel loops), so that a host running it in another process can name the element
// after a crash or a hang (codegen/run/WorkerProcess.h).
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
// fails ("dcw_init was not called") while no dcw_init is outstanding. An exception thrown by a C++
// tasklet fails the run with the tasklet's path and the exception's message. Such a program must be
// linked with GeneratedCode::linkFlags (the environments' libraries; the target's build adds them).
// Programs without C++ tasklets have neither entry point.
//
// Instrumentation (GenerateOptions::instrument; off by default, and then the generated code is exactly
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

#include <string>
#include <vector>

namespace dcw::codegen {

struct ProgramArg {
  enum class Role { Input, Output, Constant };
  std::string name;                 // data descriptor name in the root SDFG
  Role role = Role::Input;
  ir::DType dtype = ir::DType::Float32;
  std::vector<sym::Expr> shape;     // symbolic, in root-SDFG symbols
};

struct ProgramExtent {
  std::string symbol;               // a root symbol the program assigns (not in ProgramSignature::symbols)
  sym::Expr bound;                  // in the symbols of ProgramSignature::symbols
  std::string node;                 // the op whose count it is
};

struct ProgramSignature {
  std::vector<ProgramArg> args;     // inputs (Sdfg::inputs order), outputs (Sdfg::outputs), constants (data order)
  std::vector<std::string> symbols; // root SDFG symbols the caller gives, by name
  std::vector<ProgramExtent> extents; // data-dependent root symbols the program returns, by name
};

struct SourceMapEntry {
  int firstLine = 0;                // 1-based, inclusive
  int lastLine = 0;
  ir::ElementId element = ir::kNoId;
  std::string path;
  std::string file;                 // GeneratedCode::extraFiles name; empty: the main source
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

// A further source file of a program (e.g. device kernels next to the host code).
struct GeneratedFile {
  std::string name;                 // a plain file name, e.g. "kernels.cu"
  std::string text;
};

struct GeneratedCode {
  std::string target;               // the Target that generated it ("cpu", ...)
  std::string mainFile = "program.cpp";
  std::string source;               // the main translation unit (host code; the C ABI above)
  std::vector<GeneratedFile> extraFiles;
  std::vector<SourceMapEntry> sourceMap;
  ProgramSignature signature;
  std::vector<ProfiledElement> profiled; // empty when not instrumented; [0] is the whole model
  std::vector<std::string> linkFlags;    // the used environments' libraries ("-ldnnl"): the target's build appends them
};

// What an instrumented program times. Kind selections apply outside map scopes only (states of the
// root and of nested SDFGs, the top-level maps of a state — timed around the whole parallel loop —
// and the library nodes: a nested SDFG node, which is what a `pure` expansion becomes, or a tasklet
// outside any map, which is what a library call such as a `onednn` implementation becomes);
// explicit paths may name any state, map, nested SDFG node, tasklet or copy edge, also inside
// parallel loops (then only the thread that runs OpenMP thread 0 records). Whenever anything is
// selected the whole model is timed too.
struct Instrumentation {
  bool model = false;
  bool states = false;
  bool maps = false;
  bool nestedSdfgs = false;
  bool tasklets = false; // tasklets outside maps (library calls)
  std::vector<std::string> paths;
  bool any() const { return model || states || maps || nestedSdfgs || tasklets || !paths.empty(); }
};

} // namespace dcw::codegen
