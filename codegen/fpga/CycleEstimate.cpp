#include "codegen/fpga/CycleEstimate.h"

#include "codegen/fpga/HlsGenerator.h"
#include "core/ir/AccessNode.h"
#include "core/ir/ControlFlow.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/ir/StateScopes.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>

namespace dcw::codegen {

using namespace dcw::ir;

int operatorLatency(const std::string& op, bool floating, bool dbl) {
  static const std::set<std::string> wiring = {"select", "bool",  "int8",   "int16",   "int32",  "int64", "uint8",
                                               "uint16", "uint32", "uint64", "float16", "bfloat16", "!",     "abs"};
  if (wiring.count(op)) return 0;
  if (op == "float32" || op == "float64") return floating ? 0 : 4; // an integer to float conversion
  if (!floating) {
    if (op == "*") return 3;
    if (op == "/" || op == "%") return 36;
    if (op == "+" || op == "-" || op == "min" || op == "max" || op == "relu" || op == "sign") return 1;
    if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=" || op == "&&" || op == "||") return 1;
    return 4;
  }
  if (op == "+" || op == "-") return dbl ? 5 : 4;
  if (op == "*") return dbl ? 6 : 3;
  if (op == "/" || op == "fmod") return dbl ? 29 : 12;
  if (op == "sqrt") return dbl ? 29 : 12;
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=" || op == "min" || op == "max" ||
      op == "relu" || op == "sign" || op == "isnan" || op == "isinf" || op == "&&" || op == "||")
    return 1;
  if (op == "exp" || op == "log") return dbl ? 18 : 10;
  if (op == "sigmoid") return dbl ? 48 : 26; // exp, add, divide
  if (op == "floor" || op == "ceil" || op == "round" || op == "trunc") return 2;
  if (op == "pow") return dbl ? 60 : 30;
  return dbl ? 40 : 20; // tanh, erf, trigonometric and hyperbolic functions
}

namespace {

// Resources of one operator instance (UltraScale+ at 300 MHz, Vitis HLS defaults: full-DSP float units).
FpgaResources operatorResources(const std::string& op, bool floating, bool dbl) {
  if (operatorLatency(op, floating, dbl) == 0) return {};
  if (!floating) {
    if (op == "*") return {3, 40, 80, 0, 0};
    if (op == "/" || op == "%") return {0, 1100, 2200, 0, 0};
    return {0, 40, 64, 0, 0};
  }
  const int64_t s = dbl ? 2 : 1;
  if (op == "+" || op == "-") return {2 * s + (dbl ? 1 : 0), 220 * s, 330 * s, 0, 0};
  if (op == "*") return {3 * s + (dbl ? 5 : 0), 80 * s, 150 * s, 0, 0};
  if (op == "/" || op == "fmod" || op == "sqrt") return {0, 800 * s * s, 1300 * s * s, 0, 0};
  if (op == "exp" || op == "log") return {7 * s, 900 * s, 1200 * s, 0, 0};
  if (op == "sigmoid") return {9 * s, 1900 * s, 2800 * s, 0, 0};
  if (op == "floor" || op == "ceil" || op == "round" || op == "trunc") return {0, 120 * s, 100 * s, 0, 0};
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=" || op == "min" || op == "max" || op == "relu")
    return {0, 70 * s, 66 * s, 0, 0};
  return {12 * s, 2500 * s, 3500 * s, 0, 0};
}

constexpr int kGlobalReadLatency = kFpgaGlobalReadLatency;
constexpr int kLocalReadLatency = 2;
constexpr int kWriteLatency = kFpgaWriteLatency;
constexpr int kStreamLatency = 2; // a FIFO's write-to-read latency

struct TaskletCost {
  int64_t depth = 0;
  FpgaResources resources;
};

class Estimator {
public:
  Estimator(const Sdfg& root, const FpgaDevice& dev, FpgaEstimate& out) : root_(root), dev_(dev), out_(out), paths_(root) {}

  // Values of symbols and map parameters, and where each visible data name lives.
  struct Env {
    std::map<std::string, int64_t> values;
    std::map<std::string, bool> global; // data name -> in global (off-chip) memory
    std::map<std::string, int> bank;    // data name -> its memory bank (global data)
    const Sdfg* sdfg = nullptr;
    int64_t executions = 1;             // how often this code runs per launch
  };

