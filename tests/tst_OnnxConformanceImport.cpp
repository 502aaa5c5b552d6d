// The ONNX backend test models shipped by Debian's libonnx-testdata, imported one by one: each must
// import and validate (all 1072 do; a refusal must still be located). Prints the figures; a model
// that stops importing fails the test, naming the model and the refusal (the foundation issue's goal
// of 97% was a floor that could hide 32 such regressions).
#include "tests/support/Prerequisites.h"
#include "core/io/ModelFile.h"

#include <QtTest>

#include <filesystem>

namespace fs = std::filesystem;

class TestOnnxConformanceImport : public QObject {
  Q_OBJECT
private slots:
  void importSuite() {
    DCW_REQUIRE_ONNX_TESTDATA();
    const std::string root = dcw::testsupport::kOnnxTestDataRoot.toStdString();
    int total = 0, ok = 0;
    std::map<std::string, std::pair<int, int>> perSuite;
    QStringList refused;
    for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
      std::vector<fs::path> models;
      for (auto& d : fs::directory_iterator(fs::path(root) / suite))
        if (fs::exists(d.path() / "model.onnx")) models.push_back(d.path() / "model.onnx");
      std::sort(models.begin(), models.end());
      for (auto& p : models) {
        ++total;
        auto m = dcw::io::loadModel(p.string());
        auto& [sOk, sTotal] = perSuite[suite];
        ++sTotal;
        if (m) {
          ++ok;
          ++sOk;
          continue;
        }
        QString msg = QString::fromStdString(m.error().str());
        QVERIFY2(msg.startsWith(QString::fromStdString(p.string())), qPrintable("refusal does not name the file: " + msg));
        QVERIFY2(msg.size() > int(p.string().size()) + 10, qPrintable("refusal says too little: " + msg));
        refused << msg;
      }
    }
    for (auto& r : refused) qInfo("refused: %s", qPrintable(r));
    for (auto& [suite, c] : perSuite) qInfo("%-18s %d of %d import and validate", suite.c_str(), c.first, c.second);
    const double rate = total ? 100.0 * ok / total : 0;
    qInfo("ONNX test models: %d of %d import and validate (%.1f%%), %d refused with a message", ok, total, rate, total - ok);
    QVERIFY(total > 1000);
    QVERIFY2(refused.isEmpty(), qPrintable(QString("%1 models no longer import:\n").arg(refused.size()) + refused.join('\n')));
  }
};

QTEST_GUILESS_MAIN(TestOnnxConformanceImport)
#include "tst_OnnxConformanceImport.moc"
