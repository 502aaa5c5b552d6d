// tst_Autodiff: reverse-mode autodiff over the IR (transforms/autodiff).
//  - gradients: per op (one small float64 ONNX model each, tests/data/autodiff, written by
//    tests/models/autodiff_models.py), the Differentiate command applied through a History (undo and
//    redo must restore the model byte for byte), the result compiled and run, and every gradient
//    output compared with central finite differences of the summed outputs (double precision);
//  - store vs recompute: identical gradients, different storedBytes; intermediatesNeeded agrees;
//  - loops (ONNX Loop, Scan, RNN, GRU, LSTM in float64): reversed with per-iteration stores, same
//    finite-difference check (and undo exactness) as the ops; a while-loop and an If are refused;
//  - seeds: a seed input of ones gives the gradient of the sum;
//  - refusals: integer output, wrt that is not an input, unknown output — each named, nothing changed;
//  - the script line round-trips through Differentiate::parse.
#include "support/TestPaths.h"
#include "support/TransformTestSupport.h"

#include "core/edit/ScriptSyntax.h"
#include "core/ir/AccessNode.h"
#include "transforms/autodiff/Autodiff.h"
#include "transforms/autodiff/Differentiate.h"
#include "transforms/AutoOptimize.h"
#include "transforms/Script.h"

#include <cmath>
#include <cstring>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

std::string modelPath(const std::string& name) { return testpaths::source("/tests/data/autodiff/") + name + ".onnx"; }

std::unique_ptr<Sdfg> importModel(const std::string& name) {
  auto m = io::loadModel(modelPath(name));
  if (!m) {
    qWarning("%s", m.error().str().c_str());
    return nullptr;
  }
  return std::move(m->sdfg);
}

std::unique_ptr<Sdfg> copyOf(const Sdfg& s) {
  auto c = serialize::fromJson(serialize::toJson(s));
  return c ? std::move(*c) : nullptr;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(size_t(t.elementCount()));
  if (t.dtype == DType::Float64) std::memcpy(v.data(), t.bytes->data(), v.size() * sizeof(double));
  else if (t.dtype == DType::Float32) {
    std::vector<float> f(v.size());
    std::memcpy(f.data(), t.bytes->data(), f.size() * sizeof(float));
    for (size_t i = 0; i < v.size(); ++i) v[i] = f[i];
  }
  return v;
}

