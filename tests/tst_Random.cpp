// Random ops (core/expansions/ops/Random.cpp) on tests/data/random (tests/models/random_models.py):
// checked by distribution — range, mean and variance of RandomUniform/RandomNormal(Like), Bernoulli's
// rate against its probabilities, training-mode Dropout's kept fraction, scale and mask — and for
// reproducibility: the same numbers on every run and for any thread count.
#include "support/TestPaths.h"
#include "codegen/run/RandomInputs.h"
#include "pipeline/Pipeline.h"

#include <QtTest>

#include <cmath>
#include <cstring>

using namespace dcw;

namespace {

std::string fixture(const std::string& name) { return testpaths::source("/tests/data/random/") + name + ".onnx"; }

std::vector<float> floats(const ir::Tensor& t) {
  std::vector<float> v(size_t(t.elementCount()));
  std::memcpy(v.data(), t.bytes->data(), v.size() * sizeof(float));
  return v;
}

struct Stats {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};
Stats stats(const std::vector<float>& v) {
  Stats s;
  for (float x : v) {
    s.mean += x;
    s.min = std::min<double>(s.min, x);
    s.max = std::max<double>(s.max, x);
  }
  s.mean /= double(v.size());
  for (float x : v) s.var += (x - s.mean) * (x - s.mean);
  s.var /= double(v.size());
  return s;
}

ir::Tensor boolScalar(bool b) {
  ir::Tensor t;
  t.dtype = ir::DType::Bool;
  t.bytes = std::make_shared<const std::string>(1, b ? '\1' : '\0');
  return t;
}

std::vector<ir::Tensor> run(const std::string& model, std::vector<ir::Tensor>* inputs, int threads = 0) {
  pipeline::Options o;
  o.threads = threads;
  auto p = pipeline::build(model, {}, o);
  if (!p) {
    qWarning("%s", p.error().str().c_str());
    return {};
  }
  if (inputs->empty()) {
    auto in = codegen::randomInputs(p->executor->code().signature, 5);
    if (!in) return {};
    *inputs = *in;
  }
  auto out = p->executor->run(*inputs);
  if (!out) {
    qWarning("%s", out.error().str().c_str());
    return {};
  }
  return std::move(*out);
}

} // namespace

