// ConstantFolding: the shape arithmetic of a generated ONNX model (Shape → Gather → Concat → Reshape)
// folds node by node through the editor — structure after each step, exact undo/redo, and the same
// outputs as the unfolded model once both are expanded and run; refusals name the operand.
#include "support/TestPaths.h"
#include "support/TransformTestSupport.h"
#include "transforms/FoldConstants.h"
#include "transforms/catalogue/ConstantFolding.h"

#include <cstring>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

std::string dataModel(const char* name) { return testpaths::source("/tests/data/transforms/data/") + name + ".onnx"; }

LibraryNode* lib(const Sdfg& s, const std::string& label) {
  for (auto* l : allNodes<LibraryNode>(s))
    if (l->label() == label) return l;
  return nullptr;
}

std::vector<int64_t> values(const DataDescriptor& d) {
  std::vector<int64_t> v(d.constant->elementCount());
  std::memcpy(v.data(), d.constant->bytes->data(), v.size() * sizeof(int64_t));
  return v;
}

} // namespace

class TestConstantFolding : public QObject {
  Q_OBJECT
  transforms::ConstantFolding t;
  transforms::Match at(const Node& n) { return {"ConstantFolding", {{"node", pathOf(n)}}, {}}; }

private slots:
  void foldsShapeChainStepByStep() {
    auto m = loadModel(dataModel("shape_chain"), false);
    QVERIFY(m);
    QCOMPARE(allNodes<LibraryNode>(*m).size(), size_t(5));
    // Only Shape folds at first: Gather and Concat wait for their operands.
    auto first = applicableMatches(*m, t);
    QCOMPARE(first.size(), size_t(1));
    QVERIFY(first[0].elements.at("node").find("Shape_x") != std::string::npos);

    QVERIFY(checkTransformation(*m, t, at(*lib(*m, "Shape_x")), 0, false));
    QVERIFY(!lib(*m, "Shape_x"));
    DataDescriptor* s = m->findData("s");
    QVERIFY(s && s->constant && !s->transient);
    QCOMPARE(values(*s), (std::vector<int64_t>{2, 3, 4}));

    QVERIFY(checkTransformation(*m, t, at(*lib(*m, "Gather_0")), 0, false));
    QVERIFY(!m->findData("s"));   // only Gather read it
    QVERIFY(!m->findData("idx")); // Gather's index constant is unused now
    QCOMPARE(values(*m->findData("g")), (std::vector<int64_t>{2}));

    QVERIFY(checkTransformation(*m, t, at(*lib(*m, "Concat_t")), 0, false));
    QCOMPARE(values(*m->findData("target")), (std::vector<int64_t>{2, -1}));
    std::vector<std::string> left;
    for (auto* l : allNodes<LibraryNode>(*m)) left.push_back(l->opType);
    QCOMPARE(left, (std::vector<std::string>{"Relu", "Reshape"}));
    QVERIFY(applicableMatches(*m, t).empty());

    // Same outputs as the unfolded model, both expanded to pure maps.
    auto ref = loadModel(dataModel("shape_chain"));
    QVERIFY(ref);
    QVERIFY(expansions::expandAll(*m));
    auto inputs = randomInputsFor(*ref);
    auto a = runModel(*ref, inputs), b = runModel(*m, inputs);
    QVERIFY(!a.empty() && !b.empty());
    auto d = codegen::compareOutputs(a, b);
    QVERIFY(d.mismatch.empty());
    QCOMPARE(d.maxAbs, 0.0);
  }

  void agreesWithThePass() {
    auto byHand = loadModel(dataModel("shape_chain"), false);
    auto byPass = loadModel(dataModel("shape_chain"), false);
    QVERIFY(byHand && byPass);
    for (const char* label : {"Shape_x", "Gather_0", "Concat_t"}) QVERIFY(checkTransformation(*byHand, t, at(*lib(*byHand, label)), 0, false));
    QCOMPARE(transforms::foldConstants(*byPass).folded, 3);
    QVERIFY(byPass->findData("target")->constant);
    QCOMPARE(values(*byHand->findData("target")), values(*byPass->findData("target")));
    std::vector<std::string> a, b;
    for (auto& d : byHand->data()) a.push_back(d->name());
    for (auto& d : byPass->data()) b.push_back(d->name());
    QCOMPARE(a, b);
  }

  void refusesNonConstantOperands() {
    auto m = loadModel(dataModel("shape_chain"), false);
    QVERIFY(m);
    Diagnostics why;
    QVERIFY(!t.canApply(at(*lib(*m, "Gather_0")), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("operand 's' is not constant"));
    Diagnostics why2;
    QVERIFY(!t.canApply(at(*lib(*m, "Relu_x")), *m, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("operand 'X' is not constant"));
    Diagnostics why3; // Reshape writes the model's output
    QVERIFY(!t.canApply(at(*lib(*m, "Reshape_y")), *m, &why3));
    QVERIFY(QString::fromStdString(why3.firstError()->message).contains("is not a transient container"));
  }
};

QTEST_APPLESS_MAIN(TestConstantFolding)
#include "tst_ConstantFolding.moc"