Tensor withValues(const Tensor& like, const std::vector<double>& v) {
  Tensor t = like;
  t.bytes = std::make_shared<std::string>(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  return t;
}

double sumOf(const std::vector<Tensor>& outs, size_t count) {
  double s = 0;
  for (size_t i = 0; i < count && i < outs.size(); ++i)
    for (double x : values(outs[i])) s += x;
  return s;
}

std::vector<std::string> floatInputs(const Sdfg& s) {
  std::vector<std::string> out;
  for (auto& n : s.inputs)
    if (auto* d = s.findData(n); d && isFloating(d->dtype)) out.push_back(n);
  return out;
}

std::vector<std::unique_ptr<edit::Command>> one(autodiff::Request r) {
  std::vector<std::unique_ptr<edit::Command>> v;
  v.push_back(std::make_unique<autodiff::Differentiate>(std::move(r)));
  return v;
}

// Runs the differentiated model and compares each gradient output with central differences of the
// forward model's summed outputs. Returns "" or what differs.
std::string compareWithFiniteDifferences(const Sdfg& forward, const Sdfg& diff, const std::vector<std::string>& wrt,
                                         bool positive, double* worst) {
  auto ex = codegen::Executor::create(forward);
  if (!ex) return "forward does not compile: " + ex.error().str();
  auto dx = codegen::Executor::create(diff);
  if (!dx) return "differentiated model does not compile: " + dx.error().str();
  auto in = codegen::randomInputs((*ex)->code().signature, 11);
  if (!in) return "no random inputs: " + in.error().str();
  std::vector<Tensor> inputs = *in;
  for (auto& t : inputs)
    if (t.dtype == DType::Float64) {
      auto v = values(t);
      for (auto& x : v) x = positive ? std::fabs(x) + 0.5 : x;
      t = withValues(t, v);
    }
  auto outs = (*dx)->run(inputs);
  if (!outs) return "differentiated model fails to run: " + outs.error().str();
  size_t nOut = forward.outputs.size();
  if (outs->size() != nOut + wrt.size()) return "unexpected number of outputs";
  const double h = 1e-6;
  *worst = 0;
  for (size_t k = 0; k < wrt.size(); ++k) {
    size_t idx = size_t(std::find(forward.inputs.begin(), forward.inputs.end(), wrt[k]) - forward.inputs.begin());
    std::vector<double> grad = values((*outs)[nOut + k]);
    std::vector<double> x = values(inputs[idx]);
    if (grad.size() != x.size()) return "gradient of " + wrt[k] + " has the wrong size";
    for (size_t j = 0; j < x.size(); ++j) {
      auto plus = inputs, minus = inputs;
      auto xp = x, xm = x;
      xp[j] += h;
      xm[j] -= h;
      plus[idx] = withValues(inputs[idx], xp);
      minus[idx] = withValues(inputs[idx], xm);
      auto fp = (*ex)->run(plus);
      auto fm = (*ex)->run(minus);
      if (!fp || !fm) return "forward fails to run";
      double fd = (sumOf(*fp, nOut) - sumOf(*fm, nOut)) / (2 * h);
      double err = std::fabs(fd - grad[j]);
      *worst = std::max(*worst, err);
      if (!(err <= 1e-5 + 1e-4 * std::fabs(fd)))
        return "d/d" + wrt[k] + "[" + std::to_string(j) + "]: autodiff " + std::to_string(grad[j]) + ", finite differences " +
               std::to_string(fd);
    }
  }
  return {};
}

// Differentiates every output of `m` w.r.t. its float inputs (the Differentiate command through a
// History: undo and redo exact) and compares the gradients with finite differences of `forward`.
// Returns "" or what failed.
std::string differentiatedMatchesFiniteDifferences(Sdfg& m, const Sdfg& forward, bool positive, double* worst) {
  autodiff::Request req;
  req.of = m.outputs;
  req.wrt = floatInputs(m);
  if (!checkSteps(m, one(req), 0, false)) return "the Differentiate step failed (see the warning above)";
  return compareWithFiniteDifferences(forward, m, req.wrt, positive, worst);
}

} // namespace

