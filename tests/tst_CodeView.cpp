// tst_CodeView: the generated-code panel — source map marks and scrolling, clicks naming the innermost
// element, messages; and in the workbench, the Code dock following the canvas selection by path.
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "views/CodeView.h"

#include "app/gui/MainWindow.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "views/Selection.h"

#include <Qsci/qscilexer.h>
#include <Qsci/qsciscintilla.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using dcw::codegen::SourceMapEntry;
using dcw::views::CodeView;

namespace {

// 60 lines; element 1 spans 1-60 (the program), 2 spans 10-40 (a map), 3 spans 20-25 and 30-32 (a
// tasklet emitted twice), 4 spans 50-55.
QString sampleSource() {
  QStringList lines;
  for (int i = 1; i <= 60; ++i) lines << QStringLiteral("int v%1 = %1; // line %1").arg(i);
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

std::vector<SourceMapEntry> sampleMap() {
  return {{1, 60, 1, "main"}, {10, 40, 2, "main/s0/map"}, {20, 25, 3, "main/s0/map/t"},
          {30, 32, 3, "main/s0/map/t"}, {50, 55, 4, "main/s0/other"}};
}

QPoint pointOfLine(QsciScintilla* ed, int line1) {
  long pos = ed->positionFromLineIndex(line1 - 1, 2);
  int x = int(ed->SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0L, pos));
  int y = int(ed->SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0L, pos));
  int h = int(ed->SendScintilla(QsciScintillaBase::SCI_TEXTHEIGHT, long(line1 - 1)));
  return {x + 2, y + h / 2};
}

} // namespace

