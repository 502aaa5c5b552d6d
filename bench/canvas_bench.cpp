// canvas_bench: figures for the graph canvas on the offscreen platform —
//   load time, layout time (off the UI thread) and scene build time, re-layout time after opening one
//   node (layout cache), and frame times while panning at 100 % zoom and at "fit".
//
//   canvas_bench MODEL [--expand-all] [--pure | --synthetic-expansions]   a model file (.onnx / .dcw.json)
//   canvas_bench --synthetic N [--modules] [--expand-all]        a generated SDFG with N operators
//
// Printed: load, the visual graph and scene builds (UI thread), layout (worker), the time from handing
// the model to the canvas to its first paint, and "open" = load + first paint (what a user waits for);
// frame times; peak memory of the process (VmHWM).
//
// --pure opens library nodes into their real `pure` implementations (core/expansions, as dcw-gui does);
// --synthetic-expansions gives every library node a stand-in `pure` implementation (a map with a
// tasklet; bench/SyntheticExpansion.h) so "fully expanded" has the size it will have once lowering
// exists. --synthetic N builds a ResNet-like chain (op, its weights, skip connections every 3 ops);
// --modules makes it look as torch exports it: ops named by module (`/stages.S/blocks.B/Conv_i`: 10
// stages of 50-op blocks), so the canvas groups them (closed at first, open with --expand-all), and
// weights as initializers, drawn inside their ops.
#include "bench/SyntheticExpansion.h"
#include "core/io/ModelFile.h"
#include "core/ir/Tensor.h"
#include "views/GraphCanvas.h"
#include "views/PureExpansions.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QScrollBar>
#include <QSignalSpy>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

using namespace dcw;

