// DynamicExtent: ops whose output size is a count of the values (tests/data/datadependent, written by
// tests/models/data_dependent_models.py) import with the count as a dynamic extent — the op ends its
// state, the edge after it assigns the count's symbol, the root records its bound — and run: outputs
// come back at the actual count, from the .onnx, from the saved .dcw.json, and at other input sizes
// from the same program; one in an If branch is refused naming it. compare_datadependent_* checks the
// numbers against ONNX Runtime.
#include "support/TestPaths.h"
#include "core/io/ModelFile.h"
#include "core/serialize/JsonFormat.h"
#include "core/ir/DynamicExtent.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/ir/Validate.h"
#include "pipeline/Pipeline.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return testpaths::source("/tests/data/datadependent/") + name + ".onnx"; }

ir::Tensor floats(std::vector<int64_t> dims, const std::vector<float>& v) {
  ir::Tensor t;
  t.dtype = ir::DType::Float32;
  t.dims = std::move(dims);
  t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(v.data()), v.size() * 4);
  return t;
}

template <class T> std::vector<T> values(const ir::Tensor& t) {
  std::vector<T> v(size_t(t.elementCount()));
  if (!v.empty()) std::memcpy(v.data(), t.bytes->data(), v.size() * sizeof(T));
  return v;
}

} // namespace

class TestDynamicExtent : public QObject {
  Q_OBJECT

private slots:
  void theCountIsAnExtentAssignedAfterItsOp() {
    auto m = io::loadModel(fixture("nonzero_chain"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    const ir::Sdfg& s = *m->sdfg;
    auto extents = ir::dynamicExtents(s);
    QCOMPARE(extents.size(), size_t(1));
    const ir::DynamicExtent& e = extents[0];
    QCOMPARE(e.node, std::string("NonZero_1"));
    QCOMPARE(e.bound.str(), std::string("5*batch"));
    QVERIFY(s.symbols().count(e.symbol));
    // NonZero and what it reads in state0; everything after it in state1, shaped by the count.
    QCOMPARE(s.allStates().size(), size_t(2));
    auto edges = s.outEdges(s.allStates()[0]->id());
    QCOMPARE(edges.size(), size_t(1));
    QCOMPARE(edges[0]->assignments.size(), size_t(1));
    QCOMPARE(edges[0]->assignments[0].first, e.symbol);
    QCOMPARE(edges[0]->assignments[0].second.str(), std::string("NonZero_1_extent"));
    QCOMPARE(s.findData("positions")->typeString(), "int64[" + e.symbol + ", 2]");
    QVERIFY(s.allStates()[0]->nodeByLabel("NonZero_1") && s.allStates()[1]->nodeByLabel("Transpose_2"));
    auto diags = ir::validate(s);
    QVERIFY2(!diags.hasErrors(), diags.firstError() ? diags.firstError()->str().c_str() : "");
  }

  void outputsComeBackAtTheCount() {
    QTemporaryDir tmp;
    const std::string json = tmp.filePath("nonzero_chain.dcw.json").toStdString();
    {
      auto m = io::loadModel(fixture("nonzero_chain"));
      QVERIFY(m);
      auto saved = serialize::saveFile(*m->sdfg, json);
      QVERIFY2(saved, saved ? "" : saved.error().str().c_str());
    }
    for (const std::string& path : {fixture("nonzero_chain"), json}) {
      auto p = pipeline::build(path);
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      // One program, two sizes and counts: 3 of 10, then 0 of 5.
      auto r = p->executor->run({floats({2, 5}, {1, -1, 2, 0, -3, 0, 0, 0, 4, -1})});
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      QCOMPARE((*r)[0].dims, (std::vector<int64_t>{3, 2}));
      QCOMPARE(values<int64_t>((*r)[0]), (std::vector<int64_t>{0, 0, 0, 2, 1, 3}));
      QCOMPARE(values<float>((*r)[1]), (std::vector<float>{1, 2, 4}));
      QCOMPARE(values<float>((*r)[2]), (std::vector<float>{7}));
      QCOMPARE(values<int64_t>((*r)[3]), (std::vector<int64_t>{3}));
      auto none = p->executor->run({floats({1, 5}, {-1, -2, 0, -3, -4})});
      QVERIFY2(none, none ? "" : none.error().str().c_str());
      QCOMPARE((*none)[0].dims, (std::vector<int64_t>{0, 2}));
      QCOMPARE(values<float>((*none)[2]), (std::vector<float>{0}));
      QCOMPARE(values<int64_t>((*none)[3]), (std::vector<int64_t>{0}));
    }
  }

  void theProgramReturnsItsExtents() {
    auto p = pipeline::build(fixture("detections"));
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    const auto& sig = p->executor->code().signature;
    QCOMPARE(sig.extents.size(), size_t(1));
    QCOMPARE(sig.extents[0].bound.str(), std::string("2*min(n, 3)"));
    for (auto& s : sig.symbols) QVERIFY(s != sig.extents[0].symbol);
    QVERIFY(p->executor->code().source.find("its count is outside") != std::string::npos);
  }

  void aCountInASubgraphIsRefusedNamingTheOp() {
    auto p = pipeline::build(fixture("in_subgraph"));
    QVERIFY(!p);
    const std::string e = p.error().str();
    QVERIFY2(e.find("then_branch") != std::string::npos && e.find("NonZero_0 (NonZero)") != std::string::npos &&
                 e.find("main graph only") != std::string::npos,
             e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestDynamicExtent)
#include "tst_DynamicExtent.moc"
