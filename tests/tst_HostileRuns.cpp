// tst_HostileRuns: generated code that misbehaves never takes its caller down, and tensors that cannot
// fit are refused before anything is allocated. Models whose C++ tasklet writes out of bounds, divides
// an integer by zero, loops forever or allocates 100 GiB run through `dcw run` (a worker process by
// default: exit 2, one `error:` line naming the signal or limit and the tasklet), through `dcw profile`
// and through the app's Verify and Profile (the window stays up with its history and reports the
// same; Cancel kills an endless loop at once); a model with a 100,000 × 100,000 tensor is refused with
// the number, from random inputs and from a run's outputs.
#include "support/TestPaths.h"
#include "app/gui/MainWindow.h"
#include "codegen/run/Executor.h"
#include "codegen/run/RandomInputs.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/serialize/JsonFormat.h"
#include "support/CliRunner.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace dcw;

namespace {

// X float32[4] -> one C++ tasklet running `code` -> Y float32[4].
QString writeModel(const QString& dir, const QString& name, const std::string& code) {
  expansions::SdfgBuilder b("main");
  ir::Sdfg& s = b.sdfg();
  s.addArray("X", ir::DType::Float32, {sym::Expr(4)});
  s.addArray("Y", ir::DType::Float32, {sym::Expr(4)});
  s.inputs = {"X"};
  s.outputs = {"Y"};
  b.cppTasklet("broken", {"X"}, code, {"Y"}, {}, std::nullopt);
  auto sdfg = b.finish();
  if (!sdfg) qFatal("%s", sdfg.error().str().c_str());
  (*sdfg)->reassignIds();
  const QString path = dir + "/" + name + ".dcw.json";
  if (auto r = serialize::saveFile(**sdfg, path.toStdString()); !r) qFatal("%s", r.error().str().c_str());
  return path;
}

struct Case {
  const char* name;
  const char* code;
  const char* expected;
};

const Case kCases[] = {
    {"out_of_bounds_write", "for (int64_t k = 0; k < (int64_t(1) << 40); k += 4096) Y[k] = X[0];", "SIGSEGV"},
    {"integer_division_by_zero", "volatile int zero = 0; Y[0] = float(int(X[0] + 1) / zero);", "SIGFPE"},
    {"endless_loop", "for (volatile int64_t k = 0;; ++k) {}", "time limit of 2 s"},
    {"allocation_100_gib",
     "char* p = static_cast<char*>(std::malloc(size_t(100) << 30)); if (!p) throw std::runtime_error(\"cannot allocate 100 GiB\");"
     " std::memset(p, 1, size_t(100) << 30); Y[0] = p[7]; std::free(p);",
     "cannot allocate 100 GiB"},
};

// Opens `model` in a window that shows no dialogs; false when it did not load within a minute.
bool openQuietly(gui::MainWindow& w, const QString& model) {
  w.setShowsDialogs(false);
  QSignalSpy loaded(&w, &gui::MainWindow::modelLoaded);
  w.openFile(model);
  return loaded.wait(60000);
}

} // namespace

