// Tests of hostile and extreme models (issue 14): a 20,000-node chain goes through import, validation,
// summary, cost analysis and the JSON round trip (each step near-linear: a quadratic spot shows here as
// a test that takes minutes); If and Loop bodies nested 1,000 deep import and `dcw inspect` shows them;
// a model nested past DCW's limit is refused with one line naming its depth and the limit, both when
// protobuf can parse it and when protobuf itself gives up; a really corrupt file still says so. Code
// generation of If and Loop nests 300 deep completes (past the 64 expansion rounds that once bounded
// it), and generating needs no stack that grows with the depth (bench/deep_nesting.sh times 1,000).
// Every model is generated here with ONNX's protobuf classes; none is stored.
#include "core/analysis/Cost.h"
#include "core/analysis/ModelSummary.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Validate.h"
#include "core/onnx/OnnxImporter.h"
#include "core/onnx/SubgraphNesting.h"
#include "core/serialize/JsonFormat.h"
#include "pipeline/Pipeline.h"

#include "support/CliRunner.h"

#include <onnx/onnx_pb.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <fstream>

using namespace dcw;

namespace {

void valueInfo(::onnx::ValueInfoProto* v, const std::string& name, int elemType, std::initializer_list<int64_t> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elemType);
  auto* s = t->mutable_shape();
  for (auto d : dims) s->add_dim()->set_dim_value(d);
}

::onnx::ModelProto model(::onnx::GraphProto graph) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("tst_LargeModels");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  m.mutable_graph()->Swap(&graph);
  return m;
}

::onnx::NodeProto* addNode(::onnx::GraphProto& g, const std::string& op, const std::string& name,
                           std::initializer_list<std::string> in, std::initializer_list<std::string> out) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void graphAttribute(::onnx::NodeProto* n, const std::string& name, ::onnx::GraphProto& g) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  a->mutable_g()->Swap(&g); // no copy: the bodies hold the whole nest below them
}

// x -> Relu -> Relu -> ... -> y, float[1,16], n nodes.
::onnx::ModelProto chain(int n) {
  ::onnx::GraphProto g;
  g.set_name("chain");
  valueInfo(g.add_input(), "t0", ::onnx::TensorProto::FLOAT, {1, 16});
  for (int i = 0; i < n; ++i)
    addNode(g, "Relu", "r" + std::to_string(i), {"t" + std::to_string(i)}, {"t" + std::to_string(i + 1)});
  valueInfo(g.add_output(), "t" + std::to_string(n), ::onnx::TensorProto::FLOAT, {1, 16});
  return model(std::move(g));
}

// An If whose then-branch holds an If whose then-branch holds ... `depth` bodies deep, the innermost a
// Relu of the main graph's x; every else-branch a Neg. Built from the inside out, without recursion.
::onnx::ModelProto nestedIf(int depth) {
  auto elseBranch = [](int level) {
    ::onnx::GraphProto e;
    e.set_name("else" + std::to_string(level));
    addNode(e, "Neg", "neg" + std::to_string(level), {"x"}, {"e" + std::to_string(level)});
    valueInfo(e.add_output(), "e" + std::to_string(level), ::onnx::TensorProto::FLOAT, {4});
    return e;
  };
  ::onnx::GraphProto body;
  body.set_name("then" + std::to_string(depth));
  addNode(body, "Relu", "relu" + std::to_string(depth), {"x"}, {"y" + std::to_string(depth)});
  valueInfo(body.add_output(), "y" + std::to_string(depth), ::onnx::TensorProto::FLOAT, {4});
  for (int level = depth - 1; level >= 0; --level) {
    ::onnx::GraphProto g;
    const std::string out = level == 0 ? "y" : "y" + std::to_string(level);
    g.set_name(level == 0 ? "nested" : "then" + std::to_string(level));
    auto* n = addNode(g, "If", "if" + std::to_string(level), {"c"}, {out});
    ::onnx::GraphProto e = elseBranch(level);
    graphAttribute(n, "then_branch", body);
    graphAttribute(n, "else_branch", e);
    if (level == 0) {
      valueInfo(g.add_input(), "c", ::onnx::TensorProto::BOOL, {});
      valueInfo(g.add_input(), "x", ::onnx::TensorProto::FLOAT, {4});
    }
    valueInfo(g.add_output(), out, ::onnx::TensorProto::FLOAT, {4});
    body.Swap(&g);
  }
  return model(std::move(body));
}

