#include "codegen/fpga/RtlGenerator.h"

#include "codegen/cpu/CpuGenerator.h"
#include "codegen/fpga/CycleEstimate.h"
#include "codegen/fpga/RtlFloatCores.h"
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
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <functional>
#include <set>

namespace dcw::codegen {

using namespace dcw::ir;

namespace {

// An element address as an affine function of the loop counters: base + Σ coeff[d]·idx[d].
struct Affine {
  int64_t base = 0;
  std::vector<int64_t> coeff;
};

struct Access {
  std::string port;        // RtlPort::id
  Affine addr;
  std::string connector;   // the tasklet's
  DType dtype = DType::Int32; // the array's
  DType connectorDtype = DType::Int32; // the tasklet connector's (the array's when the connector leaves it open)
  std::string wcr;         // writes: "", sum, prod, min, max
};

struct Loop {
  std::string path;
  std::vector<int64_t> trips; // per dim, outermost first
  const Tasklet* tasklet = nullptr;
  std::map<std::string, int64_t> values; // symbols visible to the tasklet
  std::vector<Access> reads, writes;
};

// Where a data name of the SDFG being walked lives: a kernel port, from an element offset.
struct Binding {
  std::string port;
  int64_t offset = 0;
};

struct Scope {
  const Sdfg* sdfg = nullptr;
  std::map<std::string, int64_t> values;
  std::map<std::string, Binding> data;
};

int widthOf(DType t) { return t == DType::Bool ? 8 : int(dtypeSize(t)) * 8; }
bool isSigned(DType t) { return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64; }
bool integral(DType t) { return t == DType::Bool || isInteger(t); }

std::string num(int64_t v) {
  if (v < 0) return "(-64'sd" + std::to_string(-(v + 1)) + " - 64'sd1)";
  return "64'sd" + std::to_string(v);
}

class Collector {
public:
  Collector(const Sdfg& root, const std::map<std::string, int64_t>& symbols) : root_(root), paths_(root), symbols_(symbols) {}

