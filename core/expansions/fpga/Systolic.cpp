// The `systolic` implementation of MatMul for the FPGA targets: a linear systolic array of P processing
// elements, as DaCe's FPGA GEMM. Y[N, M] = A[N, K] · B[K, M]; element p owns R = N / P rows of Y.
//
//   feed:  B[k, m] for k, m in order  ──► stream S0 ──► PE 0 ──► S1 ──► PE 1 ──► ... ──► PE P-1
//   PE p:  load   A[p·R + r, k] into on-chip At[k·R + r]            (K·R cycles, one read a cycle)
//          run    for k, m: b = pop(S_p); push(S_p+1, b);           (K·M cycles, II 1)
//                 Ct[m·R + r] += At[k·R + r] · b  for every r       (R multiply-adds a cycle)
//          drain  Y[p·R + r, m] = Ct[m·R + r]                      (R·M cycles)
//
// Each B element is read from memory once and passed along the chain instead of being broadcast to
// all N multiply-adders; At and Ct are split into R banks (cyclic partition) so each cycle's R reads
// and R read-modify-writes find a port; the accumulation into Ct[m, r] moves to another element every
// iteration (m innermost), so the pipeline does not wait for the adder. The elements run side by side
// under DATAFLOW (a state of the nested SDFG the HLS generator writes as a dataflow region); the kernel
// takes about K·M + K·R + R·M cycles where the `pure` loop nest takes N·M·K (II 4 accumulating along k,
// II 1 after InterleaveAccumulation).
// P is the largest divisor of N not above 8; R = N / P must be at most 64 (the rows one element keeps
// on chip). Refused, naming why: other ranks than 2-D x 2-D, dims unknown before the run, operands of
// different types, more than 64 rows per element.
// Not differentiable (streams); the C-simulation (fpga-sim) computes the same sums in the same order
// per element as the pure expansion's k loop.
#include "core/expansions/fpga/SystolicOps.h"

#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"
#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