  Expected<void> run(const std::map<std::string, int64_t>& symbols) {
    Env env;
    env.values = symbols;
    env.sdfg = &root_;
    for (auto& d : root_.data()) {
      env.global[d->name()] = d->storage == StorageType::FpgaGlobal || !d->transient;
      env.bank[d->name()] = std::max(d->memoryBank, 0);
    }
    return launches(root_, env, 1);
  }

private:
  // The root's control flow: which device states launch how often.
  Expected<void> launches(const ControlFlowBlock& b, Env& env, int64_t times) {
    if (auto* st = dynamic_cast<const State*>(&b)) {
      if (!isDeviceState(root_, *st)) return {};
      KernelEstimate k;
      k.state = st->id();
      k.statePath = paths_.pathOf(st->id());
      k.launches = times;
      kernel_ = &k;
      Env inner = env;
      auto c = stateCycles(*st, inner);
      if (!c) return c.takeError();
      k.cycles = *c;
      k.seconds = double(k.cycles) * double(times) / (dev_.clockMHz * 1e6);
      // An m_axi adapter per argument (read and write channels, burst buffers).
      std::set<std::string> args;
      for (auto& n : st->nodes())
        if (auto* a = dynamic_cast<const AccessNode*>(n.get())) args.insert(a->data());
      k.resources += FpgaResources{0, 1800 * int64_t(args.size()), 2600 * int64_t(args.size()), 2 * int64_t(args.size()), 0};
      // The kernel's own on-chip arrays (transients outside global memory; streams are FIFOs).
      for (const std::string& name : args)
        if (const DataDescriptor* d = root_.findData(name); d && d->transient && !d->constant && d->dataKind == DataKind::Array &&
                                                            d->storage != StorageType::FpgaGlobal)
          k.resources += onChip(*d, inner);
      out_.resources += k.resources;
      out_.cycles += k.cycles * times;
      out_.seconds += k.seconds;
      out_.kernels.push_back(std::move(k));
      kernel_ = nullptr;
      return {};
    }
    return forBlocks(b, env, times, [this](const ControlFlowBlock& c, Env& e, int64_t t) { return launches(c, e, t); });
  }