  Expected<std::vector<Loop>> kernel(const State& st, const HlsKernel& k) {
    Scope s;
    s.sdfg = &root_;
    s.values = symbols_;
    for (auto& a : k.args) {
      if (a.isSymbol)
        return fail(paths_.pathOf(st.id()), "the kernel takes symbol '" + a.name + "' at run time; RTL fixes every size in hardware",
                    "specialize the model's dynamic dims (--dim NAME=VALUE)");
      s.data[a.name] = Binding{a.id, 0};
    }
    DCW_CHECK(state(st, s));
    return std::move(loops_);
  }

private:
  Expected<void> state(const State& st, const Scope& s) {
    DCW_TRY(StateScopes scopes, StateScopes::of(st));
    for (auto& n : st.nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get())) {
        const DataDescriptor* d = s.sdfg->findData(a->data());
        if (d && d->dataKind == DataKind::Stream)
          return fail(paths_.pathOf(a->id()), "stream '" + a->data() + "': RTL is generated for pipelined loops, not for dataflow states");
      }
    for (const Node* n : scopes.children[nullptr]) {
      const std::string at = paths_.pathOf(n->id());
      if (auto* a = dynamic_cast<const AccessNode*>(n)) {
        for (auto* e : st.inEdges(a->id()))
          if (!e->memlet.isEmpty() && st.node(e->src) && st.node(e->src)->kind() == ElementKind::AccessNode)
            return fail(at, "a copy into '" + a->data() + "' inside the kernel, which RTL generation does not cover");
        continue;
      }
      if (auto* me = dynamic_cast<const MapEntry*>(n)) {
        DCW_CHECK(map(st, scopes, *me, s));
        continue;
      }
      if (auto* t = dynamic_cast<const Tasklet*>(n)) {
        Loop l;
        l.path = at;
        DCW_CHECK(body(st, *t, nullptr, {}, s, l));
        continue;
      }
      if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n)) {
        DCW_CHECK(nested(st, *ns, s));
        continue;
      }
      if (n->kind() == ElementKind::MapExit) continue;
      return fail(at, "a " + std::string(elementKindName(n->kind())) + " node, which RTL generation does not cover");
    }
    return {};
  }

  Expected<void> nested(const State& st, const NestedSdfgNode& ns, const Scope& outer) {
    const std::string at = paths_.pathOf(ns.id());
    Scope inner;
    inner.sdfg = &ns.sdfg();
    inner.values = outer.values;
    for (auto& [name, expr] : ns.symbolMapping) {
      auto v = expr.evaluate(outer.values);
      if (!v) return fail(at, "symbol '" + name + "' = " + expr.str() + " has no value at generation time");
      inner.values[name] = *v;
    }
    auto bind = [&](const std::string& connector, const Memlet& m) -> Expected<void> {
      auto b = outer.data.find(m.data);
      if (b == outer.data.end())
        return fail(at, "'" + m.data + "' is not in FPGA global memory; RTL generation covers kernels on global arrays only");
      const DataDescriptor* d = outer.sdfg->findData(m.data);
      if (!d) return fail(at, "no data '" + m.data + "'");
      DCW_TRY(int64_t base, flat(*d, m.subset, outer.values, [](const Range& r) { return r.begin; }, at));
      inner.data[connector] = Binding{b->second.port, b->second.offset + base};
      return {};
    };
    for (auto* e : st.inEdges(ns.id()))
      if (!e->memlet.isEmpty()) DCW_CHECK(bind(e->dstConnector, e->memlet));
    for (auto* e : st.outEdges(ns.id()))
      if (!e->memlet.isEmpty()) DCW_CHECK(bind(e->srcConnector, e->memlet));
    // The nested SDFG's control flow must be a chain of states.
    const Sdfg& g = ns.sdfg();
    ElementId b = g.startBlock();
    std::set<ElementId> seen;
    while (b != kNoId) {
      if (!seen.insert(b).second) return fail(at, "the nested SDFG loops, which RTL generation does not cover");
      auto* block = g.block(b);
      auto* s = dynamic_cast<const State*>(block);
      if (!s) return fail(paths_.pathOf(b), "control flow inside a kernel, which RTL generation does not cover");
      DCW_CHECK(state(*s, inner));
      auto outs = g.outEdges(b);
      if (outs.empty()) break;
      if (outs.size() > 1 || !outs[0]->isUnconditional() || !outs[0]->assignments.empty())
        return fail(paths_.pathOf(b), "a branch or a symbol assignment inside a kernel, which RTL generation does not cover");
      b = outs[0]->dst;
    }
    return {};
  }

  Expected<void> map(const State& st, StateScopes& scopes, const MapEntry& me, const Scope& s) {
    const std::string at = paths_.pathOf(me.id());
    if (me.schedule == Schedule::Unrolled) return fail(at, "an unrolled map, which RTL generation does not cover (only pipelined loops)");
    const auto& inside = scopes.children[&me];
    const Tasklet* t = nullptr;
    for (const Node* n : inside) {
      if (auto* tk = dynamic_cast<const Tasklet*>(n)) {
        if (t) return fail(at, "a map with more than one tasklet, which RTL generation does not cover");
        t = tk;
      } else if (n->kind() != ElementKind::MapExit) {
        return fail(paths_.pathOf(n->id()), "a " + std::string(elementKindName(n->kind())) + " inside a map: RTL is generated for single pipelined loops");
      }
    }
    if (!t) return fail(at, "a map without a tasklet");
    Loop l;
    l.path = at;
    std::vector<std::pair<int64_t, int64_t>> dims; // (begin, step)
    for (size_t d = 0; d < me.params.size(); ++d) {
      auto b = me.range[d].begin.evaluate(s.values);
      auto step = me.range[d].step.evaluate(s.values);
      auto n = me.range[d].size().evaluate(s.values);
      if (!b || !step || !n) return fail(at, "the range of '" + me.params[d] + "' (" + me.range[d].str() + ") has no value at generation time");
      dims.push_back({*b, *step});
      l.trips.push_back(std::max<int64_t>(0, *n));
    }
    return body(st, *t, &me, dims, s, l);
  }

  // A tasklet, alone (no dims) or as the body of `me`.
  Expected<void> body(const State& st, const Tasklet& t, const MapEntry* me, const std::vector<std::pair<int64_t, int64_t>>& dims,
                      const Scope& s, Loop& l) {
    const std::string at = paths_.pathOf(t.id());
    if (t.language != TaskletLanguage::Dcw) return fail(at, "a C++ tasklet, which no FPGA kernel holds");
    l.tasklet = &t;
    l.values = s.values;
    std::vector<std::string> params = me ? me->params : std::vector<std::string>{};
    // The element address of `subset` in `data` for counters `idx`.
    auto access = [&](const Memlet& m, const std::string& connector, bool write) -> Expected<Access> {
      auto b = s.data.find(m.data);
      if (b == s.data.end())
        return fail(at, "'" + m.data + "' is on chip or not a kernel argument; RTL generation covers kernels on global arrays only");
      const DataDescriptor* d = s.sdfg->findData(m.data);
      if (!d) return fail(at, "no data '" + m.data + "'");
      if (!integral(d->dtype) && d->dtype != DType::Float32)
        return fail(at, std::string(dtypeName(d->dtype)) + " data ('" + m.data +
                            "'): RTL is generated for integer and float32 kernels (binary32 cores only); C-simulation runs this one");
      if (m.dynamic) return fail(at, "a dynamic memlet on '" + m.data + "'");
      for (auto& r : m.subset.ranges())
        if (!r.isIndex()) return fail(at, "the tasklet moves a range of '" + m.data + "' (" + m.str() + "), not one element");
      Access a;
      a.port = b->second.port;
      a.connector = connector;
      a.dtype = d->dtype;
      a.connectorDtype = d->dtype;
      for (auto& c : write ? t.outConnectors() : t.inConnectors())
        if (c.name == connector && c.dtype != DType::Undefined) a.connectorDtype = c.dtype;
      if (!integral(a.connectorDtype) && a.connectorDtype != DType::Float32)
        return fail(at, "connector '" + connector + "' is " + std::string(dtypeName(a.connectorDtype)) +
                            " (RTL is generated with binary32 cores only); C-simulation runs this one");
      if (write) a.wcr = m.wcr;
      if (!a.wcr.empty() && a.wcr != "sum" && a.wcr != "prod" && a.wcr != "min" && a.wcr != "max")
        return fail(at, "write-conflict resolution '" + a.wcr + "' on '" + m.data + "' (RTL covers sum, prod, min and max)");
      auto addrAt = [&](const std::vector<int64_t>& idx) -> Expected<int64_t> {
        auto values = s.values;
        for (size_t k = 0; k < params.size(); ++k) values[params[k]] = dims[k].first + dims[k].second * idx[k];
        DCW_TRY(int64_t f, flat(*d, m.subset, values, [](const Range& r) { return r.begin; }, at));
        return b->second.offset + f;
      };
      std::vector<int64_t> zero(params.size(), 0);
      DCW_TRY(int64_t base, addrAt(zero));
      a.addr.base = base;
      for (size_t k = 0; k < params.size(); ++k) {
        auto e = zero;
        e[k] = 1;
        DCW_TRY(int64_t v, addrAt(e));
        a.addr.coeff.push_back(l.trips[k] > 1 ? v - base : 0);
      }
      // Affine, checked at the last iteration and half-way.
      for (int probe = 0; probe < 2; ++probe) {
        std::vector<int64_t> idx(params.size());
        int64_t expect = base;
        for (size_t k = 0; k < params.size(); ++k) {
          idx[k] = probe == 0 ? std::max<int64_t>(0, l.trips[k] - 1) : l.trips[k] / 2;
          expect += a.addr.coeff[k] * idx[k];
        }
        DCW_TRY(int64_t got, addrAt(idx));
        if (got != expect) return fail(at, "the index of '" + m.data + "' (" + m.str() + ") is not affine in the map's parameters");
      }
      return a;
    };
    for (auto* e : st.inEdges(t.id())) {
      if (e->memlet.isEmpty()) continue;
      const Node* src = st.node(e->src);
      if (me ? src != me : (src && src->kind() != ElementKind::AccessNode))
        return fail(at, "input '" + e->dstConnector + "' does not come from global memory through the map");
      DCW_TRY(Access a, access(e->memlet, e->dstConnector, false));
      l.reads.push_back(std::move(a));
    }
    for (auto* e : st.outEdges(t.id())) {
      if (e->memlet.isEmpty()) continue;
      DCW_TRY(Access a, access(e->memlet, e->srcConnector, true));
      l.writes.push_back(std::move(a));
    }
    if (l.writes.empty()) return fail(at, "the tasklet writes nothing to global memory");
    loops_.push_back(std::move(l));
    return {};
  }

  // Σ pick(range_r)·stride_r + offset of `d`, evaluated.
  template <class Pick>
  Expected<int64_t> flat(const DataDescriptor& d, const Subset& subset, const std::map<std::string, int64_t>& values, Pick pick,
                         const std::string& at) {
    if (d.channelBlock > 0)
      return fail(at, "'" + d.name() + "' has its channels in blocks (" + d.blockedLayoutName() + "), which the RTL target does not address",
                  "store it row-major (undo BlockedLayout)");
    auto strides = d.elementStrides();
    auto off = d.offset.evaluate(values);
    if (!off) return fail(at, "the offset of '" + d.name() + "' has no value at generation time");
    int64_t f = *off;
    for (size_t r = 0; r < subset.rank() && r < strides.size(); ++r) {
      auto i = pick(subset[r]).evaluate(values);
      auto st = strides[r].evaluate(values);
      if (!i || !st) return fail(at, "the index of '" + d.name() + "' (" + subset.str() + ") has no value at generation time");
      f += *i * *st;
    }
    return f;
  }

  const Sdfg& root_;
  PathIndex paths_;
  std::map<std::string, int64_t> symbols_;
  std::vector<Loop> loops_;
};

