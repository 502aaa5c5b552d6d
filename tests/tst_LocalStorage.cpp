// InLocalStorage and OutLocalStorage on real ONNX models (MatMul, Relu) whose maps were tiled first
// (MapTiling): the local buffer's shape and storage, the re-targeted inner memlets, the same outputs
// (partial last tiles included), exact undo/redo, and the refusals.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/InLocalStorage.h"
#include "transforms/catalogue/MapTiling.h"
#include "transforms/catalogue/OutLocalStorage.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

std::vector<std::string> memletsFrom(const Node& n) {
  std::vector<std::string> v;
  for (auto* e : n.parent()->outEdges(n.id())) v.push_back(e->memlet.str());
  return v;
}

} // namespace

class TestLocalStorage : public QObject {
  Q_OBJECT
  transforms::InLocalStorage in;
  transforms::OutLocalStorage out;

  transforms::Match inAt(const MapEntry& outer, const MapEntry& inner, const std::string& array) {
    return {"InLocalStorage", {{"outer", pathOf(outer)}, {"inner", pathOf(inner)}}, {{"array", array}}};
  }
  transforms::Match outAt(const MapExit& inner, const MapExit& outer, const std::string& array) {
    return {"OutLocalStorage", {{"inner", pathOf(inner)}, {"outer", pathOf(outer)}}, {{"array", array}}};
  }

private slots:
  void buffersMatMulOperands() {
    auto m = loadModel(onnxCase("test_matmul_2d")); // a[3,4] x b[4,3], tiles of 2: partial last tiles
    QVERIFY(m);
    QVERIFY(tile(*m, "matmul_map", "2"));
    MapEntry* outer = mapNamed(*m, "matmul_map_tiles");
    MapEntry* inner = mapNamed(*m, "matmul_map");
    QVERIFY(outer && inner);
    QVERIFY(checkTransformation(*m, in, inAt(*outer, *inner, "A")));
    const DataDescriptor* local = dataIn(*m, "A_local");
    QVERIFY(local && local->transient);
    QCOMPARE(local->shape, (std::vector<sym::Expr>{2, 2}));
    QCOMPARE(local->storage, StorageType::CpuStack);
    inner = mapNamed(*m, "matmul_map");
    auto reads = memletsFrom(*inner);
    QVERIFY2(std::count(reads.begin(), reads.end(), "A_local[i0 - i0_tile, k - k_tile]") == 1, reads[0].c_str());
    // And B too, on the result.
    outer = mapNamed(*m, "matmul_map_tiles");
    QVERIFY(checkTransformation(*m, in, inAt(*outer, *inner, "B")));
    QVERIFY(dataIn(*m, "B_local"));
  }

  void buffersReluInputAndOutput() {
    auto m = loadModel(onnxCase("test_relu")); // x[3,4,5]
    QVERIFY(m);
    QVERIFY(tile(*m, allNodes<MapEntry>(*m)[0]->label(), "2,3,4"));
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(2));
    MapEntry* outer = maps[0]->label().find("_tiles") != std::string::npos ? maps[0] : maps[1];
    MapEntry* inner = outer == maps[0] ? maps[1] : maps[0];
    QVERIFY(checkTransformation(*m, in, inAt(*outer, *inner, "")));
    const DataDescriptor* x = dataIn(*m, "X_local");
    QVERIFY(x);
    QCOMPARE(x->shape, (std::vector<sym::Expr>{2, 3, 4}));

    const State* st = inner->parent();
    MapExit* ix = transforms::scope::exitOf(*st, *inner);
    MapExit* ox = transforms::scope::exitOf(*st, *outer);
    QVERIFY(checkTransformation(*m, out, outAt(*ix, *ox, "")));
    const DataDescriptor* y = dataIn(*m, "Y_local");
    QVERIFY(y && y->transient);
    QCOMPARE(y->shape, (std::vector<sym::Expr>{2, 3, 4}));
    // The inner map writes the buffer; a copy carries the box to Y inside the outer map.
    auto writes = st->inEdges(ix->id());
    QCOMPARE(writes.size(), size_t(1));
    QCOMPARE(writes[0]->memlet.data, std::string("Y_local"));
    int copies = 0;
    for (auto& e : st->edges()) {
      auto* s = dynamic_cast<AccessNode*>(st->node(e->src));
      auto* d = dynamic_cast<AccessNode*>(st->node(e->dst));
      if (s && d && s->data() == "Y_local" && d->data() == "Y") ++copies;
    }
    QCOMPARE(copies, 1);
  }

  void refusals() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    QVERIFY(tile(*m, "matmul_map", "2"));
    MapEntry* outer = mapNamed(*m, "matmul_map_tiles");
    MapEntry* inner = mapNamed(*m, "matmul_map");
    Diagnostics why;
    QVERIFY(!in.canApply(inAt(*outer, *inner, "Y"), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("reads no 'Y'"));
    // MatMul accumulates into Y: no local output buffer without AccumulateTransient.
    const State* st = inner->parent();
    Diagnostics why2;
    QVERIFY(!out.canApply(outAt(*transforms::scope::exitOf(*st, *inner), *transforms::scope::exitOf(*st, *outer), ""), *m, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("write-conflict resolution"));
  }
};

QTEST_APPLESS_MAIN(TestLocalStorage)
#include "tst_LocalStorage.moc"
