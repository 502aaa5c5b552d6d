// Tests of the ONNX importer: every bad input of the foundation issue is refused with a clear,
// located message (and nothing outside the model's folder is read); good models import into the
// expected library nodes, connectors, constants, symbols and subgraphs; and every op in ONNX's
// schema registry is representable as a library node.
#include "support/TestPaths.h"
#include "core/io/ModelFile.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Path.h"
#include "core/ir/Validate.h"
#include "core/onnx/OnnxImporter.h"
#include "core/onnx/OpCatalog.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cstring>

using namespace dcw;
using namespace dcw::ir;

namespace {

std::string bad(const char* name) { return testpaths::source("/tests/data/bad/") + name; }
std::string node(const char* name) { return std::string("/usr/share/libonnx-testdata/data/node/") + name + "/model.onnx"; }

std::vector<LibraryNode*> libraryNodes(const Sdfg& s) {
  std::vector<LibraryNode*> out;
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(n.get())) out.push_back(l);
  return out;
}

} // namespace

class TestOnnxImport : public QObject {
  Q_OBJECT
private slots:
  void refusesBadInput_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << "empty.onnx" << "the file is empty";
    QTest::newRow("random bytes") << "random_bytes.onnx" << "ONNX model";
    QTest::newRow("truncated") << "truncated.onnx" << "truncated";
    QTest::newRow("text") << "text.onnx" << "this is a text file, not an ONNX model";
    QTest::newRow("missing external data") << "missing_external/model.onnx" << "external data file 'weights.bin' does not exist";
    QTest::newRow("external escape") << "external_escape/model.onnx" << "points outside the model's folder; refused";
    QTest::newRow("external absolute") << "external_abs/model.onnx" << "is an absolute path; refused";
    QTest::newRow("overflowing dims") << "overflow_dims.onnx" << "more elements than a 64-bit count can address";
    QTest::newRow("cycle") << "cycle.onnx" << "the graph has a cycle through this node";
    QTest::newRow("zero stride") << "zero_stride.onnx" << "node 'conv' (Conv): attribute strides has 0 at position 1";
    QTest::newRow("zero kernel") << "zero_kernel.onnx" << "node 'pool' (MaxPool): attribute kernel_shape has 0 at position 0";
    QTest::newRow("undefined input") << "undefined_input.onnx" << "reads tensor 'ghost', which no node, graph input or initializer defines";
    QTest::newRow("duplicate output") << "duplicate_output.onnx" << "tensor 'Y' is produced twice";
    QTest::newRow("opset too new") << "opset_too_new.onnx" << "opset 99; this build supports opsets up to 17";
    QTest::newRow("corrupted dcw.json") << "corrupted.dcw.json" << "JSON";
    QTest::newRow("missing file") << "does_not_exist.onnx" << "no such file";
  }
  void refusesBadInput() {
    QFETCH(QString, file);
    QFETCH(QString, message);
    std::string path = bad(file.toUtf8().constData());
    auto m = io::loadModel(path);
    QVERIFY2(!m, "the bad input was accepted");
    QString text = QString::fromStdString(m.error().str());
    QVERIFY2(text.startsWith(QString::fromStdString(path)), qPrintable("message does not name the file: " + text));
    QVERIFY2(text.contains(message, Qt::CaseInsensitive), qPrintable(text));
    QVERIFY2(!text.contains('\n'), "one line");
  }

  void externalDataInsideFolderLoads() {
    auto m = io::loadModel(bad("external_ok/model.onnx"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    DataDescriptor* w = nullptr;
    for (auto& d : m->sdfg->data())
      if (d->constant) w = d.get();
    QVERIFY(w);
    QCOMPARE(w->constant->dims, (std::vector<int64_t>{2, 3}));
    QCOMPARE(w->constant->byteSize(), size_t(24));
  }

  void unknownDomainIsOpaqueWithWarning() {
    auto m = io::loadModel(bad("unknown_domain.onnx"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    bool opaque = false;
    for (auto* l : libraryNodes(*m->sdfg))
      if (l->opaque) opaque = l->domain == "com.example.custom" && l->opType == "MyOp";
    QVERIFY(opaque);
    bool warned = false;
    for (auto& d : m->warnings.items()) warned = warned || QString::fromStdString(d.str()).contains("opaque");
    QVERIFY(warned);
  }

  // ONNX's own shape inference crashes on this model (Gemm-6 reads dimension 1 of a rank-0 input). It
  // runs in a child process, so the import survives, says so, and keeps the declared shapes.
  void survivesCrashInOnnxShapeInference() {
    auto m = io::loadModel(bad("gemm_rank0_b.onnx"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QString warning;
    for (auto& d : m->warnings.items())
      if (QString::fromStdString(d.str()).contains("shape inference")) warning = QString::fromStdString(d.str());
    QVERIFY2(warning.contains("ONNX's own shape inference failed on this model: it crashed: SIGSEGV"),
             qPrintable(warning));
    auto libs = libraryNodes(*m->sdfg);
    QCOMPARE(libs.size(), size_t(1));
    QCOMPARE(QString::fromStdString(libs[0]->opType), QString("Gemm"));
    // A model ONNX's inference handles still gets inferred shapes in the same process run.
    auto ok = io::loadModel(node("test_gemm_default_scalar_bias"));
    QVERIFY2(ok, ok ? "" : ok.error().str().c_str());
    for (auto& d : ok->warnings.items()) QVERIFY2(!QString::fromStdString(d.str()).contains("shape inference"), d.str().c_str());
  }

  void simpleNodeModel() {
    auto m = io::loadModel(node("test_conv_with_strides_padding"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    auto libs = libraryNodes(*m->sdfg);
    QCOMPARE(libs.size(), size_t(1));
    LibraryNode* conv = libs[0];
    QCOMPARE(QString::fromStdString(conv->opType), QString("Conv"));
    QVERIFY(conv->opsetVersion >= 1);
    QVERIFY(conv->findIn("X") && conv->findIn("W") && conv->findOut("Y"));
    QVERIFY(conv->findIn("B") && conv->findIn("B")->optional);
    auto* strides = conv->attribute("strides");
    QVERIFY(strides);
    QCOMPARE(std::get<std::vector<int64_t>>(strides->value), (std::vector<int64_t>{2, 2}));
    auto* x = m->sdfg->findData(m->sdfg->inputs[0]);
    QVERIFY(x && !x->transient && x->dtype == DType::Float32 && x->shape.size() == 4);
    // The output has a shape from the model (inferred or declared).
    auto* y = m->sdfg->findData(m->sdfg->outputs[0]);
    QVERIFY(y && y->rankKnown && y->shape.size() == 4);
    QVERIFY(!validate(*m->sdfg).hasErrors());
  }

  void controlFlowBodiesAreSubgraphs() {
    auto m = io::loadModel(node("test_if"));
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    LibraryNode* iff = nullptr;
    for (auto* l : libraryNodes(*m->sdfg))
      if (l->opType == "If") iff = l;
    QVERIFY(iff);
    QVERIFY(iff->subgraph("then_branch") && iff->subgraph("else_branch"));
    QVERIFY(std::get<GraphRef>(iff->attribute("then_branch")->value).name == "then_branch");
    // Loop bodies read outer values through outer.* connectors.
    auto l = io::loadModel(node("test_range_float_type_positive_delta_expanded"));
    QVERIFY2(l, l ? "" : l.error().str().c_str());
    LibraryNode* loop = nullptr;
    for (auto* x : libraryNodes(*l->sdfg))
      if (x->opType == "Loop") loop = x;
    QVERIFY(loop && loop->subgraph("body"));
    bool outer = false;
    for (auto& c : loop->inConnectors()) outer = outer || c.name.rfind("outer.", 0) == 0;
    QVERIFY(outer);
    QVERIFY(!validate(*l->sdfg).hasErrors());
  }

  void symbolicDims() {
    // A model with a dynamic (dim_param) batch axis.
    ::onnx::ModelProto mp;
    mp.set_ir_version(8);
    mp.add_opset_import()->set_version(17);
    auto* g = mp.mutable_graph();
    g->set_name("g");
    auto addValue = [](::onnx::ValueInfoProto* v, const char* name, std::vector<std::string> dims) {
      v->set_name(name);
      auto* tt = v->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(::onnx::TensorProto::FLOAT);
      for (auto& d : dims) {
        auto* dim = tt->mutable_shape()->add_dim();
        if (std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
        else if (d != "?") dim->set_dim_param(d);
      }
    };
    addValue(g->add_input(), "x", {"batch size", "8"});
    addValue(g->add_output(), "y", {"batch size", "8"});
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->add_input("x");
    n->add_output("y");
    auto r = dcw::onnx::importOnnxBytes(mp.SerializeAsString(), "mem.onnx", "");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QVERIFY(r->sdfg->symbols().count("batch_size"));
    auto* x = r->sdfg->findData("x");
    QCOMPARE(QString::fromStdString(x->shape[0].str()), QString("batch_size"));
    QCOMPARE(r->sdfg->metadata["symbol:batch_size"], std::string("batch size"));
    QVERIFY(!validate(*r->sdfg).hasErrors());
    QCOMPARE(QString::fromStdString(pathOf(*r->sdfg, libraryNodes(*r->sdfg)[0]->id())), QString("main/state0/Relu_0"));
  }

  // Every op (newest version <= the supported opset) of ai.onnx and ai.onnx.ml becomes a library node
  // whose class, version and connectors come from the schema registry.
  void everyRegisteredOpIsRepresentable() {
    auto classes = dcw::onnx::allOpClasses();
    QVERIFY(classes.size() > 150);
    int imported = 0;
    for (const auto& cls : classes) {
      ::onnx::ModelProto mp;
      mp.set_ir_version(8);
      auto* os = mp.add_opset_import();
      os->set_domain(cls.domain);
      os->set_version(dcw::onnx::registryMaxOpset(cls.domain));
      if (!cls.domain.empty()) mp.add_opset_import()->set_version(17);
      auto* g = mp.mutable_graph();
      auto* n = g->add_node();
      n->set_op_type(cls.name);
      n->set_domain(cls.domain);
      int nin = std::max(cls.minInputs, 0);
      for (int i = 0; i < nin; ++i) {
        std::string name = "in" + std::to_string(i);
        g->add_input()->set_name(name);
        n->add_input(name);
      }
      int nout = std::max(cls.minOutputs, 1);
      for (int i = 0; i < nout; ++i) {
        std::string name = "out" + std::to_string(i);
        n->add_output(name);
        g->add_output()->set_name(name);
      }
      dcw::onnx::ImportOptions opt;
      opt.runChecker = false;
      opt.runShapeInference = false;
      auto r = dcw::onnx::importOnnxBytes(mp.SerializeAsString(), cls.name + ".onnx", "", opt);
      QVERIFY2(r, qPrintable(QString::fromStdString(cls.name + ": " + (r ? "" : r.error().str()))));
      auto libs = libraryNodes(*r->sdfg);
      QCOMPARE(libs.size(), size_t(1));
      QCOMPARE(libs[0]->opType, cls.name);
      QVERIFY2(!libs[0]->opaque, cls.name.c_str());
      QCOMPARE(int(libs[0]->opsetVersion), cls.sinceVersion);
      if (!cls.inputs.empty() && nin > 0) QVERIFY(libs[0]->inConnectors()[0].name.rfind(cls.inputs[0].name, 0) == 0);
      ++imported;
    }
    qInfo("%d op classes from the ONNX schema registry imported as library nodes", imported);
  }
};

QTEST_GUILESS_MAIN(TestOnnxImport)
#include "tst_OnnxImport.moc"
