// Tests of `dcw grad` and `dcw train` as a user runs them: gradients written as grad_N.pb match
// PyTorch's (tests/data/autodiff, from tests/models/autodiff_references.py); refusals exit 2 with one
// line naming the culprit (an op whose output size is counted at run time among them); LeNet trained by `dcw train` (SGD, lr 0.01, 50 steps, 4 synthetic batches
// cycled, the same initial weights) lowers the loss as PyTorch does, within 1e-3 at every step; Adam
// runs and lowers the loss. The gradients and the training also through the CUDA program (cuda-sim).
#include "support/TestPaths.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "support/CliRunner.h"

#include <cmath>
#include <cstring>

namespace {

using clisupport::dcw;
using clisupport::Run;
using clisupport::readAll;
using clisupport::readFloats;

const QString kRefs = testpaths::qsource("/tests/data/autodiff/");

QStringList wrtOf(const QString& model) {
  return QString::fromUtf8(readAll(kRefs + model + "/wrt.txt")).split('\n', Qt::SkipEmptyParts);
}

std::vector<double> losses(const QString& out) {
  std::vector<double> v;
  for (auto& l : out.split('\n', Qt::SkipEmptyParts))
    if (l.startsWith("step ")) v.push_back(l.section(' ', 3, 3).toDouble());
  return v;
}

} // namespace

class TestGradCli : public QObject {
  Q_OBJECT
private slots:
  void gradMatchesPyTorch_data();
  void gradMatchesPyTorch();
  void gradRefusals();
  void gradRandomAndMemory();
  void trainLeNetLikePyTorch_data();
  void trainLeNetLikePyTorch();
  void trainAdam();
};

// On the CPU, and as a CUDA program (forward, backward and update as GPU kernels) whose kernels
// cuda-sim runs on the CPU.
void TestGradCli::gradMatchesPyTorch_data() {
  QTest::addColumn<QString>("target");
  QTest::newRow("cpu") << "cpu";
  QTest::newRow("cuda-sim") << "cuda-sim";
}

void TestGradCli::gradMatchesPyTorch() {
  QFETCH(QString, target);
  QTemporaryDir tmp;
  QStringList args = {"grad", kRefs + "lenet/model.onnx", "--of", "loss", "--wrt"};
  const QStringList wrt = wrtOf("lenet");
  args << wrt << "--inputs" << kRefs + "lenet" << "--outputs" << tmp.path() << "--threads" << "2" << "--target" << target;
  Run r = dcw(args);
  QVERIFY2(r.code == 0, qPrintable(r.err));
  for (int k = 0; k < wrt.size(); ++k) {
    auto got = readFloats(tmp.path() + QString("/grad_%1.pb").arg(k));
    auto want = readFloats(kRefs + QString("lenet/grad_%1.pb").arg(k));
    QCOMPARE(got.size(), want.size());
    double scale = 0;
    for (float w : want) scale = std::max(scale, double(std::abs(w)));
    for (size_t i = 0; i < got.size(); ++i)
      QVERIFY2(std::abs(got[i] - want[i]) <= 1e-4 * std::abs(want[i]) + 1e-6 * scale, qPrintable(wrt[k]));
  }
  QVERIFY(QFile::exists(tmp.path() + "/output_0.pb")); // the loss
}

void TestGradCli::gradRefusals() {
  QTemporaryDir tmp;
  const QString mlp = kRefs + "mlp/model.onnx";
  struct Case {
    QStringList args;
    QString mentions;
  };
  for (const Case& c : {Case{{"--of", "loss", "--wrt", "nope"}, "nope"}, Case{{"--of", "loss", "--wrt", "labels"}, "int64"},
                        Case{{"--of", "nothere", "--wrt", "x"}, "nothere"}}) {
    Run r = dcw(QStringList{"grad", mlp} + c.args + QStringList{"--inputs", kRefs + "mlp", "--outputs", tmp.path()});
    QCOMPARE(r.code, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith("error: ") && r.err.contains(c.mentions), qPrintable(r.err));
  }
  Run r = dcw({"train", mlp, "--loss", "loss", "--data", kRefs + "mlp", "--weights", "labels"});
  QCOMPARE(r.code, 2);
  QVERIFY2(r.err.contains("labels"), qPrintable(r.err));
  // Through an op whose output size is counted at run time (Compress on a run-time condition): refused
  // naming the node and why, not "choose pure" (it is the pure implementation).
  Run counted = dcw({"grad", testpaths::qsource("/tests/data/datadependent/compress_unique.onnx"), "--of", "kept", "--wrt",
                     "X", "--random", "1", "--outputs", tmp.path()});
  QCOMPARE(counted.code, 2);
  QCOMPARE(counted.err.count('\n'), 1);
  QVERIFY2(counted.err.contains("Compress node 'main/state0/Compress_2'") && counted.err.contains("counted at run time"),
           qPrintable(counted.err));
}

void TestGradCli::gradRandomAndMemory() {
  QTemporaryDir tmp;
  const QString model = kRefs + "transformer_layer/model.onnx";
  Run store = dcw({"grad", model, "--of", "loss", "--wrt", "layer.linear1.weight", "--random", "3", "--outputs", tmp.path(),
                   "--report-memory"});
  QVERIFY2(store.code == 0, qPrintable(store.err));
  QVERIFY(QFile::exists(tmp.path() + "/input_0.pb") && QFile::exists(tmp.path() + "/grad_0.pb"));
  QVERIFY2(store.out.contains("backward keeps alive: "), qPrintable(store.out));
}

void TestGradCli::trainLeNetLikePyTorch_data() { gradMatchesPyTorch_data(); }

void TestGradCli::trainLeNetLikePyTorch() {
  QFETCH(QString, target);
  auto doc = QJsonDocument::fromJson(readAll(kRefs + "lenet_train/losses.json")).object();
  const auto ref = doc["loss"].toArray();
  QCOMPARE(ref.size(), 50);
  Run r = dcw({"train", kRefs + "lenet/model.onnx", "--loss", "loss", "--optimizer", "sgd", "--lr", "0.01", "--steps", "50",
               "--data", kRefs + "lenet_train", "--threads", "2", "--target", target});
  QVERIFY2(r.code == 0, qPrintable(r.err));
  auto got = losses(r.out);
  QCOMPARE(got.size(), size_t(50));
  double worst = 0;
  for (int k = 0; k < 50; ++k) {
    double d = std::abs(got[size_t(k)] - ref[k].toDouble());
    worst = std::max(worst, d);
    QVERIFY2(d <= 1e-3, qPrintable(QString("step %1: %2 vs PyTorch %3").arg(k + 1).arg(got[size_t(k)]).arg(ref[k].toDouble())));
  }
  QVERIFY(got.back() < got.front() - 0.3);
  qInfo("LeNet SGD 50 steps (%s): loss %.4f -> %.4f, max |DCW - PyTorch| %.2e", qPrintable(target), got.front(), got.back(), worst);
}

void TestGradCli::trainAdam() {
  Run r = dcw({"train", kRefs + "mlp/model.onnx", "--loss", "loss", "--optimizer", "adam", "--lr", "0.01", "--steps", "30",
               "--data", kRefs + "mlp", "--threads", "2"});
  QVERIFY2(r.code == 0, qPrintable(r.err));
  auto got = losses(r.out);
  QCOMPARE(got.size(), size_t(30));
  QVERIFY2(got.back() < 0.5 * got.front(), qPrintable(r.out));
}

QTEST_GUILESS_MAIN(TestGradCli)
#include "tst_GradCli.moc"
