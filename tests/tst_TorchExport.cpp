// Tests of opening PyTorch models (core/io/TorchExport.h, `dcw import-torch`): input specs parsed and
// refused with the part at fault; a TorchScript model saved by Debian's torch exported through
// torch.onnx.export, opened, its named dims dynamic, and run by `dcw run` with the output torch gives;
// failures of the exporter (a shape the model rejects, a file that is no TorchScript) named with the
// file and torch's own message. Needs /usr/bin/python3 with torch (python3-torch, in the README's setup).
#include "support/TestPaths.h"
#include "core/io/ModelFile.h"
#include "core/io/TorchExport.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Sdfg.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace dcw;

namespace {

// Saves a small TorchScript model (Linear 8->4, ReLU, then a sum over dim 1 plus the input's row count
// as a float) at `path`, and its output for a fixed input beside it; returns python's error, if any.
QString saveTorchModel(const QString& path) {
  const char* script = R"PY(
import sys, torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = torch.nn.Linear(8, 4)
    def forward(self, x):
        return torch.relu(self.fc(x)) * 2.0
m = torch.jit.trace(M().eval(), torch.zeros(2, 8))
m.save(sys.argv[1])
x = torch.arange(24, dtype=torch.float32).reshape(3, 8) / 10.0
print(" ".join("%.6f" % v for v in m(x).flatten().tolist()))
)PY";
  QProcess p;
  p.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QString::fromLatin1(script), path});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) return QString::fromUtf8(p.readAllStandardError());
  return QStringLiteral("ok ") + QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

} // namespace

class TestTorchExport : public QObject {
  Q_OBJECT

private slots:
  void inputSpecs() {
    auto a = io::parseTorchInput("batch=1x3x224x224");
    QVERIFY(a);
    QCOMPARE(a->shape, (std::vector<int64_t>{1, 3, 224, 224}));
    QCOMPARE(a->dimNames, (std::vector<std::string>{"batch", "", "", ""}));
    QCOMPARE(a->dtype, std::string("float32"));
    auto b = io::parseTorchInput("1xmax_len=16:int64"); // a name holding an 'x'
    QVERIFY(b);
    QCOMPARE(b->shape, (std::vector<int64_t>{1, 16}));
    QCOMPARE(b->dimNames[1], std::string("max_len"));
    QCOMPARE(b->dtype, std::string("int64"));
    QCOMPARE(io::torchInputText(*b), std::string("1xmax_len=16:int64"));
    for (const char* bad : {"", "1x", "x3", "1x0", "1xq", "1x3:float16", "=3", "1x99999999999999999999"}) {
      auto r = io::parseTorchInput(bad);
      QVERIFY2(!r, bad);
      QCOMPARE(r.error().location, std::string(bad));
    }
    QVERIFY(io::isTorchModelPath("m.pt") && io::isTorchModelPath("/a/b.pth") && !io::isTorchModelPath("m.onnx"));
  }

