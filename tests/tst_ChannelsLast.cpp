// ChannelsLast: which arrays of a small CNN block it takes (those between oneDNN nodes that take any
// strides) and why it refuses the others; structure (only the strides change; exact undo/redo); numbers
// (the oneDNN path on channels-last arrays, and the pure path on the same strides, give the values of
// the row-major model); and auto-optimize's use of it (only where oneDNN runs).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ChannelsLast.h"

#include "core/ir/AccessNode.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

void setImplementations(Sdfg& m, const std::string& impl) {
  for (auto* n : allNodes<LibraryNode>(m)) n->implementation = impl;
}

// The name of the array each match would change, sorted.
QStringList arraysOf(const Sdfg& m, const std::vector<transforms::Match>& matches) {
  QStringList out;
  for (auto& match : matches) {
    auto e = resolvePath(m, match.elements.at("array"));
    out << QString::fromStdString(static_cast<const AccessNode*>(*e)->data());
  }
  out.sort();
  return out;
}

transforms::Match matchFor(const Sdfg& m, const std::string& array) {
  transforms::ChannelsLast t;
  for (auto& match : transforms::enumerateMatches(t, m)) {
    auto e = resolvePath(m, match.elements.at("array"));
    if (e && static_cast<const AccessNode*>(*e)->data() == array) return match;
  }
  return {};
}

} // namespace

