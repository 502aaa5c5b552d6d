// A randomized stress test of the command layer on real models: thousands of random steps (apply a
// random applicable candidate the matcher finds, undo, redo, jump to a random position, set a random
// schedule on a random map) with a fixed seed. After every step the IR validates; every 50 steps
// and at the end, the model equals (JSON, byte for byte) the model obtained by replaying the
// history's steps (their script lines, parsed again) on a freshly imported model.
// Also: auto-optimize through a History (step by step) and as one AutoOptimizeCommand.
#include "support/TestPaths.h"
#include "support/TransformTestSupport.h"

#include "core/ir/Validate.h"
#include "transforms/AutoOptimize.h"
#include "transforms/ModelCommands.h"
#include "transforms/Script.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kTinyResnet = testpaths::source("/resources/examples/tiny_resnet.onnx");

std::unique_ptr<Sdfg> importModel(const std::string& path) {
  auto m = io::loadModel(path);
  if (!m) {
    qWarning("%s", m.error().str().c_str());
    return nullptr;
  }
  return std::move(m->sdfg);
}

// The model as a fresh import with the history's steps 0 .. position replayed from their script lines.
std::string replayedJson(const std::string& path, const edit::History& h, std::string* error) {
  auto fresh = importModel(path);
  if (!fresh) {
    *error = "cannot import " + path;
    return {};
  }
  edit::History h2(*fresh);
  for (size_t i = 0; i < h.position(); ++i) {
    std::string line = h.command(i).scriptLine();
    auto cmd = transforms::parseCommand(line, "replay:" + std::to_string(i + 1));
    if (!cmd) {
      *error = cmd.error().str();
      return {};
    }
    if (auto r = h2.execute(std::move(*cmd)); !r) {
      *error = "'" + line + "' failed on replay: " + r.error().str();
      return {};
    }
  }
  return serialize::toJson(*fresh);
}

std::vector<MapEntry*> allMaps(Sdfg& s) {
  std::vector<MapEntry*> out;
  s.forEachElement([&](Element& e) {
    if (auto* me = dynamic_cast<MapEntry*>(&e)) out.push_back(me);
  });
  return out;
}

bool runStress(const std::string& path, int steps, uint64_t seed) {
  auto model = importModel(path);
  if (!model) return false;
  Sdfg& m = *model;
  edit::History h(m);
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return size_t(std::uniform_int_distribution<size_t>(0, n - 1)(rng)); };
  const auto& reg = transforms::TransformationRegistry::instance();
  const std::vector<std::string> tileChoices = {"2", "4", "8", "32", "3,5", "1,16"};
  std::map<std::string, int> counts;
  int checks = 0;
  size_t deepest = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int step = 1; step <= steps; ++step) {
    // apply 40%, schedule 20%, undo 17%, redo 13%, jump 10%
    int r = int(pick(100));
    if (r < 40) {
      transforms::MatchQuery q;
      q.limitPerTransformation = 25;
      q.includeInapplicable = false;
      auto candidates = transforms::findCandidates(reg, m, q);
      if (candidates.empty()) {
        counts["apply: no candidate"]++;
      } else {
        transforms::Match match = candidates[pick(candidates.size())].match;
        if (match.transformation == "MapTiling") match.options["tile_sizes"] = tileChoices[pick(tileChoices.size())];
        std::string name = match.transformation;
        auto res = h.execute(std::make_unique<transforms::ApplyTransformation>(std::move(match)));
        counts["apply " + name + (res ? ": applied" : ": refused")]++;
      }
    } else if (r < 60) {
      auto maps = allMaps(m);
      if (maps.empty()) {
        counts["schedule: no map"]++;
      } else {
        MapEntry* me = maps[pick(maps.size())];
        std::vector<std::string> choices;
        for (auto& p : transforms::editableProperties(*me))
          if (p.name == "schedule") choices = p.choices;
        if (choices.empty()) {
          qWarning("a map without a settable schedule: %s", pathOf(*me).c_str());
          return false;
        }
        auto res = h.execute(std::make_unique<transforms::SetProperty>(pathOf(*me), "schedule", choices[pick(choices.size())]));
        counts[res ? "schedule: set" : "schedule: refused"]++;
      }
    } else if (r < 77) {
      counts[h.canUndo() ? "undo" : "undo: nothing"]++;
      h.undo();
    } else if (r < 90) {
      counts[h.canRedo() ? "redo" : "redo: nothing"]++;
      h.redo();
    } else {
      // Half the jumps anywhere, half a few steps away.
      size_t to = pick(2) ? pick(h.size() + 1) : size_t(std::clamp<int64_t>(int64_t(h.position()) + int64_t(pick(7)) - 3, 0, int64_t(h.size())));
      h.jumpTo(to);
      counts["jump"]++;
    }
    deepest = std::max(deepest, h.position());
    auto problems = validate(m);
    if (problems.hasErrors()) {
      qWarning("step %d: the model does not validate: %s", step, problems.firstError()->str().c_str());
      return false;
    }
    if (step % 50 == 0 || step == steps) {
      std::string error;
      std::string replayed = replayedJson(path, h, &error);
      if (!error.empty()) {
        qWarning("step %d: %s", step, error.c_str());
        return false;
      }
      if (replayed != serialize::toJson(m)) {
        qWarning("step %d: the model differs from the replay of its %zu steps", step, h.position());
        return false;
      }
      ++checks;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  QString summary;
  for (auto& [k, n] : counts) summary += QString("  %1: %2\n").arg(QString::fromStdString(k)).arg(n);
  qInfo("%s: %d steps in %.1f s (history %zu steps, at %zu, deepest %zu; %d replay checks)\n%s", path.c_str(), steps, s,
        h.size(), h.position(), deepest, checks, qPrintable(summary));
  // The walk must have exercised every kind of step.
  for (const char* k : {"undo", "redo", "jump", "schedule: set"})
    if (!counts.count(k)) {
      qWarning("no '%s' step happened", k);
      return false;
    }
  bool applied = false;
  for (auto& [k, n] : counts) applied = applied || (k.rfind("apply ", 0) == 0 && k.find(": applied") != std::string::npos);
  if (!applied) qWarning("no transformation was applied");
  return applied;
}

} // namespace

