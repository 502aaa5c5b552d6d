// Tests of the private temporary folder (core/support/TemporaryFolder.h) the compiler and the RTL
// co-simulation build in: a fresh folder each time, removed with its contents at the end of its owner's
// life, kept once released; a move hands the folder over; a parent that cannot hold one is named.
#include "core/support/TemporaryFolder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace dcw;
namespace fs = std::filesystem;

class TestTemporaryFolder : public QObject {
  Q_OBJECT

private slots:
  void freshFoldersRemovedWithTheirContents() {
    QTemporaryDir parent;
    fs::path a, b;
    {
      auto x = TemporaryFolder::create(parent.path().toStdString(), "build-");
      auto y = TemporaryFolder::create(parent.path().toStdString(), "build-");
      QVERIFY(x && y);
      a = x->path();
      b = y->path();
      QVERIFY(a != b);
      QVERIFY(fs::is_directory(a) && fs::is_directory(b));
      QVERIFY(a.filename().string().rfind("build-", 0) == 0);
      std::ofstream(a / "file.txt") << "content";
      fs::create_directories(a / "sub" / "deeper");
    }
    QVERIFY(!fs::exists(a));
    QVERIFY(!fs::exists(b));
  }

  void releasedFolderIsKeptAndMovesHandOver() {
    QTemporaryDir parent;
    fs::path kept, moved;
    {
      auto x = TemporaryFolder::create(parent.path().toStdString(), "keep-");
      QVERIFY(x);
      kept = x->release();
      QVERIFY(x->path().empty());
      auto y = TemporaryFolder::create(parent.path().toStdString(), "move-");
      QVERIFY(y);
      moved = y->path();
      TemporaryFolder z = std::move(*y);
      QCOMPARE(z.path(), moved);
      QVERIFY(y->path().empty());
    }
    QVERIFY(fs::is_directory(kept));
    QVERIFY(!fs::exists(moved));
  }

  void unusableParentIsNamed() {
    QTemporaryDir parent;
    const fs::path file = fs::path(parent.path().toStdString()) / "a-file";
    std::ofstream(file) << "x";
    auto x = TemporaryFolder::create(file / "below", "t-");
    QVERIFY(!x);
    QVERIFY2(x.error().location.find("a-file") != std::string::npos, x.error().location.c_str());
  }
};

QTEST_GUILESS_MAIN(TestTemporaryFolder)
#include "tst_TemporaryFolder.moc"
