// dcw-gui: the DCW desktop workbench.
//
//   dcw-gui [MODEL]                                    open MODEL (.onnx, .dcw.json or .dcwproj) at start;
//                                                      without one, offers to recover autosaved work
//                                                      (autosaves it cannot read are reported, and kept)
//   dcw-gui --recover [--print-autosaves] ...          for automation: reopen the newest recoverable autosave
//                                                      without asking; print `autosaved: steps=N position=P
//                                                      file=PATH` on stderr each time the session is on disk
//   dcw-gui [--script S.dcws] [--select PATH] ...       replay a script into the history / select an element
//   dcw-gui --profile [--target cpu|fpga-sim|cuda|cuda-sim] [--profile-view table|timeline|roofline|fpga] [--overlay time|gflops|gbs] ...   profile after loading
//   dcw-gui --screenshot OUT.png [--expand-all] [--theme dark|light] [--size WxH] [--overlay KIND] MODEL
//                                                      headless: load, lay out, save a picture of the window
//   dcw-gui --export-svg OUT.svg [--expand-all] [--theme dark|light] MODEL
//                                                      headless: the whole graph as SVG (text kept as text)
//
// Headless runs exit 0 when the file is written, 2 when the model cannot be loaded (the reason is
// printed as `error: <file>: <message>`), 1 on bad usage or when the file cannot be written. They
// pick the offscreen platform by themselves when QT_QPA_PLATFORM is unset, so no display is needed.
// With DCW_TIMING=1 in the environment, milestones (loaded, laid out, first paint) are printed to
// stderr in milliseconds since main() started.
#include "app/gui/MainWindow.h"
#include "core/ir/Path.h"
#include "transforms/Script.h"
#include "views/CompareView.h"
#include "views/GraphCanvas.h"
#include "views/ProfilePanel.h"

#include <QTabWidget>