// --- Verilog --------------------------------------------------------------------------------------

// A value of the datapath: a signal valid at a pipeline stage (cycles after its iteration's issue).
// A float value is its binary32 bit pattern in the low 32 bits (the upper ones zero); an integer or a
// bool (0 or 1) is 64-bit two's complement.
struct Val {
  std::string name;
  int stage = 0;
  bool fp = false;
};

class LoopWriter {
public:
  LoopWriter(const Loop& l, std::string module, const std::map<std::string, RtlPort>& ports) : l_(l), module_(std::move(module)), ports_(ports) {}

  Expected<RtlLoop> write(std::string& out) {
    const std::string at = l_.tasklet ? l_.path : module_;
    DCW_TRY(tasklet::Program p, tasklet::parse(l_.tasklet->code, l_.path));
    // The estimator's rule (CycleEstimate.cpp): a tasklet with a floating-point connector is costed with
    // floating-point operator latencies throughout; the hardware is built the same way.
    for (auto& r : l_.reads) floating_ = floating_ || r.connectorDtype == DType::Float32 || r.dtype == DType::Float32;
    for (auto& w : l_.writes) floating_ = floating_ || w.connectorDtype == DType::Float32 || w.dtype == DType::Float32;
    // Ports: at most one read and one write of an array per iteration (the m_axi channels' rate).
    std::set<std::string> read, written;
    const Access* accumulated = nullptr;
    for (auto& r : l_.reads)
      if (!read.insert(r.port).second) return fail(at, "two reads of '" + r.port + "' in one iteration (one read port a cycle)");
    for (auto& w : l_.writes) {
      if (!written.insert(w.port).second) return fail(at, "two writes of '" + w.port + "' in one iteration (one write port a cycle)");
      if (read.count(w.port)) return fail(at, "'" + w.port + "' is both read and written in one loop");
      if (!w.wcr.empty()) {
        if (accumulated) return fail(at, "two accumulations in one loop");
        accumulated = &w;
        read.insert(w.port);
      }
    }
    const size_t dims = l_.trips.size();
    int64_t total = 1;
    for (auto t : l_.trips) total *= t;
    // An accumulation either keeps its element over a run of consecutive iterations (the address
    // ignores a suffix of the dims and depends on each dim before it): the running value stays in the
    // combining operator's register; or it moves to another element every iteration and comes back
    // `revisit` iterations later: read-modify-write through memory, which needs the write to land
    // before the element is read again.
    size_t suffix = dims;
    bool inRegister = false;
    int64_t revisit = total;
    if (accumulated) {
      while (suffix > 0 && accumulated->addr.coeff[suffix - 1] == 0) --suffix;
      inRegister = suffix < dims;
      for (size_t d = 0; d < suffix; ++d)
        if (accumulated->addr.coeff[d] == 0 && l_.trips[d] > 1) {
          if (inRegister)
            return fail(at, "the accumulation into '" + accumulated->port + "' keeps its element over runs and also returns to it later, "
                            "which RTL generation does not cover");
          revisit = 1;
          for (size_t e = d + 1; e < dims; ++e) revisit *= l_.trips[e];
        }
    }

    int64_t ii = 1, accLatency = 0;
    std::string accOp;
    if (accumulated) {
      accOp = accumulated->wcr == "sum" ? "+" : accumulated->wcr == "prod" ? "*" : accumulated->wcr;
      accLatency = operatorLatency(accOp, accumulated->dtype == DType::Float32, false);
      if (inRegister) ii = std::max<int64_t>(ii, accLatency);
    }

    // The datapath, from the reads (stage kFpgaGlobalReadLatency) through the tasklet.
    std::map<std::string, Val> names;
    for (auto& r : l_.reads) {
      const RtlPort& port = ports_.at(r.port);
      std::string v = fresh("in_" + r.connector);
      decl_ += "  wire signed [63:0] " + v + " = " + extend(r.port + "_rd_data", port.bits, isSigned(r.dtype) && port.dtype != DType::Bool) + ";\n";
      DCW_TRY(Val in, convert(Val{v, int(kFpgaGlobalReadLatency), r.dtype == DType::Float32}, r.connectorDtype, at));
      names[r.connector] = in;
    }
    for (auto& s : p.statements) {
      if (!s.value) continue;
      DCW_TRY(Val v, expr(*s.value, names, at));
      // An output connector holds its own type (a local keeps the expression's).
      for (auto& w : l_.writes)
        if (!s.local && w.connector == s.target) {
          DCW_TRY(v, convert(v, w.connectorDtype, at));
        }
      names[s.target] = v;
    }
    int writeStage = 0;
    struct Out {
      const Access* w;
      Val value;
    };
    std::vector<Out> outs;
    for (auto& w : l_.writes) {
      auto v = names.find(w.connector);
      if (v == names.end()) return fail(at, "the tasklet never assigns its output '" + w.connector + "'");
      DCW_TRY(Val value, convert(v->second, w.dtype, at));
      if (&w == accumulated) {
        // The combining operator: old value (memory on a run's first iteration, else its own result)
        // with the tasklet's output.
        const int s = std::max(value.stage, int(kFpgaGlobalReadLatency));
        const RtlPort& port = ports_.at(w.port);
        std::string mem = fresh("old");
        decl_ += "  wire signed [63:0] " + mem + " = " + extend(w.port + "_rd_data", port.bits, isSigned(w.dtype) && port.dtype != DType::Bool) + ";\n";
        Val memV{mem, int(kFpgaGlobalReadLatency), value.fp};
        std::string chain = fresh("acc");
        const std::string accOut = chain + "_" + std::to_string(accLatency);
        for (int k = 1; k <= accLatency; ++k) decl_ += "  reg signed [63:0] " + chain + "_" + std::to_string(k) + ";\n";
        std::string in = fresh("acc_in");
        const std::string first = at_(Val{"s0_first", 0}, s), old = at_(memV, s), b = at_(value, s);
        decl_ += "  wire signed [63:0] " + in + " = " + (inRegister ? first + " ? " + old + " : " + accOut : old) + ";\n";
        if (value.fp) usesFloat_ = true;
        std::string e = value.fp ? combineFloat(accOp, in, b) : combine(accOp, in, b);
        for (int k = 1; k <= accLatency; ++k) {
          body_ += "    if (" + at_(Val{"s0_v", 0}, s + k - 1) + ") " + chain + "_" + std::to_string(k) + " <= " +
                   (k == 1 ? e : chain + "_" + std::to_string(k - 1)) + ";\n";
        }
        value = Val{accOut, s + int(accLatency), value.fp};
      }
      writeStage = std::max(writeStage, value.stage);
      outs.push_back({&w, value});
    }
    // Through memory, an element's next read must not leave before its previous write lands: the issue
    // slows down to one iteration every depth / revisit cycles.
    const int64_t depth = writeStage + kFpgaWriteLatency;
    if (accumulated && !inRegister && revisit * ii < depth) ii = (depth + revisit - 1) / revisit;

    // Ports.
    std::string header = "module " + module_ + " (\n  input clk,\n  input rst,\n  input start,\n  output done";
    std::string assigns;
    for (auto& [id, port] : ports_) {
      const bool r = read.count(id), w = written.count(id);
      if (!r && !w) continue;
      header += ",\n  output " + id + "_rd_en,\n  output [63:0] " + id + "_rd_addr,\n  input [" + std::to_string(port.bits - 1) + ":0] " + id +
                "_rd_data,\n  output " + id + "_wr_en,\n  output [63:0] " + id + "_wr_addr,\n  output [" + std::to_string(port.bits - 1) + ":0] " +
                id + "_wr_data";
      const Access* rd = nullptr;
      for (auto& x : l_.reads)
        if (x.port == id) rd = &x;
      if (accumulated && accumulated->port == id) rd = accumulated;
      if (rd) {
        assigns += "  assign " + id + "_rd_en = issue;\n  assign " + id + "_rd_addr = " + address(rd->addr) + ";\n";
      } else {
        assigns += "  assign " + id + "_rd_en = 1'b0;\n  assign " + id + "_rd_addr = 64'd0;\n";
      }
      const Out* wr = nullptr;
      for (auto& o : outs)
        if (o.w->port == id) wr = &o;
      if (wr) {
        std::string addr = fresh("waddr");
        decl_ += "  wire signed [63:0] " + addr + " = " + address(wr->w->addr) + ";\n";
        assigns += "  assign " + id + "_wr_en = " + at_(Val{"s0_v", 0}, writeStage) + ";\n";
        assigns += "  assign " + id + "_wr_addr = " + at_(Val{addr, 0}, writeStage) + ";\n";
        assigns += "  assign " + id + "_wr_data = " + named(at_(wr->value, writeStage)) + "[" + std::to_string(port.bits - 1) + ":0];\n";
      } else {
        assigns += "  assign " + id + "_wr_en = 1'b0;\n  assign " + id + "_wr_addr = 64'd0;\n  assign " + id + "_wr_data = " +
                   std::to_string(port.bits) + "'d0;\n";
      }
    }
    header += "\n);\n";

    // The iteration counter (an odometer over the dims, innermost fastest) and the issue slot.
    std::string ctl;
    ctl += "  // " + l_.path + ": " + std::to_string(total) + " iterations, II " + std::to_string(ii) + "\n";
    ctl += "  reg running;\n  reg [15:0] slot;\n";
    for (size_t d = 0; d < dims; ++d) ctl += "  reg [63:0] i" + std::to_string(d) + ";\n";
    std::string last = "1'b1", first = "1'b1";
    for (size_t d = 0; d < dims; ++d) {
      last += " && i" + std::to_string(d) + " == 64'd" + std::to_string(std::max<int64_t>(0, l_.trips[d] - 1));
      if (d >= suffix) first += " && i" + std::to_string(d) + " == 64'd0";
    }
    ctl += "  wire issue = running && slot == 16'd0;\n";
    ctl += "  wire s0_v = issue;\n  wire s0_last = " + last + ";\n  wire s0_first = " + first + ";\n";
    std::string seq = "  always @(posedge clk) begin\n    if (rst) running <= 1'b0;\n    else if (start) begin\n      running <= 1'b" +
                      std::string(total > 0 ? "1" : "0") + ";\n      slot <= 16'd0;\n";
    for (size_t d = 0; d < dims; ++d) seq += "      i" + std::to_string(d) + " <= 64'd0;\n";
    seq += "    end else if (running) begin\n      slot <= slot == 16'd" + std::to_string(ii - 1) + " ? 16'd0 : slot + 16'd1;\n      if (issue) begin\n";
    // The counters as an odometer: a dim moves when every dim inside it wraps.
    std::string carry = "1'b1";
    for (size_t k = dims; k-- > 0;) {
      std::string i = "i" + std::to_string(k);
      const std::string end = "64'd" + std::to_string(std::max<int64_t>(0, l_.trips[k] - 1));
      seq += "        if (" + carry + ") " + i + " <= " + i + " == " + end + " ? 64'd0 : " + i + " + 64'd1;\n";
      carry += " && " + i + " == " + end;
    }
    seq += "        if (s0_last) running <= 1'b0;\n      end\n    end\n  end\n";

    // Valid and last bits down the pipeline, then done when the last iteration writes.
    std::string done = at_(Val{"s0_v", 0}, writeStage) + " && " + at_(Val{"s0_last", 0}, writeStage);
    std::string text = header + (usesFloat_ ? std::string(rtlFloatCores()) : std::string()) + ctl + decl_ + assigns;
    text += "  assign done = (start && 1'b" + std::string(total > 0 ? "0" : "1") + ") || (" + done + ");\n";
    text += seq;
    text += "  always @(posedge clk) begin\n" + body_ + "  end\n";
    text += "  always @(posedge clk) begin\n    if (rst) begin\n" + resets_ + "    end else begin\n" + validBody_ + "    end\n  end\n";
    text += "endmodule\n\n";
    out += text;

    RtlLoop r;
    r.path = l_.path;
    r.trips = total;
    r.ii = ii;
    r.depth = writeStage + kFpgaWriteLatency;
    return r;
  }

private:
  // `v` delayed to `stage` (registers added as needed; control bits reset).
  std::string at_(const Val& v, int stage) {
    if (stage <= v.stage || v.name[0] == '(') return v.name; // a constant is there at every stage
    const bool control = v.name == "s0_v" || v.name == "s0_last" || v.name == "s0_first";
    std::string prev = v.name;
    for (int s = v.stage + 1; s <= stage; ++s) {
      std::string name = v.name + "_d" + std::to_string(s);
      if (made_.insert(name).second) {
        if (control) {
          decl_ += "  reg " + name + ";\n";
          if (v.name != "s0_first") resets_ += "      " + name + " <= 1'b0;\n";
          validBody_ += "      " + name + " <= " + prev + ";\n";
        } else {
          decl_ += "  reg signed [63:0] " + name + ";\n";
          body_ += "    " + name + " <= " + prev + ";\n";
        }
      }
      prev = name;
    }
    return prev;
  }

