// Tests of Match, the plain-data form of a transformation match and of one script line.
#include "transforms/Match.h"

#include <QtTest>

using dcw::transforms::Match;

class TestMatch : public QObject {
  Q_OBJECT
private slots:
  void roundTrip() {
    Match m;
    m.transformation = "MapTiling";
    m.elements["entry"] = "main/state0/map oc";
    m.options["tile_sizes"] = "32,32";
    m.options["note"] = "say \"hi\"";
    std::string line = m.str();
    QCOMPARE(QString::fromStdString(line), QString(R"(MapTiling entry="main/state0/map oc" note="say \"hi\"" tile_sizes=32,32)"));
    auto p = Match::parse(line, "s.dcws:1", [](const std::string& k) { return k == "entry"; });
    QVERIFY(p);
    QVERIFY(*p == m);
  }
  void comments() {
    auto p = Match::parse("  MapFusion first=a second=b  # fuse", "s:2", [](auto&) { return true; });
    QVERIFY(p);
    QCOMPARE(p->elements.size(), size_t(2));
  }
  void errors() {
    auto any = [](const std::string&) { return false; };
    auto a = Match::parse("MapTiling entry", "s.dcws:3", any);
    QVERIFY(!a);
    QCOMPARE(QString::fromStdString(a.error().str()), QString("s.dcws:3: expected key=value after 'MapTiling', found 'entry'; write key=value"));
    auto b = Match::parse("T x=\"open", "s.dcws:4", any);
    QVERIFY(!b);
    QVERIFY(QString::fromStdString(b.error().str()).contains("not closed"));
    auto c = Match::parse("T x=1 x=2", "s.dcws:5", any);
    QVERIFY(!c);
    QVERIFY(QString::fromStdString(c.error().str()).contains("'x' is given twice"));
    QVERIFY(!Match::parse("   ", "s:6", any));
  }
};

QTEST_APPLESS_MAIN(TestMatch)
#include "tst_Match.moc"
