// Tests of the one atomic-write helper (core/support/AtomicFile.h): a file is created and replaced
// whole, keeps its permissions, leaves no temporary behind, keeps the previous version as `PATH~` when
// asked; two writers racing on one file never tear it (each has its own temporary name) while a
// reader only ever sees a whole version; failures name the file and the reason, exactly.
#include "core/support/AtomicFile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

using namespace dcw;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

QStringList entries(const QString& dir) {
  return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

} // namespace

class TestAtomicFile : public QObject {
  Q_OBJECT

private slots:
  void createsAndReplacesLeavingNothingElse() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("a.txt").toStdString();
    QVERIFY(writeFileAtomically(path, "first"));
    QCOMPARE(readAll(dir.filePath("a.txt")), QByteArray("first"));
    QVERIFY(writeFileAtomically(path, "second, longer"));
    QCOMPARE(readAll(dir.filePath("a.txt")), QByteArray("second, longer"));
    QVERIFY(writeFileAtomically(path, ""));
    QCOMPARE(readAll(dir.filePath("a.txt")), QByteArray());
    QCOMPARE(entries(dir.path()), QStringList{"a.txt"}); // no temporary, no backup unless asked
  }

  // A writer killed between creating its temporary and the rename leaves it behind; the next write
  // of that file removes it (its pid is gone), and leaves a live writer's temporary alone.
  void killedWritersTemporariesAreRemoved() {
    QTemporaryDir dir;
    const QString dead = dir.filePath(".s.json.2147483000-0-1.tmp"), live = dir.filePath(QStringLiteral(".s.json.%1-9-9.tmp").arg(::getpid()));
    for (const QString& f : {dead, live}) {
      QFile t(f);
      QVERIFY(t.open(QIODevice::WriteOnly));
    }
    QVERIFY(writeFileAtomically(dir.filePath("s.json").toStdString(), "{}"));
    QVERIFY(!QFile::exists(dead));
    QVERIFY(QFile::exists(live));
  }

  void replacedFileKeepsItsPermissions() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("p.txt").toStdString();
    QVERIFY(writeFileAtomically(path, "x"));
    QCOMPARE(::chmod(path.c_str(), 0640), 0);
    QVERIFY(writeFileAtomically(path, "y"));
    struct stat st {};
    QCOMPARE(::stat(path.c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), 0640);
  }

  void keepsThePreviousVersionWhenAsked() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("k.dcwproj").toStdString();
    const AtomicWriteOptions keep{true};
    QCOMPARE(backupPathOf(path), path + "~");
    QVERIFY(writeFileAtomically(path, "v1", keep)); // nothing to keep yet
    QVERIFY(!QFile::exists(dir.filePath("k.dcwproj~")));
    QVERIFY(writeFileAtomically(path, "v2", keep));
    QCOMPARE(readAll(dir.filePath("k.dcwproj~")), QByteArray("v1"));
    QVERIFY(writeFileAtomically(path, "v3", keep));
    QCOMPARE(readAll(dir.filePath("k.dcwproj")), QByteArray("v3"));
    QCOMPARE(readAll(dir.filePath("k.dcwproj~")), QByteArray("v2"));
    QVERIFY(writeFileAtomically(path, "v4")); // without the option the kept copy stays as it was
    QCOMPARE(readAll(dir.filePath("k.dcwproj~")), QByteArray("v2"));
    QCOMPARE(entries(dir.path()), (QStringList{"k.dcwproj", "k.dcwproj~"}));
  }

  // Two writers save the same file over and over while a reader reads it: with one fixed temporary
  // name the writers would write into the same temporary and rename each other's half-written file.
  void racingWritersNeverTearTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("race.json").toStdString();
    const std::string a(200000, 'a'), b(300000, 'b');
    QVERIFY(writeFileAtomically(path, a));
    std::atomic<bool> stop{false};
    std::atomic<int> failures{0}, torn{0}, reads{0};
    auto writer = [&](const std::string& text) {
      for (int i = 0; i < 150; ++i)
        if (!writeFileAtomically(path, text, AtomicWriteOptions{i % 2 == 0})) ++failures;
    };
    std::thread reader([&] {
      while (!stop) {
        QByteArray got = readAll(QString::fromStdString(path));
        ++reads;
        if (!(got == QByteArray::fromStdString(a) || got == QByteArray::fromStdString(b))) ++torn;
      }
    });
    std::thread w1(writer, a), w2(writer, b);
    w1.join();
    w2.join();
    stop = true;
    reader.join();
    QCOMPARE(failures.load(), 0);
    QCOMPARE(torn.load(), 0);
    QVERIFY(reads.load() > 0);
    QCOMPARE(entries(dir.path()), (QStringList{"race.json", "race.json~"}));
  }

  void failuresNameTheFileAndTheReason() {
    QTemporaryDir dir;
    const std::string missing = dir.filePath("no/such/folder/x.txt").toStdString();
    auto r = writeFileAtomically(missing, "x");
    QVERIFY(!r);
    QCOMPARE(QString::fromStdString(r.error().str()),
             QString::fromStdString(missing) + ": cannot be written: No such file or directory; check that the folder exists and is writable");

    QVERIFY(QDir(dir.path()).mkdir("folder"));
    const std::string folder = dir.filePath("folder").toStdString();
    auto f = writeFileAtomically(folder, "x");
    QVERIFY(!f);
    QCOMPARE(QString::fromStdString(f.error().str()), QString::fromStdString(folder) + ": cannot be written: it is a folder; choose a file name");
  }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_AtomicFile.moc"
