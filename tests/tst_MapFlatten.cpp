// MapFlatten: several parameters of a map merged into one over the product of their ranges. Structure
// (the merged parameter in the last one's place, the memlets reading its digits), numbers (same outputs,
// exact undo/redo) on ONNX node models expanded to pure maps, the generated offsets (one unit-stride
// index where the arrays allow it, floor division and modulo where they do not), the refusals, and contiguousParams —
// the run auto-optimize merges: the parameters every memlet indexes as consecutive whole dimensions of
// a row-major array, or does not name.
#include "support/SdfgFixtures.h"
#include "codegen/cpu/CppGenerator.h"
#include "core/analysis/WriteConflicts.h"
#include "transforms/catalogue/MapDimShuffle.h"
#include "transforms/catalogue/MapFlatten.h"
#include "transforms/OptionList.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match flatten(const MapEntry& me, const std::string& params) {
  return {"MapFlatten", {{"entry", pathOf(me)}}, {{"params", params}}};
}

std::string joined(const std::vector<std::string>& v) { return transforms::joinListItems(v); }

// The generated C++ of a map's body: from its "// map <path>" comment to the end of its first tasklet.
std::string bodyCode(const Sdfg& s, const MapEntry& me) {
  auto code = codegen::generateCpp(s);
  if (!code) return {};
  const std::string& src = code->source;
  size_t at = src.find("// map " + pathOf(me) + "\n");
  if (at == std::string::npos) return {};
  size_t end = src.find("// map ", at + 1);
  return src.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

} // namespace

