// SdfgWalker: the target-neutral part of generating C++-family code (host C++, and the C++ dialects of
// CUDA and HLS) from a fully expanded SDFG — one walk shared by every target, as Halide's CodeGen_C
// is shared by its backends. It owns what does not depend on the target: the program's signature and
// C ABI entry point (GeneratedCode.h), control flow (structured chains, labelled blocks and gotos,
// loops, conditionals), symbols, scopes and the placement of transients by lifetime, nested SDFGs
// bound into their outer data, tasklets re-printed from their parsed code, fresh identifiers (never
// raw model text), C++ tasklets with the environments they use, the source map and the
// instrumentation table (Instrumenter).
//
// A target subclasses it and says what differs (the hooks below): how a map with its schedule becomes
// code, how a transient of a given storage is allocated, how copies and write-conflict resolution are
// done, when a write needs to be atomic, what runtime text precedes the program, and what a timer
// looks like. The CPU target is codegen/cpu/CppGenerator.cpp.
#pragma once

#include "codegen/GeneratedCode.h"
#include "codegen/Instrumenter.h"
#include "codegen/cpu/Runtime.h"
#include "codegen/cpu/TaskletPrinter.h"
#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/StateScopes.h"
#include "core/ir/Tasklet.h"
#include "core/support/Expected.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace dcw::expansions {
struct Environment;
}

namespace dcw::codegen {

// Paths in comments: a conservative character set, so no model string can end a comment or a line.
std::string commentText(std::string_view s);

class SdfgWalker {
public:
  virtual ~SdfgWalker() = default;
  Expected<GeneratedCode> run();

protected:
  SdfgWalker(const ir::Sdfg& root, std::string targetName, const Instrumentation& instrument);

  // One state's dataflow, grouped by map scope in topological order (map exits omitted).
  using StateInfo = ir::StateScopes;
  // What the code of one SDFG (the root or a nested one) sees.
  struct Ctx {
    const ir::Sdfg* sdfg = nullptr;
    std::map<std::string, std::string> data;      // data name -> C++ pointer
    std::map<std::string, std::string> symbols;   // symbol name -> C++ int64_t
    std::set<std::string> privateData;            // allocated per iteration of the current parallel loop
    std::set<std::string> safeOuter;              // nested data whose outer writes cannot conflict
    // Transient placement: per state, per scope (nullptr: the state's top level).
    std::map<const ir::State*, std::map<const ir::MapEntry*, std::vector<const ir::DataDescriptor*>>> scopeAlloc;
    std::vector<const ir::DataDescriptor*> sdfgAlloc;
    // The edges from views written through to the arrays they show (bound by bindView): they move nothing.
    std::set<const ir::DataflowEdge*> writtenThrough;
  };

  // ---- hooks: what a target says ----
  // Text before the entry point (the target's runtime helpers: dcw_rt::, and dcw_prof:: when timed).
  virtual void emitPrologue(bool instrumented) = 0;
  // A map with its schedule: loops around emitScope(si, &me), with allocateScope(si, &me) inside. The
  // walk is a work list (see then()): emitMap writes the loop heads and allocates, then hands over
  // emitScope and its own closing part as steps; `si` and `me` live until those have run.
  virtual Expected<void> emitMap(const StateInfo& si, const ir::MapEntry& me) = 0;
  // A transient of the data's storage, bound in `c.data`.
  virtual Expected<void> allocate(const ir::DataDescriptor& d, Ctx& c) = 0;
  // Called when a state opens, before its top-level transients are allocated: a target may plan their
  // storage together (the CPU target's arena by lifetime). Nothing by default.
  virtual Expected<void> planStateStorage(const StateInfo& si) {
    (void)si;
    return {};
  }
  // A view (core/ir/View.h): bound to the storage of the array it shows, which is bound already (views
  // come last in every allocation list). A target whose storage cannot be shared refuses it.
  virtual Expected<void> bindView(const ir::DataDescriptor& d, Ctx& c);
  // An access-node-to-access-node copy.
  virtual Expected<void> emitCopy(const StateInfo& si, const ir::DataflowEdge& e, const ir::AccessNode& src,
                                  const ir::AccessNode& dst) = 0;
  // `lvalue = value`, or its write-conflict resolution (sum, prod, min, max, a lambda), atomically when asked.
  virtual Expected<void> emitWrite(const ir::DataDescriptor& d, const std::string& lvalue, const std::string& value,
                                   cpu::ValueKind kind, const std::string& wcr, bool atomic, const std::string& where) = 0;
  // Whether a write to `data` at `subset` may race with another iteration running at the same time.
  virtual bool needsAtomic(const std::string& data, const ir::Subset& subset) const = 0;
  // Inside a loop whose iterations run in parallel (then failures set a flag instead of returning).
  virtual bool insideParallelLoop() const = 0;
  // The statement that times the enclosing block as profiled element `index`.
  virtual std::string timerStatement(int index, const std::string& localName, bool masterOnly) const = 0;
  // Whether stream data may be allocated where the walk is now (FPGA kernels); a tasklet pops its
  // stream inputs (`s.read()`) and pushes its stream outputs (`s.write(v)`).
  virtual bool streamsAllowed() const { return false; }
  // The first statements of dcw_program (after the status reset) and the last before it returns
  // success (a target with a device: its readiness, and waiting for the device's work).
  // The element that interstate control flow (a condition, an assignment, a loop bound) reads of data
  // `name` at `pointer`: `pointer[0]`; a target whose data may live where the host cannot read it
  // (GPU memory) fetches it.
  virtual std::string controlFlowRead(const std::string& name, const std::string& pointer) const { return pointer + "[0]"; }
  virtual void emitProgramStart() {}
  virtual void emitProgramEnd() {}
  // One state of the control flow: a block of the entry point (a target with device code replaces a
  // device state by a launch, writing the kernel with defer()).
  virtual Expected<void> emitState(const ir::State& st);