class TestHostileRuns : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DCW-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_HostileRuns"));
    QSettings().clear();
    qputenv("DCW_CACHE_DIR", testpaths::kernelCache().c_str());
  }

  void cliReportsAndSurvives_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("expected");
    for (auto& c : kCases) QTest::newRow(c.name) << writeModel(dir_.path(), c.name, c.code) << QString(c.expected);
  }
  void cliReportsAndSurvives() {
    QFETCH(QString, model);
    QFETCH(QString, expected);
    auto r = clisupport::dcw({"run", model, "--random", "1", "--time-limit", "2"}, 120000);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.startsWith("error: ") && r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(r.err.contains("main/compute/broken"), qPrintable(r.err)); // the element it happened in
  }

  void cliProfileReportsAndSurvives_data() { cliReportsAndSurvives_data(); }
  void cliProfileReportsAndSurvives() {
    QFETCH(QString, model);
    QFETCH(QString, expected);
    const QString report = dir_.path() + "/profile.json";
    auto r = clisupport::dcw({"profile", model, "--repeat", "1", "--no-peaks", "--time-limit", "2", "--report", report}, 120000);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.startsWith("error: ") && r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(r.err.contains("main/compute/broken"), qPrintable(r.err));
    QVERIFY(!QFile::exists(report));
  }

  void goodModelProfilesInTheWorker() {
    const QString model = writeModel(dir_.path(), "good_profiled", "for (int k = 0; k < 4; ++k) Y[k] = 2 * X[k];");
    const QString report = dir_.path() + "/good.json";
    auto r = clisupport::dcw({"profile", model, "--repeat", "3", "--no-peaks", "--report", report});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("worker process"), qPrintable(r.err)); // why there are no hardware counters
    QFile f(report);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray json = f.readAll();
    const QJsonObject elements = QJsonDocument::fromJson(json).object().value("elements").toObject();
    QVERIFY2(elements.contains("main/compute"), qPrintable(elements.keys().join(' '))); // the state holding the tasklet
    QVERIFY(json.contains("worker process"));                                        // memory of the worker
    auto in = clisupport::dcw({"profile", model, "--repeat", "3", "--no-peaks", "--in-process", "--report", report});
    QVERIFY2(in.code == 0, qPrintable(in.err));
    auto both = clisupport::dcw({"profile", model, "--in-process", "--time-limit", "1", "--report", report});
    QCOMPARE(both.code, 2);
    QVERIFY2(both.err.contains("--in-process"), qPrintable(both.err));
  }

  void goodModelRunsInTheWorker() {
    const QString model = writeModel(dir_.path(), "good", "for (int k = 0; k < 4; ++k) Y[k] = 2 * X[k];");
    auto r = clisupport::dcw({"run", model, "--random", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("Y: float32[4]"));
  }

  void appVerifyReportsAndStaysUp_data() { cliReportsAndSurvives_data(); }
  void appVerifyReportsAndStaysUp() {
    QFETCH(QString, model);
    QFETCH(QString, expected);
    if (expected.contains("time limit")) return; // the app has no time limit by default: see cancel below
    gui::MainWindow w;
    QVERIFY(openQuietly(w, model));
    QSignalSpy done(&w, &gui::MainWindow::verifyFinished);
    w.verify(0, 0);
    QVERIFY(done.wait(120000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const QString msg = done.at(0).at(2).toString();
    QVERIFY2(msg.contains(expected.left(7)) && msg.contains("main/compute/broken"), qPrintable(msg));
    QVERIFY(w.sdfg() != nullptr); // the window and its model are still there
  }

  void appVerifyCancelKillsAnEndlessLoop() {
    const QString model = writeModel(dir_.path(), "loop_for_cancel", "for (volatile int64_t k = 0;; ++k) {}");
    gui::MainWindow w;
    QVERIFY(openQuietly(w, model));
    QSignalSpy done(&w, &gui::MainWindow::verifyFinished);
    w.verify(0, 0);
    QTest::qWait(1500); // built and running by now (the build is cached)
    QElapsedTimer t;
    t.start();
    w.cancelVerify();
    QVERIFY(done.wait(30000));
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QVERIFY(w.sdfg() != nullptr);
  }

  void appProfileReportsAndStaysUp_data() { cliReportsAndSurvives_data(); }
  void appProfileReportsAndStaysUp() {
    QFETCH(QString, model);
    QFETCH(QString, expected);
    if (expected.contains("time limit")) return; // the app has no time limit by default: see cancel below
    gui::MainWindow w;
    QVERIFY(openQuietly(w, model));
    QSignalSpy done(&w, &gui::MainWindow::profileFinished);
    w.profile(1);
    QVERIFY(done.wait(120000));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    const QString msg = done.at(0).at(1).toString();
    QVERIFY2(msg.contains(expected.left(7)) && msg.contains("main/compute/broken"), qPrintable(msg));
    QVERIFY(w.sdfg() != nullptr);
    // The app goes on working: a second profile of the same model runs (and fails the same way).
    w.profile(1);
    QVERIFY(done.wait(120000));
    QCOMPARE(done.size(), 2);
  }

  void appProfileCancelKillsAnEndlessLoop() {
    const QString model = writeModel(dir_.path(), "loop_for_profile_cancel", "for (volatile int64_t k = 0;; ++k) {}");
    gui::MainWindow w;
    QVERIFY(openQuietly(w, model));
    QSignalSpy done(&w, &gui::MainWindow::profileFinished);
    QSignalSpy progress(&w, &gui::MainWindow::profileProgress);
    w.profile(1);
    // Running once the progress says so (the build, the peaks and the worker's start come first).
    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(0).toInt() >= 70, 120000);
    QTest::qWait(500);
    QElapsedTimer t;
    t.start();
    w.cancelProfile();
    QVERIFY(done.wait(30000));
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(done.at(0).at(0).toBool(), false);
    QCOMPARE(done.at(0).at(1).toString(), QStringLiteral("cancelled"));
    QVERIFY(w.sdfg() != nullptr);
  }

  void hugeRandomInputRefusedBeforeAllocation() {
    codegen::ProgramSignature sig;
    sig.args.push_back({"X", codegen::ProgramArg::Role::Input, ir::DType::Float32, {sym::Expr(100000), sym::Expr(100000)}});
    auto r = codegen::randomInputs(sig, 1);
    QVERIFY(!r);
    QVERIFY2(r.error().str().find("37.3 GiB needed") != std::string::npos, r.error().str().c_str());
    sig.args[0].shape = {sym::Expr(int64_t(1) << 40), sym::Expr(int64_t(1) << 40)};
    auto overflow = codegen::randomInputs(sig, 1);
    QVERIFY(!overflow);
    QVERIFY2(overflow.error().str().find("more than 2^62 bytes") != std::string::npos, overflow.error().str().c_str());
  }

  void hugeOutputRefusedBeforeAllocation() {
    expansions::SdfgBuilder b("main");
    ir::Sdfg& s = b.sdfg();
    s.addArray("X", ir::DType::Float32, {sym::Expr(1)});
    s.addArray("Y", ir::DType::Float32, {sym::Expr(100000), sym::Expr(100000)});
    s.inputs = {"X"};
    s.outputs = {"Y"};
    b.mappedTasklet("fill", expansions::fullRangeParams({100000, 100000}), {{"x", "X", "0"}}, "y = x", {{"y", "Y", "i0, i1", ""}});
    auto sdfg = b.finish();
    QVERIFY2(sdfg.ok(), sdfg.ok() ? "" : sdfg.error().str().c_str());
    (*sdfg)->reassignIds();
    auto ex = codegen::Executor::create(**sdfg);
    QVERIFY2(ex.ok(), ex.ok() ? "" : ex.error().str().c_str());
    auto in = codegen::randomInputs((*ex)->code().signature, 1);
    QVERIFY(in.ok());
    auto r = (*ex)->run(*in);
    QVERIFY(!r);
    QVERIFY2(r.error().str().find("37.3 GiB needed") != std::string::npos, r.error().str().c_str());
  }
};

QTEST_MAIN(TestHostileRuns)
#include "tst_HostileRuns.moc"
