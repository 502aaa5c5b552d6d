// tst_CostAnalysis: analysis::analyzeCost on hand-built SDFGs — Conv, Gemm and MatMul formulas
// (2 FLOPs per multiply-add, bias adds; a dcw fused conv's sum and activation), symbolic costs in a `batch` symbol and their evaluation,
// bytes moved from memlet volumes, parameters from constant inputs, a map scope with a tasklet
// (iterations × operations), ops without a formula marked as estimates; and on tiny_resnet, that the
// model's parameters agree with the summary and every library node has a cost.
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "core/analysis/Cost.h"
#include "core/edit/History.h"
#include "transforms/ApplyTransformation.h"
#include "core/analysis/ModelSummary.h"
#include "core/io/ModelFile.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <QFileInfo>
#include <QTest>

#include <memory>

using namespace dcw;
using namespace dcw::ir;
using sym::Expr;

namespace {

std::shared_ptr<const Tensor> zeros(DType t, std::vector<int64_t> dims) {
  auto tensor = std::make_shared<Tensor>();
  tensor->dtype = t;
  tensor->dims = dims;
  tensor->bytes = std::make_shared<const std::string>(size_t(tensor->elementCount()) * dtypeSize(t), '\0');
  return tensor;
}

// X[batch,3,8,8] -> Conv(W[4,3,3,3], B[4]) -> Y[batch,4,6,6]
struct ConvModel {
  std::unique_ptr<Sdfg> sdfg = std::make_unique<Sdfg>("main");
  LibraryNode* conv = nullptr;
  ConvModel() {
    Expr batch = Expr::symbol("batch");
    sdfg->addSymbol("batch");
    sdfg->addArray("X", DType::Float32, {batch, 3, 8, 8});
    sdfg->addArray("W", DType::Float32, {4, 3, 3, 3})->constant = zeros(DType::Float32, {4, 3, 3, 3});
    sdfg->addArray("B", DType::Float32, {4})->constant = zeros(DType::Float32, {4});
    sdfg->addArray("Y", DType::Float32, {batch, 4, 6, 6});
    State* st = sdfg->addState("state0");
    auto* x = st->add<AccessNode>("X");
    auto* w = st->add<AccessNode>("W");
    auto* b = st->add<AccessNode>("B");
    auto* y = st->add<AccessNode>("Y");
    conv = st->add<LibraryNode>("Conv_0");
    conv->opType = "Conv";
    for (auto* n : {"X", "W", "B"}) conv->addIn({n, DType::Float32, false});
    conv->addOut({"Y", DType::Float32, false});
    st->addEdge(*x, "", *conv, "X", Memlet::full("X", sdfg->findData("X")->shape));
    st->addEdge(*w, "", *conv, "W", Memlet::full("W", sdfg->findData("W")->shape));
    st->addEdge(*b, "", *conv, "B", Memlet::full("B", sdfg->findData("B")->shape));
    st->addEdge(*conv, "Y", *y, "", Memlet::full("Y", sdfg->findData("Y")->shape));
  }
};

double at(const Expr& e, int64_t batch) { return *analysis::evaluate(e, {{"batch", batch}}); }

} // namespace

