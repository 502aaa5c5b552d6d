// Tests of the CPU target: SDFGs built by hand go through generateCpp -> compileShared (a private
// cache) -> LoadedProgram, and the numbers are compared with references computed here. Also: safe
// code for untrusted names, located errors (unexpanded library nodes, compiler failures), the cache
// and the source map. Generated code is compiled with -Wall -Wextra -Werror to keep it warning-free.
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CppGenerator.h"
#include "codegen/cpu/LoadedProgram.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/support/HostCpu.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::codegen;
using sym::Expr;

namespace {

Subset S(const char* text) {
  auto s = Subset::parse(text);
  if (!s) qFatal("bad subset %s", text);
  return *s;
}
Memlet M(const std::string& data, const char* subset, const char* wcr = "") {
  Memlet m = Memlet::simple(data, S(subset));
  m.wcr = wcr;
  return m;
}
Expr E(const char* text) {
  auto e = Expr::parse(text);
  if (!e) qFatal("bad expression %s", text);
  return *e;
}

struct MapPair {
  MapEntry* entry;
  MapExit* exit;
};

MapPair addMap(State* st, const std::string& label, std::vector<std::string> params, const char* ranges,
               Schedule schedule = Schedule::Default) {
  auto* me = st->add<MapEntry>(label);
  auto* mx = st->add<MapExit>(label + "_exit");
  me->params = std::move(params);
  me->range = S(ranges);
  me->schedule = schedule;
  me->exitId = mx->id();
  mx->entryId = me->id();
  return {me, mx};
}

// src access node -> map entry -> node:conn, with the outer (full) and inner memlets.
void mapIn(State* st, Node& src, MapPair m, Node& dst, const std::string& conn, const std::string& data, const char* outer,
           const char* inner) {
  std::string c = conn + "_" + std::to_string(dst.id());
  m.entry->addIn({"IN_" + c});
  m.entry->addOut({"OUT_" + c});
  st->addEdge(src, "", *m.entry, "IN_" + c, M(data, outer));
  st->addEdge(*m.entry, "OUT_" + c, dst, conn, M(data, inner));
}
void mapOut(State* st, Node& src, const std::string& conn, MapPair m, Node& dst, const std::string& data, const char* inner,
            const char* outer, const char* wcr = "") {
  std::string c = conn + "_" + std::to_string(src.id());
  m.exit->addIn({"IN_" + c});
  m.exit->addOut({"OUT_" + c});
  st->addEdge(src, conn, *m.exit, "IN_" + c, M(data, inner, wcr));
  st->addEdge(*m.exit, "OUT_" + c, dst, "", M(data, outer, wcr));
}

Tasklet* addTasklet(State* st, const std::string& label, const std::string& code, std::vector<std::string> ins,
                    std::vector<std::string> outs) {
  auto* t = st->add<Tasklet>(label, code);
  for (auto& i : ins) t->addIn({i});
  for (auto& o : outs) t->addOut({o});
  return t;
}

struct Built {
  GeneratedCode code;
  CompiledLibrary lib;
  std::shared_ptr<LoadedProgram> program;
};

} // namespace

class TestCppGenerator : public QObject {
  Q_OBJECT

  QTemporaryDir cache_;

  CompileOptions options() const {
    CompileOptions o;
    // DCW_TEST_CACHE keeps the generated programs for inspection.
    o.cacheDir = qEnvironmentVariableIsSet("DCW_TEST_CACHE") ? qEnvironmentVariable("DCW_TEST_CACHE").toStdString()
                                                             : cache_.path().toStdString();
    o.flags.push_back("-Wall");
    o.flags.push_back("-Wextra");
    o.flags.push_back("-Werror");
    return o;
  }

  // Generates, compiles and loads; an empty string on success, else the reason.
  QString build(const Sdfg& s, Built& out) {
    auto g = generateCpp(s);
    if (!g) return "generate: " + QString::fromStdString(g.error().str());
    out.code = *g;
    auto lib = compileShared(g->source, options());
    if (!lib) return "compile: " + QString::fromStdString(lib.error().str());
    out.lib = *lib;
    auto p = LoadedProgram::load(lib->path);
    if (!p) return "load: " + QString::fromStdString(p.error().str());
    out.program = *p;
    out.program->setThreads(2);
    return {};
  }

  // Every tasklet, map, copy and nested SDFG of the tree has a source-map entry whose first line is
  // the element's comment.
  void checkSourceMap(const Sdfg& s, const Built& b) {
    std::map<ElementId, SourceMapEntry> byId;
    for (auto& e : b.code.sourceMap) byId[e.element] = e;
    QStringList lines = QString::fromStdString(b.code.source).split('\n');
    auto check = [&](const Element& el, const char* word) {
      auto it = byId.find(el.id());
      QVERIFY2(it != byId.end(), qPrintable(QString("no source map entry for %1").arg(QString::fromStdString(el.label()))));
      QVERIFY(it->second.firstLine >= 1 && it->second.firstLine <= it->second.lastLine);
      QVERIFY(it->second.lastLine <= lines.size());
      QVERIFY2(lines[it->second.firstLine - 1].contains(word), qPrintable(lines[it->second.firstLine - 1]));
      QVERIFY(!it->second.path.empty());
    };
    std::function<void(const Sdfg&)> visit = [&](const Sdfg& g) {
      for (State* st : g.allStates()) {
        check(*st, "state");
        for (auto& n : st->nodes()) {
          if (n->kind() == ElementKind::Tasklet) check(*n, "tasklet");
          if (n->kind() == ElementKind::MapEntry) check(*n, "map");
          if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) {
            check(*n, "nested SDFG");
            visit(ns->sdfg());
          }
        }
        for (auto& e : st->edges()) {
          Node* a = st->node(e->src);
          Node* d = st->node(e->dst);
          if (a->kind() == ElementKind::AccessNode && d->kind() == ElementKind::AccessNode) check(*e, "copy");
        }
      }
    };
    visit(s);
  }

