// Schedule transformations of the "maps" group: MapUnroll (Schedule::Unrolled, emitted as
// `#pragma GCC unroll N` without OpenMP) and Vectorization (strip-mined by the vector width, the
// inner map Schedule::Vectorized, emitted as `#pragma omp simd`). Structure, generated code,
// numbers (same outputs, exact undo/redo) on real ONNX models, and refusals.
#include "support/SdfgFixtures.h"
#include "codegen/cpu/CppGenerator.h"
#include "transforms/catalogue/MapUnroll.h"
#include "transforms/catalogue/Vectorization.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// The generated C++ from the "// map <path>" comment of a map to the end of its loop header lines.
std::string mapCode(const Sdfg& s, const MapEntry& me) {
  auto code = codegen::generateCpp(s);
  if (!code) return {};
  const std::string& src = code->source;
  size_t at = src.find("// map " + pathOf(me) + "\n");
  if (at == std::string::npos) return {};
  size_t end = src.find('{', at);
  return src.substr(at, end - at);
}

} // namespace

class TestMapSchedules : public QObject {
  Q_OBJECT
private slots:
  void unrollsASmallMap() {
    auto m = loadModel(onnxCase("test_softmax_axis_1"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "init_max_map"); // 3 x 1 x 5 = 15 iterations
    QVERIFY(me);
    const std::string before = mapCode(*m, *me);
    // So small a map runs on the calling thread already (CpuGenerator::tooSmallForThreads); unrolled
    // it gets the compiler's unroll pragmas.
    QVERIFY(before.find("#pragma omp parallel for") == std::string::npos);
    QVERIFY(before.find("#pragma GCC unroll") == std::string::npos);
    transforms::MapUnroll t;
    QVERIFY(checkTransformation(*m, t, {"MapUnroll", {{"entry", pathOf(*me)}}, {}}));
    QCOMPARE(me->schedule, Schedule::Unrolled);
    const std::string after = mapCode(*m, *me);
    QVERIFY2(after.find("#pragma omp") == std::string::npos, after.c_str());
    QVERIFY2(after.find("#pragma GCC unroll 3\n") != std::string::npos, after.c_str());
    QVERIFY2(after.find("#pragma GCC unroll 5\n") != std::string::npos, after.c_str());
    QVERIFY2(after.find("#pragma GCC unroll 1\n") == std::string::npos, after.c_str()); // nothing to unroll
  }

  void unrollsAReductionWithALargerBound() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map"); // 3 x 3 x 4 = 36 iterations, WCR sums
    QVERIFY(me);
    transforms::MapUnroll t;
    transforms::Match small{"MapUnroll", {{"entry", pathOf(*me)}}, {}};
    QVERIFY(whyNot(t, small, *m).contains("more than max_trip = 16"));
    QVERIFY(checkTransformation(*m, t, {"MapUnroll", {{"entry", pathOf(*me)}}, {{"max_trip", "36"}}}));
    QCOMPARE(me->schedule, Schedule::Unrolled);
    QVERIFY(whyNot(t, small, *m).contains("already unrolled"));
  }

  void unrollRefusesGpuMaps() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    MapEntry* me = allNodes<MapEntry>(*m)[0];
    {
      edit::Editor ed(*m);
      ed.set(*me, &MapEntry::schedule, Schedule::GpuDevice);
    }
    transforms::MapUnroll t;
    QVERIFY(whyNot(t, {"MapUnroll", {{"entry", pathOf(*me)}}, {{"max_trip", "100"}}}, *m).contains("scheduled as gpu_device"));
  }

  void vectorizesTheInnermostDimension() {
    auto m = loadModel(mapsDataPath("add_bcast_4x32.onnx"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    QVERIFY(me);
    const auto params = me->params; // i0 (0:4), i1 (0:32)
    QCOMPARE(params.size(), size_t(2));
    const Schedule schedule = me->schedule;
    transforms::Vectorization t;
    QVERIFY(checkTransformation(*m, t, {"Vectorization", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* outer = mapNamed(*m, "add_map_vec");
    QVERIFY(outer);
    QCOMPARE(outer->params, (std::vector<std::string>{params[0], params[1] + "_vec"}));
    QCOMPARE(outer->range[1], (Range{0, 32, 8}));
    QCOMPARE(outer->schedule, schedule);
    QCOMPARE(me->params, std::vector<std::string>{params[1]});
    sym::Expr v = sym::Expr::symbol(params[1] + "_vec");
    QCOMPARE(me->range[0], (Range{v, v + 8, 1}));
    QCOMPARE(me->schedule, Schedule::Vectorized);
    const std::string code = mapCode(*m, *me);
    QVERIFY2(code.find("#pragma omp simd\n") != std::string::npos, code.c_str());
    QVERIFY2(code.find("parallel") == std::string::npos, code.c_str());
    // The schedule round-trips through the JSON format by name.
    const std::string json = serialize::toJson(*m);
    QVERIFY(json.find("\"vectorized\"") != std::string::npos);
    auto back = serialize::fromJson(json);
    QVERIFY(back);
    QCOMPARE(mapNamed(**back, "add_map")->schedule, Schedule::Vectorized);
  }

  void vectorizesWithAnotherWidth() {
    auto m = loadModel(onnxCase("test_add_bcast")); // 3 x 4 x 5
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    transforms::Vectorization t;
    QVERIFY(checkTransformation(*m, t, {"Vectorization", {{"entry", pathOf(*me)}}, {{"vector_width", "5"}}}));
    QCOMPARE(me->schedule, Schedule::Vectorized);
    QCOMPARE(mapNamed(*m, "add_map_vec")->params.size(), size_t(3));
  }

  void vectorizationRefusals() {
    transforms::Vectorization t;
    {
      auto m = loadModel(onnxCase("test_add_bcast")); // innermost trip count 5
      QVERIFY(m);
      transforms::Match x{"Vectorization", {{"entry", pathOf(*mapNamed(*m, "add_map"))}}, {}};
      QVERIFY(whyNot(t, x, *m).contains("is not a multiple of the vector width 8"));
    }
    {
      auto m = loadModel(onnxCase("test_matmul_2d")); // k is a WCR reduction
      QVERIFY(m);
      MapEntry* me = mapNamed(*m, "matmul_map");
      QVERIFY(whyNot(t, {"Vectorization", {{"entry", pathOf(*me)}}, {{"vector_width", "2"}}}, *m).contains("write-conflict resolution"));
    }
    {
      auto m = loadModel(onnxCase("test_transpose_default")); // 2 x 3 x 4 -> reads with stride
      QVERIFY(m);
      MapEntry* me = allNodes<MapEntry>(*m)[0];
      QString why = whyNot(t, {"Vectorization", {{"entry", pathOf(*me)}}, {{"vector_width", "2"}}}, *m);
      QVERIFY2(why.contains("outside its last dimension") || why.contains("not a multiple"), qPrintable(why));
    }
    {
      auto m = loadModel(mapsDataPath("add_bcast_4x32.onnx"));
      QVERIFY(m);
      MapEntry* me = mapNamed(*m, "add_map");
      QVERIFY(whyNot(t, {"Vectorization", {{"entry", pathOf(*me)}}, {{"vector_width", "1"}}}, *m).contains("at least 2"));
    }
  }
};

QTEST_APPLESS_MAIN(TestMapSchedules)
#include "tst_MapSchedules.moc"
