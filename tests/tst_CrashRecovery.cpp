// No lost work when the app dies: the REAL dcw-gui (testpaths::gui(), offscreen) replays a long script as
// history steps, reporting each step that reached the disk (`--print-autosaves`), and is killed with
// SIGKILL in the middle — right after the k-th reported step, or at a random moment. Each time, the
// autosave left behind is read the way the next start reads it (MainWindow::recoverableSessions and
// recoveryProblem, then loadProject + restoreProject onto the model): it must be a whole project
// whose steps are a prefix of the script holding at least every reported step. Then dcw-gui is
// started again with `--recover` and must reopen exactly those steps. An autosave that cannot be read
// is reported by that start and left on disk.
//
// Isolation: the child gets HOME and the XDG folders inside a QTemporaryDir; this process uses
// QStandardPaths' test mode with HOME pointing at the same folder, so both see one autosave folder
// and neither touches the user's.
#include "support/TestPaths.h"
#include "app/gui/MainWindow.h"
#include "core/edit/History.h"
#include "core/io/ModelFile.h"
#include "core/support/AtomicFile.h"
#include "transforms/Project.h"
#include "transforms/Script.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <optional>
#include <sstream>

using namespace dcw;
using gui::MainWindow;

namespace {

const QString kModel = testpaths::qsource("/resources/examples/tiny_resnet.onnx");
const QString kExampleScript = testpaths::qsource("/resources/examples/tiny_resnet_tuned.dcws");
constexpr int kRenames = 60; // after the example's 4 steps: a session long enough to be killed mid-way

// The script lines of a command, as a project stores them (comments dropped).
std::vector<std::string> linesOf(const std::string& scriptLine) {
  std::vector<std::string> out;
  std::stringstream ss(scriptLine);
  for (std::string l; std::getline(ss, l);)
    if (!l.empty() && l[0] != '#') out.push_back(l);
  return out;
}

// One run of dcw-gui, read line by line from its stderr while it runs.
class App {
public:
  App(const QString& home, const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HOME", home);
    env.insert("XDG_DATA_HOME", home + "/.qttest/share");
    env.insert("XDG_CONFIG_HOME", home + "/.qttest/config");
    env.insert("XDG_CACHE_HOME", home + "/.qttest/cache");
    env.insert("DCW_CACHE_DIR", QString::fromStdString(testpaths::kernelCache()));
    env.insert("QT_QPA_PLATFORM", "offscreen");
    p_.setProcessEnvironment(env);
    p_.setReadChannel(QProcess::StandardError);
    p_.start(testpaths::gui(), args);
  }
  ~App() {
    if (p_.state() != QProcess::NotRunning) {
      ::kill(pid_t(p_.processId()), SIGKILL);
      p_.waitForFinished(10000);
    }
  }
  bool started() { return p_.waitForStarted(30000); }
  // The next stderr line (without the newline), or nothing after `timeoutMs` or when the app ended.
  std::optional<QString> nextLine(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (!p_.canReadLine()) {
      if (p_.state() == QProcess::NotRunning || deadline.hasExpired()) return std::nullopt;
      p_.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime())));
    }
    QString line = QString::fromUtf8(p_.readLine()).trimmed();
    log_ << line;
    return line;
  }
  // The next line that starts with `prefix` (other output, e.g. Qt's warnings, is skipped).
  QString lineStartingWith(const QString& prefix, int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while (auto line = nextLine(int(std::max<qint64>(1, deadline.remainingTime()))))
      if (line->startsWith(prefix)) return *line;
    return QStringLiteral("<no line starting with '%1'; stderr:\n%2>").arg(prefix, log());
  }
  // A real SIGKILL: no handler, no cleanup, no chance to finish the current step.
  void killNow() {
    QCOMPARE(::kill(pid_t(p_.processId()), SIGKILL), 0);
    QVERIFY(p_.waitForFinished(30000));
    QCOMPARE(p_.exitStatus(), QProcess::CrashExit);
  }
  QString log() const { return log_.join('\n'); }

private:
  QProcess p_;
  QStringList log_;
};

// "autosaved: steps=N position=P file=F" → N, or -1 for any other line.
int autosavedSteps(const QString& line) {
  static const QRegularExpression re(QStringLiteral("^autosaved: steps=(\\d+) position=(\\d+) file=(.+)$"));
  auto m = re.match(line);
  return m.hasMatch() ? m.captured(1).toInt() : -1;
}

} // namespace

