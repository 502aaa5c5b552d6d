// Pure expansions of the recurrent ops RNN, GRU and LSTM (see Ops.h): one LoopRegion over the time
// steps per direction, whose body states compute the gates with maps and tasklets.
//
// Shapes (layout 0; layout 1 swaps the first two dims of X, Y and the first two of the states):
//   X [T, B, I], W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H], sequence_lens [B], initial_h/initial_c [D, B, H],
//   P [D, 3H]  ->  Y [T, D, B, H], Y_h [D, B, H], Y_c [D, B, H]     (G = 1 RNN, 3 GRU (z r h), 4 LSTM (i o f c);
//   D = 2 when direction is bidirectional, else 1; every input after R and every output is optional).
//
// Per direction d (forward: t = 0 .. T-1, reverse: t = T-1 .. 0), state transients hs [B, H] (and cs):
//   before the loop   hs = initial_h[d] or 0 (cs likewise)
//   loop body         gx[b, g]  = Wb[g] + Rb[g]                    (GRU: gx = Wb, gh = Rb)
//                     gx[b, g] += X[t, b, i] * W[d, g, i]          (map b, g, i with WCR sum)
//                     gx[b, g] += hs[b, k] * R[d, g, k]            (GRU: into gh; only z, r when linear_before_reset = 0,
//                                                                   then gh2 = Rbh + (r * hs) Rh^T as a second product)
//                     hs[b, j], cs[b, j], Y[t, d, b, j] = the cell's equations over gx (map b, j)
//   after the loop    Y_h[d] = hs, Y_c[d] = cs
// Activations (activations / activation_alpha / activation_beta, ONNX defaults), clip (pre-activation
// clamp), linear_before_reset (GRU), input_forget (LSTM: f = 1 - i) and peepholes follow the ONNX spec.
// sequence_lens masks each batch entry: steps t >= len leave the state unchanged and write Y = 0, so
// that the reverse direction starts at len - 1 as the spec requires.
// Preconditions: float16/bfloat16/float32/float64 tensors of known rank 3 (X, W, R); float16 and
// bfloat16 compute in float32.
#include "core/expansions/RegionFlow.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/Ops.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

