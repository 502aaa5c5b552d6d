// Tests of profiling on real models (an ONNX conformance node model and the tiny ResNet example):
// the source map covers every element that generates code; instrumentation off leaves the generated
// code untouched; every instrumented element gets a report entry (and every expanded op is timed with
// --instrument nodes); the Chrome trace is valid JSON whose top-level state events sum to within 10%
// of the traced run's wall time; reports round-trip through JSON and compare; counters either count or
// say why not; explicit element paths (also inside parallel loops) and their rejections; machine peaks
// are measured once and then read from the cache.
#include "support/TestPaths.h"
#include "codegen/cpu/CppGenerator.h"
#include "codegen/run/ChromeTrace.h"
#include "codegen/run/MachinePeaks.h"
#include "codegen/run/Profiler.h"
#include "codegen/run/RandomInputs.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "pipeline/Pipeline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <set>

using namespace dcw;
using namespace dcw::codegen;

namespace {

const char* kConv = "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";
const std::string kTinyResnet = testpaths::source("/resources/examples/tiny_resnet.onnx");

// Every element that generates code: states, tasklets, map entries and nested SDFG nodes, at every level.
void codeElements(const ir::Sdfg& s, std::vector<std::pair<ir::ElementId, std::string>>& out) {
  for (ir::State* st : s.allStates()) {
    out.push_back({st->id(), "state " + st->label()});
    for (auto& n : st->nodes()) {
      switch (n->kind()) {
      case ir::ElementKind::Tasklet:
      case ir::ElementKind::MapEntry: out.push_back({n->id(), "node " + n->label()}); break;
      case ir::ElementKind::NestedSdfg:
        out.push_back({n->id(), "nested " + n->label()});
        codeElements(static_cast<const ir::NestedSdfgNode&>(*n).sdfg(), out);
        break;
      default: break;
      }
    }
  }
}

struct Prepared {
  pipeline::Program program;
  std::vector<ir::Tensor> inputs;
};

std::unique_ptr<Prepared> prepare(const char* path, const Instrumentation& in, std::string* error = nullptr) {
  pipeline::Options o;
  o.generate.instrument = in;
  auto r = pipeline::build(path, {}, o);
  if (!r) {
    if (error) *error = r.error().str();
    else qWarning("%s", r.error().str().c_str());
    return nullptr;
  }
  auto p = std::make_unique<Prepared>();
  p->program = std::move(*r);
  auto inputs = randomInputs(p->program.executor->code().signature, 0);
  if (!inputs) return nullptr;
  p->inputs = std::move(*inputs);
  return p;
}

// The model as the pipeline lowers it for the cpu target (what `dcw codegen` generates from).
Expected<io::LoadedModel> loadExpanded(const std::string& path) {
  auto r = pipeline::prepare(path);
  if (!r) return fail(r.error());
  return std::move(r->model);
}

Instrumentation all() { return parseInstrumentation({"all"}); }

} // namespace

