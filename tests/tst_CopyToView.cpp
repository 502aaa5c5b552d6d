// CopyToView (transforms/catalogue/CopyToView.h): the maps that copy one contiguous block of a row-major
// array (a Slice along channels, a Split, a Slice of a reshape's view) become views of that block —
// undo/redo exact, the numbers of the model as imported, no copy and no buffer of their own in the
// generated code (the block's first element is their pointer), a block of such a view where its view
// lies; the copies that are not one block (a slice of the last dim, a strided slice, a copy a view
// already shows) refused with their reasons; a view of a block that breaks the rules named by code
// generation; dcw optimize makes such views only when more than pure is preferred, and ShuffleNetV2's
// channel-shuffle halves become views.
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/AccessNode.h"
#include "core/ir/View.h"
#include "transforms/AutoOptimize.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = testpaths::source("/tests/data/transforms/data/slice_views.onnx");

// The model as dcw optimize has it when CopyToView runs: the reshape a view, Relu and Neg on oneDNN, the
// slices and the split expanded to maps and inlined.
std::unique_ptr<Sdfg> prepared() { return optimizedThrough(kModel, {"ReshapeToView", "InlineNestedSDFG"}); }

transforms::Match at(const std::string& map) { return {"CopyToView", {{"entry", "main/state0/" + map}}, {}}; }

} // namespace

