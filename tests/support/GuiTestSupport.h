// Helpers shared by the suites that drive the dcw-gui MainWindow on the offscreen platform
// (tst_Editing, tst_Workbench, tst_ProfileViews): settings kept apart from the user's, the tiny
// ResNet example, and opening a model the way a user does and waiting until the window has loaded it
// and laid the canvas out. One copy here instead of one per suite.
#pragma once

#include "support/TestPaths.h"
#include "app/gui/MainWindow.h"
#include "views/GraphCanvas.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QString>
#include <QTest>

namespace dcw::testsupport {

// The tiny ResNet example shipped with the sources.
inline const QString kTinyResnet = testpaths::qsource("/resources/examples/tiny_resnet.onnx");

// Test-mode standard paths and settings under an organisation and application of the tests' own.
inline void useTestSettings(const QString& applicationName) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("DCW-tests"));
  QCoreApplication::setApplicationName(applicationName);
}

// Opens `path` in `w` and waits for modelLoaded (60 s) and then for the canvas layout (30 s); false
// when either does not come.
inline bool openModel(gui::MainWindow& w, const QString& path) {
  QSignalSpy loaded(&w, &gui::MainWindow::modelLoaded);
  w.openFile(path);
  if (!QTest::qWaitFor([&] { return loaded.count() == 1; }, 60000)) return false;
  return QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 30000);
}

} // namespace dcw::testsupport
