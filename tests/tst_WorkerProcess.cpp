// tst_WorkerProcess: a program run in a worker process cannot take the caller down. A small program
// with the generated-code ABI (GeneratedCode.h) misbehaves on request — an out-of-bounds write, an
// integer division by zero, an endless loop, a 100 GiB allocation, an abort — and each run returns an
// error naming what happened and the element the program was in (its progress slot), the time limit
// and cancellation stop an endless loop at once, and the next run works again (a new worker). What the
// program writes to stderr comes back (takeMessages), however much, also from a dying program. The
// worker moderates OpenMP's spin unless the user set it.
#include "support/TestPaths.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/run/WorkerProcess.h"

#include <QTest>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <unistd.h>

using namespace dcw::codegen;

namespace {

const char* kProgram = R"(#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
static volatile int64_t* slot = nullptr;
extern "C" void dcw_set_progress_slot(volatile int64_t* s) { slot = s; }
extern "C" void dcw_set_threads(int) {}
extern "C" int dcw_program(void* const* args, const int64_t* symbols, char* error, size_t errorSize) {
  const float* x = static_cast<const float*>(args[0]);
  float* y = static_cast<float*>(args[1]);
  const float* w = static_cast<const float*>(args[2]);
  if (slot) *slot = 7;
  for (int i = 0; i < 4; ++i) y[i] = 2 * x[i] + w[i];
  if (slot) *slot = 42; // the element that misbehaves
  volatile int zero = 0;
  switch (symbols[0]) {
  case 1: y[int64_t(1) << 40] = 1; break;                        // out-of-bounds write
  case 2: y[0] = float(int(x[0]) / zero); break;                  // integer division by zero
  case 3: for (volatile int64_t k = 0;; ++k) {} break;            // endless loop
  case 4: {                                                       // 100 GiB
    char* p = static_cast<char*>(std::malloc(size_t(100) << 30));
    if (!p) { std::strncpy(error, "out of memory allocating 100 GiB", errorSize); return 1; }
    std::memset(p, 1, size_t(100) << 30);
    y[0] = p[12345];
    break;
  }
  case 5: std::abort();
  case 6:                                                         // 2.5 MB of diagnostics (more than a pipe holds)
    for (int i = 0; i < 40000; ++i) std::fprintf(stderr, "diagnostic line %05d of the program, padded to sixty bytes..\n", i);
    break;
  case 7: std::fprintf(stderr, "last words\n"); std::fflush(stderr); std::abort();
  case 8:                                                         // where constants 2 to 4 lie
    y[0] = args[2] == args[3] ? 1.0f : 0.0f;
    y[1] = args[2] == args[4] ? 1.0f : 0.0f;
    y[2] = static_cast<const float*>(args[4])[3];
    break;
  case 9: {                                                       // the spin libgomp will read (-1: unset)
    const char* spin = std::getenv("GOMP_SPINCOUNT");
    y[0] = spin ? float(std::atof(spin)) : -1.0f;
    break;
  }
  }
  return 0;
}
)";

struct Fixture {
  CompiledLibrary lib;
  float x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0}, w[4] = {10, 20, 30, 40};
  std::vector<WorkerArg> args() {
    return {{x, sizeof x, WorkerArg::Kind::Input}, {y, sizeof y, WorkerArg::Kind::Output}, {w, sizeof w, WorkerArg::Kind::Constant}};
  }
};

std::string name(int64_t id) { return id == 42 ? "main/state0/Broken_op" : "main/state0/element_" + std::to_string(id); }

} // namespace

class TestWorkerProcess : public QObject {
  Q_OBJECT
  Fixture f_;

private slots:
  void initTestCase() {
    qputenv("DCW_CACHE_DIR", testpaths::kernelCache().c_str());
    CompileOptions o;
    o.flags = {"-O1", "-fPIC", "-shared", "-std=c++17"};
    auto lib = compileShared(kProgram, o);
    QVERIFY2(lib.ok(), lib.ok() ? "" : lib.error().str().c_str());
    f_.lib = *lib;
  }

