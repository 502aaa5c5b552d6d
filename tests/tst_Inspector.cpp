// tst_Inspector: views::PropertyModel, the property inspector's model — groups and rows for a library
// node (operator, attributes, connectors with dtypes, memlets and symbolic → concrete shapes, cost),
// an access node (descriptor: shape, strides, storage, lifetime), a dataflow edge (memlet subset and
// volume), a map (ranges, schedule, iterations) and the root SDFG (model totals); unknown ids give an
// empty model; QAbstractItemModelTester watches every reset.
#include "views/PropertyModel.h"

#include "core/analysis/Cost.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace dcw;
using namespace dcw::ir;
using dcw::views::PropertyModel;

class TestInspector : public QObject {
  Q_OBJECT
  std::unique_ptr<Sdfg> s_;
  LibraryNode* gemm_ = nullptr;
  AccessNode* a_ = nullptr;
  MapEntry* map_ = nullptr;
  DataflowEdge* edge_ = nullptr;

private slots:
  void initTestCase() {
    s_ = std::make_unique<Sdfg>("main");
    sym::Expr n = sym::Expr::symbol("batch");
    s_->addSymbol("batch");
    s_->addArray("A", DType::Float32, {n, 8});
    s_->addArray("B", DType::Float32, {8, 3});
    s_->addArray("Y", DType::Float32, {n, 3}, true)->storage = StorageType::CpuHeap;
    State* st = s_->addState("state0");
    a_ = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto* y = st->add<AccessNode>("Y");
    gemm_ = st->add<LibraryNode>("Gemm_0");
    gemm_->opType = "Gemm";
    gemm_->opsetVersion = 13;
    gemm_->attributes.push_back({"alpha", 1.0});
    gemm_->attributes.push_back({"transB", int64_t(0)});
    gemm_->addIn({"A", DType::Float32, false});
    gemm_->addIn({"B", DType::Float32, false});
    gemm_->addIn({"C", DType::Undefined, true});
    gemm_->addOut({"Y", DType::Float32, false});
    edge_ = st->addEdge(*a_, "", *gemm_, "A", Memlet::full("A", {n, 8}));
    st->addEdge(*b, "", *gemm_, "B", Memlet::full("B", {8, 3}));
    st->addEdge(*gemm_, "Y", *y, "", Memlet::full("Y", {n, 3}));
    map_ = st->add<MapEntry>("map_ij");
    map_->params = {"i", "j"};
    map_->range = Subset({Range::full(n), Range::full(3)});
    map_->schedule = Schedule::CpuMulticore;
    auto* exit = st->add<MapExit>("map_ij_exit");
    map_->exitId = exit->id();
    exit->entryId = map_->id();
  }

  void libraryNode() {
    PropertyModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto cost = analysis::analyzeCost(*s_);
    m.setElement(s_.get(), gemm_->id(), &cost, {{"batch", 2}});
    QCOMPARE(m.element(), gemm_->id());
    QVERIFY(m.groups().contains(QStringLiteral("Operator")));
    QCOMPARE(m.value(QStringLiteral("General"), QStringLiteral("Path")), QStringLiteral("main/state0/Gemm_0"));
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Class")), QStringLiteral("Gemm"));
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Opset")), QStringLiteral("13"));
    QCOMPARE(m.value(QStringLiteral("Attributes"), QStringLiteral("transB")), QStringLiteral("0"));
    const QString in = m.value(QStringLiteral("Inputs"), QStringLiteral("A"));
    QVERIFY2(in.contains(QStringLiteral("float32")) && in.contains(QStringLiteral("[batch, 8]")) &&
                 in.contains(QStringLiteral("[2, 8]")),
             qPrintable(in));
    QVERIFY(m.value(QStringLiteral("Inputs"), QStringLiteral("C")).contains(QStringLiteral("optional")));
    // 2 * |Y| * K = 2 * (batch*3) * 8 = 96 at batch = 2
    QVERIFY2(m.value(QStringLiteral("Cost"), QStringLiteral("FLOPs")).endsWith(QStringLiteral("= 96")),
             qPrintable(m.value(QStringLiteral("Cost"), QStringLiteral("FLOPs"))));
    // The model's structure: groups have rows, rows have no children.
    QModelIndex general = m.index(0, 0);
    QVERIFY(m.rowCount(general) >= 4);
    QCOMPARE(m.rowCount(m.index(0, 0, general)), 0);
    QCOMPARE(m.parent(m.index(1, 1, general)), general);
  }

