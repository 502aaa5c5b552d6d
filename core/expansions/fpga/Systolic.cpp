// The `systolic` implementations of MatMul, Gemm and Conv for the FPGA targets: a linear systolic array of P
// processing elements, as DaCe's FPGA GEMM. Y[N, M] = A[N, K] · B[K, M]; element p owns R = N / P rows
// of Y.
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
// Gemm is the chain with its transposes as the order the loads and the feeder read, alpha and beta·C
// applied in the drain. Conv (2-D, one group) is the same chain with N = output channels, K = C·kh·kw, M = batch·OH·OW: the
// feeder streams the input's patches (im2col) in (k, m) order — from a zero-padded copy of the input on
// chip when the convolution pads — and the bias is added as the rows are written.
// P is the largest divisor of N not above 8; R = N / P must be at most 64 (the rows one element keeps
// on chip), and each on-chip array at most 2^20 elements. Refused, naming why: other ranks, groups,
// dims unknown before the run, operands of different types, arrays past those sizes.
// Not differentiable (streams); the C-simulation (fpga-sim) sums each output in the order of k, as the
// pure expansions do.
#include "core/expansions/fpga/SystolicOps.h"

#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"
#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

#include <functional>
#include <memory>

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

// One input or output of a mapped tasklet: the container's access node outside the map, the memlet's
// subset there and at the tasklet.
struct Io {
  std::string connector;
  AccessNode* node = nullptr;
  std::string outer, inner;
};

// A map over `params` around one tasklet `code` reading `ins` and writing `out`.
void mapped(State& st, const std::string& label, const std::vector<std::pair<std::string, int64_t>>& params, DType t,
            const std::vector<Io>& ins, const std::string& code, const Io& out) {
  auto [me, mx] = addMap(st, label, params);
  auto* tk = st.add<Tasklet>(label + "_t", code);
  for (auto& i : ins) {
    const std::string& data = i.node->data();
    tk->addIn({i.connector, t});
    me->addIn({"IN_" + i.connector});
    me->addOut({"OUT_" + i.connector});
    st.addEdge(*i.node, "", *me, "IN_" + i.connector, memlet(data, i.outer));
    st.addEdge(*me, "OUT_" + i.connector, *tk, i.connector, memlet(data, i.inner));
  }
  const std::string& data = out.node->data();
  tk->addOut({out.connector, t});
  mx->addIn({"IN_" + out.connector});
  mx->addOut({"OUT_" + out.connector});
  st.addEdge(*tk, out.connector, *mx, "IN_" + out.connector, memlet(data, out.inner));
  st.addEdge(*mx, "OUT_" + out.connector, *out.node, "", memlet(data, out.outer));
}

// What an op gives the chain: its output rows, the inner dimension K and the columns M of the product,
// and how each part is written (the feeder of S0 in (k, m) order; an element's load of its rows of the
// left operand into At[k·R + r]; its drain of Ct[m·R + r]).
struct Chain {
  int64_t rows = 0, K = 0, M = 0;
  DType dtype = DType::Float32;
  std::function<void(State&, const std::function<AccessNode*(const std::string&)>&, AccessNode* s0)> feed;
  std::function<void(State&, const std::function<AccessNode*(const std::string&)>&, AccessNode* at, int64_t p, int64_t R)> load;
  std::function<void(State&, const std::function<AccessNode*(const std::string&)>&, AccessNode* ct, int64_t p, int64_t R)> drain;
};

constexpr int64_t kMaxRowsPerElement = 64;
constexpr int64_t kMaxOnChip = int64_t(1) << 20; // elements of one on-chip array

