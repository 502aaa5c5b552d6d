// LineDiff: unified diffs of texts — hunks with context, added/removed counts, identical texts give
// nothing, and the bounded fallback (replace the changed middle) when the LCS table would be too big.
#include "core/support/LineDiff.h"

#include <QtTest>

class TestLineDiff : public QObject {
  Q_OBJECT
private slots:
  void identicalGivesNothing() { QCOMPARE(QString::fromStdString(dcw::unifiedDiff("a\nb\n", "a\nb\n", "x", "y")), QString()); }

  void oneChangeWithContext() {
    std::string a, b;
    for (int i = 0; i < 20; ++i) {
      a += "line " + std::to_string(i) + "\n";
      b += (i == 10 ? std::string("changed") : "line " + std::to_string(i)) + "\n";
    }
    dcw::DiffStats st;
    std::string d = dcw::unifiedDiff(a, b, "before.cpp", "after.cpp", 3, &st);
    QCOMPARE(st.added, size_t(1));
    QCOMPARE(st.removed, size_t(1));
    QCOMPARE(QString::fromStdString(d), QString("--- before.cpp\n+++ after.cpp\n@@ -8,7 +8,7 @@\n line 7\n line 8\n line 9\n"
                                                "-line 10\n+changed\n line 11\n line 12\n line 13\n"));
  }

  void insertionsAndDeletionsInTwoHunks() {
    std::string a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
    std::string b = "a\nX\nb\nc\nd\ne\nf\ng\nh\ni\nj\nl\nm\n";
    dcw::DiffStats st;
    std::string d = dcw::unifiedDiff(a, b, "a", "b", 1, &st);
    QCOMPARE(st.added, size_t(1));
    QCOMPARE(st.removed, size_t(1));
    QCOMPARE(QString::fromStdString(d).count("@@ -"), 2);
    QVERIFY(QString::fromStdString(d).contains("@@ -1,2 +1,3 @@\n a\n+X\n b\n"));
    QVERIFY(QString::fromStdString(d).contains("-k\n"));
  }

  void boundedFallback() {
    std::string a = "p\n1\n2\n3\ns\n", b = "p\n3\n2\n1\ns\n";
    dcw::DiffStats st;
    dcw::unifiedDiff(a, b, "a", "b", 3, &st, /*maxCells=*/4);
    QCOMPARE(st.removed, size_t(3));
    QCOMPARE(st.added, size_t(3));
    dcw::unifiedDiff(a, b, "a", "b", 3, &st);
    QCOMPARE(st.removed, size_t(2)); // the LCS keeps one of the three lines
  }
};

QTEST_APPLESS_MAIN(TestLineDiff)
#include "tst_LineDiff.moc"
