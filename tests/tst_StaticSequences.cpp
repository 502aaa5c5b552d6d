// StaticSequences: ONNX sequences that the graph fixes (tests/data/sequences, written by
// tests/models/sequence_models.py) import as the tensor ops they amount to — no sequence op is left in
// the IR — and one the graph does not fix (a SequenceAt at a run-time position) is refused naming that
// node and why. compare_sequences_*_with_onnxruntime checks the numbers against ONNX Runtime.
// Sequences and optionals at the interface (sequence_interface, optional_interface): the program is
// built for a run's values, its layout recorded, and the values pass through it (pipeline/ModelValues.h).
#include "support/TestPaths.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "pipeline/ModelValues.h"
#include "pipeline/Pipeline.h"

#include <cstring>
#include <filesystem>

#include <QtTest>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return testpaths::source("/tests/data/sequences/") + name + ".onnx"; }

QStringList opsOf(const ir::Sdfg& s) {
  QStringList ops;
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<ir::LibraryNode*>(n.get())) ops << QString::fromStdString(l->opType);
  ops.sort();
  return ops;
}

onnx::InterfaceValue floats(std::vector<float> v) {
  ir::Tensor t;
  t.dtype = ir::DType::Float32;
  t.dims = {int64_t(v.size())};
  t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  return onnx::InterfaceValue::ofTensor(std::move(t));
}
onnx::InterfaceValue int64Scalar(int64_t v) {
  ir::Tensor t;
  t.dtype = ir::DType::Int64;
  t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&v), sizeof v);
  return onnx::InterfaceValue::ofTensor(std::move(t));
}
onnx::InterfaceValue sequence(std::vector<onnx::InterfaceValue> elements) {
  onnx::InterfaceValue v;
  v.kind = onnx::InterfaceValue::Kind::Sequence;
  v.elements = std::move(elements);
  return v;
}
onnx::InterfaceValue optional(std::vector<onnx::InterfaceValue> elements) {
  onnx::InterfaceValue v;
  v.kind = onnx::InterfaceValue::Kind::Optional;
  v.elements = std::move(elements);
  return v;
}
std::vector<float> floatsOf(const onnx::InterfaceValue& v) {
  std::vector<float> out(size_t(v.tensor.elementCount()));
  std::memcpy(out.data(), v.tensor.bytes->data(), out.size() * sizeof(float));
  return out;
}

