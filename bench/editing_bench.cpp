// editing_bench: figures for guided optimization in dcw-gui on the offscreen platform —
//   the time to list the transformations for a selection (the Transformations panel, goal < 100 ms)
//   and the time to apply one step and re-render it (command + views + canvas re-layout, goal
//   < 200 ms), on a model whose library nodes are all expanded (pure) first, as one history step.
//
//   editing_bench MODEL [--selections N]
#include "app/gui/MainWindow.h"
#include "core/edit/History.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "transforms/AutoOptimize.h"
#include "views/GraphCanvas.h"
#include "views/TransformationsPanel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cstdio>

using namespace dcw;

namespace {

void collectMaps(const ir::Sdfg& s, std::vector<const ir::MapEntry*>& out, std::vector<const ir::Node*>& nested) {
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* m = dynamic_cast<const ir::MapEntry*>(n.get())) out.push_back(m);
      if (auto* ns = dynamic_cast<const ir::NestedSdfgNode*>(n.get())) {
        nested.push_back(ns);
        collectMaps(ns->sdfg(), out, nested);
      }
    }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList args = app.arguments();
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: editing_bench MODEL [--selections N]\n");
    return 1;
  }
  int selections = 20;
  if (int i = int(args.indexOf("--selections")); i > 0 && i + 1 < args.size()) selections = args[i + 1].toInt();
  gui::MainWindow w;
  w.setShowsDialogs(false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy loaded(&w, &gui::MainWindow::modelLoaded);
  w.openFile(args[1]);
  if (!QTest::qWaitFor([&] { return loaded.count() == 1; }, 600000)) {
    std::fprintf(stderr, "error: %s did not load\n", qPrintable(args[1]));
    return 2;
  }
  QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 600000);

  // Expand every library node (pure) as one history step.
  QElapsedTimer t;
  t.start();
  transforms::AutoOptimizeOptions expandOnly;
  expandOnly.pipeline = {"(none)"};
  expandOnly.tile = false;
  expandOnly.parallelize = false;
  if (!w.execute(std::make_unique<transforms::AutoOptimizeCommand>(expandOnly))) return 2;
  QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 600000);
  const double expandMs = double(t.nsecsElapsed()) / 1e6;
  std::vector<const ir::MapEntry*> maps;
  std::vector<const ir::Node*> nested;
  collectMaps(*w.sdfg(), maps, nested);
  size_t elements = 0;
  w.sdfg()->forEachElement([&](const ir::Element&) { ++elements; });
  std::printf("model: %s\n", qPrintable(args[1]));
  std::printf("fully expanded: %zu elements, %zu maps, %zu nested SDFGs (expansion step + render %.0f ms)\n", elements,
              maps.size(), nested.size(), expandMs);

  // Listing for a selection: maps spread over the model, and nested SDFG nodes (whole ops).
  std::vector<double> listMaps, listOps;
  int applicableTotal = 0;
  for (int k = 0; k < selections && !maps.empty(); ++k) {
    const ir::MapEntry* m = maps[size_t(k) * maps.size() / size_t(selections)];
    w.select(m->id());
    listMaps.push_back(w.transformationsPanel()->lastListMs());
    applicableTotal += w.transformationsPanel()->applicableCount();
  }
  for (int k = 0; k < selections && !nested.empty(); ++k) {
    w.select(nested[size_t(k) * nested.size() / size_t(selections)]->id());
    listOps.push_back(w.transformationsPanel()->lastListMs());
  }
  std::printf("list transformations for a selected map: median %.1f ms, max %.1f ms (%d selections, %.1f applicable each)\n",
              median(listMaps), listMaps.empty() ? 0 : *std::max_element(listMaps.begin(), listMaps.end()), int(listMaps.size()),
              listMaps.empty() ? 0 : double(applicableTotal) / double(listMaps.size()));
  std::printf("list transformations for a selected op (nested SDFG): median %.1f ms, max %.1f ms\n", median(listOps),
              listOps.empty() ? 0 : *std::max_element(listOps.begin(), listOps.end()));

  // Apply one step and re-render (command, views, canvas layout), then undo it the same way.
  std::vector<double> applyMs, undoMs, syncMs, undoSyncMs;
  for (int k = 0; k < 5 && k < int(maps.size()); ++k) {
    const ir::MapEntry* m = maps[size_t(k) * maps.size() / 5];
    std::string line = "apply MapTiling entry=" + ir::pathOf(*m) + " tile_sizes=2";
    t.restart();
    if (!w.executeCommand(QString::fromStdString(line))) continue;
    syncMs.push_back(double(t.nsecsElapsed()) / 1e6);
    QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 600000);
    applyMs.push_back(double(t.nsecsElapsed()) / 1e6);
    t.restart();
    w.undo();
    undoSyncMs.push_back(double(t.nsecsElapsed()) / 1e6);
    QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 600000);
    undoMs.push_back(double(t.nsecsElapsed()) / 1e6);
    maps.clear();
    nested.clear();
    collectMaps(*w.sdfg(), maps, nested);
  }
  std::printf("apply MapTiling + re-render: median %.0f ms, max %.0f ms (%zu steps)\n", median(applyMs),
              applyMs.empty() ? 0 : *std::max_element(applyMs.begin(), applyMs.end()), applyMs.size());
  std::printf("  of which the command and the panels' refresh (UI thread): median %.0f ms; the rest is the canvas layout\n", median(syncMs));
  std::printf("undo + re-render: median %.0f ms (UI thread %.0f ms)\n", median(undoMs), median(undoSyncMs));
  return 0;
}