  // ---- output ----
  void line(const std::string& s) {
    if (!s.empty() && s[0] == '#') out_ += s; // pragmas start in column 1
    else out_ += std::string(static_cast<size_t>(indent_) * 2, ' ') + s;
    out_ += '\n';
    ++line_;
  }
  void raw(std::string_view text) {
    out_ += text;
    if (!text.empty() && text.back() != '\n') out_ += '\n';
    line_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++line_;
  }
  int nextLine() const { return line_ + 1; }
  void record(int first, ir::ElementId id) {
    if (line_ < first) return;
    sourceMap_.push_back({first, line_, id, paths_.pathOf(id), {}});
  }
  std::string path(ir::ElementId id) const {
    const std::string& p = paths_.pathOf(id);
    return p.empty() ? std::string(root_.name()) : p;
  }
  // A fresh identifier for the whole program (no shadowing anywhere), from a hint.
  std::string fresh(const std::string& hint);
  void reserve(std::initializer_list<const char*> names) {
    for (const char* n : names) used_.insert(n);
  }

  // ---- definitions that precede the entry point ----
  // Code written during the walk that must come before dcw_program (e.g. a device kernel written when
  // the walk reaches its state): run() places `text`, whose source map `map` counts lines from the
  // text's first line, before the entry point.
  void defer(const std::string& text, std::vector<SourceMapEntry> map);
  // While writing device code: no dcw_rt::at progress marks (device code has no host runtime).
  bool progressMarks_ = true;
  // While writing device code (an FPGA or GPU kernel, set by aside()).
  bool inKernel_ = false;

  // Code written aside from the walk's output (a kernel, a processing element): its text and source
  // map with lines counted from its first line.
  struct Fragment {
    std::string text;
    std::vector<SourceMapEntry> map;
  };
  static void append(Fragment& to, Fragment from);
  // Runs `body` as device code (inKernel_, no progress marks) with the output, lines, source map, map
  // depth and work list swapped out and `ctx` as the context; restores them after.
  Expected<Fragment> aside(Ctx& ctx, const std::function<Expected<void>()>& body);
  // A state's scopes, shared by the steps that refer to them.
  Expected<std::shared_ptr<StateInfo>> stateInfo(const ir::State& st);

  // ---- data-dependent extents (core/ir/DynamicExtent.h) ----
  // `e` with every extent of the root replaced by its bound: what an allocation made before the
  // count is known must hold.
  sym::Expr atBounds(const sym::Expr& e) const;
  Expected<void> emitExtent(const std::string& symbol, const std::string& id, const std::string& where);

  // ---- expressions ----
  Expected<std::string> sym(const sym::Expr& e, const std::string& where);
  Expected<std::string> offsetOf(const ir::DataDescriptor& d, const std::vector<sym::Expr>& index, const std::string& where);
  Expected<std::string> offsetOf(const ir::DataDescriptor& d, const ir::Subset& s, const std::string& where);
  Expected<const ir::DataDescriptor*> descriptor(const std::string& name, const std::string& where) const;
  Expected<std::string> pointer(const std::string& name, const std::string& where) const;

  // ---- the walk: a work list, not recursion ----
  // Nested SDFGs, regions and maps nest as deep as the model's subgraphs (1,000 levels and more once
  // If/Loop bodies are expanded), and a recursive walk ran out of stack. So an emit function writes
  // its part up to its first child, hands the rest to then() as steps (each child, the parts between,
  // its own closing part, in order) and returns; drive() runs the steps, each before anything handed
  // over earlier, so the output is what the recursion wrote. A function that hands over steps is
  // called only as the last thing its caller does (or from a step).
  using Step = std::function<Expected<void>()>;
  void then(std::vector<Step> steps);
  Expected<void> drive();

