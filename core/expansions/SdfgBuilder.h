// SdfgBuilder: writes a fresh SDFG concisely — states, transients and mapped tasklets (DaCe's
// add_mapped_tasklet: a map over parameter ranges with one tasklet inside, its inputs and outputs as
// memlets). For an expansion it starts from the library node's connectors (one non-transient
// descriptor per connected connector, shaped like the outer data, and the outer symbols); standalone
// (a transformation's new nested SDFG, a test fixture) it starts empty and the caller declares the
// data and arguments on sdfg().
//
//   SdfgBuilder b(ctx);                                   // or: SdfgBuilder b("fused", where);
//   b.mappedTasklet("relu", {{"i0", Range::full(N)}}, {{"x", "X", "i0"}}, "y = max(x, 0)", {{"y", "Y", "i0"}});
//   return b.finish();
#pragma once

#include "core/expansions/Expansion.h"
#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/State.h"

#include <string>
#include <vector>

namespace dcw::expansions {

struct MapParam {
  std::string name;
  ir::Range range;
};

struct TaskletIn {
  std::string connector; // tasklet connector
  std::string data;      // data container
  std::string subset;    // subset text in the map parameters, e.g. "i0, 0, j" ("" = whole container)
};

struct TaskletOut {
  std::string connector;
  std::string data;
  std::string subset;
  std::string wcr;       // "" or "sum", "prod", "min", "max"
};

class SdfgBuilder {
public:
  // The nested SDFG of the expansion `ctx` (named after the op unless `name` is given).
  explicit SdfgBuilder(const ExpansionContext& ctx, std::string name = {});
  // An empty SDFG `name`, no library node involved; `where` locates the builder's errors (a path).
  explicit SdfgBuilder(std::string name, std::string where = {});

  ir::Sdfg& sdfg() { return *sdfg_; }
  bool hasContext() const { return ctx_ != nullptr; }
  const ExpansionContext& context() const { return *ctx_; } // only when hasContext()
  ir::State& state() { return *state_; }
  // Starts a new state that runs after the current one.
  ir::State& nextState(std::string label = {});

  // Shape and dtype of a container of the nested SDFG.
  const ir::DataDescriptor& data(const std::string& name) const;
  // Adds a transient array (or scalar for an empty shape); returns its (unique) name.
  std::string transient(const std::string& base, ir::DType dtype, std::vector<sym::Expr> shape);

  // A map over `params` with one tasklet; `code` is tasklet language (core/tasklet/TaskletCode.h).
  // With no params, the tasklet runs once without a map. Access nodes are shared per state: one read
  // node per input container, one write node per output container.
  void mappedTasklet(const std::string& label, const std::vector<MapParam>& params, const std::vector<TaskletIn>& inputs,
                     const std::string& code, const std::vector<TaskletOut>& outputs,
                     ir::Schedule schedule = ir::Schedule::CpuMulticore);
  // One C++ tasklet (ir::Tasklet, language cpp) outside any map, reading and writing whole containers;
  // each connector is named after its container (an Array becomes a typed pointer in the code, a
  // Scalar a value). `environments`, `flops` and `inPlace` are declared on the tasklet (see ir::Tasklet).
  void cppTasklet(const std::string& label, const std::vector<std::string>& inputs, const std::string& code,
                  const std::vector<std::string>& outputs, std::vector<std::string> environments,
                  std::optional<sym::Expr> flops, std::vector<std::pair<std::string, std::string>> inPlace = {});
  // Copies a whole container into another of the same size (reshape-like views become copies).
  void copy(const std::string& src, const std::string& dst);

  // Fails with the first subset or code error met while building (they are recorded, not thrown).
  Expected<std::unique_ptr<ir::Sdfg>> finish();

private:
  ir::AccessNode& reader(const std::string& data);
  ir::AccessNode& writer(const std::string& data);
  std::string uniqueLabel(const std::string& base);

  const ExpansionContext* ctx_ = nullptr;
  std::string where_; // where errors are located
  std::unique_ptr<ir::Sdfg> sdfg_;
  ir::State* state_ = nullptr;
  std::map<std::string, ir::AccessNode*> readers_, writers_;
  std::optional<Diagnostic> error_;
  int labelCounter_ = 0;
};

// Index helpers for writing subsets: "i0, i1, i2" for the first `rank` parameters named `prefix`k.
std::vector<MapParam> fullRangeParams(const std::vector<sym::Expr>& shape, const std::string& prefix = "i");
std::string indexList(size_t rank, const std::string& prefix = "i");
// The subset of an input broadcast (numpy rules) to an output of rank `outRank` indexed by `prefix`k:
// dims of size 1 where the output is larger read index 0.
std::string broadcastSubset(const std::vector<sym::Expr>& inShape, const std::vector<sym::Expr>& outShape,
                            const std::string& prefix = "i");

} // namespace dcw::expansions