  void exportOpenAndRun() {
    QTemporaryDir dir;
    const QString pt = dir.filePath(QStringLiteral("mlp.pt")), onnx = dir.filePath(QStringLiteral("mlp.onnx"));
    const QString saved = saveTorchModel(pt);
    if (saved.contains(QStringLiteral("No module named 'torch'"))) QSKIP("python3-torch is not installed");
    QVERIFY2(saved.startsWith(QStringLiteral("ok ")), qPrintable(saved));
    const QStringList expected = saved.mid(3).split(QLatin1Char(' '));
    QCOMPARE(expected.size(), 12);

    QProcess cli;
    cli.start(testpaths::cli(), {QStringLiteral("import-torch"), pt, QStringLiteral("--input"), QStringLiteral("batch=2x8"),
                                        QStringLiteral("-o"), onnx});
    QVERIFY(cli.waitForFinished(180000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    auto loaded = io::loadModel(onnx.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.error().str().c_str());
    QVERIFY(loaded->sdfg->symbols().count("batch")); // the named dim is dynamic

    // The same input as torch's, through the generated code: the same output.
    const QString inDir = dir.filePath(QStringLiteral("in")), outDir = dir.filePath(QStringLiteral("out"));
    QDir().mkpath(inDir);
    QProcess py;
    py.start(QStringLiteral("/usr/bin/python3"),
             {QStringLiteral("-c"),
              QStringLiteral("import numpy as np, onnx.numpy_helper as h, sys\n"
                             "x = (np.arange(24, dtype=np.float32).reshape(3, 8) / 10.0).astype(np.float32)\n"
                             "open(sys.argv[1] + '/input_0.pb', 'wb').write(h.from_array(x, 'input0').SerializeToString())\n"),
              inDir});
    QVERIFY(py.waitForFinished(60000) && py.exitCode() == 0);
    QProcess run;
    run.start(testpaths::cli(), {QStringLiteral("run"), onnx, QStringLiteral("--inputs"), inDir, QStringLiteral("--outputs"), outDir});
    QVERIFY(run.waitForFinished(180000));
    QVERIFY2(run.exitCode() == 0, run.readAllStandardError().constData());
    QProcess check;
    check.start(QStringLiteral("/usr/bin/python3"),
                QStringList{QStringLiteral("-c"),
                            QStringLiteral("import numpy as np, onnx, onnx.numpy_helper as h, sys\n"
                                           "t = onnx.TensorProto(); t.ParseFromString(open(sys.argv[1], 'rb').read())\n"
                                           "y = h.to_array(t).flatten(); e = np.array([float(v) for v in sys.argv[2:]])\n"
                                           "print(y.shape, float(np.abs(y - e).max()))\n"
                                           "sys.exit(0 if y.shape == e.shape and np.allclose(y, e, atol=1e-4) else 1)\n"),
                            outDir + QStringLiteral("/output_0.pb")} +
                    expected);
    QVERIFY(check.waitForFinished(60000));
    QVERIFY2(check.exitCode() == 0, (check.readAllStandardOutput() + check.readAllStandardError()).constData());

    // dcw-gui opens the .pt itself: the shapes given (it asks when run interactively), the export in its cache.
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), dir.filePath(QStringLiteral("cache")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
    gui.setProcessEnvironment(env);
    const QString shot = dir.filePath(QStringLiteral("shot.png"));
    gui.start(testpaths::gui(), {QStringLiteral("--torch-input"), QStringLiteral("batch=2x8"), QStringLiteral("--screenshot"), shot, pt});
    QVERIFY(gui.waitForFinished(180000));
    QVERIFY2(gui.exitCode() == 0, gui.readAllStandardError().constData());
    QVERIFY(QFileInfo(shot).size() > 0);
    QDirIterator exported(dir.filePath(QStringLiteral("cache")), {QStringLiteral("mlp-*.onnx")}, QDir::Files, QDirIterator::Subdirectories);
    QVERIFY(exported.hasNext());
    // A shape the model rejects: the app reports torch's message for the file and exits with failure.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(testpaths::gui(), {QStringLiteral("--torch-input"), QStringLiteral("2x9"), QStringLiteral("--screenshot"), shot, pt});
    QVERIFY(bad.waitForFinished(180000));
    QVERIFY(bad.exitCode() != 0);
    const QString err = QString::fromUtf8(bad.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("mlp.pt")) && err.contains(QStringLiteral("2x9 and 8x4")), qPrintable(err));
  }

  // A Python file and the name of its nn.Module class: built with no arguments and exported the same way.
  void pythonFileAndClass() {
    QTemporaryDir dir;
    const QString py = dir.filePath(QStringLiteral("net.py")), onnx = dir.filePath(QStringLiteral("net.onnx"));
    QFile f(py);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import torch\n"
            "class Net(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.conv = torch.nn.Conv2d(3, 4, 3)\n"
            "    def forward(self, x):\n"
            "        return torch.relu(self.conv(x)).mean(dim=(2, 3))\n");
    f.close();
    QProcess probe;
    probe.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), QStringLiteral("import torch")});
    QVERIFY(probe.waitForFinished(60000));
    if (QString::fromUtf8(probe.readAllStandardError()).contains(QStringLiteral("No module named 'torch'")))
      QSKIP("python3-torch is not installed");
    QVERIFY2(probe.exitCode() == 0, "torch is installed but does not import");
    io::TorchExportOptions o;
    o.inputs.push_back(*io::parseTorchInput("batch=1x3x16x16"));
    auto missing = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY(!missing);
    QVERIFY(missing.error().message.find("name of the model's class") != std::string::npos);
    o.className = "Nope";
    auto wrong = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY(!wrong);
    QVERIFY2(wrong.error().message.find("defines no 'Nope'") != std::string::npos, wrong.error().message.c_str());
    o.className = "Net";
    auto r = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    auto loaded = io::loadModel(onnx.toStdString());
    QVERIFY2(loaded, loaded ? "" : loaded.error().str().c_str());
    QVERIFY(loaded->sdfg->symbols().count("batch"));

    // A constructor with arguments: given as literals; without them, the error says how to give them.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    f.write("class Wide(torch.nn.Module):\n"
            "    def __init__(self, channels, kernel=3, act='relu'):\n"
            "        super().__init__()\n"
            "        self.conv = torch.nn.Conv2d(3, channels, kernel)\n"
            "        self.act = act\n"
            "    def forward(self, x):\n"
            "        y = self.conv(x)\n"
            "        return (torch.relu(y) if self.act == 'relu' else torch.tanh(y)).mean(dim=(2, 3))\n");
    f.close();
    o.className = "Wide";
    auto bare = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY(!bare);
    QVERIFY2(bare.error().message.find("Wide() fails (give its arguments: --class 'Net(3, hidden=64)'): TypeError") != std::string::npos,
             bare.error().message.c_str());
    o.className = "Wide(6, kernel=5, act='tanh')";
    auto wide = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY2(wide, wide ? "" : wide.error().str().c_str());
    auto six = io::loadModel(onnx.toStdString());
    QVERIFY2(six, six ? "" : six.error().str().c_str());
    bool tanh = false, conv5 = false;
    for (auto* st : six->sdfg->allStates())
      for (auto& n : st->nodes())
        if (auto* l = dynamic_cast<const ir::LibraryNode*>(n.get())) {
          tanh = tanh || l->opType == "Tanh";
          if (l->opType == "Conv")
            for (auto& a : l->attributes) conv5 = conv5 || (a.name == "kernel_shape" && a.str().find('5') != std::string::npos);
        }
    QVERIFY(tanh && conv5);
    o.className = "Wide(__import__('os').getcwd())"; // code, not a literal: refused before anything runs
    auto code = io::exportTorchToOnnx(py.toStdString(), onnx.toStdString(), o);
    QVERIFY(!code);
    QVERIFY2(code.error().message.find("is not NAME or NAME(arguments) with literal arguments") != std::string::npos, code.error().message.c_str());
  }

  void exporterFailuresAreNamed() {
    QTemporaryDir dir;
    const QString pt = dir.filePath(QStringLiteral("mlp.pt"));
    const QString saved = saveTorchModel(pt);
    if (saved.contains(QStringLiteral("No module named 'torch'"))) QSKIP("python3-torch is not installed");
    QVERIFY2(saved.startsWith(QStringLiteral("ok ")), qPrintable(saved));
    io::TorchExportOptions o;
    o.inputs.push_back(*io::parseTorchInput("2x9")); // Linear(8, 4) rejects 9 features
    auto r = io::exportTorchToOnnx(pt.toStdString(), dir.filePath(QStringLiteral("x.onnx")).toStdString(), o);
    QVERIFY(!r);
    QCOMPARE(r.error().location, pt.toStdString());
    QVERIFY2(r.error().message.find("2x9 and 8x4") != std::string::npos, r.error().message.c_str());
    const QString junk = dir.filePath(QStringLiteral("junk.pt"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a zip");
    f.close();
    r = io::exportTorchToOnnx(junk.toStdString(), dir.filePath(QStringLiteral("y.onnx")).toStdString(), o);
    QVERIFY(!r);
    QVERIFY2(r.error().message.find("not a TorchScript file") != std::string::npos, r.error().message.c_str());
    o.inputs.clear();
    r = io::exportTorchToOnnx(pt.toStdString(), dir.filePath(QStringLiteral("z.onnx")).toStdString(), o);
    QVERIFY(!r);
    QVERIFY(r.error().message.find("needs the shapes") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestTorchExport)
#include "tst_TorchExport.moc"