namespace {

std::unique_ptr<ir::Sdfg> synthesize(int n, bool modules) {
  auto s = std::make_unique<ir::Sdfg>("synthetic");
  s->addSymbol("batch");
  ir::State* st = s->addState("state0");
  std::vector<sym::Expr> shape{sym::Expr::symbol("batch"), 64, 56, 56};
  s->addArray("x0", ir::DType::Float32, shape);
  ir::AccessNode* prev = st->add<ir::AccessNode>("x0");
  std::vector<ir::AccessNode*> history{prev};
  // As torch exports a model: weights are initializers (constants; one payload shared by all, the
  // values do not matter here) and names carry the module (`/stages.S/blocks.B/Conv_i`).
  auto payload = std::make_shared<ir::Tensor>();
  payload->dtype = ir::DType::Float32;
  payload->dims = {64, 64, 3, 3};
  payload->bytes = std::make_shared<const std::string>(size_t(64 * 64 * 9 * 4), '\0');
  for (int i = 0; i < n; ++i) {
    const std::string module = "/stages." + std::to_string(i * 10 / std::max(1, n)) + "/blocks." + std::to_string(i / 50) + "/";
    const std::string name = (modules ? module : "") + (i % 3 == 2 ? "Add_" : "Conv_") + std::to_string(i);
    std::string out = modules ? name + "_output_0" : "x" + std::to_string(i + 1);
    std::string w = modules ? "stages." + std::to_string(i * 10 / std::max(1, n)) + ".blocks." + std::to_string(i / 50) + ".conv" +
                                  std::to_string(i) + ".weight"
                            : "w" + std::to_string(i);
    s->addArray(out, ir::DType::Float32, shape, true);
    if (i % 3 != 2) {
      ir::DataDescriptor* wd = s->addArray(w, ir::DType::Float32, {64, 64, 3, 3});
      if (modules) wd->constant = payload;
    }
    auto* op = st->add<ir::LibraryNode>(name);
    op->opType = i % 3 == 2 ? "Add" : "Conv";
    op->addIn({"X", ir::DType::Float32, false});
    op->addIn({i % 3 == 2 ? "B" : "W", ir::DType::Float32, false});
    op->addOut({"Y", ir::DType::Float32, false});
    st->addEdge(*prev, "", *op, "X", ir::Memlet::full(prev->data(), shape));
    if (i % 3 == 2) {
      auto* skip = history[history.size() >= 3 ? history.size() - 3 : 0];
      st->addEdge(*skip, "", *op, "B", ir::Memlet::full(skip->data(), shape));
    } else {
      auto* wa = st->add<ir::AccessNode>(w);
      st->addEdge(*wa, "", *op, "W", ir::Memlet::full(w, {64, 64, 3, 3}));
    }
    auto* o = st->add<ir::AccessNode>(out);
    st->addEdge(*op, "Y", *o, "", ir::Memlet::full(out, shape));
    prev = o;
    history.push_back(o);
  }
  return s;
}

struct Frames {
  double mean = 0, p95 = 0, max = 0;
  int count = 0;
};

Frames pan(views::GraphCanvas& canvas, int steps, int stepPx) {
  std::vector<double> ms;
  QScrollBar* h = canvas.horizontalScrollBar();
  QScrollBar* v = canvas.verticalScrollBar();
  for (int i = 0; i < steps; ++i) {
    QElapsedTimer t;
    t.start();
    if ((i / 10) % 2 == 0) v->setValue(v->value() + stepPx);
    else h->setValue(h->value() + ((i / 20) % 2 ? -stepPx : stepPx));
    canvas.viewport()->repaint();
    ms.push_back(double(t.nsecsElapsed()) / 1e6);
  }
  Frames f;
  f.count = int(ms.size());
  f.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / std::max<size_t>(1, ms.size());
  std::sort(ms.begin(), ms.end());
  f.p95 = ms[size_t(double(ms.size() - 1) * 0.95)];
  f.max = ms.back();
  return f;
}

// The process's peak resident set, from /proc/self/status.
double peakMegabytes() {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024;
  return -1;
}

bool waitLayout(views::GraphCanvas& c, QSignalSpy& spy, int timeoutMs) {
  int before = spy.count();
  QElapsedTimer t;
  t.start();
  while (spy.count() == before && t.elapsed() < timeoutMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return spy.count() > before;
}

} // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList args = app.arguments().mid(1);
  bool expandAll = args.removeAll(QStringLiteral("--expand-all")) > 0;
  bool synthExp = args.removeAll(QStringLiteral("--synthetic-expansions")) > 0;
  bool pureExp = args.removeAll(QStringLiteral("--pure")) > 0;
  bool modules = args.removeAll(QStringLiteral("--modules")) > 0;
  std::unique_ptr<ir::Sdfg> owned;
  io::LoadedModel loaded;
  QElapsedTimer t;
  t.start();
  if (args.size() == 2 && args[0] == QLatin1String("--synthetic")) {
    owned = synthesize(args[1].toInt(), modules);
  } else if (args.size() == 1) {
    auto m = io::loadModel(args[0].toStdString());
    if (!m) {
      std::fprintf(stderr, "error: %s\n", m.error().str().c_str());
      return 2;
    }
    loaded = std::move(*m);
    owned = std::move(loaded.sdfg);
  } else {
    std::fprintf(stderr, "usage: canvas_bench MODEL [--expand-all] [--pure | --synthetic-expansions] | --synthetic N [--modules] [--expand-all]\n");
    return 1;
  }
  const double loadMs = double(t.nsecsElapsed()) / 1e6;
  std::printf("load                 %8.1f ms\n", loadMs);