  // Runs `f` on the blocks inside `b` (a region's blocks once, a loop's body trip times, each branch).
  template <class F>
  Expected<void> forBlocks(const ControlFlowBlock& b, Env& env, int64_t times, F&& f) {
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      int64_t n = times;
      if (auto* l = dynamic_cast<const LoopRegion*>(r)) n = times * loopTrips(*l, env);
      for (auto& c : r->blocks()) DCW_CHECK(f(*c, env, n));
    } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : c->branches()) DCW_CHECK(f(*br, env, times));
    }
    return {};
  }

  int64_t loopTrips(const LoopRegion& l, const Env& env) {
    if (l.loopVariable.empty()) return note("loop " + paths_.pathOf(l.id()) + " is a while-loop; its body is counted once"), 1;
    auto values = env.values;
    auto v = l.init.evaluate(values);
    if (!v) return note("the start of loop " + paths_.pathOf(l.id()) + " is unknown; its body is counted once"), 1;
    int64_t trips = 0;
    for (; trips < 100000000; ++trips) {
      values[l.loopVariable] = *v;
      auto c = l.condition.evaluate(values);
      if (!c) return note("the condition of loop " + paths_.pathOf(l.id()) + " is unknown; its body is counted once"), 1;
      if (!*c) break;
      auto next = l.update.evaluate(values);
      if (!next) return note("the update of loop " + paths_.pathOf(l.id()) + " is unknown; its body is counted once"), 1;
      v = *next;
    }
    return std::max<int64_t>(trips, 1);
  }

  // A nested SDFG's (or a state's) time: its blocks one after the other.
  Expected<int64_t> regionCycles(const ControlFlowBlock& b, Env& env) {
    if (auto* st = dynamic_cast<const State*>(&b)) return stateCycles(*st, env);
    if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
      int64_t most = 0;
      for (auto& br : c->branches()) {
        auto x = regionCycles(*br, env);
        if (!x) return x;
        most = std::max(most, *x);
      }
      return most + 1;
    }
    auto* r = dynamic_cast<const ControlFlowRegion*>(&b);
    if (!r) return int64_t(0);
    int64_t trips = 1;
    if (auto* l = dynamic_cast<const LoopRegion*>(r)) trips = loopTrips(*l, env);
    const int64_t saved = env.executions;
    env.executions *= trips;
    int64_t body = 0;
    for (auto& c : r->blocks()) {
      auto x = regionCycles(*c, env);
      if (!x) return x;
      body += *x;
    }
    env.executions = saved;
    return trips * (body + (trips > 1 ? 1 : 0));
  }

  using Scopes = StateScopes;

  Expected<int64_t> stateCycles(const State& st, Env& env) {
    auto scopes = StateScopes::of(st);
    if (!scopes) return scopes.takeError();
    Scopes& s = *scopes;
    // A dataflow state runs its processing elements side by side: it takes as long as the slowest
    // (plus a few cycles for the streams' first elements); any other runs its nodes one after another.
    auto pes = env.sdfg ? dataflowElements(*env.sdfg, st) : std::vector<std::vector<const Node*>>{};
    if (pes.empty()) pes.push_back(s.children[nullptr]);
    int64_t slowest = 0;
    for (auto& pe : pes) {
      int64_t total = 0;
      for (const Node* n : pe) {
        auto c = nodeCycles(st, s, *n, env);
        if (!c) return c;
        total += *c;
      }
      slowest = std::max(slowest, total);
    }
    return slowest + (pes.size() > 1 ? kStreamLatency * int64_t(pes.size() - 1) : 0);
  }

  Expected<int64_t> nodeCycles(const State& st, Scopes& s, const Node& n, Env& env) {
    if (auto* a = dynamic_cast<const AccessNode*>(&n)) {
      int64_t cycles = 0;
      for (auto* e : st.inEdges(a->id())) {
        const Node* src = st.node(e->src);
        if (!src || src->kind() != ElementKind::AccessNode || e->memlet.isEmpty()) continue;
        int64_t elements = evaluate(e->memlet.volume, env, "copy into " + a->data());
        const DataDescriptor* d = env.sdfg->findData(a->data());
        const double bytesPerCycle = bankBytesPerCycle(bankOf(a->data(), env));
        const int64_t width = d ? int64_t(dtypeSize(d->dtype)) : 4;
        cycles += std::max<int64_t>(elements, int64_t(std::ceil(double(elements * width) / bytesPerCycle))) + kGlobalReadLatency;
      }
      return cycles;
    }
    if (auto* t = dynamic_cast<const Tasklet*>(&n)) {
      TaskletCost c = taskletCost(st, *t, env);
      if (kernel_) kernel_->resources += c.resources;
      return c.depth;
    }
    if (auto* me = dynamic_cast<const MapEntry*>(&n)) return mapCycles(st, s, *me, env);
    if (auto* ns = dynamic_cast<const NestedSdfgNode*>(&n)) {
      Env inner;
      inner.sdfg = &ns->sdfg();
      inner.executions = env.executions;
      for (auto& [name, v] : env.values) inner.values[name] = v; // unmapped symbols keep their outer value
      for (auto& [name, expr] : ns->symbolMapping)
        if (auto v = expr.evaluate(env.values)) inner.values[name] = *v;
      for (auto* e : st.inEdges(ns->id()))
        if (!e->memlet.isEmpty()) {
          inner.global[e->dstConnector] = isGlobal(e->memlet.data, env);
          inner.bank[e->dstConnector] = bankOf(e->memlet.data, env);
        }
      for (auto* e : st.outEdges(ns->id()))
        if (!e->memlet.isEmpty()) {
          inner.global[e->srcConnector] = isGlobal(e->memlet.data, env);
          inner.bank[e->srcConnector] = bankOf(e->memlet.data, env);
        }
      for (auto& d : ns->sdfg().data())
        if (d->transient) {
          inner.global[d->name()] = d->storage == StorageType::FpgaGlobal;
          if (kernel_ && d->storage != StorageType::FpgaGlobal) kernel_->resources += onChip(*d, inner);
        }
      return regionCycles(ns->sdfg(), inner);
    }
    return int64_t(0);
  }

  int bankOf(const std::string& data, const Env& env) const {
    auto it = env.bank.find(data);
    return it == env.bank.end() ? 0 : it->second;
  }

  // A memory bank's bytes per kernel clock cycle (bank 0's for a bank the board lacks, with a note).
  double bankBytesPerCycle(int bank) {
    if (dev_.banks.empty()) return 64;
    if (bank >= int(dev_.banks.size())) {
      note("memory bank " + std::to_string(bank) + " is not on " + dev_.part + " (" + std::to_string(dev_.banks.size()) +
           " banks); its traffic is counted against bank 0's bandwidth");
      bank = 0;
    }
    return dev_.banks[size_t(bank)].gbPerSecond * 1e9 / (dev_.clockMHz * 1e6);
  }

  bool isGlobal(const std::string& data, const Env& env) const {
    auto it = env.global.find(data);
    return it == env.global.end() ? true : it->second;
  }

  // The bits of an on-chip array as block RAM (UltraRAM past 4 Mb, LUTs under 1 Kb); partitioned, a
  // block RAM per bank at least, or (complete) registers and their read multiplexers.
  FpgaResources onChip(const DataDescriptor& d, const Env& env) {
    auto n = d.totalSize().evaluate(env.values);
    if (!n) return {};
    const int64_t bits = *n * int64_t(dtypeSize(d.dtype)) * 8;
    if (d.partition == PartitionKind::Complete) return {0, bits, bits, 0, 0};
    if (bits <= 1024) return {0, bits / 32 + 1, bits, 0, 0};
    if (bits > 4 * 1024 * 1024) return {0, 0, 0, 0, (bits + 294911) / 294912};
    const int64_t banks = d.partition == PartitionKind::None ? 1 : d.partitionFactor;
    return {0, 0, 0, std::max<int64_t>((bits + 18431) / 18432, banks), 0};
  }

  // How many memories an on-chip array is split into (each with two ports): its partition.
  int64_t onChipBanks(const std::string& data, const Env& env) const {
    const DataDescriptor* d = env.sdfg ? env.sdfg->findData(data) : nullptr;
    if (!d || d->partition == PartitionKind::None) return 1;
    if (d->partition == PartitionKind::Complete) {
      auto n = d->totalSize().evaluate(env.values);
      return n ? std::max<int64_t>(1, *n) : 1;
    }
    return std::max(1, d->partitionFactor);
  }

  Expected<int64_t> mapCycles(const State& st, Scopes& s, const MapEntry& me, Env& env) {
    const std::string path = paths_.pathOf(me.id());
    Env inner = env;
    int64_t trips = 1;
    std::vector<int64_t> dimTrips;
    for (size_t d = 0; d < me.params.size(); ++d) {
      dimTrips.push_back(std::max<int64_t>(0, evaluate(me.range[d].size(), inner, "loop " + path)));
      trips *= dimTrips.back();
      if (auto b = me.range[d].begin.evaluate(inner.values)) inner.values[me.params[d]] = *b;
    }
    LoopEstimate l;
    l.element = me.id();
    l.path = path;
    l.trips = trips;
    l.unrolled = me.schedule == Schedule::Unrolled;
    l.executions = env.executions;
    const auto& body = s.children[&me];
    bool innermost = true;
    for (const Node* n : body)
      if (n->kind() == ElementKind::MapEntry || n->kind() == ElementKind::NestedSdfg) innermost = false;
    if (innermost) {
      // The body's hardware once (a pipeline) or trips times (unrolled), its latency, and what holds back II.
      int64_t depth = 0, ii = 1, combine = 0;
      std::string why;
      std::vector<std::pair<std::string, int64_t>> revisits; // accumulated data, iterations between visits of an element
      FpgaResources hw;
      bool anyGlobalRead = false, anyLocalRead = false;
      std::map<std::string, std::pair<int64_t, int64_t>> accesses; // data -> (reads, writes) per iteration
      for (const Node* n : body) {
        if (auto* t = dynamic_cast<const Tasklet*>(n)) {
          TaskletCost c = taskletCost(st, *t, inner);
          depth += c.depth;
          hw += c.resources;
        }
        for (auto* e : st.inEdges(n->id()))
          if (!e->memlet.isEmpty() && st.node(e->src) == &me) {
            ++accesses[e->memlet.data].first;
            (isGlobal(e->memlet.data, env) ? anyGlobalRead : anyLocalRead) = true;
          }
        for (auto* e : st.outEdges(n->id())) {
          if (e->memlet.isEmpty()) continue;
          const Node* dst = st.node(e->dst);
          if (!dst || dst->kind() != ElementKind::MapExit) continue;
          ++accesses[e->memlet.data].second;
          if (!e->memlet.wcr.empty()) {
            ++accesses[e->memlet.data].first; // read-modify-write
            (isGlobal(e->memlet.data, env) ? anyGlobalRead : anyLocalRead) = true; // the old value
            // The combining operator follows the tasklet; when the element stays the same on consecutive
            // iterations the running value waits in its output register for the next: II = its latency.
            const DataDescriptor* d = env.sdfg->findData(e->memlet.data);
            const bool fl = d && isFloating(d->dtype);
            const int64_t lat = operatorLatency(e->memlet.wcr == "prod" ? "*" : e->memlet.wcr == "sum" ? "+" : e->memlet.wcr == "min" ? "min" : "max",
                                                fl, d && d->dtype == DType::Float64);
            combine = std::max(combine, lat);
            const std::string& inner0 = me.params.empty() ? std::string() : me.params.back();
            const auto used = e->memlet.subset.freeSymbols();
            if (!inner0.empty() && used.count(inner0)) {
              // Another element each iteration: the accumulation goes through memory and comes back to
              // an element every `revisit` iterations (those of the dims inside the innermost one it
              // ignores), which must be no sooner than its previous write lands.
              for (size_t d = me.params.size(); d-- > 0;)
                if (!used.count(me.params[d]) && dimTrips[d] > 1) {
                  int64_t revisit = 1;
                  for (size_t k = d + 1; k < dimTrips.size(); ++k) revisit *= dimTrips[k];
                  revisits.push_back({e->memlet.data, revisit});
                  break;
                }
            }
            if (!inner0.empty() && !used.count(inner0)) {
              if (lat > ii) {
                ii = lat;
                why = "accumulation into '" + e->memlet.data + "' across iterations of " + inner0 + " waits for the " +
                      (e->memlet.wcr == "sum" ? std::string("adder") : e->memlet.wcr) + " (" + std::to_string(lat) + " cycles)";
              }
            }
          }
        }
      }
      // Each bank serves its bytes per cycle to every array in it (an unrolled body all its copies at once).
      std::map<int, int64_t> bankBytes;
      for (auto& [data, rw] : accesses)
        if (isGlobal(data, env)) {
          const DataDescriptor* d = env.sdfg->findData(data);
          bankBytes[bankOf(data, env)] += (rw.first + rw.second) * int64_t(d ? dtypeSize(d->dtype) : 4) * (l.unrolled ? std::max<int64_t>(trips, 1) : 1);
        }
      for (auto& [bank, bytes] : bankBytes) {
        const double perCycle = bankBytesPerCycle(bank);
        const int64_t need = int64_t(std::ceil(double(bytes) / perCycle));
        if (need > ii) {
          ii = need;
          why = std::to_string(bytes) + " bytes per iteration from memory bank " +
                (bank < int(dev_.banks.size()) ? dev_.banks[size_t(bank)].name : std::to_string(bank)) + " at " +
                std::to_string(int64_t(perCycle)) + " bytes a cycle";
        }
      }
      // An unrolled body issues every copy's accesses at once; on-chip memory serves two a cycle per bank.
      const int64_t copies = l.unrolled ? std::max<int64_t>(trips, 1) : 1;
      for (auto& [data, rw] : accesses) {
        const bool global = isGlobal(data, env);
        const int64_t banks = global ? 1 : onChipBanks(data, env);
        int64_t need = global ? std::max(rw.first, rw.second) : ((rw.first + rw.second) * copies + 2 * banks - 1) / (2 * banks);
        if (need > ii) {
          ii = need;
          why = std::to_string(rw.first * copies) + " reads and " + std::to_string(rw.second * copies) + " writes of '" + data + "' per " +
                (l.unrolled ? "pass of the unrolled body" : "iteration") + " (" +
                (global ? std::string("one m_axi read and one write a cycle")
                        : "two ports of on-chip memory" + (banks > 1 ? " in each of " + std::to_string(banks) + " banks" : std::string())) +
                ")";
        }
      }
      depth += combine + (anyGlobalRead ? kGlobalReadLatency : anyLocalRead ? kLocalReadLatency : 0) + kWriteLatency;
      l.depth = depth;
      for (auto& [data, revisit] : revisits)
        if (revisit * ii < depth) {
          ii = (depth + revisit - 1) / revisit;
          why = "accumulation into '" + data + "' returns to an element every " + std::to_string(revisit) +
                " iterations, before its previous value is written (" + std::to_string(depth) + " cycles)";
        }
      if (l.unrolled) {
        for (int64_t k = 0; k < std::min<int64_t>(trips, 1024); ++k) {
          if (kernel_) kernel_->resources += hw;
        }
        l.ii = 0;
        l.cycles = depth + (trips > 1 ? ii - 1 : 0);
      } else {
        if (kernel_) kernel_->resources += hw;
        l.pipelined = true;
        l.ii = ii;
        l.iiReason = why;
        l.cycles = trips > 0 ? depth + ii * (trips - 1) : 0;
      }
    } else {
      Env each = inner;
      each.executions = env.executions * std::max<int64_t>(trips, 1);
      int64_t cycles = 0;
      for (const Node* n : body) {
        auto c = nodeCycles(st, s, *n, each);
        if (!c) return c;
        cycles += *c;
      }
      l.cycles = trips * (cycles + 1);
      if (l.unrolled) l.cycles = cycles + 1;
    }
    if (kernel_) kernel_->loops.push_back(l);
    return l.cycles;
  }

  TaskletCost taskletCost(const State& st, const Tasklet& t, const Env& env) {
    TaskletCost c;
    if (t.language != TaskletLanguage::Dcw) {
      note("tasklet " + paths_.pathOf(t.id()) + " is C++, which an FPGA kernel cannot hold; it is not counted");
      return c;
    }
    bool floating = false, dbl = false;
    auto look = [&](const std::vector<Connector>& cs) {
      for (auto& k : cs) {
        if (isFloating(k.dtype)) floating = true;
        if (k.dtype == DType::Float64) dbl = true;
      }
    };
    look(t.inConnectors());
    look(t.outConnectors());
    // A connector that leaves its type open takes its data's.
    auto lookData = [&](const Memlet& m) {
      const DataDescriptor* d = env.sdfg ? env.sdfg->findData(m.data) : nullptr;
      if (!d) return;
      if (isFloating(d->dtype)) floating = true;
      if (d->dtype == DType::Float64) dbl = true;
    };
    for (auto* e : st.inEdges(t.id()))
      for (auto& k : t.inConnectors())
        if (k.name == e->dstConnector && k.dtype == DType::Undefined && !e->memlet.isEmpty()) lookData(e->memlet);
    for (auto* e : st.outEdges(t.id()))
      for (auto& k : t.outConnectors())
        if (k.name == e->srcConnector && k.dtype == DType::Undefined && !e->memlet.isEmpty()) lookData(e->memlet);
    auto it = parsed_.find(t.code);
    if (it == parsed_.end()) {
      auto p = tasklet::parse(t.code, paths_.pathOf(t.id()));
      it = parsed_.emplace(t.code, p ? std::optional<tasklet::Program>(std::move(*p)) : std::nullopt).first;
    }
    if (!it->second) return c;
    std::map<std::string, int64_t> localDepth;
    std::function<int64_t(const tasklet::Expr&)> depthOf = [&](const tasklet::Expr& e) -> int64_t {
      int64_t args = 0;
      for (auto& a : e.args) args = std::max(args, depthOf(*a));
      switch (e.kind) {
      case tasklet::ExprKind::Name: {
        auto l = localDepth.find(e.text);
        return l == localDepth.end() ? 0 : l->second;
      }
      case tasklet::ExprKind::Index: return args + kLocalReadLatency;
      case tasklet::ExprKind::Unary:
      case tasklet::ExprKind::Binary:
      case tasklet::ExprKind::Call:
        c.resources += operatorResources(e.text, floating, dbl);
        return args + operatorLatency(e.text, floating, dbl);
      case tasklet::ExprKind::Ternary: return args + 1;
      default: return 0;
      }
    };
    int64_t depth = 0;
    for (auto& s : it->second->statements) {
      int64_t d = s.value ? depthOf(*s.value) : 0;
      localDepth[s.target] = d;
      depth = std::max(depth, d);
    }
    c.depth = depth;
    return c;
  }

  int64_t evaluate(const sym::Expr& e, const Env& env, const std::string& what) {
    auto v = e.evaluate(env.values);
    if (v) return *v;
    note("the trip count of " + what + " (" + e.str() + ") is unknown; counted as 1");
    return 1;
  }

  void note(const std::string& text) {
    if (std::find(out_.notes.begin(), out_.notes.end(), text) == out_.notes.end()) out_.notes.push_back(text);
  }

  const Sdfg& root_;
  const FpgaDevice& dev_;
  FpgaEstimate& out_;
  PathIndex paths_;
  KernelEstimate* kernel_ = nullptr;
  std::map<std::string, std::optional<tasklet::Program>> parsed_;
};

} // namespace