  // A signal's name for an expression (a wire for a constant), so that it can be part-selected.
  std::string named(const std::string& e) {
    if (e[0] != '(') return e;
    std::string n = fresh("k");
    decl_ += "  wire signed [63:0] " + n + " = " + e + ";\n";
    return n;
  }

  std::string fresh(const std::string& base) {
    std::string clean;
    for (char c : base) clean += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return clean + "_" + std::to_string(counter_++);
  }

  static std::string extend(const std::string& sig, int bits, bool sign) {
    if (bits >= 64) return "$signed(" + sig + ")";
    if (sign) return "{{" + std::to_string(64 - bits) + "{" + sig + "[" + std::to_string(bits - 1) + "]}}, " + sig + "}";
    return "{" + std::to_string(64 - bits) + "'d0, " + sig + "}";
  }

  // `e` (64-bit) as a value of `t` again in 64 bits: truncated and re-extended.
  static std::string cast(const std::string& e, DType t) {
    if (t == DType::Bool) return "{63'd0, (" + e + ") != 64'sd0}";
    const int bits = widthOf(t);
    if (bits >= 64) return e;
    const std::string& low = e; // a signal's name (part-selects need one)
    return isSigned(t) ? "{{" + std::to_string(64 - bits) + "{" + low + "[" + std::to_string(bits - 1) + "]}}, " + low + "[" + std::to_string(bits - 1) + ":0]}"
                       : "{" + std::to_string(64 - bits) + "'d0, " + low + "[" + std::to_string(bits - 1) + ":0]}";
  }