class TestCopyToView : public QObject {
  Q_OBJECT
private slots:
  void blocksBecomeViews() {
    auto m = prepared();
    QVERIFY(m);
    std::set<std::string> maps;
    for (auto& match : applicable(*m, "CopyToView")) maps.insert(match.elements.at("entry"));
    QCOMPARE(maps, std::set<std::string>({"main/state0/slice_map", "main/state0/split_map", "main/state0/split_map_1",
                                          "main/state0/slice_map_3"}));
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (const char* map : {"slice_map", "split_map", "split_map_1", "slice_map_3"}) steps.push_back(applyCmd(at(map)));
    // Structure, validation, the numbers before and after, exact undo/redo.
    QVERIFY(checkSteps(*m, std::move(steps)));
    for (const char* name : {"hi", "p", "q", "u"}) QCOMPARE(m->findData(name)->dataKind, DataKind::View);
    for (const char* name : {"w", "t"}) QCOMPARE(m->findData(name)->dataKind, DataKind::Array);
    // Each shows its block of a: the slice of the reshape's view r shows a itself (r's access node went).
    const std::map<std::string, std::string> blocks = {
        {"hi", "0, 4:8, 0:4, 0:4"}, {"p", "0, 0:2, 0:4, 0:4"}, {"q", "0, 2:8, 0:4, 0:4"}, {"u", "0, 4:8, 0:4, 0:4"}};
    for (auto& [view, block] : blocks) {
      auto source = viewSource(*m, *m->findData(view));
      QVERIFY2(source, source ? "" : source.error().str().c_str());
      QCOMPARE(source->array->name(), std::string("a"));
      QCOMPARE(source->edge->memlet.subset.str(), block);
    }
    QCOMPARE(transforms::graph::accessCount(*m, "r"), size_t(0));
    QVERIFY(sameNumbersAsImported(kModel, *m, 0));
    // No copy into a view and no buffer of its own: the block's first element is its pointer.
    auto code = codegen::generateCpp(*m, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    for (const char* view : {"hi_buffer", "p_buffer", "q_buffer", "u_buffer"})
      QVERIFY2(code->source.find(std::string("Buffer<float> ") + view) == std::string::npos, view);
    // hi and u start 64 elements into a, q 32.
    QVERIFY2(code->source.find("_buffer.data + 64)") != std::string::npos || code->source.find(" + 64)") != std::string::npos, "no view 64 elements into a");
    QVERIFY2(code->source.find(" + 32)") != std::string::npos, "no view 32 elements into a");
  }

  void refusals() {
    auto m = prepared();
    QVERIFY(m);
    const auto* t = transforms::TransformationRegistry::instance().find("CopyToView");
    auto why = [&](const std::string& map) {
      Diagnostics d;
      if (t->canApply(at(map), *m, &d)) return std::string("applies");
      return d.firstError() ? d.firstError()->message : std::string("?");
    };
    // Half of every row: the elements read move by more than one offset.
    QVERIFY2(why("slice_map_1").find("the elements it reads are not those it writes moved by one constant offset") != std::string::npos,
             why("slice_map_1").c_str());
    // Every second channel: strided.
    QVERIFY2(why("slice_map_2").find("not those it writes moved by one constant offset") != std::string::npos, why("slice_map_2").c_str());
    // A map that computes (Neg's pure expansion would): not a copy.
    auto pure = loadModel(kModel, true);
    QVERIFY(pure);
    bool refusedCompute = false;
    for (auto* me : allNodes<MapEntry>(*pure)) {
      Diagnostics d;
      transforms::Match match{"CopyToView", {{"entry", pathOf(*me)}}, {}};
      if (!t->canApply(match, *pure, &d) && d.firstError())
        refusedCompute = refusedCompute || d.firstError()->message.find("is not a transient array") != std::string::npos ||
                         d.firstError()->message.find("does more than copy") != std::string::npos;
    }
    QVERIFY(refusedCompute);
    // A tasklet that reads a range (two elements of a row) is no element-for-element copy.
    {
      auto wide = prepared();
      QVERIFY(wide);
      auto* me = mapNamed(*wide, "slice_map");
      QVERIFY(me);
      State& st = *me->parent();
      const Node* body = transforms::scope::nodesInside(st, *me).front();
      Memlet& rd = st.inEdges(body->id()).front()->memlet;
      const size_t last = rd.subset.rank() - 1;
      rd.subset.ranges()[last] = Range{rd.subset[last].begin, rd.subset[last].begin + sym::Expr(2), sym::Expr(1)};
      Diagnostics d;
      QVERIFY(!t->canApply(at("slice_map"), *wide, &d));
      QVERIFY2(d.firstError() && d.firstError()->message.find("the copy reads a range of 'a' in dim 3, not one element") != std::string::npos,
               d.firstError() ? d.firstError()->message.c_str() : "?");
    }
    // A channels-last source: its elements are not in the view's order.
    m->findData("a")->strides = DataDescriptor::channelsLastStrides(m->findData("a")->shape);
    QVERIFY2(why("slice_map").find("'a' is not row-major") != std::string::npos, why("slice_map").c_str());
  }

  // A slice of a slice: once the first is a view of a block, the second's block is counted from the
  // array's first element, not the view's (Silero VAD's STFT halves read the wrong rows before).
  void blockOfABlockViewLiesWhereItsViewDoes() {
    const std::string model = testpaths::source("/tests/data/transforms/data/slice_of_slice.onnx");
    auto m = optimizedThrough(model, {"InlineNestedSDFG"});
    QVERIFY(m);
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (const char* map : {"slice_map", "slice_map_1"}) steps.push_back(applyCmd(at(map)));
    QVERIFY(checkSteps(*m, std::move(steps)));
    QCOMPARE(m->findData("s1")->dataKind, DataKind::View);
    QCOMPARE(m->findData("s2")->dataKind, DataKind::View);
    QVERIFY(sameNumbersAsImported(model, *m, 1e-6));
  }

  // A block copy whose result a reshape's view shows stays a copy (ConvNeXt's classifier: a transpose
  // that moves nothing, then a flatten), with the reason, and dcw optimize keeps it without a failed step.
  void copyShownByAViewIsRefused() {
    const std::string model = testpaths::source("/tests/data/transforms/data/viewed_slice.onnx");
    auto m = optimizedThrough(model, {"ReshapeToView", "InlineNestedSDFG"});
    QVERIFY(m);
    QCOMPARE(m->findData("r")->dataKind, DataKind::View);
    const auto* t = transforms::TransformationRegistry::instance().find("CopyToView");
    Diagnostics d;
    QVERIFY(!t->canApply(at("slice_map"), *m, &d));
    QVERIFY2(d.firstError() && d.firstError()->message == "'hi' is shown by the view 'r', and a view cannot show another view",
             d.firstError() ? d.firstError()->message.c_str() : "no reason");
    // The whole optimization: no step skipped as a failure, and the model's numbers as imported.
    auto fresh = loadModel(model, false);
    edit::History all(*fresh);
    transforms::AutoOptimizeOptions full;
    std::vector<std::string> log;
    full.log = [&](const std::string& line) { log.push_back(line); };
    QVERIFY(transforms::autoOptimize(all, full));
    for (const auto& line : log) QVERIFY2(line.find("skipped") == std::string::npos, line.c_str());
    QVERIFY(sameNumbersAsImported(model, *fresh, 1e-6));
  }

  // Code generation gives storage to a view of one block only: an edge carrying rows of a part of a
  // dim is named.
  void brokenBlockIsNamed() {
    auto m = prepared();
    QVERIFY(m);
    QVERIFY(applyNow(*m, *transforms::TransformationRegistry::instance().find("CopyToView"), at("slice_map")));
    auto source = viewSource(*m, *m->findData("hi"));
    QVERIFY(source);
    const_cast<DataflowEdge*>(source->edge)->memlet.subset = S("0, 4:8, 0:4, 0:2");
    auto code = codegen::generateCpp(*m, {});
    QVERIFY(!code);
    QVERIFY2(code.error().message.find("view 'hi': its edge carries 0, 4:8, 0:4, 0:2 of 'a', which is not one contiguous block") !=
                 std::string::npos,
             code.error().message.c_str());
  }

  void autoOptimizeMakesViewsUnlessPureOnly() {
    for (bool pure : {false, true}) {
      auto m = loadModel(kModel, false);
      QVERIFY(m);
      auto views = autoOptimizedSteps(*m, {pure ? "pure" : "onednn"}, "CopyToView");
      QVERIFY(views);
      QCOMPARE(*views, pure ? size_t(0) : size_t(4));
      QVERIFY(sameNumbersAsImported(kModel, *m, 1e-6));
    }
  }
};

QTEST_GUILESS_MAIN(TestCopyToView)
#include "tst_CopyToView.moc"