  // ---- structure ----
  Expected<void> emitSdfgBody(const ir::Sdfg& s, Ctx& c, const std::set<std::string>& predeclared);
  Expected<void> planTransients(const ir::Sdfg& s, Ctx& c);
  // A constant of a nested SDFG, embedded in the program (a target may hold it otherwise: HLS as a ROM).
  virtual Expected<void> embedConstant(const ir::DataDescriptor& d, Ctx& c);
  Expected<void> emitRegion(const ir::ControlFlowRegion& r);
  Expected<void> emitBlock(const ir::ControlFlowBlock& b);
  Expected<void> emitAssignments(const ir::InterstateEdge& e);
  // A step per node of the scope (a target may run a state's top-level nodes in groups of its own: the
  // CPU target's concurrent branches).
  virtual Expected<void> emitScope(const StateInfo& si, const ir::MapEntry* scope);
  // One node of a scope (a target with device code may launch a top-level node as a kernel of its own).
  virtual Expected<void> emitNode(const StateInfo& si, const ir::Node& n);
  // The transients placed in this scope of the state (nullptr: its top level).
  Expected<void> allocateScope(const StateInfo& si, const ir::MapEntry* scope);
  Expected<void> allocateOrBind(const ir::DataDescriptor& d, Ctx& c); // allocate, or bindView for a view
  Expected<void> emitTasklet(const StateInfo& si, const ir::Tasklet& t);
  // C++ tasklets (ir::Tasklet language cpp): pasted verbatim in a block of their own, after the
  // prologue of the environments they use (includes, globals, dcw_init / dcw_teardown).
  Expected<void> emitCppTasklet(const StateInfo& si, const ir::Tasklet& t);
  Expected<void> collectEnvironments();
  void emitEnvironments();
  // The #include lines of a program with C++ tasklets (emitEnvironments' own and the environments'
  // headers), once: a target may put them in its prologue, ahead of everything, so that they join the
  // program's leading block of includes (precompiled by the build: codegen/cpu/Compiler.h).
  void emitEnvironmentIncludes();
  Expected<void> emitNested(const StateInfo& si, const ir::NestedSdfgNode& n);
  void collectSubtree(const StateInfo& si, const ir::MapEntry* scope, std::vector<const ir::Node*>& out) const;

  // Records the element as the one running now (dcw_rt::at), outside map scopes only: a store per
  // state, op, top-level map or copy, none per iteration. A host reads it after a crash or a hang.
  void markProgress(ir::ElementId id) {
    if (progressMarks_ && mapDepth_ == 0 && !insideParallelLoop()) line("dcw_rt::at(" + std::to_string(id) + ");");
  }

  // ---- instrumentation ----
  bool wantProfile(ProfiledElement::Kind k, ir::ElementId id) const {
    if (inKernel_ && !streamsAllowed()) return false; // a GPU kernel has no host timers
    return instrumenter_.wants(k, id, insideParallelLoop() || mapDepth_ > 0);
  }
  // Only when a path names it: a tasklet of DCW's own code (a library call's C++ tasklet is timed
  // with the library nodes; one of a few operations, too short for a timer of its own, is not).
  bool wantProfileNamed(ir::ElementId id) const { return !(inKernel_ && !streamsAllowed()) && instrumenter_.named(id); }
  void beginProfile(ProfiledElement::Kind k, ir::ElementId id);
  void endProfile() { instrumenter_.end(); }

  const ir::Sdfg& root_;
  std::string targetName_;
  ir::PathIndex paths_;
  Instrumenter instrumenter_;
  std::set<std::string> used_;
  std::unordered_map<std::string, int> nextSuffix_; // base -> next k to try for base_k (see fresh)
  std::string out_;
  int line_ = 0;
  int indent_ = 0;
  int labels_ = 0;
  int mapDepth_ = 0; // maps entered around the code being emitted
  std::vector<SourceMapEntry> sourceMap_;
  std::string deferred_;                   // see defer()
  int deferredLines_ = 0;
  std::vector<SourceMapEntry> deferredMap_; // lines counted from the deferred text's first line
  std::vector<Step> steps_; // the work list, next step last
  Ctx* ctx_ = nullptr;
  // C++ tasklets and the environments they use, in order of first use.
  bool hasCpp_ = false;
  bool environmentIncludesEmitted_ = false;
  std::string extentsId_;                      // the program's extents array, if it has extents
  std::vector<ProgramExtent> extents_;         // the signature's, by slot
  std::map<std::string, size_t> extentIndex_;  // extent symbol -> its slot
  std::map<std::string, sym::Expr> extentBounds_; // extent symbol -> its bound
  std::vector<const expansions::Environment*> envs_;
};

} // namespace dcw::codegen
