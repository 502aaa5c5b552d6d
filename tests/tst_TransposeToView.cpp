// TransposeToView (transforms/catalogue/TransposeToView.h) on a ConvNeXt block: ChannelsLast takes the
// arrays around the block's two Transposes (it counts a Transpose that moves the channels last, or back,
// as taking the layout), which leaves both copying in memory order; each then becomes a view — undo/redo
// exact, the numbers of the model as imported, no buffer and no copy for the views in the generated
// code. The refusals (a transpose that reorders, an op that is not a Transpose) with their reasons;
// auto-optimize removes both permutes when oneDNN is preferred and none when only pure is.
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ChannelsLast.h"

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/AccessNode.h"
#include "core/ir/View.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = testpaths::source("/tests/data/transforms/data/convnext_block.onnx");
const std::string kShuffle = testpaths::source("/tests/data/transforms/data/shuffle_views.onnx");

transforms::Match at(const std::string& op) {
  return transforms::Match{"TransposeToView", {{"input", ""}, {"transpose", "main/state0/" + op}, {"output", ""}}, {}};
}

// The structural match of TransposeToView at the op labelled `op` (applicable or not).
transforms::Match matchAt(const Sdfg& m, const std::string& op) {
  const auto* t = transforms::TransformationRegistry::instance().find("TransposeToView");
  for (auto& match : transforms::enumerateMatches(*t, m))
    if (match.elements.at("transpose") == "main/state0/" + op) return match;
  return at(op);
}

QString why(const Sdfg& m, const std::string& op) {
  return whyNot(*transforms::TransformationRegistry::instance().find("TransposeToView"), matchAt(m, op), m);
}

// The block with its library nodes on oneDNN (the Transposes have no other implementation than pure).
std::unique_ptr<Sdfg> onednnBlock() {
  auto m = loadModel(kModel, false);
  if (!m) return nullptr;
  for (auto* n : allNodes<LibraryNode>(*m))
    if (n->opType != "Transpose") n->implementation = "onednn";
  return m;
}

} // namespace

