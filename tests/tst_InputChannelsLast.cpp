// InputChannelsLast: which model inputs it takes (those read whole by oneDNN nodes that take any
// strides) and why it refuses the others; structure (a transient channels-last copy that the readers
// now read; exact undo/redo); numbers (the oneDNN path on the copy, and the pure path on the same
// strides, give the values of the row-major model); the copy's code (the destination's order, the
// outer loops on the threads); and auto-optimize's use of it (only before a convolution that would
// reorder the input itself: a 7x7 stem, not a 3x3 one that DCW's few-channel kernel reads in place).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/InputChannelsLast.h"

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/AccessNode.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

void setImplementations(Sdfg& m, const std::string& impl) {
  for (auto* n : allNodes<LibraryNode>(m)) n->implementation = impl;
}

// The match at the access node of `array` in the model's first state.
transforms::Match matchFor(const Sdfg& m, const std::string& array) {
  transforms::InputChannelsLast t;
  for (auto& match : transforms::enumerateMatches(t, m)) {
    auto e = resolvePath(m, match.elements.at("array"));
    if (e && static_cast<const AccessNode*>(*e)->data() == array) return match;
  }
  return {};
}

// The data the node labelled `label` reads at `connector`.
QString readsFrom(const Sdfg& m, const char* label, const char* connector) {
  Node* n = m.allStates()[0]->nodeByLabel(label);
  if (!n) return {};
  const State* st = n->parent();
  for (auto* e : st->inEdges(n->id()))
    if (e->dstConnector == connector) return QString::fromStdString(static_cast<const AccessNode*>(st->node(e->src))->data());
  return {};
}

} // namespace

class TestInputChannelsLast : public QObject {
  Q_OBJECT
  transforms::InputChannelsLast t;

private slots:
  void reordersTheInputOnceForOnednn() {
    auto m = loadModel(controlflowDataFile("stem_7x7.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    // Without oneDNN it does not apply: the pure path gains nothing from the copy.
    QVERIFY(applicableMatches(*m, t).empty());
    QVERIFY2(whyNot(t, matchFor(*m, "X"), *m).contains("which does not run on oneDNN"), qPrintable(whyNot(t, matchFor(*m, "X"), *m)));
    setImplementations(*m, "onednn");
    // Only X: T and R are the model's transients (ChannelsLast's), Y is its output, W a weight that a
    // convolution takes in its own layout.
    QCOMPARE(applicableMatches(*m, t).size(), size_t(1));
    QVERIFY(whyNot(t, matchFor(*m, "R"), *m).contains("is not an input of the model"));
    QVERIFY(whyNot(t, matchFor(*m, "Y"), *m).contains("is not an input of the model"));
    QVERIFY(whyNot(t, matchFor(*m, "W"), *m).contains("is not an input of the model"));
    // Structure, exact undo and redo (the numbers below, on each implementation).
    QVERIFY(checkTransformation(*m, t, matchFor(*m, "X"), 0, /*numeric=*/false));
    const DataDescriptor* x = dataIn(*m, "X");
    const DataDescriptor* copy = dataIn(*m, "X_channelslast");
    QVERIFY(x && !x->transient && !x->isChannelsLast());
    QVERIFY(copy && copy->transient && copy->isChannelsLast());
    QCOMPARE(copy->typeString(), std::string("float32[1, 3, 112, 104] channels-last")); // what the canvas shows
    QCOMPARE(readsFrom(*m, "conv", "X"), QString("X_channelslast"));
    // The reorder is one copy edge X -> X_channelslast, and X has no other reader.
    State* st = m->allStates()[0];
    int xNodes = 0;
    for (const auto& n : st->nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an->data() == "X") {
        ++xNodes;
        auto out = st->outEdges(an->id());
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(static_cast<const AccessNode*>(st->node(out[0]->dst))->data(), std::string("X_channelslast"));
      }
    QCOMPARE(xNodes, 1);
    QVERIFY(validate(*m).firstError() == nullptr);
    // Applied once: the copy is a transient now.
    QVERIFY(applicableMatches(*m, t).empty());
    // oneDNN reads the copy by its strides; the pure expansion of the same nodes reads it too.
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn, input channels-last"));
    QVERIFY2(code.find("strided(dims{1, 3, 112, 104}, dims{34944, 1, 312, 3})") != std::string::npos, code.c_str());
    setImplementations(*m, "pure");
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-4, "pure, input channels-last"));
  }

