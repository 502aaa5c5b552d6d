// MapDimShuffle: a map's parameters in a new order. Structure (parameters and ranges permuted, body
// untouched), numbers (same outputs before and after, exact undo/redo) on ONNX node models expanded to
// pure maps, the refusals, and contiguousOrder — the order auto-optimize applies: the parameter that
// every memlet indexes contiguously (or not at all) innermost, declined where none does, where it is
// innermost already, and where moving it would make a reduction parameter the parallel one.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/MapDimShuffle.h"
#include "transforms/OptionList.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match shuffle(const MapEntry& me, const std::string& order) {
  return {"MapDimShuffle", {{"entry", pathOf(me)}}, {{"order", order}}};
}

std::string joined(const std::vector<std::string>& v) { return transforms::joinListItems(v); }


} // namespace

class TestMapDimShuffle : public QObject {
  Q_OBJECT
  transforms::MapDimShuffle t;

private slots:
  // A matrix product i, j, k becomes i, k, j: B and Y walk along j.
  void reordersAMatrixProduct() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    const auto params = me->params;
    const Subset ranges = me->range;
    QCOMPARE(params.size(), size_t(3));
    auto order = transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *m);
    QVERIFY(order);
    QCOMPARE(*order, joined({params[0], params[2], params[1]}));
    QVERIFY(checkTransformation(*m, t, shuffle(*me, *order)));
    QCOMPARE(me->params, (std::vector<std::string>{params[0], params[2], params[1]}));
    QCOMPARE(me->range[1], ranges[2]);
    QCOMPARE(me->range[2], ranges[1]);
    // Innermost already: nothing more to do.
    QVERIFY(!transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *m));
  }

  // A 1x1 convolution (its trivial dims gone): the output width goes innermost, after the channels.
  void reordersAPointwiseConvolution() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"));
    QVERIFY(m);
    dropTrivialDims(*m);
    MapEntry* me = mapNamed(*m, "conv_map");
    QVERIFY(me);
    QCOMPARE(joined(me->params), std::string("m,o0,o1,c"));
    auto order = transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *m);
    QVERIFY(order);
    QCOMPARE(*order, std::string("m,o0,c,o1"));
    QVERIFY(checkTransformation(*m, t, shuffle(*me, *order)));
    QCOMPARE(joined(me->params), std::string("m,o0,c,o1"));
  }

  // A padded 3x3 convolution reads a zero-padded copy of X at o1 + k1: o1 (the output's) goes innermost.
  void reordersAPaddedConvolution() {
    auto m = loadModel(controlflowDataFile("conv_relu.onnx"));
    QVERIFY(m);
    dropTrivialDims(*m);
    MapEntry* me = mapNamed(*m, "conv_map");
    QVERIFY(me);
    QCOMPARE(joined(me->params), std::string("m,o0,o1,c,k0,k1"));
    auto order = transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *m);
    QVERIFY(order);
    QCOMPARE(*order, std::string("m,o0,c,k0,k1,o1"));
    QVERIFY(checkTransformation(*m, t, shuffle(*me, *order)));
  }

  // Any order the user gives, e.g. the reduction outermost (write-conflict resolution keeps it right).
  void anyPermutation() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    const auto p = me->params;
    QVERIFY(checkTransformation(*m, t, shuffle(*me, joined({p[2], p[1], p[0]}))));
    QCOMPARE(me->params, (std::vector<std::string>{p[2], p[1], p[0]}));
  }

  void refusals() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    const auto p = me->params;
    QVERIFY(whyNot(t, shuffle(*me, ""), *m).contains("no order given"));
    QVERIFY(whyNot(t, shuffle(*me, joined(p)), *m).contains("is the map's order already"));
    QVERIFY(whyNot(t, shuffle(*me, joined({p[0], p[1]})), *m).contains("order names 2 parameters for a map of 3"));
    QVERIFY(whyNot(t, shuffle(*me, joined({p[0], p[1], "q"})), *m).contains("order names 'q', which is no parameter of the map"));
    QVERIFY(whyNot(t, shuffle(*me, joined({p[0], p[0], p[1]})), *m).contains("order names '" + QString::fromStdString(p[0]) + "' twice"));
    // A range that depends on another parameter of the map keeps that parameter before it.
    me->range.ranges()[2].end = sym::Expr::symbol(p[0]) + 1;
    const QString why = whyNot(t, shuffle(*me, joined({p[2], p[0], p[1]})), *m);
    QVERIFY2(why.contains("depends on '" + QString::fromStdString(p[0]) + "', which the order puts after it"), qPrintable(why));
  }

  // No order where no parameter walks every array contiguously (a transpose), where the reduction
  // would become the outermost parameter (a sum over rows), or for a map of one parameter.
  void contiguousOrderDeclines() {
    auto tr = loadModel(onnxCase("test_transpose_default"));
    QVERIFY(tr);
    for (auto* me : allNodes<MapEntry>(*tr))
      QVERIFY2(!transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *tr), me->label().c_str());
    auto rs = loadModel(onnxCase("test_reduce_sum_do_not_keepdims_example"));
    QVERIFY(rs);
    dropTrivialDims(*rs);
    for (auto* me : allNodes<MapEntry>(*rs)) {
      auto order = transforms::MapDimShuffle::contiguousOrder(shuffle(*me, ""), *rs);
      QVERIFY2(!order, (me->label() + ": " + order.value_or("")).c_str());
    }
  }

  // Auto-optimize of a pure model applies the order, records it in the script, and the numbers hold.
  void autoOptimizeRecordsTheOrder() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    const std::string script = pureOptimizedScript(*m, "conv_add_relu.onnx");
    QVERIFY2(script.find("apply MapDimShuffle entry=") != std::string::npos && script.find("order=m,o0,c,o1") != std::string::npos,
             script.c_str());
    QVERIFY(outputsClose(ref, runModel(*m, randomInputsFor(*m, 3)), 1e-5, "after auto-optimize"));
  }
};

QTEST_GUILESS_MAIN(TestMapDimShuffle)
#include "tst_MapDimShuffle.moc"
