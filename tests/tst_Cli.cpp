// Tests of the `dcw` command line as a user runs it: exit codes, the one-line error format on bad
// input, inspect (text and JSON), convert and the round trip through .dcw.json.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run dcw(const QStringList& args) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("DCW_CACHE_DIR", QStringLiteral(DCW_BINARY_DIR "/kernel-cache"));
  p.setProcessEnvironment(env);
  p.start(DCW_CLI, args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

const QString kExample = QStringLiteral(DCW_SOURCE_DIR "/resources/examples/tiny_resnet.onnx");
QString bad(const char* f) { return QStringLiteral(DCW_SOURCE_DIR "/tests/data/bad/") + f; }

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
    QVERIFY2(bench.code == 0, qPrintable(bench.err));
    auto j = QJsonDocument::fromJson(bench.out.toUtf8()).object();
    QVERIFY(j["median_ms"].toDouble() > 0 && j["min_ms"].toDouble() > 0);

    auto t = dcw({"test-onnx", "/usr/share/libonnx-testdata/data/node/test_relu", "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding"});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    QVERIFY2(t.out.endsWith("2 passed, 0 failed, 0 skipped\n"), qPrintable(t.out));
  }

  void runRefusals() {
    // An op without implementation: the error names the node and the op.
    auto u = dcw({"run", bad("unknown_domain.onnx"), "--random", "1"});
    QCOMPARE(u.code, 2);
    QVERIFY2(u.err.contains("com.example.custom::MyOp") && u.err.contains("main/state0/"), qPrintable(u.err));
    QCOMPARE(u.err.count('\n'), 1);
    // Inputs of the wrong dtype or shape: the error names the input.
    QTemporaryDir dir;
    QVERIFY(QFile::copy("/usr/share/libonnx-testdata/data/node/test_argmax_default_axis_example/test_data_set_0/input_0.pb",
                        dir.filePath("input_0.pb")));
    auto d = dcw({"run", kExample, "--inputs", dir.path()});
    QCOMPARE(d.code, 2);
    QVERIFY2(d.err.startsWith("error: input 'input': has "), qPrintable(d.err));
    auto n = dcw({"run", kExample});
    QCOMPARE(n.code, 2);
    QVERIFY(n.err.contains("--inputs DIR or --random SEED"));
  }

  void badInputOneLineExit2_data() {
    QTest::addColumn<QString>("file");
    for (const char* f : {"empty.onnx", "random_bytes.onnx", "truncated.onnx", "text.onnx", "missing_external/model.onnx",
                          "external_escape/model.onnx", "external_abs/model.onnx", "overflow_dims.onnx", "cycle.onnx",
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
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_Cli.moc"