  static std::string boolOf(const std::string& cond) { return "{63'd0, " + cond + "}"; }

  static std::string combine(const std::string& op, const std::string& a, const std::string& b) {
    if (op == "+" || op == "-" || op == "*") return a + " " + op + " " + b;
    if (op == "min") return "(" + a + " < " + b + ") ? " + a + " : " + b;
    return "(" + a + " > " + b + ") ? " + a + " : " + b; // max
  }

  std::string address(const Affine& a) {
    std::string e = num(a.base);
    for (size_t d = 0; d < a.coeff.size(); ++d)
      if (a.coeff[d] != 0) e += " + " + num(a.coeff[d]) + " * $signed(i" + std::to_string(d) + ")";
    return e;
  }

  // A value at its stage: latency-0 operators as wires, others as a chain of `latency` registers.
  Val op(const std::string& e, int stage, int latency) {
    std::string n = fresh("v");
    if (latency == 0) {
      decl_ += "  wire signed [63:0] " + n + " = " + e + ";\n";
      return {n, stage};
    }
    std::string prev;
    for (int k = 1; k <= latency; ++k) {
      std::string r = n + "_" + std::to_string(k);
      decl_ += "  reg signed [63:0] " + r + ";\n";
      body_ += "    " + r + " <= " + (k == 1 ? e : prev) + ";\n";
      prev = r;
    }
    return {prev, stage + latency};
  }

  // --- floating point: binary32 cores (codegen/fpga/rtl/dcw_float32.vh), results equal to g++'s float --