class TestTransposeToView : public QObject {
  Q_OBJECT
private slots:
  void channelsLastLeavesThePermutesInMemoryOrder() {
    auto m = onednnBlock();
    QVERIFY(m);
    // Row-major on both sides, each Transpose reorders the elements.
    QVERIFY2(why(*m, "Transpose_in").contains("the transpose reorders the elements"), qPrintable(why(*m, "Transpose_in")));
    QVERIFY2(why(*m, "Transpose_out").contains("the transpose reorders the elements"), qPrintable(why(*m, "Transpose_out")));
    // ChannelsLast takes A (read by Transpose_in) and the group Z, T, S, U (T written by Transpose_out).
    transforms::ChannelsLast cl;
    while (!applicableMatches(*m, cl).empty()) QVERIFY(applyNow(*m, cl, applicableMatches(*m, cl)[0]));
    QStringList last;
    for (const auto& d : m->data())
      if (d->isChannelsLast()) last << QString::fromStdString(d->name());
    last.sort();
    QCOMPARE(last, QStringList({"A", "S", "T", "U", "Z"}));
    QVERIFY(!dataIn(*m, "A_rowmajor") && !dataIn(*m, "T_rowmajor")); // no reorder for the Transposes

    std::vector<std::unique_ptr<edit::Command>> steps;
    for (const char* op : {"Transpose_in", "Transpose_out"}) {
      QCOMPARE(why(*m, op), QStringLiteral("applies"));
      steps.push_back(applyCmd(matchAt(*m, op)));
    }
    // Structure, validation and exact undo/redo (numbers below: they need the library nodes expanded).
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    QCOMPARE(m->findData("P")->dataKind, DataKind::View);
    QCOMPARE(m->findData("T")->dataKind, DataKind::View);
    QCOMPARE(m->findData("P")->typeString(), std::string("float32[1, 6, 5, 8] view"));
    auto p = viewSource(*m, *m->findData("P"));
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(p->array->name(), std::string("A"));
    auto t = viewSource(*m, *m->findData("T"));
    QVERIFY2(t, t ? "" : t.error().str().c_str());
    QCOMPARE(t->array->name(), std::string("M"));
    for (auto* n : allNodes<LibraryNode>(*m)) QVERIFY2(n->opType != "Transpose", n->label().c_str());

    // The pure path reads and writes the same views through their strides: the numbers of the model
    // as imported.
    auto pure = serialize::fromJson(serialize::toJson(*m));
    QVERIFY(pure);
    for (auto* n : allNodes<LibraryNode>(**pure)) n->implementation = "pure";
    QVERIFY(sameNumbersAsImported(kModel, **pure, 1e-4));
    // So do the oneDNN calls (LayerNorm reads P, the second MatMul writes M, the Mul reads T).
    QVERIFY(sameNumbersAsImported(kModel, *m, 1e-4));
    // No buffer and no copy for the views: the arrays' pointers.
    auto code = codegen::generateCpp(*m, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    for (const char* view : {"P_buffer", "T_buffer"})
      QVERIFY2(code->source.find(std::string("Buffer<float> ") + view) == std::string::npos, view);
    QVERIFY(code->source.find("transpose_map") == std::string::npos); // the pure Transpose's copy map
  }

  void refusals() {
    // ShuffleNet's shuffle (perm [0, 2, 1, 3, 4] of a row-major array) moves elements.
    auto s = loadModel(kShuffle, false);
    QVERIFY(s);
    QVERIFY2(why(*s, "Transpose_shuffle").contains("is not 'b' read in place (that needs strides [128, 16, 64, 4, 1])"),
             qPrintable(why(*s, "Transpose_shuffle")));
    // Not a Transpose.
    const auto* t = transforms::TransformationRegistry::instance().find("TransposeToView");
    Diagnostics d;
    QVERIFY(!t->canApply(transforms::Match{"TransposeToView",
                                           {{"input", "main/state0/a"}, {"transpose", "main/state0/Reshape_split"}, {"output", "main/state0/b"}},
                                           {}},
                         *s, &d));
    QVERIFY2(d.firstError()->message.find("is a Reshape") != std::string::npos && d.firstError()->message.find("not a Transpose") != std::string::npos,
             d.firstError()->message.c_str());
    // A channels-last output of a transpose that moves the channels last reorders too.
    auto m = onednnBlock();
    QVERIFY(m);
    m->findData("P")->strides = DataDescriptor::channelsLastStrides(m->findData("P")->shape);
    QVERIFY(why(*m, "Transpose_in").contains("the transpose reorders the elements"));
    // Channels in blocks: no view shows them through strides, so BlockedLayout does not count a
    // Transpose as taking its layout.
    auto b = onednnBlock();
    QVERIFY(b);
    const auto* blocked = transforms::TransformationRegistry::instance().find("BlockedLayout");
    bool checked = false;
    for (auto& match : transforms::enumerateMatches(*blocked, *b)) {
      auto e = resolvePath(*b, match.elements.at("array"));
      if (!e || static_cast<const AccessNode*>(*e)->data() != "T") continue;
      match.options["block"] = "8";
      match.options["region"] = "array";
      const QString reason = whyNot(*blocked, match, *b);
      QVERIFY2(reason.contains("Transpose 'Transpose_out'") && reason.contains("which does not run on oneDNN"), qPrintable(reason));
      checked = true;
    }
    QVERIFY(checked);
  }

  void autoOptimizeRemovesThePermutesUnlessPureOnly() {
    for (bool pure : {false, true}) {
      auto m = loadModel(kModel, false);
      QVERIFY(m);
      auto ref = runExpanded(*m, 3);
      auto views = autoOptimizedSteps(*m, {pure ? "pure" : "onednn"}, "TransposeToView");
      QVERIFY(views);
      QCOMPARE(*views, size_t(pure ? 0 : 2));
      QVERIFY(validate(*m).firstError() == nullptr);
      QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 3)), 1e-4, pure ? "pure" : "onednn"));
    }
  }
};

QTEST_GUILESS_MAIN(TestTransposeToView)
#include "tst_TransposeToView.moc"