// A Loop whose body runs a Loop whose body runs ... `depth` bodies deep; every body reads the trip
// count M of the main graph (captured through every level) and carries v; the innermost applies Relu.
::onnx::ModelProto nestedLoop(int depth) {
  auto bodyFrame = [](::onnx::GraphProto& g, int level) {
    const std::string l = std::to_string(level);
    g.set_name("body" + l);
    valueInfo(g.add_input(), "i" + l, ::onnx::TensorProto::INT64, {});
    valueInfo(g.add_input(), "cin" + l, ::onnx::TensorProto::BOOL, {});
    valueInfo(g.add_input(), "vin" + l, ::onnx::TensorProto::FLOAT, {4});
    addNode(g, "Identity", "cond" + l, {"cin" + l}, {"cout" + l});
    valueInfo(g.add_output(), "cout" + l, ::onnx::TensorProto::BOOL, {});
    valueInfo(g.add_output(), "vout" + l, ::onnx::TensorProto::FLOAT, {4});
  };
  ::onnx::GraphProto body;
  bodyFrame(body, depth);
  addNode(body, "Relu", "relu", {"vin" + std::to_string(depth)}, {"vout" + std::to_string(depth)});
  for (int level = depth - 1; level >= 0; --level) {
    const std::string l = std::to_string(level);
    ::onnx::GraphProto g;
    if (level == 0) {
      g.set_name("nested_loops");
      valueInfo(g.add_input(), "M", ::onnx::TensorProto::INT64, {});
      valueInfo(g.add_input(), "c", ::onnx::TensorProto::BOOL, {});
      valueInfo(g.add_input(), "x", ::onnx::TensorProto::FLOAT, {4});
      auto* n = addNode(g, "Loop", "loop0", {"M", "c", "x"}, {"y"});
      graphAttribute(n, "body", body);
      valueInfo(g.add_output(), "y", ::onnx::TensorProto::FLOAT, {4});
    } else {
      bodyFrame(g, level);
      auto* n = addNode(g, "Loop", "loop" + l, {"M", "cin" + l, "vin" + l}, {"vout" + l});
      graphAttribute(n, "body", body);
    }
    body.Swap(&g);
  }
  return model(std::move(body));
}

std::string bytesOf(const ::onnx::ModelProto& m) {
  std::string s;
  if (!m.SerializeToString(&s)) qFatal("cannot serialize the generated model");
  return s;
}

QString writeModel(const QTemporaryDir& dir, const QString& name, const std::string& bytes) {
  QString path = dir.filePath(name);
  std::ofstream(path.toStdString(), std::ios::binary) << bytes;
  return path;
}

// The deepest library-node subgraph below `s`, walked without recursion.
int nestingOf(const ir::Sdfg& s) {
  std::vector<std::pair<const ir::Sdfg*, int>> todo{{&s, 0}};
  int deepest = 0;
  while (!todo.empty()) {
    auto [g, level] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, level);
    for (ir::State* st : g->allStates())
      for (auto& n : st->nodes())
        if (auto* l = dynamic_cast<const ir::LibraryNode*>(n.get()))
          for (auto& sub : l->subgraphs()) todo.emplace_back(sub.sdfg.get(), level + 1);
  }
  return deepest;
}

} // namespace

class TestLargeModels : public QObject {
  Q_OBJECT
private slots:
  // A 20,000-node chain through every near-linear step. Two quadratic spots here took 76 s before.
  void chainOf20000Nodes() {
    constexpr int n = 20000;
    QElapsedTimer t;
    t.start();
    auto r = dcw::onnx::importOnnxBytes(bytesOf(chain(n)), "chain20000.onnx", "");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    const qint64 importMs = t.restart();
    ir::Sdfg& s = *r->sdfg;
    QCOMPARE(s.allStates().size(), size_t(1));
    QCOMPARE(s.allStates()[0]->nodes().size(), size_t(2 * n + 1)); // n Relus, n + 1 access nodes
    QCOMPARE(s.allStates()[0]->edges().size(), size_t(2 * n));
    QVERIFY(!ir::validate(s).hasErrors());
    const qint64 validateMs = t.restart();
    auto summary = analysis::summarize(s);
    QCOMPARE(summary.nodeCount, int64_t(n));
    QCOMPARE(summary.depth, n);
    auto cost = analysis::analyzeCost(s);
    QCOMPARE(cost.nodes.size(), size_t(n));
    const qint64 analysisMs = t.restart();
    std::string json = serialize::toJson(s);
    auto back = serialize::fromJson(json, "chain20000.dcw.json");
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(serialize::toJson(**back), json);
    const qint64 jsonMs = t.restart();
    qInfo("20,000-node chain: import %lld ms, validate %lld ms, summary + cost %lld ms, JSON round trip %lld ms",
          importMs, validateMs, analysisMs, jsonMs);
  }