  static std::string low(const std::string& n) { return n + "[31:0]"; }
  static std::string widen(const std::string& f32) { return "{32'd0, " + f32 + "}"; }
  static std::string isNan(const std::string& x) { return "(" + x + "[30:23] == 8'hff && " + x + "[22:0] != 23'd0)"; }
  static std::string floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    char buf[32];
    std::snprintf(buf, sizeof buf, "(64'h00000000%08x)", u);
    return buf;
  }

  // `v` as a float (an integer converted to nearest, as static_cast<float>(int64_t) does).
  Val toFloat(const Val& v) {
    if (v.fp) return v;
    usesFloat_ = true;
    std::string n = fresh("f");
    decl_ += "  wire [63:0] " + n + " = " + widen("dcw_fi64_to_f32(" + named(v.name) + ")") + ";\n";
    return Val{n, v.stage, true};
  }
  // `v` as a 64-bit integer (a float truncated toward zero, saturating, NaN to 0: dcw_rt::to_int).
  Val toInt(const Val& v) {
    if (!v.fp) return v;
    std::string n = fresh("i");
    decl_ += "  wire signed [63:0] " + n + " = dcw_ff32_to_i64(" + low(named(v.name)) + ");\n";
    return Val{n, v.stage, false};
  }
  // `v` as a bool (0 or 1): a float is true unless ±0 (NaN is true).
  Val toBool(const Val& v) {
    std::string n = fresh("b");
    if (v.fp) decl_ += "  wire signed [63:0] " + n + " = " + boolOf(named(v.name) + "[30:0] != 31'd0") + ";\n";
    else decl_ += "  wire signed [63:0] " + n + " = " + boolOf(v.name + " != 64'sd0") + ";\n";
    return Val{n, v.stage, false};
  }
  // `v` held as type `t` (a connector or an element): the C++ tasklet's conversions, in wires.
  Expected<Val> convert(const Val& v, DType t, const std::string& at) {
    if (t == DType::Float32) return toFloat(v);
    if (t == DType::Bool) return v.fp ? toBool(v) : v;
    if (!integral(t)) return fail(at, std::string(dtypeName(t)) + " values (RTL is generated with binary32 cores only)");
    if (!v.fp) return v;
    if (t == DType::UInt64) return fail(at, "a float converted to uint64 (RTL converts floats to signed 64-bit integers)");
    Val i = toInt(v);
    if (t == DType::Int64) return i;
    // dcw_rt::to_int<T> saturates at T's range; the integer's truncation to T's width follows at the write.
    const int bits = widthOf(t);
    const int64_t lo = isSigned(t) ? -(int64_t(1) << (bits - 1)) : 0;
    const int64_t hi = isSigned(t) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    std::string n = fresh("sat");
    decl_ += "  wire signed [63:0] " + n + " = (" + i.name + " < " + num(lo) + ") ? " + num(lo) + " : (" + i.name + " > " + num(hi) + ") ? " +
             num(hi) + " : " + i.name + ";\n";
    return Val{n, v.stage, false};
  }

  static std::string combineFloat(const std::string& op, const std::string& a, const std::string& b) {
    if (op == "+") return widen("dcw_fadd32(" + low(a) + ", " + low(b) + ")");
    if (op == "-") return widen("dcw_fsub32(" + low(a) + ", " + low(b) + ")");
    if (op == "*") return widen("dcw_fmul32(" + low(a) + ", " + low(b) + ")");
    // dcw_rt::min / max: (a < b || a is NaN) ? a : b
    const std::string cmp = op == "min" ? "dcw_flt32(" + low(a) + ", " + low(b) + ")" : "dcw_flt32(" + low(b) + ", " + low(a) + ")";
    return "(" + cmp + " || " + isNan(a) + ") ? " + a + " : " + b;
  }

  Expected<Val> expr(const tasklet::Expr& e, const std::map<std::string, Val>& names, const std::string& at) {
    using tasklet::ExprKind;
    switch (e.kind) {
    case ExprKind::Number: {
      if (e.text == "true" || e.text == "false") return Val{e.text == "true" ? "64'sd1" : "64'sd0", 0};
      if (!e.isInteger) {
        if (e.text == "inf") return Val{floatBits(std::numeric_limits<float>::infinity()), 0, true};
        if (e.text == "nan") return Val{floatBits(std::numeric_limits<float>::quiet_NaN()), 0, true};
        // The C++ tasklet writes the literal with an f suffix: the nearest float, as strtof gives.
        errno = 0;
        char* end = nullptr;
        const float f = std::strtof(e.text.c_str(), &end);
        if (!end || *end != '\0') return fail(at, "the floating-point constant " + e.text + " could not be read");
        usesFloat_ = true;
        return Val{floatBits(f), 0, true};
      }
      try {
        long long v = std::stoll(e.text, nullptr, 0);
        return Val{"(" + num(v) + ")", 0};
      } catch (...) {
        return fail(at, "the constant " + e.text + " does not fit 64 bits");
      }
    }
    case ExprKind::Name: {
      auto it = names.find(e.text);
      if (it != names.end()) return it->second;
      auto s = l_.values.find(e.text);
      if (s != l_.values.end()) return Val{"(" + num(s->second) + ")", 0};
      return fail(at, "'" + e.text + "' has no value in hardware (not an input, a local or a known symbol)");
    }
    case ExprKind::Index: return fail(at, "indexing '" + e.text + "[...]' inside a tasklet, which RTL generation does not cover");
    default: break;
    }
    const std::string& f = e.text;
    // A cast of a float literal: the C++ tasklet computes it in double; so does the generator, here.
    if (e.kind == ExprKind::Call && e.args.size() == 1 && e.args[0]->kind == ExprKind::Number && !e.args[0]->isInteger) {
      if (auto t = dtypeFromName(f); t && integral(*t) && *t != DType::Bool) {
        const double d = std::strtod(e.args[0]->text.c_str(), nullptr);
        int64_t v = 0;
        if (d == d) v = d <= -9223372036854775808.0 ? INT64_MIN : d >= 9223372036854775807.0 ? INT64_MAX : int64_t(d);
        const int bits = widthOf(*t);
        if (bits < 64) {
          const int64_t lo = isSigned(*t) ? -(int64_t(1) << (bits - 1)) : 0, hi = isSigned(*t) ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
          v = std::clamp(v, lo, hi);
        }
        return Val{"(" + num(v) + ")", 0};
      }
    }
    std::vector<Val> args;
    int stage = 0;
    for (auto& a : e.args) {
      DCW_TRY(Val v, expr(*a, names, at));
      stage = std::max(stage, v.stage);
      args.push_back(v);
    }
    bool anyFloat = false;
    for (auto& a : args) anyFloat = anyFloat || a.fp;
    const int lat = operatorLatency(f, floating_, false);
    // Operands at one stage, as integers, or all as floats when any is one (the C++ tasklet's promotion).
    auto operands = [&](size_t from, bool asFloat) {
      std::vector<std::string> x;
      for (size_t i = 0; i < args.size(); ++i) {
        if (i < from) {
          x.push_back(at_(args[i], stage));
          continue;
        }
        Val v = asFloat ? toFloat(args[i]) : args[i];
        x.push_back(named(at_(v, stage)));
      }
      return x;
    };
    auto fop = [&](const std::string& text, int latency) { usesFloat_ = true; Val v = op(text, stage, latency); v.fp = true; return v; };
    auto cond = [&](const Val& c) { return c.fp ? "(" + named(at_(c, stage)) + "[30:0] != 31'd0)" : "(" + at_(c, stage) + " != 64'sd0)"; };

    if (e.kind == ExprKind::Ternary || (e.kind == ExprKind::Call && f == "select" && args.size() == 3)) {
      const int l = e.kind == ExprKind::Ternary ? 1 : lat;
      const bool fl = args[1].fp || args[2].fp;
      auto x = operands(1, fl);
      Val v = op(cond(args[0]) + " ? " + x[1] + " : " + x[2], stage, l);
      v.fp = fl;
      return v;
    }
    if (e.kind == ExprKind::Unary) {
      if (f == "!") {
        if (args[0].fp) return op(boolOf(named(at_(args[0], stage)) + "[30:0] == 31'd0"), stage, lat);
        return op(boolOf(at_(args[0], stage) + " == 64'sd0"), stage, lat);
      }
      if (f == "-") {
        if (args[0].fp) {
          auto x = operands(0, true);
          return fop(widen("{~" + x[0] + "[31], " + x[0] + "[30:0]}"), lat); // a sign flip, as g++'s xorps
        }
        return op("-" + at_(args[0], stage), stage, lat);
      }
      return fail(at, "the operator '" + f + "' (RTL generation does not cover it)");
    }
    if (e.kind == ExprKind::Binary) {
      const bool cmp = f == "<" || f == "<=" || f == ">" || f == ">=" || f == "==" || f == "!=";
      if (f == "&&" || f == "||") return op(boolOf(cond(args[0]) + " " + f + " " + cond(args[1])), stage, lat);
      if (anyFloat && cmp) {
        auto x = operands(0, true);
        const std::string a = low(x[0]), b = low(x[1]);
        std::string c = f == "<" ? "dcw_flt32(" + a + ", " + b + ")" : f == "<=" ? "dcw_fle32(" + a + ", " + b + ")"
                      : f == ">" ? "dcw_flt32(" + b + ", " + a + ")" : f == ">=" ? "dcw_fle32(" + b + ", " + a + ")"
                      : f == "==" ? "dcw_feq32(" + a + ", " + b + ")" : "!dcw_feq32(" + a + ", " + b + ")";
        usesFloat_ = true;
        return op(boolOf(c), stage, lat);
      }
      if (anyFloat) {
        if (f == "+" || f == "-" || f == "*") {
          auto x = operands(0, true);
          return fop(combineFloat(f, x[0], x[1]), lat);
        }
        return fail(at, "the floating-point operator '" + f + "' (RTL has no floating-point divider core; C-simulation runs this kernel)");
      }
      auto x = operands(0, false);
      if (f == "+" || f == "-" || f == "*") return op(x[0] + " " + f + " " + x[1], stage, lat);
      if (f == "/" || f == "%") return op("(" + x[1] + " == 64'sd0) ? 64'sd0 : " + x[0] + " " + f + " " + x[1], stage, lat);
      if (cmp) return op(boolOf(x[0] + " " + f + " " + x[1]), stage, lat);
      return fail(at, "the operator '" + f + "' (RTL generation does not cover it)");
    }
    // Calls.
    if (auto t = dtypeFromName(f); t && args.size() == 1) {
      if (*t == DType::Float32) {
        Val v = toFloat(Val{at_(args[0], stage), stage, args[0].fp});
        Val r = op(v.name, stage, lat);
        r.fp = true;
        return r;
      }
      if (integral(*t)) {
        if (args[0].fp) {
          DCW_TRY(Val sat, convert(Val{at_(args[0], stage), stage, true}, *t, at));
          if (*t == DType::Bool || *t == DType::Int64) return sat;
          return op(cast(named(sat.name), *t), stage, 0);
        }
        return op(cast(named(at_(args[0], stage)), *t), stage, 0);
      }
      return fail(at, "a cast to " + f + " (RTL is generated with binary32 cores only)");
    }
    if (anyFloat) {
      auto x = operands(0, true);
      if ((f == "min" || f == "max") && x.size() == 2) return fop(combineFloat(f, x[0], x[1]), lat);
      if (f == "abs" && x.size() == 1) return fop(widen("{1'b0, " + x[0] + "[30:0]}"), lat);
      if (f == "relu" && x.size() == 1) return fop("dcw_flt32(" + low(x[0]) + ", 32'h0) ? 64'd0 : " + x[0], lat);
      if (f == "sign" && x.size() == 1)
        return fop("dcw_flt32(32'h0, " + low(x[0]) + ") ? 64'h3f800000 : dcw_flt32(" + low(x[0]) + ", 32'h0) ? 64'hbf800000 : " + x[0], lat);
      if ((f == "isnan" || f == "isinf") && x.size() == 1) {
        usesFloat_ = true;
        const std::string c = f == "isnan" ? isNan(x[0]) : "(" + x[0] + "[30:0] == 31'h7f800000)";
        return op(boolOf(c), stage, lat);
      }
      if (f == "floor" || f == "ceil" || f == "round" || f == "trunc" || f == "exp" || f == "log" || f == "sqrt" || f == "pow" ||
          f == "sigmoid" || f == "tanh" || f == "erf")
        return fail(at, "the floating-point function '" + f + "' (RTL has binary32 add, multiply and compare cores only; C-simulation runs this kernel)");
      return fail(at, "the function '" + f + "' on floating-point values (RTL generation does not cover it)");
    }
    std::vector<std::string> x = operands(0, false);
    if ((f == "min" || f == "max") && x.size() == 2) return op(combine(f, x[0], x[1]), stage, lat);
    if (f == "abs" && x.size() == 1) return op("(" + x[0] + " < 64'sd0) ? -" + x[0] + " : " + x[0], stage, lat);
    if (f == "relu" && x.size() == 1) return op("(" + x[0] + " < 64'sd0) ? 64'sd0 : " + x[0], stage, lat);
    if (f == "sign" && x.size() == 1)
      return op("(" + x[0] + " > 64'sd0) ? 64'sd1 : (" + x[0] + " < 64'sd0) ? -64'sd1 : 64'sd0", stage, lat);
    if ((f == "isnan" || f == "isinf") && x.size() == 1) return Val{"(64'sd0)", 0};
    return fail(at, "the function '" + f + "' (RTL generation does not cover it; C-simulation runs this kernel)");
  }

  const Loop& l_;
  std::string module_;
  const std::map<std::string, RtlPort>& ports_;
  std::string decl_, body_, resets_, validBody_;
  std::set<std::string> made_;
  bool floating_ = false; // the tasklet has a floating-point connector: floating-point operator latencies
  bool usesFloat_ = false; // the module calls the binary32 cores
  int counter_ = 0;
};

} // namespace

