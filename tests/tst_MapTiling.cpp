// MapTiling: structure (an outer map over tiles around the tiled map) and numbers (same outputs) on
// real ONNX models, expanded to pure maps.
#include "support/TransformTestSupport.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

class TestMapTiling : public QObject {
  Q_OBJECT
private slots:
  void tilesEveryDimension() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    const size_t rank = maps[0]->params.size();
    transforms::Match t{"MapTiling", {{"entry", pathOf(*maps[0])}}, {{"tile_sizes", "2"}}};
    QVERIFY(checkMatch(*m, t));
    auto after = allNodes<MapEntry>(*m);
    QCOMPARE(after.size(), size_t(2));
    MapEntry* outer = after[0]->label().find("_tiles") != std::string::npos ? after[0] : after[1];
    MapEntry* inner = outer == after[0] ? after[1] : after[0];
    QCOMPARE(inner->params.size(), rank);
    QVERIFY(outer->params.size() >= 1);
    for (auto& r : outer->range.ranges()) QCOMPARE(r.step, sym::Expr(2));
    QVERIFY(inner->range[inner->params.size() - 1].end.str().find("min") != std::string::npos);
    QCOMPARE(inner->schedule, Schedule::Sequential);
  }

  void unevenTilesOnMatMul() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    int tiled = 0;
    for (auto* me : allNodes<MapEntry>(*m)) {
      auto copy = loadModel(onnxCase("test_matmul_2d"));
      transforms::Match t{"MapTiling", {{"entry", pathOf(*me)}}, {{"tile_sizes", "3"}}};
      const auto* tr = transforms::TransformationRegistry::instance().find("MapTiling");
      if (!tr->canApply(t, *copy, nullptr)) continue;
      QVERIFY2(checkMatch(*copy, t), pathOf(*me).c_str());
      ++tiled;
    }
    QVERIFY(tiled >= 1);
  }

  // Softmax's maps include ones without inputs (initialisations): the tiled map must still sit
  // inside the tile map's scope.
  void everyMapOfSoftmax() {
    auto m = loadModel(onnxCase("test_softmax_axis_1"));
    QVERIFY(m);
    int tiled = 0;
    const auto* tr = transforms::TransformationRegistry::instance().find("MapTiling");
    for (auto* me : allNodes<MapEntry>(*m)) {
      auto copy = loadModel(onnxCase("test_softmax_axis_1"));
      transforms::Match t{"MapTiling", {{"entry", pathOf(*me)}}, {{"tile_sizes", "2"}}};
      if (!tr->canApply(t, *copy, nullptr)) continue;
      QVERIFY2(checkMatch(*copy, t), pathOf(*me).c_str());
      ++tiled;
    }
    QVERIFY(tiled >= 3);
  }

  void refusesWhatItCannotTile() {
    auto m = loadModel(onnxCase("test_relu"));
    auto maps = allNodes<MapEntry>(*m);
    const auto* tr = transforms::TransformationRegistry::instance().find("MapTiling");
    Diagnostics why;
    transforms::Match big{"MapTiling", {{"entry", pathOf(*maps[0])}}, {{"tile_sizes", "1000"}}};
    QVERIFY(!tr->canApply(big, *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("already fits in one tile"));
    transforms::Match notMap{"MapTiling", {{"entry", pathOf(*allNodes<NestedSdfgNode>(*m)[0])}}, {}};
    Diagnostics why2;
    QVERIFY(!tr->canApply(notMap, *m, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("is not a map entry"));
  }
};

QTEST_APPLESS_MAIN(TestMapTiling)
#include "tst_MapTiling.moc"
