// Tests of the `.dcwproj` file (transforms/Project.h) as a place where work must not get lost: a save
// round-trips, keeps the version it replaces as `NAME.dcwproj~` (but never replaces a good kept copy
// with a corrupt one) and leaves no temporary behind; every refusal of a file that cannot be opened
// (unreadable, corrupt in each way, a newer format version) is checked by its exact message, with
// and without a good kept copy to name.
#include "core/support/AtomicFile.h"
#include "transforms/Project.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace dcw;
using transforms::Project;

namespace {

Project sample(size_t steps) {
  Project p;
  p.model = "/models/m.onnx";
  p.sha256 = "abc";
  for (size_t i = 0; i < steps; ++i) p.steps.push_back({"rename main/state0/n" + std::to_string(i) + " n" + std::to_string(i + 1)});
  p.position = steps;
  return p;
}

void writeRaw(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

QString refusal(const QString& file) {
  auto p = transforms::loadProject(file.toStdString());
  return p ? QStringLiteral("<loaded>") : QString::fromStdString(p.error().str());
}

const char* kNoCopy = "; no previous copy is kept beside it";

} // namespace

class TestProject : public QObject {
  Q_OBJECT

private slots:
  void saveRoundTripsAndKeepsThePreviousVersion() {
    QTemporaryDir dir;
    const QString file = dir.filePath("p.dcwproj");
    QVERIFY(transforms::saveProject(sample(1), file.toStdString()));
    QVERIFY(!QFile::exists(file + "~")); // nothing replaced, nothing kept
    QVERIFY(transforms::saveProject(sample(2), file.toStdString()));
    QVERIFY(transforms::saveProject(sample(3), file.toStdString()));
    auto now = transforms::loadProject(file.toStdString());
    QVERIFY2(now, now ? "" : now.error().str().c_str());
    QCOMPARE(now->steps, sample(3).steps);
    QCOMPARE(now->position, size_t(3));
    QCOMPARE(now->model, std::string("/models/m.onnx"));
    auto kept = transforms::loadProject((file + "~").toStdString());
    QVERIFY(kept);
    QCOMPARE(kept->steps, sample(2).steps);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden, QDir::Name), (QStringList{"p.dcwproj", "p.dcwproj~"}));
  }

  // A project torn or damaged outside DCW: opening it names the kept good copy; saving over it keeps
  // that good copy instead of replacing it with the damaged file.
  void corruptProjectNamesTheKeptGoodCopy() {
    QTemporaryDir dir;
    const QString file = dir.filePath("c.dcwproj");
    QVERIFY(transforms::saveProject(sample(1), file.toStdString()));
    QVERIFY(transforms::saveProject(sample(2), file.toStdString()));
    writeRaw(file, "{\"format\": \"dcwproj\", \"vers");
    QCOMPARE(refusal(file), file + ": is corrupt: cut short after 27 bytes; the previous good copy is kept as " + file +
                                "~: open that instead");
    QVERIFY(transforms::saveProject(sample(3), file.toStdString()));
    auto kept = transforms::loadProject((file + "~").toStdString());
    QVERIFY(kept);
    QCOMPARE(kept->steps, sample(1).steps); // still the last good one, not the corrupt file
    QCOMPARE(refusal(file), QStringLiteral("<loaded>"));
  }

  void refusals_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("message"); // after "FILE: "
    auto row = [](const char* name, const char* content, const QString& message) {
      QTest::newRow(name) << QByteArray(content) << message;
    };
    row("empty (a torn write)", "", QStringLiteral("is corrupt: cut short after 0 bytes") + kNoCopy);
    row("truncated", "{\"format\": \"dcwproj\", \"version\": 1, \"mo", QStringLiteral("is corrupt: cut short after 39 bytes") + kNoCopy);
    row("not JSON", "{\"format\": dcwproj}", QStringLiteral("is corrupt: not valid JSON (at byte 12)") + kNoCopy);
    row("not an object", "[1, 2]", "is not a DCW project (no \"format\": \"dcwproj\"); open .onnx, .dcw.json or .dcwproj files");
    row("another format", "{\"format\": \"sdfg\"}",
        "is not a DCW project (no \"format\": \"dcwproj\"); open .onnx, .dcw.json or .dcwproj files");
    row("no version", "{\"format\": \"dcwproj\"}", QStringLiteral("is corrupt: \"version\" is missing or not a whole number") + kNoCopy);
    row("version as text", "{\"format\": \"dcwproj\", \"version\": \"1\"}",
        QStringLiteral("is corrupt: \"version\" is missing or not a whole number") + kNoCopy);
    row("version 0", "{\"format\": \"dcwproj\", \"version\": 0}",
        QStringLiteral("is corrupt: format version 0 does not exist (this DCW reads 1)") + kNoCopy);
    row("newer version", "{\"format\": \"dcwproj\", \"version\": 2, \"future\": true}",
        "was written by a newer DCW (format version 2; this one reads 1); open it with that DCW or a later one");
    row("no model", "{\"format\": \"dcwproj\", \"version\": 1, \"position\": 0, \"steps\": []}",
        QStringLiteral("is corrupt: \"model\" is missing or malformed") + kNoCopy);
    row("sha256 not text", "{\"format\": \"dcwproj\", \"version\": 1, \"model\": \"m.onnx\", \"sha256\": 5, \"position\": 0, \"steps\": []}",
        QStringLiteral("is corrupt: \"sha256\" is missing or malformed") + kNoCopy);
    row("position as text", "{\"format\": \"dcwproj\", \"version\": 1, \"model\": \"m.onnx\", \"position\": \"1\", \"steps\": []}",
        QStringLiteral("is corrupt: \"position\" is missing or malformed") + kNoCopy);
    row("steps not lists of lines", "{\"format\": \"dcwproj\", \"version\": 1, \"model\": \"m.onnx\", \"position\": 0, \"steps\": [3]}",
        QStringLiteral("is corrupt: \"steps\" is missing or malformed") + kNoCopy);
    row("position past the end", "{\"format\": \"dcwproj\", \"version\": 1, \"model\": \"m.onnx\", \"position\": 3, \"steps\": [[\"x\"]]}",
        QStringLiteral("is corrupt: its position (3) is past its last step (1)") + kNoCopy);
  }

  void refusals() {
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString file = dir.filePath("r.dcwproj");
    writeRaw(file, content);
    QCOMPARE(refusal(file), file + ": " + message);
  }

  void missingFile() {
    QTemporaryDir dir;
    const QString file = dir.filePath("none.dcwproj");
    QCOMPARE(refusal(file), file + ": cannot be read; check the path of the project");
  }

  // A newer DCW's project is refused, never overwritten without a copy: saving over it keeps it as
  // the kept copy (a newer DCW can still open it), and the refusal names a kept copy this DCW reads.
  void newerVersionIsKeptAndNamesAReadableCopy() {
    QTemporaryDir dir;
    const QString file = dir.filePath("n.dcwproj");
    const QByteArray newer = "{\"format\": \"dcwproj\", \"version\": 7}";
    writeRaw(file, newer);
    QVERIFY(transforms::saveProject(sample(1), file.toStdString()));
    QFile kept(file + "~");
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), newer);
    kept.close();
    // Now the other way round: a good copy kept, the file itself from a newer DCW.
    QVERIFY(transforms::saveProject(sample(2), file.toStdString()));
    writeRaw(file, newer);
    QCOMPARE(refusal(file), file + ": was written by a newer DCW (format version 7; this one reads 1); open it with that DCW or a "
                                   "later one, or open the previous good copy kept as " + file + "~");
  }
};

QTEST_GUILESS_MAIN(TestProject)
#include "tst_Project.moc"