class TestHistoryStress : public QObject {
  Q_OBJECT
private slots:
  void randomWalk_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("steps");
    QTest::newRow("tiny_resnet") << QString::fromStdString(kTinyResnet) << 4000;
    QTest::newRow("softmax") << QString::fromStdString(onnxCase("test_softmax_axis_1")) << 1500;
    QTest::newRow("conv") << QString::fromStdString(onnxCase("test_conv_with_strides_padding")) << 1500;
    QTest::newRow("pytorch Conv2d") << QString("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx") << 1500;
  }
  void randomWalk() {
    QFETCH(QString, model);
    QFETCH(int, steps);
    QVERIFY(runStress(model.toStdString(), steps, 20240611));
  }

  // Auto-optimize step by step through a History: every step undoes exactly, the exported script
  // replays to the same bytes, and the optimized model computes the same outputs as the plain
  // expansion. Once with the default pipeline (whatever the registry holds), once tiling only.
  void autoOptimizeThroughHistory_data() {
    QTest::addColumn<QStringList>("pipeline");
    QTest::addColumn<QString>("tileSizes");
    QTest::newRow("default pipeline") << QStringList() << QString("32");
    QTest::newRow("tiling only") << QStringList{"MapTiling"} << QString("8");
  }
  void autoOptimizeThroughHistory() {
    QFETCH(QStringList, pipeline);
    QFETCH(QString, tileSizes);
    auto m = importModel(kTinyResnet);
    QVERIFY(m);
    const std::string before = serialize::toJson(*m);
    edit::History h(*m);
    transforms::AutoOptimizeOptions opts;
    for (auto& p : pipeline) opts.pipeline.push_back(p.toStdString());
    opts.tileSizes = tileSizes.toStdString();
    auto n = transforms::autoOptimize(h, opts);
    QVERIFY2(n, n ? "" : n.error().str().c_str());
    QVERIFY(*n > 0);
    QCOMPARE(h.position(), *n);
    QVERIFY(!validate(*m).hasErrors());
    QVERIFY(allNodes<LibraryNode>(*m).empty()); // everything expanded
    size_t expands = 0, tilings = 0;
    for (size_t i = 0; i < h.size(); ++i) {
      std::string l = h.command(i).scriptLine();
      expands += l.rfind("apply ExpandLibraryNode ", 0) == 0;
      tilings += l.rfind("apply MapTiling ", 0) == 0;
    }
    QVERIFY(expands >= (pipeline.isEmpty() ? 10 : 23)); // fusions before expansion may merge ops
    if (!pipeline.isEmpty()) {
      QVERIFY(tilings > 0);
      QCOMPARE(*n, expands + tilings); // tiny_resnet's maps are all parallel already: no `set` step
      // Tiling happened once per map: one tile map per tiling, and no tile map inside a tile map.
      size_t tileMaps = 0;
      for (auto* me : allNodes<MapEntry>(*m))
        if (me->label().ends_with("_tiles")) {
          ++tileMaps;
          auto scopes = me->parent()->scopeOf();
          QVERIFY(scopes && !scopes->at(me->id()));
        }
      QCOMPARE(tileMaps, tilings);
    }
    const std::string after = serialize::toJson(*m);
    QVERIFY(after != before);
    h.jumpTo(0);
    QCOMPARE(serialize::toJson(*m), before);
    h.jumpTo(h.size());
    QCOMPARE(serialize::toJson(*m), after);

    auto script = transforms::parseScript(transforms::writeScript(h, kTinyResnet, ""), "opt.dcws");
    QVERIFY2(script, script ? "" : script.error().str().c_str());
    auto fresh = importModel(kTinyResnet);
    edit::History h2(*fresh);
    auto r = transforms::replay(*script, h2, "opt.dcws");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(serialize::toJson(*fresh), after);

    // Same outputs as the plain expansion of the model.
    auto plain = loadModel(kTinyResnet);
    QVERIFY(plain);
    auto inputs = randomInputsFor(*plain, 11);
    QVERIFY(!inputs.empty());
    auto ref = runModel(*plain, inputs), out = runModel(*m, inputs);
    QVERIFY(!ref.empty() && !out.empty());
    auto d = codegen::compareOutputs(ref, out);
    QVERIFY2(d.mismatch.empty() && d.maxAbs <= 1e-4, qPrintable(QString("%1 max abs diff %2").arg(d.mismatch.c_str()).arg(d.maxAbs)));
  }

  // The step budget ends the run however many matches are left.
  void autoOptimizeRespectsTheBudget() {
    auto m = importModel(kTinyResnet);
    edit::History h(*m);
    transforms::AutoOptimizeOptions opts;
    opts.maxSteps = 5;
    std::vector<std::string> log;
    opts.log = [&](const std::string& l) { log.push_back(l); };
    auto n = transforms::autoOptimize(h, opts);
    QVERIFY(n);
    QCOMPARE(*n, size_t(5));
    QCOMPARE(h.size(), size_t(5));
    QVERIFY(!log.empty() && log.back().find("step budget") != std::string::npos);
  }

  // The GUI's single entry: one history step whose script line expands into the sub-steps.
  void autoOptimizeAsOneCommand() {
    auto ref = importModel(kTinyResnet);
    edit::History hr(*ref);
    transforms::AutoOptimizeOptions opts;
    auto n = transforms::autoOptimize(hr, opts);
    QVERIFY(n && *n > 0);

    auto m = importModel(kTinyResnet);
    const std::string before = serialize::toJson(*m);
    edit::History h(*m);
    auto cmd = std::make_unique<transforms::AutoOptimizeCommand>(opts);
    auto* raw = cmd.get();
    QVERIFY(h.execute(std::move(cmd)));
    QCOMPARE(h.size(), size_t(1));
    QCOMPARE(raw->steps(), *n);
    QCOMPARE(QString::fromStdString(raw->title()), QString("Auto-optimize (%1 steps)").arg(*n));
    std::string line = raw->scriptLine();
    QVERIFY(line.rfind("# auto-optimize (" + std::to_string(*n) + " steps)\n", 0) == 0);
    QCOMPARE(size_t(std::count(line.begin(), line.end(), '\n')), *n);
    for (size_t i = 0; i < *n; ++i) QCOMPARE(raw->stepLines()[i], hr.command(i).scriptLine());
    // The same model as step by step (ids included).
    const std::string after = serialize::toJson(*m);
    QCOMPARE(after, serialize::toJson(*ref));
    h.undo();
    QCOMPARE(serialize::toJson(*m), before);
    h.redo();
    QCOMPARE(serialize::toJson(*m), after);
    // Exported, it replays step by step to the same bytes.
    auto script = transforms::parseScript(transforms::writeScript(h, kTinyResnet, ""), "one.dcws");
    QVERIFY2(script, script ? "" : script.error().str().c_str());
    QCOMPARE(script->steps.size(), *n);
    auto fresh = importModel(kTinyResnet);
    edit::History h2(*fresh);
    auto r = transforms::replay(*script, h2, "one.dcws");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(serialize::toJson(*fresh), after);
    QCOMPARE(h2.size(), *n);
  }
};

QTEST_APPLESS_MAIN(TestHistoryStress)
#include "tst_HistoryStress.moc"
