// Tests of `dcw profile` as a user runs it: a report keyed by element path and a Chrome trace from the
// tiny ResNet example, --instrument kinds and paths, library calls (oneDNN) timed as library nodes,
// --script, --compare of two reports (table and totals), and the one-line errors for bad input (no report path, an unknown element path, a file
// that is not a report).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "support/CliRunner.h"

namespace {

using clisupport::dcw;
using clisupport::kExample;
using clisupport::readJson;

} // namespace

class TestProfileCli : public QObject {
  Q_OBJECT

private slots:
  void reportAndTrace() {
    QTemporaryDir dir;
    QString report = dir.filePath("a.json"), trace = dir.filePath("a.trace.json");
    auto r = dcw({"profile", kExample, "--repeat", "3", "--report", report, "--trace", trace});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("profiled"));
    QJsonObject j = readJson(report);
    QCOMPARE(j["format"].toString(), QString("dcw-profile"));
    QCOMPARE(j["repeat"].toInt(), 3);
    QJsonObject els = j["elements"].toObject();
    QVERIFY(els.contains("main"));
    QVERIFY(els.contains("main/state0"));
    int nested = 0;
    for (auto it = els.begin(); it != els.end(); ++it) {
      QJsonObject e = it.value().toObject();
      QVERIFY(e["time_ms"].toObject().contains("median"));
      QVERIFY(e["calls"].toDouble() >= 1);
      nested += e["kind"].toString() == "nested_sdfg";
    }
    QVERIFY(nested >= 10);
    QVERIFY(j["machine"].toObject()["peak_gb_per_s"].toDouble() > 0);
    QJsonObject counters = j["counters"].toObject();
    QVERIFY(counters["kind"].toString() == "hardware" ||
            counters["unavailable"].toString().startsWith("hardware counters unavailable: "));
    if (counters["kind"].toString() != "hardware") QVERIFY(r.err.contains("hardware counters unavailable: "));
    QJsonObject t = readJson(trace);
    QJsonArray events = t["traceEvents"].toArray();
    QVERIFY(events.size() > 10);
    int complete = 0;
    for (const auto& v : events) {
      QJsonObject e = v.toObject();
      if (e["ph"].toString() != "X") continue;
      ++complete;
      QVERIFY(els.contains(e["args"].toObject()["path"].toString()));
    }
    QVERIFY(complete > 10);
    // Module groups by address: each the sum of its top-level ops' medians; the top ones on stdout.
    QJsonObject modules = j["modules"].toObject();
    QCOMPARE(modules.keys(), QStringList({"main/state0/module:block1", "main/state0/module:block2", "main/state0/module:block2/downsample",
                                          "main/state0/module:stem"}));
    QJsonObject block1 = modules["main/state0/module:block1"].toObject();
    QCOMPARE(block1["ops"].toInt(), 7);
    QCOMPARE(block1["timed_ops"].toInt(), 7);
    double ops = 0;
    for (auto it = els.begin(); it != els.end(); ++it)
      if (it.key().startsWith("main/state0/block1.") && !it.key().mid(12).contains('/')) ops += it.value().toObject()["time_ms"].toObject()["median"].toDouble();
    QVERIFY2(std::abs(block1["time_ms"].toDouble() - ops) < 1e-9, qPrintable(QString::number(ops)));
    QVERIFY2(r.out.contains(QRegularExpression("\n  main/state0/module:block1 +[0-9.]+ ms +[0-9.]+%  \\(7 ops\\)\n")), qPrintable(r.out));
    QVERIFY(!r.out.contains("module:block2/downsample")); // only the top groups are printed
  }

  void instrumentKindsAndPathsThenCompare() {
    QTemporaryDir dir;
    QString a = dir.filePath("a.json"), b = dir.filePath("b.json");
    auto r = dcw({"profile", kExample, "--repeat", "3", "--instrument", "nodes", "--no-peaks", "--report", a});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonObject els = readJson(a)["elements"].toObject();
    for (auto it = els.begin(); it != els.end(); ++it) {
      QString kind = it.value().toObject()["kind"].toString();
      QVERIFY2(kind == "model" || kind == "nested_sdfg", qPrintable(it.key()));
    }
    QString op = "main/state0/stem.stem.0.Conv";
    QVERIFY(els.contains(op));
    r = dcw({"profile", kExample, "--repeat", "3", "--instrument", op, "main/state0", "--no-peaks", "--report", b});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(readJson(b)["elements"].toObject().size(), 3);

    r = dcw({"profile", "--compare", a, b});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains(op));
    QVERIFY(r.out.contains("total (wall, median)"));
    QVERIFY(r.out.contains("2 elements in both"));
  }

  // Library calls are timed as library nodes: with oneDNN, each call's C++ tasklet has its own row
  // (inside its op's nested SDFG here; at the top level once InlineNestedSDFG has run), with the FLOPs
  // its expansion declares.
  void libraryCallsAreTimed() {
    QTemporaryDir dir;
    QString a = dir.filePath("a.json");
    auto r = dcw({"profile", kExample, "--prefer", "onednn", "--repeat", "3", "--instrument", "nodes", "--no-peaks",
                  "--report", a});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonObject els = readJson(a)["elements"].toObject();
    int calls = 0;
    for (auto it = els.begin(); it != els.end(); ++it) {
      QJsonObject e = it.value().toObject();
      if (e["kind"].toString() != "tasklet") continue;
      ++calls;
      QVERIFY2(it.key().section('/', -1).startsWith("onednn_"), qPrintable(it.key()));
      QVERIFY2(els.contains(it.key().section('/', 0, -3)), qPrintable(it.key())); // its op, timed too
      QVERIFY2(e["flops"].toDouble() > 0, qPrintable(it.key()));
      QVERIFY2(e["time_ms"].toObject()["median"].toDouble() > 0, qPrintable(it.key()));
    }
    QVERIFY2(calls >= 15, qPrintable(QString::number(calls)));
    QVERIFY(els.contains("main/state0/stem.stem.0.Conv/compute/onednn_convolution"));
  }

  // Profiles of the same model under two histories (as imported, and after `dcw optimize`'s script)
  // compare by path: folded batch norms are only in the first.
  void scriptIsReplayedAndHistoriesCompare() {
    QTemporaryDir dir;
    QString script = dir.filePath("opt.dcws"), a = dir.filePath("plain.json"), b = dir.filePath("optimized.json");
    auto o = dcw({"optimize", kExample, "--script-out", script});
    QVERIFY2(o.code == 0, qPrintable(o.err));
    auto r = dcw({"profile", kExample, "--repeat", "3", "--instrument", "nodes", "--no-peaks", "--report", a});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = dcw({"profile", kExample, "--repeat", "3", "--instrument", "nodes", "--no-peaks", "--script", script, "--report", b});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonObject jb = readJson(b);
    QCOMPARE(jb["script"].toString(), script);
    QVERIFY(!jb["elements"].toObject().contains("main/state0/stem.stem.1.BatchNormalization"));
    QVERIFY(readJson(a)["elements"].toObject().contains("main/state0/stem.stem.1.BatchNormalization"));
    r = dcw({"profile", "--compare", a, b, "--top", "5"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("total (wall, median)"));
    QRegularExpression only("(\\d+) only in A");
    auto m = only.match(r.out);
    QVERIFY2(m.hasMatch() && m.captured(1).toInt() >= 1, qPrintable(r.out));
    // The module groups compared by address (their ops changed, their addresses did not).
    QVERIFY2(r.out.contains("\nmodule group ") && r.out.contains("\nmain/state0/module:block1 "), qPrintable(r.out));
  }

  void badInput() {
    QTemporaryDir dir;
    auto r = dcw({"profile", kExample});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.startsWith("error: ") && r.err.contains("--report"));
    r = dcw({"profile", kExample, "--instrument", "main/nowhere", "--report", dir.filePath("x.json")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("main/nowhere") && r.err.contains("names no element"), qPrintable(r.err));
    QString notReport = dir.filePath("n.json");
    {
      QFile f(notReport);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("{\"hello\": 1}");
    }
    r = dcw({"profile", "--compare", notReport, notReport});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("n.json") && r.err.contains("not a DCW profile report"), qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);
  }
};

QTEST_GUILESS_MAIN(TestProfileCli)
#include "tst_ProfileCli.moc"
