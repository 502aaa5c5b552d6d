// ConcurrentBranches (codegen/ConcurrentBranches.h) and the CPU target's groups of them: a diamond
// X -> A -> Y1, X -> B -> Y2, (Y1, Y2) -> Z splits into its two towers, one per thread; it does not
// when the towers touch each other's data (a read across, an ordering edge), when a node cannot run
// in a branch, when one tower is most of the work, when the group is too small for a parallel region,
// or with one thread. The generated program has one function for the towers' shares, keeps every
// transient of the group in bytes of its own (the arena counts them alive together), and computes on
// two threads (the first runs alternate: together, one after another) what it computes on one, run
// after run. The runtime's choice between the two ways (dcw_rt::BranchChoice) keeps running together
// only when that was 5% faster, after three timed runs of each way, and does not measure on another
// thread count than planned.
#include "codegen/ConcurrentBranches.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CppGenerator.h"
#include "codegen/cpu/LoadedProgram.h"
#include "codegen/cpu/Runtime.h"
#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/StateScopes.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"

#include <QTemporaryDir>
#include <QtTest>

#include <dlfcn.h>
#include <map>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::codegen;

namespace {

Subset S(const std::string& text) { return *Subset::parse(text); }

// out[i] = code(in[i]) (and of in2[i] as `w`), i in [0, n): one map, labelled `label`.
void map1d(State* st, const std::string& label, AccessNode* in, AccessNode* out, const std::string& code, int64_t n,
           AccessNode* in2 = nullptr) {
  const std::string all = "0:" + std::to_string(n);
  auto* me = st->add<MapEntry>(label);
  auto* mx = st->add<MapExit>(label + "_exit");
  me->params = {"i"};
  me->range = S(all);
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>(label + "_t", code);
  t->addIn({"v", DType::Float32});
  t->addOut({"o", DType::Float32});
  me->addIn({"IN_v"});
  me->addOut({"OUT_v"});
  st->addEdge(*in, "", *me, "IN_v", Memlet::simple(in->data(), S(all)));
  st->addEdge(*me, "OUT_v", *t, "v", Memlet::simple(in->data(), S("i")));
  if (in2) {
    t->addIn({"w", DType::Float32});
    me->addIn({"IN_w"});
    me->addOut({"OUT_w"});
    st->addEdge(*in2, "", *me, "IN_w", Memlet::simple(in2->data(), S(all)));
    st->addEdge(*me, "OUT_w", *t, "w", Memlet::simple(in2->data(), S("i")));
  }
  mx->addIn({"IN_o"});
  mx->addOut({"OUT_o"});
  st->addEdge(*t, "o", *mx, "IN_o", Memlet::simple(out->data(), S("i")));
  st->addEdge(*mx, "OUT_o", *out, "", Memlet::simple(out->data(), S(all)));
}

enum class Diamond { Plain, ReadAcross, Ordered };

// X -> mA (A = 2x) -> mY1 (Y1 = A + 1) and X -> mB (B = 3x) -> mY2 (Y2 = B - 1), then mZ: Z = Y1 * Y2.
// ReadAcross: mB reads Y1, not X (one chain). Ordered: an ordering edge from mY1's exit to mB.
std::unique_ptr<Sdfg> diamond(int64_t n, Diamond kind = Diamond::Plain) {
  auto s = std::make_unique<Sdfg>("main");
  const std::vector<sym::Expr> shape{sym::Expr(n)};
  s->addArray("X", DType::Float32, shape);
  s->addArray("Z", DType::Float32, shape);
  for (const char* t : {"A", "B", "Y1", "Y2"}) s->addArray(t, DType::Float32, shape, true);
  s->inputs = {"X"};
  s->outputs = {"Z"};
  auto* st = s->addState("s0");
  auto* x = st->add<AccessNode>("X");
  auto* a = st->add<AccessNode>("A");
  auto* b = st->add<AccessNode>("B");
  auto* y1 = st->add<AccessNode>("Y1");
  auto* y2 = st->add<AccessNode>("Y2");
  auto* z = st->add<AccessNode>("Z");
  map1d(st, "mA", x, a, "o = v * 2", n);
  map1d(st, "mY1", a, y1, "o = v + 1", n);
  map1d(st, "mB", kind == Diamond::ReadAcross ? y1 : x, b, "o = v * 3", n);
  map1d(st, "mY2", b, y2, "o = v - 1", n);
  map1d(st, "mZ", y1, z, "o = v * w", n, y2);
  if (kind == Diamond::Ordered) {
    const Node* y1exit = nullptr;
    const Node* bEntry = nullptr;
    for (const auto& node : st->nodes()) {
      if (node->label() == "mY1_exit") y1exit = node.get();
      if (node->label() == "mB") bEntry = node.get();
    }
    st->addEdge(*const_cast<Node*>(y1exit), "", *const_cast<Node*>(bEntry), "", Memlet{});
  }
  return s;
}

std::string labelOf(const Node& n) { return std::string(n.label()); }

// The groups of the diamond's state, with `seconds` per map label (0 for access nodes; a label
// missing from `seconds` cannot run in a branch).
std::vector<BranchGroup> groupsOf(const Sdfg& s, const std::map<std::string, double>& seconds, int threads,
                                  std::vector<const Node*>* order = nullptr) {
  const State& st = *s.allStates().front();
  auto si = StateScopes::of(st);
  if (!si) qFatal("%s", si.error().message.c_str());
  if (order) *order = si->children.at(nullptr);
  return concurrentBranches(s, *si, [&](const Node& n) -> std::optional<double> {
    if (n.kind() == ElementKind::AccessNode) return 0.0;
    auto it = seconds.find(labelOf(n));
    if (it == seconds.end()) return std::nullopt;
    return it->second;
  }, threads);
}

const std::map<std::string, double> kEven{{"mA", 1e-4}, {"mY1", 1e-4}, {"mB", 1e-4}, {"mY2", 1e-4}, {"mZ", 1e-4}};

} // namespace