class TestRandom : public QObject {
  Q_OBJECT

private slots:
  void generatorsHaveTheirDistributions() {
    std::vector<ir::Tensor> inputs;
    auto out = run(fixture("generators"), &inputs);
    QCOMPARE(out.size(), size_t(4));
    auto u = stats(floats(out[0])), n = stats(floats(out[1])), v = stats(floats(out[2]));
    // 20,000 draws each: the mean of a uniform [-2, 3) is 0.5 (sd of the mean 0.01), its variance 25/12.
    QVERIFY2(u.min >= -2 && u.max < 3, qPrintable(QString("uniform range %1..%2").arg(u.min).arg(u.max)));
    QVERIFY2(std::abs(u.mean - 0.5) < 0.05 && std::abs(u.var - 25.0 / 12) < 0.1, qPrintable(QString("%1 %2").arg(u.mean).arg(u.var)));
    QVERIFY2(std::abs(n.mean - 1) < 0.06 && std::abs(n.var - 4) < 0.2, qPrintable(QString("%1 %2").arg(n.mean).arg(n.var)));
    QVERIFY(n.min < -4 && n.max > 6); // tails 2.5 standard deviations out are drawn
    QVERIFY2(v.min >= 0 && v.max < 1 && std::abs(v.mean - 0.5) < 0.01 && std::abs(v.var - 1.0 / 12) < 0.005,
             qPrintable(QString("%1 %2").arg(v.mean).arg(v.var)));
    // Bernoulli(P), P uniform in [-1, 1): never 1 where P <= 0, and on average max(P, 0).
    auto p = floats(inputs[1]), b = floats(out[3]);
    double expected = 0, ones = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      QVERIFY(b[i] == 0 || b[i] == 1);
      if (p[i] <= 0) QCOMPARE(b[i], 0.0f);
      expected += std::max(0.0f, p[i]);
      ones += b[i];
    }
    QVERIFY2(std::abs(ones - expected) / double(b.size()) < 0.015, qPrintable(QString("%1 vs %2").arg(ones).arg(expected)));
  }

  // Multinomial over log-probabilities: each row's classes drawn with their probabilities (5,000 draws:
  // the sd of a frequency is at most 0.007), a class of probability 0 (log 0 = -inf) never; the same
  // draws for 1 and 2 threads.
  void multinomialDrawsEachClassWithItsProbability() {
    const std::vector<std::vector<double>> probs{{0.2, 0.3, 0.5}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, {0.45, 0.0, 0.55}};
    std::vector<float> logits;
    for (auto& row : probs)
      for (double p : row) logits.push_back(float(std::log(p) + 3.0)); // unnormalized: shifted by 3
    ir::Tensor l;
    l.dtype = ir::DType::Float32;
    l.dims = {4, 3};
    l.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(logits.data()), logits.size() * 4);
    std::vector<ir::Tensor> inputs{l};
    auto out = run(fixture("multinomial"), &inputs, 1);
    QCOMPARE(out.size(), size_t(1));
    QCOMPARE(out[0].dims, std::vector<int64_t>({4, 5000}));
    std::vector<int64_t> y(size_t(out[0].elementCount()));
    std::memcpy(y.data(), out[0].bytes->data(), y.size() * 8);
    for (size_t r = 0; r < probs.size(); ++r) {
      std::vector<double> freq(3, 0);
      for (size_t s = 0; s < 5000; ++s) {
        int64_t c = y[r * 5000 + s];
        QVERIFY2(c >= 0 && c < 3, qPrintable(QString::number(c)));
        freq[size_t(c)] += 1.0 / 5000;
      }
      for (size_t c = 0; c < 3; ++c) {
        if (probs[r][c] == 0) QCOMPARE(freq[c], 0.0);
        QVERIFY2(std::abs(freq[c] - probs[r][c]) < 0.03, qPrintable(QString("row %1 class %2: %3").arg(r).arg(c).arg(freq[c])));
      }
    }
    auto again = run(fixture("multinomial"), &inputs, 2);
    QVERIFY(!again.empty() && *again[0].bytes == *out[0].bytes);
  }

  void sameNumbersOnEveryRunAndThreadCount() {
    std::vector<ir::Tensor> inputs;
    auto a = run(fixture("generators"), &inputs, 1);
    auto b = run(fixture("generators"), &inputs, 2);
    auto c = run(fixture("generators"), &inputs, 2);
    QVERIFY(!a.empty());
    for (size_t k = 0; k < a.size(); ++k) {
      QVERIFY(*a[k].bytes == *b[k].bytes);
      QVERIFY(*b[k].bytes == *c[k].bytes);
    }
    // Seeded U and N differ from each other, and the unseeded V is not U.
    QVERIFY(*a[0].bytes != *a[2].bytes);
  }

  void dropoutInTrainingModeKeepsAndScales() {
    std::vector<ir::Tensor> probe;
    auto first = run(fixture("training_dropout"), &probe); // random X, training drawn as 0..1
    QVERIFY(!first.empty());
    for (bool training : {true, false}) {
      std::vector<ir::Tensor> inputs{probe[0], boolScalar(training)};
      auto out = run(fixture("training_dropout"), &inputs);
      QCOMPARE(out.size(), size_t(2));
      auto x = floats(inputs[0]), y = floats(out[0]);
      const char* mask = out[1].bytes->data();
      size_t kept = 0;
      for (size_t i = 0; i < y.size(); ++i) {
        if (!training) {
          QCOMPARE(y[i], x[i]);
          QVERIFY(mask[i]);
          continue;
        }
        if (mask[i]) {
          ++kept;
          QVERIFY2(std::abs(y[i] - x[i] / 0.75f) < 1e-6f, qPrintable(QString("%1 %2").arg(y[i]).arg(x[i])));
        } else {
          QCOMPARE(y[i], 0.0f);
        }
      }
      if (training) {
        double rate = double(kept) / double(y.size());
        QVERIFY2(std::abs(rate - 0.75) < 0.01, qPrintable(QString::number(rate))); // ratio 0.25, 20,000 draws
      }
    }
  }
};

QTEST_MAIN(TestRandom)
#include "tst_Random.moc"
