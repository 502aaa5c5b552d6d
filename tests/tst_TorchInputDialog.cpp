// tst_TorchInputDialog: the dialog that asks what torch's exporter needs (views/TorchInputDialog) — rows
// from inputs and back, dynamic axes by dim, the class of a Python file, and OK off with the reason
// shown while a row does not parse (a size that is not a number, an axis past the last dim).
#include "views/TorchInputDialog.h"

#include <QLabel>
#include <QTest>

using namespace dcw;
using dcw::views::TorchInputDialog;

class TestTorchInputDialog : public QObject {
  Q_OBJECT

private slots:
  void rowsAndBack() {
    TorchInputDialog d(QStringLiteral("bert.pt"), false);
    d.setInputs({*io::parseTorchInput("batch=1xsequence=128:int64"), *io::parseTorchInput("1x128:int64")});
    QVERIFY(d.acceptable());
    auto in = d.inputs();
    QVERIFY(in);
    QCOMPARE(in->size(), size_t(2));
    QCOMPARE(io::torchInputText((*in)[0]), std::string("batch=1xsequence=128:int64"));
    QCOMPARE(io::torchInputText((*in)[1]), std::string("1x128:int64"));
    // Typed by hand: an image batch with dynamic batch and height.
    d.setRow(1, QStringLiteral("2x3x224x224"), QStringLiteral("0=batch, 2=height"), QStringLiteral("float32"));
    in = d.inputs();
    QVERIFY(in);
    QCOMPARE(io::torchInputText((*in)[1]), std::string("batch=2x3xheight=224x224"));
    d.removeInput(0);
    QCOMPARE(d.inputs()->size(), size_t(1));
  }

  void badRowsKeepOkOff() {
    TorchInputDialog d(QStringLiteral("net.py"), true);
    d.setClassName(QStringLiteral("Net"));
    d.setInputs({*io::parseTorchInput("1x3x32x32")});
    QVERIFY(d.acceptable());
    auto* problem = d.findChild<QLabel*>(QStringLiteral("torchInputProblem"));
    QVERIFY(problem);
    d.setRow(0, QStringLiteral("1x3xbig"), QString(), QStringLiteral("float32"));
    QVERIFY(!d.acceptable());
    QVERIFY2(problem->text().contains(QStringLiteral("input 1")) && problem->text().contains(QStringLiteral("big")),
             qPrintable(problem->text()));
    d.setRow(0, QStringLiteral("1x3x32x32"), QStringLiteral("4=batch"), QStringLiteral("float32")); // only 4 dims
    QVERIFY(!d.acceptable());
    QVERIFY2(problem->text().contains(QStringLiteral("4=batch")), qPrintable(problem->text()));
    d.setRow(0, QStringLiteral("1x3x32x32"), QStringLiteral("0=batch"), QStringLiteral("float64"));
    QVERIFY(d.acceptable());
    QCOMPARE(io::torchInputText(d.inputs()->front()), std::string("batch=1x3x32x32:float64"));
    d.setClassName(QString());
    QVERIFY(!d.acceptable()); // a Python file needs its class
    d.setClassName(QStringLiteral("Net"));
    d.removeInput(0);
    QVERIFY(!d.acceptable()); // forward() takes something
  }
};

QTEST_MAIN(TestTorchInputDialog)
#include "tst_TorchInputDialog.moc"
