// StridedView (transforms/catalogue/StridedView.h): the copies that split an attention's fused QKV
// product into heads (a Slice of the last dim, a Reshape, a Transpose) become strided views of the
// product, read in place by the oneDNN matmuls — K's and V's, each in two steps and either order of
// discovery, undo/redo exact, the numbers of the model as imported on oneDNN and on the pure path; the
// oneDNN calls describe the heads by their strides; the merge of heads written in place by the second
// matmul (the write side); what is not read by matmuls alone (Q's heads feed a Div, a slice feeds a
// Neg), a contiguous copy (CopyToView's) and a reshape that merges dims the strides keep apart are
// refused with their reasons; a view that reaches outside its array is named by code generation, as
// is one of an array with channels in blocks; the .dcw.json round trip keeps strides and offset;
// dcw optimize makes such views only when more than pure is preferred.
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/View.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/AutoOptimize.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = testpaths::source("/tests/data/transforms/data/attention_heads.onnx");

// The model as dcw optimize has it when StridedView runs: reshapes views, the copies expanded to maps
// and inlined, the matmuls (oneDNN) not expanded yet. `h` keeps the steps.
std::unique_ptr<Sdfg> prepared() {
  auto m = loadModel(kModel, false);
  if (!m) return nullptr;
  edit::History h(*m);
  transforms::AutoOptimizeOptions o;
  o.pipeline = {"ReshapeToView", "InlineNestedSDFG", "CopyToView", "StridedView"};
  o.prefer = {"onednn", "pure"};
  o.parallelize = false;
  if (auto r = transforms::autoOptimize(h, o); !r) {
    qWarning("%s", r.error().str().c_str());
    return nullptr;
  }
  // Back to before the first StridedView step (the oneDNN nodes are expanded after them).
  for (size_t i = 0; i < h.size(); ++i)
    if (h.command(i).scriptLine().rfind("apply StridedView ", 0) == 0) {
      h.jumpTo(i);
      h.truncate();
      return m;
    }
  qWarning("auto-optimize made no strided view");
  return nullptr;
}

// The path of the map that writes `data`.
std::string mapWriting(const Sdfg& m, const std::string& data) {
  for (auto* me : allNodes<MapEntry>(m)) {
    const State& st = *me->parent();
    const MapExit* exit = transforms::scope::exitOf(st, *me);
    for (const DataflowEdge* e : st.outEdges(exit->id()))
      if (auto* a = dynamic_cast<const AccessNode*>(st.node(e->dst)); a && a->data() == data) return pathOf(*me);
  }
  return "";
}

transforms::Match at(const Sdfg& m, const std::string& data) { return {"StridedView", {{"entry", mapWriting(m, data)}}, {}}; }

std::string whyNot(const Sdfg& m, const transforms::Match& match) {
  const auto* t = transforms::TransformationRegistry::instance().find("StridedView");
  Diagnostics d;
  if (t->canApply(match, m, &d)) return "applies";
  return d.firstError() ? d.firstError()->message : std::string("?");
}

std::vector<int64_t> ints(const std::vector<sym::Expr>& v) {
  std::vector<int64_t> out;
  for (auto& e : v) out.push_back(e.constantValue().value_or(-1));
  return out;
}

} // namespace