class TestCodeView : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DCW-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_CodeView"));
    QSettings().clear();
  }

  void showsCodeReadOnly() {
    CodeView v;
    v.setCode(sampleSource(), sampleMap());
    QCOMPARE(v.editor()->lines(), 61);
    QVERIFY(v.editor()->isReadOnly());
    QVERIFY(v.editor()->text().startsWith(QStringLiteral("int v1 = 1;")));
    QVERIFY(v.message().isEmpty());
    QCOMPARE(v.sourceMap().size(), size_t(5));
  }

  void innermostEntry() {
    CodeView v;
    v.setCode(sampleSource(), sampleMap());
    QCOMPARE(v.entryAt(5)->element, dcw::ir::ElementId(1));
    QCOMPARE(v.entryAt(15)->element, dcw::ir::ElementId(2));
    QCOMPARE(v.entryAt(22)->element, dcw::ir::ElementId(3));
    QCOMPARE(v.entryAt(31)->element, dcw::ir::ElementId(3));
    QCOMPARE(v.entryAt(52)->element, dcw::ir::ElementId(4));
    QVERIFY(v.entryAt(61) == nullptr);
  }

  void highlightMarksAndScrolls() {
    CodeView v;
    v.resize(600, 200); // about ten lines visible
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setCode(sampleSource(), sampleMap());
    QCOMPARE(v.firstVisibleLine(), 1);

    v.highlightElement(3);
    std::vector<int> expected;
    for (int l = 20; l <= 25; ++l) expected.push_back(l);
    for (int l = 30; l <= 32; ++l) expected.push_back(l);
    QCOMPARE(v.markedLines(), expected);
    QVERIFY2(v.firstVisibleLine() > 10 && v.firstVisibleLine() <= 20, qPrintable(QString::number(v.firstVisibleLine())));

    v.highlightPath("main/s0/other");
    expected.clear();
    for (int l = 50; l <= 55; ++l) expected.push_back(l);
    QCOMPARE(v.markedLines(), expected);
    QVERIFY2(v.firstVisibleLine() > 40 && v.firstVisibleLine() <= 50, qPrintable(QString::number(v.firstVisibleLine())));

    v.highlightElement(dcw::ir::kNoId);
    QVERIFY(v.markedLines().empty());
    v.highlightElement(99); // not in the map: nothing marked, no crash
    QVERIFY(v.markedLines().empty());
  }

  void clickEmitsInnermostElement() {
    CodeView v;
    v.resize(600, 400);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    v.setCode(sampleSource(), sampleMap());
    QSignalSpy clicked(&v, &CodeView::elementClicked);
    QSignalSpy paths(&v, &CodeView::pathClicked);

    v.editor()->setFirstVisibleLine(0);
    QTest::mouseClick(v.editor()->viewport(), Qt::LeftButton, {}, pointOfLine(v.editor(), 12));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).toULongLong(), 2ull);
    QCOMPARE(paths.at(0).at(0).toString(), QStringLiteral("main/s0/map"));

    v.editor()->setFirstVisibleLine(15);
    QTest::mouseClick(v.editor()->viewport(), Qt::LeftButton, {}, pointOfLine(v.editor(), 21));
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(clicked.at(1).at(0).toULongLong(), 3ull);

    v.activateLine(3);
    QCOMPARE(clicked.at(2).at(0).toULongLong(), 1ull);
    v.activateLine(100); // outside every range: nothing
    QCOMPARE(clicked.count(), 3);
  }

  void messageAndTheme() {
    CodeView v;
    v.setCode(sampleSource(), sampleMap());
    v.setMessage(QStringLiteral("no implementation for op Foo"));
    QCOMPARE(v.message(), QStringLiteral("no implementation for op Foo"));
    QVERIFY(v.sourceMap().empty());
    v.setTheme(dcw::views::ThemeKind::Dark);
    QCOMPARE(v.editor()->lexer()->paper(0), dcw::views::CanvasTheme::dark().background);
    v.setTheme(dcw::views::ThemeKind::Light);
    QCOMPARE(v.editor()->lexer()->paper(0), dcw::views::CanvasTheme::light().background);
  }

  // The workbench generates code for a copy of the model in the background; the displayed model keeps
  // its library nodes, and selection follows by path in both directions.
  void workbenchCodeDock() {
    const QString file = testpaths::qsource("/resources/examples/tiny_resnet.onnx");
    DCW_REQUIRE_FIXTURE(file);
    dcw::gui::MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QSignalSpy generated(&w, &dcw::gui::MainWindow::codeGenerated);
    w.openFile(file);
    QVERIFY(generated.wait(120000));
    CodeView* code = w.codeView();
    qInfo("code generated: %s, %d lines, %d map entries", generated.at(0).at(1).toBool() ? "yes" : "no",
          code->editor()->lines(), int(code->sourceMap().size()));
    if (!generated.at(0).at(1).toBool()) {
      // Generation may legitimately fail for an op without implementation: a message, no crash.
      QVERIFY(!code->message().isEmpty());
      return;
    }
    QVERIFY(code->editor()->lines() > 10);
    QVERIFY(!code->sourceMap().empty());

    // Find an element of the displayed model whose path has code, select it: its lines are marked.
    const dcw::ir::Sdfg& sdfg = *w.sdfg();
    dcw::ir::PathIndex index(sdfg);
    const SourceMapEntry* target = nullptr;
    dcw::ir::ElementId modelId = dcw::ir::kNoId;
    for (const auto& e : code->sourceMap()) {
      if (e.path.find('/') == std::string::npos) continue;
      dcw::ir::ElementId id = index.idOf(e.path);
      if (id == dcw::ir::kNoId) continue;
      if (!target || e.lastLine - e.firstLine < target->lastLine - target->firstLine) {
        target = &e;
        modelId = id;
      }
    }
    QVERIFY(target);
    w.select(modelId);
    auto marked = code->markedLines();
    QVERIFY(!marked.empty());
    QVERIFY(std::find(marked.begin(), marked.end(), target->firstLine) != marked.end());

    // Clicking a line selects the model element with the same path.
    w.select(dcw::ir::kNoId);
    const std::string targetPath = target->path;
    const int line = target->firstLine;
    // The innermost entry at that line may be a deeper one (a nested element); resolve what we expect.
    const SourceMapEntry* inner = code->entryAt(line);
    QVERIFY(inner);
    dcw::ir::ElementId expected = index.idOf(inner->path);
    code->activateLine(line);
    if (expected != dcw::ir::kNoId) QCOMPARE(w.selection()->current(), expected);
    Q_UNUSED(targetPath);

    // Theme follows the window.
    w.setTheme(dcw::views::ThemeKind::Dark);
    QCOMPARE(code->editor()->lexer()->paper(0), dcw::views::CanvasTheme::dark().background);
    w.setTheme(dcw::views::ThemeKind::Light);
  }
};

QTEST_MAIN(TestCodeView)
#include "tst_CodeView.moc"