private slots:
  void initTestCase() { QVERIFY(cache_.isValid()); }

  // (a) B[i] = A[i] * 2 + 1 over a symbolic N.
  void elementwise() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addArray("A", DType::Float32, {Expr::symbol("N")});
    s.addArray("B", DType::Float32, {Expr::symbol("N")});
    s.inputs = {"A"};
    s.outputs = {"B"};
    auto* st = s.addState("state0");
    auto* a = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto m = addMap(st, "map_i", {"i"}, "0:N");
    auto* t = addTasklet(st, "scale", "b = a * 2 + 1", {"a"}, {"b"});
    mapIn(st, *a, m, *t, "a", "A", "0:N", "i");
    mapOut(st, *t, "b", m, *b, "B", "i", "0:N");
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("#pragma omp parallel for") != std::string::npos);
    QCOMPARE(built.code.signature.args.size(), size_t(2));
    QCOMPARE(built.code.signature.args[1].role, ProgramArg::Role::Output);
    QCOMPARE(built.code.signature.symbols, std::vector<std::string>{"N"});
    std::vector<float> A(1000), B(1000, -1.f);
    for (int i = 0; i < 1000; ++i) A[size_t(i)] = float(i) * 0.5f - 7.f;
    void* args[] = {A.data(), B.data()};
    int64_t syms[] = {1000};
    auto r = built.program->run(args, syms);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    for (int i = 0; i < 1000; ++i) QCOMPARE(B[size_t(i)], A[size_t(i)] * 2 + 1);
    checkSourceMap(s, built);

    // (k) The same SDFG generates the same text, and the second build is a cache hit.
    auto again = generateCpp(s);
    QVERIFY(again);
    QCOMPARE(again->source, built.code.source);
    auto lib = compileShared(again->source, options());
    QVERIFY(lib);
    QVERIFY(lib->cacheHit);
    QCOMPARE(lib->path, built.lib.path);
    QVERIFY(!built.lib.cacheHit);

    // (l) A hit marks its entry as used (the folder's time), so a cache kept between runs drops only
    // what no run used for a while (scripts/test.sh prunes the tests' cache by that time).
    namespace fs = std::filesystem;
    const fs::path entry = fs::path(lib->path).parent_path();
    const auto monthAgo = fs::file_time_type::clock::now() - std::chrono::hours(24 * 30);
    fs::last_write_time(entry, monthAgo);
    QVERIFY(fs::last_write_time(entry) < fs::file_time_type::clock::now() - std::chrono::hours(24 * 29));
    auto hit = compileShared(again->source, options());
    QVERIFY(hit && hit->cacheHit);
    QVERIFY(fs::last_write_time(entry) > fs::file_time_type::clock::now() - std::chrono::hours(1));
  }

  // A program built with -march=native is keyed on the CPU's model and feature flags, so a cache
  // folder shared between machines never hands one CPU's build (AVX-512, AMX) to another; a build for a
  // named architecture is not. The measured peaks are keyed the same way.
  void nativeBuildsAreKeyedOnTheCpu() {
    const std::string& cpu = hostCpuIdentity();
    QVERIFY(cpu.find('\n') != std::string::npos);
    QVERIFY2(cpu.rfind(hostCpuModel(), 0) == 0, cpu.c_str());
#if defined(__x86_64__)
    QVERIFY2(cpu.find(" sse2") != std::string::npos, cpu.c_str()); // /proc/cpuinfo's flags line
#endif
    CompileOptions native = options();
    QVERIFY(std::find(native.flags.begin(), native.flags.end(), "-march=native") != native.flags.end());
    QVERIFY(buildCacheKey("int f() { return 1; }", native).find(cpu) != std::string::npos);
    CompileOptions named = native;
    std::replace(named.flags.begin(), named.flags.end(), std::string("-march=native"), std::string("-march=x86-64-v2"));
    QVERIFY(buildCacheKey("int f() { return 1; }", named).find(cpu) == std::string::npos);
    QVERIFY(buildCacheKey("int f() { return 1; }", named) != buildCacheKey("int f() { return 2; }", named));
  }

  // A map of known extent whose FLOPs and elements moved cost less than waking the thread team runs on
  // the calling thread (no OpenMP pragma); a large one keeps the parallel loop; both compute the same.
  void smallMapsRunSerially_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<bool>("parallel");
    QTest::newRow("64 values") << 64 << false;
    QTest::newRow("1000 values") << 1000 << false;
    QTest::newRow("100000 values") << 100000 << true;
  }
  void smallMapsRunSerially() {
    QFETCH(int, n);
    QFETCH(bool, parallel);
    const std::string extent = std::to_string(n);
    Sdfg s("main");
    s.addArray("A", DType::Float32, {Expr(n)});
    s.addArray("B", DType::Float32, {Expr(n)});
    s.inputs = {"A"};
    s.outputs = {"B"};
    auto* st = s.addState("state0");
    auto* a = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto m = addMap(st, "map_i", {"i"}, ("0:" + extent).c_str(), Schedule::CpuMulticore);
    auto* t = addTasklet(st, "scale", "b = a * 2 + 1", {"a"}, {"b"});
    mapIn(st, *a, m, *t, "a", "A", ("0:" + extent).c_str(), "i");
    mapOut(st, *t, "b", m, *b, "B", "i", ("0:" + extent).c_str());
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QCOMPARE(built.code.source.find("#pragma omp parallel for") != std::string::npos, parallel);
    std::vector<float> A(static_cast<size_t>(n)), B(static_cast<size_t>(n), -1.f);
    for (int i = 0; i < n; ++i) A[size_t(i)] = float(i % 97) * 0.5f - 7.f;
    void* args[] = {A.data(), B.data()};
    auto r = built.program->run(args, nullptr);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    for (int i = 0; i < n; ++i) QCOMPARE(B[size_t(i)], A[size_t(i)] * 2 + 1);
  }

  // (b) Row sums (WCR sum, parallel over rows: no atomics) and a total (atomics).
  void reductions() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addSymbol("M");
    s.addArray("A", DType::Float32, {E("N"), E("M")});
    s.addArray("R", DType::Float32, {E("N")});
    s.addArray("T", DType::Float64, {1});
    s.addArray("Mx", DType::Int32, {1});
    s.inputs = {"A"};
    s.outputs = {"R", "T", "Mx"};
    auto* st = s.addState("rows");
    {
      auto* a = st->add<AccessNode>("A");
      auto* r = st->add<AccessNode>("R");
      auto m = addMap(st, "map_ij", {"i", "j"}, "0:N, 0:M", Schedule::CpuMulticore);
      auto* t = addTasklet(st, "acc", "r = a", {"a"}, {"r"});
      mapIn(st, *a, m, *t, "a", "A", "0:N, 0:M", "i, j");
      mapOut(st, *t, "r", m, *r, "R", "i", "0:N", "sum");
    }
    auto* st2 = s.addState("total");
    s.addEdge(st->id(), st2->id());
    {
      auto* a = st2->add<AccessNode>("A");
      auto* tot = st2->add<AccessNode>("T");
      auto* mx = st2->add<AccessNode>("Mx");
      auto m = addMap(st2, "map_all", {"i", "j"}, "0:N, 0:M");
      auto* t = addTasklet(st2, "sum_all", "t = a", {"a"}, {"t"});
      auto* t2 = addTasklet(st2, "max_all", "m = int32(a * 3)", {"a"}, {"m"});
      mapIn(st2, *a, m, *t, "a", "A", "0:N, 0:M", "i, j");
      mapIn(st2, *a, m, *t2, "a", "A", "0:N, 0:M", "i, j");
      mapOut(st2, *t, "t", m, *tot, "T", "0", "0", "sum");
      mapOut(st2, *t2, "m", m, *mx, "Mx", "0", "0", "max");
    }
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    const std::string& src = built.code.source;
    QVERIFY(src.find("#pragma omp atomic") != std::string::npos);
    QVERIFY(src.find("dcw_rt::atomic_max<int32_t>") != std::string::npos);
    QVERIFY(src.find("collapse(2)") != std::string::npos); // the total: both parameters distributed
    const int N = 37, Mm = 53;
    std::vector<float> A(size_t(N * Mm)), R(size_t(N), 0.f);
    double T = 0;
    int32_t Mx = INT32_MIN;
    for (int i = 0; i < N * Mm; ++i) A[size_t(i)] = float((i * 7) % 11) - 5.f;
    void* args[] = {A.data(), R.data(), &T, &Mx};
    int64_t syms[] = {Mm, N}; // symbols by name: M, N
    QCOMPARE(built.code.signature.symbols, (std::vector<std::string>{"M", "N"}));
    auto r = built.program->run(args, syms);
    QVERIFY(r);
    double total = 0;
    float mx = -1e30f;
    for (int i = 0; i < N; ++i) {
      float row = 0;
      for (int j = 0; j < Mm; ++j) {
        row += A[size_t(i * Mm + j)];
        mx = std::max(mx, A[size_t(i * Mm + j)]);
      }
      QCOMPARE(R[size_t(i)], row);
      total += row;
    }
    QCOMPARE(T, total);
    QCOMPARE(Mx, int32_t(mx * 3));
    checkSourceMap(s, built);
  }

  // (c) Matrix multiply as a 3-D map with WCR: parallel over (i, j), k sequential, no atomics.
  void matmul() {
    Sdfg s("main");
    for (const char* n : {"N", "K", "P"}) s.addSymbol(n);
    s.addArray("A", DType::Float32, {E("N"), E("K")});
    s.addArray("B", DType::Float32, {E("K"), E("P")});
    s.addArray("C", DType::Float32, {E("N"), E("P")});
    s.inputs = {"A", "B"};
    s.outputs = {"C"};
    auto* st = s.addState("gemm");
    auto* a = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto* c = st->add<AccessNode>("C");
    auto m = addMap(st, "map_ijk", {"i", "j", "k"}, "0:N, 0:P, 0:K");
    auto* t = addTasklet(st, "mul", "c = a * b", {"a", "b"}, {"c"});
    mapIn(st, *a, m, *t, "a", "A", "0:N, 0:K", "i, k");
    mapIn(st, *b, m, *t, "b", "B", "0:K, 0:P", "k, j");
    mapOut(st, *t, "c", m, *c, "C", "i, j", "0:N, 0:P", "sum");
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("collapse(2)") != std::string::npos);
    QVERIFY(built.code.source.find("#pragma omp atomic") == std::string::npos);
    const int N = 17, K = 13, P = 11;
    std::vector<float> A(N * K), B(K * P), C(N * P, 0.f);
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) * 0.25f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) - 2.f;
    void* args[] = {A.data(), B.data(), C.data()};
    int64_t syms[] = {K, N, P};
    QVERIFY(built.program->run(args, syms));
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < P; ++j) {
        float ref = 0;
        for (int k = 0; k < K; ++k) ref += A[size_t(i * K + k)] * B[size_t(k * P + j)];
        QVERIFY(std::fabs(C[size_t(i * P + j)] - ref) < 1e-4f);
      }
  }

  // (d) A nested SDFG inside a map: rows of A bound as x, rows of B as y, K mapped to M.
  void nestedSdfg() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addSymbol("M");
    s.addArray("A", DType::Float32, {E("N"), E("M")});
    s.addArray("B", DType::Float32, {E("N"), E("M")});
    s.inputs = {"A"};
    s.outputs = {"B"};
    auto* st = s.addState("state0");
    auto* a = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto m = addMap(st, "rows", {"i"}, "0:N");

    auto inner = std::make_unique<Sdfg>("inner");
    inner->addSymbol("K");
    inner->addArray("x", DType::Float32, {E("K")});
    inner->addArray("y", DType::Float32, {E("K")});
    inner->addArray("tmp", DType::Float32, {E("K")}, true);
    {
      auto* ist = inner->addState("body");
      auto* x = ist->add<AccessNode>("x");
      auto* tmp = ist->add<AccessNode>("tmp");
      auto* y = ist->add<AccessNode>("y");
      auto m1 = addMap(ist, "scale", {"k"}, "0:K");
      auto* t1 = addTasklet(ist, "t1", "o = v * 3 + k", {"v"}, {"o"});
      mapIn(ist, *x, m1, *t1, "v", "x", "0:K", "k");
      mapOut(ist, *t1, "o", m1, *tmp, "tmp", "k", "0:K");
      // A constant of the nested SDFG (as the Constant expansion makes): embedded in the program.
      auto* w = inner->addArray("w", DType::Float32, {6}, true);
      auto tensor = std::make_shared<Tensor>();
      tensor->dtype = DType::Float32;
      tensor->dims = {6};
      std::string bytes(6 * sizeof(float), '\0');
      for (int k = 0; k < 6; ++k) {
        float v = 0.5f * float(k) + (k == 2 ? 1e-7f : 0.f);
        std::memcpy(&bytes[size_t(k) * sizeof(float)], &v, sizeof v);
      }
      tensor->bytes = std::make_shared<const std::string>(bytes);
      w->constant = tensor;
      auto* wr = ist->add<AccessNode>("w");
      auto m2 = addMap(ist, "shift", {"k"}, "0:K");
      auto* t2 = addTasklet(ist, "t2", "o = v - 1 + c", {"v", "c"}, {"o"});
      mapIn(ist, *tmp, m2, *t2, "v", "tmp", "0:K", "k");
      mapIn(ist, *wr, m2, *t2, "c", "w", "0:6", "k");
      mapOut(ist, *t2, "o", m2, *y, "y", "k", "0:K");
    }
    auto* n = st->add<NestedSdfgNode>("nest", std::move(inner));
    n->addIn({"x"});
    n->addOut({"y"});
    n->symbolMapping["K"] = E("M");
    mapIn(st, *a, m, *n, "x", "A", "0:N, 0:M", "i, 0:M");
    mapOut(st, *n, "y", m, *b, "B", "i, 0:M", "0:N, 0:M");
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    const int N = 9, Mm = 6;
    std::vector<float> A(N * Mm), B(N * Mm, 0.f);
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(i);
    void* args[] = {A.data(), B.data()};
    int64_t syms[] = {Mm, N};
    QVERIFY(built.program->run(args, syms));
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < Mm; ++k)
        QCOMPARE(B[size_t(i * Mm + k)], A[size_t(i * Mm + k)] * 3 + float(k) - 1 + (0.5f * float(k) + (k == 2 ? 1e-7f : 0.f)));
    checkSourceMap(s, built);
  }

  // (e) A LoopRegion accumulating K times (the loop variable is read by the tasklet), between two states.
  void loopRegion() {
    Sdfg s("main");
    s.addSymbol("K");
    s.addArray("A", DType::Float32, {4});
    s.addArray("X", DType::Float32, {4});
    s.inputs = {"A"};
    s.outputs = {"X"};
    auto* init = s.addState("init");
    {
      auto* x = init->add<AccessNode>("X");
      auto m = addMap(init, "zero", {"i"}, "0:4");
      auto* t = addTasklet(init, "z", "o = 100", {}, {"o"});
      init->addEdge(*m.entry, "", *t, "", Memlet{});
      mapOut(init, *t, "o", m, *x, "X", "i", "0:4");
    }
    auto loop = std::make_unique<LoopRegion>("loop0");
    loop->loopVariable = "k";
    loop->init = 0;
    loop->condition = sym::lt(E("k"), E("K"));
    loop->update = E("k + 1");
    {
      auto* body = loop->addState("body");
      auto* a = body->add<AccessNode>("A");
      auto* xr = body->add<AccessNode>("X");
      auto* xw = body->add<AccessNode>("X");
      auto m = addMap(body, "acc", {"i"}, "0:4");
      auto* t = addTasklet(body, "add", "o = x + a + k", {"x", "a"}, {"o"});
      mapIn(body, *xr, m, *t, "x", "X", "0:4", "i");
      mapIn(body, *a, m, *t, "a", "A", "0:4", "i");
      mapOut(body, *t, "o", m, *xw, "X", "i", "0:4");
    }
    auto* l = s.addBlock(std::move(loop));
    auto* done = s.addState("done");
    s.addEdge(init->id(), l->id());
    s.addEdge(l->id(), done->id());
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("goto") == std::string::npos); // a chain: structured
    std::vector<float> A{1, 2, 3, 4}, X(4, 0.f);
    void* args[] = {A.data(), X.data()};
    for (int64_t K : {0, 1, 5}) {
      int64_t syms[] = {K};
      QVERIFY(built.program->run(args, syms));
      for (int i = 0; i < 4; ++i) QCOMPARE(X[size_t(i)], 100.f + float(K) * A[size_t(i)] + float(K * (K - 1) / 2));
    }
  }

  // (f) A ConditionalRegion on a symbol, then a region in goto form (conditional interstate edges
  // with an assignment).
  void conditionals() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addArray("Y", DType::Int64, {2});
    s.outputs = {"Y"};
    auto writer = [](State* st, const std::string& code, const char* at) {
      auto* y = st->add<AccessNode>("Y");
      auto* t = addTasklet(st, "w", code, {}, {"y"});
      st->addEdge(*t, "y", *y, "", M("Y", at));
    };
    auto cond = std::make_unique<ConditionalRegion>("cond0");
    auto br = std::make_unique<BranchRegion>("then");
    br->condition = sym::gt(E("N"), 4);
    writer(br->addState("big"), "y = 1", "0");
    auto el = std::make_unique<BranchRegion>("else");
    writer(el->addState("small"), "y = 2", "0");
    cond->addBranch(std::move(br));
    cond->addBranch(std::move(el));
    auto* c = s.addBlock(std::move(cond));
    auto* sa = s.addState("sa");
    writer(sa, "y = 10 * N", "1");
    auto* sb = s.addState("sb");
    writer(sb, "y = Q + 1", "1");
    s.addEdge(c->id(), sa->id(), sym::gt(E("N"), 10));
    auto* e = s.addEdge(c->id(), sb->id(), sym::le(E("N"), 10));
    e->assignments.push_back({"Q", E("N * 2")});
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("goto") != std::string::npos);
    for (int64_t N : {3, 5, 11}) {
      std::vector<int64_t> Y{0, 0};
      void* args[] = {Y.data()};
      int64_t syms[] = {N};
      QVERIFY(built.program->run(args, syms));
      QCOMPARE(Y[0], N > 4 ? int64_t(1) : int64_t(2));
      QCOMPARE(Y[1], N > 10 ? 10 * N : 2 * N + 1);
    }
  }

  // (g) Copies between access nodes: a strided sub-block (otherSubset), a contiguous block (memcpy)
  // and a reshaping copy with a step.
  void copies() {
    Sdfg s("main");
    s.addArray("A", DType::Float32, {8, 8});
    s.addArray("B", DType::Float32, {4, 4});
    s.addArray("C", DType::Float32, {2, 8});
    s.addArray("D", DType::Float64, {2, 2});
    s.inputs = {"A"};
    s.outputs = {"B", "C", "D"};
    auto* st = s.addState("copy");
    auto* a = st->add<AccessNode>("A");
    auto* b = st->add<AccessNode>("B");
    auto* c = st->add<AccessNode>("C");
    auto* d = st->add<AccessNode>("D");
    Memlet mb = M("A", "2:6, 3:7");
    mb.otherSubset = S("0:4, 0:4");
    st->addEdge(*a, "", *b, "", mb);
    st->addEdge(*a, "", *c, "", M("A", "2:4, 0:8"));
    Memlet md = M("A", "0:8:2, 1"); // four elements into a 2x2 of another type
    md.otherSubset = S("0:2, 0:2");
    st->addEdge(*a, "", *d, "", md);
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("std::memcpy") != std::string::npos);
    std::vector<float> A(64), B(16), C(16);
    std::vector<double> D(4);
    for (int i = 0; i < 64; ++i) A[size_t(i)] = float(i);
    void* args[] = {A.data(), B.data(), C.data(), D.data()};
    QVERIFY(built.program->run(args, nullptr));
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) QCOMPARE(B[size_t(i * 4 + j)], A[size_t((i + 2) * 8 + j + 3)]);
    for (int i = 0; i < 16; ++i) QCOMPARE(C[size_t(i)], A[size_t(16 + i)]);
    for (int q = 0; q < 4; ++q) QCOMPARE(D[size_t(q)], double(A[size_t(q * 2 * 8 + 1)]));
    checkSourceMap(s, built);
  }

  // (h) Transients of symbolic size: one living across two states (SDFG lifetime), one inside a state.
  void transients() {
    Sdfg s("main");
    s.addSymbol("N");
    s.addArray("A", DType::Float32, {E("N")});
    s.addArray("B", DType::Float32, {E("N")});
    s.addArray("T", DType::Float32, {E("2 * N")}, true);
    s.addArray("U", DType::Float32, {E("N")}, true);
    s.inputs = {"A"};
    s.outputs = {"B"};
    auto* s0 = s.addState("s0");
    {
      auto* a = s0->add<AccessNode>("A");
      auto* t = s0->add<AccessNode>("T");
      auto m = addMap(s0, "m0", {"i"}, "0:N");
      auto* tk = addTasklet(s0, "dbl", "o = v * 2", {"v"}, {"o"});
      mapIn(s0, *a, m, *tk, "v", "A", "0:N", "i");
      mapOut(s0, *tk, "o", m, *t, "T", "i + N", "0:2*N");
    }
    auto* s1 = s.addState("s1");
    s.addEdge(s0->id(), s1->id());
    {
      auto* t = s1->add<AccessNode>("T");
      auto* u = s1->add<AccessNode>("U");
      auto* b = s1->add<AccessNode>("B");
      auto m = addMap(s1, "m1", {"i"}, "0:N");
      auto* tk = addTasklet(s1, "inc", "o = v + 1", {"v"}, {"o"});
      mapIn(s1, *t, m, *tk, "v", "T", "0:2*N", "i + N");
      mapOut(s1, *tk, "o", m, *u, "U", "i", "0:N");
      Memlet cp = M("U", "0:N");
      st_copy(s1, *u, *b, cp);
    }
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.source.find("dcw_rt::Buffer<float>") != std::string::npos);
    // U is written whole by m1 (element i at every i of 0:N): its block is handed out without zeroing;
    // T is written from N on only, so its block is zeroed.
    auto allocation = [&](const std::string& buffer) {
      const size_t at = built.code.source.find("dcw_rt::Buffer<float> " + buffer + "(");
      return at == std::string::npos ? std::string() : built.code.source.substr(at, built.code.source.find('\n', at) - at);
    };
    QVERIFY2(allocation("U_buffer").find(", false);") != std::string::npos, allocation("U_buffer").c_str());
    QVERIFY2(!allocation("T_buffer").empty() && allocation("T_buffer").find(", false);") == std::string::npos, allocation("T_buffer").c_str());
    for (int64_t N : {1, 100, 3000}) {
      std::vector<float> A(static_cast<size_t>(N)), B(static_cast<size_t>(N));
      for (int64_t i = 0; i < N; ++i) A[size_t(i)] = float(i % 13);
      void* args[] = {A.data(), B.data()};
      int64_t syms[] = {N};
      QVERIFY(built.program->run(args, syms));
      for (int64_t i = 0; i < N; ++i) QCOMPARE(B[size_t(i)], A[size_t(i)] * 2 + 1);
    }
    checkSourceMap(s, built);
  }

  // The arena: a chain A -> T1 -> T2 -> T3 -> B of maps writing whole transients of 1000 floats. T1 is
  // dead once T2 is written, so T3 takes T1's bytes: the arena holds two transients, not three. When a
  // later map reads T1 again (keepT1), the three lifetimes overlap and each has its own bytes. The
  // numbers are the same either way.
  void arenaByLifetime_data() {
    QTest::addColumn<bool>("keepT1");
    QTest::addColumn<int>("bytes");
    QTest::newRow("T3 reuses T1") << false << 8064; // 4000 bytes each, at 64-byte aligned offsets
    QTest::newRow("all alive") << true << 12096;
  }
  void arenaByLifetime() {
    QFETCH(bool, keepT1);
    QFETCH(int, bytes);
    Sdfg s("main");
    s.addArray("A", DType::Float32, {E("1000")});
    s.addArray("B", DType::Float32, {E("1000")});
    for (const char* t : {"T1", "T2", "T3"}) s.addArray(t, DType::Float32, {E("1000")}, true);
    s.inputs = {"A"};
    s.outputs = {"B"};
    auto* st = s.addState("s0");
    auto* a = st->add<AccessNode>("A");
    AccessNode* prev = a;
    std::string prevData = "A";
    AccessNode* t1 = nullptr;
    int k = 0;
    for (const char* next : {"T1", "T2", "T3"}) {
      auto* out = st->add<AccessNode>(next);
      auto m = addMap(st, "m" + std::to_string(++k), {"i"}, "0:1000");
      auto* tk = addTasklet(st, "step" + std::to_string(k), "o = v * 2 + 1", {"v"}, {"o"});
      mapIn(st, *prev, m, *tk, "v", prevData, "0:1000", "i");
      mapOut(st, *tk, "o", m, *out, next, "i", "0:1000");
      if (!t1) t1 = out;
      prev = out;
      prevData = next;
    }
    auto* b = st->add<AccessNode>("B");
    auto m = addMap(st, "m4", {"i"}, "0:1000");
    auto* tk = addTasklet(st, "last", keepT1 ? "o = v - w" : "o = v - 1", keepT1 ? std::vector<std::string>{"v", "w"} : std::vector<std::string>{"v"},
                          {"o"});
    mapIn(st, *prev, m, *tk, "v", "T3", "0:1000", "i");
    if (keepT1) mapIn(st, *t1, m, *tk, "w", "T1", "0:1000", "i");
    mapOut(st, *tk, "o", m, *b, "B", "i", "0:1000");
    QVERIFY(validate(s).firstError() == nullptr);
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    const std::string plan = "// arena: 3 transients by lifetime in " + std::to_string(bytes) + " bytes";
    QVERIFY2(built.code.source.find(plan) != std::string::npos, built.code.source.c_str());
    std::vector<float> A(1000), B(1000);
    for (int i = 0; i < 1000; ++i) A[size_t(i)] = float(i % 17) - 8;
    void* args[] = {A.data(), B.data()};
    for (int run = 0; run < 2; ++run) {
      QVERIFY(built.program->run(args, nullptr));
      for (int i = 0; i < 1000; ++i) {
        const float x = A[size_t(i)], x1 = x * 2 + 1, x3 = (x1 * 2 + 1) * 2 + 1;
        QCOMPARE(B[size_t(i)], keepT1 ? x3 - x1 : x3 - 1);
      }
    }
  }

  // In place (ir::Tasklet::inPlace): A -> map -> T1 -> C++ tasklet (Y = Z + 1, from Z = T1) -> T2 ->
  // map -> B. Where the tasklet declares that Y may take Z's storage and nothing reads T1 after it, T2
  // lies where T1 does (the arena says so, and the tasklet sees one pointer: it writes 1 to `same`).
  // Not so when T1 is read again later, when the tasklet declares nothing, or when T2 has another
  // shape. The numbers are the same every way.
  void arenaInPlace_data() {
    QTest::addColumn<bool>("declared");
    QTest::addColumn<bool>("keepT1");
    QTest::addColumn<bool>("reshaped");
    QTest::addColumn<bool>("shared");
    QTest::newRow("in place") << true << false << false << true;
    QTest::newRow("T1 read later") << true << true << false << false;
    QTest::newRow("not declared") << false << false << false << false;
    QTest::newRow("another shape") << true << false << true << false;
  }
  void arenaInPlace() {
    QFETCH(bool, declared);
    QFETCH(bool, keepT1);
    QFETCH(bool, reshaped);
    QFETCH(bool, shared);
    Sdfg s("main");
    s.addArray("A", DType::Float32, {E("1000")});
    s.addArray("B", DType::Float32, {E("1000")});
    s.addScalar("same", DType::Float32);
    s.addArray("T1", DType::Float32, {E("1000")}, true);
    if (reshaped) s.addArray("T2", DType::Float32, {E("1000"), E("1")}, true);
    else s.addArray("T2", DType::Float32, {E("1000")}, true);
    s.inputs = {"A"};
    s.outputs = {"B", "same"};
    auto* st = s.addState("s0");
    auto* a = st->add<AccessNode>("A");
    auto* t1 = st->add<AccessNode>("T1");
    auto m1 = addMap(st, "m1", {"i"}, "0:1000");
    auto* first = addTasklet(st, "first", "o = v * 2", {"v"}, {"o"});
    mapIn(st, *a, m1, *first, "v", "A", "0:1000", "i");
    mapOut(st, *first, "o", m1, *t1, "T1", "i", "0:1000");
    auto* add = st->add<Tasklet>("add_one", "for (int i = 0; i < 1000; ++i) Y[i] = Z[i] + 1;\nsame = Y == Z ? 1.0f : 0.0f;\n", TaskletLanguage::Cpp);
    add->addIn({"Z", DType::Float32});
    add->addOut({"Y", DType::Float32});
    add->addOut({"same", DType::Float32});
    if (declared) add->inPlace = {{"Y", "Z"}};
    auto* t2 = st->add<AccessNode>("T2");
    st->addEdge(*t1, "", *add, "Z", M("T1", "0:1000"));
    st->addEdge(*add, "Y", *t2, "", reshaped ? M("T2", "0:1000, 0:1") : M("T2", "0:1000"));
    st->addEdge(*add, "same", *st->add<AccessNode>("same"), "", M("same", "0"));
    auto* b = st->add<AccessNode>("B");
    auto m2 = addMap(st, "m2", {"i"}, "0:1000");
    auto* last = addTasklet(st, "last", keepT1 ? "o = v - w" : "o = v * 3", keepT1 ? std::vector<std::string>{"v", "w"} : std::vector<std::string>{"v"},
                            {"o"});
    mapIn(st, *t2, m2, *last, "v", "T2", reshaped ? "0:1000, 0:1" : "0:1000", reshaped ? "i, 0" : "i");
    if (keepT1) mapIn(st, *t1, m2, *last, "w", "T1", "0:1000", "i");
    mapOut(st, *last, "o", m2, *b, "B", "i", "0:1000");
    QVERIFY2(validate(s).firstError() == nullptr, validate(s).firstError() ? validate(s).firstError()->str().c_str() : "");
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QCOMPARE(built.code.source.find("1 in place of a tasklet's input") != std::string::npos, shared);
    std::vector<float> A(1000), B(1000);
    float same = -1;
    for (int i = 0; i < 1000; ++i) A[size_t(i)] = float(i % 17) - 8;
    void* args[] = {A.data(), B.data(), &same};
    for (int run = 0; run < 2; ++run) {
      QVERIFY(built.program->run(args, nullptr));
      QCOMPARE(same, shared ? 1.0f : 0.0f);
      for (int i = 0; i < 1000; ++i) {
        const float x = A[size_t(i)];
        QCOMPARE(B[size_t(i)], keepT1 ? (2 * x + 1) - 2 * x : (2 * x + 1) * 3);
      }
    }
  }

  // Types: float16 in, bfloat16 out, integer division, float %, bool outputs, safe casts, rounding.
  void types() {
    Sdfg s("main");
    s.addArray("H", DType::Float16, {4});
    s.addArray("I", DType::Int32, {4});
    s.addArray("F", DType::Float32, {4});
    s.addArray("O1", DType::BFloat16, {4});
    s.addArray("O2", DType::Int32, {4});
    s.addArray("O3", DType::Float32, {4});
    s.addArray("O4", DType::Bool, {4});
    s.addArray("O5", DType::Int64, {4});
    s.inputs = {"H", "I", "F"};
    s.outputs = {"O1", "O2", "O3", "O4", "O5"};
    auto* st = s.addState("s");
    auto m = addMap(st, "m", {"i"}, "0:4");
    auto* h = st->add<AccessNode>("H");
    auto* in = st->add<AccessNode>("I");
    auto* f = st->add<AccessNode>("F");
    auto* t = addTasklet(st, "t",
                         "let q = n / 3\n"
                         "o1 = h * 2\n"
                         "o2 = q + n % 3 * 0\n"
                         "o3 = x % 2.0\n"
                         "o4 = x > 0 && !isnan(x)\n"
                         "o5 = select(isnan(x), int64(x), round(x) + int64(1e30) * 0 + int64(x * 0))",
                         {"h", "n", "x"}, {"o1", "o2", "o3", "o4", "o5"});
    mapIn(st, *h, m, *t, "h", "H", "0:4", "i");
    mapIn(st, *in, m, *t, "n", "I", "0:4", "i");
    mapIn(st, *f, m, *t, "x", "F", "0:4", "i");
    const char* outs[] = {"O1", "O2", "O3", "O4", "O5"};
    for (int k = 0; k < 5; ++k) {
      auto* o = st->add<AccessNode>(outs[k]);
      mapOut(st, *t, std::string("o") + std::to_string(k + 1), m, *o, outs[k], "i", "0:4");
    }
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    std::vector<uint16_t> H{0x3C00, 0x4100, 0xC200, 0x0001}; // 1, 2.5, -3, smallest subnormal
    std::vector<int32_t> I{7, -7, 2, 0};
    std::vector<float> F{2.5f, -7.5f, NAN, 3.5f};
    std::vector<uint16_t> O1(4);
    std::vector<int32_t> O2(4);
    std::vector<float> O3(4);
    std::vector<uint8_t> O4(4, 7);
    std::vector<int64_t> O5(4);
    void* args[] = {H.data(), I.data(), F.data(), O1.data(), O2.data(), O3.data(), O4.data(), O5.data()};
    QVERIFY(built.program->run(args, nullptr));
    auto bf = [](uint16_t v) {
      uint32_t u = uint32_t(v) << 16;
      float x;
      std::memcpy(&x, &u, 4);
      return x;
    };
    QCOMPARE(bf(O1[0]), 2.f);
    QCOMPARE(bf(O1[1]), 5.f);
    QCOMPARE(bf(O1[2]), -6.f);
    QVERIFY(bf(O1[3]) > 0 && bf(O1[3]) < 1e-6f);
    QCOMPARE(O2, (std::vector<int32_t>{2, -2, 0, 0}));           // truncating integer division
    QCOMPARE(O3[0], 0.5f);                                       // fmod
    QCOMPARE(O3[1], -1.5f);
    QVERIFY(std::isnan(O3[2]));
    QCOMPARE(O4, (std::vector<uint8_t>{1, 0, 0, 1}));
    QCOMPARE(O5, (std::vector<int64_t>{2, -8, 0, 4}));           // round half to even; NaN -> 0
  }

  // `//` floors, as the symbolic dims that expansions write into tasklet code do ((H + 31) // 32), where
  // `/` truncates: they differ when the signs differ.
  void floorDivision() {
    Sdfg s("main");
    s.addArray("I", DType::Int64, {4});
    s.addArray("O1", DType::Int64, {4});
    s.addArray("O2", DType::Int64, {4});
    s.inputs = {"I"};
    s.outputs = {"O1", "O2"};
    auto* st = s.addState("s");
    auto m = addMap(st, "m", {"i"}, "0:4");
    auto* in = st->add<AccessNode>("I");
    auto* t = addTasklet(st, "t", "o1 = n // 3\no2 = (n + 1) // -2", {"n"}, {"o1", "o2"});
    mapIn(st, *in, m, *t, "n", "I", "0:4", "i");
    for (int k = 1; k <= 2; ++k) {
      auto* o = st->add<AccessNode>("O" + std::to_string(k));
      mapOut(st, *t, "o" + std::to_string(k), m, *o, "O" + std::to_string(k), "i", "0:4");
    }
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    std::vector<int64_t> I{7, -7, 2, 0}, O1(4), O2(4);
    void* args[] = {I.data(), O1.data(), O2.data()};
    QVERIFY(built.program->run(args, nullptr));
    QCOMPARE(O1, (std::vector<int64_t>{2, -3, 0, 0}));
    QCOMPARE(O2, (std::vector<int64_t>{-4, 3, -2, -1}));
  }

  // (i) Untrusted names become safe identifiers; the raw text never reaches the source.
  void untrustedNames() {
    const std::string evil = "x; system(\"rm -rf /\")";
    const std::string evil2 = "y */ #include <cstdlib> //\\";
    Sdfg s("main\"); abort(); //");
    s.addArray(evil, DType::Float32, {4});
    s.addArray(evil2, DType::Float32, {4});
    s.addArray("int64_t", DType::Float32, {4}, true);
    s.inputs = {evil};
    s.outputs = {evil2};
    auto* st = s.addState(evil);
    auto* a = st->add<AccessNode>(evil);
    auto* tmp = st->add<AccessNode>("int64_t");
    auto* b = st->add<AccessNode>(evil2);
    auto m = addMap(st, evil + " map", {"i"}, "0:4");
    auto* t = addTasklet(st, evil + " tasklet", "let int = a * 2\nb = int + 1", {"a"}, {"b"});
    mapIn(st, *a, m, *t, "a", evil, "0:4", "i");
    mapOut(st, *t, "b", m, *tmp, "int64_t", "i", "0:4");
    st->addEdge(*tmp, "", *b, "", M("int64_t", "0:4"));
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    const std::string& src = built.code.source;
    for (const char* bad : {"system(", "rm -rf", "abort(", "*/ #include", "cstdlib> //", "\\\n"})
      QVERIFY2(src.find(bad) == std::string::npos, bad);
    QVERIFY(src.find(evil) == std::string::npos);
    std::vector<float> A{1, 2, 3, 4}, B(4);
    void* args[] = {A.data(), B.data()};
    QVERIFY(built.program->run(args, nullptr));
    QCOMPARE(B, (std::vector<float>{3, 5, 7, 9}));
  }

  // (j) An unexpanded library node fails with its path and op.
  void unexpandedLibraryNode() {
    Sdfg s("main");
    s.addArray("X", DType::Float32, {4});
    s.inputs = {"X"};
    auto* st = s.addState("state0");
    auto* l = st->add<LibraryNode>("Conv_3");
    l->opType = "Conv";
    auto g = generateCpp(s);
    QVERIFY(!g);
    QString msg = QString::fromStdString(g.error().str());
    QVERIFY2(msg.contains("node 'main/state0/Conv_3' (Conv) is not expanded; run the expansion pass or pick an implementation"),
             qPrintable(msg));
    QCOMPARE(QString::fromStdString(g.error().location), QString("main/state0/Conv_3"));
  }

  // A C++ tasklet is pasted verbatim in a block of its own: an Array connector is a pointer to the
  // memlet's first element, a Scalar one a value (a scalar output is written back through its memlet,
  // here with WCR sum). The program gets dcw_init/dcw_teardown; an exception thrown by the code fails
  // the run with the tasklet's path and the message, and the next run starts clean.
  void cppTasklet() {
    Sdfg s("main");
    s.addArray("X", DType::Float32, {E("6")});
    s.addScalar("k", DType::Float32);
    s.addArray("Y", DType::Float32, {E("6")});
    s.addScalar("total", DType::Float64);
    s.inputs = {"X", "k"};
    s.outputs = {"Y", "total"};
    auto* st = s.addState("s");
    auto* t = st->add<Tasklet>("scale",
                               "if (k < 0) throw std::runtime_error(\"negative scale\");\n"
                               "for (int i = 0; i < 4; ++i) {\n  Y[i] = X[i] * k;\n  total += X[i];\n}\n",
                               TaskletLanguage::Cpp);
    t->addIn({"X"});
    t->addIn({"k"});
    t->addOut({"Y"});
    t->addOut({"total"});
    st->addEdge(*st->add<AccessNode>("X"), "", *t, "X", M("X", "2:6"));  // X points at X[2]
    st->addEdge(*st->add<AccessNode>("k"), "", *t, "k", M("k", "0"));
    st->addEdge(*t, "Y", *st->add<AccessNode>("Y"), "", M("Y", "1:5"));  // Y points at Y[1]
    st->addEdge(*t, "total", *st->add<AccessNode>("total"), "", M("total", "0", "sum"));
    QVERIFY(!validate(s).hasErrors());
    Built built;
    QString err = build(s, built);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(built.code.linkFlags.empty()); // no environment, nothing to link
    QVERIFY(built.code.source.find("extern \"C\" int dcw_init(") != std::string::npos);
    QVERIFY(built.code.source.find("total += X[i];") != std::string::npos); // verbatim
    checkSourceMap(s, built);

    std::vector<float> X{1, 2, 3, 4, 5, 6}, Y(6, -1.f);
    float k = 0.5f;
    double total = 10;
    void* args[] = {X.data(), &k, Y.data(), &total};
    auto r = built.program->run(args, nullptr);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(Y, (std::vector<float>{-1, 1.5f, 2, 2.5f, 3, -1}));
    QCOMPARE(total, 10.0 + 3 + 4 + 5 + 6);

    k = -1;
    auto bad = built.program->run(args, nullptr);
    QVERIFY(!bad);
    QVERIFY2(QString::fromStdString(bad.error().message).contains("main/s/scale: negative scale"), bad.error().str().c_str());
    k = 2;
    auto again = built.program->run(args, nullptr);
    QVERIFY2(again, again ? "" : again.error().str().c_str());
    QCOMPARE(Y[1], 6.f);

    // dcw_init/dcw_teardown are counted: a second load of the same library shares its state, and
    // unloading it leaves the first one working.
    {
      auto second = LoadedProgram::load(built.lib.path);
      QVERIFY2(second, second ? "" : second.error().str().c_str());
      QVERIFY((*second)->run(args, nullptr));
    }
    k = 3;
    auto afterSecond = built.program->run(args, nullptr);
    QVERIFY2(afterSecond, afterSecond ? "" : afterSecond.error().str().c_str());
    QCOMPARE(Y[1], 9.f);
  }

  void otherRejections() {
    {
      // A C++ tasklet naming an environment DCW does not know is refused at the tasklet.
      Sdfg s("main");
      auto* st = s.addState("s");
      auto* t = st->add<Tasklet>("raw", "int b = 1; (void)b;", TaskletLanguage::Cpp);
      t->environments = {"nosuchlib"};
      auto g = generateCpp(s);
      QVERIFY(!g);
      QCOMPARE(QString::fromStdString(g.error().location), QString("main/s/raw"));
      QVERIFY2(QString::fromStdString(g.error().message).contains("environment 'nosuchlib', which DCW does not know"),
               g.error().str().c_str());
      QVERIFY(QString::fromStdString(g.error().hint).contains("onednn"));
    }
    {
      // Connectors become C++ variables: a keyword cannot be one.
      Sdfg s("main");
      s.addArray("Y", DType::Float32, {4});
      s.outputs = {"Y"};
      auto* st = s.addState("s");
      auto* t = st->add<Tasklet>("raw", "", TaskletLanguage::Cpp);
      t->addOut({"int"});
      st->addEdge(*t, "int", *st->add<AccessNode>("Y"), "", M("Y", "0:4"));
      auto g = generateCpp(s);
      QVERIFY(!g);
      QVERIFY2(QString::fromStdString(g.error().message).contains("connector 'int' cannot name a variable"), g.error().str().c_str());
    }
    {
      Sdfg s("main");
      s.addArray("Y", DType::Float32, {1});
      s.outputs = {"Y"};
      auto* st = s.addState("s");
      auto* t = addTasklet(st, "bad", "y = 1 +", {}, {"y"});
      st->addEdge(*t, "y", *st->add<AccessNode>("Y"), "", M("Y", "0"));
      auto g = generateCpp(s);
      QVERIFY(!g);
      QCOMPARE(QString::fromStdString(g.error().location), QString("main/s/bad"));
      QVERIFY(QString::fromStdString(g.error().message).contains("line 1, column 8"));
    }
    {
      Sdfg s("main");
      s.addArray("Y", DType::Float32, {1});
      s.outputs = {"Y"};
      auto* st = s.addState("s");
      auto* t = addTasklet(st, "bad", "y = unknown_thing", {}, {"y"});
      st->addEdge(*t, "y", *st->add<AccessNode>("Y"), "", M("Y", "0"));
      auto g = generateCpp(s);
      QVERIFY(!g);
      QVERIFY(QString::fromStdString(g.error().message).contains("'unknown_thing'"));
    }
  }

  // (l) A compiler failure comes back as a Diagnostic with the compiler's first error line.
  void compileError() {
    CompileOptions o = options();
    o.flags.push_back("--no-such-flag-for-dcw");
    auto lib = compileShared("int main() { return 0; }\n", o);
    QVERIFY(!lib);
    QString msg = QString::fromStdString(lib.error().message);
    QVERIFY2(msg.startsWith("compilation failed: ") && msg.contains("error:") && msg.contains("no-such-flag-for-dcw"),
             qPrintable(msg));
    auto bad = compileShared("this is not C++\n", options());
    QVERIFY(!bad);
    QVERIFY(QString::fromStdString(bad.error().message).contains("error:"));
    // A failure is not cached.
    auto again = compileShared("this is not C++\n", options());
    QVERIFY(!again);
    CompileOptions missing = options();
    missing.compiler = "dcw-no-such-compiler";
    auto nc = compileShared("int x;\n", missing);
    QVERIFY(!nc);
    QVERIFY(QString::fromStdString(nc.error().message).contains("cannot run the compiler"));
  }

  // (m) The leading #include block comes from a precompiled header, one per compiler, flags and block:
  // two programs that differ above it only in their comment share it, and GCC loads it (-H marks a
  // loaded precompiled header with '!'). The libraries work as built from the text.
  void precompiledPrelude() {
    QCOMPARE(QString::fromStdString(leadingIncludeBlock("// program 'a'\n#include <vector>\n#ifdef _OPENMP\n#include <omp.h>\n"
                                                        "#endif\n\nint x;\n")),
             QString("#include <vector>\n#ifdef _OPENMP\n#include <omp.h>\n#endif\n"));
    // Only up to the last point outside every #if; nothing before a #define or a quoted include.
    QCOMPARE(QString::fromStdString(leadingIncludeBlock("#include <cmath>\n#ifdef X\n#include <vector>\nint y;\n#endif\n")),
             QString("#include <cmath>\n"));
    QCOMPARE(QString::fromStdString(leadingIncludeBlock("#define N 3\n#include <vector>\n")), QString());
    QCOMPARE(QString::fromStdString(leadingIncludeBlock("#include \"x.h\"\n#include <vector>\n")), QString());
    QCOMPARE(QString::fromStdString(leadingIncludeBlock("#ifdef X\n#endif\nint z;\n")), QString());

    QTemporaryDir cache;
    CompileOptions o;
    o.cacheDir = cache.path().toStdString();
    o.flags.push_back("-H");
    auto program = [](int k) {
      return "// program " + std::to_string(k) + "\n#include <vector>\n#include <numeric>\n#include <cstdint>\n\n"
             "extern \"C\" int64_t sum_to(int64_t n) { std::vector<int64_t> v(n); std::iota(v.begin(), v.end(), " +
             std::to_string(k) + "); return std::accumulate(v.begin(), v.end(), int64_t(0)); }\n";
    };
    for (int k : {0, 1}) {
      auto lib = compileShared(program(k), o);
      QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
      std::ifstream log(std::filesystem::path(lib->path).parent_path() / "compile.log");
      std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
      QVERIFY2(text.find("! ") != std::string::npos && text.find("prelude.h.gch") != std::string::npos, text.c_str());
      void* h = dlopen(lib->path.c_str(), RTLD_NOW | RTLD_LOCAL);
      QVERIFY2(h, dlerror());
      auto sumTo = reinterpret_cast<int64_t (*)(int64_t)>(dlsym(h, "sum_to"));
      QVERIFY(sumTo);
      QCOMPARE(sumTo(100), int64_t(4950 + 100 * k));
      dlclose(h);
    }
    int headers = 0;
    for (auto& e : std::filesystem::directory_iterator(cache.path().toStdString()))
      if (e.path().filename().string().rfind("pch-", 0) == 0) {
        ++headers;
        QVERIFY(std::filesystem::is_regular_file(e.path() / "prelude.h.gch"));
      }
    QCOMPARE(headers, 1);

    // A block whose header cannot be built leaves no header behind, and the program's own compile
    // reports the error, twice alike (the header is not retried by the process).
    QTemporaryDir other;
    o.cacheDir = other.path().toStdString();
    for (int k : {0, 1}) {
      auto bad = compileShared("#include <dcw_no_such_header.h>\nint x" + std::to_string(k) + ";\n", o);
      QVERIFY(!bad);
      QVERIFY2(bad.error().message.find("dcw_no_such_header.h") != std::string::npos, bad.error().str().c_str());
    }
    for (auto& e : std::filesystem::directory_iterator(other.path().toStdString())) {
      const std::string name = e.path().filename().string();
      QVERIFY2(name.rfind("pch-", 0) != 0 && name.rfind("tmp-", 0) != 0, name.c_str());
    }
  }

private:
  static void st_copy(State* st, AccessNode& src, AccessNode& dst, const Memlet& m) { st->addEdge(src, "", dst, "", m); }
};

QTEST_APPLESS_MAIN(TestCppGenerator)
#include "tst_CppGenerator.moc"
