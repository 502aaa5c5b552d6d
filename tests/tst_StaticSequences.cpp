// StaticSequences: ONNX sequences that the graph fixes (tests/data/sequences, written by
// tests/models/sequence_models.py) import as the tensor ops they amount to — no sequence op is left in
// the IR — and one the graph does not fix (a SequenceAt at a run-time position) is refused naming a
// sequence op. compare_sequences_*_with_onnxruntime checks the numbers against ONNX Runtime.
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "pipeline/Pipeline.h"

#include <QtTest>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return std::string(DCW_SOURCE_DIR) + "/tests/data/sequences/" + name + ".onnx"; }

QStringList opsOf(const ir::Sdfg& s) {
  QStringList ops;
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<ir::LibraryNode*>(n.get())) ops << QString::fromStdString(l->opType);
  ops.sort();
  return ops;
}

} // namespace

class TestStaticSequences : public QObject {
  Q_OBJECT

private slots:
  void sequencesBecomeTensorOps_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("ops");
    // [A, B], C inserted before B, A erased, stacked on a new last axis: two Unsqueeze and a Concat;
    // the list's length is a Constant.
    QTest::newRow("list_stack") << "list_stack" << "Concat,Constant,Unsqueeze,Unsqueeze";
    // split by 4 on 10 columns and unbind(0) of a weight: two Splits, the unbound rows squeezed.
    QTest::newRow("split_pieces") << "split_pieces" << "Add,Add,Identity,Identity,Identity,ReduceSum,Relu,Split,Split,Squeeze,Squeeze,Squeeze";
  }
  void sequencesBecomeTensorOps() {
    QFETCH(QString, model);
    QFETCH(QString, ops);
    auto m = io::loadModel(fixture(model.toStdString()));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QCOMPARE(opsOf(*m->sdfg).join(","), ops);
  }

  void aSequenceTheGraphDoesNotFixIsRefused() {
    pipeline::Options o;
    auto p = pipeline::build(fixture("runtime_position"), {}, o);
    QVERIFY(!p);
    const std::string e = p.error().str();
    QVERIFY2(e.find("runtime_position.onnx") != std::string::npos && e.find("(Sequence") != std::string::npos, e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestStaticSequences)
#include "tst_StaticSequences.moc"