Expected<RtlKernel> generateRtl(const Sdfg& sdfg, const HlsKernel& kernel, const std::map<std::string, int64_t>& symbols) {
  PathIndex paths(sdfg);
  auto* st = dynamic_cast<const State*>(paths.element(kernel.state));
  if (!st) return fail(kernel.statePath, "no state for kernel " + kernel.function);
  RtlKernel k;
  k.module = kernel.function;
  k.statePath = kernel.statePath;
  std::map<std::string, RtlPort> ports;
  for (auto& a : kernel.args) {
    if (a.isSymbol) continue;
    const DataDescriptor* d = sdfg.findData(a.name);
    if (!d) return fail(kernel.statePath, "no data '" + a.name + "'");
    RtlPort p;
    p.id = a.id;
    p.data = a.name;
    p.dtype = d->dtype;
    p.bits = widthOf(d->dtype);
    auto n = CpuGenerator::storageExtent(*d).evaluate(symbols);
    if (!n) return fail(kernel.statePath, "the extent of '" + a.name + "' has no value at generation time", "specialize the model's dims (--dim)");
    p.elements = *n;
    ports[p.id] = p;
    k.ports.push_back(p);
  }
  Collector c(sdfg, symbols);
  DCW_TRY(std::vector<Loop> loops, c.kernel(*st, kernel));

  std::string text = "// " + kernel.function + ": RTL of kernel state " + kernel.statePath + ", generated by DCW (codegen/fpga/RtlGenerator.h)\n\n";
  for (size_t i = 0; i < loops.size(); ++i) {
    LoopWriter w(loops[i], kernel.function + "_loop" + std::to_string(i), ports);
    DCW_TRY(RtlLoop r, w.write(text));
    k.loops.push_back(r);
  }
  // The kernel: its loops one after another, their ports merged (only one loop drives them at a time).
  text += "module " + kernel.function + " (\n  input clk,\n  input rst,\n  input start,\n  output done";
  for (auto& p : k.ports)
    text += ",\n  output " + p.id + "_rd_en,\n  output [63:0] " + p.id + "_rd_addr,\n  input [" + std::to_string(p.bits - 1) + ":0] " + p.id +
            "_rd_data,\n  output " + p.id + "_wr_en,\n  output [63:0] " + p.id + "_wr_addr,\n  output [" + std::to_string(p.bits - 1) + ":0] " +
            p.id + "_wr_data";
  text += "\n);\n";
  std::string prevDone = "start";
  std::map<std::string, std::vector<std::string>> users; // port -> loop instance prefixes using it
  for (size_t i = 0; i < loops.size(); ++i) {
    const std::string inst = "l" + std::to_string(i);
    text += "  wire " + inst + "_done;\n";
    std::set<std::string> used;
    for (auto& r : loops[i].reads) used.insert(r.port);
    for (auto& w : loops[i].writes) used.insert(w.port);
    for (auto& id : used) {
      const RtlPort& p = ports.at(id);
      text += "  wire " + inst + "_" + id + "_rd_en, " + inst + "_" + id + "_wr_en;\n";
      text += "  wire [63:0] " + inst + "_" + id + "_rd_addr, " + inst + "_" + id + "_wr_addr;\n";
      text += "  wire [" + std::to_string(p.bits - 1) + ":0] " + inst + "_" + id + "_wr_data;\n";
      users[id].push_back(inst);
    }
    text += "  " + kernel.function + "_loop" + std::to_string(i) + " " + inst + " (.clk(clk), .rst(rst), .start(" + prevDone + "), .done(" + inst +
            "_done)";
    for (auto& id : used)
      for (const char* s : {"_rd_en", "_rd_addr", "_wr_en", "_wr_addr", "_wr_data"})
        text += ", ." + id + s + "(" + inst + "_" + id + s + ")";
    for (auto& id : used) text += ", ." + id + "_rd_data(" + id + "_rd_data)";
    text += ");\n";
    prevDone = inst + "_done";
  }
  text += "  assign done = " + prevDone + ";\n";
  for (auto& p : k.ports) {
    auto u = users.find(p.id);
    if (u == users.end()) {
      text += "  assign " + p.id + "_rd_en = 1'b0;\n  assign " + p.id + "_rd_addr = 64'd0;\n  assign " + p.id + "_wr_en = 1'b0;\n  assign " + p.id +
              "_wr_addr = 64'd0;\n  assign " + p.id + "_wr_data = " + std::to_string(p.bits) + "'d0;\n";
      continue;
    }
    std::string rdEn, wrEn, rdAddr = "64'd0", wrAddr = "64'd0", wrData = std::to_string(p.bits) + "'d0";
    for (auto it = u->second.rbegin(); it != u->second.rend(); ++it) {
      const std::string& inst = *it;
      rdEn += (rdEn.empty() ? "" : " | ") + inst + "_" + p.id + "_rd_en";
      wrEn += (wrEn.empty() ? "" : " | ") + inst + "_" + p.id + "_wr_en";
      rdAddr = inst + "_" + p.id + "_rd_en ? " + inst + "_" + p.id + "_rd_addr : " + rdAddr;
      wrAddr = inst + "_" + p.id + "_wr_en ? " + inst + "_" + p.id + "_wr_addr : " + wrAddr;
      wrData = inst + "_" + p.id + "_wr_en ? " + inst + "_" + p.id + "_wr_data : " + wrData;
    }
    text += "  assign " + p.id + "_rd_en = " + rdEn + ";\n  assign " + p.id + "_rd_addr = " + rdAddr + ";\n";
    text += "  assign " + p.id + "_wr_en = " + wrEn + ";\n  assign " + p.id + "_wr_addr = " + wrAddr + ";\n";
    text += "  assign " + p.id + "_wr_data = " + wrData + ";\n";
  }
  text += "endmodule\n";
  k.verilog = std::move(text);
  return k;
}

