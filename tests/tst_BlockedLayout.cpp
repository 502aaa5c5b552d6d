// BlockedLayout: the channels of the activations between oneDNN nodes in blocks (nChw8c/nChw16c), on
// the small CNN block ChannelsLast is tested on. Which arrays it takes for each block size and why it
// refuses the others; one step for the whole state (exact undo/redo) or one array; the layout in the
// IR (strides, the type the canvas shows, validation, the .dcw.json round trip); numbers through
// oneDNN (the calls describe the arrays as nChw8c) and through the pure expansions, which address the
// blocks; the explicit reorder at the region's edge; and what refuses blocked arrays by name.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/BlockedLayout.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"
#include "transforms/AutoOptimize.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/catalogue/RedundantSecondArray.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

void setImplementations(Sdfg& m, const std::string& impl) {
  for (auto* n : allNodes<LibraryNode>(m)) n->implementation = impl;
}

std::unique_ptr<Sdfg> onednnBlock() {
  auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), /*expand=*/false);
  if (!m) return m;
  setImplementations(*m, "onednn");
  for (auto* n : allNodes<LibraryNode>(*m))
    if (n->opType == "Reshape" || n->opType == "Flatten") n->implementation = "";
  return m;
}

transforms::Match matchFor(const Sdfg& m, const std::string& array, const std::string& block, const std::string& region = "state") {
  transforms::BlockedLayout t;
  for (auto& match : transforms::enumerateMatches(t, m)) {
    auto e = resolvePath(m, match.elements.at("array"));
    if (e && static_cast<const AccessNode*>(*e)->data() == array) {
      match.options["block"] = block;
      match.options["region"] = region;
      return match;
    }
  }
  return {};
}

QStringList blockedArrays(const Sdfg& m) {
  QStringList out;
  for (const auto& d : m.data())
    if (d->channelBlock > 0) out << QString::fromStdString(d->name() + ":" + d->blockedLayoutName());
  out.sort();
  return out;
}

} // namespace

