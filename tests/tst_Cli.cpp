// Tests of the `dcw` command line as a user runs it: exit codes, the one-line error format on bad
// input, inspect (text and JSON), convert and the round trip through .dcw.json; the command layer
// headless: transforms (list, candidates), apply (scripts), optimize, and --script on run, bench and
// codegen; test-onnx with a list of expected failures.
#include "support/TestPaths.h"
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "support/CliRunner.h"

#include <cstring>

namespace {

using clisupport::dcw;
using clisupport::kExample;
using clisupport::lines;
using clisupport::readAll;
using clisupport::readFloats;
using clisupport::writeAll;

QString bad(const char* f) { return testpaths::qsource("/tests/data/bad/") + f; }
const QString kSoftmax = QStringLiteral("/usr/share/libonnx-testdata/data/node/test_softmax_axis_1/model.onnx");

double maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 1e30;
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::abs(a[i] - b[i])));
  return d;
}

// The map paths under `prefix` that `dcw transforms MODEL --expand` offers MapTiling for.
QStringList tileableMaps(const QString& model, const QString& prefix) {
  QStringList out;
  auto r = dcw({"transforms", model, "--expand"});
  for (auto& l : lines(r.out))
    if (l.startsWith("apply MapTiling entry=" + prefix)) out << l.mid(QString("apply MapTiling entry=").size()).section(' ', 0, 0);
  return out;
}

} // namespace

class TestCli : public QObject {
  Q_OBJECT
private slots:
  void versionAndHelp() {
    auto v = dcw({"--version"});
    QCOMPARE(v.code, 0);
    QVERIFY(v.out.startsWith("dcw "));
    auto h = dcw({"help"});
    QCOMPARE(h.code, 0);
    QVERIFY(h.out.contains("inspect") && h.out.contains("convert"));
    // Every help ends pointing to the documentation in the source tree.
    auto top = dcw({"--help"});
    QCOMPARE(top.code, 0);
    const QString footer = lines(top.out).last();
    QVERIFY2(footer.contains("README.md") && footer.contains("docs/"), qPrintable(footer));
    QCOMPARE(lines(h.out).last(), footer);
    QCOMPARE(lines(dcw({"run", "--help"}).out).last(), footer);
    for (const char* c : {"inspect", "convert"}) {
      auto s = dcw({c, "--help"});
      QCOMPARE(s.code, 0);
      QVERIFY(s.out.contains("MODEL"));
      auto t = dcw({"help", c});
      QCOMPARE(t.code, 0);
      QCOMPARE(t.out, s.out);
    }
  }

  void usageErrors() {
    auto u = dcw({"frobnicate"});
    QCOMPARE(u.code, 2);
    QVERIFY(u.err.startsWith("error: "));
    auto m = dcw({"inspect"});
    QCOMPARE(m.code, 2);
    QVERIFY(m.err.startsWith("error: "));
  }

