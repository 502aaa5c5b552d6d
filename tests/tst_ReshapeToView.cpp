// ReshapeToView (transforms/catalogue/ReshapeToView.h) and views in the IR (core/ir/View.h): every
// reshaping op of a row-major transient becomes a view — undo/redo exact, the numbers of the model as
// imported, no copy and no buffer for the view in the generated code; the refusals (a view of a view, an output a view shows, a
// constant, a channels-last array) with their reasons; validation of a broken view; Auto-optimize makes
// views only when more than pure is preferred (a pure-only model stays differentiable).
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/AccessNode.h"
#include "core/ir/View.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = testpaths::source("/tests/data/transforms/data/shuffle_views.onnx");

transforms::Match at(const std::string& op, const Sdfg& m) {
  for (auto& match : applicable(m, "ReshapeToView"))
    if (match.elements.at("reshape") == "main/state0/" + op) return match;
  return {};
}

} // namespace

class TestReshapeToView : public QObject {
  Q_OBJECT
private slots:
  void everyReshapingOp() {
    auto m = loadModel(kModel, false);
    QVERIFY(m);
    std::set<std::string> ops;
    for (auto& match : applicable(*m, "ReshapeToView")) ops.insert(match.elements.at("reshape"));
    QCOMPARE(ops, std::set<std::string>({"main/state0/Reshape_split", "main/state0/Reshape_merge", "main/state0/Flatten_f",
                                         "main/state0/Unsqueeze_g", "main/state0/Squeeze_h"}));
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (const char* op : {"Reshape_split", "Reshape_merge", "Flatten_f", "Squeeze_h"}) steps.push_back(applyCmd(at(op, *m)));
    for (auto& s : steps) QVERIFY(s);
    // Structure, validation and exact undo/redo (numbers below: they need the rest expanded).
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    for (const char* name : {"b", "d", "f", "h"}) QCOMPARE(m->findData(name)->dataKind, DataKind::View);
    QCOMPARE(m->findData("b")->typeString(), std::string("float32[1, 2, 4, 4, 4] view")); // what the canvas and inspector show
    auto source = viewSource(*m, *m->findData("b"));
    QVERIFY2(source, source ? "" : source.error().str().c_str());
    QCOMPARE(source->array->name(), std::string("a"));
    // Unsqueeze now reads a view: refused, with the reason.
    Diagnostics why;
    const auto* t = transforms::TransformationRegistry::instance().find("ReshapeToView");
    transforms::Match unsq{"ReshapeToView",
                           {{"input", "main/state0/f"}, {"reshape", "main/state0/Unsqueeze_g"}, {"output", "main/state0/g"}}, {}};
    QVERIFY(!t->canApply(unsq, *m, &why));
    QVERIFY2(why.firstError()->message.find("'f' is not an array (a view, stream or scalar)") != std::string::npos,
             why.firstError()->message.c_str());
    // The shape inputs went with their ops.
    for (const char* gone : {"split_shape", "merge_shape"})
      for (auto& n : m->allStates().front()->nodes())
        if (auto* a = dynamic_cast<const AccessNode*>(n.get())) QVERIFY2(a->data() != gone, gone);

    QVERIFY(sameNumbersAsImported(kModel, *m, 0));
    // No copy into a view and no buffer of its own: it is the array's pointer.
    auto code = codegen::generateCpp(*m, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    for (const char* view : {"b_buffer", "d_buffer", "f_buffer", "h_buffer"})
      QVERIFY2(code->source.find(std::string("Buffer<float> ") + view) == std::string::npos, view);
    QVERIFY(code->source.find("Buffer<float> a_buffer") != std::string::npos);
    // A strided view (StridedView's) gets the array's storage too, its elements placed by its strides and
    // offset; one that reaches past the array validates as IR, and code generation names it.
    m->findData("b")->strides = DataDescriptor::channelsLastStrides(m->findData("b")->shape);
    QVERIFY(codegen::generateCpp(*m, {}));
    m->findData("b")->offset = sym::Expr(1);
    QVERIFY(!validate(*m).hasErrors());
    auto strided = codegen::generateCpp(*m, {});
    QVERIFY(!strided);
    QVERIFY2(strided.error().message.find("view 'b': reaches elements 1 to") != std::string::npos, strided.error().message.c_str());
  }

  void refusals() {
    auto m = loadModel(kModel, false);
    QVERIFY(m);
    const auto* t = transforms::TransformationRegistry::instance().find("ReshapeToView");
    // A channels-last (strided) array: its reshape reorders elements.
    m->findData("a")->strides = DataDescriptor::channelsLastStrides(m->findData("a")->shape);
    Diagnostics why;
    const transforms::Match split{"ReshapeToView",
                                  {{"input", "main/state0/a"}, {"reshape", "main/state0/Reshape_split"}, {"output", "main/state0/b"}}, {}};
    QVERIFY(!t->canApply(split, *m, &why));
    QVERIFY2(why.firstError()->message.find("'a' is not row-major") != std::string::npos, why.firstError()->message.c_str());
    // Not a reshaping op.
    Diagnostics why2;
    QVERIFY(!t->canApply(transforms::Match{"ReshapeToView",
                                           {{"input", "main/state0/b"}, {"reshape", "main/state0/Transpose_shuffle"}, {"output", "main/state0/c"}},
                                           {}},
                         *m, &why2));
    QVERIFY2(why2.firstError()->message.find("is a Transpose, not a Reshape, Flatten, Squeeze or Unsqueeze") != std::string::npos,
             why2.firstError()->message.c_str());
    // An output that a view shows already stays an array: a view shows an array, not a view (Swin-T's
    // attention, whose transposed head became a view first, was made a view of a view so, which
    // validation then refused).
    auto fresh = loadModel(kModel, false);
    QVERIFY(fresh);
    std::vector<std::unique_ptr<edit::Command>> first;
    first.push_back(applyCmd(at("Squeeze_h", *fresh)));
    QVERIFY(first.front());
    QVERIFY(checkSteps(*fresh, std::move(first), 0, false));
    const transforms::Match unsqueeze{"ReshapeToView",
                                      {{"input", "main/state0/f"}, {"reshape", "main/state0/Unsqueeze_g"}, {"output", "main/state0/g"}}, {}};
    Diagnostics why3;
    QVERIFY(!t->canApply(unsqueeze, *fresh, &why3));
    QVERIFY2(why3.firstError()->message.find("'h' is a view of 'g', which must stay an array") != std::string::npos,
             why3.firstError()->message.c_str());
  }

  // A view must be fed by one edge from an array's access node: validation names a view that is not;
  // an unused view is no error.
  void brokenViewsAreNamed() {
    auto m = loadModel(kModel, false);
    QVERIFY(m);
    m->findData("c")->dataKind = DataKind::View; // written by the Transpose, not by an array's access node
    auto problems = validate(*m);
    QVERIFY(problems.hasErrors());
    bool named = false;
    for (auto& d : problems.items())
      named = named || (d.location == "main/@c" && d.message.find("view 'c': is fed by a node that is not an access node") != std::string::npos);
    QVERIFY2(named, problems.firstError()->str().c_str());
    auto unused = std::make_unique<DataDescriptor>("unused_view");
    unused->dataKind = DataKind::View;
    unused->transient = true;
    unused->shape = {sym::Expr(4)};
    unused->strides = {sym::Expr(1)};
    m->findData("c")->dataKind = DataKind::Array;
    m->addData(std::move(unused));
    QVERIFY(!validate(*m).hasErrors());
  }

  void autoOptimizeMakesViewsUnlessPureOnly() {
    for (bool pure : {false, true}) {
      auto m = loadModel(kModel, false);
      QVERIFY(m);
      auto views = autoOptimizedSteps(*m, {pure ? "pure" : "onednn"}, "ReshapeToView");
      QVERIFY(views);
      if (pure) QCOMPARE(*views, size_t(0));
      else QVERIFY(*views >= 4);
    }
  }
};

QTEST_GUILESS_MAIN(TestReshapeToView)
#include "tst_ReshapeToView.moc"