std::string rtlTopModule(const std::vector<RtlKernel>& kernels) {
  std::string t = "// dcw_rtl_top: every RTL kernel of the program in one model for Verilator, ports prefixed k<index>_.\nmodule dcw_rtl_top (\n  input clk,\n  input rst";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string k = "k" + std::to_string(i) + "_";
    t += ",\n  input " + k + "start,\n  output " + k + "done";
    for (auto& p : kernels[i].ports)
      t += ",\n  output " + k + p.id + "_rd_en,\n  output [63:0] " + k + p.id + "_rd_addr,\n  input [" + std::to_string(p.bits - 1) + ":0] " + k + p.id +
           "_rd_data,\n  output " + k + p.id + "_wr_en,\n  output [63:0] " + k + p.id + "_wr_addr,\n  output [" + std::to_string(p.bits - 1) +
           ":0] " + k + p.id + "_wr_data";
  }
  t += "\n);\n";
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string k = "k" + std::to_string(i) + "_";
    t += "  " + kernels[i].module + " u" + std::to_string(i) + " (.clk(clk), .rst(rst), .start(" + k + "start), .done(" + k + "done)";
    for (auto& p : kernels[i].ports)
      for (const char* s : {"_rd_en", "_rd_addr", "_rd_data", "_wr_en", "_wr_addr", "_wr_data"})
        t += ", ." + p.id + s + "(" + k + p.id + s + ")";
    t += ");\n";
  }
  t += "endmodule\n";
  return t;
}

} // namespace dcw::codegen