class TestConcurrentBranches : public QObject {
  Q_OBJECT

  QTemporaryDir cache_;

private slots:
  void towersGoToThreadsOfTheirOwn() {
    auto s = diamond(1000);
    QVERIFY(validate(*s).firstError() == nullptr);
    std::vector<const Node*> order;
    auto groups = groupsOf(*s, kEven, 2, &order);
    QCOMPARE(groups.size(), size_t(1));
    const BranchGroup& g = groups[0];
    QCOMPARE(g.branches, 2);
    QCOMPARE(g.threads.size(), size_t(2));
    QCOMPARE(g.total, 4e-4);
    QCOMPARE(g.busiest, 2e-4);
    // Each thread runs one tower in its order; mZ, which joins them, comes after the group.
    std::vector<std::string> towers;
    for (const auto& t : g.threads) {
      std::string maps;
      for (size_t p : t) {
        QVERIFY(p >= g.begin && p < g.end);
        if (order[p]->kind() == ElementKind::MapEntry) maps += labelOf(*order[p]) + " ";
      }
      towers.push_back(maps);
    }
    std::sort(towers.begin(), towers.end());
    QCOMPARE(towers, (std::vector<std::string>{"mA mY1 ", "mB mY2 "}));
    for (size_t p = g.end; p < order.size(); ++p)
      if (labelOf(*order[p]) == "mZ") return;
    QFAIL("mZ is not after the group");
  }

  void touchingTowersAreOneBranch_data() {
    QTest::addColumn<int>("kind");
    QTest::newRow("a read across") << int(Diamond::ReadAcross);
    QTest::newRow("an ordering edge") << int(Diamond::Ordered);
  }
  void touchingTowersAreOneBranch() {
    QFETCH(int, kind);
    auto s = diamond(1000, Diamond(kind));
    QVERIFY(validate(*s).firstError() == nullptr);
    QVERIFY(groupsOf(*s, kEven, 2).empty());
  }

  void noGroupWhereItDoesNotPay() {
    auto s = diamond(1000);
    // One thread.
    QVERIFY(groupsOf(*s, kEven, 1).empty());
    // One tower is most of the work: its thread would take longer than both towers on all threads
    // (and so would any run of fewer nodes).
    auto lopsided = kEven;
    lopsided["mA"] = lopsided["mY1"] = 1e-3;
    QVERIFY(groupsOf(*s, lopsided, 2).empty());
    // Too little work for a parallel region.
    std::map<std::string, double> tiny;
    for (auto& [label, t] : kEven) tiny[label] = 1e-6;
    QVERIFY(groupsOf(*s, tiny, 2).empty());
    // A node that cannot run in a branch ends the run: mB's tower has no branch to go in.
    auto barrier = kEven;
    barrier.erase("mB");
    std::vector<const Node*> order;
    for (const BranchGroup& g : groupsOf(*s, barrier, 2, &order))
      for (size_t p = g.begin; p < g.end; ++p) QVERIFY(labelOf(*order[p]) != "mB");
  }