  void runsAndCopiesTensors() {
    WorkerProcess w(f_.lib.path);
    for (int round = 0; round < 3; ++round) {
      f_.x[0] = float(round);
      auto r = w.run(f_.args(), {0}, 1, nullptr, name);
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
      QCOMPARE(f_.y[0], 2.0f * float(round) + 10.0f);
      QCOMPARE(f_.y[3], 48.0f);
    }
    QVERIFY(w.pid() > 0);
  }

  // One constant buffer given twice lies in one place of the shared memory (tied weights are packed
  // once, as in process); another buffer of the same bytes is its own.
  void oneConstantBufferGivenTwiceLiesOnce() {
    WorkerProcess w(f_.lib.path);
    float other[4] = {10, 20, 30, 41};
    std::vector<WorkerArg> args = f_.args();
    args.push_back({f_.w, sizeof f_.w, WorkerArg::Kind::Constant});
    args.push_back({other, sizeof other, WorkerArg::Kind::Constant});
    auto r = w.run(args, {8}, 1, nullptr, name);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QCOMPARE(f_.y[0], 1.0f);
    QCOMPARE(f_.y[1], 0.0f);
    QCOMPARE(f_.y[2], 41.0f);
  }

  // The worker moderates OpenMP's spin before it loads the program (core/support/OpenMpSpin.h), unless
  // the user chose the spin or the wait policy.
  void workerModeratesOpenMpSpinUnlessTheUserChose() {
    const QByteArray spin = qgetenv("GOMP_SPINCOUNT"), policy = qgetenv("OMP_WAIT_POLICY");
    qunsetenv("GOMP_SPINCOUNT");
    qunsetenv("OMP_WAIT_POLICY");
    struct Case { const char* var; const char* value; float seen; };
    for (const Case& c : {Case{nullptr, nullptr, 10000.0f}, Case{"GOMP_SPINCOUNT", "500", 500.0f},
                          Case{"OMP_WAIT_POLICY", "passive", -1.0f}}) {
      if (c.var) qputenv(c.var, c.value);
      WorkerProcess w(f_.lib.path);
      auto r = w.run(f_.args(), {9}, 1, nullptr, name);
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
      QCOMPARE(f_.y[0], c.seen);
      if (c.var) qunsetenv(c.var);
    }
    if (!spin.isNull()) qputenv("GOMP_SPINCOUNT", spin);
    if (!policy.isNull()) qputenv("OMP_WAIT_POLICY", policy);
  }

  void misbehaviourIsReportedAndTheNextRunWorks_data() {
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("expected");
    QTest::newRow("out-of-bounds write") << 1 << "SIGSEGV";
    QTest::newRow("integer division by zero") << 2 << "SIGFPE";
    QTest::newRow("100 GiB allocation") << 4 << "out of memory allocating 100 GiB";
    QTest::newRow("abort") << 5 << "SIGABRT";
  }
  void misbehaviourIsReportedAndTheNextRunWorks() {
    QFETCH(int, mode);
    QFETCH(QString, expected);
    WorkerLimits limits;
    limits.memoryBytes = int64_t(2) << 30; // 2 GiB: the 100 GiB allocation fails cleanly
    WorkerProcess w(f_.lib.path, limits);
    auto bad = w.run(f_.args(), {mode}, 1, nullptr, name);
    QVERIFY(!bad.ok());
    const QString msg = QString::fromStdString(bad.error().str());
    QVERIFY2(msg.contains(expected), qPrintable(msg));
    QVERIFY2(msg.contains("main/state0/Broken_op"), qPrintable(msg));
    f_.x[0] = 5;
    auto good = w.run(f_.args(), {0}, 1, nullptr, name);
    QVERIFY2(good.ok(), good.ok() ? "" : good.error().str().c_str());
    QCOMPARE(f_.y[0], 20.0f);
  }

