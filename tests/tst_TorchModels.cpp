// Real architectures exported by Debian's PyTorch (ResNet-18, MobileNetV2, EfficientNet-B0, a
// 2-layer transformer encoder with dynamic batch and sequence axes, an LSTM) import and validate.
// The models are exported into the build tree by the `export_torch_models` ctest fixture.
#include "support/TestPaths.h"
#include "core/analysis/ModelSummary.h"
#include "core/io/ModelFile.h"

#include <QtTest>

#include <filesystem>

class TestTorchModels : public QObject {
  Q_OBJECT
private slots:
  void importsAndValidates_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QStringList>("symbols");
    QTest::newRow("resnet18") << "resnet18.onnx" << "Conv" << QStringList{"batch"};
    QTest::newRow("mobilenet_v2") << "mobilenet_v2.onnx" << "Conv" << QStringList{"batch"};
    QTest::newRow("efficientnet_b0") << "efficientnet_b0.onnx" << "Sigmoid" << QStringList{"batch"};
    QTest::newRow("transformer_encoder") << "transformer_encoder.onnx" << "MatMul" << QStringList{"batch", "seq"};
    QTest::newRow("lstm") << "lstm.onnx" << "LSTM" << QStringList{"batch", "seq"};
  }
  void importsAndValidates() {
    QFETCH(QString, model);
    QFETCH(QString, op);
    QFETCH(QStringList, symbols);
    std::string path = testpaths::binaryDir() + "/models/" + model.toStdString();
    if (!std::filesystem::exists(path)) QFAIL(qPrintable("missing " + QString::fromStdString(path) + " (run the export_torch_models test first)"));
    auto m = dcw::io::loadModel(path);
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    QVERIFY(!m->validation.hasErrors());
    auto s = dcw::analysis::summarize(*m->sdfg);
    QVERIFY2(s.opsByType.count(op.toStdString()), qPrintable(op));
    for (auto& sym : symbols) QVERIFY2(s.symbols.count(sym.toStdString()), qPrintable("symbol " + sym));
    QVERIFY(s.parameterCount > 1000);
    qInfo("%s: %lld operations, %zu op types, %lld parameters, depth %d", qPrintable(model), (long long)s.nodeCount,
          s.opsByType.size(), (long long)s.parameterCount, s.depth);
  }
};

QTEST_GUILESS_MAIN(TestTorchModels)
#include "tst_TorchModels.moc"