  // The runtime's choice, driven with made-up durations: `probe(together, apart, threads)` times each
  // run of a group planned for 2 threads as `together` or `apart` seconds, on a program of `threads`
  // threads, for 20 runs; it returns how many of the last 10 ran together.
  void choiceKeepsTheClearlyFasterWay_data() {
    QTest::addColumn<double>("together");
    QTest::addColumn<double>("apart");
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("lastTogether");
    QTest::newRow("together 20% faster") << 0.8e-3 << 1.0e-3 << 2 << 10;
    QTest::newRow("apart faster") << 1.0e-3 << 0.8e-3 << 2 << 0;
    QTest::newRow("together 2% faster: within the noise") << 0.98e-3 << 1.0e-3 << 2 << 0;
    QTest::newRow("another thread count: apart, unmeasured") << 0.5e-3 << 1.0e-3 << 1 << 0;
  }
  void choiceKeepsTheClearlyFasterWay() {
    QFETCH(double, together);
    QFETCH(double, apart);
    QFETCH(int, threads);
    QFETCH(int, lastTogether);
    std::string src(cpuRuntimeSource());
    src += R"(
extern "C" int probe(double together, double apart, int threads) {
  dcw_rt::set_threads(threads);
  dcw_rt::BranchChoice c;
  int last = 0;
  for (int run = 0; run < 20; ++run) {
    const int team = dcw_rt::branch_team(c, 2, 2);
    if (run >= 10 && team > 1) ++last;
    // The first run of each way takes longer (it makes the calls): it must not count.
    const double took = (team > 1 ? together : apart) * (run < 2 ? 0.1 : 1.0);
    dcw_rt::branch_ran(c, 2, team, dcw_rt::now_seconds() - took);
  }
  return last;
}
)";
    CompileOptions co;
    co.cacheDir = cache_.path().toStdString();
    auto lib = compileShared(src, co);
    QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
    void* h = dlopen(lib->path.c_str(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(h, dlerror());
    auto probe = reinterpret_cast<int (*)(double, double, int)>(dlsym(h, "probe"));
    QVERIFY(probe);
    QCOMPARE(probe(together, apart, threads), lastTogether);
    dlclose(h);
  }

  // The CPU target: one parallel region for the towers, their four transients in bytes of their own
  // (one after another, B would reuse A's), and the numbers of the sequential program on 1 and 2 threads.
  void programRunsTheTowersTogether() {
    constexpr int64_t n = 1 << 16;
    auto s = diamond(n);
    CompileOptions co;
    co.cacheDir = cache_.path().toStdString();
    co.flags.push_back("-Wall");
    co.flags.push_back("-Werror");
    const int64_t bytes = n * 4;
    for (int planned : {2, 1}) {
      CpuOptions o;
      o.branchThreads = planned;
      auto g = generateCpp(*s, o);
      QVERIFY2(g, g ? "" : g.error().str().c_str());
      const bool grouped = g->source.find("{ // concurrent branches: 2 on 2 threads") != std::string::npos;
      QCOMPARE(grouped, planned == 2);
      const std::string arena =
          "// arena: 4 transients by lifetime in " + std::to_string((planned == 2 ? 4 : 3) * bytes) + " bytes";
      QVERIFY2(g->source.find(arena) != std::string::npos, g->source.c_str());
      auto lib = compileShared(g->source, co);
      QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
      auto p = LoadedProgram::load(lib->path);
      QVERIFY2(p, p ? "" : p.error().str().c_str());
      std::vector<float> X(static_cast<size_t>(n)), Z(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) X[size_t(i)] = float(i % 23) * 0.25f - 2;
      void* args[] = {X.data(), Z.data()};
      for (int threads : {2, 1, 2}) {
        (*p)->setThreads(threads);
        for (int run = 0; run < 3; ++run) {
          std::fill(Z.begin(), Z.end(), 0.0f);
          QVERIFY((*p)->run(args, nullptr));
          for (int64_t i = 0; i < n; ++i) {
            const float x = X[size_t(i)];
            if (Z[size_t(i)] != (x * 2 + 1) * (x * 3 - 1))
              QFAIL(qPrintable(QString("Z[%1] = %2, not %3 (threads %4, run %5)").arg(i).arg(Z[size_t(i)]).arg((x * 2 + 1) * (x * 3 - 1)).arg(threads).arg(run)));
          }
        }
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestConcurrentBranches)
#include "tst_ConcurrentBranches.moc"