  // What the program writes to stderr comes back line by line (takeMessages), however much it is (the
  // pipe is drained while the program runs: no deadlock), and what a dying program said is kept.
  void programMessagesComeBack() {
    WorkerLimits limits;
    limits.passMessagesOn = false; // not into this test's log
    WorkerProcess w(f_.lib.path, limits);
    QVERIFY(w.run(f_.args(), {0}, 1, nullptr, name).ok());
    QCOMPARE(w.takeMessages(), std::string());
    auto t0 = std::chrono::steady_clock::now();
    auto r = w.run(f_.args(), {6}, 1, nullptr, name);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QVERIFY(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 30);
    const std::string said = w.takeMessages();
    const size_t line = 62;
    QCOMPARE(said.size(), size_t(256 << 10) / line * line); // the last 256 KiB, whole lines
    QVERIFY(said.rfind("diagnostic line 39999 of the program, padded to sixty bytes..\n") == said.size() - line);
    QCOMPARE(w.takeMessages(), std::string());
    auto bad = w.run(f_.args(), {7}, 1, nullptr, name);
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().str().find("SIGABRT") != std::string::npos, bad.error().str().c_str());
    QCOMPARE(w.takeMessages(), std::string("last words\n"));
  }

  // A stderr whose reader is gone: the program's messages are lost there, not this process (SIGPIPE),
  // and they are still kept for takeMessages.
  void messagesToABrokenStderrDoNotEndTheCaller() {
    const int saved = dup(2);
    int p[2];
    QVERIFY(pipe(p) == 0);
    ::close(p[0]); // no reader
    dup2(p[1], 2);
    ::close(p[1]);
    bool ok = false;
    std::string said;
    {
      WorkerProcess w(f_.lib.path); // passes messages on (to the broken stderr)
      ok = w.run(f_.args(), {6}, 1, nullptr, name).ok();
      said = w.takeMessages();
    }
    dup2(saved, 2);
    ::close(saved);
    QVERIFY(ok);
    QVERIFY(said.rfind("diagnostic line 39999 of the program, padded to sixty bytes..\n") == said.size() - 62);
  }

  void timeLimitStopsAnEndlessLoop() {
    WorkerLimits limits;
    limits.seconds = 0.5;
    WorkerProcess w(f_.lib.path, limits);
    auto t0 = std::chrono::steady_clock::now();
    auto r = w.run(f_.args(), {3}, 1, nullptr, name);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QVERIFY(!r.ok());
    const QString msg = QString::fromStdString(r.error().str());
    QVERIFY2(msg.contains("time limit of 0.5 s") && msg.startsWith("main/state0/Broken_op: "), qPrintable(msg));
    QVERIFY2(s < 5, qPrintable(QString::number(s)));
    QVERIFY(w.run(f_.args(), {0}, 1, nullptr, name).ok());
  }

  void cancelStopsAtOnce() {
    WorkerProcess w(f_.lib.path);
    std::atomic<bool> cancel{false};
    std::thread t([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cancel = true;
    });
    auto t0 = std::chrono::steady_clock::now();
    auto r = w.run(f_.args(), {3}, 1, &cancel, name);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t.join();
    QVERIFY(!r.ok());
    QVERIFY2(r.error().str().find("main/state0/Broken_op: cancelled") == 0, r.error().str().c_str());
    QVERIFY2(s < 3, qPrintable(QString::number(s)));
  }

  void missingLibraryIsAnError() {
    WorkerProcess w("/nonexistent/program.so");
    auto r = w.run(f_.args(), {0}, 1, nullptr, name);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().str().find("cannot load the compiled program") != std::string::npos, r.error().str().c_str());
  }
};

QTEST_APPLESS_MAIN(TestWorkerProcess)
#include "tst_WorkerProcess.moc"
