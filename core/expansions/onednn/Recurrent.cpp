// `onednn` LSTM, GRU and RNN: one oneDNN RNN primitive per node (lstm_forward; gru_forward, or
// lbr_gru_forward when linear_before_reset = 1; vanilla_rnn_forward), forward_inference, float32,
// one layer. The recurrence runs inside the primitive (its GEMMs over all time steps at once for the
// input product, packed weights), which the pure expansion's loop of maps cannot match.
// An LSTM of one direction without peepholes, time-major in memory, has a second variant, timed
// against the primitive on the first run (the faster kept): a oneDNN matmul for the input gates of
// every step, then the environment's lstmRecurrence (OneDnnRuntime.cpp) for the steps — on one
// sequence each step is a matrix-vector product, where oneDNN 2.6's RNN kernel is slow.
//
// ONNX against oneDNN (L = 1 layer, D directions, G gates, H hidden, K = I or H):
//   X [T, B, I] (layout 1 [B, T, I])   src_layer {T, B, I}: tnc (layout 1: ntc, strides of the same buffer)
//   W [D, G*H, I], R [D, G*H, H]       weights_layer {1, D, I, G, H}, weights_iter {1, D, H, G, H}: ONNX's
//                                      rows are ldgoi; the gates are put in oneDNN's order (LSTM i o f c ->
//                                      i f c o; GRU z r h is u r o; RNN one gate) into a plain ldigo
//                                      memory, then into the packed layout the primitive prefers
//   B [D, 2*G*H] = Wb, Rb              bias {1, D, G, H} = Wb + Rb (each gate), except lbr_gru's {1, D, 4, H}:
//                                      Wb_z + Rb_z, Wb_r + Rb_r, Wb_h, and Rb_h (added inside r * (.))
//   P [D, 3*H] (i o f)                 weights_peephole {1, D, 3, H} (i f o)
//   initial_h, initial_c [D, B, H]     src_iter, src_iter_c {1, D, B, H} (layout 1 [B, D, H]: strides)
//   Y [T, D, B, H] (layout 1 [B, T, D, H])
//                                      dst_layer {T, B, D*H}: the same buffer for one direction and for
//                                      layout 1 (ntc); layout 0 bidirectional holds the directions apart
//                                      ([T, 2, B, H] against [T, B, 2, H]) and is moved in one piece
//   Y_h, Y_c                           dst_iter, dst_iter_c, like the initial states
//   direction                          forward, reverse, bidirectional = unidirectional_left2right,
//                                      unidirectional_right2left, bidirectional_concat
// Optional inputs and outputs the node leaves out are memory of the call's own (Call::scratch):
// zeros for an absent bias or initial state, scratch for an absent output. (oneDNN documents zero
// memory descriptors for them, but its CPU kernels refuse a missing bias, and an LSTM takes its
// states h and c in pairs; dst_layer is always written.)
// The gate reordering and bias sums are oneDNN reorders (a sum post-op for the sums) made once per
// constant (Call::addPieces in OneDnnRuntime.cpp), so the per-run cost of a model with initializer
// weights is the primitive alone.
// Refused, naming the node (pure computes them all): other types than float32, unknown dims, clip,
// input_forget, activations other than the defaults (LSTM Sigmoid Tanh Tanh, GRU Sigmoid Tanh; RNN
// Tanh, Relu or Sigmoid, one function for both directions as the primitive has one), and
// sequence_lens unless it is a constant T for every batch entry.
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/expansions/onednn/OneDnnOps.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/TensorHelpers.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace dcw::expansions::onednn {

using namespace dcw::ir;

namespace {

enum class Cell { Rnn, Gru, Lstm };

const char* opName(Cell c) { return c == Cell::Lstm ? "LSTM" : c == Cell::Gru ? "GRU" : "RNN"; }
int gatesOf(Cell c) { return c == Cell::Lstm ? 4 : c == Cell::Gru ? 3 : 1; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string num(int64_t v) { return std::to_string(v); }
std::string num(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

// "view(dims{..}, dims{..}, offset)": a block of a buffer (OneDnnRuntime's view()).
std::string viewText(const std::vector<int64_t>& d, const std::vector<int64_t>& strides, int64_t offset) {
  std::string s = "view(" + dimsText(d) + ", dims{";
  for (size_t k = 0; k < strides.size(); ++k) s += (k ? ", " : "") + num(strides[k]);
  return s + "}, " + num(offset) + ")";
}

// Gates `count` gates from `to` of the primitive's operand, taken from the ONNX operand's gates from
// `from` (in blocks of H); `add` sums them into what an earlier block put there.
struct Block {
  int to, from, count;
  bool add;
};

// Blocks moving ONNX gate order[g] (+ fromOffset) to the primitive's gate g (+ toOffset), consecutive
// gates merged into one block.
std::vector<Block> blocks(const std::vector<int>& order, int fromOffset, bool add, int toOffset = 0) {
  std::vector<Block> out;
  for (int g = 0; g < int(order.size()); ++g) {
    if (!out.empty() && out.back().to + out.back().count == g + toOffset && out.back().from + out.back().count == order[size_t(g)] + fromOffset) {
      ++out.back().count;
      continue;
    }
    out.push_back({g + toOffset, order[size_t(g)] + fromOffset, 1, add});
  }
  return out;
}

std::string pieceText(const std::string& user, const std::string& staged, bool add) {
  return "Piece{" + user + ", " + staged + ", " + (add ? "true" : "false") + "}";
}

// The addPieces statement of W or R (ONNX [D, G*H, K], i.e. ldgoi) into {1, D, K, G, H} (ldigo).
std::string weightPieces(const std::string& arg, const std::string& want, int64_t D, int64_t K, int64_t G, int64_t H,
                         const std::vector<Block>& bl, const std::string& constant) {
  const std::vector<int64_t> whole{1, D, K, G, H};
  const std::vector<int64_t> userStrides{D * G * H * K, G * H * K, 1, H * K, K}, stagedStrides{D * K * G * H, K * G * H, G * H, H, 1};
  std::string s = "dcw_k.addPieces(" + arg + ", " + viewText(whole, userStrides, 0) + ", plain(" + dimsText(whole) + "), " + want + ", {";
  for (size_t k = 0; k < bl.size(); ++k) {
    const std::vector<int64_t> part{1, D, K, bl[k].count, H};
    s += std::string(k ? ",\n    " : "\n    ") +
         pieceText(viewText(part, userStrides, bl[k].from * H * K), viewText(part, stagedStrides, bl[k].to * H), bl[k].add);
  }
  return s + "}, false, " + constant + ");\n";
}

// The addPieces statement of a [D, userGates*H] vector (B, P) into {1, D, stagedGates, H}.
std::string vectorPieces(const std::string& arg, const std::string& want, int64_t D, int64_t H, int64_t userGates, int64_t stagedGates,
                         const std::vector<Block>& bl, const std::string& constant) {
  const std::vector<int64_t> userStrides{D * userGates * H, userGates * H, H, 1}, stagedStrides{D * stagedGates * H, stagedGates * H, H, 1};
  std::string s = "dcw_k.addPieces(" + arg + ", plain(" + dimsText({1, D, userGates, H}) + "), plain(" + dimsText({1, D, stagedGates, H}) +
                  "), " + want + ", {";
  for (size_t k = 0; k < bl.size(); ++k) {
    const std::vector<int64_t> part{1, D, bl[k].count, H};
    s += std::string(k ? ",\n    " : "\n    ") +
         pieceText(viewText(part, userStrides, bl[k].from * H), viewText(part, stagedStrides, bl[k].to * H), bl[k].add);
  }
  return s + "}, false, " + constant + ");\n";
}

// Checks an operand's dims against what the node's geometry says.
Expected<std::vector<int64_t>> operandDims(const ExpansionContext& ctx, Cell cell, const std::string& name, bool input,
                                           const std::vector<int64_t>& expected, const std::string& what) {
  const DataDescriptor* d = input ? ctx.in(name) : ctx.out(name);
  DCW_TRY(auto v, floatDims(ctx, opName(cell), name, *d));
  if (v != expected) return ctx.error(name + " is " + shapeText(v) + "; " + what + " it must be " + shapeText(expected));
  return v;
}

// The activation functions the primitive computes: "" when `names` (the node's `activations`, lower
// case) are the defaults; for RNN the one function of both directions (tanh, relu, sigmoid).
Expected<std::string> activation(const ExpansionContext& ctx, Cell cell, int64_t D) {
  std::vector<std::string> names;
  if (auto* a = ctx.node().attribute("activations"))
    if (auto* v = std::get_if<std::vector<std::string>>(&a->value)) names = *v;
  for (auto& n : names) n = lower(n);
  const std::vector<std::string> defaults = cell == Cell::Lstm  ? std::vector<std::string>{"sigmoid", "tanh", "tanh"}
                                            : cell == Cell::Gru ? std::vector<std::string>{"sigmoid", "tanh"}
                                                                : std::vector<std::string>{"tanh"};
  std::string listed;
  for (auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
  if (cell == Cell::Rnn) {
    if (names.empty()) return std::string("tanh");
    const bool same = std::all_of(names.begin(), names.end(), [&](const std::string& n) { return n == names[0]; });
    if (same && (names.size() == 1 || int64_t(names.size()) == D) && (names[0] == "tanh" || names[0] == "relu" || names[0] == "sigmoid"))
      return names[0];
    return ctx.error("onednn RNN computes one of Tanh, Relu or Sigmoid for both directions; activations are " + listed, pureHint(ctx));
  }
  if (names.empty()) return std::string();
  std::vector<std::string> both = defaults;
  both.insert(both.end(), defaults.begin(), defaults.end());
  if (names == defaults || (D == 2 && names == both)) return std::string();
  std::string want;
  for (auto& n : defaults) want += (want.empty() ? "" : ", ") + n;
  return ctx.error(std::string("onednn ") + opName(cell) + " computes the default activations (" + want + "); activations are " + listed,
                   pureHint(ctx));
}

Expected<std::unique_ptr<Sdfg>> expandRecurrent(const ExpansionContext& ctx, Cell cell) {
  const std::string op = opName(cell);
  const int64_t G = gatesOf(cell);
  DCW_TRY(auto X, th::needIn(ctx, "X"));
  DCW_TRY(auto Wd, th::needIn(ctx, "W"));
  DCW_TRY(auto Rd, th::needIn(ctx, "R"));
  DCW_TRY(auto x, floatDims(ctx, op, "X", *X));
  DCW_TRY(auto w, floatDims(ctx, op, "W", *Wd));
  DCW_TRY(auto r, floatDims(ctx, op, "R", *Rd));
  if (x.size() != 3 || w.size() != 3 || r.size() != 3) return ctx.error("X, W and R must have rank 3");

  // What the primitive cannot compute.
  if (ctx.hasAttr("clip"))
    return ctx.error("onednn " + op + " does not clip the gate pre-activations; this node has clip " + num(ctx.attrFloat("clip", 0)),
                     pureHint(ctx));
  if (cell == Cell::Lstm && ctx.attrInt("input_forget", 0) != 0)
    return ctx.error("onednn LSTM has no coupled input and forget gates (input_forget = 1)", pureHint(ctx));
  const int64_t layout = ctx.attrInt("layout", 0);
  if (layout != 0 && layout != 1) return ctx.error("layout must be 0 or 1 (it is " + num(layout) + ")");
  const std::string direction = ctx.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.error("direction '" + direction + "' is not forward, reverse or bidirectional");
  const int64_t D = direction == "bidirectional" ? 2 : 1;
  DCW_TRY(auto act, activation(ctx, cell, D));

  const int64_t T = layout == 0 ? x[0] : x[1], B = layout == 0 ? x[1] : x[0], I = x[2], H = r[2];
  if (ctx.hasAttr("hidden_size") && ctx.attrInt("hidden_size", 0) != H)
    return ctx.error("hidden_size " + num(ctx.attrInt("hidden_size", 0)) + " differs from R's last dim " + num(H));
  const std::string geometry = "with " + num(D) + " direction(s), " + num(G) + " gate(s), hidden size " + num(H) + " and input size " + num(I);
  DCW_TRY(w, operandDims(ctx, cell, "W", true, {D, G * H, I}, geometry));
  DCW_TRY(r, operandDims(ctx, cell, "R", true, {D, G * H, H}, geometry));
  if (ctx.hasIn("sequence_lens")) {
    auto lens = ctx.constantInts("sequence_lens");
    if (!lens || int64_t(lens->size()) != B || std::any_of(lens->begin(), lens->end(), [&](int64_t v) { return v != T; }))
      return ctx.error("onednn " + op + " runs all " + num(T) + " steps for every batch entry; sequence_lens must be absent or a constant " +
                           num(T) + " for each",
                       pureHint(ctx));
  }

  const bool lbr = cell == Cell::Gru && ctx.attrInt("linear_before_reset", 0) != 0;
  const bool hasB = ctx.hasIn("B"), hasH0 = ctx.hasIn("initial_h");
  const bool hasC0 = cell == Cell::Lstm && ctx.hasIn("initial_c"), hasP = cell == Cell::Lstm && ctx.hasIn("P");
  const bool hasY = ctx.hasOut("Y"), hasYh = ctx.hasOut("Y_h"), hasYc = cell == Cell::Lstm && ctx.hasOut("Y_c");
  const std::vector<int64_t> state = layout == 0 ? std::vector<int64_t>{D, B, H} : std::vector<int64_t>{B, D, H};
  const std::vector<int64_t> yDims = layout == 0 ? std::vector<int64_t>{T, D, B, H} : std::vector<int64_t>{B, T, D, H};
  if (hasB) DCW_CHECK(operandDims(ctx, cell, "B", true, {D, 2 * G * H}, geometry));
  if (hasH0) DCW_CHECK(operandDims(ctx, cell, "initial_h", true, state, "for layout " + num(layout) + " " + geometry));
  if (hasC0) DCW_CHECK(operandDims(ctx, cell, "initial_c", true, state, "for layout " + num(layout) + " " + geometry));
  if (hasP) DCW_CHECK(operandDims(ctx, cell, "P", true, {D, 3 * H}, geometry));
  if (hasY) DCW_CHECK(operandDims(ctx, cell, "Y", false, yDims, "for layout " + num(layout) + " " + geometry));
  if (hasYh) DCW_CHECK(operandDims(ctx, cell, "Y_h", false, state, "for layout " + num(layout) + " " + geometry));
  if (hasYc) DCW_CHECK(operandDims(ctx, cell, "Y_c", false, state, "for layout " + num(layout) + " " + geometry));

  // Layer data and states: plain when the ONNX layout is the primitive's (always for layout 0, and
  // for layout 1 when the swapped dims hold one entry), else strides of the same buffer.
  auto layerDesc = [&](int64_t C) {
    if (layout == 0 || B == 1 || T == 1) return "plain(" + dimsText({T, B, C}) + ")";
    return viewText({T, B, C}, {C, T * C, 1}, 0);
  };
  const std::string stateDims = dimsText({1, D, B, H});
  const std::string stateUser = layout == 0 || B == 1 || D == 1 ? "s" : viewText({1, D, B, H}, {D * B * H, H, D * H, 1}, 0);
  // Y of layout 0 with two directions: the primitive's [T, B, 2, H] into ONNX's [T, 2, B, H].
  const bool yApart = layout == 0 && D == 2 && B > 1;
  const int64_t Gb = lbr ? 4 : G;

  std::string make;
  make += "const auto x = " + layerDesc(I) + ";\n";
  make += "const auto y = " + (yApart ? "plain(" + dimsText({T, B, D * H}) + ")" : layerDesc(D * H)) + ";\n";
  make += "const auto s = plain(" + stateDims + ");\n";
  const std::string dir = direction == "forward"   ? "dnnl::rnn_direction::unidirectional_left2right"
                          : direction == "reverse" ? "dnnl::rnn_direction::unidirectional_right2left"
                                                   : "dnnl::rnn_direction::bidirectional_concat";
  const std::string weights = "any(" + dimsText({1, D, I, G, H}) + "), any(" + dimsText({1, D, H, G, H}) + ")";
  const std::string bias = "plain(" + dimsText({1, D, Gb, H}) + ")";
  // LSTM states come in pairs (h and c).
  const bool srcStates = hasH0 || hasC0, dstStates = hasYh || hasYc;
  const std::string srcIter = srcStates ? "s" : "none", dstIter = dstStates ? "s" : "none";
  if (!srcStates || !dstStates) make += "const dnnl::memory::desc none; // zero states, states not written\n";
  std::string prim, kernel;
  if (cell == Cell::Lstm) {
    prim = "dnnl::lstm_forward";
    kernel = "lstm";
    make += "const " + prim + "::primitive_desc pd(" + prim + "::desc(dnnl::prop_kind::forward_inference, " + dir + ",\n";
    make += "    x, " + srcIter + ", " + srcIter + ", " + weights + ", " + (hasP ? "plain(" + dimsText({1, D, 3, H}) + "), " : "") + bias +
            ",\n    y, " + dstIter + ", " + dstIter + "), engine);\n";
  } else if (cell == Cell::Gru) {
    prim = lbr ? "dnnl::lbr_gru_forward" : "dnnl::gru_forward";
    kernel = lbr ? "lbr_gru" : "gru";
    make += "const " + prim + "::primitive_desc pd(" + prim + "::desc(dnnl::prop_kind::forward_inference, " + dir + ",\n";
    make += "    x, " + srcIter + ", " + weights + ", " + bias + ", y, " + dstIter + "), engine);\n";
  } else {
    prim = "dnnl::vanilla_rnn_forward";
    kernel = "vanilla_rnn";
    const std::string alg = act == "relu" ? "eltwise_relu" : act == "sigmoid" ? "eltwise_logistic" : "eltwise_tanh";
    make += "const " + prim + "::primitive_desc pd(" + prim + "::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::" + alg + ", " + dir + ",\n";
    make += "    x, " + srcIter + ", " + weights + ", " + bias + ", y, " + dstIter + "), engine);\n";
  }
  make += "dcw_k.prim = " + prim + "(pd);\n";

  // Operands in the order of the tasklet's buffers.
  std::vector<std::string> ins{"X", "W", "R"};
  make += "dcw_k.add(DNNL_ARG_SRC_LAYER, x, pd.src_layer_desc(), false);\n";
  // ONNX gate g of the primitive's gate k: order[k].
  const std::vector<int> order = cell == Cell::Lstm ? std::vector<int>{0, 2, 3, 1} : cell == Cell::Gru ? std::vector<int>{0, 1, 2} : std::vector<int>{0};
  make += weightPieces("DNNL_ARG_WEIGHTS_LAYER", "pd.weights_layer_desc()", D, I, G, H, blocks(order, 0, false), constantFlag(ctx, "W"));
  make += weightPieces("DNNL_ARG_WEIGHTS_ITER", "pd.weights_iter_desc()", D, H, G, H, blocks(order, 0, false), constantFlag(ctx, "R"));
  if (hasB) {
    // Wb first (copied), then Rb summed in; lbr_gru keeps Rb_h apart as its fourth bias.
    std::vector<Block> bl = blocks(order, 0, false);
    std::vector<Block> rb = lbr ? blocks({0, 1}, int(G), true) : blocks(order, int(G), true);
    bl.insert(bl.end(), rb.begin(), rb.end());
    if (lbr) bl.push_back({3, int(G) + 2, 1, false});
    make += vectorPieces("DNNL_ARG_BIAS", "pd.bias_desc()", D, H, 2 * G, Gb, bl, constantFlag(ctx, "B"));
    ins.push_back("B");
  } else {
    make += "dcw_k.scratch(DNNL_ARG_BIAS, pd.bias_desc(), true);\n";
  }
  if (hasH0) {
    make += "dcw_k.add(DNNL_ARG_SRC_ITER, " + stateUser + ", pd.src_iter_desc(), false);\n";
    ins.push_back("initial_h");
  } else if (hasC0) {
    make += "dcw_k.scratch(DNNL_ARG_SRC_ITER, pd.src_iter_desc(), true);\n";
  }
  if (hasC0) {
    make += "dcw_k.add(DNNL_ARG_SRC_ITER_C, " + stateUser + ", pd.src_iter_c_desc(), false);\n";
    ins.push_back("initial_c");
  } else if (hasH0 && cell == Cell::Lstm) {
    make += "dcw_k.scratch(DNNL_ARG_SRC_ITER_C, pd.src_iter_c_desc(), true);\n";
  }
  if (hasP) {
    // ONNX i o f -> oneDNN i f o.
    make += vectorPieces("DNNL_ARG_WEIGHTS_PEEPHOLE", "pd.weights_peephole_desc()", D, H, 3, 3, blocks({0, 2, 1}, 0, false), constantFlag(ctx, "P"));
    ins.push_back("P");
  }
  std::vector<std::string> outs;
  if (!hasY) make += "dcw_k.scratch(DNNL_ARG_DST_LAYER, pd.dst_layer_desc());\n";
  else if (!yApart) make += "dcw_k.add(DNNL_ARG_DST_LAYER, y, pd.dst_layer_desc(), true);\n";
  else
    make += "dcw_k.addPieces(DNNL_ARG_DST_LAYER, plain(" + dimsText(yDims) + "), y, pd.dst_layer_desc(), {" +
            pieceText(viewText({T, B, D, H}, {D * B * H, H, B * H, 1}, 0), "plain(" + dimsText({T, B, D, H}) + ")", false) + "}, true);\n";
  if (hasY) outs.push_back("Y");
  if (hasYh) {
    make += "dcw_k.add(DNNL_ARG_DST_ITER, " + stateUser + ", pd.dst_iter_desc(), true);\n";
    outs.push_back("Y_h");
  } else if (hasYc) {
    make += "dcw_k.scratch(DNNL_ARG_DST_ITER, pd.dst_iter_desc());\n";
  }
  if (hasYc) {
    make += "dcw_k.add(DNNL_ARG_DST_ITER_C, " + stateUser + ", pd.dst_iter_c_desc(), true);\n";
    outs.push_back("Y_c");
  } else if (hasYh && cell == Cell::Lstm) {
    make += "dcw_k.scratch(DNNL_ARG_DST_ITER_C, pd.dst_iter_c_desc());\n";
  }
  std::vector<std::string> buffers = ins;
  buffers.insert(buffers.end(), outs.begin(), outs.end());

  // The second variant (an LSTM of one direction, no peepholes, time-major in memory): one oneDNN
  // matmul computes the input gates of every step at once (X W^T + Wb, weights packed once), and the
  // environment's lstmRecurrence runs the steps. On one sequence (batch 1) each step is a matrix-vector
  // product that oneDNN's RNN kernel runs at a fraction of the machine's speed; the first run times
  // both variants and keeps the faster.
  const bool ownRecurrence = cell == Cell::Lstm && D == 1 && !hasP && (layout == 0 || B == 1) && H % 16 == 0;
  if (ownRecurrence) {
    auto index = [&](const std::string& name) { return num(int64_t(std::find(buffers.begin(), buffers.end(), name) - buffers.begin())); };
    auto pointer = [&](const std::string& name, bool present, const std::string& type, const std::string& offset = "") {
      const std::string p = "k.ops[" + index(name) + "].pointer";
      return present ? "static_cast<" + type + ">(" + (type == "float*" ? "const_cast<void*>(" + p + ")" : p) + ")" + offset : std::string("nullptr");
    };
    std::string own;
    own += "const auto a = plain(" + dimsText({T * B, I}) + ");\n";
    own += "const auto xw = plain(" + dimsText({T * B, G * H}) + ");\n";
    own += "const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, any(" + dimsText({I, G * H}) + "), " +
           (hasB ? "plain(" + dimsText({1, G * H}) + "), " : "") + "xw), engine);\n";
    own += "dcw_k.prim = dnnl::matmul(pd);\n";
    for (const std::string& b : buffers) {
      if (b == "X") own += "dcw_k.add(DNNL_ARG_SRC, a, pd.src_desc(), false);\n";
      else if (b == "W") own += "dcw_k.add(DNNL_ARG_WEIGHTS, " + viewText({I, G * H}, {1, I}, 0) + ", pd.weights_desc(), false, " + constantFlag(ctx, "W") + ");\n";
      else if (b == "B") own += "dcw_k.add(DNNL_ARG_BIAS, plain(" + dimsText({1, G * H}) + "), pd.bias_desc(), false, " + constantFlag(ctx, "B") + ");\n";
      else if (b == "R") // packed in panels of 16 hidden units: [H/16, H, G, 16] (lstmRecurrence)
        own += "dcw_k.addOwn(" + viewText({H / 16, H, G, 16}, {16 * H, 1, H * H, H}, 0) + ", plain(" + dimsText({H / 16, H, G, 16}) + "), " +
               constantFlag(ctx, "R") + ");\n";
      else own += "dcw_k.pass(); // " + b + "\n";
    }
    own += "dcw_k.scratch(DNNL_ARG_DST, xw);\n";
    own += "auto dcw_state = std::make_shared<std::vector<float>>(" + num(3 * B * H) + ");\n";
    own += "dcw_k.then = [dcw_state](Call& k) {\n";
    own += "  lstmRecurrence(static_cast<const float*>(k.args.at(DNNL_ARG_DST).get_data_handle()),\n";
    own += "      static_cast<const float*>(k.ops[" + index("R") + "].inner.get_data_handle()),\n";
    own += "      " + pointer("B", hasB, "const float*", " + " + num(G * H)) + ", " + pointer("initial_h", hasH0, "const float*") + ", " +
           pointer("initial_c", hasC0, "const float*") + ",\n";
    own += "      " + pointer("Y", hasY, "float*") + ", " + pointer("Y_h", hasYh, "float*") + ", " + pointer("Y_c", hasYc, "float*") + ", " +
           num(T) + ", " + num(B) + ", " + num(H) + ", " + (direction == "reverse" ? "true" : "false") + ", dcw_state->data());\n";
    own += "};\n";
    make = "if (dcw_variant == 0) {\n" + make + "} else {\n" + own + "}\n";
  }

  std::string comment = "oneDNN " + kernel + " (" + direction + (layout ? ", layout 1" : "") + (act.empty() || act == "tanh" ? "" : ", " + act) +
                        "): X[" + shapeText(x) + "], hidden " + num(H) + " -> ";
  for (size_t k = 0; k < outs.size(); ++k) comment += (k ? ", " : "") + outs[k];
  if (ownRecurrence) comment += "; or a oneDNN matmul for every step's input gates, then DCW's recurrence (timed: the faster kept)";
  // FLOPs: the gate products over all steps and directions, plus the bias of each gate pre-activation.
  const int64_t flops = D * T * B * G * H * (2 * (I + H) + 1);
  SdfgBuilder bld(ctx);
  bld.cppTasklet("onednn_" + kernel, ins, callCode(comment, make, buffers, ownRecurrence ? 2 : 1), outs, {"onednn"}, sym::Expr(flops));
  return bld.finish();
}

} // namespace

void registerRecurrent(ExpansionRegistry& r) {
  r.add("", "LSTM", decl(), [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Lstm); },
        "one oneDNN lstm_forward (float32, default activations, peepholes; gates reordered and biases summed once for constant "
        "weights), or where faster (one direction, no peepholes, hidden size a multiple of 16) a oneDNN matmul for every step's "
        "input gates and DCW's recurrence kernel; a C++ tasklet, not differentiable");
  r.add("", "GRU", decl(), [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Gru); },
        "one oneDNN gru_forward, or lbr_gru_forward for linear_before_reset = 1 (float32, default activations); a C++ tasklet, "
        "not differentiable");
  r.add("", "RNN", decl(), [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Rnn); },
        "one oneDNN vanilla_rnn_forward (float32; Tanh, Relu or Sigmoid); a C++ tasklet, not differentiable");
}

} // namespace dcw::expansions::onednn
