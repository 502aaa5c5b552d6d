// SymbolicShapes: the dims DCW infers where ONNX's own inference gives up, on the models of
// tests/data/symbolic (tests/models/symbolic_shape_models.py): every dim an exact expression of the
// inputs' dims, no symbol other than the inputs'; a saved model (.dcw.json) keeps them and is
// specialized to given dims (ir::specializeSymbols); the program compiled from the .onnx specialized
// on import, from the .dcw.json specialized after loading and from the unspecialized .dcw.json give
// the same outputs at two sizes (ONNX Runtime checks the numbers: compare_symbolic_with_onnxruntime).
// rate_branch: an If on an input's value, specialized to the value a run gives; loop_trip_input: a
// Loop's scan output with as many rows as the trip count an input gives.
#include "support/TestPaths.h"
#include "codegen/run/RandomInputs.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/ir/Specialize.h"
#include "core/serialize/JsonFormat.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"

#include <QElapsedTimer>
#include <cmath>
#include <cstring>
#include <QTemporaryDir>
#include <QtTest>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return testpaths::source("/tests/data/symbolic/") + name + ".onnx"; }

std::string shapeOf(const ir::Sdfg& s, const std::string& data) {
  const ir::DataDescriptor* d = s.findData(data);
  if (!d) return "(no data '" + data + "')";
  if (!d->rankKnown) return "(rank unknown)";
  std::string out = "[";
  for (size_t i = 0; i < d->shape.size(); ++i) out += (i ? ", " : "") + d->shape[i].str();
  return out + "]";
}

std::vector<ir::Tensor> run(const std::string& path, const std::map<std::string, int64_t>& dims,
                            const std::vector<ir::Tensor>& inputs) {
  pipeline::Options o;
  o.fixedDims = dims;
  auto p = pipeline::build(path, {}, o);
  if (!p) {
    qWarning("%s: %s", path.c_str(), p.error().str().c_str());
    return {};
  }
  auto out = p->executor->run(inputs);
  if (!out) {
    qWarning("%s: %s", path.c_str(), out.error().str().c_str());
    return {};
  }
  return std::move(*out);
}

// The error of a run of `path` specialized to `dims` on random inputs (seed): the program must build and
// its run be refused. What went otherwise is returned instead, so that the caller's check fails showing it.
std::string runRefusal(const std::string& path, const std::map<std::string, int64_t>& dims, uint64_t seed) {
  pipeline::Options o;
  o.fixedDims = dims;
  auto p = pipeline::build(path, {}, o);
  if (!p) return "(the build failed: " + p.error().str() + ")";
  auto inputs = codegen::randomInputs(p->executor->code().signature, seed);
  if (!inputs) return "(no random inputs: " + inputs.error().str() + ")";
  auto out = p->executor->run(*inputs);
  return out ? std::string("(the run was not refused)") : out.error().str();
}

} // namespace