class TestProfiler : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    if (qEnvironmentVariableIsEmpty("DCW_CACHE_DIR")) qputenv("DCW_CACHE_DIR", testpaths::kernelCache().c_str());
  }

  void sourceMapCoversEveryElement_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("conv_with_strides_padding") << QString(kConv);
    QTest::newRow("tiny_resnet") << QString::fromStdString(kTinyResnet);
  }
  void sourceMapCoversEveryElement() {
    QFETCH(QString, model);
    auto m = loadExpanded(model.toStdString());
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().str().c_str());
    for (bool instrumented : {false, true}) {
      CpuOptions o;
      if (instrumented) o.instrument = all();
      auto code = generateCpp(*m->sdfg, o);
      QVERIFY(code.ok());
      std::set<ir::ElementId> mapped;
      int lines = static_cast<int>(std::count(code->source.begin(), code->source.end(), '\n'));
      for (auto& e : code->sourceMap) {
        mapped.insert(e.element);
        QVERIFY(e.firstLine >= 1 && e.firstLine <= e.lastLine && e.lastLine <= lines);
        QVERIFY(!e.path.empty());
      }
      std::vector<std::pair<ir::ElementId, std::string>> elements;
      codeElements(*m->sdfg, elements);
      QVERIFY(elements.size() > 3);
      for (auto& [id, what] : elements) QVERIFY2(mapped.count(id), ("no source-map entry for " + what).c_str());
    }
  }

  void instrumentationOffLeavesCodeUnchanged() {
    auto m = loadExpanded(kTinyResnet);
    QVERIFY(m.ok());
    auto plain = generateCpp(*m->sdfg);
    CpuOptions off;
    off.instrument = Instrumentation{};
    auto explicitOff = generateCpp(*m->sdfg, off);
    QVERIFY(plain.ok() && explicitOff.ok());
    QCOMPARE(explicitOff->source, plain->source);
    QVERIFY(plain->profiled.empty());
    QVERIFY(plain->source.find("dcw_prof") == std::string::npos);
    QVERIFY(plain->source.find("dcw_profile") == std::string::npos);
    CpuOptions on;
    on.instrument = all();
    auto timed = generateCpp(*m->sdfg, on);
    QVERIFY(timed.ok());
    QVERIFY(timed->source.find("extern \"C\" const dcw_event* dcw_profile_events") != std::string::npos);
    QVERIFY(timed->profiled.size() > 1);
    QCOMPARE(timed->profiled[0].kind, ProfiledElement::Kind::Model);
    // Instrumentation adds lines only: every line of the plain program is still there, in order.
    std::vector<std::string> a, b;
    auto split = [](const std::string& s, std::vector<std::string>& out) {
      size_t p = 0;
      while (p < s.size()) {
        size_t e = s.find('\n', p);
        if (e == std::string::npos) e = s.size();
        out.push_back(s.substr(p, e - p));
        p = e + 1;
      }
    };
    split(plain->source, a);
    split(timed->source, b);
    size_t j = 0;
    auto trim = [](std::string s) { return s.erase(0, s.find_first_not_of(' ')); };
    for (auto& l : a) {
      while (j < b.size() && trim(b[j]) != trim(l)) ++j;
      QVERIFY2(j < b.size(), ("line missing from the instrumented program: " + l).c_str());
      ++j;
    }
  }

  void reportEntryForEveryInstrumentedElement_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("what");
    QTest::newRow("conv all") << QString(kConv) << "all";
    QTest::newRow("tiny_resnet all") << QString::fromStdString(kTinyResnet) << "all";
    QTest::newRow("tiny_resnet nodes") << QString::fromStdString(kTinyResnet) << "nodes";
    QTest::newRow("tiny_resnet states") << QString::fromStdString(kTinyResnet) << "states";
    QTest::newRow("tiny_resnet maps") << QString::fromStdString(kTinyResnet) << "maps";
  }
  void reportEntryForEveryInstrumentedElement() {
    QFETCH(QString, model);
    QFETCH(QString, what);
    auto p = prepare(model.toUtf8().constData(), parseInstrumentation({what.toStdString()}));
    QVERIFY(p);
    const auto& profiled = p->program.executor->code().profiled;
    ProfileOptions po;
    po.repeat = 5;
    auto r = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QCOMPARE(r->elements.size(), profiled.size());
    for (auto& pe : profiled) {
      const ElementProfile* e = r->find(pe.path);
      QVERIFY2(e, ("no report entry for " + pe.path).c_str());
      QCOMPARE(e->kind, std::string(profiledKindName(pe.kind)));
      QVERIFY2(e->callsPerRun >= 1, pe.path.c_str());
      QVERIFY(e->timeMs.min <= e->timeMs.median && e->timeMs.median <= e->timeMs.max);
      QVERIFY(e->timeMs.q1 <= e->timeMs.q3);
      if (what == "nodes") QVERIFY(pe.kind == ProfiledElement::Kind::Model || pe.kind == ProfiledElement::Kind::NestedSdfg);
    }
    // Every expanded op at the top level of a root state is timed (each ONNX op is one nested SDFG node).
    if (what == "nodes" || what == "all") {
      std::set<ir::ElementId> timed;
      for (auto& pe : profiled) timed.insert(pe.element);
      int ops = 0;
      for (ir::State* st : p->program.prepared.model.sdfg->allStates()) {
        auto scopes = st->scopeOf();
        QVERIFY(scopes.ok());
        for (auto& n : st->nodes())
          if (n->kind() == ir::ElementKind::NestedSdfg &&
              (!scopes->count(n->id()) || scopes->at(n->id()) == nullptr)) {
            ++ops;
            QVERIFY2(timed.count(n->id()), ("expanded op not timed: " + n->label()).c_str());
          }
      }
      QVERIFY(ops >= 1);
    }
    // The model's own cost and achieved rates are there.
    const ElementProfile& whole = r->elements[0];
    QCOMPARE(whole.kind, std::string("model"));
    QVERIFY(whole.flops && *whole.flops > 0);
    QVERIFY(whole.bytes && *whole.bytes > 0);
    QVERIFY(whole.gflopsPerSecond && *whole.gflopsPerSecond > 0);
    QVERIFY(r->wallMs.median >= r->programMs.median * 0.5);
    QVERIFY(r->memory.peakRssBytes > 0);
    QCOMPARE(r->droppedEvents, size_t(0));

    // JSON round trip, keyed by path.
    auto back = parseReport(reportJson(*r), "report");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
    QCOMPARE(back->elements.size(), r->elements.size());
    for (auto& e : r->elements) {
      const ElementProfile* b = back->find(e.path);
      QVERIFY(b);
      QCOMPARE(b->timeMs.median, e.timeMs.median);
      QCOMPARE(b->kind, e.kind);
    }
    QJsonParseError err;
    auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(reportJson(*r)), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QVERIFY(doc.object()["elements"].toObject().contains(QString::fromStdString(profiled[1].path)));
    // Other processes' use of the cores during the runs: measured when the runs took long enough
    // (core/support/MachineLoad.h), null otherwise, and kept by the round trip.
    QCOMPARE(back->otherBusyCores.has_value(), r->otherBusyCores.has_value());
    QVERIFY(doc.object().contains("other_busy_cores"));
    for (std::optional<double> v : {std::optional<double>(0.75), std::optional<double>()}) {
      ProfileReport shared = *r;
      shared.otherBusyCores = v;
      auto again = parseReport(reportJson(shared), "report");
      QVERIFY(again.ok());
      QCOMPARE(again->otherBusyCores, v);
    }
  }

  void traceIsValidAndSumsToWallTime() {
    auto p = prepare(kTinyResnet.c_str(), parseInstrumentation({"all"}));
    QVERIFY(p);
    ProfileOptions po;
    po.repeat = 7;
    auto r = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(r.ok());
    QJsonParseError err;
    auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(chromeTraceJson(*r)), &err);
    QCOMPARE(err.error, QJsonParseError::NoError);
    QVERIFY(doc.isObject());
    QJsonArray events = doc.object()["traceEvents"].toArray();
    QVERIFY(!events.isEmpty());
    const std::string root = r->elements[0].path;
    std::set<std::string> rootStates;
    for (auto& e : r->elements)
      if (e.kind == "state" && e.parent == root) rootStates.insert(e.path);
    QVERIFY(!rootStates.empty());
    double stateSumUs = 0, modelUs = 0;
    int complete = 0;
    for (const auto& v : events) {
      QJsonObject e = v.toObject();
      QVERIFY(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
      if (e["ph"].toString() != "X") continue;
      ++complete;
      QVERIFY(e["ts"].isDouble() && e["dur"].isDouble());
      QVERIFY(e["dur"].toDouble() >= 0 && e["ts"].toDouble() >= 0);
      std::string path = e["args"].toObject()["path"].toString().toStdString();
      QVERIFY(r->find(path));
      if (rootStates.count(path)) stateSumUs += e["dur"].toDouble();
      if (path == root) modelUs += e["dur"].toDouble();
    }
    QCOMPARE(complete, static_cast<int>(r->trace.size()));
    QVERIFY(modelUs > 0);
    const double wallUs = r->traceRunWallUs;
    qInfo("traced run: wall %.1f us, program %.1f us, top-level states %.1f us", wallUs, modelUs, stateSumUs);
    QVERIFY2(std::abs(stateSumUs - wallUs) <= 0.10 * wallUs,
             qPrintable(QString("states sum %1 us, wall %2 us").arg(stateSumUs).arg(wallUs)));
  }

  void countersCountOrSayWhyNot() {
    auto p = prepare(kConv, parseInstrumentation({"nodes"}));
    QVERIFY(p);
    ProfileOptions po;
    po.repeat = 3;
    po.softwareCounters = true;
    auto r = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(r.ok());
    if (r->counters.kind == "hardware") {
      QVERIFY(r->counters.unavailable.empty());
      QVERIFY(r->elements[0].counters.count("cycles"));
      QVERIFY(r->elements[0].counters.at("cycles") > 0);
    } else {
      QVERIFY(QString::fromStdString(r->counters.unavailable).startsWith("hardware counters unavailable: "));
      QVERIFY(r->counters.unavailable.size() > 40);
      auto j = QJsonDocument::fromJson(QByteArray::fromStdString(reportJson(*r))).object();
      QVERIFY(j["counters"].toObject()["unavailable"].toString().startsWith("hardware counters unavailable: "));
      if (r->counters.kind == "software") {
        QVERIFY(r->elements[0].counters.count("task_clock_ns"));
        QVERIFY(r->elements[0].counters.at("task_clock_ns") > 0);
      }
    }
    po.softwareCounters = false;
    auto hwOnly = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(hwOnly.ok());
    QVERIFY(hwOnly->counters.kind == "hardware" || (hwOnly->counters.kind == "none" && !hwOnly->counters.unavailable.empty()));
    po.counters = false;
    auto off = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(off.ok());
    QCOMPARE(off->counters.kind, std::string("none"));
    QVERIFY(off->elements[0].counters.empty());
  }

  void compareReports() {
    auto p = prepare(kTinyResnet.c_str(), parseInstrumentation({"nodes"}));
    QVERIFY(p);
    ProfileOptions po;
    po.repeat = 3;
    auto a = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(a.ok());
    ProfileReport b = *a;
    b.elements.pop_back();                       // only in A
    ElementProfile extra = b.elements.back();
    extra.path += "_new";
    b.elements.push_back(extra);                 // only in B
    b.elements[1].timeMs.median = a->elements[1].timeMs.median * 3 + 1; // the largest change
    auto c = codegen::compareReports(*a, b);
    QCOMPARE(c.rows.size(), a->elements.size() - 1);
    QCOMPARE(c.onlyA, size_t(1));
    QCOMPARE(c.onlyB, size_t(1));
    QCOMPARE(c.rows[0].path, a->elements[1].path);
    QVERIFY(c.rows[0].ratio > 2.9);
    for (size_t i = 1; i < c.rows.size(); ++i)
      QVERIFY(std::abs(c.rows[i - 1].bMs - c.rows[i - 1].aMs) >= std::abs(c.rows[i].bMs - c.rows[i].aMs));
    std::string table = formatComparison(c, "a.json", "b.json");
    QVERIFY(table.find(a->elements[1].path) != std::string::npos);
    QVERIFY(table.find("total (wall, median)") != std::string::npos);
    QVERIFY(!parseReport("{\"format\": \"other\"}", "x.json").ok());
    QVERIFY(parseReport("[1,2]", "x.json").error().str().find("x.json") != std::string::npos);
  }

  void explicitPaths() {
    // A tasklet inside the convolution's parallel map: timed on thread 0 only, many calls per run.
    auto m = loadExpanded(kConv);
    QVERIFY(m.ok());
    std::string tasklet, map;
    auto plain = generateCpp(*m->sdfg);
    QVERIFY(plain.ok());
    for (auto& e : plain->sourceMap) {
      auto resolved = ir::resolvePath(*m->sdfg, e.path);
      if (!resolved.ok()) continue;
      ir::Element* el = *resolved;
      if (el->kind() == ir::ElementKind::Tasklet && tasklet.empty()) tasklet = e.path;
      if (el->kind() == ir::ElementKind::MapEntry && map.empty()) map = e.path;
    }
    QVERIFY(!tasklet.empty() && !map.empty());
    auto p = prepare(kConv, parseInstrumentation({tasklet, map}));
    QVERIFY(p);
    const auto& profiled = p->program.executor->code().profiled;
    QCOMPARE(profiled.size(), size_t(3));
    ProfileOptions po;
    po.repeat = 3;
    auto r = profileRuns(*p->program.executor, p->inputs, po);
    QVERIFY(r.ok());
    QVERIFY(r->find(tasklet) && r->find(map));
    QVERIFY(r->find(tasklet)->callsPerRun >= 1);

    std::string error;
    QVERIFY(!prepare(kConv, parseInstrumentation({"main/no_such_state/x"}), &error));
    QVERIFY2(error.find("main/no_such_state/x") != std::string::npos && error.find("names no element") != std::string::npos,
             error.c_str());
    // A data descriptor generates no block: rejected with the element named.
    std::string data = std::string(m->sdfg->name()) + "/@" + m->sdfg->inputs.at(0);
    QVERIFY(!prepare(kConv, parseInstrumentation({data}), &error));
    QVERIFY2(error.find("cannot be instrumented") != std::string::npos, error.c_str());
  }

  void uninstrumentedProgramIsRejected() {
    auto p = prepare(kConv, Instrumentation{});
    QVERIFY(p);
    auto r = profileRuns(*p->program.executor, p->inputs);
    QVERIFY(!r.ok());
    QVERIFY(r.error().str().find("without instrumentation") != std::string::npos);
  }

  void machinePeaksAreMeasuredThenCached() {
    QTemporaryDir dir;
    MachinePeakOptions o;
    o.compile.cacheDir = dir.path().toStdString();
    auto first = machinePeaks(o);
    QVERIFY2(first.ok(), first.ok() ? "" : first.error().str().c_str());
    QVERIFY(!first->cached);
    QVERIFY(first->gflopsFloat32 > 0.5);
    // The roof is the better of the FMA loop and oneDNN's sgemm, and the report says which.
    QVERIFY(first->gflopsFloat32Sgemm > 0.5 && first->gflopsFloat32Fma > 0.5);
    QCOMPARE(first->gflopsFloat32, std::max(first->gflopsFloat32Sgemm, first->gflopsFloat32Fma));
    QVERIFY2(first->float32Method.find("oneDNN sgemm 2048x2048x2048") != std::string::npos, first->float32Method.c_str());
    QVERIFY(first->gflopsFloat64 > 0.25);
    QVERIFY(first->bandwidthGBs > 0.1);
    QVERIFY(!first->cpuModel.empty() && first->cores >= 1);
    qInfo("float32 peak: %s", first->float32Method.c_str());
    qInfo("peaks: %.1f GFLOP/s f32, %.1f GFLOP/s f64, %.1f GB/s (%d threads, %s)", first->gflopsFloat32, first->gflopsFloat64,
          first->bandwidthGBs, first->threads, first->cpuModel.c_str());
    auto second = machinePeaks(o);
    QVERIFY(second.ok());
    QVERIFY(second->cached);
    QCOMPARE(second->gflopsFloat32, first->gflopsFloat32);
    // This run's sgemm figure is the measurement itself, and none when read from the cache.
    QCOMPARE(first->gflopsFloat32SgemmNow, first->gflopsFloat32Sgemm);
    QCOMPARE(second->gflopsFloat32SgemmNow, 0.0);
    QCOMPARE(second->bandwidthGBs, first->bandwidthGBs);
    QVERIFY(QFile::exists(QString::fromStdString(second->cacheFile)));

    // Measured again, each figure keeps the highest of the new and the cached measurement (a peak
    // only rises): a cache that says more (a quiet machine's sgemm) stays, and the method says so.
    auto rewrite = [&](double sgemm, double bandwidth) {
      QFile f(QString::fromStdString(second->cacheFile));
      QVERIFY(f.open(QIODevice::ReadOnly));
      QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
      f.close();
      j["gflop_per_s_float32_sgemm"] = sgemm;
      j["gb_per_s"] = bandwidth;
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(QJsonDocument(j).toJson());
    };
    rewrite(1e6, 1e5);
    o.useCache = false;
    auto third = machinePeaks(o);
    QVERIFY(third.ok());
    QVERIFY(!third->cached);
    QCOMPARE(third->gflopsFloat32Sgemm, 1e6);
    QCOMPARE(third->gflopsFloat32, 1e6);
    // The roof kept the cached figure; this run's own measurement is still reported beside it.
    QVERIFY(third->gflopsFloat32SgemmNow > 0.5 && third->gflopsFloat32SgemmNow < 1e6);
    {
      ProfileReport withPeaks;
      withPeaks.peaks = *third;
      const auto j = QJsonDocument::fromJson(QByteArray::fromStdString(reportJson(withPeaks))).object()["machine"].toObject();
      QCOMPARE(j["gflop_per_s_float32_sgemm_this_run"].toDouble(), third->gflopsFloat32SgemmNow);
      QCOMPARE(j["peak_gflop_per_s_float32_sgemm"].toDouble(), 1e6);
      auto back = parseReport(reportJson(withPeaks), "report");
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
      QVERIFY(back->peaks);
      QCOMPARE(back->peaks->gflopsFloat32SgemmNow, third->gflopsFloat32SgemmNow);
    }
    QCOMPARE(third->bandwidthGBs, 1e5);
    QVERIFY(third->gflopsFloat32Fma >= first->gflopsFloat32Fma);
    QVERIFY2(third->float32Method.find("oneDNN sgemm: ") == 0 &&
                 third->float32Method.find("; the highest of this and earlier measurements") != std::string::npos,
             third->float32Method.c_str());
    // A cache that says less (a measurement disturbed by other work) is replaced by the new one.
    rewrite(1e-3, 1e-3);
    o.useCache = false;
    auto fourth = machinePeaks(o);
    QVERIFY(fourth.ok());
    QVERIFY(fourth->gflopsFloat32Sgemm > 0.5 && fourth->gflopsFloat32Sgemm < 1e6);
    QVERIFY(fourth->bandwidthGBs > 0.1 && fourth->bandwidthGBs < 1e5);
  }
};

QTEST_GUILESS_MAIN(TestProfiler)
#include "tst_Profiler.moc"
