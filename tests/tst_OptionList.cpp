// The list options of transformations (transforms/OptionList.h): items split at commas and trimmed,
// integers read whole, and the check a step's options pass before it runs (an IntList option that is
// no list of integers is refused, naming the option).
#include "transforms/OptionList.h"
#include "transforms/Match.h"
#include "transforms/TransformationRegistry.h"

#include <QtTest>

using namespace dcw::transforms;

class TestOptionList : public QObject {
  Q_OBJECT

private slots:
  void items() {
    QCOMPARE(listItems("j,i,k"), (std::vector<std::string>{"j", "i", "k"}));
    QCOMPARE(listItems(" j , i,k "), (std::vector<std::string>{"j", "i", "k"}));
    QCOMPARE(listItems(""), (std::vector<std::string>{""}));
    QCOMPARE(listItems("a,,b"), (std::vector<std::string>{"a", "", "b"}));
    QCOMPARE(joinListItems({"o0", "o2", "o1"}), std::string("o0,o2,o1"));
    QCOMPARE(listItems(joinListItems({"x", "y"})), (std::vector<std::string>{"x", "y"}));
  }

  void integers() {
    QCOMPARE(intListItems("32"), (std::optional<std::vector<int64_t>>{{32}}));
    QCOMPARE(intListItems("8, 32"), (std::optional<std::vector<int64_t>>{{8, 32}}));
    QCOMPARE(intListItems("0,-1,9223372036854775807"), (std::optional<std::vector<int64_t>>{{0, -1, INT64_MAX}}));
    QVERIFY(!intListItems(""));
    QVERIFY(!intListItems("8,"));
    QVERIFY(!intListItems("8,x"));
    QVERIFY(!intListItems("8.5"));
    QVERIFY(!intListItems("9223372036854775808")); // beyond int64
  }

  // One size widened to every dimension, or one per dimension (MapTiling's and GpuBlockTiling's sizes).
  void perDimensionSizes() {
    QCOMPARE(perDimension("32", 3), (std::vector<int64_t>{32, 32, 32}));
    QCOMPARE(perDimension("8,32", 2), (std::vector<int64_t>{8, 32}));
    QCOMPARE(perDimension("8,32", 3), (std::vector<int64_t>{8, 32})); // the caller names the mismatch
    QVERIFY(perDimension("8,x", 2).empty());
  }

  // MapTiling's tile_sizes is an IntList: checkOptions refuses what is no list of integers, naming it.
  void checkedBeforeAStep() {
    const Transformation* t = TransformationRegistry::instance().find("MapTiling");
    QVERIFY(t);
    Match m;
    m.options["tile_sizes"] = "16, 8";
    QVERIFY(t->checkOptions(m, "main/state0/map"));
    m.options["tile_sizes"] = "16,eight";
    auto r = t->checkOptions(m, "main/state0/map");
    QVERIFY(!r);
    QVERIFY2(r.error().str().find("tile_sizes=16,eight") != std::string::npos, r.error().str().c_str());
    QVERIFY2(r.error().str().find("integers separated by commas") != std::string::npos, r.error().str().c_str());
  }
};

QTEST_GUILESS_MAIN(TestOptionList)
#include "tst_OptionList.moc"
