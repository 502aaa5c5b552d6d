// ChannelShuffleFusion: structure (the Concat becomes dcw::ShuffledConcat in place, writing the shuffled
// array; the concatenation, both Reshapes, the Transpose and their intermediates are gone), numbers (the
// fused node computes what the five ops did, through its pure copy maps and through its oneDNN concat),
// exact undo/redo, the reason of each refusal, and auto-optimize making it on the oneDNN and the pure
// path alike.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ChannelShuffleFusion.h"

#include "core/expansions/ExpandPass.h"
#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = controlflowDataFile("channel_shuffles.onnx");

transforms::Match at(const std::string& concat) { return {"ChannelShuffleFusion", {{"concat", "main/state0/" + concat}}, {}}; }

LibraryNode* labelled(const Sdfg& m, const std::string& label) {
  for (auto* n : allNodes<LibraryNode>(m))
    if (n->label() == label) return n;
  return nullptr;
}

size_t shuffledConcats(const Sdfg& m) {
  size_t n = 0;
  for (auto* l : allNodes<LibraryNode>(m)) n += l->opType == "ShuffledConcat" ? 1 : 0;
  return n;
}

} // namespace

class TestChannelShuffleFusion : public QObject {
  Q_OBJECT
  transforms::ChannelShuffleFusion t;

private slots:
  void fusesShuffles() {
    auto m = loadModel(kModel, /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(2));
    QVERIFY(checkTransformation(*m, t, at("concat_1"), 0, /*numeric=*/false)); // exact undo/redo
    QVERIFY(applyNow(*m, t, at("concat_3")));
    LibraryNode* two = labelled(*m, "concat_1");
    QVERIFY(two);
    QCOMPARE(two->className(), std::string("dcw::ShuffledConcat"));
    QVERIFY(two->attributes.empty());
    for (const char* gone : {"t_1", "u_1", "v_1", "t_3", "u_3", "v_3"}) QVERIFY2(!m->findData(gone), gone);
    for (const char* gone : {"split_1", "transpose_1", "merge_1", "split_3", "transpose_3", "merge_3"}) QVERIFY2(!labelled(*m, gone), gone);
    State* st = two->parent();
    QStringList ins;
    for (auto* e : st->inEdges(two->id())) ins << QString::fromStdString(e->dstConnector + "=" + static_cast<AccessNode*>(st->node(e->src))->data());
    ins.sort();
    QCOMPARE(ins, QStringList({"inputs_0=a", "inputs_1=b"}));
    auto outs = st->outEdges(two->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(outs[0]->srcConnector, std::string("Y"));
    QCOMPARE(static_cast<AccessNode*>(st->node(outs[0]->dst))->data(), std::string("y1"));
    QCOMPARE(shuffledConcats(*m), size_t(2));
    QVERIFY(validate(*m).firstError() == nullptr);
    // Numbers: pure (one copy map per piece), and oneDNN (one concat along a new axis).
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"pure"}), 1e-6, "pure"));
    auto expanded = expandedCopy(*m);
    QVERIFY(expanded);
    QStringList maps;
    for (auto* me : allNodes<MapEntry>(*expanded))
      if (me->label().rfind("shuffle_", 0) == 0) maps << QString::fromStdString(me->label());
    maps.sort();
    QCOMPARE(maps, QStringList({"shuffle_0_map", "shuffle_0_map", "shuffle_1_map", "shuffle_1_map", "shuffle_2_map"}));
    QVERIFY(expansions::canExpand(*two, "onednn"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-5, "onednn"));
    QVERIFY2(code.find("interleaved (channel K c + k from piece k: a concat along axis 2 of Y seen as 2x4x3x3x5)") != std::string::npos,
             "no oneDNN concat of three pieces");
  }

  void refusals() {
    auto m = loadModel(kModel, false);
    QVERIFY(m);
    auto why = [&](const std::string& node) { return whyNot(t, at(node), *m); };
    QVERIFY2(why("concat_perm").contains("the Transpose does not swap the groups and the channels (dims 1 and 2) alone"), qPrintable(why("concat_perm")));
    QVERIFY2(why("concat_shared").contains("'t_shared' is accessed elsewhere, or read by more than the Reshape"), qPrintable(why("concat_shared")));
    QVERIFY2(why("concat_groups").contains("the first Reshape does not split the 8 channels into 2 groups of 4"), qPrintable(why("concat_groups")));
    QVERIFY2(why("relu_a").contains("not a Concat"), qPrintable(why("relu_a")));
    // A Concat that runs on an implementation the fused node lacks.
    labelled(*m, "concat_1")->implementation = "onednn_winograd";
    QVERIFY2(why("concat_1").contains("which the fused node lacks"), qPrintable(why("concat_1")));
    // A shuffle whose Transpose was given another implementation than pure.
    labelled(*m, "concat_1")->implementation = "onednn";
    labelled(*m, "transpose_1")->implementation = "cuda";
    QVERIFY2(why("concat_1").contains("the Transpose 'transpose_1' has implementation 'cuda'"), qPrintable(why("concat_1")));
  }

  // Auto-optimize fuses both shuffles whatever is preferred: the pure copy maps beat the unfused ops too.
  void autoOptimize_data() {
    QTest::addColumn<QString>("prefer");
    QTest::newRow("onednn") << "onednn";
    QTest::newRow("pure") << "pure";
  }
  void autoOptimize() {
    QFETCH(QString, prefer);
    auto m = loadModel(kModel, false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 9);
    QVERIFY(autoOptimized(*m, {prefer.toStdString()}));
    QCOMPARE(shuffledConcats(*m), size_t(2));
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 9, {prefer.toStdString()}), 1e-6, "optimized"));
  }
};

QTEST_GUILESS_MAIN(TestChannelShuffleFusion)
#include "tst_ChannelShuffleFusion.moc"