class TestChannelsLast : public QObject {
  Q_OBJECT
  transforms::ChannelsLast t;

private slots:
  void takesTheArraysBetweenOnednnNodes() {
    auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 7);
    QVERIFY(!ref.empty());
    // Without oneDNN nothing applies: the pure path gains nothing from the layout by itself.
    QVERIFY(applicableMatches(*m, t).empty());
    QVERIFY(whyNot(t, matchFor(*m, "A"), *m).contains("which does not run on oneDNN"));
    setImplementations(*m, "onednn");
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->opType == "Reshape" || n->opType == "Flatten") n->implementation = "";
    auto matches = applicableMatches(*m, t);
    // A (Conv -> Relu), B (Relu -> MaxPool, and a row-major copy for the Reshape), C (MaxPool ->
    // depthwise Conv, Add, Concat), D, E, F (Concat -> BatchNorm), G.
    QCOMPARE(arraysOf(*m, matches), QStringList({"A", "B", "C", "D", "E", "F", "G"}));
    // H has one position; X and Y are the caller's.
    QVERIFY(whyNot(t, matchFor(*m, "H"), *m).contains("one channel or one position"));
    // One step changes a group: C, D and E together (the Add reads C and D and writes E).
    QVERIFY(checkTransformation(*m, t, matchFor(*m, "C"), 0, /*numeric=*/false)); // exact undo/redo too
    QStringList last;
    for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H"})
      if (dataIn(*m, name)->isChannelsLast()) last << name;
    QCOMPARE(last, QStringList({"C", "D", "E"}));
    QCOMPARE(arraysOf(*m, applicableMatches(*m, t)), QStringList({"A", "B", "F", "G"}));
    // The rest, one step each: only strides change.
    while (!applicableMatches(*m, t).empty()) QVERIFY(checkTransformation(*m, t, applicableMatches(*m, t)[0], 0, false));
    last.clear();
    for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H"})
      if (dataIn(*m, name)->isChannelsLast()) last << name;
    QCOMPARE(last, QStringList({"A", "B", "C", "D", "E", "F", "G"}));
    // The reorder at the region's edge is explicit: B -> B_rowmajor (a copy), which the Reshape reads.
    const DataDescriptor* copy = dataIn(*m, "B_rowmajor");
    QVERIFY(copy && copy->transient && !copy->isChannelsLast());
    auto* reshape = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("reshape"));
    State* st = reshape->parent();
    QString readsFrom;
    for (auto* e : st->inEdges(reshape->id()))
      if (e->dstConnector == "data") readsFrom = QString::fromStdString(static_cast<AccessNode*>(st->node(e->src))->data());
    QCOMPARE(readsFrom, QString("B_rowmajor"));
    const DataDescriptor* c = dataIn(*m, "C");
    QVERIFY(c);
    // C: [1, 8, 8, 6] channels-last: N 384, C 1, H 48, W 8.
    QCOMPARE(c->strides, (std::vector<sym::Expr>{sym::Expr(384), sym::Expr(1), sym::Expr(48), sym::Expr(8)}));
    QCOMPARE(c->typeString(), std::string("float32[1, 8, 8, 6] channels-last")); // what the canvas and inspector show
    QCOMPARE(dataIn(*m, "B_rowmajor")->typeString(), std::string("float32[1, 8, 9, 7]"));
    QVERIFY(validate(*m).firstError() == nullptr);
    // oneDNN on the channels-last arrays: the calls describe them by their strides.
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 7, {"onednn"}, &code), 1e-4, "onednn, channels-last"));
    QVERIFY2(code.find("strided(dims{1, 8, 8, 6}, dims{384, 1, 48, 8})") != std::string::npos, code.c_str());
    // The pure expansions index the same arrays through their strides (their inner arrays take the
    // outer layout), and the copy at the edge reorders into the Reshape's row-major input.
    setImplementations(*m, "pure");
    QVERIFY(outputsClose(ref, runExpanded(*m, 7), 1e-4, "pure, channels-last"));
  }

  // An implementation that reads row-major operands only refuses a channels-last array by name
  // instead of reading it wrongly.
  void rowMajorImplementationsRefuseOtherLayouts() {
    auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), false);
    QVERIFY(m);
    setImplementations(*m, "onednn");
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->opType == "Reshape" || n->opType == "Flatten") n->implementation = "";
    QVERIFY(applyNow(*m, t, matchFor(*m, "G")));
    auto* gap = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("gap"));
    QVERIFY(gap);
    QVERIFY(expansions::canExpand(*gap, "onednn", "cpu"));
    // Softmax's oneDNN call is row-major only: made to read G, it says so.
    auto* bn = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("bn"));
    QVERIFY(bn);
    State* st = bn->parent();
    edit::Editor ed(*m);
    for (auto* e : st->inEdges(bn->id()))
      if (e->dstConnector != "X") ed.removeEdge(*st, e->id());
    for (const char* c : {"X", "scale", "B", "input_mean", "input_var"}) ed.removeInConnector(*bn, c);
    ed.addInConnector(*bn, Connector{"input", DType::Float32, false});
    ed.removeOutConnector(*bn, "Y");
    ed.addOutConnector(*bn, Connector{"output", DType::Float32, false});
    for (auto* e : st->inEdges(bn->id())) e->dstConnector = "input";
    for (auto* e : st->outEdges(bn->id())) e->srcConnector = "output";
    ed.setAccessData(*static_cast<AccessNode*>(st->node(st->inEdges(bn->id())[0]->src)), "G");
    bn->opType = "Softmax";
    bn->attributes.clear();
    auto r = expansions::canExpand(*bn, "onednn", "cpu");
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().str()).contains("reads input as a row-major array, and input has strides"),
             r.error().str().c_str());
  }

  // Auto-optimize stores activations channels-last only where it chose oneDNN.
  void autoOptimizeUsesItWithOnednn_data() {
    QTest::addColumn<QString>("prefer");
    QTest::addColumn<QStringList>("channelsLast");
    // A and D are gone (Relu and Add fused into the convolutions), F too (the Concat and the
    // BatchNormalization reading it are one ConcatBatchNormalization).
    QTest::newRow("onednn") << "onednn" << QStringList({"B", "C", "E", "G"});
    QTest::newRow("pure") << "pure" << QStringList();
  }
  void autoOptimizeUsesItWithOnednn() {
    QFETCH(QString, prefer);
    QFETCH(QStringList, channelsLast);
    auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    edit::History h(*m);
    transforms::AutoOptimizeOptions o;
    o.prefer = {prefer.toStdString()};
    QVERIFY(transforms::autoOptimize(h, o));
    QStringList last;
    for (const auto& d : m->data())
      if (d->isChannelsLast()) last << QString::fromStdString(d->name());
    last.sort();
    QCOMPARE(last, channelsLast);
    QVERIFY(validate(*m).firstError() == nullptr);
    QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 3)), 1e-4, "optimized"));
  }
};

QTEST_GUILESS_MAIN(TestChannelsLast)
#include "tst_ChannelsLast.moc"
