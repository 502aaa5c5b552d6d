// tst_WeightViewer: views::computeWeightStats and views::WeightView — statistics of float32, float16,
// int8 and bool tensors (min, max, mean, std, zeros, NaN/Inf), the histogram's buckets, refusals of
// string tensors and short payloads with a reason, and the widget's two states (a constant array vs.
// anything else).
#include "views/WeightStats.h"
#include "views/WeightView.h"

#include "core/ir/DataDescriptor.h"

#include <QLabel>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace dcw;
using namespace dcw::ir;
using dcw::views::computeWeightStats;

namespace {

template <class T>
Tensor tensorOf(DType dtype, const std::vector<T>& values) {
  Tensor t;
  t.dtype = dtype;
  t.dims = {int64_t(values.size())};
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  t.bytes = std::make_shared<const std::string>(std::move(bytes));
  return t;
}

} // namespace

class TestWeightViewer : public QObject {
  Q_OBJECT
private slots:
  void float32() {
    auto s = computeWeightStats(tensorOf<float>(DType::Float32, {0, 1, 2, 3, 4, 0, std::nanf(""),
                                                                  std::numeric_limits<float>::infinity()}),
                                4);
    QVERIFY(s.ok);
    QCOMPARE(s.count, int64_t(8));
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.max, 4.0);
    QCOMPARE(s.mean, 10.0 / 6);
    QCOMPARE(s.zeros, int64_t(2));
    QCOMPARE(s.nans, int64_t(1));
    QCOMPARE(s.infs, int64_t(1));
    QCOMPARE(s.histogram.size(), size_t(4));
    QCOMPARE(s.histogram[0], int64_t(2)); // 0, 0 in [0, 1)
    QCOMPARE(s.histogram[1], int64_t(1)); // 1 in [1, 2)
    QCOMPARE(s.histogram[3], int64_t(2)); // 3 and the maximum 4
    int64_t total = 0;
    for (auto h : s.histogram) total += h;
    QCOMPARE(total, int64_t(6));
    QVERIFY(std::abs(s.stddev - std::sqrt((0 + 1 + 4 + 9 + 16 + 0) / 6.0 - s.mean * s.mean)) < 1e-9);
  }

  void otherTypes() {
    auto i8 = computeWeightStats(tensorOf<int8_t>(DType::Int8, {-128, 0, 127}));
    QVERIFY(i8.ok);
    QCOMPARE(i8.min, -128.0);
    QCOMPARE(i8.max, 127.0);
    // float16: 1.0 = 0x3C00, -2.0 = 0xC000
    auto f16 = computeWeightStats(tensorOf<uint16_t>(DType::Float16, {0x3C00, 0xC000}));
    QVERIFY(f16.ok);
    QCOMPARE(f16.min, -2.0);
    QCOMPARE(f16.max, 1.0);
    auto b = computeWeightStats(tensorOf<uint8_t>(DType::Bool, {1, 0, 1}));
    QCOMPARE(b.zeros, int64_t(1));
    auto constant = computeWeightStats(tensorOf<double>(DType::Float64, {2.5, 2.5}));
    QCOMPARE(constant.histogram[0], int64_t(2));
  }

  void refusals() {
    Tensor strings;
    strings.dtype = DType::String;
    strings.dims = {1};
    auto s = computeWeightStats(strings);
    QVERIFY(!s.ok);
    QVERIFY(s.error.contains(QStringLiteral("string")));
    Tensor shortPayload = tensorOf<float>(DType::Float32, {1, 2});
    shortPayload.dims = {5};
    auto p = computeWeightStats(shortPayload);
    QVERIFY(!p.ok);
    QVERIFY(p.error.contains(QStringLiteral("bytes")));
  }

  void widget() {
    views::WeightView v;
    v.show();
    QVERIFY(!v.showsWeights());
    DataDescriptor d("conv.weight");
    d.shape = {sym::Expr(3)};
    d.constant = std::make_shared<Tensor>(tensorOf<float>(DType::Float32, {-1, 0.5f, 2}));
    v.setData(&d);
    QVERIFY(v.showsWeights());
    QVERIFY(v.statsLabel()->text().contains(QStringLiteral("elements")));
    QCOMPARE(v.stats().max, 2.0);
    QVERIFY(!v.grab().isNull());
    DataDescriptor plain("activations");
    v.setData(&plain);
    QVERIFY(!v.showsWeights());
    v.setData(nullptr);
    QVERIFY(!v.showsWeights());
  }
};

QTEST_MAIN(TestWeightViewer)
#include "tst_WeightViewer.moc"