// P: the largest divisor of the rows not above 8; R = rows / P.
Expected<std::pair<int64_t, int64_t>> chainShape(const ExpansionContext& ctx, const std::string& op, int64_t rows, int64_t K, int64_t M) {
  int64_t P = 1;
  for (int64_t d = std::min<int64_t>(8, rows); d >= 1; --d)
    if (rows % d == 0) {
      P = d;
      break;
    }
  const int64_t R = rows / P;
  if (R > kMaxRowsPerElement)
    return ctx.error("systolic " + op + " keeps rows / P rows on chip per processing element: " + std::to_string(R) + " rows (" +
                         std::to_string(rows) + " rows, P = " + std::to_string(P) + ") exceed " + std::to_string(kMaxRowsPerElement),
                     "choose implementation pure for this node");
  if (K * R > kMaxOnChip || M * R > kMaxOnChip)
    return ctx.error("systolic " + op + " would keep " + std::to_string(std::max(K, M) * R) + " elements on chip per processing element (at most " +
                         std::to_string(kMaxOnChip) + ")",
                     "choose implementation pure for this node");
  return std::make_pair(P, R);
}

Expected<std::unique_ptr<Sdfg>> buildChain(const ExpansionContext& ctx, const std::string& op, const Chain& c) {
  DCW_TRY(auto shape, chainShape(ctx, op, c.rows, c.K, c.M));
  const auto [P, R] = shape;
  const int64_t K = c.K, M = c.M;
  SdfgBuilder bld(ctx, "systolic_" + op);
  Sdfg& g = bld.sdfg();
  State& st = bld.state();
  const DType t = c.dtype;
  const std::string Rs = std::to_string(R);
  // An access node of its own per element (labels unique in the state): shared nodes would join the
  // elements into one.
  std::function<AccessNode*(const std::string&)> access = [&](const std::string& data) {
    const std::string label = st.uniqueNodeLabel(data);
    auto* n = st.add<AccessNode>(data);
    st.relabel(*n, label);
    return n;
  };
  // The streams between the feeder and the elements, and along the chain.
  std::vector<std::string> streams;
  std::vector<AccessNode*> streamNodes;
  for (int64_t p = 0; p < P; ++p) {
    auto* s = g.addArray("S" + std::to_string(p), t, {sym::Expr(4)}, true);
    s->dataKind = DataKind::Stream;
    s->storage = StorageType::FpgaLocal;
    s->lifetime = Lifetime::State;
    streams.push_back(s->name());
    streamNodes.push_back(access(s->name()));
  }
  auto pushedAll = [&](DataflowEdge* e) {
    Memlet m = e->memlet;
    m.volume = sym::Expr(K * M);
    e->memlet = m;
  };
  c.feed(st, access, streamNodes[0]);
  for (auto* e : st.inEdges(streamNodes[0]->id())) pushedAll(e);

  for (int64_t p = 0; p < P; ++p) {
    const std::string ps = std::to_string(p);
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
    c.load(st, access, atNode, p, R);
    // run: pop b, pass it on, R multiply-adds into accumulators that start at zero (on-chip arrays are
    // zeroed where a kernel declares them).
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
    c.drain(st, access, ctNode, p, R);
  }
  return bld.finish();
}

std::string range(int64_t n) { return "0:" + std::to_string(n); }
std::string range(int64_t a, int64_t b) { return std::to_string(a) + ":" + std::to_string(b); }

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
  Chain c;
  c.rows = N;
  c.K = K;
  c.M = M;
  c.dtype = A->dtype;
  const DType t = A->dtype;
  c.feed = [=](State& st, const auto& access, AccessNode* s0) {
    mapped(st, "feed", {{"k", K}, {"m", M}}, t, {{"b", access("B"), range(K) + ", " + range(M), "k, m"}}, "s = b", {"s", s0, "0:4", "0"});
  };
  c.load = [=](State& st, const auto& access, AccessNode* at, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row0 = std::to_string(p * R);
    mapped(st, "pe" + ps + "_load", {{"k", K}, {"r", R}}, t, {{"a", access("A"), range(p * R, (p + 1) * R) + ", " + range(K), row0 + " + r, k"}},
           "o = a", {"o", at, range(K * R), "k * " + std::to_string(R) + " + r"});
  };
  c.drain = [=](State& st, const auto& access, AccessNode* ct, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row0 = std::to_string(p * R);
    mapped(st, "pe" + ps + "_drain", {{"r", R}, {"m", M}}, t, {{"c", ct, range(M * R), "m * " + std::to_string(R) + " + r"}}, "y = c",
           {"y", access("Y"), range(p * R, (p + 1) * R) + ", " + range(M), row0 + " + r, m"});
  };
  return buildChain(ctx, "MatMul", c);
}