class TestBlockedLayout : public QObject {
  Q_OBJECT
  transforms::BlockedLayout t;

private slots:
  // Blocks of 8: one step puts A..G (8 and 16 channels) in nChw8c; H has one position.
  void wholeStateInBlocksOfEight() {
    auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 7);
    QVERIFY(!ref.empty());
    QVERIFY(whyNot(t, matchFor(*m, "A", "8"), *m).contains("which does not run on oneDNN"));
    m = onednnBlock();
    QVERIFY(m);
    QVERIFY(whyNot(t, matchFor(*m, "H", "8"), *m).contains("one channel or one position"));
    QVERIFY(checkTransformation(*m, t, matchFor(*m, "A", "8"), 0, /*numeric=*/false)); // exact undo/redo too
    QCOMPARE(blockedArrays(*m), QStringList({"A:nChw8c", "B:nChw8c", "C:nChw8c", "D:nChw8c", "E:nChw8c", "F:nChw8c", "G:nChw8c"}));
    // C [1, 8, 8, 6] in blocks of 8: one block of 8*8*6, rows of 6*8, positions of 8.
    const DataDescriptor* c = dataIn(*m, "C");
    QCOMPARE(c->strides, (std::vector<sym::Expr>{sym::Expr(384), sym::Expr(384), sym::Expr(48), sym::Expr(8)}));
    QCOMPARE(c->typeString(), std::string("float32[1, 8, 8, 6] nChw8c")); // what the canvas and inspector show
    // F [1, 16, 8, 6]: two blocks.
    QCOMPARE(dataIn(*m, "F")->strides, (std::vector<sym::Expr>{sym::Expr(768), sym::Expr(384), sym::Expr(48), sym::Expr(8)}));
    // The reorder at the region's edge is explicit: B -> B_rowmajor, which the Reshape reads; no
    // transformation removes it as a redundant copy.
    const DataDescriptor* copy = dataIn(*m, "B_rowmajor");
    QVERIFY(copy && copy->transient && copy->channelBlock == 0);
    transforms::RedundantSecondArray redundant;
    size_t copies = 0;
    for (auto& match : transforms::enumerateMatches(redundant, *m)) {
      const QString why = whyNot(redundant, match, *m);
      if (why.contains("'B'")) {
        ++copies;
        QVERIFY2(why.contains("has its channels in blocks): it is a reorder"), qPrintable(why));
      }
    }
    QCOMPARE(copies, size_t(1));
    QVERIFY(validate(*m).firstError() == nullptr);
    // oneDNN on the blocked arrays: the calls describe them as nChw8c.
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 7, {"onednn"}, &code), 1e-4, "onednn, nChw8c"));
    QVERIFY2(code.find("blocked(dims{1, 8, 8, 6}, tag::nChw8c)") != std::string::npos, code.c_str());
    QVERIFY2(code.find("blocked(dims{1, 16, 8, 6}, tag::nChw8c)") != std::string::npos, code.c_str());
    // The second variant of every call that has one: the concatenation as DCW's copy of whole rows
    // (a batch's blocks follow each other).
    QVERIFY2(code.find("concatRows(") != std::string::npos, code.c_str());
    qputenv("DCW_ONEDNN_VARIANT", "1");
    const bool second = outputsClose(ref, runExpandedPreferring(*m, 7, {"onednn"}), 1e-4, "onednn variant 1, nChw8c");
    qunsetenv("DCW_ONEDNN_VARIANT");
    QVERIFY(second);
    // The pure expansions address the blocks (their inner arrays take the outer layout), and the copy
    // at the edge reorders into the Reshape's row-major input.
    setImplementations(*m, "pure");
    QVERIFY(outputsClose(ref, runExpanded(*m, 7), 1e-4, "pure, nChw8c"));
    // The GPU code generator addresses the blocks too (cuda-sim runs its code on the CPU).
    auto expanded = expandedCopy(*m);
    QVERIFY(expanded);
    QVERIFY(outputsClose(ref, runModel(*expanded, randomInputsFor(*expanded, 7), "cuda-sim"), 1e-4, "cuda-sim, nChw8c"));
  }

  // Blocks of 16 take only the arrays of 16 channels; region=array changes the matched one alone.
  void blocksOfSixteenAndOneArray() {
    auto m = onednnBlock();
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    const QString why = whyNot(t, matchFor(*m, "A", "16"), *m);
    QVERIFY2(why.contains("'A' has 8 channels, not a multiple of 16"), qPrintable(why));
    QVERIFY(checkTransformation(*m, t, matchFor(*m, "F", "16", "array"), 0, false));
    QCOMPARE(blockedArrays(*m), QStringList({"F:nChw16c"}));
    QVERIFY(whyNot(t, matchFor(*m, "F", "16"), *m).contains("in another layout already"));
    QVERIFY(checkTransformation(*m, t, matchFor(*m, "G", "16"), 0, false));
    QCOMPARE(blockedArrays(*m), QStringList({"F:nChw16c", "G:nChw16c"}));
    QCOMPARE(dataIn(*m, "G")->typeString(), std::string("float32[1, 16, 8, 6] nChw16c"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn, nChw16c"));
    QVERIFY2(code.find("blocked(dims{1, 16, 8, 6}, tag::nChw16c)") != std::string::npos, code.c_str());
    setImplementations(*m, "pure");
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-4, "pure, nChw16c"));
  }

  // Auto-optimize with --layout blocked8: the fusions first (the Concat and BatchNormalization become one
  // ConcatBatchNormalization), then one BlockedLayout step; both variants of the fused node's call
  // (oneDNN's concat and normalization; DCW's copy that normalizes each block's 8 channels at each
  // position) give the model's values.
  void autoOptimizeInBlocks() {
    auto m = loadModel(controlflowDataFile("channels_last_block.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    edit::History h(*m);
    transforms::AutoOptimizeOptions o;
    o.layout = "blocked8";
    QVERIFY(transforms::autoOptimize(h, o));
    QCOMPARE(blockedArrays(*m), QStringList({"B:nChw8c", "C:nChw8c", "E:nChw8c", "G:nChw8c"}));
    QVERIFY(validate(*m).firstError() == nullptr);
    std::string code;
    for (auto* t : allNodes<Tasklet>(*m))
      if (t->language == TaskletLanguage::Cpp) code += t->code + "\n";
    QVERIFY2(code.find("*dcw_ab, 8);") != std::string::npos, code.c_str());
    const auto inputs = randomInputsFor(*m, 3);
    QVERIFY(outputsClose(ref, runModel(*m, inputs), 1e-4, "optimized, nChw8c"));
    for (const char* variant : {"0", "1"}) {
      qputenv("DCW_ONEDNN_VARIANT", variant);
      const bool same = outputsClose(ref, runModel(*m, inputs), 1e-4, variant);
      qunsetenv("DCW_ONEDNN_VARIANT");
      QVERIFY2(same, variant);
    }
  }

  // A grouped convolution whose groups split blocks is refused by name (oneDNN has no blocked kernel
  // for it); depthwise (one channel a group) is fine.
  void groupsThatSplitBlocks() {
    auto m = onednnBlock();
    QVERIFY(m);
    auto* dw = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("dwconv"));
    QVERIFY(dw);
    QVERIFY(applicableMatches(*m, t).size() > 0);
    for (auto& a : dw->attributes)
      if (a.name == "group") a.value = int64_t(2); // 4 channels a group
    const QString why = whyNot(t, matchFor(*m, "C", "8"), *m);
    QVERIFY2(why.contains("grouped convolution 'dwconv', whose groups of 4 channels split blocks of 8"), qPrintable(why));
  }

  // The layout is part of the saved model; a bad one is refused with its place.
  void layoutInTheFileAndValidation() {
    auto m = onednnBlock();
    QVERIFY(m);
    QVERIFY(applyNow(*m, t, matchFor(*m, "A", "8")));
    auto back = serialize::fromJson(serialize::toJson(*m));
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(blockedArrays(**back), blockedArrays(*m));
    QCOMPARE(dataIn(**back, "C")->strides, dataIn(*m, "C")->strides);
    // A block of 12 in the file: refused naming the field.
    std::string text = serialize::toJson(*m);
    const auto at = text.find("\"channel_block\": 8");
    QVERIFY(at != std::string::npos);
    text.replace(at, std::string("\"channel_block\": 8").size(), "\"channel_block\": 12");
    auto bad = serialize::fromJson(text);
    QVERIFY(!bad);
    QVERIFY2(QString::fromStdString(bad.error().str()).contains("channels come in blocks of 8 or 16, not 12"), bad.error().str().c_str());
    // Blocks of 16 on 8 channels, and strides that are not the blocks': validation names the array.
    DataDescriptor* a = m->findData("A");
    a->channelBlock = 16;
    a->strides = DataDescriptor::blockedStrides(a->shape, 16);
    auto v = validate(*m);
    QVERIFY(v.firstError());
    QVERIFY2(QString::fromStdString(v.firstError()->message).contains("has 8 channels in blocks of 16: not a known multiple of 16"),
             v.firstError()->message.c_str());
    a->channelBlock = 8;
    a->strides = DataDescriptor::contiguousStrides(a->shape);
    v = validate(*m);
    QVERIFY(v.firstError());
    QVERIFY2(QString::fromStdString(v.firstError()->message).contains("not those of nChw8c"), v.firstError()->message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestBlockedLayout)
#include "tst_BlockedLayout.moc"