// The model built for `inputs` (as `dcw run` and `dcw test-onnx` do), or the failure.
pipeline::Result<pipeline::Program> buildFor(const std::string& model, const std::vector<onnx::InterfaceValue>& inputs) {
  auto declared = pipeline::declaredValues(model);
  if (!declared) return pipeline::Failure{pipeline::Stage::Load, declared.error(), ""};
  pipeline::Options o;
  pipeline::bindInterface(o, *declared, inputs);
  return pipeline::build(model, {}, o);
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
    // The node at fault and why, not the first sequence op of the graph.
    QVERIFY2(e.find("runtime_position.onnx: node 'pick_at_runtime' (SequenceAt)") != std::string::npos &&
                 e.find("position is known only at run time") != std::string::npos && e.find("--inputs") != std::string::npos,
             e.c_str());
  }

  // seq (3 tensors) → SequenceMap(Relu(e) * x) → x inserted at `pos` → out (4 tensors), length 4.
  void aSequenceInterfaceIsBuiltForItsValues() {
    const std::string model = fixture("sequence_interface");
    std::vector<onnx::InterfaceValue> in{sequence({floats({1, -2}), floats({-3, 4}), floats({5, 6})}), floats({2, 10}), int64Scalar(1)};
    auto p = buildFor(model, in);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    const ir::Sdfg& s = *p->prepared.model.sdfg;
    // The structure is gone from the program: 3 + 1 tensors in (pos folded), 4 + 1 out.
    QCOMPARE(QString::fromStdString(s.metadata.at(onnx::kInterfaceMetadata)),
             QString("in seq s(t,t,t)\nin x t\nin pos f\nout out s(t,t,t,t)\nout length t\n"));
    QCOMPARE(s.inputs.size(), size_t(4));
    QCOMPARE(s.outputs.size(), size_t(5));
    std::vector<std::string> names;
    auto out = pipeline::runValues(*p, in, &names);
    QVERIFY2(out, out ? "" : out.error().str().c_str());
    QCOMPARE(names, (std::vector<std::string>{"out", "length"}));
    QCOMPARE(out->size(), size_t(2));
    const auto& seq = (*out)[0];
    QCOMPARE(int(seq.kind), int(onnx::InterfaceValue::Kind::Sequence));
    QCOMPARE(seq.elements.size(), size_t(4));
    QCOMPARE(floatsOf(seq.elements[0]), (std::vector<float>{2, 0}));
    QCOMPARE(floatsOf(seq.elements[1]), (std::vector<float>{2, 10})); // x, inserted at 1
    QCOMPARE(floatsOf(seq.elements[2]), (std::vector<float>{0, 40}));
    QCOMPARE(floatsOf(seq.elements[3]), (std::vector<float>{10, 60}));
    int64_t length = 0;
    std::memcpy(&length, (*out)[1].tensor.bytes->data(), sizeof length);
    QCOMPARE(length, int64_t(4));

    // Values of another structure do not fit this program: the error names the input.
    std::vector<onnx::InterfaceValue> two{sequence({floats({1, 2}), floats({3, 4})}), floats({1, 1}), int64Scalar(0)};
    auto wrong = pipeline::runValues(*p, two, nullptr);
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().str().find("input 'seq'") != std::string::npos, wrong.error().str().c_str());
    // ... and a program built for them serves them: 2 elements, x at the front.
    auto p2 = buildFor(model, two);
    QVERIFY2(p2, p2 ? "" : p2.error().str().c_str());
    auto out2 = pipeline::runValues(*p2, two, nullptr);
    QVERIFY2(out2, out2 ? "" : out2.error().str().c_str());
    QCOMPARE((*out2)[0].elements.size(), size_t(3));
    QCOMPARE(floatsOf((*out2)[0].elements[0]), (std::vector<float>{1, 1}));
    QCOMPARE(floatsOf((*out2)[0].elements[2]), (std::vector<float>{3, 4}));

    // Unbound (no values to specialize to), the sequence input is refused naming a sequence op.
    auto unbound = pipeline::build(model, {}, {});
    QVERIFY(!unbound);
    QVERIFY2(unbound.error().str().find("sequence_interface.onnx: input 'seq': is a sequence") != std::string::npos &&
                 unbound.error().str().find("known only from a run's values") != std::string::npos,
             unbound.error().str().c_str());
  }

  // optional in: present → y = maybe + x, has = true; empty → y = x, has = false.
  void anOptionalInterfaceIsBuiltForItsValues() {
    const std::string model = fixture("optional_interface");
    for (bool present : {true, false}) {
      std::vector<onnx::InterfaceValue> in{present ? optional({floats({1, 2, 3})}) : optional({}), floats({10, 20, 30})};
      auto p = buildFor(model, in);
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      QCOMPARE(QString::fromStdString(p->prepared.model.sdfg->metadata.at(onnx::kInterfaceMetadata)),
               QString(present ? "in maybe o(t)\nin x t\nout y t\nout has t\n" : "in maybe o()\nin x t\nout y t\nout has t\n"));
      auto out = pipeline::runValues(*p, in, nullptr);
      QVERIFY2(out, out ? "" : out.error().str().c_str());
      QCOMPARE(floatsOf((*out)[0]), present ? (std::vector<float>{11, 22, 33}) : (std::vector<float>{10, 20, 30}));
      QCOMPARE(int((*out)[1].tensor.bytes->at(0)), int(present));
    }
  }

  // Sequence and optional values survive their files (ONNX's SequenceProto / OptionalProto).
  void valuesRoundTripThroughTheirFiles() {
    QTemporaryDir dir;
    const std::string folder = dir.path().toStdString();
    auto seq = sequence({floats({1, 2}), floats({3})});
    auto opt = optional({floats({4})});
    QVERIFY(onnx::writeInterfaceValue(folder + "/output_0.pb", seq, "s"));
    QVERIFY(onnx::writeInterfaceValue(folder + "/output_1.pb", opt, "o"));
    QVERIFY(onnx::writeInterfaceValue(folder + "/output_2.pb", optional({}), "e"));
    auto back = pipeline::readValues(folder, "output",
                                     {{"s", onnx::InterfaceValue::Kind::Sequence},
                                      {"o", onnx::InterfaceValue::Kind::Optional},
                                      {"e", onnx::InterfaceValue::Kind::Optional}});
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(back->size(), size_t(3));
    QCOMPARE((*back)[0].elements.size(), size_t(2));
    QCOMPARE(floatsOf((*back)[0].elements[1]), (std::vector<float>{3}));
    QCOMPARE(floatsOf((*back)[1].elements[0]), (std::vector<float>{4}));
    QVERIFY((*back)[2].elements.empty());
  }
};

QTEST_GUILESS_MAIN(TestStaticSequences)
#include "tst_StaticSequences.moc"