class TestStridedView : public QObject {
  Q_OBJECT
private slots:
  void headsBecomeStridedViews() {
    auto m = prepared();
    QVERIFY(m);
    // At first only the transposes of K and V apply (their slices are read through a reshape's view by
    // the transposes' maps), and the merge of heads on the write side.
    std::set<std::string> first;
    for (auto& match : applicable(*m, "StridedView")) first.insert(match.elements.at("entry"));
    QCOMPARE(first, std::set<std::string>({mapWriting(*m, "kt"), mapWriting(*m, "vt"), mapWriting(*m, "ot")}));
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (const char* data : {"kt", "vt"}) steps.push_back(applyCmd(at(*m, data)));
    auto sliceK = at(*m, "k"), sliceV = at(*m, "v");
    steps.push_back(applyCmd(sliceK));
    steps.push_back(applyCmd(sliceV));
    // Structure, validation, exact undo/redo; then the numbers (oneDNN matmuls).
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    // The slices' and reshapes' containers have no access node left; Q's heads are still copied (a Div reads them).
    for (const char* gone : {"k", "v", "k4", "v4"}) QCOMPARE(transforms::graph::accessCount(*m, gone), size_t(0));
    QCOMPARE(m->findData("qt")->dataKind, DataKind::Array);
    // The numbers of the model as imported (oneDNN matmuls, expanded in a copy); the oneDNN calls describe
    // the heads by their strides; no buffer of their own.
    auto copy = serialize::fromJson(serialize::toJson(*m));
    QVERIFY(copy);
    QVERIFY(sameNumbersAsImported(kModel, **copy, 1e-5));
    auto code = codegen::generateCpp(**copy, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    QVERIFY2(code->source.find("strided(dims{1, 2, 12, 8}, dims{576, 12, 1, 72})") != std::string::npos, "K not described by its strides");
    QVERIFY2(code->source.find("strided(dims{1, 2, 8, 12}, dims{576, 12, 72, 1})") != std::string::npos, "V not described by its strides");
    for (const char* view : {"kt_buffer", "vt_buffer"})
      QVERIFY2(code->source.find(std::string("Buffer<float> ") + view) == std::string::npos, view);
    // The .dcw.json keeps the views' strides and offsets: the same code from the file.
    auto back = serialize::fromJson(serialize::toJson(**copy));
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    auto again = codegen::generateCpp(**back, {});
    QVERIFY(again);
    QCOMPARE(again->source, code->source);
    // The pure path reads the strided views as well: the matmuls' pure expansions compute what the model
    // as imported does.
    for (auto* lib : allNodes<LibraryNode>(*m))
      if (lib->opType == "MatMul") lib->implementation = "pure";
    QVERIFY(sameNumbersAsImported(kModel, *m, 1e-5));
  }

  void eitherOrder() {
    // The slice of K first: its reshape's view is placed in qkv, then the transpose reads that view.
    auto m = prepared();
    QVERIFY(m);
    QVERIFY2(whyNot(*m, at(*m, "k")).find("view 'k4' of 'k' is read by") != std::string::npos, whyNot(*m, at(*m, "k")).c_str());
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(applyCmd(at(*m, "kt")));
    steps.push_back(applyCmd(at(*m, "k")));
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    QCOMPARE(ints(m->findData("kt")->strides), std::vector<int64_t>({576, 12, 1, 72}));
    QVERIFY(sameNumbersAsImported(kModel, *m, 1e-5));
  }

  void refusals() {
    auto m = prepared();
    QVERIFY(m);
    // Q's heads feed a Div, which oneDNN runs on row-major operands fast and on strided ones with its
    // reference kernel.
    QVERIFY2(whyNot(*m, at(*m, "qt")).find("'Div_q' reads 'qt' at A, where it takes row-major operands only") != std::string::npos,
             whyNot(*m, at(*m, "qt")).c_str());
    // A slice of the last dim read by a Neg.
    QVERIFY2(whyNot(*m, at(*m, "n")).find("'Neg_n' reads 'n'") != std::string::npos, whyNot(*m, at(*m, "n")).c_str());
    // Q's slice: read by its reshape's view, which the transpose's map reads; nor can qkv, which the
    // other slices read too, be written in place.
    QVERIFY2(whyNot(*m, at(*m, "q")).find("nor is 'qkv' written in place: 'qkv' is read by more than the copy") != std::string::npos,
             whyNot(*m, at(*m, "q")).c_str());
    // A contiguous block is CopyToView's.
    {
      auto s = optimizedThrough(testpaths::source("/tests/data/transforms/data/slice_views.onnx"), {"ReshapeToView", "InlineNestedSDFG"});
      QVERIFY(s);
      QVERIFY2(whyNot(*s, at(*s, "hi")).find("one contiguous run of 'a'") != std::string::npos, whyNot(*s, at(*s, "hi")).c_str());
    }
    // A reshape that merges dims the strides keep apart: a view of kt's [1, 2, 12, 8] as [1, 2, 96].
    {
      QVERIFY(applyNow(*m, *transforms::TransformationRegistry::instance().find("StridedView"), at(*m, "kt")));
      const std::vector<int64_t> shape{1, 2, 96};
      const StridedPlace inKt{{192, 96, 1}, 0};
      QVERIFY(!placeThrough(shape, inKt, {1, 2, 12, 8}, {{576, 12, 1, 72}, 24}));
      // Splitting a dim is fine: kt's [1, 2, 12, 8] as [1, 2, 12, 2, 4].
      auto split = placeThrough({1, 2, 12, 2, 4}, {{192, 96, 8, 4, 1}, 0}, {1, 2, 12, 8}, {{576, 12, 1, 72}, 24});
      QVERIFY(split);
      QCOMPARE(split->strides, std::vector<int64_t>({576, 12, 1, 288, 72}));
      QCOMPARE(split->offset, int64_t(24));
      // A view starting inside: rows 3 to 11 of kt's second head; all twelve rows from row 3 would run past it.
      QVERIFY(!placeThrough({12, 8}, {{8, 1}, 96 + 24}, {1, 2, 12, 8}, {{576, 12, 1, 72}, 24}));
      auto inner = placeThrough({9, 8}, {{8, 1}, 96 + 24}, {1, 2, 12, 8}, {{576, 12, 1, 72}, 24});
      QVERIFY(inner);
      QCOMPARE(inner->offset, int64_t(24 + 12 + 3));
      QCOMPARE(inner->strides, std::vector<int64_t>({1, 72}));
    }
  }

  // The merge of heads after the second matmul: o, which the map transposed into ot, becomes a view of ot
  // written through — the oneDNN matmul writes each head's rows where the copy put them (oneDNN and pure).
  void mergeIsWrittenInPlace() {
    auto m = prepared();
    QVERIFY(m);
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(applyCmd(at(*m, "ot")));
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    const DataDescriptor* o = m->findData("o");
    QCOMPARE(o->dataKind, DataKind::View);
    auto source = viewSource(*m, *o);
    QVERIFY2(source, source ? "" : source.error().str().c_str());
    QVERIFY(source->written);
    QCOMPARE(source->array->name(), std::string("ot"));
    QCOMPARE(ints(o->strides), std::vector<int64_t>({192, 12, 24, 1}));
    QCOMPARE(transforms::graph::accessCount(*m, "ot"), size_t(1));
    auto copy = serialize::fromJson(serialize::toJson(*m));
    QVERIFY(copy);
    QVERIFY(sameNumbersAsImported(kModel, **copy, 1e-5));
    auto code = codegen::generateCpp(**copy, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    QVERIFY2(code->source.find("const auto y = strided(dims{1, 2, 8, 12}, dims{192, 12, 24, 1})") != std::string::npos, "Y not written by its strides");
    QVERIFY(code->source.find("Buffer<float> o_buffer") == std::string::npos);
    // The pure matmul writes through the view as well.
    for (auto* lib : allNodes<LibraryNode>(*m))
      if (lib->opType == "MatMul") lib->implementation = "pure";
    QVERIFY(sameNumbersAsImported(kModel, *m, 1e-5));
  }

  // Code generation names a strided view whose elements reach outside its array.
  void viewOutsideItsArrayIsNamed() {
    auto m = prepared();
    QVERIFY(m);
    QVERIFY(applyNow(*m, *transforms::TransformationRegistry::instance().find("StridedView"), at(*m, "kt")));
    m->findData("kt")->offset = sym::Expr(100); // of k [1, 8, 24], K's slice: its heads 24 apart
    QVERIFY(expansions::expandAll(*m));
    auto code = codegen::generateCpp(*m, {});
    QVERIFY(!code);
    QVERIFY2(code.error().message.find("view 'kt': reaches elements 100 to 291, outside the 192 of 'k'") != std::string::npos,
             code.error().message.c_str());
  }

  // A strided view of an array whose channels lie in blocks is refused by code generation (a
  // hand-written .dcw.json can make one; StridedView does not).
  void viewOfBlockedArrayIsRefused() {
    auto m = prepared();
    QVERIFY(m);
    QVERIFY(applyNow(*m, *transforms::TransformationRegistry::instance().find("StridedView"), at(*m, "kt")));
    QVERIFY(expansions::expandAll(*m));
    QVERIFY(codegen::generateCpp(*m, {}));
    m->findData("k")->channelBlock = 8; // k [1, 8, 24]: its 8 rows in one block
    auto code = codegen::generateCpp(*m, {});
    QVERIFY(!code);
    QVERIFY2(code.error().message.find("view 'kt': shows 'k', whose channels lie in blocks of 8") != std::string::npos,
             code.error().message.c_str());
  }

  void autoOptimizeMakesStridedViewsUnlessPureOnly() {
    for (bool pure : {false, true}) {
      auto m = loadModel(kModel, false);
      QVERIFY(m);
      auto views = autoOptimizedSteps(*m, {pure ? "pure" : "onednn"}, "StridedView");
      QVERIFY(views);
      // Q's heads too (MatMulScaleFusion folds the Div into the score matmul first), and the merge.
      QCOMPARE(*views, pure ? size_t(0) : size_t(7));
      QVERIFY(sameNumbersAsImported(kModel, *m, 1e-5));
    }
  }
};

QTEST_GUILESS_MAIN(TestStridedView)
#include "tst_StridedView.moc"