class TestSymbolicShapes : public QObject {
  Q_OBJECT

private slots:
  void dimsAreExpressionsOfTheInputs_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("shape");
    // Reshape targets from Shape -> Gather -> Unsqueeze -> Concat; a -1 whose factors cancel.
    QTest::newRow("split heads") << "attention_heads" << "split" << "[batch, seq, 4, 8]";
    QTest::newRow("merge heads") << "attention_heads" << "Y" << "[batch, seq, 32]";
    // Window arithmetic of Conv and MaxPool, Resize by 2, Slice to a computed extent, Add broadcasting.
    QTest::newRow("conv") << "conv_dynamic" << "c" << "[N, 8, (H + 1) // 2, (W + 1) // 2]";
    QTest::newRow("pool") << "conv_dynamic" << "p" << "[N, 8, (H + 1) // 4, (W + 1) // 4]";
    QTest::newRow("resize") << "conv_dynamic" << "u" << "[N, 8, 2*((H + 1) // 4), 2*((W + 1) // 4)]";
    QTest::newRow("slice to a computed end") << "conv_dynamic" << "rcut" << "[N, 8, (H + 1) // 2, (W + 1) // 2]";
    QTest::newRow("flatten") << "conv_dynamic" << "fl" << "[N, 8]";
    QTest::newRow("gemm") << "conv_dynamic" << "Y" << "[N, 5]";
    // paddle2onnx at opset 9: Cast to int32, Slice with attributes, Cast back.
    QTest::newRow("opset-9 slice") << "paddle_slice_opset9" << "flat" << "[p2o_DynamicDimension_0, 6]";
    QTest::newRow("declared output") << "paddle_slice_opset9" << "y" << "[p2o_DynamicDimension_0, 4]";
    // Range(0, Shape[1], 1) and Expand to the ids' shape.
    QTest::newRow("range") << "positions_range" << "pos" << "[sequence]";
    QTest::newRow("expand") << "positions_range" << "posb" << "[batch, sequence]";
    QTest::newRow("gather") << "positions_range" << "y" << "[batch, sequence, 8]";
    // An If on the input's rank: the branch taken (Relu) in its place.
    QTest::newRow("decided if") << "rank_branch" << "b" << "[batch, 4]";
  }
  void dimsAreExpressionsOfTheInputs() {
    QFETCH(QString, model);
    QFETCH(QString, value);
    QFETCH(QString, shape);
    auto m = io::loadModel(fixture(model.toStdString()));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QCOMPARE(QString::fromStdString(shapeOf(*m->sdfg, value.toStdString())), shape);
  }

  // No "unk__N" or per-value symbols: everything is bound by the inputs' dims.
  void onlyTheInputsSymbols() {
    for (const char* name : {"attention_heads", "conv_dynamic", "paddle_slice_opset9", "positions_range", "rank_branch",
                             "if_reads_outer_weight"}) {
      auto m = io::loadModel(fixture(name));
      QVERIFY(m);
      std::set<std::string> fromInputs;
      for (auto& in : m->sdfg->inputs)
        for (auto& e : m->sdfg->findData(in)->shape)
          for (auto& s : e.freeSymbols()) fromInputs.insert(s);
      for (auto& [s, type] : m->sdfg->symbols()) QVERIFY2(fromInputs.count(s), (std::string(name) + ": " + s).c_str());
    }
  }

  // The If of rank_branch is decided by the input's rank: its then_branch replaces it (the else_branch
  // squeezes a dim that is not 1 and could not even be typed).
  void anIfTheDimsDecideIsReplacedByItsBranch() {
    auto m = io::loadModel(fixture("rank_branch"));
    QVERIFY(m);
    QStringList ops;
    for (ir::State* st : m->sdfg->allStates())
      for (auto& n : st->nodes())
        if (auto* l = dynamic_cast<ir::LibraryNode*>(n.get())) ops << QString::fromStdString(l->opType);
    ops.sort();
    QCOMPARE(ops.join(","), QString("Equal,Identity,Mul,Relu,Shape,Size"));
  }

  // squaring_chain squares a shape value 40 times: the exact dim (2^40 terms) is given up once it grows
  // past a bound, so the import is immediate and the run is refused naming the Reshape, not hung.
  void anExpressionThatExplodesIsLeftUnknown() {
    QElapsedTimer t;
    t.start();
    auto m = io::loadModel(fixture("squaring_chain"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QVERIFY2(t.elapsed() < 20000, qPrintable(QString("import took %1 ms").arg(t.elapsed())));
    const ir::DataDescriptor* y = m->sdfg->findData("Y");
    QVERIFY(y && y->rankKnown && y->shape.size() == 1);
    QVERIFY(y->shape[0].treeSize(256) <= 256);
    const std::string e = runRefusal(fixture("squaring_chain"), {{"N", 2}, {"M", 3}}, 1);
    QVERIFY2(e.find("reshape_chain") != std::string::npos && e.find("data-dependent") != std::string::npos, e.c_str());
  }

  // value_length: the length is the value of the scalar input N (Range over float(N), an Expand to
  // [N, 4]): one program, whose outputs have N's value as their dim, from the .onnx and the .dcw.json;
  // a negative N is refused naming the input.
  void dimsFromAnInputsValue() {
    auto m = io::loadModel(fixture("value_length"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QCOMPARE(QString::fromStdString(shapeOf(*m->sdfg, "Y")), QString("[N_value]"));
    QCOMPARE(QString::fromStdString(shapeOf(*m->sdfg, "Z")), QString("[N_value, 4]"));
    QTemporaryDir dir;
    const std::string json = dir.filePath("v.dcw.json").toStdString();
    QVERIFY(serialize::saveFile(*m->sdfg, json));
    for (const std::string& path : {fixture("value_length"), json}) {
      pipeline::Options o;
      auto p = pipeline::build(path, {}, o);
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      for (int64_t n : {3, 6, 0}) {
        ir::Tensor t;
        t.dtype = ir::DType::Int64;
        t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&n), 8);
        auto out = p->executor->run({t});
        QVERIFY2(out, out ? "" : out.error().str().c_str());
        QCOMPARE((*out)[0].dims, std::vector<int64_t>({n}));
        QCOMPARE((*out)[1].dims, std::vector<int64_t>({n, 4}));
        if (n > 1) {
          float y1;
          std::memcpy(&y1, (*out)[0].bytes->data() + 4, 4);
          QVERIFY(std::fabs(y1 - std::cos(0.785f)) < 1e-6);
        }
      }
      int64_t negative = -2;
      ir::Tensor t;
      t.dtype = ir::DType::Int64;
      t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&negative), 8);
      auto out = p->executor->run({t});
      QVERIFY(!out);
      QVERIFY2(out.error().str().find("input 'N'") != std::string::npos && out.error().str().find("-2") != std::string::npos,
               out.error().str().c_str());
    }
  }

  void savedModelIsSpecializedToGivenDims() {
    QTemporaryDir dir;
    const std::string json = dir.filePath("conv.dcw.json").toStdString();
    auto m = io::loadModel(fixture("conv_dynamic"));
    QVERIFY(m);
    QVERIFY(serialize::saveFile(*m->sdfg, json));
    io::LoadOptions o;
    o.fixedDims = {{"N", 2}, {"H", 16}, {"W", 24}};
    auto s = io::loadModel(json, o);
    QVERIFY2(s, s ? "" : s.error().str().c_str());
    QCOMPARE(QString::fromStdString(shapeOf(*s->sdfg, "X")), QString("[2, 3, 16, 24]"));
    QCOMPARE(QString::fromStdString(shapeOf(*s->sdfg, "p")), QString("[2, 8, 4, 6]"));
    QCOMPARE(QString::fromStdString(shapeOf(*s->sdfg, "u")), QString("[2, 8, 8, 12]"));
    QCOMPARE(ir::specializedValue(*s->sdfg, "H"), std::optional<int64_t>(16));
    QCOMPARE(ir::specializedValue(*s->sdfg, "batch"), std::optional<int64_t>());
    // Unspecialized, the saved model keeps its expressions.
    auto plain = io::loadModel(json);
    QVERIFY(plain);
    QCOMPARE(QString::fromStdString(shapeOf(*plain->sdfg, "c")), QString("[N, 8, (H + 1) // 2, (W + 1) // 2]"));
  }

  // conv_dynamic adds a slice of the Conv output to a slice of its pooled and upsampled copy: the two
  // agree only where the Conv output's height is even. Other dims are refused, naming the node.
  void refusesDimsThatBreakABroadcast() {
    QTemporaryDir dir;
    const std::string json = dir.filePath("conv.dcw.json").toStdString();
    auto m = io::loadModel(fixture("conv_dynamic"));
    QVERIFY(m);
    QVERIFY(serialize::saveFile(*m->sdfg, json));
    for (const std::string& path : {fixture("conv_dynamic"), json}) {
      const std::string e = runRefusal(path, {{"N", 1}, {"H", 18}, {"W", 16}}, 3);
      QVERIFY2(e.find("node 'Add'") != std::string::npos && e.find("broadcasts dims 9") != std::string::npos &&
                   e.find("must be equal or 1") != std::string::npos,
               e.c_str());
    }
  }

  void sameOutputsFromOnnxAndSavedModelAtTwoSizes_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("dimsA");
    QTest::addColumn<QString>("dimsB");
    QTest::addColumn<bool>("symbolicProgram"); // the unspecialized .dcw.json compiles too
    QTest::newRow("attention_heads") << "attention_heads" << "batch=2,seq=5" << "batch=1,seq=11" << true;
    QTest::newRow("conv_dynamic") << "conv_dynamic" << "N=1,H=16,W=24" << "N=2,H=12,W=8" << false;
    QTest::newRow("positions_range") << "positions_range" << "batch=2,sequence=7" << "batch=3,sequence=2" << true;
    // SAME pads over dynamic dims: the unspecialized program pads a copy of X by expressions of H and W.
    QTest::newRow("conv_same_dynamic") << "conv_same_dynamic" << "N=1,H=17,W=23" << "N=2,H=12,W=9" << true;
    // ceil_mode pools; H=17 makes the AveragePool's last window start in its right padding (dropped).
    QTest::newRow("pool_ceil_dynamic") << "pool_ceil_dynamic" << "N=1,H=17,W=24" << "N=2,H=12,W=9" << true;
  }
  void sameOutputsFromOnnxAndSavedModelAtTwoSizes() {
    QFETCH(QString, model);
    QFETCH(QString, dimsA);
    QFETCH(QString, dimsB);
    QFETCH(bool, symbolicProgram);
    QTemporaryDir dir;
    const std::string onnx = fixture(model.toStdString());
    const std::string json = dir.filePath("m.dcw.json").toStdString();
    auto m = io::loadModel(onnx);
    QVERIFY(m);
    QVERIFY(serialize::saveFile(*m->sdfg, json));
    pipeline::Options plainOptions;
    auto symbolic = symbolicProgram ? pipeline::build(json, {}, plainOptions) : pipeline::Result<pipeline::Program>(pipeline::Failure{});
    if (symbolicProgram) QVERIFY2(symbolic, symbolic ? "" : symbolic.error().str().c_str());
    for (const QString& text : {dimsA, dimsB}) {
      std::map<std::string, int64_t> dims;
      for (const QString& kv : text.split(',')) dims[kv.section('=', 0, 0).toStdString()] = kv.section('=', 1).toLongLong();
      pipeline::Options specialized;
      specialized.fixedDims = dims;
      auto program = pipeline::build(onnx, {}, specialized);
      QVERIFY2(program, program ? "" : program.error().str().c_str());
      auto inputs = codegen::randomInputs(program->executor->code().signature, 11);
      QVERIFY(inputs);
      auto fromOnnx = run(onnx, dims, *inputs);
      auto fromJson = run(json, dims, *inputs);
      QVERIFY(!fromOnnx.empty());
      auto d = codegen::compareOutputs(fromOnnx, fromJson);
      QVERIFY2(d.mismatch.empty() && d.maxAbs == 0, (text.toStdString() + ": " + d.mismatch).c_str());
      if (symbolicProgram) {
        auto out = symbolic->executor->run(*inputs);
        QVERIFY2(out, out ? "" : out.error().str().c_str());
        auto e = codegen::compareOutputs(fromOnnx, *out);
        QVERIFY2(e.mismatch.empty() && e.maxAbs < 1e-5, (text.toStdString() + ": " + e.mismatch).c_str());
      }
    }
  }

  // rate_branch branches on its SR input's value, and the branches' outputs differ in shape: without
  // the value the run is refused naming the If; a run's value (as `dcw run` takes it from the inputs,
  // or `--dim SR=V`) specializes the import, the If gives way to its taken branch, and the .dcw.json
  // saved so (`dcw convert --dim`) keeps it. A value of another type than declared is refused naming it.
  void anIfAnInputsValueDecidesIsSpecializedToIt() {
    const std::string model = fixture("rate_branch");
    const std::string refused = runRefusal(model, {{"batch", 2}}, 1);
    QVERIFY2(refused.find("rate_if") != std::string::npos, refused.c_str());
    std::vector<float> xs(16);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = float(i) - 5.5f;
    ir::Tensor x;
    x.dtype = ir::DType::Float32;
    x.dims = {2, 8};
    x.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(xs.data()), xs.size() * 4);
    QTemporaryDir dir;
    for (int64_t rate : {16000, 8000}) {
      ir::Tensor sr;
      sr.dtype = ir::DType::Int64;
      sr.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&rate), 8);
      auto values = pipeline::valuesFromInputs(model, {x, sr});
      QVERIFY2(values, values ? "" : values.error().str().c_str());
      QCOMPARE(values->size(), size_t(1)); // SR, not X
      pipeline::Options o;
      o.fixedValues = *values;
      auto dims = pipeline::dimsFromInputs(model, {x, sr}, o.fixedValues);
      QVERIFY2(dims, dims ? "" : dims.error().str().c_str());
      o.fixedDims = *dims;
      // The same specialization from `--dim SR=...` (pipeline::specializationFromValues), saved as a .dcw.json.
      auto fromOptions = pipeline::specializationFromValues(model, {{"SR", rate}, {"batch", 2}});
      QVERIFY2(fromOptions, fromOptions ? "" : fromOptions.error().str().c_str());
      QCOMPARE(fromOptions->values.size(), size_t(1));
      io::LoadOptions load;
      load.fixedValues = fromOptions->values;
      auto m = io::loadModel(model, load);
      QVERIFY2(m, m ? "" : m.error().str().c_str());
      const std::string json = dir.filePath(QString("rate%1.dcw.json").arg(rate)).toStdString();
      QVERIFY(serialize::saveFile(*m->sdfg, json));
      for (const std::string& path : {model, json}) {
        auto p = pipeline::build(path, {}, o);
        QVERIFY2(p, p ? "" : p.error().str().c_str());
        auto out = p->executor->run({x, sr});
        QVERIFY2(out, out ? "" : out.error().str().c_str());
        const int64_t cols = rate == 16000 ? 4 : 2;
        QCOMPARE((*out)[0].dims, (std::vector<int64_t>{2, cols}));
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            float y;
            std::memcpy(&y, (*out)[0].bytes->data() + (r * cols + c) * 4, 4);
            const float v = xs[size_t(r * 8 + c)];
            QCOMPARE(y, rate == 16000 ? std::max(v, 0.0f) : v + v);
          }
      }
    }
    // SR given as int32 where the model declares int64: refused naming the input.
    int32_t narrow = 16000;
    ir::Tensor sr32;
    sr32.dtype = ir::DType::Int32;
    sr32.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&narrow), 4);
    io::LoadOptions load;
    load.fixedValues["SR"] = sr32;
    auto wrong = io::loadModel(model, load);
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().str().find("input 'SR'") != std::string::npos && wrong.error().str().find("int64") != std::string::npos,
             wrong.error().str().c_str());
  }

  // loop_trip_input: a Loop run M times (M an input, no condition) has M rows in its scan output
  // ([M_value, 3]); one program serves every M, from the .onnx and the .dcw.json.
  void aLoopsScanHasItsTripCountsRows() {
    auto m = io::loadModel(fixture("loop_trip_input"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QCOMPARE(QString::fromStdString(shapeOf(*m->sdfg, "scans")), QString("[M_value, 3]"));
    QTemporaryDir dir;
    const std::string json = dir.filePath("loop.dcw.json").toStdString();
    QVERIFY(serialize::saveFile(*m->sdfg, json));
    std::vector<float> x{1, 2, 3}, init{0.5f, 0, -1};
    auto floats = [](const std::vector<float>& v) {
      ir::Tensor t;
      t.dtype = ir::DType::Float32;
      t.dims = {int64_t(v.size())};
      t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(v.data()), v.size() * 4);
      return t;
    };
    for (const std::string& path : {fixture("loop_trip_input"), json}) {
      auto p = pipeline::build(path, {}, {});
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      for (int64_t trips : {4, 1, 0}) {
        ir::Tensor mt;
        mt.dtype = ir::DType::Int64;
        mt.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&trips), 8);
        auto out = p->executor->run({mt, floats(x), floats(init)});
        QVERIFY2(out, out ? "" : out.error().str().c_str());
        QCOMPARE((*out)[1].dims, (std::vector<int64_t>{trips, 3}));
        for (int64_t r = 0; r < trips; ++r)
          for (int64_t c = 0; c < 3; ++c) {
            float y;
            std::memcpy(&y, (*out)[1].bytes->data() + (r * 3 + c) * 4, 4);
            QCOMPARE(y, 2 * (init[size_t(c)] + float(r + 1) * x[size_t(c)]));
          }
      }
    }
  }
};

QTEST_MAIN(TestSymbolicShapes)
#include "tst_SymbolicShapes.moc"
