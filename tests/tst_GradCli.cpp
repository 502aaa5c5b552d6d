// Tests of `dcw grad` and `dcw train` as a user runs them: gradients written as grad_N.pb match
// PyTorch's (tests/data/autodiff, from tests/models/autodiff_references.py); refusals exit 2 with one
// line naming the culprit; LeNet trained by `dcw train` (SGD, lr 0.01, 50 steps, 4 synthetic batches
// cycled, the same initial weights) lowers the loss as PyTorch does, within 1e-3 at every step; Adam
// runs and lowers the loss.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run dcw(const QStringList& args) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("DCW_CACHE_DIR", QStringLiteral(DCW_BINARY_DIR "/kernel-cache"));
  p.setProcessEnvironment(env);
  p.start(DCW_CLI, args);
  p.waitForFinished(300000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

const QString kRefs = QStringLiteral(DCW_SOURCE_DIR "/tests/data/autodiff/");

QByteArray readAll(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The float values of an ONNX TensorProto file (raw_data or float_data), without linking protobuf.
std::vector<float> readFloats(const QString& file) {
  QByteArray b = readAll(file);
  const auto* p = reinterpret_cast<const uint8_t*>(b.constData());
  const uint8_t* end = p + b.size();
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int s = 0; p < end && s < 64; s += 7) {
      uint8_t c = *p++;
      v |= uint64_t(c & 0x7f) << s;
      if (!(c & 0x80)) return true;
    }
    return false;
  };
  std::vector<float> out;
  auto floats = [&](const uint8_t* q, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4) {
      float x;
      std::memcpy(&x, q + i, 4);
      out.push_back(x);
    }
  };
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (!varint(key)) return {};
    uint64_t field = key >> 3, wire = key & 7;
    if (wire == 0) {
      if (!varint(v)) return {};
      if (field == 2 && v != 1) return {};
    } else if (wire == 1) {
      p += 8;
    } else if (wire == 5) {
      if (field == 4) floats(p, 4);
      p += 4;
    } else if (wire == 2) {
      if (!varint(v) || v > uint64_t(end - p)) return {};
      if (field == 4 || field == 9) floats(p, v);
      p += v;
    } else {
      return {};
    }
  }
  return out;
}

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
  void gradMatchesPyTorch();
  void gradRefusals();
  void gradRandomAndMemory();
  void trainLeNetLikePyTorch();
  void trainAdam();
};

void TestGradCli::gradMatchesPyTorch() {
  QTemporaryDir tmp;
  QStringList args = {"grad", kRefs + "lenet/model.onnx", "--of", "loss", "--wrt"};
  const QStringList wrt = wrtOf("lenet");
  args << wrt << "--inputs" << kRefs + "lenet" << "--outputs" << tmp.path() << "--threads" << "2";
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

void TestGradCli::trainLeNetLikePyTorch() {
  auto doc = QJsonDocument::fromJson(readAll(kRefs + "lenet_train/losses.json")).object();
  const auto ref = doc["loss"].toArray();
  QCOMPARE(ref.size(), 50);
  Run r = dcw({"train", kRefs + "lenet/model.onnx", "--loss", "loss", "--optimizer", "sgd", "--lr", "0.01", "--steps", "50",
               "--data", kRefs + "lenet_train", "--threads", "2"});
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
  qInfo("LeNet SGD 50 steps: loss %.4f -> %.4f, max |DCW - PyTorch| %.2e", got.front(), got.back(), worst);
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