namespace dcw::expansions::fpga {

using namespace dcw::ir;

namespace {

ImplementationDecl decl() { return ImplementationDecl{"systolic", {"fpga"}, {}, false}; }

Expected<std::vector<int64_t>> constantDims(const ExpansionContext& ctx, const std::string& conn, const DataDescriptor& d) {
  std::vector<int64_t> dims;
  for (auto& e : d.shape) {
    auto v = e.constantValue();
    if (!v) return ctx.error("systolic MatMul needs the dims of " + conn + " before the run (" + e.str() + " is not known)",
                             "specialize the model's dynamic dims (--dim NAME=VALUE), or choose implementation pure");
    dims.push_back(*v);
  }
  return dims;
}

// A map entry/exit pair over `params` in `st`.
std::pair<MapEntry*, MapExit*> addMap(State& st, const std::string& label, const std::vector<std::pair<std::string, int64_t>>& params) {
  auto* me = st.add<MapEntry>(label);
  auto* mx = st.add<MapExit>(label + "_exit");
  std::vector<Range> ranges;
  for (auto& [p, n] : params) {
    me->params.push_back(p);
    ranges.push_back(Range::full(sym::Expr(n)));
  }
  me->range = Subset(ranges);
  me->schedule = Schedule::FpgaPipeline;
  me->exitId = mx->id();
  mx->entryId = me->id();
  return {me, mx};
}

Memlet memlet(const std::string& data, const std::string& subset, const std::string& wcr = {}) {
  auto s = Subset::parse(subset);
  Memlet m = Memlet::simple(data, s ? *s : Subset{});
  m.wcr = wcr;
  return m;
}

Expected<std::unique_ptr<Sdfg>> expandMatMul(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  if (A->shape.size() != 2 || B->shape.size() != 2 || Y->shape.size() != 2)
    return ctx.error("systolic MatMul takes a 2-D A and a 2-D B (A is " + std::to_string(A->shape.size()) + "-D, B " +
                         std::to_string(B->shape.size()) + "-D)",
                     "choose implementation pure for batched or 1-D operands");
  if (A->dtype != B->dtype || A->dtype != Y->dtype)
    return ctx.error("systolic MatMul needs A, B and Y of one type (" + std::string(dtypeName(A->dtype)) + ", " +
                     std::string(dtypeName(B->dtype)) + ", " + std::string(dtypeName(Y->dtype)) + ")");
  DCW_TRY(auto a, constantDims(ctx, "A", *A));
  DCW_TRY(auto b, constantDims(ctx, "B", *B));
  const int64_t N = a[0], K = a[1], M = b[1];
  if (b[0] != K) return ctx.error("A's columns (" + std::to_string(K) + ") are not B's rows (" + std::to_string(b[0]) + ")");
  if (N < 1 || K < 1 || M < 1) return ctx.error("systolic MatMul needs non-empty operands");
  int64_t P = 1;
  for (int64_t d = std::min<int64_t>(8, N); d >= 1; --d)
    if (N % d == 0) {
      P = d;
      break;
    }
  const int64_t R = N / P;
  if (R > 64)
    return ctx.error("systolic MatMul keeps N / P rows of A on chip per processing element: " + std::to_string(R) + " rows (N = " +
                         std::to_string(N) + ", P = " + std::to_string(P) + ") exceed 64",
                     "choose implementation pure for this node");

  SdfgBuilder bld(ctx, "systolic_matmul");
  Sdfg& g = bld.sdfg();
  State& st = bld.state();
  const DType t = A->dtype;
  const std::string Rs = std::to_string(R);
  // The streams between the feeder and the elements, and along the chain.
  std::vector<std::string> streams;
  for (int64_t p = 0; p < P; ++p) {
    auto* s = g.addArray("S" + std::to_string(p), t, {sym::Expr(4)}, true);
    s->dataKind = DataKind::Stream;
    s->storage = StorageType::FpgaLocal;
    s->lifetime = Lifetime::State;
    streams.push_back(s->name());
  }
  // An access node of its own per element (labels unique in the state): shared nodes would join the
  // elements into one.
  auto access = [&](const std::string& data) {
    const std::string label = st.uniqueNodeLabel(data);
    auto* n = st.add<AccessNode>(data);
    st.relabel(*n, label);
    return n;
  };
  std::vector<AccessNode*> streamNodes;
  for (auto& s : streams) streamNodes.push_back(access(s));

  // feed: B in order into the first stream.
  {
    auto [me, mx] = addMap(st, "feed", {{"k", K}, {"m", M}});
    auto* tk = st.add<Tasklet>("feed_b", "s = b");
    tk->addIn({"b", t});
    tk->addOut({"s", t});
    auto* bn = access("B");
    me->addIn({"IN_B"});
    me->addOut({"OUT_B"});
    mx->addIn({"IN_S0"});
    mx->addOut({"OUT_S0"});
    st.addEdge(*bn, "", *me, "IN_B", memlet("B", "0:" + std::to_string(K) + ", 0:" + std::to_string(M)));
    st.addEdge(*me, "OUT_B", *tk, "b", memlet("B", "k, m"));
    st.addEdge(*tk, "s", *mx, "IN_S0", memlet(streams[0], "0"));
    Memlet all = memlet(streams[0], "0:4");
    all.volume = sym::Expr(K * M);
    st.addEdge(*mx, "OUT_S0", *streamNodes[0], "", all);
  }

  for (int64_t p = 0; p < P; ++p) {
    const std::string ps = std::to_string(p), row0 = std::to_string(p * R);
    auto* at = g.addArray("At" + ps, t, {sym::Expr(K * R)}, true);
    auto* ct = g.addArray("Ct" + ps, t, {sym::Expr(M * R)}, true);
    for (DataDescriptor* d : {at, ct}) {
      d->storage = StorageType::FpgaLocal;
      d->lifetime = Lifetime::State;
      if (R > 1) {
        d->partition = PartitionKind::Cyclic;
        d->partitionFactor = int(R);
      }
    }
    auto* atNode = access(at->name());
    auto* ctNode = access(ct->name());
    // load: this element's rows of A, transposed, on chip.
    {
      auto [me, mx] = addMap(st, "pe" + ps + "_load", {{"k", K}, {"r", R}});
      auto* tk = st.add<Tasklet>("pe" + ps + "_load_a", "o = a");
      tk->addIn({"a", t});
      tk->addOut({"o", t});
      auto* an = access("A");
      me->addIn({"IN_A"});
      me->addOut({"OUT_A"});
      mx->addIn({"IN_At"});
      mx->addOut({"OUT_At"});
      st.addEdge(*an, "", *me, "IN_A", memlet("A", row0 + ":" + std::to_string((p + 1) * R) + ", 0:" + std::to_string(K)));
      st.addEdge(*me, "OUT_A", *tk, "a", memlet("A", row0 + " + r, k"));
      st.addEdge(*tk, "o", *mx, "IN_At", memlet(at->name(), "k * " + Rs + " + r"));
      st.addEdge(*mx, "OUT_At", *atNode, "", memlet(at->name(), "0:" + std::to_string(K * R)));
    }
    // run: pop b, pass it on, R multiply-adds.
    {
      auto [me, mx] = addMap(st, "pe" + ps, {{"k", K}, {"m", M}});
      const bool last = p == P - 1;
      std::string code = last ? "" : "f = b\n";
      for (int64_t r = 0; r < R; ++r) code += "c" + std::to_string(r) + " = a" + std::to_string(r) + " * b\n";
      auto* tk = st.add<Tasklet>("pe" + ps + "_mac", code);
      tk->addIn({"b", t});
      for (int64_t r = 0; r < R; ++r) tk->addIn({"a" + std::to_string(r), t});
      for (int64_t r = 0; r < R; ++r) tk->addOut({"c" + std::to_string(r), t});
      if (!last) tk->addOut({"f", t});
      const std::string in = streams[size_t(p)];
      me->addIn({"IN_" + in});
      me->addOut({"OUT_" + in});
      me->addIn({"IN_At"});
      me->addOut({"OUT_At"});
      for (int64_t r = 0; r < R; ++r) {
        mx->addIn({"IN_Ct" + std::to_string(r)});
        mx->addOut({"OUT_Ct" + std::to_string(r)});
      }
      Memlet all = memlet(in, "0:4");
      all.volume = sym::Expr(K * M);
      st.addEdge(*streamNodes[size_t(p)], "", *me, "IN_" + in, all);
      st.addEdge(*me, "OUT_" + in, *tk, "b", memlet(in, "0"));
      st.addEdge(*atNode, "", *me, "IN_At", memlet(at->name(), "0:" + std::to_string(K * R)));
      for (int64_t r = 0; r < R; ++r)
        st.addEdge(*me, "OUT_At", *tk, "a" + std::to_string(r), memlet(at->name(), "k * " + Rs + " + " + std::to_string(r)));
      // Column r of the accumulators (elements r, r + R, ...) through a connector of its own.
      for (int64_t r = 0; r < R; ++r) {
        const std::string rs = std::to_string(r);
        st.addEdge(*tk, "c" + rs, *mx, "IN_Ct" + rs, memlet(ct->name(), "m * " + Rs + " + " + rs, "sum"));
        st.addEdge(*mx, "OUT_Ct" + rs, *ctNode, "", memlet(ct->name(), rs + ":" + std::to_string(M * R) + ":" + Rs, "sum"));
      }
      if (!last) {
        const std::string out = streams[size_t(p + 1)];
        mx->addIn({"IN_" + out});
        mx->addOut({"OUT_" + out});
        st.addEdge(*tk, "f", *mx, "IN_" + out, memlet(out, "0"));
        Memlet pushed = memlet(out, "0:4");
        pushed.volume = sym::Expr(K * M);
        st.addEdge(*mx, "OUT_" + out, *streamNodes[size_t(p + 1)], "", pushed);
      }
    }
    // drain: this element's rows of Y.
    {
      auto [me, mx] = addMap(st, "pe" + ps + "_drain", {{"r", R}, {"m", M}});
      auto* tk = st.add<Tasklet>("pe" + ps + "_drain_y", "y = c");
      tk->addIn({"c", t});
      tk->addOut({"y", t});
      auto* yn = access("Y");
      me->addIn({"IN_Ct"});
      me->addOut({"OUT_Ct"});
      mx->addIn({"IN_Y"});
      mx->addOut({"OUT_Y"});
      st.addEdge(*ctNode, "", *me, "IN_Ct", memlet(ct->name(), "0:" + std::to_string(M * R)));
      st.addEdge(*me, "OUT_Ct", *tk, "c", memlet(ct->name(), "m * " + Rs + " + r"));
      st.addEdge(*tk, "y", *mx, "IN_Y", memlet("Y", row0 + " + r, m"));
      st.addEdge(*mx, "OUT_Y", *yn, "", memlet("Y", row0 + ":" + std::to_string((p + 1) * R) + ", 0:" + std::to_string(M)));
    }
  }
  return bld.finish();
}

} // namespace

void registerSystolic(ExpansionRegistry& r) {
  r.add("", "MatMul", decl(), expandMatMul,
        "FPGA: a linear systolic array of up to 8 processing elements joined by streams (B passed along the chain, "
        "rows of A and Y on chip)");
}

} // namespace dcw::expansions::fpga
