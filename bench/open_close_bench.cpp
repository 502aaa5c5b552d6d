// open_close_bench: memory of dcw-gui over many open/close cycles in one session (issue 14: no leak
// per model). Opens the given models in turn on the offscreen platform, waits for each to load and
// for its generated code, closes it (File ▸ Close), and prints after cycles 1, 10, 20, … the heap in
// use (every malloc arena and mmapped block, from mallinfo2) and the resident set (after malloc_trim,
// so freed pages count as freed). A flat heap column means nothing is kept per model.
//
//   open_close_bench MODEL... [--cycles N]      (default 50)
#include "app/gui/MainWindow.h"
#include "views/GraphCanvas.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTest>

#include <malloc.h>

#include <cstdio>

namespace {

double heapMiB() {
  struct mallinfo2 m = mallinfo2();
  return double(m.uordblks + m.hblkhd) / 1048576.0;
}

double residentMiB() {
  malloc_trim(0);
  QFile f(QStringLiteral("/proc/self/statm"));
  if (!f.open(QIODevice::ReadOnly)) return 0;
  const QList<QByteArray> fields = f.readAll().split(' ');
  return fields.size() > 1 ? double(fields[1].toLongLong()) * 4096.0 / 1048576.0 : 0;
}

} // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList models = app.arguments().mid(1);
  int cycles = 50;
  if (int i = int(models.indexOf("--cycles")); i >= 0 && i + 1 < models.size()) {
    cycles = models[i + 1].toInt();
    models.remove(i, 2);
  }
  if (models.isEmpty() || cycles < 1) {
    std::fprintf(stderr, "usage: open_close_bench MODEL... [--cycles N]\n");
    return 1;
  }
  dcw::gui::MainWindow w;
  w.setShowsDialogs(false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy loaded(&w, &dcw::gui::MainWindow::modelLoaded);
  QSignalSpy failed(&w, &dcw::gui::MainWindow::loadFailed);
  std::printf("%-6s %-28s %10s %10s %8s\n", "cycle", "model", "heap MiB", "RSS MiB", "open s");
  std::printf("%-6s %-28s %10.1f %10.1f\n", "0", "(empty window)", heapMiB(), residentMiB());
  double first = 0;
  for (int cycle = 1; cycle <= cycles; ++cycle) {
    const QString& model = models[(cycle - 1) % models.size()];
    QElapsedTimer t;
    t.start();
    w.openFile(model);
    if (!QTest::qWaitFor([&] { return loaded.count() == cycle || !failed.isEmpty(); }, 600000) || !failed.isEmpty()) {
      std::fprintf(stderr, "error: %s did not load%s\n", qPrintable(model),
                   failed.isEmpty() ? "" : qPrintable(": " + failed.front().front().toString()));
      return 2;
    }
    QTest::qWaitFor([&] { return !w.isGeneratingCode() && !w.canvas()->isLayoutPending(); }, 600000);
    const double openS = double(t.elapsed()) / 1000.0;
    w.closeModel();
    QCoreApplication::processEvents();
    if (cycle == 1 || cycle % 10 == 0 || cycle == cycles) {
      const double heap = heapMiB();
      if (cycle == 1) first = heap;
      std::printf("%-6d %-28s %10.1f %10.1f %8.2f\n", cycle, qPrintable(QFileInfo(model).fileName().left(28)), heap,
                  residentMiB(), openS);
      std::fflush(stdout);
    }
  }
  std::printf("heap growth from cycle 1 to %d: %+.2f MiB\n", cycles, heapMiB() - first);
  return 0;
}