#include <QApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QStyleFactory>
#include <QImage>
#include <QLabel>
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
    bool shot = std::strncmp(a, "--screenshot", 12) == 0 || std::strncmp(a, "--export-svg", 12) == 0;
    bool info = std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help-all") == 0 ||
                std::strcmp(a, "--version") == 0 || std::strcmp(a, "-v") == 0;
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
  QElapsedTimer sinceStart;
  sinceStart.start();
  chooseHeadlessPlatform(argc, argv);
  if (qgetenv("QT_QPA_PLATFORM") == "offscreen") previousHandler = qInstallMessageHandler(quietHeadlessNoise);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("DCW"));
  QApplication::setApplicationName(QStringLiteral("dcw-gui"));
  QApplication::setApplicationDisplayName(QStringLiteral("DCW"));
  QApplication::setApplicationVersion(QStringLiteral(DCW_VERSION));
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("DCW, the Data-Centric Workbench: ONNX models as data-centric dataflow graphs."));
  const QCommandLineOption helpOption = parser.addHelpOption();
  const QCommandLineOption versionOption = parser.addVersionOption();
  QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                QStringLiteral("Load MODEL, save a picture of the window to OUT.png and exit."),
                                QStringLiteral("OUT.png"));
  QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1400x900."), QStringLiteral("WxH"));
  QCommandLineOption torchInput(QStringLiteral("torch-input"),
                                QStringLiteral("For a TorchScript MODEL (.pt): the shapes of forward()'s inputs, space-separated, as "
                                               "`dcw import-torch --input` takes them (e.g. 'batch=1x3x224x224'); without it the app asks."),
                                QStringLiteral("SPECS"));
  QCommandLineOption compareOpt(QStringLiteral("compare"),
                                QStringLiteral("After loading (and --script), compare with OTHER, a model file, 'imported' (this "
                                               "model as imported) or step:K (this model after K steps of the history) in the compare window (File > Compare); with --screenshot, the "
                                               "picture is of that window."),
                                QStringLiteral("OTHER"));
  QCommandLineOption torchClass(QStringLiteral("torch-class"),
                                QStringLiteral("For a Python MODEL (.py): the nn.Module class to build, Net or 'Net(3, hidden=64)' (literal arguments); without it the app asks."),
                                QStringLiteral("CLASS"));
  QCommandLineOption zoomOpt(QStringLiteral("zoom"),
                             QStringLiteral("With --screenshot: the canvas's zoom for the picture, 'fit' (the whole graph) or a scale "
                                            "(1 = 100%)."),
                             QStringLiteral("fit|SCALE"));
  QCommandLineOption exportSvg(QStringLiteral("export-svg"),
                               QStringLiteral("Load MODEL, write the whole graph as SVG to OUT.svg and exit."),
                               QStringLiteral("OUT.svg"));
  QCommandLineOption expandAll(QStringLiteral("expand-all"),
                               QStringLiteral("Open every state, map, library node and nested SDFG first."));
  QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("Colour theme: light or dark."),
                           QStringLiteral("dark|light"));
  QCommandLineOption overlay(QStringLiteral("overlay"), QStringLiteral("Canvas overlay: params, flops, bytes; after a profile time, gflops, gbs, fpga (FPGA cycles)."),
                             QStringLiteral("KIND"));
  QCommandLineOption script(QStringLiteral("script"),
                            QStringLiteral("After loading, replay this DCW script: each command becomes a history step."),
                            QStringLiteral("S.dcws"));
  QCommandLineOption selectPath(QStringLiteral("select"), QStringLiteral("After loading, select the element or module group (main/state0/module:block1) at PATH."),
                                QStringLiteral("PATH"));
  QCommandLineOption profileOpt(QStringLiteral("profile"),
                                QStringLiteral("After loading (and --script), profile the model (Run ▸ Profile); with "
                                               "--screenshot, the picture is taken when the profile is shown."));
  QCommandLineOption profileTab(QStringLiteral("profile-view"), QStringLiteral("Profile tab to show: table, timeline, roofline, fpga."),
                                QStringLiteral("VIEW"));
  QCommandLineOption targetOpt(QStringLiteral("target"),
                               QStringLiteral("Target that Profile builds for and the Code panel shows (Run ▸ Target): cpu, fpga-sim, cuda, cuda-sim."),
                               QStringLiteral("TARGET"));
  QCommandLineOption rtlOpt(QStringLiteral("rtl"),
                            QStringLiteral("With an FPGA target, Profile also simulates the kernels RTL covers with Verilator "
                                           "(Run ▸ Target ▸ Also Simulate FPGA Kernels as RTL)."));
  QCommandLineOption recoverOpt(QStringLiteral("recover"),
                                QStringLiteral("Without MODEL: reopen the newest recoverable autosave without asking "
                                               "(for automation; unreadable autosaves are reported on stderr)."));
  QCommandLineOption printAutosaves(QStringLiteral("print-autosaves"),
                                    QStringLiteral("Print 'autosaved: steps=N position=P file=PATH' on stderr each time "
                                                   "the session is autosaved, i.e. on disk (for automation)."));
  parser.addOption(recoverOpt);
  parser.addOption(printAutosaves);
  parser.addOption(profileOpt);
  parser.addOption(profileTab);
  parser.addOption(targetOpt);
  parser.addOption(rtlOpt);
  parser.addOption(script);
  parser.addOption(selectPath);
  parser.addOption(screenshot);
  parser.addOption(exportSvg);
  parser.addOption(expandAll);
  parser.addOption(theme);
  parser.addOption(overlay);
  parser.addOption(size);
  parser.addOption(zoomOpt);
  parser.addOption(compareOpt);
  parser.addOption(torchClass);
  parser.addOption(torchInput);
  parser.addPositionalArgument(QStringLiteral("MODEL"),
                               QStringLiteral("An ONNX model (.onnx) or a saved SDFG (.dcw.json) to open."),
                               QStringLiteral("[MODEL]"));
  // As QCommandLineParser::process, but the help ends with where the documentation is.
  if (!parser.parse(QCoreApplication::arguments())) return fail(parser.errorText(), 1);
  if (parser.isSet(versionOption)) parser.showVersion(); // exits
  if (parser.isSet(helpOption) || parser.optionNames().contains(QStringLiteral("help-all"))) {
    std::fprintf(stdout, "%s\nMore: README.md (the ten-minute tour, also under Help > Tour) and docs/ in DCW's source tree.\n",
                 qPrintable(parser.helpText()));
    return 0;
  }

  const QStringList args = parser.positionalArguments();
  if (args.size() > 1) return fail(QStringLiteral("expected at most one MODEL, got %1").arg(args.size()), 1);
  const QString model = args.value(0);

  dcw::gui::MainWindow window;
  if (parser.isSet(torchInput)) window.setTorchInputs(parser.value(torchInput));
  if (parser.isSet(torchClass)) window.setTorchClass(parser.value(torchClass));
  const bool timing = qEnvironmentVariableIntValue("DCW_TIMING") != 0;
  auto milestone = [timing, &sinceStart](const char* what) {
    if (timing) std::fprintf(stderr, "timing: %-12s %6lld ms\n", what, (long long)sinceStart.elapsed());
  };
  QObject::connect(&window, &dcw::gui::MainWindow::modelLoaded, &window, [milestone] { milestone("loaded"); });
  QObject::connect(window.canvas(), &dcw::views::GraphCanvas::layoutFinished, &window, [milestone] { milestone("laid out"); });
  QObject::connect(window.canvas(), &dcw::views::GraphCanvas::firstPainted, &window, [milestone] { milestone("first paint"); });
  if (parser.isSet(printAutosaves))
    QObject::connect(&window, &dcw::gui::MainWindow::autosaved, &window,
                     [](const QString& file, qulonglong steps, qulonglong position) {
      std::fprintf(stderr, "autosaved: steps=%llu position=%llu file=%s\n", steps, position, qPrintable(file));
      std::fflush(stderr);
    });
  if (parser.isSet(size)) {
    static const QRegularExpression re(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
    auto m = re.match(parser.value(size));
    if (!m.hasMatch()) return fail(QStringLiteral("--size: expected WxH, e.g. 1400x900, got '%1'").arg(parser.value(size)), 1);
    window.resize(m.captured(1).toInt(), m.captured(2).toInt());
  }
  if (parser.isSet(theme)) {
    auto kind = dcw::views::themeFromName(parser.value(theme));
    if (!kind) return fail(QStringLiteral("--theme: expected dark or light, got '%1'").arg(parser.value(theme)), 1);
    window.setTheme(*kind);
  }
  if (parser.isSet(overlay)) {
    const QString o = parser.value(overlay).toLower();
    using O = dcw::gui::MainWindow::Overlay;
    O kind = o == QLatin1String("params") ? O::Parameters : o == QLatin1String("flops") ? O::Flops
           : o == QLatin1String("bytes") ? O::Bytes : o == QLatin1String("time") ? O::MeasuredTime
           : o == QLatin1String("gflops") ? O::AchievedFlops : o == QLatin1String("gbs") ? O::AchievedBandwidth
           : o == QLatin1String("fpga") ? O::FpgaCycles : O::None;
    if (kind == O::None && o != QLatin1String("none"))
      return fail(QStringLiteral("--overlay: expected params, flops, bytes, time, gflops, gbs, fpga or none, got '%1'").arg(o), 1);
    window.setOverlay(kind);
  }

  if (parser.isSet(targetOpt)) {
    const std::string t = parser.value(targetOpt).toStdString();
    if (t != "cpu" && t != "fpga-sim" && t != "cuda" && t != "cuda-sim")
      return fail(QStringLiteral("--target: expected cpu, fpga-sim, cuda or cuda-sim, got '%1'").arg(parser.value(targetOpt)), 1);
    window.setTarget(t);
  }
  if (parser.isSet(rtlOpt)) window.setRtlProfiling(true);

  // --script and --select act once the model is on screen (both interactive and headless).
  bool scriptFailed = false;
  QObject::connect(&window, &dcw::gui::MainWindow::modelLoaded, &window,
                   [&window, &parser, &script, &selectPath, &profileOpt, &scriptFailed] {
    if (parser.isSet(script)) {
      auto s = dcw::transforms::readScript(parser.value(script).toStdString());
      if (!s) {
        fail(QString::fromStdString(s.error().str()), 2);
        scriptFailed = true;
      } else {
        for (auto& step : s->steps)
          if (!window.executeCommand(QString::fromStdString(step.command->scriptLine()))) {
            fail(QStringLiteral("%1:%2: the step failed").arg(parser.value(script)).arg(step.line), 2);
            scriptFailed = true;
            break;
          }
      }
    }
    if (parser.isSet(profileOpt)) window.profile();
    if (parser.isSet(selectPath) && window.sdfg()) {
      if (auto e = window.selectPath(parser.value(selectPath).toStdString()); !e) fail(QString::fromStdString(e.error().str()), 2);
    }
  });

  const bool headless = parser.isSet(screenshot) || parser.isSet(exportSvg);
  if (!headless) {
    window.restoreLayout();
    if (parser.isSet(theme)) window.setTheme(*dcw::views::themeFromName(parser.value(theme)));
    window.show();
    // Work left in an autosave by a session that did not close normally (a crash, a kill): the
    // newest one that reads is offered back; one that cannot be read is reported with the reason and
    // left where it is (it may be the only copy of the work, e.g. one a newer DCW wrote).
    if (model.isEmpty()) {
      QString offer;
      QStringList problems;
      for (const QString& file : dcw::gui::MainWindow::recoverableSessions()) {
        const QString problem = dcw::gui::MainWindow::recoveryProblem(file);
        if (!problem.isEmpty()) problems << problem;
        else if (offer.isEmpty()) offer = file;
      }
      for (const QString& problem : problems) std::fprintf(stderr, "warning: cannot recover %s\n", qPrintable(problem));
      if (!problems.isEmpty() && !parser.isSet(recoverOpt))
        QMessageBox::warning(&window, QObject::tr("Unsaved work cannot be recovered"),
                             QObject::tr("DCW found unsaved work that it cannot read. It is left where it is:\n\n%1")
                                 .arg(problems.join(QStringLiteral("\n\n"))));
      if (!offer.isEmpty() && parser.isSet(recoverOpt)) {
        std::fprintf(stderr, "recovering: %s\n", qPrintable(offer));
        window.openFile(offer);
      } else if (!offer.isEmpty()) {
        auto answer = QMessageBox::question(
            &window, QObject::tr("Recover unsaved work?"),
            QObject::tr("DCW found unsaved work from a session that did not close normally:\n%1\n\nReopen it?")
                .arg(QFileInfo(offer).fileName()),
            QMessageBox::Yes | QMessageBox::Discard);
        if (answer == QMessageBox::Yes) window.openFile(offer);
        else dcw::gui::MainWindow::discardAutosave(offer);
      }
    }
    if (!model.isEmpty()) {
      if (parser.isSet(expandAll))
        QObject::connect(&window, &dcw::gui::MainWindow::modelLoaded, window.canvas(), &dcw::views::GraphCanvas::expandAll);
      window.openFile(model);
    }
    return app.exec();
  }
  if (parser.isSet(screenshot) && parser.isSet(exportSvg))
    return fail(QStringLiteral("use --screenshot or --export-svg, not both"), 1);
  if (parser.isSet(exportSvg) && model.isEmpty()) return fail(QStringLiteral("--export-svg needs a MODEL"), 1);

  // Headless: load, lay out (expanded when asked), then write the picture from the event loop.
  window.setShowsDialogs(false);
  window.setAutosaves(false); // the steps come from --script: nothing to recover, no crashed session's autosave replaced
  window.show();
  bool zoomOk = true;
  const double zoomScale = parser.isSet(zoomOpt) && parser.value(zoomOpt) != QLatin1String("fit") ? parser.value(zoomOpt).toDouble(&zoomOk) : 0;
  if (!zoomOk || zoomScale < 0) return fail(QStringLiteral("--zoom: expected 'fit' or a positive scale, got '%1'").arg(parser.value(zoomOpt)), 1);
  auto finish = [&window, &parser, &screenshot, &exportSvg, &zoomOpt, &compareOpt, zoomScale] {
    if (parser.isSet(exportSvg)) {
      QString error;
      if (!window.canvas()->exportSvg(parser.value(exportSvg), dcw::views::GraphCanvas::ExportRegion::WholeGraph, &error)) {
        fail(error, 1);
        QCoreApplication::exit(1);
        return;
      }
      QCoreApplication::exit(0);
      return;
    }
    const QString out = parser.value(screenshot);
    if (parser.isSet(zoomOpt)) {
      auto* canvas = window.canvas();
      if (zoomScale > 0) canvas->zoomBy(zoomScale / canvas->transform().m11());
      else canvas->fitToView();
    }
    QWidget* shown = &window;
    if (parser.isSet(compareOpt)) {
      const QString other = parser.value(compareOpt);
      const bool ok = other.startsWith(QLatin1String("step:"))
                          ? window.compareHistoryPoints(other.mid(5).toInt(), int(window.history() ? window.history()->position() : 0))
                          : window.compareWith(other == QLatin1String("imported") ? QString() : other);
      if (!ok) {
        QCoreApplication::exit(2);
        return;
      }
      auto* cmp = window.compareView();
      QElapsedTimer waited;
      waited.start();
      while ((cmp->leftCanvas()->isLayoutPending() || cmp->rightCanvas()->isLayoutPending()) && waited.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
      QCoreApplication::processEvents();
      std::fprintf(stderr, "%s\n", qPrintable(cmp->summary()->text()));
      shown = cmp;
    }
    QImage image = shown->grab().toImage();
    if (image.isNull() || !image.save(out)) {
      fail(QStringLiteral("%1: cannot write the image").arg(out), 1);
      QCoreApplication::exit(1);
      return;
    }
    QCoreApplication::exit(0);
  };
  const bool waitProfile = parser.isSet(profileOpt);
  QObject::connect(window.canvas(), &dcw::views::GraphCanvas::layoutFinished, &window, [&window, finish, waitProfile] {
    if (!window.canvas()->isLayoutPending() && !(waitProfile && window.isProfiling())) QTimer::singleShot(0, finish);
  });
  QObject::connect(&window, &dcw::gui::MainWindow::profileFinished, &window, [&window, &parser, &profileTab, finish](bool ok, const QString& message) {
    if (!ok) fail(message, 2);
    if (parser.isSet(profileTab)) {
      const QString v = parser.value(profileTab).toLower();
      auto* tabs = window.profilePanel()->tabs();
      for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i).toLower().startsWith(v)) tabs->setCurrentIndex(i);
    }
    window.canvas()->fitToView(); // the profile dock took room from the canvas
    QTimer::singleShot(200, finish);
  });
  const bool expand = parser.isSet(expandAll);
  QObject::connect(&window, &dcw::gui::MainWindow::modelLoaded, &window, [&window, expand] {
    if (expand) window.canvas()->expandAll(); // supersedes the first layout; one layoutFinished follows
  });
  QObject::connect(&window, &dcw::gui::MainWindow::loadFailed, &window, [](const QString& message) {
    fail(message, 2);
    QCoreApplication::exit(2);
  });
  if (model.isEmpty())
    QTimer::singleShot(0, finish);
  else
    window.openFile(model);
  return app.exec();
}
