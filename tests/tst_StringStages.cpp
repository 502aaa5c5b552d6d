// StringStages: the string ops at a model's edges run on the host around the compiled program
// (tests/data/strings, written by tests/models/string_models.py): words normalized, numbers read from
// text, computed by the program and written back as text, from the .onnx and from the saved .dcw.json,
// at two input sizes; TfIdfVectorizer over string tokens; the peeled model keeps the model's interface
// first; a string op between computed values is refused naming it.
#include "support/TestPaths.h"
#include "codegen/run/StringStages.h"
#include "core/io/ModelFile.h"
#include "core/ir/Sdfg.h"
#include "core/serialize/JsonFormat.h"
#include "pipeline/Pipeline.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return testpaths::source("/tests/data/strings/") + name + ".onnx"; }

ir::Tensor strings(const std::vector<std::string>& v) {
  ir::Tensor t;
  t.dtype = ir::DType::String;
  t.dims = {int64_t(v.size())};
  t.strings = std::make_shared<const std::vector<std::string>>(v);
  return t;
}

float scalar(const ir::Tensor& t) {
  float v = 0;
  std::memcpy(&v, t.bytes->data(), 4);
  return v;
}

} // namespace

class TestStringStages : public QObject {
  Q_OBJECT

private slots:
  void peelingKeepsTheModelsInterfaceFirst() {
    auto m = io::loadModel(fixture("text_numbers"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    auto stages = codegen::peelStringOps(*m->sdfg);
    QVERIFY2(stages, stages ? "" : stages.error().str().c_str());
    QCOMPARE(stages->modelInputs, size_t(2));
    QCOMPARE(stages->modelOutputs, size_t(3));
    QCOMPARE(stages->front.size(), size_t(2)); // StringNormalizer, Cast to float
    QCOMPARE(stages->back.size(), size_t(1));  // Cast to string
    QCOMPARE(stages->back[0].opType, std::string("Cast"));
    // The model's arguments, then what crosses: Cast's output into the program, the doubled numbers out.
    QCOMPARE(m->sdfg->inputs, (std::vector<std::string>{"words", "numbers", "x"}));
    QCOMPARE(m->sdfg->outputs, (std::vector<std::string>{"clean", "doubled", "total", "x2"}));
  }

  void stringsRunAroundTheProgram() {
    QTemporaryDir tmp;
    const std::string json = tmp.filePath("text_numbers.dcw.json").toStdString();
    {
      auto m = io::loadModel(fixture("text_numbers"));
      QVERIFY(m);
      QVERIFY(serialize::saveFile(*m->sdfg, json));
    }
    for (const std::string& path : {fixture("text_numbers"), json}) {
      auto p = pipeline::build(path);
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      auto r = p->executor->run({strings({"The", "cat", "sat", "the"}), strings({"1.5", "-2", "0.25"})});
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      QCOMPARE(r->size(), size_t(3));
      QCOMPARE(*(*r)[0].strings, (std::vector<std::string>{"CAT", "SAT"}));
      QCOMPARE((*r)[1].dims, (std::vector<int64_t>{3}));
      QCOMPARE(*(*r)[1].strings, (std::vector<std::string>{"3", "-4", "0.5"}));
      QCOMPARE(scalar((*r)[2]), -0.5f);
      // Another size through the same program; text that is not a number is refused, naming the op.
      auto again = p->executor->run({strings({"dog"}), strings({"10", "1e-3"})});
      QVERIFY2(again, again ? "" : again.error().str().c_str());
      QCOMPARE(*(*again)[1].strings, (std::vector<std::string>{"20", "0.002"}));
      auto bad = p->executor->run({strings({"dog"}), strings({"ten"})});
      QVERIFY(!bad);
      QVERIFY2(bad.error().str().find("Cast") != std::string::npos && bad.error().str().find("'ten'") != std::string::npos,
               bad.error().str().c_str());
    }
  }

  // TfIdfVectorizer over string tokens runs on the host: pool a, b, c and the pairs (a b), (b c), up to
  // one token skipped inside a pair, TFIDF weights 1, 1, 1, 2, 3; the program doubles the counts.
  // Row 0 (a b c a x b): a 2, b 2, c 1, (a b) 2 (adjacent at 0, one skipped at 3), (b c) 1.
  // Row 1 (c c b a b c): a 1, b 2, c 3, (a b) 1, (b c) 1.
  void tfIdfOverStringTokens() {
    auto p = pipeline::build(fixture("text_tfidf"));
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(p->prepared.stringStages->front.size(), size_t(1));
    ir::Tensor words = strings({"a", "b", "c", "a", "x", "b", "c", "c", "b", "a", "b", "c"});
    words.dims = {2, 6};
    auto r = p->executor->run({words});
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE((*r)[0].dims, (std::vector<int64_t>{2, 5}));
    std::vector<float> y(10);
    std::memcpy(y.data(), (*r)[0].bytes->data(), 40);
    QCOMPARE(y, (std::vector<float>{4, 4, 2, 8, 6, 2, 4, 6, 4, 6}));
  }

  void aStringOpBetweenComputedValuesIsRefused() {
    auto p = pipeline::build(fixture("string_in_the_middle"));
    QVERIFY(!p);
    const std::string e = p.error().str();
    QVERIFY2(e.find("Cast_1 (Cast)") != std::string::npos && e.find("between computed values") != std::string::npos, e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestStringStages)
#include "tst_StringStages.moc"
