// tst_PipelineParity: the app and the command line go through one pipeline (pipeline/Pipeline.h). The
// code the app's Code panel shows after a history of steps is byte-identical to what `dcw codegen
// --script` writes for the script the app exports from that history, source map included; and the
// program `dcw run` builds from it computes what the pipeline's own build computes.
#include "support/TestPaths.h"
#include "app/gui/MainWindow.h"
#include "core/edit/History.h"
#include "pipeline/Pipeline.h"
#include "support/CliRunner.h"
#include "views/CodeView.h"

#include <Qsci/qsciscintilla.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using clisupport::kExample;
using clisupport::Run;

class TestPipelineParity : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DCW-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_PipelineParity"));
    QSettings().clear();
    qputenv("DCW_CACHE_DIR", testpaths::kernelCache().c_str());
  }

  void codePanelEqualsDcwCodegen_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("steps");
    QTest::addColumn<QString>("expectInCode");
    // The steps of the shipped example script, each one history step in the app.
    QTest::newRow("tiny_resnet with tiling") << clisupport::kExample
                                             << QStringList{
                                                    "apply ExpandLibraryNode node=main/state0/block1.conv1.Conv",
                                                    "apply MapTiling entry=main/state0/block1.conv1.Conv/compute1/conv_map tile_sizes=4",
                                                    "set main/state0/block1.conv1.Conv/compute1/conv_map_tiles schedule=cpu_multicore",
                                                    "rename main/state0/block1.relu.Relu relu_1",
                                                }
                                             << "conv_map_tiles";
    // Shape -> Reshape: constant folding is part of the one pipeline (the app's copy once skipped it).
    QTest::newRow("folded shape arithmetic")
        << QStringLiteral("/usr/share/libonnx-testdata/data/node/test_sce_NCd1_mean_weight_negative_ii_expanded/model.onnx")
        << QStringList{} << "dcw_program";
  }
  void codePanelEqualsDcwCodegen() {
    QFETCH(QString, model);
    QFETCH(QStringList, steps);
    QFETCH(QString, expectInCode);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    dcw::gui::MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QSignalSpy generated(&w, &dcw::gui::MainWindow::codeGenerated);
    w.openFile(model);
    QVERIFY(generated.wait(120000));
    for (auto& s : steps) QVERIFY2(w.executeCommand(s), qPrintable(s));
    QCOMPARE(int(w.history()->position()), steps.size());
    if (!steps.isEmpty()) {
      generated.clear();
      QVERIFY(generated.wait(120000));
    }
    QVERIFY2(generated.last().at(1).toBool(), qPrintable(w.codeView()->message()));
    const QString shown = w.codeView()->editor()->text();
    QVERIFY(shown.contains(expectInCode));

    const QString script = dir.filePath(QStringLiteral("steps.dcws"));
    QString error;
    QVERIFY2(w.exportScript(script, &error), qPrintable(error));
    const QString out = dir.filePath(QStringLiteral("gen"));
    Run r = clisupport::dcw({"codegen", model, "--script", script, "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile f(out + QStringLiteral("/program.cpp"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray written = f.readAll();
    QCOMPARE(shown.toUtf8().size(), written.size());
    QVERIFY2(shown.toUtf8() == written, "the Code panel and `dcw codegen --script` differ");

    // The source maps agree entry by entry.
    QFile mapFile(out + QStringLiteral("/program.sourcemap.json"));
    QVERIFY(mapFile.open(QIODevice::ReadOnly));
    QJsonArray map = QJsonDocument::fromJson(mapFile.readAll()).array();
    const auto& panelMap = w.codeView()->sourceMap();
    QCOMPARE(size_t(map.size()), panelMap.size());
    for (qsizetype i = 0; i < map.size(); ++i) {
      QJsonObject e = map[i].toObject();
      QCOMPARE(e["first_line"].toInt(), panelMap[size_t(i)].firstLine);
      QCOMPARE(e["last_line"].toInt(), panelMap[size_t(i)].lastLine);
      QCOMPARE(e["path"].toString().toStdString(), panelMap[size_t(i)].path);
    }
  }

  // The same history given as lines (the app) and as a script file (the CLI) prepares the same IR and
  // the same code through the pipeline's two ways of taking steps.
  void linesAndScriptFileAgree() {
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("s.dcws"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("dcw-script 1\n"
            "apply ExpandLibraryNode node=main/state0/block1.conv1.Conv\n"
            "set main/state0/block1.conv1.Conv/compute1/conv_map schedule=sequential\n");
    f.close();
    dcw::pipeline::Steps fromFile;
    fromFile.scriptPath = script.toStdString();
    dcw::pipeline::Steps fromLines;
    fromLines.lines = {"apply ExpandLibraryNode node=main/state0/block1.conv1.Conv",
                       "set main/state0/block1.conv1.Conv/compute1/conv_map schedule=sequential"};
    auto a = dcw::pipeline::prepare(kExample.toStdString(), fromFile);
    auto b = dcw::pipeline::prepare(kExample.toStdString(), fromLines);
    QVERIFY2(bool(a), a ? "" : a.error().str().c_str());
    QVERIFY2(bool(b), b ? "" : b.error().str().c_str());
    auto ca = dcw::pipeline::generate(*a);
    auto cb = dcw::pipeline::generate(*b);
    QVERIFY(bool(ca) && bool(cb));
    QVERIFY(ca->source == cb->source);
    QVERIFY(ca->source.find("sequential") != std::string::npos || ca->source.find("#pragma omp") != std::string::npos);
  }

  // A step that does not fit is located at its history line, at the Steps stage.
  void badStepIsLocated() {
    dcw::pipeline::Steps s;
    s.lines = {"apply ExpandLibraryNode node=main/state0/block1.conv1.Conv", "set main/state0/no_such_node schedule=sequential"};
    auto p = dcw::pipeline::prepare(kExample.toStdString(), s);
    QVERIFY(!p);
    QCOMPARE(p.failure().stage, dcw::pipeline::Stage::Steps);
    QVERIFY2(p.error().str().find("history:2") != std::string::npos, p.error().str().c_str());
    QVERIFY2(p.error().str().find("no_such_node") != std::string::npos, p.error().str().c_str());
  }
};

QTEST_MAIN(TestPipelineParity)
#include "tst_PipelineParity.moc"