// Gemm as the same chain: op(A) = A or Aᵀ is what the elements load, op(B) = B or Bᵀ what the feeder
// streams; an element writes alpha · (its sums) + beta · C (C broadcast to Y) as it drains its rows.
Expected<std::unique_ptr<Sdfg>> expandGemm(const ExpansionContext& ctx) {
  DCW_TRY(auto A, th::needIn(ctx, "A"));
  DCW_TRY(auto B, th::needIn(ctx, "B"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const DataDescriptor* C = ctx.in("C");
  if (A->shape.size() != 2 || B->shape.size() != 2 || Y->shape.size() != 2) return ctx.error("Gemm needs 2-D A, B and Y");
  if (A->dtype != B->dtype || A->dtype != Y->dtype || (C && C->dtype != A->dtype) || !isFloating(A->dtype))
    return ctx.error("systolic Gemm needs A, B, C and Y of one floating-point type", "choose implementation pure for this node");
  DCW_TRY(auto a, constantDims(ctx, "A", *A));
  DCW_TRY(auto b, constantDims(ctx, "B", *B));
  const bool tA = ctx.attrInt("transA", 0) != 0, tB = ctx.attrInt("transB", 0) != 0;
  const double alpha = ctx.attrFloat("alpha", 1.0), beta = ctx.attrFloat("beta", 1.0);
  const int64_t N = tA ? a[1] : a[0], K = tA ? a[0] : a[1], M = tB ? b[0] : b[1];
  if ((tB ? b[1] : b[0]) != K) return ctx.error("op(A)'s columns (" + std::to_string(K) + ") are not op(B)'s rows");
  if (N < 1 || K < 1 || M < 1) return ctx.error("systolic Gemm needs non-empty operands");
  std::vector<int64_t> c;
  const bool withC = C && beta != 0;
  if (withC) {
    DCW_TRY(c, constantDims(ctx, "C", *C));
    if (c.size() > 2) return ctx.error("Gemm's C must have rank <= 2");
  }
  Chain ch;
  ch.rows = N;
  ch.K = K;
  ch.M = M;
  ch.dtype = A->dtype;
  const DType t = A->dtype;
  const std::string bs = range(b[0]) + ", " + range(b[1]);
  ch.feed = [=](State& st, const auto& access, AccessNode* s0) {
    mapped(st, "feed", {{"k", K}, {"m", M}}, t, {{"b", access("B"), bs, tB ? "m, k" : "k, m"}}, "s = b", {"s", s0, "0:4", "0"});
  };
  ch.load = [=](State& st, const auto& access, AccessNode* at, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row = std::to_string(p * R) + " + r";
    // The element's rows of op(A): columns of A when it is transposed.
    const std::string mine = range(p * R, (p + 1) * R), rows = tA ? range(K) + ", " + mine : mine + ", " + range(K);
    mapped(st, "pe" + ps + "_load", {{"k", K}, {"r", R}}, t, {{"a", access("A"), rows, tA ? "k, " + row : row + ", k"}}, "o = a",
           {"o", at, range(K * R), "k * " + std::to_string(R) + " + r"});
  };
  ch.drain = [=](State& st, const auto& access, AccessNode* ct, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row = std::to_string(p * R) + " + r";
    std::vector<Io> ins{{"c", ct, range(M * R), "m * " + std::to_string(R) + " + r"}};
    std::string code = alpha == 1.0 ? "y = c" : "y = " + th::literal(alpha, t) + " * c";
    if (withC) {
      // C broadcast to [N, M]: a dim of 1 (or a missing leading one) reads index 0.
      std::string sub, outer;
      for (size_t d = 0; d < c.size(); ++d) {
        const size_t yd = d + (2 - c.size());
        sub += std::string(d ? ", " : "") + (c[d] == 1 ? "0" : yd == 0 ? row : "m");
        outer += std::string(d ? ", " : "") + range(c[d]);
      }
      if (c.empty()) sub = outer = ""; // a scalar
      ins.push_back({"cc", access("C"), outer, sub});
      code += beta == 1.0 ? " + cc" : " + " + th::literal(beta, t) + " * cc";
    }
    mapped(st, "pe" + ps + "_drain", {{"r", R}, {"m", M}}, t, ins, code,
           {"y", access("Y"), range(p * R, (p + 1) * R) + ", " + range(M), row + ", m"});
  };
  return buildChain(ctx, "Gemm", ch);
}

// Conv (2-D, one group) as the same chain: Y[f, (b, oh, ow)] = W[f, (c, i, j)] · X', X' the patches of X
// (im2col) that the feeder streams in (k, m) order, read from a zero-padded copy of X on chip when the
// convolution pads; the bias, when given, is added as an element writes its rows.
Expected<std::unique_ptr<Sdfg>> expandConv(const ExpansionContext& ctx) {
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto W, th::needIn(ctx, "W"));
  DCW_TRY(auto Y, th::needOut(ctx, "Y"));
  const DataDescriptor* Bias = ctx.in("B");
  if (X->shape.size() != 4 || W->shape.size() != 4)
    return ctx.error("systolic Conv takes 2-D convolutions (X of rank 4; X is rank " + std::to_string(X->shape.size()) + ")",
                     "choose implementation pure for this node");
  if (ctx.attrInt("group", 1) != 1)
    return ctx.error("systolic Conv takes one group (group = " + std::to_string(ctx.attrInt("group", 1)) + ")", "choose implementation pure for this node");
  if (X->dtype != W->dtype || X->dtype != Y->dtype || (Bias && Bias->dtype != X->dtype))
    return ctx.error("systolic Conv needs X, W, B and Y of one type");
  DCW_TRY(auto x, constantDims(ctx, "X", *X));
  DCW_TRY(auto w, constantDims(ctx, "W", *W));
  DCW_TRY(auto y, constantDims(ctx, "Y", *Y));
  th::Shape in{sym::Expr(x[2]), sym::Expr(x[3])}, out{sym::Expr(y[2]), sym::Expr(y[3])};
  DCW_TRY(auto win, th::window(ctx, {w[2], w[3]}, in, out));
  std::vector<int64_t> pb, pe;
  for (size_t d = 0; d < 2; ++d) {
    auto b = win.padBegin[d].constantValue(), e = win.padEnd[d].constantValue();
    if (!b || !e) return ctx.error("systolic Conv needs constant pads", "choose implementation pure for this node");
    pb.push_back(*b);
    pe.push_back(*e);
  }
  const int64_t n = x[0], C = x[1], H = x[2], Wd = x[3], F = w[0], kh = w[2], kw = w[3], OH = y[2], OW = y[3];
  if (w[1] != C) return ctx.error("W has " + std::to_string(w[1]) + " input channels, X " + std::to_string(C));
  const int64_t sh = win.strides[0], sw = win.strides[1], dh = win.dilations[0], dw = win.dilations[1];
  const bool padded = pb[0] || pb[1] || pe[0] || pe[1];
  const int64_t HP = H + pb[0] + pe[0], WP = Wd + pb[1] + pe[1];
  if (padded && n * C * HP * WP > kMaxOnChip)
    return ctx.error("systolic Conv would keep a padded input of " + std::to_string(n * C * HP * WP) + " elements on chip (at most " +
                         std::to_string(kMaxOnChip) + ")",
                     "choose implementation pure for this node");
  Chain c;
  c.rows = F;
  c.K = C * kh * kw;
  c.M = n * OH * OW;
  c.dtype = X->dtype;
  const DType t = X->dtype;
  const std::string xs = range(n) + ", " + range(C) + ", " + range(H) + ", " + range(Wd);
  const std::string oh = "oh * " + std::to_string(sh) + " + i * " + std::to_string(dh), ow = "ow * " + std::to_string(sw) + " + j * " + std::to_string(dw);
  c.feed = [=](State& st, const auto& access, AccessNode* s0) {
    AccessNode* src = nullptr;
    if (padded) {
      Sdfg& g = *st.sdfg();
      auto* d = g.addArray("Xpadded", t, {sym::Expr(n), sym::Expr(C), sym::Expr(HP), sym::Expr(WP)}, true);
      d->storage = StorageType::FpgaLocal;
      d->lifetime = Lifetime::State;
      src = access(d->name());
      mapped(st, "feed_pad", {{"b", n}, {"c", C}, {"h", H}, {"w", Wd}}, t, {{"x", access("X"), xs, "b, c, h, w"}}, "o = x",
             {"o", src, range(n) + ", " + range(C) + ", " + range(HP) + ", " + range(WP),
              "b, c, h + " + std::to_string(pb[0]) + ", w + " + std::to_string(pb[1])});
    } else {
      src = access("X");
    }
    mapped(st, "feed", {{"c", C}, {"i", kh}, {"j", kw}, {"b", n}, {"oh", OH}, {"ow", OW}}, t,
           {{"x", src, padded ? range(n) + ", " + range(C) + ", " + range(HP) + ", " + range(WP) : xs, "b, c, " + oh + ", " + ow}}, "s = x",
           {"s", s0, "0:4", "0"});
  };
  c.load = [=](State& st, const auto& access, AccessNode* at, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row0 = std::to_string(p * R);
    mapped(st, "pe" + ps + "_load", {{"c", C}, {"i", kh}, {"j", kw}, {"r", R}}, t,
           {{"w", access("W"), range(p * R, (p + 1) * R) + ", " + range(C) + ", " + range(kh) + ", " + range(kw), row0 + " + r, c, i, j"}}, "o = w",
           {"o", at, range(C * kh * kw * R),
            "((c * " + std::to_string(kh) + " + i) * " + std::to_string(kw) + " + j) * " + std::to_string(R) + " + r"});
  };
  const bool bias = Bias != nullptr;
  c.drain = [=](State& st, const auto& access, AccessNode* ct, int64_t p, int64_t R) {
    const std::string ps = std::to_string(p), row0 = std::to_string(p * R);
    std::vector<Io> ins{{"c", ct, range(OH * OW * n * R),
                         "((b * " + std::to_string(OH) + " + oh) * " + std::to_string(OW) + " + ow) * " + std::to_string(R) + " + r"}};
    if (bias) ins.push_back({"bias", access("B"), range(p * R, (p + 1) * R), row0 + " + r"});
    mapped(st, "pe" + ps + "_drain", {{"r", R}, {"b", n}, {"oh", OH}, {"ow", OW}}, t, ins, bias ? "y = c + bias" : "y = c",
           {"y", access("Y"), range(n) + ", " + range(p * R, (p + 1) * R) + ", " + range(OH) + ", " + range(OW), "b, " + row0 + " + r, oh, ow"});
  };
  return buildChain(ctx, "Conv", c);
}

} // namespace

void registerSystolic(ExpansionRegistry& r) {
  r.add("", "MatMul", decl(), expandMatMul,
        "FPGA: a linear systolic array of up to 8 processing elements joined by streams (B passed along the chain, "
        "rows of A and Y on chip)");
  r.add("", "Gemm", decl(), expandGemm,
        "FPGA: the MatMul chain with transposes as the order the operands are read in; alpha and beta*C applied as rows are "
        "written");
  r.add("", "Conv", decl(), expandConv,
        "FPGA: the MatMul chain on im2col patches streamed by a feeder (2-D, one group; output channels split among "
        "up to 8 processing elements)");
}

} // namespace dcw::expansions::fpga