class TestCostAnalysis : public QObject {
  Q_OBJECT
private slots:
  // A C++ tasklet counts the FLOPs its implementation declared (times the enclosing iterations); one
  // without a declaration counts 0 FLOPs, marked estimated; bytes come from its memlets either way.
  void cppTaskletDeclaredOrUnknown() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addArray("A", DType::Float32, {Expr::symbol("N")});
    s.addArray("B", DType::Float32, {Expr::symbol("N")});
    s.addArray("C", DType::Float32, {Expr::symbol("N")});
    State* st = s.addState("s");
    auto* declared = st->add<Tasklet>("declared", "lib_call(A, B);", TaskletLanguage::Cpp);
    declared->flops = Expr(3) * Expr::symbol("N");
    declared->addIn({"A"});
    declared->addOut({"B"});
    st->addEdge(*st->add<AccessNode>("A"), "", *declared, "A", Memlet::full("A", {Expr::symbol("N")}));
    auto* b = st->add<AccessNode>("B");
    st->addEdge(*declared, "B", *b, "", Memlet::full("B", {Expr::symbol("N")}));
    auto* unknown = st->add<Tasklet>("unknown", "other_call(B, C);", TaskletLanguage::Cpp);
    unknown->addIn({"B"});
    unknown->addOut({"C"});
    st->addEdge(*b, "", *unknown, "B", Memlet::full("B", {Expr::symbol("N")}));
    st->addEdge(*unknown, "C", *st->add<AccessNode>("C"), "", Memlet::full("C", {Expr::symbol("N")}));
    auto r = analysis::analyzeCost(s);
    const auto* d = r.find(declared->id());
    QVERIFY(d);
    QCOMPARE(d->flops, Expr(3) * Expr::symbol("N"));
    QVERIFY(!d->estimated);
    QCOMPARE(*analysis::evaluate(d->bytes(), {{"N", 10}}), 80.0);
    const auto* u = r.find(unknown->id());
    QVERIFY(u);
    QCOMPARE(u->flops, Expr(0));
    QVERIFY(u->estimated);
    QVERIFY(r.total.estimated);
  }

  void convFormula() {
    ConvModel m;
    auto report = analysis::analyzeCost(*m.sdfg);
    const analysis::NodeCost* c = report.find(m.conv->id());
    QVERIFY(c);
    QVERIFY(!c->estimated);
    // |Y| = batch*4*6*6 = 144 batch; 2 * |Y| * (3*3*3) + |Y| (bias)
    QCOMPARE(at(c->flops, 1), 2.0 * 144 * 27 + 144);
    QCOMPARE(at(c->flops, 8), 8 * (2.0 * 144 * 27 + 144));
    QCOMPARE(c->parameters, int64_t(4 * 27 + 4));
    // Bytes: X (192 batch) + W (108) + B (4) read, Y (144 batch) written, 4 bytes each.
    QCOMPARE(at(c->bytesRead, 2), 4.0 * (192 * 2 + 108 + 4));
    QCOMPARE(at(c->bytesWritten, 2), 4.0 * 144 * 2);
    QVERIFY(report.symbols.count("batch"));
    QCOMPARE(report.total.parameters, int64_t(112));
    QCOMPARE(at(report.total.flops, 3), at(c->flops, 3));
    QVERIFY(QString::fromStdString(c->flops.str()).contains(QStringLiteral("batch")));
  }

  // A dcw::FusedConv (core/expansions/FusedOp.h) with Z and an activation: the Conv's formula plus one
  // FLOP per output element for each.
  void fusedConvFormula() {
    ConvModel m;
    Expr batch = Expr::symbol("batch");
    m.sdfg->addArray("Z", DType::Float32, {batch, 4, 6, 6});
    State* st = m.sdfg->allStates()[0];
    m.conv->domain = "dcw";
    m.conv->opType = "FusedConv";
    m.conv->addIn({"Z", DType::Float32, true});
    m.conv->attributes.push_back(Attribute{"activation", std::string("Relu")});
    st->addEdge(*st->add<AccessNode>("Z"), "", *m.conv, "Z", Memlet::full("Z", m.sdfg->findData("Z")->shape));
    auto report = analysis::analyzeCost(*m.sdfg);
    const analysis::NodeCost* c = report.find(m.conv->id());
    QVERIFY(c);
    QVERIFY(!c->estimated);
    QCOMPARE(at(c->flops, 1), 2.0 * 144 * 27 + 144 + 2 * 144);
  }

  void gemmMatMulAndUnknown() {
    Sdfg s("main");
    s.addArray("A", DType::Float32, {5, 7});
    s.addArray("B", DType::Float32, {7, 3});
    s.addArray("Y", DType::Float32, {5, 3});
    s.addArray("Z", DType::Float32, {5, 3});
    s.addArray("U", DType::Float32, {5, 3});
    State* st = s.addState("s");
    auto *a = st->add<AccessNode>("A"), *b = st->add<AccessNode>("B"), *y = st->add<AccessNode>("Y");
    auto *z = st->add<AccessNode>("Z"), *u = st->add<AccessNode>("U");
    auto* mm = st->add<LibraryNode>("mm");
    mm->opType = "MatMul";
    mm->addIn({"A", DType::Float32, false});
    mm->addIn({"B", DType::Float32, false});
    mm->addOut({"Y", DType::Float32, false});
    st->addEdge(*a, "", *mm, "A", Memlet::full("A", {5, 7}));
    st->addEdge(*b, "", *mm, "B", Memlet::full("B", {7, 3}));
    st->addEdge(*mm, "Y", *y, "", Memlet::full("Y", {5, 3}));
    auto* relu = st->add<LibraryNode>("relu");
    relu->opType = "Relu";
    relu->addIn({"X", DType::Float32, false});
    relu->addOut({"Y", DType::Float32, false});
    st->addEdge(*y, "", *relu, "X", Memlet::full("Y", {5, 3}));
    st->addEdge(*relu, "Y", *z, "", Memlet::full("Z", {5, 3}));
    auto* odd = st->add<LibraryNode>("odd");
    odd->opType = "SomethingNew";
    odd->addIn({"X", DType::Float32, false});
    odd->addOut({"Y", DType::Float32, false});
    st->addEdge(*z, "", *odd, "X", Memlet::full("Z", {5, 3}));
    st->addEdge(*odd, "Y", *u, "", Memlet::full("U", {5, 3}));
    auto r = analysis::analyzeCost(s);
    QCOMPARE(*r.find(mm->id())->flops.constantValue(), int64_t(2 * 15 * 7));
    QCOMPARE(*r.find(relu->id())->flops.constantValue(), int64_t(15));
    QVERIFY(!r.find(relu->id())->estimated);
    QVERIFY(r.find(odd->id())->estimated); // no formula: one FLOP per output element
    QCOMPARE(*r.find(odd->id())->flops.constantValue(), int64_t(15));
    QCOMPARE(*r.total.flops.constantValue(), int64_t(210 + 15 + 15));
    QVERIFY(r.symbols.empty());
  }

  void mapScope() {
    Sdfg s("main");
    Expr n = Expr::symbol("N");
    s.addSymbol("N");
    s.addArray("A", DType::Float64, {n});
    s.addArray("B", DType::Float64, {n});
    State* st = s.addState("s");
    auto *a = st->add<AccessNode>("A"), *b = st->add<AccessNode>("B");
    auto* entry = st->add<MapEntry>("m");
    entry->params = {"i"};
    entry->range = Subset({Range::full(n)});
    auto* exit = st->add<MapExit>("m_exit");
    entry->exitId = exit->id();
    exit->entryId = entry->id();
    auto* t = st->add<Tasklet>("t", "b = a * 2 + 1");
    Subset one({Range::index(Expr::symbol("i"))});
    st->addEdge(*a, "", *entry, "IN_A", Memlet::full("A", {n}));
    st->addEdge(*entry, "OUT_A", *t, "a", Memlet::simple("A", one));
    st->addEdge(*t, "b", *exit, "IN_B", Memlet::simple("B", one));
    st->addEdge(*exit, "OUT_B", *b, "", Memlet::full("B", {n}));
    auto r = analysis::analyzeCost(s);
    auto eval = [](const Expr& e) { return *analysis::evaluate(e, {{"N", 10}}); };
    QCOMPARE(eval(r.find(t->id())->flops), 20.0);      // 2 ops x 10 iterations
    QCOMPARE(eval(r.find(entry->id())->flops), 20.0);  // the scope holds the tasklet
    QCOMPARE(eval(r.find(entry->id())->bytesRead), 80.0);
    QCOMPARE(eval(r.find(entry->id())->bytesWritten), 80.0);
    QCOMPARE(eval(r.total.flops), 20.0);               // counted once, through the map
  }

  // Tiling keeps the counted work: the tile parameters are bound, never free symbols, and whole tiles
  // give the exact count (the conv map of tiny_resnet's block1.conv1, 16 channels in tiles of 4).
  void tiledMapsCountTheSameWork() {
    auto m = dcw::io::loadModel(testpaths::source("/resources/examples/tiny_resnet.onnx"));
    QVERIFY(m);
    auto& s = *m->sdfg;
    dcw::edit::History h(s);
    QVERIFY(h.execute(std::make_unique<dcw::transforms::ApplyTransformation>(
        dcw::transforms::Match{"ExpandLibraryNode", {{"node", "main/state0/block1.conv1.Conv"}}, {}})));
    auto before = dcw::analysis::analyzeCost(s);
    QVERIFY(h.execute(std::make_unique<dcw::transforms::ApplyTransformation>(dcw::transforms::Match{
        "MapTiling", {{"entry", "main/state0/block1.conv1.Conv/compute1/conv_map"}}, {{"tile_sizes", "4"}}})));
    auto after = dcw::analysis::analyzeCost(s);
    QCOMPARE(after.symbols, before.symbols);
    auto flops = [](const dcw::analysis::CostReport& r) { return dcw::analysis::evaluate(r.total.flops, {{"batch", 2}}, 1); };
    QVERIFY(flops(before).has_value());
    QCOMPARE(*flops(after), *flops(before));
  }

  void formatting() {
    QCOMPARE(QString::fromStdString(analysis::formatCount(512)), QStringLiteral("512"));
    QCOMPARE(QString::fromStdString(analysis::formatCount(1234567)), QStringLiteral("1.23 M"));
    QCOMPARE(QString::fromStdString(analysis::formatCount(4.1e9)), QStringLiteral("4.10 G"));
    QVERIFY(!analysis::evaluate(Expr::symbol("x") * Expr(int64_t(1) << 40), {{"x", int64_t(1) << 40}}));
  }

  void tinyResnet() {
    const QString path = testpaths::qsource("/resources/examples/tiny_resnet.onnx");
    DCW_REQUIRE_FIXTURE(path);
    auto m = io::loadModel(path.toStdString());
    QVERIFY(m.ok());
    auto summary = analysis::summarize(*m->sdfg);
    auto r = analysis::analyzeCost(*m->sdfg);
    QCOMPARE(r.total.parameters, summary.parameterCount);
    int libraryNodes = 0;
    for (State* st : m->sdfg->allStates())
      for (auto& n : st->nodes())
        if (n->kind() == ElementKind::LibraryNode) {
          ++libraryNodes;
          QVERIFY(r.find(n->id()));
        }
    QVERIFY(libraryNodes > 10);
    auto flops = analysis::evaluate(r.total.flops, {{"batch", 1}});
    QVERIFY(flops && *flops > 1e6);
  }
};

QTEST_MAIN(TestCostAnalysis)
#include "tst_CostAnalysis.moc"