namespace dcw::expansions {

namespace {

using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;

// ---- tasklet text -----------------------------------------------------------------------------

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return v < 0 ? "(" + s + ")" : s;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Activation {
  std::string name; // lower case
  double alpha = 0, beta = 0;
};

bool usesAlpha(const std::string& n) {
  return n == "affine" || n == "leakyrelu" || n == "thresholdedrelu" || n == "scaledtanh" || n == "hardsigmoid" || n == "elu";
}
bool usesBeta(const std::string& n) { return n == "affine" || n == "scaledtanh" || n == "hardsigmoid"; }

std::pair<double, double> defaultAlphaBeta(const std::string& n) {
  if (n == "leakyrelu") return {0.01, 0};
  if (n == "hardsigmoid") return {0.2, 0.5};
  if (n == "affine" || n == "thresholdedrelu" || n == "elu") return {1.0, 0};
  if (n == "scaledtanh") return {1.0, 1.0};
  return {0, 0};
}

// The activation applied to the tasklet local `x` (a name, so that it may appear several times).
std::string apply(const Activation& a, const std::string& x) {
  const std::string al = number(a.alpha), be = number(a.beta);
  if (a.name == "relu") return "relu(" + x + ")";
  if (a.name == "tanh") return "tanh(" + x + ")";
  if (a.name == "sigmoid") return "sigmoid(" + x + ")";
  if (a.name == "affine") return al + " * " + x + " + " + be;
  if (a.name == "leakyrelu") return "(" + x + " >= 0 ? " + x + " : " + al + " * " + x + ")";
  if (a.name == "thresholdedrelu") return "(" + x + " > " + al + " ? " + x + " : 0.0)";
  if (a.name == "scaledtanh") return al + " * tanh(" + be + " * " + x + ")";
  if (a.name == "hardsigmoid") return "max(0.0, min(1.0, " + al + " * " + x + " + " + be + "))";
  if (a.name == "elu") return "(" + x + " >= 0 ? " + x + " : " + al + " * (exp(" + x + ") - 1.0))";
  if (a.name == "softsign") return x + " / (1.0 + abs(" + x + "))";
  if (a.name == "softplus") return "log(1.0 + exp(" + x + "))";
  return {};
}

enum class Cell { Rnn, Gru, Lstm };

struct Spec {
  const char* op;
  int gates;                           // gate blocks in W/R
  std::vector<std::string> defaults;   // activation functions per direction
};

Spec specOf(Cell c) {
  switch (c) {
  case Cell::Rnn: return {"RNN", 1, {"tanh"}};
  case Cell::Gru: return {"GRU", 3, {"sigmoid", "tanh"}};
  case Cell::Lstm: return {"LSTM", 4, {"sigmoid", "tanh", "tanh"}};
  }
  return {"RNN", 1, {"tanh"}};
}

// A subset text from index names ("rt, rb, ri").
std::string join(std::initializer_list<std::string> parts) {
  std::string s;
  for (auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

Result expandRecurrent(const ExpansionContext& ctx, Cell cell) {
  const Spec spec = specOf(cell);
  for (const char* c : {"X", "W", "R"})
    if (!ctx.hasIn(c)) return ctx.error(std::string("input ") + c + " must be connected");
  for (const char* c : {"X", "W", "R"}) {
    const auto& d = *ctx.in(c);
    if (!d.wrappers.empty() || !d.rankKnown || d.shape.size() != 3)
      return ctx.error(std::string("input ") + c + " must be a tensor of rank 3 (it is " + d.typeString() + ")",
                       "give the model static shapes (ONNX shape inference) before expanding");
  }
  for (const char* c : {"Y", "Y_h", "Y_c"})
    if (ctx.hasOut(c) && (!ctx.out(c)->rankKnown || !ctx.out(c)->wrappers.empty()))
      return ctx.error(std::string("output ") + c + " has an unknown rank", "give the model static shapes before expanding");
  const auto& X = *ctx.in("X");
  const DType dt = X.dtype;
  if (dt != DType::Float32 && dt != DType::Float64 && dt != DType::Float16 && dt != DType::BFloat16)
    return ctx.error("X has type " + std::string(ir::dtypeName(dt)) + "; RNN ops take floating-point tensors");
  const DType ct = dt == DType::Float64 ? DType::Float64 : DType::Float32;

  const int64_t layout = ctx.attrInt("layout", 0);
  if (layout != 0 && layout != 1) return ctx.error("layout must be 0 or 1 (it is " + std::to_string(layout) + ")");
  const std::string direction = ctx.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.error("direction '" + direction + "' is not forward, reverse or bidirectional");
  const int D = direction == "bidirectional" ? 2 : 1;

  const Expr T = X.shape[layout == 0 ? 0 : 1];
  const Expr Bn = X.shape[layout == 0 ? 1 : 0];
  const Expr I = X.shape[2];
  const Expr H = ctx.hasAttr("hidden_size") ? Expr(ctx.attrInt("hidden_size", 0)) : ctx.in("R")->shape[2];
  const int G = spec.gates;
  if (auto w = ctx.in("W")->shape[1].constantValue(), h = H.constantValue(); w && h && *w != G * *h)
    return ctx.error("W has " + std::to_string(*w) + " rows; " + std::to_string(G) + " gates of hidden_size " + std::to_string(*h) +
                     " need " + std::to_string(G * *h));
  if (auto d0 = ctx.in("W")->shape[0].constantValue(); d0 && *d0 != D)
    return ctx.error("W has " + std::to_string(*d0) + " directions; direction '" + direction + "' needs " + std::to_string(D));

  // Activations per direction, alphas and betas consumed in order by the functions that take them.
  std::vector<std::string> names;
  if (auto* a = ctx.node().attribute("activations"))
    if (auto* v = std::get_if<std::vector<std::string>>(&a->value)) names = *v;
  const size_t nf = spec.defaults.size();
  if (names.empty())
    for (int d = 0; d < D; ++d) names.insert(names.end(), spec.defaults.begin(), spec.defaults.end());
  else if (names.size() == nf && D == 2) {
    std::vector<std::string> once = names;
    names.insert(names.end(), once.begin(), once.end());
  }
  if (names.size() != nf * size_t(D))
    return ctx.error("activations lists " + std::to_string(names.size()) + " functions; " + spec.op + " with direction '" +
                     direction + "' takes " + std::to_string(nf * size_t(D)));
  std::vector<double> alphas = ctx.attrFloats("activation_alpha"), betas = ctx.attrFloats("activation_beta");
  size_t na = 0, nb = 0;
  std::vector<Activation> acts;
  for (auto& n : names) {
    Activation a{lower(n)};
    auto [da, db] = defaultAlphaBeta(a.name);
    a.alpha = da, a.beta = db;
    if (usesAlpha(a.name) && na < alphas.size()) a.alpha = alphas[na++];
    if (usesBeta(a.name) && nb < betas.size()) a.beta = betas[nb++];
    if (apply(a, "x").empty())
      return ctx.error("activation '" + n + "' is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                       "HardSigmoid, Elu, Softsign, Softplus");
    acts.push_back(a);
  }
  const bool hasClip = ctx.hasAttr("clip");
  const double clip = ctx.attrFloat("clip", 0);
  auto clipped = [&](const std::string& e) {
    return hasClip ? "min(max(" + e + ", " + number(-clip) + "), " + number(clip) + ")" : e;
  };
  const bool lbr = cell == Cell::Gru && ctx.attrInt("linear_before_reset", 0) != 0;
  const bool inputForget = cell == Cell::Lstm && ctx.attrInt("input_forget", 0) != 0;
  const bool hasB = ctx.hasIn("B"), hasLens = ctx.hasIn("sequence_lens"), hasH0 = ctx.hasIn("initial_h");
  const bool hasC0 = cell == Cell::Lstm && ctx.hasIn("initial_c"), hasP = cell == Cell::Lstm && ctx.hasIn("P");
  const bool hasY = ctx.hasOut("Y"), hasYh = ctx.hasOut("Y_h"), hasYc = cell == Cell::Lstm && ctx.hasOut("Y_c");

  SdfgBuilder b(ctx);
  RegionFlow flow(b);
  const std::string hs = b.transient("h_state", ct, {Bn, H});
  const std::string cs = cell == Cell::Lstm ? b.transient("c_state", ct, {Bn, H}) : std::string();
  const std::string gx = b.transient("gates_x", ct, {Bn, H * G});
  std::string gh, zt, rh, gh2;
  if (cell == Cell::Gru) {
    gh = b.transient("gates_h", ct, {Bn, H * (lbr ? 3 : 2)});
    if (!lbr) {
      zt = b.transient("z_gate", ct, {Bn, H});
      rh = b.transient("r_times_h", ct, {Bn, H});
      gh2 = b.transient("gates_hh", ct, {Bn, H});
    }
  }
  const std::string t = "rt", bi = "rb", g = "rg", i = "ri", j = "rj", k = "rk";
  const Expr Hx = H; // (readability below)
  auto rangeOf = [](const std::string& n, Expr size) { return MapParam{n, ir::Range::full(std::move(size))}; };
  auto statePair = [&](const std::string& d) { return layout == 0 ? join({d, bi, j}) : join({bi, d, j}); };
  const std::string xAt = layout == 0 ? join({t, bi, i}) : join({bi, t, i});

  for (int d = 0; d < D; ++d) {
    const std::string ds = std::to_string(d);
    const bool reverse = direction == "reverse" || d == 1;
    const Activation* f = &acts[size_t(d) * nf];
    // Initial state.
    flow.newState("init_state" + ds);
    std::vector<TaskletIn> ins;
    std::string code;
    std::vector<TaskletOut> outs{{"h", hs, join({bi, j}), ""}};
    if (hasH0) ins.push_back({"h0", "initial_h", statePair(ds)});
    code = std::string("h = ") + (hasH0 ? "h0" : "0.0");
    if (cell == Cell::Lstm) {
      if (hasC0) ins.push_back({"c0", "initial_c", statePair(ds)});
      code += std::string("; c = ") + (hasC0 ? "c0" : "0.0");
      outs.push_back({"c", cs, join({bi, j}), ""});
    }
    b.mappedTasklet("init_state", {rangeOf(bi, Bn), rangeOf(j, H)}, ins, code, outs);

    Expr tv = Expr::symbol(t);
    if (reverse) flow.beginLoop("reverse_steps", t, T - 1, sym::ge(tv, Expr(0)), tv - 1);
    else flow.beginLoop("forward_steps", t, Expr(0), sym::lt(tv, T), tv + 1);

    // gx = biases (GRU: gx = Wb, gh = Rb).
    const Expr GH = H * G;
    {
      std::vector<TaskletIn> bin;
      std::string bcode = "a = 0.0";
      if (hasB) {
        bin.push_back({"wb", "B", join({ds, g})});
        if (cell == Cell::Gru) bcode = "a = wb";
        else {
          bin.push_back({"rb", "B", ds + ", " + (GH + Expr::symbol(g)).str()});
          bcode = "a = wb + rb";
        }
      }
      b.mappedTasklet("bias", {rangeOf(bi, Bn), rangeOf(g, GH)}, bin, bcode, {{"a", gx, join({bi, g}), ""}});
      if (cell == Cell::Gru) {
        std::vector<TaskletIn> hin;
        if (hasB) hin.push_back({"rb", "B", ds + ", " + (GH + Expr::symbol(g)).str()});
        b.mappedTasklet("bias_h", {rangeOf(bi, Bn), rangeOf(g, H * (lbr ? 3 : 2))}, hin, hasB ? "a = rb" : "a = 0.0",
                        {{"a", gh, join({bi, g}), ""}});
      }
    }
    // gx += X[t] W^T
    flow.newState("input_product");
    b.mappedTasklet("input_product", {rangeOf(bi, Bn), rangeOf(g, GH), rangeOf(i, I)},
                    {{"x", "X", xAt}, {"w", "W", join({ds, g, i})}}, "a = x * w", {{"a", gx, join({bi, g}), "sum"}});
    // (gx or gh) += h R^T
    flow.newState("recurrent_product");
    const std::string target = cell == Cell::Gru ? gh : gx;
    const Expr rows = cell == Cell::Gru ? H * (lbr ? 3 : 2) : GH;
    b.mappedTasklet("recurrent_product", {rangeOf(bi, Bn), rangeOf(g, rows), rangeOf(k, H)},
                    {{"h", hs, join({bi, k})}, {"r", "R", join({ds, g, k})}}, "a = h * r", {{"a", target, join({bi, g}), "sum"}});

    // The cell: new state from the gate pre-activations.
    flow.newState("cell");
    auto at = [&](const std::string&, Expr offset) { return bi + ", " + (offset + Expr::symbol(j)).str(); };
    std::vector<TaskletIn> cin;
    std::string body;
    if (cell == Cell::Rnn) {
      cin.push_back({"gi", gx, at(gx, 0)});
      body = "let pre = " + clipped("gi") + "; let hn = " + apply(f[0], "pre");
    } else if (cell == Cell::Gru) {
      cin.push_back({"xz", gx, at(gx, 0)});
      cin.push_back({"xr", gx, at(gx, Hx)});
      cin.push_back({"hz", gh, at(gh, 0)});
      cin.push_back({"hr", gh, at(gh, Hx)});
      std::string zr = "let pz = " + clipped("xz + hz") + "; let z = " + apply(f[0], "pz") + "; let pr = " + clipped("xr + hr") +
                       "; let r = " + apply(f[0], "pr");
      if (lbr) {
        cin.push_back({"xh", gx, at(gx, Hx * 2)});
        cin.push_back({"hh", gh, at(gh, Hx * 2)});
        body = zr + "; let ph = " + clipped("xh + r * hh") + "; let ht = " + apply(f[1], "ph") +
               "; let hn = (1.0 - z) * ht + z * h";
      } else {
        // z and r * h first, then (r * h) Rh^T as a second product, then the candidate.
        cin.push_back({"h", hs, join({bi, j})});
        b.mappedTasklet("reset_gate", {rangeOf(bi, Bn), rangeOf(j, H)}, cin, zr + "; zo = z; rho = r * h",
                        {{"zo", zt, join({bi, j}), ""}, {"rho", rh, join({bi, j}), ""}});
        flow.newState("reset_product");
        std::vector<TaskletIn> hin;
        if (hasB) hin.push_back({"rb", "B", ds + ", " + (GH + H * 2 + Expr::symbol(j)).str()});
        b.mappedTasklet("bias_hh", {rangeOf(bi, Bn), rangeOf(j, H)}, hin, hasB ? "a = rb" : "a = 0.0", {{"a", gh2, join({bi, j}), ""}});
        b.mappedTasklet("reset_product", {rangeOf(bi, Bn), rangeOf(j, H), rangeOf(k, H)},
                        {{"rh", rh, join({bi, k})}, {"r", "R", ds + ", " + (H * 2 + Expr::symbol(j)).str() + ", " + k}}, "a = rh * r",
                        {{"a", gh2, join({bi, j}), "sum"}});
        flow.newState("cell");
        cin.clear();
        cin.push_back({"xh", gx, at(gx, Hx * 2)});
        cin.push_back({"hh", gh2, join({bi, j})});
        cin.push_back({"z", zt, join({bi, j})});
        body = "let ph = " + clipped("xh + hh") + "; let ht = " + apply(f[1], "ph") + "; let hn = (1.0 - z) * ht + z * h";
      }
    } else {
      cin.push_back({"gi", gx, at(gx, 0)});
      cin.push_back({"go", gx, at(gx, Hx)});
      cin.push_back({"gf", gx, at(gx, Hx * 2)});
      cin.push_back({"gc", gx, at(gx, Hx * 3)});
      cin.push_back({"c", cs, join({bi, j})});
      std::string pi, pf, po;
      if (hasP) {
        cin.push_back({"pi", "P", ds + ", " + j});
        cin.push_back({"po", "P", ds + ", " + (Hx + Expr::symbol(j)).str()});
        cin.push_back({"pf", "P", ds + ", " + (Hx * 2 + Expr::symbol(j)).str()});
        pi = " + pi * c", po = " + po * cn", pf = " + pf * c";
      }
      body = "let ai = " + clipped("gi" + pi) + "; let it = " + apply(f[0], "ai");
      if (inputForget) body += "; let ft = 1.0 - it";
      else body += "; let af = " + clipped("gf" + pf) + "; let ft = " + apply(f[0], "af");
      body += "; let ac = " + clipped("gc") + "; let ct = " + apply(f[1], "ac") + "; let cn = ft * c + it * ct";
      body += "; let ao = " + clipped("go" + po) + "; let ot = " + apply(f[0], "ao") + "; let hn = ot * " + apply(f[2], "cn");
    }
    if (cell == Cell::Gru || hasLens) cin.push_back({"h", hs, join({bi, j})});
    std::vector<TaskletOut> cout{{"ho", hs, join({bi, j}), ""}};
    if (hasLens) {
      // Steps past the batch entry's length keep the state and write 0.
      cin.push_back({"len", "sequence_lens", bi});
      body += "; let active = " + t + " < int64(len); ho = active ? hn : h";
      if (cell == Cell::Lstm) body += "; co = active ? cn : c";
      if (hasY) body += "; y = active ? hn : 0.0";
    } else {
      body += "; ho = hn";
      if (cell == Cell::Lstm) body += "; co = cn";
      if (hasY) body += "; y = hn";
    }
    if (cell == Cell::Lstm) cout.push_back({"co", cs, join({bi, j}), ""});
    if (hasY) cout.push_back({"y", "Y", layout == 0 ? join({t, ds, bi, j}) : join({bi, t, ds, j}), ""});
    // Drop a duplicate `h` input (GRU without linear_before_reset read it for the reset gate).
    std::vector<TaskletIn> uniq;
    for (auto& in : cin)
      if (std::none_of(uniq.begin(), uniq.end(), [&](const TaskletIn& u) { return u.connector == in.connector; })) uniq.push_back(in);
    b.mappedTasklet("cell", {rangeOf(bi, Bn), rangeOf(j, H)}, uniq, body, cout);
    flow.endLoop();

    // Final states.
    if (hasYh) b.mappedTasklet("final_h", {rangeOf(bi, Bn), rangeOf(j, H)}, {{"h", hs, join({bi, j})}}, "y = h",
                               {{"y", "Y_h", statePair(ds), ""}});
    if (hasYc) b.mappedTasklet("final_c", {rangeOf(bi, Bn), rangeOf(j, H)}, {{"c", cs, join({bi, j})}}, "y = c",
                               {{"y", "Y_c", statePair(ds), ""}});
    flow.sync();
  }
  return b.finish();
}

} // namespace

void registerRecurrent(ExpansionRegistry& r) {
  r.add("", "RNN", "pure", [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Rnn); },
        "Elman RNN: a loop over time steps per direction; gates as map products with WCR sum, cell as an elementwise map");
  r.add("", "GRU", "pure", [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Gru); },
        "GRU: a loop over time steps per direction; gate products with WCR sum, z/r/candidate as elementwise maps");
  r.add("", "LSTM", "pure", [](const ExpansionContext& c) { return expandRecurrent(c, Cell::Lstm); },
        "LSTM: a loop over time steps per direction; gate products with WCR sum, cell and hidden state as an elementwise map");
}

} // namespace dcw::expansions