  void inspectText() {
    auto r = dcw({"inspect", kExample});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("Conv"));
    QVERIFY(r.out.contains("BatchNormalization"));
    QVERIFY(r.out.contains("Parameters"));
    QVERIFY(r.out.contains("batch"));
  }

  void inspectJson() {
    auto r = dcw({"inspect", kExample, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonParseError e;
    auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &e);
    QVERIFY2(e.error == QJsonParseError::NoError, qPrintable(e.errorString()));
    auto o = doc.object();
    QVERIFY(o["operations"].toObject()["Conv"].toInt() >= 5);
    QVERIFY(o["parameters"].toObject()["count"].toDouble() > 1000);
    QVERIFY(o["symbols"].toObject().contains("batch"));
    QVERIFY(o["depth"].toInt() >= 5);
    QVERIFY(o["arrays"].toArray().size() > 10);
  }

  // `dcw inspect --json` lists each library node's implementation and the alternatives; a script that
  // sets the MatMul to `onednn` runs through `dcw run` and agrees with `pure`; an implementation the op
  // does not have is refused at its script line, naming the alternatives.
  void implementations() {
    const QString model = QStringLiteral("/usr/share/libonnx-testdata/data/node/test_matmul_4d/model.onnx");
    auto r = dcw({"inspect", model, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    auto nodes = QJsonDocument::fromJson(r.out.toUtf8()).object()["library_nodes"].toArray();
    QCOMPARE(nodes.size(), 1);
    auto n = nodes[0].toObject();
    QCOMPARE(n["op"].toString(), QStringLiteral("MatMul"));
    QCOMPARE(n["implementation"].toString(), QString());
    QCOMPARE(n["cpu_uses"].toString(), QStringLiteral("pure"));
    auto alts = n["alternatives"].toArray();
    QCOMPARE(alts.size(), 4);
    QCOMPARE(alts[2].toObject()["name"].toString(), QStringLiteral("cublas"));
    QCOMPARE(alts[3].toObject()["name"].toString(), QStringLiteral("systolic"));
    QCOMPARE(alts[3].toObject()["targets"].toArray(), QJsonArray({QStringLiteral("fpga")}));
    QCOMPARE(alts[2].toObject()["targets"].toArray(), QJsonArray({QStringLiteral("cuda")}));
    QCOMPARE(alts[0].toObject()["name"].toString(), QStringLiteral("pure"));
    QVERIFY(alts[0].toObject()["differentiable"].toBool());
    QVERIFY(alts[0].toObject()["targets"].toArray().isEmpty()); // any target
    auto onednn = alts[1].toObject();
    QCOMPARE(onednn["name"].toString(), QStringLiteral("onednn"));
    QCOMPARE(onednn["targets"].toArray(), QJsonArray({QStringLiteral("cpu")}));
    QCOMPARE(onednn["environments"].toArray(), QJsonArray({QStringLiteral("onednn")}));
    QVERIFY(!onednn["differentiable"].toBool());
    const QString path = n["path"].toString();

    QTemporaryDir dir;
    QString script = dir.filePath("onednn.dcws"), bogus = dir.filePath("bogus.dcws");
    QVERIFY(writeAll(script, ("dcw-script 1\nmodel " + model + "\nset " + path + " implementation=onednn\n").toUtf8()));
    QVERIFY(writeAll(bogus, ("dcw-script 1\nmodel " + model + "\nset " + path + " implementation=cublas\n").toUtf8()));
    auto base = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("base")});
    QVERIFY2(base.code == 0, qPrintable(base.err));
    auto one = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("onednn"), "--script", script});
    QVERIFY2(one.code == 0, qPrintable(one.err));
    auto ref = readFloats(dir.filePath("base/output_0.pb"));
    QCOMPARE(ref.size(), size_t(1 * 2 * 3 * 3)); // [1, 2, 3, 4] x [1, 2, 4, 3]
    double d = maxAbsDiff(ref, readFloats(dir.filePath("onednn/output_0.pb")));
    QVERIFY2(d <= 1e-4, qPrintable(QString("max abs diff %1").arg(d)));

    auto no = dcw({"run", model, "--random", "3", "--script", bogus});
    QCOMPARE(no.code, 2);
    // A script does not know its target: the choice is refused where the model is expanded for one,
    // naming the node.
    QVERIFY2(no.err.contains("main/state0/MatMul_0 (MatMul): ") &&
                 no.err.contains("implementation 'cublas' of MatMul is for cuda, not for target cpu; available: pure (any target, "
                                 "differentiable), onednn (cpu, not differentiable), cublas (cuda, not differentiable), systolic (fpga, not differentiable)"),
             qPrintable(no.err));
    // The same choice on the CUDA target: cuBLAS's batched SGEMM (its calls computed as cuBLAS defines
    // them by cuda-sim) gives the CPU's numbers.
    auto gpu = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("cublas"), "--script", bogus, "--target", "cuda-sim"});
    QVERIFY2(gpu.code == 0, qPrintable(gpu.err));
    d = maxAbsDiff(ref, readFloats(dir.filePath("cublas/output_0.pb")));
    QVERIFY2(d <= 1e-4, qPrintable(QString("max abs diff %1").arg(d)));
  }

  // cuDNN's convolution on the CUDA target (its calls computed as cuDNN defines them by cuda-sim): a
  // grouped, strided, dilated Conv chosen by script equals the CPU; pads cuDNN cannot express (one
  // amount for both ends of a dim) are refused by script, naming the node, and without the script the
  // node falls back to pure kernels with the CPU's numbers.
  void cudnnConvolutionOnTheCudaTarget() {
    QTemporaryDir dir;
    const QString grouped = testpaths::qsource("/tests/data/cuda/conv_grouped_dilated.onnx");
    const QString odd = testpaths::qsource("/tests/data/cuda/conv_asymmetric_pads.onnx");
    for (const QString& model : {grouped, odd}) {
      const QString name = QFileInfo(model).baseName(), script = dir.filePath(name + ".dcws");
      QVERIFY(writeAll(script, ("dcw-script 1\nmodel " + model + "\nset main/state0/Conv_0 implementation=cudnn\n").toUtf8()));
      auto cpu = dcw({"run", model, "--random", "5", "--outputs", dir.filePath(name + "-cpu")});
      QVERIFY2(cpu.code == 0, qPrintable(cpu.err));
      auto chosen = dcw({"run", model, "--random", "5", "--outputs", dir.filePath(name + "-cudnn"), "--script", script, "--target", "cuda-sim"});
      auto fallback = dcw({"run", model, "--random", "5", "--outputs", dir.filePath(name + "-gpu"), "--target", "cuda-sim"});
      QVERIFY2(fallback.code == 0, qPrintable(fallback.err));
      const auto ref = readFloats(dir.filePath(name + "-cpu/output_0.pb"));
      QVERIFY(!ref.empty());
      double d = maxAbsDiff(ref, readFloats(dir.filePath(name + "-gpu/output_0.pb")));
      QVERIFY2(d <= 1e-4, qPrintable(QString("%1 default GPU path: max abs diff %2").arg(name).arg(d)));
      if (model == odd) {
        QCOMPARE(chosen.code, 2);
        QVERIFY2(chosen.err.contains("main/state0/Conv_0") && chosen.err.contains("cudnn Conv pads both ends of a dim alike"),
                 qPrintable(chosen.err));
        continue;
      }
      QVERIFY2(chosen.code == 0, qPrintable(chosen.err));
      d = maxAbsDiff(ref, readFloats(dir.filePath(name + "-cudnn/output_0.pb")));
      QVERIFY2(d <= 1e-4, qPrintable(QString("%1 cudnn: max abs diff %2").arg(name).arg(d)));
      auto code = dcw({"codegen", model, "--script", script, "--target", "cuda-sim", "-o", dir.filePath(name + "-code")});
      QVERIFY2(code.code == 0, qPrintable(code.err));
      QVERIFY(readAll(dir.filePath(name + "-code/program.cu")).contains("dcw_env_cudnn::conv(dcw_conv, 2,"));
    }
  }

  // MatMul's `systolic` implementation on the FPGA targets: a chain of processing elements joined by
  // streams, in a dataflow region of the kernel; C-simulation equals the CPU; the estimate runs the
  // elements side by side; shapes it does not take are refused naming the node (and --prefer passes
  // them to pure).
  void systolicMatMulOnTheFpga() {
    QTemporaryDir dir;
    const QString model = testpaths::qsource("/tests/data/fpga/matmul_systolic.onnx"); // [16, 32] x [32, 24]
    const QString script = dir.filePath("systolic.dcws");
    QVERIFY(writeAll(script, ("dcw-script 1\nmodel " + model + "\nset main/state0/MatMul_0 implementation=systolic\n").toUtf8()));
    auto cpu = dcw({"run", model, "--random", "4", "--outputs", dir.filePath("cpu")});
    QVERIFY2(cpu.code == 0, qPrintable(cpu.err));
    auto sys = dcw({"run", model, "--random", "4", "--outputs", dir.filePath("systolic"), "--script", script, "--target", "fpga-sim"});
    QVERIFY2(sys.code == 0, qPrintable(sys.err));
    const auto ref = readFloats(dir.filePath("cpu/output_0.pb"));
    QCOMPARE(ref.size(), size_t(16 * 24));
    const double d = maxAbsDiff(ref, readFloats(dir.filePath("systolic/output_0.pb")));
    QVERIFY2(d <= 1e-4, qPrintable(QString("systolic MatMul: max abs diff %1").arg(d)));
    // The program: a dataflow region with the feeder and 8 elements of 2 rows each, their on-chip
    // arrays split into 2 banks.
    auto code = dcw({"codegen", model, "--script", script, "--target", "fpga-sim", "-o", dir.filePath("code")});
    QVERIFY2(code.code == 0, qPrintable(code.err));
    const QString src = readAll(dir.filePath("code/program.cpp"));
    QVERIFY(src.contains("static void dataflow_compute("));
    QVERIFY(src.contains("static void pe_feed("));
    QCOMPARE(src.count(QRegularExpression("static void pe_pe[0-9]+_load\\(")), 8);
    QVERIFY(src.contains("#pragma HLS ARRAY_PARTITION variable=At0 cyclic factor=2 dim=1"));
    QVERIFY(src.contains("dataflow.add(\"pe7_load\""));
    // The estimate: the elements side by side, against the pure loop nest.
    double cycles[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const QString report = dir.filePath(k ? "systolic.json" : "pure.json");
      QStringList args{"profile", model, "--target", "fpga-sim", "--repeat", "1", "--no-peaks", "--report", report};
      if (k) args << "--script" << script;
      auto p = dcw(args);
      QVERIFY2(p.code == 0, qPrintable(p.err));
      QFile f(report);
      QVERIFY(f.open(QIODevice::ReadOnly));
      cycles[k] = QJsonDocument::fromJson(f.readAll()).object()["fpga"].toObject()["cycles"].toDouble();
    }
    qInfo("MatMul [16, 32] x [32, 24] on the FPGA, estimated cycles: pure %.0f, systolic %.0f", cycles[0], cycles[1]);
    QVERIFY(cycles[1] > 0 && cycles[1] * 20 < cycles[0]);
    // Refusals, at the node: a batched MatMul, more than 64 rows per element (67 rows: one element).
    for (const char* name : {"matmul_batched", "matmul_prime_rows"}) {
      const QString m = testpaths::qsource("/tests/data/fpga/") + name + ".onnx";
      const QString s = dir.filePath(QString(name) + ".dcws");
      QVERIFY(writeAll(s, ("dcw-script 1\nmodel " + m + "\nset main/state0/MatMul_0 implementation=systolic\n").toUtf8()));
      auto r = dcw({"run", m, "--random", "1", "--script", s, "--target", "fpga-sim"});
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.contains("main/state0/MatMul_0") && (r.err.contains("takes a 2-D A and a 2-D B") || r.err.contains("exceed 64")), qPrintable(r.err));
      // (the model after --prefer: one name per --prefer, the positional stays the model's)
      auto preferred = dcw({"run", "--random", "1", "--prefer", "systolic", m, "--target", "fpga-sim"});
      QVERIFY2(preferred.code == 0, qPrintable(preferred.err));
    }
    // Conv: the chain over im2col patches (a padded copy of the input on chip, strides, bias, a batch
    // of 2); a grouped convolution is refused.
    const QString conv = testpaths::qsource("/tests/data/fpga/conv_systolic.onnx");
    const QString convScript = dir.filePath("conv.dcws");
    QVERIFY(writeAll(convScript, ("dcw-script 1\nmodel " + conv + "\nset main/state0/Conv_0 implementation=systolic\n").toUtf8()));
    auto convCpu = dcw({"run", conv, "--random", "6", "--outputs", dir.filePath("conv-cpu")});
    QVERIFY2(convCpu.code == 0, qPrintable(convCpu.err));
    auto convSys = dcw({"run", conv, "--random", "6", "--outputs", dir.filePath("conv-systolic"), "--script", convScript, "--target", "fpga-sim"});
    QVERIFY2(convSys.code == 0, qPrintable(convSys.err));
    const auto convRef = readFloats(dir.filePath("conv-cpu/output_0.pb"));
    QCOMPARE(convRef.size(), size_t(2 * 8 * 12 * 5));
    const double dc = maxAbsDiff(convRef, readFloats(dir.filePath("conv-systolic/output_0.pb")));
    QVERIFY2(dc <= 1e-4, qPrintable(QString("systolic Conv: max abs diff %1").arg(dc)));
    auto convCode = dcw({"codegen", conv, "--script", convScript, "--target", "fpga-sim", "-o", dir.filePath("conv-code")});
    QVERIFY2(convCode.code == 0, qPrintable(convCode.err));
    QVERIFY(readAll(dir.filePath("conv-code/program.cpp")).contains("static void pe_feed_pad("));
    const QString grouped = testpaths::qsource("/tests/data/fpga/conv_grouped.onnx");
    auto g = dcw({"run", grouped, "--random", "1", "--prefer", "systolic", "--target", "fpga-sim", "--outputs", dir.filePath("grouped")});
    QVERIFY2(g.code == 0, qPrintable(g.err)); // --prefer: pure takes what systolic does not
    const QString groupedScript = dir.filePath("grouped.dcws");
    QVERIFY(writeAll(groupedScript, ("dcw-script 1\nmodel " + grouped + "\nset main/state0/Conv_0 implementation=systolic\n").toUtf8()));
    auto gr = dcw({"run", grouped, "--random", "1", "--script", groupedScript, "--target", "fpga-sim"});
    QCOMPARE(gr.code, 2);
    QVERIFY2(gr.err.contains("main/state0/Conv_0") && gr.err.contains("takes one group"), qPrintable(gr.err));
    // Not for the CPU.
    auto onCpu = dcw({"run", model, "--random", "1", "--script", script});
    QVERIFY(onCpu.code != 0);
    QVERIFY2(onCpu.err.contains("systolic"), qPrintable(onCpu.err));
  }

  // oneDNN's Winograd convolution is the user's opt-in, per node (or by --prefer for auto-optimize):
  // the program prints its error against the direct convolution measured on the first run; where it
  // does not apply (a 1x1, a stride 2) the choice is refused naming the node, and auto-optimize gives
  // those nodes the next preferred implementation, their epilogue fusions kept.
  void winogradIsAnOptInWithItsMeasuredError() {
    QTemporaryDir dir;
    const QString model = testpaths::qsource("/tests/data/winograd/winograd_block.onnx"); // 3x3, 1x1, 3x3 stride 2
    const QString script = dir.filePath("w.dcws"), bad = dir.filePath("bad.dcws");
    QVERIFY(writeAll(script, ("dcw-script 1\nmodel " + model + "\nset main/state0/Conv_0 implementation=onednn_winograd\n").toUtf8()));
    QVERIFY(writeAll(bad, ("dcw-script 1\nmodel " + model + "\nset main/state0/Conv_2 implementation=onednn_winograd\n").toUtf8()));
    auto ref = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("ref")});
    QVERIFY2(ref.code == 0, qPrintable(ref.err));
    QVERIFY(!ref.err.contains("Winograd"));
    auto w = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("w"), "--script", script});
    QVERIFY2(w.code == 0, qPrintable(w.err));
    QVERIFY2(w.err.contains("dcw: main/state0/Conv_0: Winograd convolution against the direct one on the first run's inputs: max |difference| "),
             qPrintable(w.err));
    // The faster of the two algorithms is kept, and the line says which.
    QVERIFY2(w.err.contains("; kept Winograd (faster here)") || w.err.contains("; kept the direct convolution (faster here)"), qPrintable(w.err));
    const double d = maxAbsDiff(readFloats(dir.filePath("ref/output_0.pb")), readFloats(dir.filePath("w/output_0.pb")));
    QVERIFY2(d <= 1e-4, qPrintable(QString("Winograd: max abs diff %1").arg(d)));
    auto no = dcw({"run", model, "--random", "3", "--script", bad});
    QCOMPARE(no.code, 2);
    QVERIFY2(no.err.contains("main/state0/Conv_2 (Conv): onednn_winograd takes 2-D 3x3 convolutions") && no.err.contains("this kernel is 1x1"),
             qPrintable(no.err));
    // Auto-optimize: only when preferred; then on the 3x3 stride-1 convolution alone.
    for (bool opted : {false, true}) {
      const QString out = dir.filePath(opted ? "opt-w.dcws" : "opt.dcws");
      QStringList args{"optimize", model, "-o", dir.filePath(opted ? "opt-w.dcw.json" : "opt.dcw.json"), "--script-out", out};
      if (opted) args << "--prefer" << "onednn_winograd" << "--prefer" << "onednn";
      auto o = dcw(args);
      QVERIFY2(o.code == 0, qPrintable(o.err));
      const QString text = readAll(out);
      QCOMPARE(text.count("onednn_winograd"), opted ? 2 : 0); // the set and its expansion
      if (opted) {
        QVERIFY(text.contains("set main/state0/Conv_0 implementation=onednn_winograd"));
        QVERIFY(text.contains("set main/state0/Conv_2 implementation=onednn\n"));
        QVERIFY(text.contains("set main/state0/Conv_4 implementation=onednn\n"));
      }
      QCOMPARE(text.count("apply ActivationFusion"), 2);
      auto r = dcw({"run", model, "--random", "3", "--outputs", dir.filePath(opted ? "opt-w" : "opt"), "--script", out});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QCOMPARE(r.err.contains("Winograd convolution against the direct one"), opted);
      const double e = maxAbsDiff(readFloats(dir.filePath("ref/output_0.pb")), readFloats(dir.filePath(opted ? "opt-w/output_0.pb" : "opt/output_0.pb")));
      QVERIFY2(e <= 1e-4, qPrintable(QString("optimized: max abs diff %1").arg(e)));
    }
  }

  void convertRoundTrip() {
    QTemporaryDir dir;
    QString out = dir.filePath("tiny.dcw.json");
    auto c = dcw({"convert", kExample, "-o", out});
    QVERIFY2(c.code == 0, qPrintable(c.err));
    auto a = dcw({"inspect", kExample, "--json"});
    auto b = dcw({"inspect", out, "--json"});
    QVERIFY2(b.code == 0, qPrintable(b.err));
    auto ja = QJsonDocument::fromJson(a.out.toUtf8()).object(), jb = QJsonDocument::fromJson(b.out.toUtf8()).object();
    for (const char* k : {"operations", "parameters", "symbols", "arrays", "depth", "inputs", "outputs"})
      QVERIFY2(ja[k] == jb[k], k);
    // Converting the .dcw.json again yields the same bytes.
    QString again = dir.filePath("again.dcw.json");
    QCOMPARE(dcw({"convert", out, "-o", again}).code, 0);
    QFile f1(out), f2(again);
    QVERIFY(f1.open(QIODevice::ReadOnly) && f2.open(QIODevice::ReadOnly));
    QVERIFY(f1.readAll() == f2.readAll());
  }

  void runCodegenBenchTestOnnx() {
    QTemporaryDir dir;
    auto r = dcw({"run", kExample, "--random", "7", "--outputs", dir.path()});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("logits: float32[1, 10]"));
    QVERIFY(QFile::exists(dir.filePath("input_0.pb")) && QFile::exists(dir.filePath("output_0.pb")));
    // The written inputs give the same outputs again.
    QTemporaryDir again;
    auto r2 = dcw({"run", kExample, "--inputs", dir.path(), "--outputs", again.path()});
    QVERIFY2(r2.code == 0, qPrintable(r2.err));
    QFile a(dir.filePath("output_0.pb")), b(again.filePath("output_0.pb"));
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QVERIFY(a.readAll() == b.readAll());

    auto g = dcw({"codegen", kExample, "--target", "cpu", "-o", dir.filePath("gen")});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    QFile src(dir.filePath("gen/program.cpp"));
    QVERIFY(src.open(QIODevice::ReadOnly));
    QVERIFY(src.readAll().contains("dcw_program"));
    QFile map(dir.filePath("gen/program.sourcemap.json"));
    QVERIFY(map.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(map.readAll()).array().size() > 10);

    auto bench = dcw({"bench", kExample, "--warmup", "1", "--repeat", "3", "--json"});
    QVERIFY2(bench.code == 0, qPrintable(bench.err + bench.out));
    auto j = QJsonDocument::fromJson(bench.out.toUtf8()).object();
    QVERIFY(j["median_ms"].toDouble() > 0 && j["min_ms"].toDouble() > 0);
    // The process's own peak resident memory: more than the dcw binary with Qt loaded, less than a GiB
    // for this small example.
    QVERIFY2(j["peak_rss_mib"].toDouble() > 10 && j["peak_rss_mib"].toDouble() < 1024, qPrintable(bench.out));

    auto t = dcw({"test-onnx", "/usr/share/libonnx-testdata/data/node/test_relu", "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding"});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QVERIFY2(t.out.endsWith("2 passed, 0 failed, 0 skipped\n"), qPrintable(t.out));
    // --exclude leaves out the cases whose name contains its text, --filter keeps those that contain its.
    auto x = dcw({"test-onnx", "/usr/share/libonnx-testdata/data/node", "--filter", "test_argmax_default_axis", "--exclude", "_random"});
    QVERIFY2(x.code == 0, qPrintable(x.err));
    QVERIFY2(x.out.contains("passed       test_argmax_default_axis_example_select_last_index") && !x.out.contains("_random") &&
                 x.out.endsWith("2 passed, 0 failed, 0 skipped\n"),
             qPrintable(x.out));
  }

  // --expected-failures: a run agrees with the list, or each disagreement is an error naming the case.
  void testOnnxExpectedFailures() {
    const QString node = QStringLiteral("/usr/share/libonnx-testdata/data/node/");
    const QStringList cases{node + "test_relu", node + "test_loop11"};
    QTemporaryDir dir;
    auto run = [&](const QByteArray& list) {
      writeAll(dir.filePath("expected.txt"), list);
      return dcw(QStringList{"test-onnx"} + cases + QStringList{"--expected-failures", dir.filePath("expected.txt")});
    };
    auto ok = run("test_loop11 unsupported # a Slice at the iteration number\n");
    QVERIFY2(ok.code == 0, qPrintable(ok.out + ok.err));
    QVERIFY2(ok.out.endsWith("1 passed, 0 failed, 1 skipped\n1 expected failures listed in " + dir.filePath("expected.txt") +
                             ", 0 disagreements with this run\n"),
             qPrintable(ok.out));
    // Not listed: fails, naming the case.
    auto unlisted = run("# nothing expected\n");
    QCOMPARE(unlisted.code, 1);
    QVERIFY2(unlisted.err.startsWith("error: test_loop11: unsupported and is not listed as an expected failure: "),
             qPrintable(unlisted.err));
    // Listed but passing, listed with another status, or no case of the run: each one error.
    auto stale = run("test_relu failed # was wrong once\ntest_loop11 failed # x\ntest_gone failed # y\n");
    QCOMPARE(stale.code, 1);
    const QString list = dir.filePath("expected.txt");
    QVERIFY2(stale.err.contains("error: " + list + ":1: test_relu passes now but is listed as failed; remove it from the list\n"),
             qPrintable(stale.err));
    QVERIFY2(stale.err.contains("error: " + list + ":2: test_loop11 is listed as failed but unsupported: "),
             qPrintable(stale.err));
    QVERIFY2(stale.err.contains("error: " + list + ":3: test_gone is no case of this run; remove it from the list\n"),
             qPrintable(stale.err));
    QCOMPARE(stale.err.count('\n'), 3);
    // A malformed list is bad input: exit 2 before anything runs, naming the line.
    auto malformed = run("test_relu\n");
    QCOMPARE(malformed.code, 2);
    QVERIFY2(malformed.err.startsWith("error: " + list + ":1: expected `NAME STATUS  # reason`"), qPrintable(malformed.err));
    QVERIFY(malformed.out.isEmpty());
  }

  void runRefusals() {
    // An op without implementation: the error names the node and the op.
    auto u = dcw({"run", bad("unknown_domain.onnx"), "--random", "1"});
    QCOMPARE(u.code, 2);
    QVERIFY2(u.err.contains("com.example.custom::MyOp") && u.err.contains("main/state0/"), qPrintable(u.err));
    QCOMPARE(u.err.count('\n'), 1);
    // ONNX's shape inference crashes on this one (in a child); the node's own check then names it.
    auto g = dcw({"run", bad("gemm_rank0_b.onnx"), "--random", "1"});
    QCOMPARE(g.code, 2);
    QVERIFY2(g.err.contains("error: " + bad("gemm_rank0_b.onnx") + ": main/state0/gemm (Gemm): Gemm needs 2-D A, B and Y"),
             qPrintable(g.err));
    // Inputs of the wrong dtype or shape: the error names the input.
    QTemporaryDir dir;
    QVERIFY(QFile::copy("/usr/share/libonnx-testdata/data/node/test_argmax_default_axis_example/test_data_set_0/input_0.pb",
                        dir.filePath("input_0.pb")));
    auto d = dcw({"run", kExample, "--inputs", dir.path()});
    QCOMPARE(d.code, 2);
    QVERIFY2(d.err.startsWith("error: " + QString(kExample) + ": input 'input': has "), qPrintable(d.err)); // the file, then the input
    auto n = dcw({"run", kExample});
    QCOMPARE(n.code, 2);
    QVERIFY(n.err.contains("--inputs DIR or --random SEED"));
    // Random inputs for a sequence input: refused, naming the input and the way to give it.
    const QString seqModel = testpaths::qsource("/tests/data/sequences/sequence_interface.onnx");
    auto s = dcw({"run", seqModel, "--random", "1"});
    QCOMPARE(s.code, 2);
    QVERIFY2(s.err.startsWith("error: " + seqModel + ": input 'seq': is a sequence") && s.err.contains("--inputs DIR"), qPrintable(s.err));
  }

  // Sequences in and out through files: an ONNX test case's SequenceProto inputs, the outputs written
  // as SequenceProto and equal to the case's own.
  void runSequencesThroughFiles() {
    const QString c = QStringLiteral("/usr/share/libonnx-testdata/data/node/test_sequence_insert_at_back/");
    QTemporaryDir dir;
    auto r = dcw({"run", c + "model.onnx", "--inputs", c + "test_data_set_0", "--outputs", dir.path()});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("output_sequence: sequence of 4 (int64[4], int64[3], int64[2], int64[3])\n"), qPrintable(r.out));
    QFile a(dir.filePath("output_0.pb")), b(c + "test_data_set_0/output_0.pb");
    QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
    QCOMPARE(a.readAll(), b.readAll()); // the SequenceProto ONNX's reference wrote, byte for byte
  }

  void badInputOneLineExit2_data() {
    QTest::addColumn<QString>("file");
    for (const char* f : {"empty.onnx", "random_bytes.onnx", "truncated.onnx", "text.onnx", "missing_external/model.onnx",
                          "external_escape/model.onnx", "external_abs/model.onnx", "overflow_dims.onnx", "cycle.onnx", "zero_stride.onnx", "zero_kernel.onnx",
                          "undefined_input.onnx", "duplicate_output.onnx", "corrupted.dcw.json", "opset_too_new.onnx",
                          "no_such_file.onnx"})
      QTest::newRow(f) << bad(f);
  }
  void badInputOneLineExit2() {
    QFETCH(QString, file);
    for (const char* cmd : {"inspect", "convert"}) {
      QStringList args{cmd, file};
      if (QString(cmd) == "convert") args << "-o" << QDir::temp().filePath("dcw_tst_cli_out.dcw.json");
      auto r = dcw(args);
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.startsWith("error: " + file + ":"), qPrintable(r.err)); // file: or file:line:col:
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY(r.out.isEmpty());
    }
  }

  void transformsList() {
    auto r = dcw({"transforms", "--list"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QStringList names;
    for (auto& l : lines(r.out)) {
      auto f = l.split('\t');
      QVERIFY2(f.size() == 4 && !f[0].isEmpty() && !f[1].isEmpty() && !f[3].isEmpty(), qPrintable(l));
      QVERIFY2(f[2] == "differentiable" || f[2] == "not-differentiable", qPrintable(l));
      names << f[0];
      if (f[0] == "ConvBatchNormFolding") QCOMPARE(f[2], QString("not-differentiable"));
      if (f[0] == "MapFusion") QCOMPARE(f[2], QString("differentiable"));
    }
    QVERIFY(!names.isEmpty());
    QVERIFY(names.contains("ExpandLibraryNode"));
    QVERIFY(names.contains("MapTiling"));
    QCOMPARE(names.removeDuplicates(), qsizetype(0));
    // --markdown: the same registry as a reference, a section per transformation with its script line.
    auto md = dcw({"transforms", "--markdown"});
    QVERIFY2(md.code == 0, qPrintable(md.err));
    QVERIFY(md.out.startsWith("# Transformations\n"));
    QVERIFY(md.out.contains("Generated by `dcw transforms --markdown`"));
    for (auto& name : names) {
      QVERIFY2(md.out.contains("\n### " + name + "\n"), qPrintable(name));
      QVERIFY2(md.out.contains("- Script: `apply " + name + " "), qPrintable(name));
    }
    QVERIFY(md.out.contains("| `tile_sizes` | int list | `32` |")); // MapTiling's option, typed, with its default
    QCOMPARE(dcw({"transforms", "--markdown", "--list"}).code, 2);
    auto n = dcw({"transforms"});
    QCOMPARE(n.code, 2);
    QVERIFY2(n.err.startsWith("error: ") && n.err.contains("--list"), qPrintable(n.err));
    QVERIFY(dcw({"help"}).out.contains("optimize"));
  }

  void transformsOnModels() {
    // A single op as imported: its expansion, as a script line; --timing reports on stderr.
    auto a = dcw({"transforms", kSoftmax, "--timing"});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    QVERIFY2(a.out.contains("apply ExpandLibraryNode node=main/state0/Softmax_0\n"), qPrintable(a.out));
    for (auto& l : lines(a.out)) QVERIFY2(l.startsWith("apply "), qPrintable(l));
    QVERIFY2(a.err.contains("timing: load ") && a.err.contains(" ms"), qPrintable(a.err));
    // Expanded: map-level matches show, the expansion no longer; --all adds refusals with the reason.
    auto e = dcw({"transforms", kSoftmax, "--expand", "--all"});
    QVERIFY2(e.code == 0, qPrintable(e.err));
    QVERIFY(!e.out.contains("ExpandLibraryNode"));
    QVERIFY2(e.out.contains("# not applicable: apply MapTiling entry=main/state0/Softmax_0/") &&
                 e.out.contains(": every dimension already fits in one tile"),
             qPrintable(e.out));
    for (auto& l : lines(e.out)) QVERIFY2(l.startsWith("apply ") || l.startsWith("# not applicable: apply "), qPrintable(l));
    auto e2 = dcw({"transforms", kSoftmax, "--expand"});
    QVERIFY(!e2.out.contains("# not applicable"));

    // tiny_resnet as imported: every op can be expanded.
    auto t = dcw({"transforms", kExample});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QVERIFY(t.out.count("apply ExpandLibraryNode node=main/state0/") >= 20);
    QVERIFY(!t.out.contains("MapTiling"));
    // --at a node: only the matches touching it.
    auto n = dcw({"transforms", kExample, "--at", "main/state0/block1.conv1.Conv"});
    QVERIFY2(n.code == 0, qPrintable(n.err));
    QVERIFY(n.out.contains("apply ExpandLibraryNode node=main/state0/block1.conv1.Conv\n"));
    for (auto& l : lines(n.out)) QVERIFY2(l.contains("main/state0/block1.conv1.Conv"), qPrintable(l));
    // Expanded, with --at a map: the matches at that map only.
    auto x = dcw({"transforms", kExample, "--expand", "--timing"});
    QVERIFY2(x.code == 0, qPrintable(x.err));
    QVERIFY(x.err.contains(", expand "));
    QStringList maps = tileableMaps(kExample, "main/state0/block1.conv1.Conv/");
    QVERIFY(!maps.isEmpty());
    auto at = dcw({"transforms", kExample, "--expand", "--at", maps.front()});
    QVERIFY2(at.code == 0, qPrintable(at.err));
    QVERIFY(at.out.contains("apply MapTiling entry=" + maps.front() + "\n"));
    QVERIFY(lines(at.out).size() < lines(x.out).size());
    for (auto& l : lines(at.out)) QVERIFY2(l.contains(maps.front()), qPrintable(l));
    // A path that names nothing: one error line naming it, exit 2.
    auto b = dcw({"transforms", kExample, "--at", "main/state0/no_such_node"});
    QCOMPARE(b.code, 2);
    QVERIFY2(b.err.startsWith("error: --at main/state0/no_such_node: "), qPrintable(b.err));
    QCOMPARE(b.err.count('\n'), 1);
    QVERIFY(b.out.isEmpty());
  }

  // Module groups as a user meets them on the command line: listed with their addresses, what applies
  // in one, a script acting on one, and the refusal of a group that does not exist.
  void moduleGroups() {
    auto i = dcw({"inspect", kExample, "--modules"});
    QVERIFY2(i.code == 0, qPrintable(i.err));
    QVERIFY2(i.out.contains("Module groups (4; ") && i.out.contains("\n  main/state0/module:block1  7 ops\n") &&
                 i.out.contains("\n    main/state0/module:block2/downsample  2 ops\n"),
             qPrintable(i.out));
    auto j = dcw({"inspect", kExample, "--json", "--modules"});
    QVERIFY2(j.code == 0, qPrintable(j.err));
    auto modules = QJsonDocument::fromJson(j.out.toUtf8()).object()["modules"].toArray();
    QCOMPARE(modules.size(), 4);
    QCOMPARE(modules[2].toObject()["address"].toString(), QStringLiteral("main/state0/module:block2"));
    QCOMPARE(modules[2].toObject()["ops"].toInt(), 9);

    auto t = dcw({"transforms", kExample, "--at", "main/state0/module:block1"});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QVERIFY2(t.out.startsWith("apply ExpandLibraryNode node=main/state0/module:block1   # 7 places in the module\n"), qPrintable(t.out));
    QVERIFY2(t.out.contains("apply ConvBatchNormFolding conv=main/state0/module:block1   # 2 places in the module\n"), qPrintable(t.out));
    QVERIFY(t.out.contains("apply ExpandLibraryNode node=main/state0/block1.relu.Relu\n"));
    QVERIFY(!t.out.contains("block2."));

    QTemporaryDir dir;
    const QString script = dir.filePath("groups.dcws");
    QVERIFY(writeAll(script, ("dcw-script 1\nmodel " + kExample + "\n"
                              "apply ConvBatchNormFolding conv=main/state0/module:block1\n"
                              "set main/state0/module:block1 implementation=onednn   # every op of block1 that has it\n").toUtf8()));
    const QString out = dir.filePath("groups.dcw.json");
    auto a = dcw({"apply", kExample, "--script", script, "-o", out});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    auto run0 = dcw({"run", kExample, "--random", "3", "--outputs", dir.filePath("base")});
    auto run1 = dcw({"run", out, "--random", "3", "--outputs", dir.filePath("groups")});
    QVERIFY2(run0.code == 0 && run1.code == 0, qPrintable(run0.err + run1.err));
    const auto x = readFloats(dir.filePath("base/output_0.pb")), y = readFloats(dir.filePath("groups/output_0.pb"));
    QVERIFY(!x.empty() && x.size() == y.size());
    for (size_t k = 0; k < x.size(); ++k) QVERIFY2(std::abs(x[k] - y[k]) <= 1e-4f + 1e-3f * std::abs(x[k]), qPrintable(QString::number(k)));

    auto b = dcw({"transforms", kExample, "--at", "main/state0/module:block3"});
    QCOMPARE(b.code, 2);
    QVERIFY2(b.err.startsWith("error: --at main/state0/module:block3: no op of main/state0 is in module 'block3'"), qPrintable(b.err));
    QVERIFY2(b.err.contains("block1, block2"), qPrintable(b.err));
  }

  // `dcw optimize --target cuda-sim`: the model moves onto the GPU as a step of the script, cuBLAS and
  // cuDNN take the nodes they can, no CPU loop shapes (tiling, vectorization), outermost GPU maps get
  // gpu_device, the explicit host/GPU copies survive (no redundant-array step removes one); the script
  // runs on cuda-sim with the CPU's numbers. The FPGA targets are refused with a reason.
  void optimizeForTheGpu() {
    QTemporaryDir dir;
    const QString model = testpaths::qsource("/tests/data/cuda/conv_grouped_dilated.onnx");
    const QString script = dir.filePath("gpu.dcws");
    auto o = dcw({"optimize", model, "--target", "cuda-sim", "--script-out", script});
    QVERIFY2(o.code == 0, qPrintable(o.err));
    const QString text = QString::fromUtf8(readAll(script));
    QVERIFY2(text.contains("\napply GpuTransform state=main/state0\n") && text.contains("implementation=cudnn"), qPrintable(text));
    QVERIFY(!text.contains("MapTiling") && !text.contains("Vectorization") && !text.contains("cpu_multicore"));
    QVERIFY(!text.contains("RedundantArray") && !text.contains("RedundantSecondArray"));
    QVERIFY(text.indexOf("apply GpuTransform") < text.indexOf("apply ExpandLibraryNode"));
    auto cpu = dcw({"run", model, "--random", "4", "--outputs", dir.filePath("cpu")});
    auto gpu = dcw({"run", model, "--random", "4", "--outputs", dir.filePath("gpu"), "--script", script, "--target", "cuda-sim"});
    QVERIFY2(cpu.code == 0 && gpu.code == 0, qPrintable(cpu.err + gpu.err));
    QVERIFY2(!gpu.err.contains("GpuTransform moved"), qPrintable(gpu.err)); // the script moved it already
    const double d = maxAbsDiff(readFloats(dir.filePath("cpu/output_0.pb")), readFloats(dir.filePath("gpu/output_0.pb")));
    QVERIFY2(d <= 1e-4, qPrintable(QString("max abs diff %1").arg(d)));
    auto f = dcw({"optimize", model, "--target", "fpga-sim"});
    QCOMPARE(f.code, 2);
    QVERIFY2(f.err.contains("--target fpga-sim is not auto-optimized"), qPrintable(f.err));
    QVERIFY2(f.err.contains("applied by hand or by script"), qPrintable(f.err)); // the target's own reason
    auto u = dcw({"optimize", model, "--target", "tpu"});
    QCOMPARE(u.code, 2);
    QVERIFY2(u.err.contains("tpu not in") && u.err.contains("cuda-sim"), qPrintable(u.err)); // the targets named
  }

  // `dcw optimize --layout blocked8`: one BlockedLayout step for the state, in the script; the optimized
  // model computes what the model does; an unknown layout is refused by name.
  void optimizeWithChannelsInBlocks() {
    QTemporaryDir dir;
    const QString model = testpaths::qsource("/tests/data/transforms/controlflow_graph/channels_last_block.onnx");
    const QString script = dir.filePath("blocked.dcws");
    auto o = dcw({"optimize", model, "--layout", "blocked8", "--script-out", script});
    QVERIFY2(o.code == 0, qPrintable(o.err));
    const QString text = QString::fromUtf8(readAll(script));
    QCOMPARE(text.count("apply BlockedLayout "), 1);
    QVERIFY2(text.contains(" block=8\n"), qPrintable(text));
    auto plain = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("plain")});
    auto blocked = dcw({"run", model, "--random", "3", "--outputs", dir.filePath("blocked"), "--script", script});
    QVERIFY2(plain.code == 0 && blocked.code == 0, qPrintable(plain.err + blocked.err));
    for (const char* out : {"output_0.pb", "output_1.pb"}) {
      const double d = maxAbsDiff(readFloats(dir.filePath(QString("plain/") + out)), readFloats(dir.filePath(QString("blocked/") + out)));
      QVERIFY2(d <= 1e-4, qPrintable(QString("%1: max abs diff %2").arg(out).arg(d)));
    }
    auto bad = dcw({"optimize", model, "--layout", "nhwc"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--layout"), qPrintable(bad.err));
  }

  void optimizeThenApplyIsByteIdentical() {
    QTemporaryDir dir;
    QString opt = dir.filePath("opt.dcw.json"), script = dir.filePath("opt.dcws"), rep = dir.filePath("rep.dcw.json");
    auto o = dcw({"optimize", kExample, "-o", opt, "--script-out", script});
    QVERIFY2(o.code == 0, qPrintable(o.err));
    QVERIFY2(o.err.contains("auto-optimize: ") && o.err.contains(" ExpandLibraryNode"), qPrintable(o.err));
    QString text = QString::fromUtf8(readAll(script));
    QVERIFY2(text.startsWith("# DCW script") && text.contains("\ndcw-script 1\n") && text.contains("\nmodel " + kExample + " sha256="),
             qPrintable(text));
    int steps = 0;
    for (auto& l : lines(text)) steps += l.startsWith("apply ") || l.startsWith("set ");
    QVERIFY(text.count("apply ExpandLibraryNode ") >= 10); // fusions before expansion may merge ops
    QVERIFY(text.contains("implementation=pure"));

    auto a = dcw({"apply", kExample, "--script", script, "-o", rep});
    QVERIFY2(a.code == 0, qPrintable(a.err));
    QVERIFY2(!a.err.contains("warning"), qPrintable(a.err));
    QByteArray optBytes = readAll(opt);
    QVERIFY(optBytes.size() > 1000);
    QVERIFY(optBytes == readAll(rep));
    // Without -o: a summary.
    auto s = dcw({"apply", kExample, "--script", script});
    QVERIFY2(s.code == 0, qPrintable(s.err));
    QVERIFY2(s.out.startsWith(QString("applied %1 steps; the model has ").arg(steps)), qPrintable(s.out));
    // optimize with neither -o nor --script-out prints the script.
    auto p = dcw({"optimize", kExample});
    QVERIFY2(p.code == 0, qPrintable(p.err));
    QCOMPARE(p.out, text);
    // A script recorded on another file warns, and still replays where it fits.
    QString converted = dir.filePath("tiny.dcw.json");
    QCOMPARE(dcw({"convert", kExample, "-o", converted}).code, 0);
    auto w = dcw({"apply", converted, "--script", script, "-o", dir.filePath("w.dcw.json")});
    QVERIFY2(w.code == 0, qPrintable(w.err));
    QVERIFY2(w.err.startsWith("warning: " + script + ": was recorded on a different file (sha256 "), qPrintable(w.err));
  }

  void badScriptExits2WithoutOutput() {
    QTemporaryDir dir;
    QString script = dir.filePath("bad.dcws"), out = dir.filePath("out.dcw.json");
    QVERIFY(writeAll(script, "dcw-script 1\nmodel tiny_resnet.onnx\n"
                             "apply ExpandLibraryNode node=main/state0/stem.stem.0.Conv implementation=pure\n"
                             "apply MapTiling entry=main/state0/no_such_map tile_sizes=4\n"));
    auto r = dcw({"apply", kExample, "--script", script, "-o", out});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.startsWith("error: " + script + ":4: ") && r.err.contains("main/state0/no_such_map"), qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(!QFile::exists(out));
    // The same script on run, bench and codegen: exit 2 naming the line.
    for (QStringList args : {QStringList{"run", kExample, "--random", "1"}, QStringList{"bench", kExample, "--repeat", "1"},
                             QStringList{"codegen", kExample, "-o", dir.filePath("gen")}}) {
      auto b = dcw(args << "--script" << script);
      QCOMPARE(b.code, 2);
      QVERIFY2(b.err.contains("error: " + script + ":4: ") && b.err.contains("main/state0/no_such_map"), qPrintable(b.err));
    }
    // A line that does not parse, and a missing script.
    QVERIFY(writeAll(script, "dcw-script 1\nfrobnicate main\n"));
    auto p = dcw({"apply", kExample, "--script", script, "-o", out});
    QCOMPARE(p.code, 2);
    QVERIFY2(p.err.startsWith("error: " + script + ":2: unknown command 'frobnicate'"), qPrintable(p.err));
    auto m = dcw({"apply", kExample, "--script", dir.filePath("missing.dcws")});
    QCOMPARE(m.code, 2);
    QVERIFY(m.err.contains("missing.dcws: cannot be read"));
    QVERIFY(!QFile::exists(out));
  }

  void runBenchCodegenWithScript() {
    QTemporaryDir dir;
    // The auto-optimize script, and a hand-written one that tiles a convolution and sets a schedule.
    QString opt = dir.filePath("opt.dcws"), tile = dir.filePath("tile.dcws");
    QCOMPARE(dcw({"optimize", kExample, "--script-out", opt}).code, 0);
    QStringList maps = tileableMaps(kExample, "main/state0/block1.conv1.Conv/");
    QVERIFY(!maps.isEmpty());
    QVERIFY(writeAll(tile, ("dcw-script 1\nmodel " + kExample + "\n"
                            "apply ExpandLibraryNode node=main/state0/block1.conv1.Conv implementation=pure\n"
                            "apply MapTiling entry=" + maps.front() + " tile_sizes=4\n"
                            "set " + maps.front() + " schedule=sequential\n").toUtf8()));
    auto base = dcw({"run", kExample, "--random", "7", "--outputs", dir.filePath("base")});
    QVERIFY2(base.code == 0, qPrintable(base.err));
    auto ref = readFloats(dir.filePath("base/output_0.pb"));
    QCOMPARE(ref.size(), size_t(10));
    for (const QString& s : {opt, tile}) {
      QString outDir = dir.filePath(QFileInfo(s).baseName());
      auto r = dcw({"run", kExample, "--random", "7", "--outputs", outDir, "--script", s});
      QVERIFY2(r.code == 0, qPrintable(r.err));
      QCOMPARE(r.out, base.out);
      QVERIFY(readAll(dir.filePath("base/input_0.pb")) == readAll(outDir + "/input_0.pb")); // same inputs
      double d = maxAbsDiff(ref, readFloats(outDir + "/output_0.pb"));
      QVERIFY2(d <= 1e-5, qPrintable(QString("%1: max abs diff %2").arg(s).arg(d)));

      auto b = dcw({"bench", kExample, "--warmup", "1", "--repeat", "3", "--json", "--script", s});
      QVERIFY2(b.code == 0, qPrintable(b.err));
      QVERIFY(QJsonDocument::fromJson(b.out.toUtf8()).object()["median_ms"].toDouble() > 0);

      QString gen = outDir + "_gen";
      auto g = dcw({"codegen", kExample, "-o", gen, "--script", s});
      QVERIFY2(g.code == 0, qPrintable(g.err));
      QVERIFY(readAll(gen + "/program.cpp").contains("dcw_program"));
    }
    // The tiled map shows in the generated code.
    QVERIFY(readAll(dir.filePath("tile_gen/program.cpp")).contains(maps.front().toUtf8() + "_tiles"));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_Cli.moc"