class TestAutodiff : public QObject {
  Q_OBJECT

private slots:
  // A node whose chosen implementation is opaque C++ (`onednn`) cannot be differentiated: refused at
  // the node before anything changes, pointing to `pure`; an already expanded C++ tasklet likewise,
  // naming the node it came from.
  void refusesOpaqueImplementation() {
    // Y[4, 3] = A[4, 5] x B[5, 3], float32 (what `onednn` supports).
    auto m = std::make_unique<Sdfg>("main");
    using sym::Expr;
    m->addArray("A", DType::Float32, {Expr(4), Expr(5)});
    m->addArray("B", DType::Float32, {Expr(5), Expr(3)});
    m->addArray("Y", DType::Float32, {Expr(4), Expr(3)});
    m->inputs = {"A", "B"};
    m->outputs = {"Y"};
    State* st = m->addState("state0");
    auto* mm = st->add<LibraryNode>("MatMul_0");
    mm->opType = "MatMul";
    mm->opsetVersion = 13;
    mm->addIn({"A", DType::Float32, false});
    mm->addIn({"B", DType::Float32, false});
    mm->addOut({"Y", DType::Float32, false});
    st->addEdge(*st->add<AccessNode>("A"), "", *mm, "A", Memlet::full("A", {Expr(4), Expr(5)}));
    st->addEdge(*st->add<AccessNode>("B"), "", *mm, "B", Memlet::full("B", {Expr(5), Expr(3)}));
    st->addEdge(*mm, "Y", *st->add<AccessNode>("Y"), "", Memlet::full("Y", {Expr(4), Expr(3)}));
    mm->implementation = "onednn";
    const std::string path = pathOf(*mm);
    const std::string before = serialize::toJson(*m);
    autodiff::Request req;
    req.of = m->outputs;
    req.wrt = floatInputs(*m);
    {
      edit::Editor ed(*m);
      auto r = autodiff::differentiate(ed, req);
      QVERIFY(!r);
      QCOMPARE(QString::fromStdString(r.error().location), QString::fromStdString(path + " (MatMul)"));
      QVERIFY2(QString::fromStdString(r.error().message).contains("implementation 'onednn' is opaque C++ and not differentiable"),
               r.error().str().c_str());
      QCOMPARE(QString::fromStdString(r.error().hint),
               QString::fromStdString("choose the `pure` implementation for it (set " + path + " implementation=pure)"));
    }
    QCOMPARE(serialize::toJson(*m), before);

    QVERIFY(expansions::expandAll(*m)); // now a C++ tasklet inside the node's expansion
    edit::Editor ed(*m);
    auto r = autodiff::differentiate(ed, req);
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().message).contains("it is opaque C++ (implementation 'onednn' of MatMul node '" + QString::fromStdString(path) + "')"),
             r.error().str().c_str());
    QVERIFY2(QString::fromStdString(r.error().hint).contains("set " + QString::fromStdString(path) + " implementation=pure"),
             r.error().str().c_str());
  }

  void gradients_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("positive"); // inputs made positive (log, sqrt, pow, div)
    const std::vector<std::pair<const char*, bool>> rows{
        {"matmul", false}, {"matmul_batched", false}, {"gemm", false}, {"gemm_trans", false}, {"add_bcast", false},
        {"sub_bcast", false}, {"mul_bcast", false}, {"div_bcast", true}, {"relu", false}, {"leakyrelu", false},
        {"sigmoid", false}, {"tanh", false}, {"exp", false}, {"log", true}, {"sqrt", true}, {"pow", true}, {"erf", false},
        {"softmax", false}, {"softmax_axis0", false}, {"logsoftmax", false}, {"reducesum", false}, {"reducemean", false},
        {"reducemax", false}, {"reshape", false}, {"transpose", false}, {"concat", false}, {"split", false}, {"slice", false},
        {"gather", false}, {"where", false}, {"clip", false}, {"expand", false}, {"squeeze", false}, {"unsqueeze", false},
        {"flatten", false}, {"conv", false}, {"conv_grouped", false}, {"maxpool", false}, {"averagepool", false},
        {"globalaveragepool", false}, {"batchnorm", false}, {"batchnorm_training", false}, {"layernorm", false},
        {"gelu", false}, {"einsum", false}, {"cast", false}, {"dropout", false}, {"softmax_cross_entropy", false},
        {"nll", false}, {"mse", false}, {"mlp", false},
        // Loops reversed, per-iteration values stored (float64).
        {"loop_accumulate", false}, {"scan_cumsum", false}, {"scan_cumprod", false}, {"rnn", false}, {"gru", false},
        {"lstm", false}, {"rnn_reverse", false}};
    for (auto& [name, pos] : rows) QTest::newRow(name) << QString(name) << pos;
  }

  void gradients() {
    QFETCH(QString, model);
    QFETCH(bool, positive);
    auto m = importModel(model.toStdString());
    QVERIFY(m);
    auto forward = copyOf(*m);
    QVERIFY(forward);
    auto ex = expansions::expandAll(*forward);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    double worst = 0;
    std::string problem = differentiatedMatchesFiniteDifferences(*m, *forward, positive, &worst);
    QVERIFY2(problem.empty(), problem.c_str());
    qInfo("%s: largest |autodiff - finite differences| = %.3g", model.toStdString().c_str(), worst);
  }

  // A map turned into a counted loop (MapToForLoop) stays differentiable: the loop is reversed.
  void differentiatesAfterMapToForLoop() {
    auto m = importModel("sigmoid");
    QVERIFY(m);
    QVERIFY(expansions::expandAll(*m));
    auto forward = copyOf(*m);
    // One-dimensional maps first (MapExpansion), then the outermost becomes a loop.
    {
      edit::History h(*m);
      QVERIFY(h.execute(applyCmd(transforms::Match{"MapExpansion", {{"entry", pathOf(*allNodes<MapEntry>(*m).front())}}, {}})));
      h.truncate();
    }
    const MapEntry* outer = nullptr;
    for (auto* me : allNodes<MapEntry>(*m)) {
      bool top = true;
      for (auto* e : me->parent()->inEdges(me->id()))
        if (dynamic_cast<MapEntry*>(me->parent()->node(e->src))) top = false;
      if (top && me->params.size() == 1) outer = me;
    }
    QVERIFY(outer);
    QVERIFY2(outer->params.size() == 1, pathOf(*outer).c_str());
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(applyCmd(transforms::Match{"MapToForLoop", {{"entry", pathOf(*outer)}}, {}}));
    autodiff::Request req;
    req.of = m->outputs;
    req.wrt = floatInputs(*m);
    steps.push_back(std::make_unique<autodiff::Differentiate>(req));
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    double worst = 0;
    std::string problem = compareWithFiniteDifferences(*forward, *m, req.wrt, false, &worst);
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // Auto-optimize for the pure path keeps the model differentiable: its map steps (MapDimShuffle,
  // MapFlatten's merged parameters read as p // W and p % W) differentiate, and the gradients match
  // finite differences of the model as imported.
  void differentiatesAfterPureAutoOptimize() {
    for (const char* name : {"conv", "sigmoid", "batchnorm", "layernorm"}) {
      auto m = importModel(name);
      QVERIFY(m);
      auto forward = copyOf(*m);
      QVERIFY(expansions::expandAll(*forward));
      {
        edit::History h(*m);
        transforms::AutoOptimizeOptions o;
        o.prefer = {"pure"};
        auto r = transforms::autoOptimize(h, o);
        QVERIFY2(r, r ? "" : r.error().str().c_str());
        const std::string script = transforms::writeScript(h, name, "");
        QVERIFY2(script.find("apply MapFlatten ") != std::string::npos, script.c_str());
        h.truncate();
      }
      double worst = 0;
      std::string problem = differentiatedMatchesFiniteDifferences(*m, *forward, false, &worst);
      QVERIFY2(problem.empty(), (std::string(name) + ": " + problem).c_str());
      qInfo("%s after auto-optimize: largest |autodiff - finite differences| = %.3g", name, worst);
    }
  }

  void storeVersusRecompute() {
    auto base = importModel("mlp");
    QVERIFY(base);
    auto storeModel = copyOf(*base);
    auto recModel = copyOf(*base);
    autodiff::Request req;
    req.of = base->outputs;
    req.wrt = floatInputs(*base);
    edit::Editor es(*storeModel);
    auto rs = autodiff::differentiate(es, req);
    QVERIFY2(rs, rs ? "" : rs.error().str().c_str());
    QVERIFY(!rs->stored.empty());
    auto needed = autodiff::intermediatesNeeded(*base, req);
    QVERIFY2(needed, needed ? "" : needed.error().str().c_str());
    QCOMPARE(int(needed->size()), int(rs->stored.size()));
    int64_t sum = 0;
    for (auto& [n, b] : *needed) sum += b;
    QCOMPARE(sum, rs->storedBytes);

    autodiff::Request rreq = req;
    for (auto& s : rs->stored) rreq.keep[s] = autodiff::Keep::Recompute;
    edit::Editor er(*recModel);
    auto rr = autodiff::differentiate(er, rreq);
    QVERIFY2(rr, rr ? "" : rr.error().str().c_str());
    QVERIFY(rr->recomputedBytes > 0);
    QVERIFY(rr->storedBytes != rs->storedBytes);
    qInfo("mlp: store keeps %lld bytes (%zu intermediates); recompute keeps %lld bytes, recomputes %lld",
          (long long)rs->storedBytes, rs->stored.size(), (long long)rr->storedBytes, (long long)rr->recomputedBytes);

    auto inputs = randomInputsFor(*storeModel, 5);
    auto a = runModel(*storeModel, inputs);
    auto b = runModel(*recModel, inputs);
    QVERIFY(!a.empty());
    QCOMPARE(a.size(), b.size());
    auto d = codegen::compareOutputs(a, b);
    QVERIFY2(d.mismatch.empty(), d.mismatch.c_str());
    QCOMPARE(d.maxAbs, 0.0);

    // The recompute choice also goes through the command and undoes exactly.
    auto viaCommand = copyOf(*base);
    QVERIFY(checkSteps(*viaCommand, one(rreq), 0, false));
  }

  // A reversed loop stores what the backward reads per iteration ([trip, ...] transients written by a
  // new state of the forward body) and reports them; the RNN's hidden state is among them.
  void loopsStorePerIterationValues() {
    auto m = importModel("rnn");
    QVERIFY(m);
    autodiff::Request req;
    req.of = m->outputs;
    req.wrt = floatInputs(*m);
    edit::Editor ed(*m);
    auto r = autodiff::differentiate(ed, req);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    const std::string json = serialize::toJson(*m);
    QVERIFY2(json.find("h_state_store") != std::string::npos, "no per-iteration store of the hidden state");
    QVERIFY(json.find("bwd_forward_steps") != std::string::npos);
    QVERIFY(json.find("store_") != std::string::npos);
  }

  void seedsGiveTheGradientOfTheSum() {
    auto base = importModel("matmul");
    QVERIFY(base);
    auto summed = copyOf(*base);
    auto seeded = copyOf(*base);
    autodiff::Request req;
    req.of = base->outputs;
    req.wrt = floatInputs(*base);
    edit::Editor e1(*summed);
    QVERIFY(autodiff::differentiate(e1, req));
    req.sumOutputs = false;
    edit::Editor e2(*seeded);
    auto r = autodiff::differentiate(e2, req);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(r->seeds.size(), size_t(1));
    QCOMPARE(r->seeds.front(), base->outputs.front() + "_seed");
    QCOMPARE(seeded->inputs.back(), r->seeds.front());
    QCOMPARE(r->gradients, (std::vector<std::string>{"A_grad", "B_grad"}));

    auto inputs = randomInputsFor(*summed, 3);
    auto a = runModel(*summed, inputs);
    Tensor ones = inputs.front();
    const DataDescriptor* yd = seeded->findData(r->seeds.front());
    ones.dims.clear();
    for (auto& e : yd->shape) ones.dims.push_back(*e.constantValue());
    ones = withValues(ones, std::vector<double>(size_t(ones.elementCount()), 1.0));
    auto withSeed = inputs;
    withSeed.push_back(ones);
    auto b = runModel(*seeded, withSeed);
    QVERIFY(!a.empty() && !b.empty());
    auto d = codegen::compareOutputs(a, b);
    QVERIFY2(d.mismatch.empty(), d.mismatch.c_str());
    QVERIFY(d.maxAbs < 1e-12);
  }

  void refusals_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("of");
    QTest::addColumn<QString>("wrt");
    QTest::addColumn<QString>("message");
    QTest::newRow("integer output") << "int_output" << "idx" << "X" << "output 'idx' has type int64";
    QTest::newRow("wrt not an input") << "mlp" << "y_w" << "h" << "'h' is not an input or a constant";
    QTest::newRow("not an output") << "mlp" << "h" << "X" << "'h' is not an output";
    QTest::newRow("integer constant") << "gather" << "y_w" << "ind" << "'ind' has type int64";
    QTest::newRow("unknown name") << "mlp" << "y_w" << "nope" << "'nope' is not an input";
    QTest::newRow("while loop") << "loop_while" << "y_w" << "x" << "which is not a bound on loop_i";
    QTest::newRow("conditional") << "if_branch" << "y_w" << "x" << "conditional region";
  }

  void refusals() {
    QFETCH(QString, model);
    QFETCH(QString, of);
    QFETCH(QString, wrt);
    QFETCH(QString, message);
    auto m = importModel(model.toStdString());
    QVERIFY(m);
    const std::string before = serialize::toJson(*m);
    edit::History h(*m);
    autodiff::Request req;
    req.of = {of.toStdString()};
    req.wrt = {wrt.toStdString()};
    auto r = h.execute(std::make_unique<autodiff::Differentiate>(req));
    QVERIFY(!r);
    QVERIFY2(r.error().str().find(message.toStdString()) != std::string::npos, r.error().str().c_str());
    QCOMPARE(serialize::toJson(*m), before);
  }

  void scriptLineRoundTrips() {
    autodiff::Request req;
    req.of = {"loss"};
    req.wrt = {"x", "W 1"};
    req.sumOutputs = false;
    req.keep["t1"] = autodiff::Keep::Recompute;
    autodiff::Differentiate cmd(req);
    QCOMPARE(cmd.title(), std::string("Differentiate loss w.r.t. x, W 1"));
    auto tokens = edit::tokenizeLine(cmd.scriptLine(), "test");
    QVERIFY(tokens);
    QCOMPARE((*tokens)[0].value, std::string("differentiate"));
    auto parsed = autodiff::Differentiate::parse(*tokens, "test");
    QVERIFY2(parsed, parsed ? "" : parsed.error().str().c_str());
    QCOMPARE((*parsed)->scriptLine(), cmd.scriptLine());
    auto bad = autodiff::Differentiate::parse(*edit::tokenizeLine("differentiate of=a", "t"), "t");
    QVERIFY(!bad);
    // Summing is said explicitly; a line without sum=true or seeds=true expects a scalar loss.
    for (const char* line : {"differentiate of=y wrt=x sum=true", "differentiate of=y wrt=x"}) {
      auto p = autodiff::Differentiate::parse(*edit::tokenizeLine(line, "t"), "t");
      QVERIFY(p);
      QCOMPARE((*p)->scriptLine(), std::string(line));
    }
    QVERIFY(!autodiff::Differentiate::parse(*edit::tokenizeLine("differentiate of=y wrt=x sum=true seeds=true", "t"), "t"));
  }

  // A non-scalar output without sum=true or seeds=true is refused, naming it; nothing changes.
  void nonScalarLossNeedsSumOrSeeds() {
    auto m = importModel("matmul");
    QVERIFY(m);
    const std::string before = serialize::toJson(*m);
    edit::History h(*m);
    auto cmd = transforms::parseCommand("differentiate of=" + m->outputs.front() + " wrt=" + floatInputs(*m).front(), "t:1");
    QVERIFY(cmd);
    auto r = h.execute(std::move(*cmd));
    QVERIFY(!r);
    QVERIFY2(r.error().str().find("is not a scalar loss") != std::string::npos, r.error().str().c_str());
    QVERIFY(r.error().str().find("sum=true") != std::string::npos);
    QCOMPARE(serialize::toJson(*m), before);
    auto ok = transforms::parseCommand("differentiate of=" + m->outputs.front() + " wrt=" + floatInputs(*m).front() + " sum=true", "t:2");
    QVERIFY(ok);
    QVERIFY(h.execute(std::move(*ok)));
  }
};

QTEST_GUILESS_MAIN(TestAutodiff)
#include "tst_Autodiff.moc"
