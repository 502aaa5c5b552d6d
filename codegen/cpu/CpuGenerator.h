// CpuGenerator: the CPU target's policy on the shared walk (codegen/SdfgWalker.h), as a class that other
// targets' generators derive from when their host code is CPU code (the FPGA targets' HlsGenerator).
// Code that only needs to generate CPU code calls generateCpp (codegen/cpu/CppGenerator.h).
#pragma once

#include "codegen/ConcurrentBranches.h"
#include "codegen/SdfgWalker.h"
#include "codegen/cpu/CppGenerator.h"
#include "core/analysis/Cost.h"

#include <optional>

namespace dcw::codegen {

// The OpenMP loop being emitted, if any.
struct Parallel {
  bool active = false;
  const void* ctx = nullptr;      // the Ctx the loop was opened in
  std::set<std::string> params;   // the parameters distributed over threads
  std::set<std::string> varying;  // every parameter that changes inside the parallel loop
};

class CpuGenerator : public SdfgWalker {
public:
  CpuGenerator(const ir::Sdfg& root, const CpuOptions& o, std::string targetName = "cpu");

  // Extent of the data's buffer in elements: offset + the furthest element + 1 (the plain product for
  // contiguous strides).
  static sym::Expr storageExtent(const ir::DataDescriptor& d);

protected:
  void emitPrologue(bool instrumented) override;
  Expected<void> emitMap(const StateInfo& si, const ir::MapEntry& me) override;
  Expected<void> allocate(const ir::DataDescriptor& d, Ctx& c) override;
  Expected<void> emitCopy(const StateInfo& si, const ir::DataflowEdge& e, const ir::AccessNode& src, const ir::AccessNode& dst) override;
  Expected<void> emitWrite(const ir::DataDescriptor& d, const std::string& lvalue, const std::string& value, cpu::ValueKind kind,
                           const std::string& wcr, bool atomic, const std::string& where) override;
  bool needsAtomic(const std::string& data, const ir::Subset& subset) const override;
  bool insideParallelLoop() const override { return par_.active; }
  std::string timerStatement(int index, const std::string& local, bool masterOnly) const override;
  // The first lines inside a map's loop nest, before its body (HLS: the loop's pipeline and unroll
  // pragmas); nothing on the CPU.
  virtual void loopBody(const StateInfo& si, const ir::MapEntry& me) { (void)si, (void)me; }

  // A copy edge's two sides: descriptors and subsets (a missing subset is the whole array).
  struct CopyPlan {
    const ir::DataDescriptor* src = nullptr;
    const ir::DataDescriptor* dst = nullptr;
    ir::Subset ss, ds;
  };
  Expected<CopyPlan> planCopy(const ir::DataflowEdge& e, const ir::AccessNode& src, const ir::AccessNode& dst);
  // Whether `s` of `d` is one block of consecutive elements.
  static bool contiguousSubset(const ir::DataDescriptor& d, const ir::Subset& s);
  // The element of `s` at flat position `q` (row-major over the subset's sizes).
  static std::vector<sym::Expr> flatIndex(const ir::Subset& s, const sym::Expr& q);
  // How many of the map's leading parameters have ranges that do not depend on earlier parameters
  // (those a parallel loop may collapse, or a GPU grid linearise).
  static int independentParams(const ir::MapEntry& me);
  // analysis::writesDistinct: iterations that differ in `params` write distinct elements of `s`.
  static bool conflictFree(const ir::Subset& s, const std::set<std::string>& params, const std::set<std::string>& varying);
  int chooseCollapse(const StateInfo& si, const ir::MapEntry& me, int independent);
  static int enoughCollapse(const ir::MapEntry& me, int collapse);
  const std::set<std::string>& writtenWhole(const ir::Sdfg& s);
  std::map<const ir::Sdfg*, std::set<std::string>> writtenWhole_;

  // The arena of the state being opened: one block for its top-level transients of the root SDFG that
  // are written whole before they are read, each at an offset where no transient alive at the same
  // time lies (lifetimes: the positions of the state's top-level nodes that touch them, views counted
  // for the arrays they show). An output a C++ tasklet lets take an input's storage (ir::Tasklet::inPlace)
  // shares the input's slot where the tasklet is the input's last use and the output's first and the two
  // are laid out alike. Planned by planStateStorage, used by allocate.
  Expected<void> planStateStorage(const StateInfo& si) override;
  struct ArenaSlot {
    std::string base; // the arena block's pointer (unsigned char*)
    int64_t offset = 0;
  };
  std::map<const ir::DataDescriptor*, ArenaSlot> arena_;

  // Whether the map's whole scope is known to cost less than waking the thread team does (a squeeze-and-
  // excitation block's maps on one pixel, a recurrent step on a few dozen values): such a map runs on the
  // calling thread even when its schedule allows the cores (cpu_multicore, or default at the top).
  // From the static cost (core/analysis/Cost.h): FLOPs plus elements moved, when free of symbols.
  bool tooSmallForThreads(const ir::MapEntry& me);
  std::optional<analysis::CostReport> cost_;

  // Concurrent branches (codegen/ConcurrentBranches.h) at the top level of the root SDFG's states, for
  // the usable cores at generation: planned when a state opens (planStateStorage, so that the arena
  // counts the transients of a group's branches as alive together) and emitted by emitScope as one
  // parallel region whose threads each run their share, or its nodes one after another, as the first
  // runs measured faster (dcw_rt::branch_team; always one after another on another thread count).
  Expected<void> emitScope(const StateInfo& si, const ir::MapEntry* scope) override;
  const std::vector<BranchGroup>& branchesOf(const StateInfo& si);
  // A top-level node's estimated seconds on one thread, or nullopt where it cannot run in a branch.
  std::optional<double> branchSeconds(const StateInfo& si, const ir::Node& n);
  std::map<const ir::State*, std::vector<BranchGroup>> branches_;
  int plannedThreads_ = 0;

  CpuOptions opt_;
  Parallel par_;
};


} // namespace dcw::codegen