Expected<FpgaEstimate> estimateFpga(const Sdfg& expanded, const std::map<std::string, int64_t>& symbols, const FpgaDevice& device) {
  FpgaEstimate out;
  out.device = &device;
  Estimator e(expanded, device, out);
  if (auto r = e.run(symbols); !r) return r.takeError();
  return out;
}

std::string formatEstimate(const FpgaEstimate& e, size_t maxLoops) {
  char buf[512];
  std::string out;
  const FpgaDevice* d = e.device;
  auto share = [&](int64_t used, int64_t avail) {
    std::snprintf(buf, sizeof buf, "%lld/%lld (%.1f%%)", static_cast<long long>(used), static_cast<long long>(avail),
                  avail > 0 ? 100.0 * double(used) / double(avail) : 0.0);
    return std::string(buf);
  };
  auto resources = [&](const FpgaResources& r) {
    if (!d) return std::string();
    return "DSP " + share(r.dsp, d->available.dsp) + ", LUT " + share(r.lut, d->available.lut) + ", BRAM18K " +
           share(r.bram18k, d->available.bram18k) + ", URAM " + share(r.uram, d->available.uram);
  };
  std::snprintf(buf, sizeof buf, "FPGA estimate (%s) for %s at %.0f MHz: %lld cycles = %.3f ms per run\n",
                e.measurement.empty() ? "not measured" : "estimated; a kernel measured in RTL simulation says so", d ? d->part.c_str() : "an unknown board", d ? d->clockMHz : 0.0, static_cast<long long>(e.cycles), e.seconds * 1e3);
  out += buf;
  out += "  resources (all kernels): " + resources(e.resources) + "\n";
  for (auto& k : e.kernels) {
    std::snprintf(buf, sizeof buf, "  kernel %s: %lld cycles x %lld launch%s\n", k.statePath.c_str(), static_cast<long long>(k.cycles),
                  static_cast<long long>(k.launches), k.launches == 1 ? "" : "es");
    out += buf;
    out += "    " + resources(k.resources) + "\n";
    if (k.measuredCycles > 0) {
      std::snprintf(buf, sizeof buf, "    measured in RTL simulation: %lld cycles (estimate %+.1f%%)\n", static_cast<long long>(k.measuredCycles),
                    100.0 * double(k.cycles - k.measuredCycles) / double(k.measuredCycles));
      out += buf;
    } else if (!k.unmeasuredWhy.empty()) {
      out += "    not measured in RTL simulation: " + k.unmeasuredWhy + "\n";
    }
    std::vector<const LoopEstimate*> loops;
    for (auto& l : k.loops)
      if (l.pipelined || l.unrolled) loops.push_back(&l);
    std::sort(loops.begin(), loops.end(),
              [](const LoopEstimate* a, const LoopEstimate* b) { return a->cycles * a->executions > b->cycles * b->executions; });
    for (size_t i = 0; i < loops.size() && i < maxLoops; ++i) {
      const LoopEstimate& l = *loops[i];
      std::snprintf(buf, sizeof buf, "    %s %s: %lld trips, depth %lld, II %lld (target 1), %lld cycles x %lld\n",
                    l.unrolled ? "unrolled" : "pipelined", l.path.c_str(), static_cast<long long>(l.trips),
                    static_cast<long long>(l.depth), static_cast<long long>(l.ii), static_cast<long long>(l.cycles),
                    static_cast<long long>(l.executions));
      out += buf;
      if (!l.iiReason.empty()) out += "      II > 1: " + l.iiReason + "\n";
    }
    if (loops.size() > maxLoops) out += "    ... " + std::to_string(loops.size() - maxLoops) + " more loops in the report\n";
  }
  for (auto& n : e.notes) out += "  note: " + n + "\n";
  if (!e.measurement.empty()) out += "  " + e.measurement + "\n";
  for (auto& s : e.streams) {
    std::snprintf(buf, sizeof buf,
                  "  stream %s (C-simulation, one run): depth %lld, %lld writes, largest occupancy %lld/%lld, %lld writes waited (full), "
                  "%lld reads waited (empty)\n",
                  s.name.c_str(), static_cast<long long>(s.depth), static_cast<long long>(s.writes), static_cast<long long>(s.maxOccupancy),
                  static_cast<long long>(s.depth), static_cast<long long>(s.fullWaits), static_cast<long long>(s.emptyWaits));
    out += buf;
  }
  return out;
}

} // namespace dcw::codegen