class TestCrashRecovery : public QObject {
  Q_OBJECT

  QTemporaryDir home_;
  QString script_;
  std::vector<std::vector<std::string>> expected_; // each script step's lines, as the app records them
  int killedMidway_ = 0;

  QString autosaveDir() const { return home_.path() + "/.qttest/share/DCW/dcw-gui/autosave"; }

  void clearAutosaves() { QDir(autosaveDir()).removeRecursively(); }

  // What the next start would offer: exactly one autosave, readable, a prefix of the script with at
  // least `reported` steps, at its last step; it replays onto the model. Returns its step count.
  size_t checkRecoverable(int reported) {
    const QStringList sessions = MainWindow::recoverableSessions();
    if (reported == 0 && sessions.isEmpty()) return 0; // killed before the first step reached the disk
    [&] { QCOMPARE(sessions.size(), qsizetype(1)); }();
    if (sessions.size() != 1) return 0;
    const QString file = sessions.front();
    const QString problem = MainWindow::recoveryProblem(file);
    [&] { QVERIFY2(problem.isEmpty(), qPrintable(problem)); }();
    auto p = transforms::loadProject(file.toStdString());
    if (!p) return 0;
    [&] {
      QVERIFY2(p->steps.size() >= size_t(reported),
               qPrintable(QStringLiteral("the autosave has %1 steps, %2 were reported saved").arg(p->steps.size()).arg(reported)));
      QVERIFY(p->steps.size() <= expected_.size());
      QCOMPARE(p->position, p->steps.size());
      for (size_t i = 0; i < p->steps.size(); ++i) QCOMPARE(p->steps[i], expected_[i]);
    }();
    auto model = io::loadModel(p->model);
    if (!model) return 0;
    edit::History history(*model->sdfg);
    auto restored = transforms::restoreProject(*p, history, file.toStdString());
    [&] {
      QVERIFY2(restored, restored ? "" : restored.error().str().c_str());
      QCOMPARE(history.position(), p->steps.size());
    }();
    return p->steps.size();
  }

private slots:
  void initTestCase() {
    QVERIFY(home_.isValid());
    // This process reads the autosave folder the app uses, under the same temporary home.
    qputenv("HOME", home_.path().toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DCW"));
    QCoreApplication::setApplicationName(QStringLiteral("dcw-gui"));
    QVERIFY(QFileInfo(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/autosave").absoluteFilePath()
                .startsWith(home_.path()));

    // The example script, then a chain of renames: every step valid, each one a history step.
    QFile example(kExampleScript);
    QVERIFY(example.open(QIODevice::ReadOnly));
    QByteArray text = example.readAll();
    QString relu = QStringLiteral("relu_1");
    for (int i = 2; i < 2 + kRenames; ++i) {
      text += QStringLiteral("rename main/state0/%1 relu_%2\n").arg(relu).arg(i).toUtf8();
      relu = QStringLiteral("relu_%1").arg(i);
    }
    script_ = home_.filePath("session.dcws");
    QFile out(script_);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(text);
    out.close();
    auto parsed = transforms::readScript(script_.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.error().str().c_str());
    for (auto& step : parsed->steps) expected_.push_back(linesOf(step.command->scriptLine()));
    QCOMPARE(expected_.size(), size_t(4 + kRenames));
  }

  // Killed right after the app reported step k as saved: the autosave holds at least k steps.
  void killAfterReportedStep_data() {
    QTest::addColumn<int>("k");
    for (int k : {1, 3, 10, 25, 40}) QTest::addRow("after step %d", k) << k;
  }

  void killAfterReportedStep() {
    QFETCH(int, k);
    clearAutosaves();
    int reported = 0;
    {
      App app(home_.path(), {"--print-autosaves", "--script", script_, kModel});
      QVERIFY(app.started());
      while (reported < k) {
        auto line = app.nextLine(120000);
        QVERIFY2(line, qPrintable("no more output; stderr so far:\n" + app.log()));
        reported = std::max(reported, autosavedSteps(*line));
      }
      app.killNow();
    }
    const size_t saved = checkRecoverable(reported);
    if (QTest::currentTestFailed()) return;
    if (saved < expected_.size()) ++killedMidway_;
    qInfo("reported %d steps saved; the autosave holds %zu of %zu", reported, saved, expected_.size());
  }

  // Killed at a random moment (loading, replaying, idle): never a torn autosave, never a lost step.
  void killAtRandomMoments() {
    auto* random = QRandomGenerator::global();
    for (int round = 0; round < 6; ++round) {
      clearAutosaves();
      int reported = 0;
      const int delayMs = int(random->bounded(300, 4000));
      {
        App app(home_.path(), {"--print-autosaves", "--script", script_, kModel});
        QVERIFY(app.started());
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < delayMs)
          if (auto line = app.nextLine(int(std::max<qint64>(1, delayMs - t.elapsed())))) reported = std::max(reported, autosavedSteps(*line));
        app.killNow();
      }
      const size_t saved = checkRecoverable(reported);
      if (QTest::currentTestFailed()) return;
      if (saved > 0 && saved < expected_.size()) ++killedMidway_;
      qInfo("killed after %d ms: %d steps reported, the autosave holds %zu", delayMs, reported, saved);
    }
    // The kills must have landed inside sessions, or this test shows nothing.
    QVERIFY2(killedMidway_ >= 1, "every kill came after the whole script had been saved; make the session longer");
  }

  // The next start of the real app reopens the autosave of a killed session, every step of it.
  void restartOffersTheKilledSession() {
    clearAutosaves();
    int reported = 0;
    {
      App app(home_.path(), {"--print-autosaves", "--script", script_, kModel});
      QVERIFY(app.started());
      while (reported < 20) {
        auto line = app.nextLine(120000);
        QVERIFY2(line, qPrintable(app.log()));
        reported = std::max(reported, autosavedSteps(*line));
      }
      app.killNow();
    }
    const size_t saved = checkRecoverable(reported);
    QVERIFY(saved >= 20);
    const QString autosave = MainWindow::recoverableSessions().value(0);

    App again(home_.path(), {"--recover", "--print-autosaves"});
    QVERIFY(again.started());
    QCOMPARE(again.lineStartingWith("recovering: ", 120000), "recovering: " + autosave);
    // Reopened and restored: the window autosaves the restored session, all of it, at its last step.
    QCOMPARE(again.lineStartingWith("autosaved: ", 120000), QStringLiteral("autosaved: steps=%1 position=%1 file=%2").arg(saved).arg(autosave));
    // Nothing else is left in the folder: no temporary of a killed write survives the next one.
    const QString name = QFileInfo(autosave).fileName();
    QCOMPARE(QDir(autosaveDir()).entryList(QDir::Files | QDir::Hidden, QDir::Name), (QStringList{name, name + "~"}));
  }

  // An autosave the next start cannot read is reported on stderr and stays where it is.
  void unreadableAutosaveIsReportedAndKept() {
    clearAutosaves();
    QVERIFY(QDir().mkpath(autosaveDir()));
    const QString torn = autosaveDir() + "/tiny_resnet-0123456789ab.dcwproj";
    const QByteArray bytes = "{\"format\": \"dcwproj\", \"version\": 1, \"model\": \"/x.onnx\", \"pos";
    QVERIFY(writeFileAtomically(torn.toStdString(), bytes.toStdString()));
    const QString newer = autosaveDir() + "/other-ba9876543210.dcwproj";
    QVERIFY(writeFileAtomically(newer.toStdString(), "{\"format\": \"dcwproj\", \"version\": 2}"));
    QCOMPARE(MainWindow::recoveryProblem(torn),
             torn + ": is corrupt: cut short after 60 bytes; no previous copy is kept beside it");
    {
      App app(home_.path(), {"--recover"});
      QVERIFY(app.started());
      QStringList warnings;
      for (int i = 0; i < 2; ++i) warnings << app.lineStartingWith("warning: cannot recover ", 60000);
      warnings.sort();
      QStringList want{"warning: cannot recover " + MainWindow::recoveryProblem(torn),
                       "warning: cannot recover " + MainWindow::recoveryProblem(newer)};
      want.sort();
      QCOMPARE(warnings, want);
      QVERIFY(want.join('\n').contains("was written by a newer DCW (format version 2; this one reads 1)"));
      app.killNow();
    }
    QVERIFY(QFile::exists(torn));
    QVERIFY(QFile::exists(newer));
  }
};

QTEST_MAIN(TestCrashRecovery)
#include "tst_CrashRecovery.moc"
