// dcw-gui: the DCW desktop workbench.
//
//   dcw-gui [MODEL]                                  open MODEL (.onnx or .dcw.json) at start
//   dcw-gui --screenshot OUT.png [--size WxH] MODEL  headless: load, save a picture of the window, exit
//
// --screenshot exits 0 when the picture is written, 2 when the model cannot be loaded (the reason is
// printed as `error: <file>: <message>`), 1 on bad usage or when the picture cannot be written. It
// picks the offscreen platform by itself when QT_QPA_PLATFORM is unset, so it runs without a display.
#include "app/gui/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QImage>
#include <QPixmap>
#include <QRegularExpression>
#include <QTimer>

#include <cstdio>
#include <cstring>

namespace {

// Headless runs (a screenshot, or --help/--version without a display) must not need a windowing
// system; choose the offscreen platform before QApplication picks one, unless the user chose.
void chooseHeadlessPlatform(int argc, char** argv) {
  if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) return;
  bool noDisplay = !qEnvironmentVariableIsSet("DISPLAY") && !qEnvironmentVariableIsSet("WAYLAND_DISPLAY");
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    bool shot = std::strncmp(a, "--screenshot", 12) == 0;
    bool info = std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0 || std::strcmp(a, "--version") == 0 ||
                std::strcmp(a, "-v") == 0;
    if (shot || (info && noDisplay)) {
      qputenv("QT_QPA_PLATFORM", "offscreen");
      return;
    }
  }
}

// The offscreen platform warns about things that only matter on a real screen; in headless runs
// those lines would bury the one `error:` line that scripts read. Everything else passes through.
QtMessageHandler previousHandler = nullptr;
void quietHeadlessNoise(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (type == QtWarningMsg && (message.startsWith(QLatin1String("This plugin does not support")) ||
                               message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set"))))
    return;
  if (previousHandler) previousHandler(type, context, message);
}

int fail(const QString& message, int code) {
  std::fprintf(stderr, "error: %s\n", qPrintable(message));
  return code;
}

} // namespace

int main(int argc, char** argv) {
  chooseHeadlessPlatform(argc, argv);
  if (qgetenv("QT_QPA_PLATFORM") == "offscreen") previousHandler = qInstallMessageHandler(quietHeadlessNoise);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("DCW"));
  QApplication::setApplicationName(QStringLiteral("dcw-gui"));
  QApplication::setApplicationDisplayName(QStringLiteral("DCW"));
  QApplication::setApplicationVersion(QStringLiteral(DCW_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("DCW, the Data-Centric Workbench: ONNX models as data-centric dataflow graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Load MODEL, save a picture of the window to OUT.png and exit."),
                                QStringLiteral("OUT.png"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1400x900."), QStringLiteral("WxH"));
  parser.addOption(screenshot);
  parser.addOption(size);
  parser.addPositionalArgument(QStringLiteral("MODEL"),
                               QStringLiteral("An ONNX model (.onnx) or a saved SDFG (.dcw.json) to open."),
                               QStringLiteral("[MODEL]"));
  parser.process(app); // exits for --help, --version and unknown options

  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) return fail(QStringLiteral("expected at most one MODEL, got %1").arg(args.size()), 1);
  const QString model = args.value(0);

  dcw::gui::MainWindow window;
  if (parser.isSet(size)) {
    static const QRegularExpression re(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
    auto m = re.match(parser.value(size));
    if (!m.hasMatch()) return fail(QStringLiteral("--size: expected WxH, e.g. 1400x900, got '%1'").arg(parser.value(size)), 1);
    window.resize(m.captured(1).toInt(), m.captured(2).toInt());
  }

  if (!parser.isSet(screenshot)) {
    window.show();
    if (!model.isEmpty()) window.openFile(model);
    return app.exec();
  }

  // Headless screenshot.
  const QString out = parser.value(screenshot);
  window.setShowsDialogs(false);
  window.show();
  auto grab = [&window, out] {
    QImage image = window.grab().toImage();
    if (image.isNull() || !image.save(out)) {
      fail(QStringLiteral("%1: cannot write the image").arg(out), 1);
      QCoreApplication::exit(1);
      return;
    }
    QCoreApplication::exit(0);
  };
  // Grab from the event loop, after layouts and pending updates have been processed.
  QObject::connect(&window, &dcw::gui::MainWindow::modelLoaded, &window, [grab] { QTimer::singleShot(0, grab); });
  QObject::connect(&window, &dcw::gui::MainWindow::loadFailed, &window, [](const QString& message) {
    fail(message, 2);
    QCoreApplication::exit(2);
  });
  if (model.isEmpty())
    QTimer::singleShot(0, grab);
  else
    window.openFile(model);
  return app.exec();
}