  // The copy's loops: the destination's order (channels innermost), the outer ones shared out among
  // the threads; a copy in one layout stays one memcpy.
  void copiesInTheDestinationsOrderOnTheThreads() {
    auto m = loadModel(controlflowDataFile("stem_7x7.onnx"), false);
    QVERIFY(m);
    setImplementations(*m, "onednn");
    QVERIFY(applyNow(*m, t, matchFor(*m, "X")));
    QVERIFY(expansions::expandAll(*m));
    auto code = codegen::generateCpp(*m, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    const std::string& s = code->source;
    const size_t at = s.find("{ // copy ");
    QVERIFY2(at != std::string::npos, "no copy");
    const std::string block = s.substr(at, s.find("\n    }\n", at) - at);
    QVERIFY2(block.find("#pragma omp parallel for num_threads(dcw_rt::num_threads()) collapse(2)") != std::string::npos, block.c_str());
    const size_t i0 = block.find("for (int64_t i0 "), i2 = block.find("for (int64_t i2 "), i3 = block.find("for (int64_t i3 "),
                 i1 = block.find("for (int64_t i1 ");
    QVERIFY2(i0 < i2 && i2 < i3 && i3 < i1 && i1 != std::string::npos, block.c_str());
  }

  void refusals() {
    auto m = loadModel(controlflowDataFile("stem_7x7.onnx"), false);
    QVERIFY(m);
    setImplementations(*m, "onednn");
    // A reader that does not run on oneDNN.
    auto* conv = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("conv"));
    QVERIFY(conv);
    conv->implementation = "pure";
    QVERIFY(whyNot(t, matchFor(*m, "X"), *m).contains("'conv', which does not run on oneDNN"));
    conv->implementation = "onednn";
    // An input that is also an output is the caller's twice.
    m->outputs.push_back("X");
    QVERIFY(whyNot(t, matchFor(*m, "X"), *m).contains("is an output of the model too"));
  }

  // Auto-optimize reorders the input where the stem would reorder it anyway: a 7x7 window, which
  // oneDNN's kernel takes (interleaved channels); not before a 3x3 convolution on 3 channels, which
  // DCW's few-channel kernel reads where it lies.
  void autoOptimizeUsesItBeforeA7x7Stem_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("prefer");
    QTest::addColumn<bool>("copied");
    QTest::newRow("7x7, onednn") << "stem_7x7.onnx" << "onednn" << true;
    QTest::newRow("7x7, pure") << "stem_7x7.onnx" << "pure" << false;
    QTest::newRow("3x3, onednn") << "channels_last_block.onnx" << "onednn" << false;
  }
  void autoOptimizeUsesItBeforeA7x7Stem() {
    QFETCH(QString, model);
    QFETCH(QString, prefer);
    QFETCH(bool, copied);
    auto m = loadModel(controlflowDataFile(model.toStdString()), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    edit::History h(*m);
    transforms::AutoOptimizeOptions o;
    o.prefer = {prefer.toStdString()};
    QVERIFY(transforms::autoOptimize(h, o));
    QCOMPARE(dataIn(*m, "X_channelslast") != nullptr, copied);
    bool inScript = false;
    for (size_t k = 0; k < h.size(); ++k) inScript = inScript || h.command(k).scriptLine().rfind("apply InputChannelsLast ", 0) == 0;
    QCOMPARE(inScript, copied);
    QVERIFY(validate(*m).firstError() == nullptr);
    QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 3)), 1e-4, "optimized"));
  }
};

QTEST_GUILESS_MAIN(TestInputChannelsLast)
#include "tst_InputChannelsLast.moc"