class TestMapFlatten : public QObject {
  Q_OBJECT
  transforms::MapFlatten t;

private slots:
  // A 1x1 convolution with the output width innermost (m, o0, c, o1): o0 and o1 become one parameter in
  // o1's place, and X and Y are read and written at 3*3*c + o0_o1 and 3*3*m + o0_o1 (conv_add_relu is
  // 3x3 spatially).
  void flattensAPointwiseConvolution() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"));
    QVERIFY(m);
    dropTrivialDims(*m);
    MapEntry* me = mapNamed(*m, "conv_map");
    QVERIFY(me);
    QVERIFY(applyNow(*m, transforms::MapDimShuffle(), {"MapDimShuffle", {{"entry", pathOf(*me)}}, {{"order", "m,o0,c,o1"}}}));
    auto params = transforms::MapFlatten::contiguousParams(flatten(*me, ""), *m);
    QVERIFY(params);
    QCOMPARE(*params, std::string("o0,o1"));
    const sym::Expr h = me->range[1].end, w = me->range[3].end;
    QVERIFY(checkTransformation(*m, t, flatten(*me, *params)));
    QCOMPARE(joined(me->params), std::string("m,c,o0_o1"));
    QCOMPARE(me->range[2], (Range{sym::Expr(0), h * w, sym::Expr(1)}));
    const std::string code = bodyCode(*m, *me);
    QVERIFY2(code.find("for (int64_t o0_o1 = 0; o0_o1 < " + (h * w).str() + "; o0_o1 += 1)") != std::string::npos, code.c_str());
    QVERIFY2(code.find("floordiv") == std::string::npos && code.find("floormod") == std::string::npos, code.c_str());
    QVERIFY2(code.find(" + o0_o1)]") != std::string::npos, code.c_str());
    // Nothing more to merge: the merged parameter is read through its digits.
    QVERIFY(!transforms::MapFlatten::contiguousParams(flatten(*me, ""), *m));
  }

  // An elementwise map over a 3-D array: all three parameters become one loop over every element.
  void flattensAnElementwiseMap() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    auto* me = allNodes<MapEntry>(*m).front();
    QCOMPARE(me->params.size(), size_t(3));
    auto params = transforms::MapFlatten::contiguousParams(flatten(*me, ""), *m);
    QVERIFY(params);
    QCOMPARE(*params, joined(me->params));
    QVERIFY(checkTransformation(*m, t, flatten(*me, *params)));
    QCOMPARE(me->params.size(), size_t(1));
    QCOMPARE(me->range[0].end, sym::Expr(60));
    const std::string code = bodyCode(*m, *me);
    QVERIFY2(code.find("floormod") == std::string::npos && code.find("for (int64_t") != std::string::npos, code.c_str());
  }

  // A broadcast operand limits the run: in Add of [3, 4, 5] and [5], the [5] names the last parameter
  // alone, so the run is the outer two (12 rows of 5).
  void broadcastLimitsTheRun() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    auto* me = allNodes<MapEntry>(*m).front();
    QCOMPARE(me->params.size(), size_t(3));
    auto params = transforms::MapFlatten::contiguousParams(flatten(*me, ""), *m);
    QVERIFY(params);
    QCOMPARE(*params, joined({me->params[0], me->params[1]}));
    QVERIFY(checkTransformation(*m, t, flatten(*me, *params)));
    QCOMPARE(me->params.size(), size_t(2));
  }

  // Any parameters merge exactly, also where the arrays do not make them contiguous: a matrix product's
  // i and k (A[i, k] in order, B[k, j] not) read through // and %, with the same numbers.
  void mergesAnyParametersExactly() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    const auto p = me->params;
    QVERIFY(checkTransformation(*m, t, flatten(*me, joined({p[2], p[0]}))));
    QCOMPARE(me->params.size(), size_t(2));
    // In the place of the last one named (i, the first of the map).
    QCOMPARE(me->params, (std::vector<std::string>{p[2] + "_" + p[0], p[1]}));
    const std::string code = bodyCode(*m, *me);
    QVERIFY2(code.find("dcw_rt::floormod(") != std::string::npos && code.find("dcw_rt::floordiv(") != std::string::npos, code.c_str());
  }

  // No run where no two parameters are consecutive whole dimensions of every array naming them: a
  // transpose, and a padded 3x3 convolution (its window reads o0 + k0, o1 + k1 of a wider array).
  void contiguousParamsDeclines() {
    auto tr = loadModel(onnxCase("test_transpose_default"));
    QVERIFY(tr);
    for (auto* me : allNodes<MapEntry>(*tr)) {
      auto params = transforms::MapFlatten::contiguousParams(flatten(*me, ""), *tr);
      QVERIFY2(!params, (me->label() + ": " + params.value_or("")).c_str());
    }
    auto conv = loadModel(controlflowDataFile("conv_relu.onnx"));
    QVERIFY(conv);
    dropTrivialDims(*conv);
    MapEntry* me = mapNamed(*conv, "conv_map");
    QVERIFY(me);
    auto params = transforms::MapFlatten::contiguousParams(flatten(*me, ""), *conv);
    QVERIFY2(!params, params.value_or("").c_str());
  }

  void refusals() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    const auto p = me->params;
    QVERIFY(whyNot(t, flatten(*me, ""), *m).contains("no params given"));
    QVERIFY(whyNot(t, flatten(*me, p[0]), *m).contains("merging needs two or more"));
    QVERIFY(whyNot(t, flatten(*me, joined({p[0], "q"})), *m).contains("params names 'q', which is no parameter of the map"));
    QVERIFY(whyNot(t, flatten(*me, joined({p[0], p[0]})), *m).contains("params names '" + QString::fromStdString(p[0]) + "' twice"));
    // A range that depends on another parameter, or does not start at 0.
    me->range.ranges()[2].end = sym::Expr::symbol(p[0]) + 1;
    QString why = whyNot(t, flatten(*me, joined({p[0], p[1]})), *m);
    QVERIFY2(why.contains("depends on '" + QString::fromStdString(p[0]) + "'"), qPrintable(why));
    me->range.ranges()[2] = Range{sym::Expr(1), sym::Expr(3), sym::Expr(1)};
    why = whyNot(t, flatten(*me, joined({p[0], p[2]})), *m);
    QVERIFY2(why.contains("only ranges 0:N with step 1 merge"), qPrintable(why));
    // A tasklet that reads a parameter in its code (EyeLike's select(i1 - i0 == k, ...)).
    auto eye = loadModel(mapsDataPath("eyelike_1x4.onnx"));
    QVERIFY(eye);
    MapEntry* em = mapNamed(*eye, "eye_map");
    QVERIFY(em);
    why = whyNot(t, flatten(*em, joined(em->params)), *eye);
    QVERIFY2(why.contains("the tasklet eye uses a merged parameter"), qPrintable(why));
  }

  // Iterations of a merged parameter write distinct elements when its digits span it, so a parallel
  // loop over it needs no atomics; a digit missing, or a digit shifted by a varying term, may collide.
  void digitsWriteDistinctElements() {
    const sym::Expr p = sym::Expr::symbol("p"), k = sym::Expr::symbol("k");
    auto at = [](std::vector<sym::Expr> idx) {
      std::vector<Range> r;
      for (auto& e : idx) r.push_back(Range{e, e + 1, sym::Expr(1)});
      return Subset(r);
    };
    const std::set<std::string> ps{"p"}, varying{"p", "k"};
    QVERIFY(analysis::writesDistinct(at({sym::Expr(0), sym::floorDiv(p, 7), sym::mod(p, 7)}), ps, varying));
    QVERIFY(analysis::writesDistinct(at({sym::floorDiv(p, 49), sym::mod(sym::floorDiv(p, 7), 7), sym::mod(p, 7)}), ps, varying));
    QVERIFY(analysis::writesDistinct(at({sym::floorDiv(p, 7) + sym::Expr::symbol("N"), sym::mod(p, 7)}), ps, varying));
    QVERIFY(!analysis::writesDistinct(at({sym::floorDiv(p, 7)}), ps, varying));
    QVERIFY(!analysis::writesDistinct(at({sym::mod(p, 7)}), ps, varying));
    QVERIFY(!analysis::writesDistinct(at({sym::mod(sym::floorDiv(p, 7), 7), sym::mod(p, 7)}), ps, varying));
    QVERIFY(!analysis::writesDistinct(at({sym::floorDiv(p, 8), sym::mod(p, 7)}), ps, varying));
    QVERIFY(!analysis::writesDistinct(at({sym::floorDiv(p, 7) + k, sym::mod(p, 7)}), ps, varying));
  }

  // A channels-last linear layer (ConvNeXt's MLP on [1, 12, 12, 32]): auto-optimize merges the 12x12
  // rows into the outermost parameter, which runs in parallel; the sum over the 32 inputs writes
  // through the merged parameter's digits without atomics, and the numbers hold.
  void flattenedReductionRunsInParallelWithoutAtomics() {
    auto m = loadModel(mapsDataPath("matmul_12x12.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!pureOptimizedScript(*m, "matmul_12x12.onnx", false).empty());
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    QVERIFY2(me->params.front().find('_') != std::string::npos, joined(me->params).c_str()); // i1_i2 or the like
    QCOMPARE(me->range[0].end, sym::Expr(144));
    const std::string code = bodyCode(*m, *me);
    QVERIFY2(code.find("#pragma omp parallel for") != std::string::npos, code.c_str());
    QVERIFY2(code.find("omp atomic") == std::string::npos && code.find("critical") == std::string::npos, code.c_str());
    QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 5)), 1e-4, "after auto-optimize"));
  }

  // Worth a step where the body reduces or the last parameter merged spans less than a vector; not on
  // a map that streams long rows (Relu over 64 rows of 48), which auto-optimize then neither merges nor
  // tiles (its tiles would reuse nothing).
  void paysOnlyWhereItHelps() {
    auto relu = loadModel(onnxCase("test_relu")); // [3, 4, 5]
    QVERIFY(relu);
    auto* me = allNodes<MapEntry>(*relu).front();
    QVERIFY(transforms::MapFlatten::pays(flatten(*me, joined(me->params)), *relu));
    auto mm = loadModel(mapsDataPath("matmul_12x12.onnx"));
    QVERIFY(mm);
    dropTrivialDims(*mm);
    MapEntry* mme = mapNamed(*mm, "matmul_map");
    QVERIFY(mme);
    QVERIFY(transforms::MapFlatten::pays(flatten(*mme, "i1,i2"), *mm)); // 12 < 16, and a sum
    auto expanded = loadModel(mapsDataPath("relu_64x48.onnx"));
    QVERIFY(expanded);
    auto* eme = allNodes<MapEntry>(*expanded).front();
    auto run = transforms::MapFlatten::contiguousParams(flatten(*eme, ""), *expanded);
    QVERIFY(run); // it could merge
    QVERIFY(!transforms::MapFlatten::pays(flatten(*eme, *run), *expanded));
    auto wide = loadModel(mapsDataPath("relu_64x48.onnx"), false);
    QVERIFY(wide);
    auto ref = runExpanded(*wide, 9);
    const std::string script = pureOptimizedScript(*wide, "relu_64x48.onnx");
    QVERIFY2(script.find("MapFlatten") == std::string::npos && script.find("MapTiling") == std::string::npos, script.c_str());
    QVERIFY(outputsClose(ref, runModel(*wide, randomInputsFor(*wide, 9)), 0, "after auto-optimize"));
  }

  // The CPU generator keeps a map's innermost loop out of `collapse` where the loops outside it give the
  // threads 16 iterations or more, so it stays a loop the compiler vectorizes (a merged plane of 784,
  // or Relu's rows of 48 under 64 rows); outer loops still collapse among themselves (12 x 12 rows).
  void innermostLoopStaysALoop() {
    auto wide = loadModel(mapsDataPath("relu_64x48.onnx"));
    QVERIFY(wide);
    auto* me = allNodes<MapEntry>(*wide).front();
    std::string code = bodyCode(*wide, *me);
    QVERIFY2(code.find("#pragma omp parallel for") != std::string::npos && code.find("collapse(") == std::string::npos, code.c_str());
    auto mm = loadModel(mapsDataPath("matmul_12x12.onnx")); // its [1, 12, 12, 16] init map
    QVERIFY(mm);
    dropTrivialDims(*mm);
    MapEntry* init = nullptr;
    for (auto* e : allNodes<MapEntry>(*mm))
      if (e->params.size() == 3) init = e;
    QVERIFY(init);
    code = bodyCode(*mm, *init);
    QVERIFY2(code.find("collapse(2)") != std::string::npos, code.c_str());
  }

  // Auto-optimize of a pure model merges the run after MapDimShuffle, records it in the script, and
  // the numbers hold.
  void autoOptimizeRecordsTheMerge() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    const std::string script = pureOptimizedScript(*m, "conv_add_relu.onnx");
    const size_t shuffle = script.find("order=m,o0,c,o1"), merge = script.find("apply MapFlatten entry=main/");
    QVERIFY2(shuffle != std::string::npos && merge != std::string::npos && shuffle < merge, script.c_str());
    QVERIFY2(script.find("params=o0,o1") != std::string::npos, script.c_str());
    QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 3)), 1e-5, "after auto-optimize"));
  }
};

QTEST_GUILESS_MAIN(TestMapFlatten)
#include "tst_MapFlatten.moc"
