// tst_Workbench: the dcw-gui window as a whole on the offscreen platform — opening tiny_resnet lays
// out the canvas; one shared selection (a canvas click intent, an outline row and a problem all
// select the same element in the canvas, outline, inspector and weight viewer); search from the
// toolbar; overlays and status-bar totals that follow the symbol values; themes; SVG export with the
// node names; and the bad-file path with dialogs on (the error dialog names the file, the app stays
// usable and keeps the previous model).
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "app/gui/MainWindow.h"
#include "support/GuiTestSupport.h"

#include "core/ir/Sdfg.h"
#include "views/GraphCanvas.h"
#include "views/OutlineModel.h"
#include "views/PropertyModel.h"
#include "views/Selection.h"
#include "views/SymbolsView.h"
#include "views/WeightView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using dcw::gui::MainWindow;
using namespace dcw;
using dcw::testsupport::openModel;

namespace {
const QString& kModel = testsupport::kTinyResnet;

ir::ElementId idOf(const ir::Sdfg& s, const std::string& label, ir::ElementKind kind) {
  ir::ElementId found = ir::kNoId;
  s.forEachElement([&](const ir::Element& e) {
    if (found == ir::kNoId && e.label() == label && e.kind() == kind) found = e.id();
  });
  return found;
}
} // namespace

class TestWorkbench : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    testsupport::useTestSettings(QStringLiteral("tst_Workbench"));
    QSettings().clear();
    DCW_REQUIRE_FIXTURE(kModel);
  }

  void selectionIsShared() {
    MainWindow w;
    w.setShowsDialogs(false);
    QAbstractItemModelTester tester(w.inspectorModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    w.show();
    w.canvas()->setModuleGroups(false); // the flat SDFG: every op is a node of the export below
    QVERIFY(openModel(w, kModel));
    QVERIFY(w.canvas()->visualGraph()->nodes.size() > 20);
    const ir::Sdfg& s = *w.sdfg();
    ir::ElementId conv = idOf(s, "block1.conv1.Conv", ir::ElementKind::LibraryNode);
    QVERIFY(conv != ir::kNoId);

    // Canvas intent -> selection -> outline, inspector.
    emit w.canvas()->selectionRequested(conv);
    QCOMPARE(w.selection()->current(), conv);
    QCOMPARE(w.canvas()->shownSelection(), conv);
    QCOMPARE(w.outlineModel()->idForIndex(w.outlineView()->currentIndex()), conv);
    QCOMPARE(w.inspectorModel()->element(), conv);
    QCOMPARE(w.inspectorModel()->value(QStringLiteral("Operator"), QStringLiteral("Class")), QStringLiteral("Conv"));

    // Outline row -> selection -> canvas. A weight (constant access node) fills the weight viewer.
    ir::ElementId weight = idOf(s, "block1.conv1.weight", ir::ElementKind::AccessNode);
    QVERIFY(weight != ir::kNoId);
    w.outlineView()->setCurrentIndex(w.outlineModel()->indexForId(weight));
    QCOMPARE(w.selection()->current(), weight);
    QCOMPARE(w.canvas()->shownSelection(), weight);
    QVERIFY(w.weightView()->showsWeights());
    QCOMPARE(w.weightView()->stats().count, int64_t(16 * 16 * 3 * 3));

    // A click on the canvas selects what is under the cursor.
    QTRY_VERIFY(!w.canvas()->isLayoutPending());
    ir::ElementId relu = idOf(s, "block1.relu.Relu", ir::ElementKind::LibraryNode);
    w.canvas()->showSelection(relu); // scrolls it into view
    QPoint at = w.canvas()->mapFromScene(w.canvas()->sceneRectOf(relu).center());
    QTest::mouseClick(w.canvas()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(w.selection()->current(), relu);
    QCOMPARE(w.outlineModel()->idForIndex(w.outlineView()->currentIndex()), relu);
  }

  void searchOverlayThemeExport() {
    MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QVERIFY(openModel(w, kModel));
    w.searchField()->setText(QStringLiteral("conv"));
    QVERIFY(w.canvas()->matchCount() > 3);
    QTest::keyClick(w.searchField(), Qt::Key_Return); // next
    QCOMPARE(w.canvas()->currentMatch(), 0);
    QCOMPARE(w.selection()->current(), w.canvas()->currentMatchElement());

    // Totals and overlays follow the symbol values.
    QVERIFY(w.totalsLabel()->text().contains(QStringLiteral("Params")));
    QVERIFY(w.totalsLabel()->text().contains(QStringLiteral("batch=1")));
    const QString before = w.totalsLabel()->text();
    w.symbolsView()->setValue("batch", 8);
    QVERIFY(w.totalsLabel()->text().contains(QStringLiteral("batch=8")));
    QVERIFY(w.totalsLabel()->text() != before);
    w.setOverlay(MainWindow::Overlay::Flops);
    QVERIFY(w.canvas()->hasOverlay());
    w.setOverlay(MainWindow::Overlay::None);
    QVERIFY(!w.canvas()->hasOverlay());

    w.setTheme(views::ThemeKind::Dark);
    QCOMPARE(w.canvas()->theme(), views::ThemeKind::Dark);
    QVERIFY(qApp->palette().color(QPalette::Window).lightness() < 100);
    w.setTheme(views::ThemeKind::Light);

    w.canvas()->setModuleGroups(false); // the flat SDFG: every op is a node of the export
    QTRY_VERIFY_WITH_TIMEOUT(!w.canvas()->isLayoutPending(), 30000);
    QTemporaryDir dir;
    QString svg = dir.filePath(QStringLiteral("m.svg")), error;
    QVERIFY2(w.canvas()->exportSvg(svg, views::GraphCanvas::ExportRegion::WholeGraph, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    for (const char* name : {"block1.conv1.Conv", "BatchNormalization", "logits"}) QVERIFY2(text.contains(name), name);
  }

  void badFileDialog() {
    MainWindow w; // dialogs on, as in the app
    w.show();
    QVERIFY(openModel(w, kModel));
    const ir::Sdfg* before = w.sdfg();
    const QString bad = testpaths::qsource("/tests/data/bad/truncated.onnx");
    DCW_REQUIRE_FIXTURE(bad);
    QString dialogText;
    QTimer closer;
    connect(&closer, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        dialogText = box->text();
        box->accept();
      }
    });
    closer.start(20);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(bad);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!dialogText.isEmpty(), 10000);
    QVERIFY2(dialogText.contains(QStringLiteral("truncated.onnx")), qPrintable(dialogText));
    // Still usable, previous model on screen.
    QCOMPARE(w.sdfg(), before);
    QVERIFY(w.canvas()->visualGraph());
    w.canvas()->expandAll();
    QTRY_VERIFY(!w.canvas()->isLayoutPending());
  }
};

QTEST_MAIN(TestWorkbench)
#include "tst_Workbench.moc"