  // The implementation the node chose (or what the CPU target's default gives it) and every
  // alternative with its targets, differentiability and environments; a C++ tasklet shows its
  // environments and declared FLOPs.
  void implementations() {
    Sdfg s("main");
    s.addArray("A", DType::Float32, {4, 5});
    s.addArray("B", DType::Float32, {5, 3});
    s.addArray("Y", DType::Float32, {4, 3});
    State* st = s.addState("state0");
    auto* mm = st->add<LibraryNode>("MatMul_0");
    mm->opType = "MatMul";
    mm->opsetVersion = 13;
    mm->addIn({"A", DType::Float32, false});
    mm->addIn({"B", DType::Float32, false});
    mm->addOut({"Y", DType::Float32, false});
    st->addEdge(*st->add<AccessNode>("A"), "", *mm, "A", Memlet::full("A", {4, 5}));
    st->addEdge(*st->add<AccessNode>("B"), "", *mm, "B", Memlet::full("B", {5, 3}));
    st->addEdge(*mm, "Y", *st->add<AccessNode>("Y"), "", Memlet::full("Y", {4, 3}));
    auto* t = st->add<Tasklet>("call", "lib(A);", TaskletLanguage::Cpp);
    t->environments = {"onednn"};
    t->flops = sym::Expr(40);

    PropertyModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setElement(&s, mm->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Implementation")), QStringLiteral("(not chosen; cpu uses pure)"));
    QVERIFY(m.groups().contains(QStringLiteral("Implementations")));
    QCOMPARE(m.value(QStringLiteral("Implementations"), QStringLiteral("pure")).section(QStringLiteral(" — "), 0, 0),
             QStringLiteral("any target · differentiable · used on cpu"));
    QCOMPARE(m.value(QStringLiteral("Implementations"), QStringLiteral("onednn")).section(QStringLiteral(" — "), 0, 0),
             QStringLiteral("cpu · not differentiable · needs onednn"));

    mm->implementation = "onednn";
    m.setElement(&s, mm->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Implementation")), QStringLiteral("onednn"));
    QVERIFY(m.value(QStringLiteral("Implementations"), QStringLiteral("onednn")).contains(QStringLiteral("used on cpu")));
    QVERIFY(!m.value(QStringLiteral("Implementations"), QStringLiteral("pure")).contains(QStringLiteral("used on cpu")));

    // Checked for the app's target: systolic is an FPGA implementation.
    mm->implementation = "systolic";
    m.setElement(&s, mm->id(), nullptr, {});
    QVERIFY2(m.value(QStringLiteral("Operator"), QStringLiteral("Problem")).contains(QStringLiteral("is for fpga, not for target cpu")),
             qPrintable(m.value(QStringLiteral("Operator"), QStringLiteral("Problem"))));
    m.setImplementationTarget("fpga");
    m.setElement(&s, mm->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Problem")), QString());
    QVERIFY(m.value(QStringLiteral("Implementations"), QStringLiteral("systolic")).contains(QStringLiteral("used on fpga")));
    mm->implementation.clear();
    m.setElement(&s, mm->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Operator"), QStringLiteral("Implementation")), QStringLiteral("(not chosen; fpga uses pure)"));
    m.setImplementationTarget("cpu");

    mm->implementation = "hls";
    m.setElement(&s, mm->id(), nullptr, {});
    QVERIFY2(m.value(QStringLiteral("Operator"), QStringLiteral("Problem")).contains(QStringLiteral("no 'hls' implementation")),
             qPrintable(m.value(QStringLiteral("Operator"), QStringLiteral("Problem"))));

    m.setElement(&s, t->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Tasklet"), QStringLiteral("Language")), QStringLiteral("cpp"));
    QCOMPARE(m.value(QStringLiteral("Tasklet"), QStringLiteral("Environments")), QStringLiteral("onednn"));
    QCOMPARE(m.value(QStringLiteral("Tasklet"), QStringLiteral("Declared FLOPs")), QStringLiteral("40"));
  }

  void accessEdgeMapAndRoot() {
    PropertyModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setElement(s_.get(), a_->id(), nullptr, {});
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Shape")), QStringLiteral("[batch, 8]"));
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Shape (concrete)")), QStringLiteral("[batch, 8]"));
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Strides")), QStringLiteral("[8, 1]"));
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Storage")), QStringLiteral("default"));
    m.setElement(s_.get(), s_->allStates()[0]->nodeByLabel("Y")->id(), nullptr, {{"batch", 4}});
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Shape (concrete)")), QStringLiteral("[4, 3]"));
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Storage")), QStringLiteral("cpu_heap"));
    QCOMPARE(m.value(QStringLiteral("Data"), QStringLiteral("Transient")), QStringLiteral("yes"));
    m.setElement(s_.get(), edge_->id(), nullptr, {{"batch", 4}});
    QCOMPARE(m.value(QStringLiteral("Memlet"), QStringLiteral("Subset")), QStringLiteral("0:batch, 0:8"));
    QCOMPARE(m.value(QStringLiteral("Memlet"), QStringLiteral("Volume")), QStringLiteral("8*batch = 32"));
    QCOMPARE(m.value(QStringLiteral("Edge"), QStringLiteral("To")), QStringLiteral("Gemm_0:A"));
    m.setElement(s_.get(), map_->id(), nullptr, {{"batch", 5}});
    QCOMPARE(m.value(QStringLiteral("Map"), QStringLiteral("j")), QStringLiteral("0:3"));
    QCOMPARE(m.value(QStringLiteral("Map"), QStringLiteral("Schedule")), QStringLiteral("cpu_multicore"));
    QVERIFY(m.value(QStringLiteral("Map"), QStringLiteral("Iterations")).endsWith(QStringLiteral("= 15")));
    auto cost = analysis::analyzeCost(*s_);
    m.setElement(s_.get(), s_->id(), &cost, {{"batch", 1}});
    QVERIFY(m.groups().contains(QStringLiteral("Cost (whole model)")));
    QCOMPARE(m.value(QStringLiteral("SDFG"), QStringLiteral("Symbols")), QStringLiteral("batch"));
    m.setElement(s_.get(), 999999, nullptr, {});
    QCOMPARE(m.rowCount(), 0);
    m.clear();
    QCOMPARE(m.rowCount(), 0);
  }
};

QTEST_MAIN(TestInspector)
#include "tst_Inspector.moc"