  // Many nodes under one name (legal in ONNX): unique labels must not be searched from _1 each time.
  void chainWithOneNodeName() {
    auto m = chain(20000);
    for (auto& node : *m.mutable_graph()->mutable_node()) node.set_name("relu");
    auto r = dcw::onnx::importOnnxBytes(bytesOf(m), "same_names.onnx", "");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    auto* st = r->sdfg->allStates()[0];
    QVERIFY(st->nodeByLabel("relu") && st->nodeByLabel("relu_1") && st->nodeByLabel("relu_19999"));
    QVERIFY(!ir::validate(*r->sdfg).hasErrors());
  }

  void nestedBodiesImport_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("If 1000 deep") << "if";
    QTest::newRow("Loop 1000 deep") << "loop";
  }
  void nestedBodiesImport() {
    QFETCH(QString, kind);
    constexpr int depth = 1000;
    auto m = kind == "if" ? nestedIf(depth) : nestedLoop(depth);
    QCOMPARE(dcw::onnx::subgraphNesting(m), depth);
    std::string bytes = bytesOf(m);
    QCOMPARE(dcw::onnx::scanSubgraphNesting(bytes), std::optional<int>(depth));
    QTemporaryDir dir;
    QString path = writeModel(dir, "nested.onnx", bytes);
    auto loaded = io::loadModel(path.toStdString()); // file path: parse, import, validate
    QVERIFY2(loaded, loaded ? "" : loaded.error().str().c_str());
    QCOMPARE(nestingOf(*loaded->sdfg), depth);
    QCOMPARE(analysis::summarize(*loaded->sdfg).nesting, depth);
    // The JSON format holds it too.
    std::string json = serialize::toJson(*loaded->sdfg);
    auto back = serialize::fromJson(json);
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(nestingOf(**back), depth);
  }

  // Code generation of deep nests: the expansion inlines one level of bodies per round, as many rounds
  // as the nesting; copies of the bodies cost their size; the walk that writes the code keeps a work
  // list, so it runs on a thread with a 1 MiB stack (the recursive walk took about 15 KiB per If level,
  // some 4.5 MiB here). Loads, expands and checks on the main thread, generates on the small one.
  void codegenOfDeepNesting_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("If 300 deep") << "if";
    QTest::newRow("Loop 300 deep") << "loop";
  }
  void codegenOfDeepNesting() {
    QFETCH(QString, kind);
    constexpr int depth = 300;
    QTemporaryDir dir;
    const QString path = writeModel(dir, "deep.onnx", bytesOf(kind == "if" ? nestedIf(depth) : nestedLoop(depth)));
    QElapsedTimer t;
    t.start();
    auto prepared = pipeline::prepare(path.toStdString());
    QVERIFY2(prepared, prepared ? "" : prepared.error().str().c_str());
    const qint64 prepareMs = t.restart();
    std::optional<pipeline::Result<codegen::GeneratedCode>> code;
    QThread* generator = QThread::create([&] { code.emplace(pipeline::generate(*prepared)); });
    generator->setStackSize(1 << 20);
    generator->start();
    QVERIFY(generator->wait(QDeadlineTimer(600000)));
    delete generator;
    const qint64 generateMs = t.restart();
    QVERIFY(code.has_value());
    QVERIFY2(*code, *code ? "" : code->error().str().c_str());
    const std::string& src = (*code)->source;
    // Every level is there: a conditional (If) or a loop (Loop) per level, and the innermost Relu,
    // located in the source map at its full path.
    const std::string level = kind == "if" ? "// conditional " : ") { // loop ";
    size_t levels = 0;
    for (size_t at = src.find(level); at != std::string::npos; at = src.find(level, at + 1)) ++levels;
    QCOMPARE(levels, size_t(depth));
    const std::string innermost = kind == "if" ? "/relu" + std::to_string(depth) : "/relu";
    bool found = false;
    for (auto& e : (*code)->sourceMap)
      if (e.path.size() > innermost.size() && e.path.compare(e.path.size() - innermost.size(), innermost.size(), innermost) == 0 &&
          e.path.find(kind == "if" ? "/if" + std::to_string(depth - 1) + "/" : "/loop" + std::to_string(depth - 1) + "/") != std::string::npos)
        found = true;
    QVERIFY2(found, "the innermost Relu is not in the source map");
    qInfo("%s nest %d deep: prepare (import, expansion, validation) %lld ms, generation %lld ms, %zu MB of code", qPrintable(kind), depth,
          prepareMs, generateMs, src.size() >> 20);
  }

  // Past the limit: refused with the depth and the limit. Just past it protobuf still parses the
  // model (DCW's own check refuses it); far past it protobuf gives up and the wire scan tells why.
  void tooDeepIsRefusedWithTheDepth_data() {
    QTest::addColumn<int>("depth");
    QTest::newRow("limit + 1 (parsed)") << dcw::onnx::kMaxSubgraphNesting + 1;
    QTest::newRow("5000 (protobuf refuses)") << 5000;
  }
  void tooDeepIsRefusedWithTheDepth() {
    QFETCH(int, depth);
    std::string bytes = bytesOf(nestedIf(depth));
    const QString expected = QString("the model nests subgraphs %1 deep; DCW supports up to %2").arg(depth).arg(dcw::onnx::kMaxSubgraphNesting);
    QTemporaryDir dir;
    QString path = writeModel(dir, "deep.onnx", bytes);
    auto f = io::loadModel(path.toStdString());
    QVERIFY(!f);
    QVERIFY2(QString::fromStdString(f.error().str()).contains(expected), f.error().str().c_str());
    QVERIFY(QString::fromStdString(f.error().location).startsWith(path));
    auto b = dcw::onnx::importOnnxBytes(bytes, "deep.onnx", "");
    QVERIFY(!b);
    QVERIFY2(QString::fromStdString(b.error().message).contains(expected), b.error().str().c_str());
  }

  // A deep model cut short is corrupt, not too deep; so are random bytes.
  void corruptStillSaysCorrupted() {
    std::string bytes = bytesOf(nestedIf(1000));
    for (std::string cut : {bytes.substr(0, bytes.size() / 2), bytesOf(nestedIf(5000)).substr(0, 100000)}) {
      auto r = dcw::onnx::importOnnxBytes(cut, "cut.onnx", "");
      QVERIFY(!r);
      QVERIFY2(QString::fromStdString(r.error().message).contains("truncated or corrupted"), r.error().str().c_str());
    }
    QCOMPARE(dcw::onnx::scanSubgraphNesting(std::string("\x3a\xff\xff\xff\xff\x0f", 6)), std::optional<int>());
  }

  // The command line: inspect shows a 1,000-deep model (exit 0); past the limit it exits 2 with one
  // error line naming the depth; a corrupt file still says corrupted.
  void cliInspect() {
    QTemporaryDir dir;
    QString ok = writeModel(dir, "nested1000.onnx", bytesOf(nestedIf(1000)));
    auto r = clisupport::dcw({"inspect", ok});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("subgraph nesting 1000"), qPrintable(r.out.left(400)));
    auto c = clisupport::dcw({"convert", ok, "-o", dir.filePath("nested1000.dcw.json")});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    auto j = clisupport::dcw({"inspect", dir.filePath("nested1000.dcw.json")});
    QVERIFY2(j.code == 0, qPrintable(j.err));
    QVERIFY(j.out.contains("subgraph nesting 1000"));

    for (int depth : {dcw::onnx::kMaxSubgraphNesting + 1, 5000}) {
      QString deep = writeModel(dir, QString("nested%1.onnx").arg(depth), bytesOf(nestedIf(depth)));
      auto d = clisupport::dcw({"inspect", deep});
      QCOMPARE(d.code, 2);
      auto errLines = clisupport::lines(d.err);
      QCOMPARE(errLines.size(), 1);
      QVERIFY2(errLines[0].startsWith("error: " + deep + ": the model nests subgraphs " + QString::number(depth) + " deep; DCW supports up to " +
                                      QString::number(dcw::onnx::kMaxSubgraphNesting) + "; "),
               qPrintable(errLines[0]));
    }
    std::string bytes = bytesOf(nestedIf(1000));
    QString cut = writeModel(dir, "cut.onnx", bytes.substr(0, bytes.size() / 3));
    auto k = clisupport::dcw({"inspect", cut});
    QCOMPARE(k.code, 2);
    QCOMPARE(clisupport::lines(k.err).size(), 1);
    QVERIFY2(k.err.contains("truncated or corrupted"), qPrintable(k.err));
  }

  // A model-local function that calls itself would recurse without end.
  void recursiveFunctionIsRefused() {
    ::onnx::GraphProto g;
    g.set_name("main");
    valueInfo(g.add_input(), "x", ::onnx::TensorProto::FLOAT, {4});
    auto* call = addNode(g, "F", "call", {"x"}, {"y"});
    call->set_domain("local");
    valueInfo(g.add_output(), "y", ::onnx::TensorProto::FLOAT, {4});
    auto m = model(std::move(g));
    auto* op = m.add_opset_import();
    op->set_domain("local");
    op->set_version(1);
    auto* f = m.add_functions();
    f->set_name("F");
    f->set_domain("local");
    f->add_input("a");
    f->add_output("b");
    auto* self = f->add_node();
    self->set_op_type("F");
    self->set_domain("local");
    self->add_input("a");
    self->add_output("b");
    f->add_opset_import()->CopyFrom(m.opset_import(0));
    f->add_opset_import()->CopyFrom(m.opset_import(1));
    auto r = dcw::onnx::importOnnxBytes(bytesOf(m), "recursive.onnx", "");
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().str()).contains("calls itself"), r.error().str().c_str());
  }
};

QTEST_GUILESS_MAIN(TestLargeModels)
#include "tst_LargeModels.moc"