  views::GraphCanvas canvas;
  canvas.resize(1600, 1000);
  canvas.show();
  bench::SyntheticExpansions expansions(*owned);
  views::PureExpansions pure(*owned);
  if (synthExp) canvas.setExpansionProvider([&](const ir::LibraryNode& l) { return expansions.get(l); });
  if (pureExp)
    canvas.setExpansionProvider([&](const ir::LibraryNode& l) { return pure.get(l); },
                                [&](const ir::LibraryNode& l) { return pure.has(l); });
  QSignalSpy done(&canvas, &views::GraphCanvas::layoutFinished);
  QSignalSpy painted(&canvas, &views::GraphCanvas::firstPainted);
  t.restart();
  canvas.setSdfg(owned.get());
  const double handMs = double(t.nsecsElapsed()) / 1e6;
  if (!waitLayout(canvas, done, 600000)) return 3;
  while (painted.isEmpty() && t.elapsed() < 600000) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  const double firstPaintMs = double(t.nsecsElapsed()) / 1e6;
  const double wall = double(t.nsecsElapsed()) / 1e6;
  double expandMs = -1;
  if (expandAll) { // from the first view to everything open, laid out and painted
    t.restart();
    canvas.expandAll();
    if (!waitLayout(canvas, done, 600000)) return 3;
    canvas.viewport()->repaint();
    expandMs = double(t.nsecsElapsed()) / 1e6;
  }
  const auto* g = canvas.visualGraph();
  const auto& s = canvas.lastLayoutStats();
  std::printf("visible nodes        %8zu\nvisible edges        %8zu\ncontainers           %8d\n", g->nodes.size(),
              g->edges.size(), s.containers);
  std::printf("layout (worker)      %8.1f ms  (%d computed, %d cached)\n", s.ms, s.computed, s.cached);
  std::printf("setSdfg              %8.1f ms (UI thread: element index, visual graph build)\n", handMs);
  std::printf("visual graph build   %8.1f ms (UI thread; the last build)\n", canvas.lastGraphBuildMs());
  std::printf("scene build          %8.1f ms (UI thread)\n", canvas.lastSceneBuildMs());
  std::printf("layout wall          %8.1f ms\n", wall);
  std::printf("first paint          %8.1f ms  (from setSdfg)\n", firstPaintMs);
  std::printf("open                 %8.1f ms  (load + first paint)\n", loadMs + firstPaintMs);
  if (expandMs >= 0) std::printf("expand all           %8.1f ms  (then laid out and painted)\n", expandMs);

  // Re-layout after opening / closing one container: the cache keeps everything else.
  for (const auto& n : g->nodes) {
    if (!n.expandable || n.parent < 0 || n.kind == views::VisualKind::State) continue;
    ir::ElementId id = n.element;
    t.restart();
    canvas.toggleExpanded(id);
    waitLayout(canvas, done, 600000);
    std::printf("toggle one node      %8.1f ms  (layout %.1f ms: %d computed, %d cached)\n", double(t.nsecsElapsed()) / 1e6,
                canvas.lastLayoutStats().ms, canvas.lastLayoutStats().computed, canvas.lastLayoutStats().cached);
    canvas.toggleExpanded(id);
    waitLayout(canvas, done, 600000);
    break;
  }

  canvas.setTransform(QTransform());
  canvas.centerOn(0, 0);
  Frames f1 = pan(canvas, 120, 40);
  std::printf("pan at 100%%          mean %.2f ms  p95 %.2f ms  max %.2f ms  (%d frames, 1600x1000)\n", f1.mean, f1.p95,
              f1.max, f1.count);
  canvas.setTransform(QTransform::fromScale(0.35, 0.35));
  Frames f3 = pan(canvas, 120, 40);
  std::printf("pan at 35%%           mean %.2f ms  p95 %.2f ms  max %.2f ms\n", f3.mean, f3.p95, f3.max);
  canvas.fitToView();
  Frames f2 = pan(canvas, 60, 10);
  std::printf("pan at fit (%.3f)   mean %.2f ms  p95 %.2f ms  max %.2f ms\n", canvas.transform().m11(), f2.mean, f2.p95,
              f2.max);
  // Zooming from the whole graph in to 100 % and back out, a wheel step (x1.15) a frame.
  {
    std::vector<double> ms;
    canvas.fitToView();
    const double fit = canvas.transform().m11();
    const int steps = std::max(1, int(std::ceil(std::log(1.0 / std::max(fit, 1e-6)) / std::log(1.15))));
    for (int i = 0; i < 2 * steps; ++i) {
      QElapsedTimer z;
      z.start();
      canvas.zoomBy(i < steps ? 1.15 : 1 / 1.15);
      canvas.viewport()->repaint();
      ms.push_back(double(z.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("zoom fit <-> 100%%    mean %.2f ms  p95 %.2f ms  max %.2f ms  (%zu frames)\n",
                std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size()), ms[size_t(double(ms.size() - 1) * 0.95)], ms.back(),
                ms.size());
  }
  std::printf("peak memory          %8.0f MB  (VmHWM)\n", peakMegabytes());
  return 0;
}
