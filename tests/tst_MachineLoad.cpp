// MachineLoad (core/support/MachineLoad.h): a child process that keeps a core busy counts as other
// work, unless it is named among ours: two loads measured over the same interval, one naming the
// child and one not, differ by the child's share of a core. An interval too short to tell gives nothing.
// FreeCores (core/support/FreeCores.h): the thread count of the next run starts at the usable cores and
// drops by the core a busy child holds once an interval could tell, but not when the child is ours.
#include "core/support/FreeCores.h"
#include "core/support/MachineLoad.h"
#include "core/support/UsableCores.h"

#include <QTest>

#include <chrono>
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace dcw;

namespace {
// A child process that keeps one core busy until it is killed (or the test ends).
pid_t busyChild() {
  const pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlives the test
    for (volatile unsigned long k = 0;; ++k) {
    }
  }
  return child;
}
} // namespace

class TestMachineLoad : public QObject {
  Q_OBJECT

private slots:
  void busyChildIsOtherWorkUnlessOurs() {
    const pid_t child = busyChild();
    QVERIFY(child > 0);
    const MachineLoad withoutChild, withChild({child});
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    const auto a = withoutChild.otherBusyCores(), b = withChild.otherBusyCores();
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    QVERIFY(a && b);
    // The child's share of a core: at least a third even on a machine busy with other tests, at most
    // one core (it is one thread) give or take a clock tick at each end.
    QVERIFY2(*a - *b >= 0.3 && *a - *b <= 1.1, qPrintable(QString("without the child %1, with it %2").arg(*a).arg(*b)));
    QVERIFY(*b >= 0.0);
  }

  // The note DCW prints beside its figures: from a quarter core up, never when nothing could be told.
  void noteFromAQuarterCoreUp() {
    QCOMPARE(MachineLoad::note(1.04), std::string("other processes kept 1.0 cores busy while the runs were timed: these are a shared machine's times"));
    QVERIFY(!MachineLoad::note(0.25).empty());
    QVERIFY(MachineLoad::note(0.2).empty());
    QVERIFY(MachineLoad::note(std::nullopt).empty());
  }

  void freeCoresLeaveTheBusyOneOut() {
    const pid_t child = busyChild();
    QVERIFY(child > 0);
    const int usable = usableCores();
    FreeCores others, ours;
    QCOMPARE(others.next(), usable); // nothing measured yet
    QCOMPARE(ours.next({child}), usable);
    int seen = usable, seenOurs = usable;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(700);
    while (std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      seen = others.next();
      seenOurs = ours.next({child});
      QVERIFY(seen >= 1 && seen <= usable);
    }
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    QVERIFY2(seen <= std::max(1, usable - 1), qPrintable(QString("%1 of %2 usable").arg(seen).arg(usable)));
    // Counted as ours, the child takes nothing away (the machine may be busy with other tests, though).
    QVERIFY2(seenOurs >= seen, qPrintable(QString("%1 threads, %2 with the child ours").arg(seen).arg(seenOurs)));
  }

  void tooShortAnIntervalSaysNothing() {
    const MachineLoad load;
    QVERIFY(!load.otherBusyCores());
  }
};

QTEST_GUILESS_MAIN(TestMachineLoad)
#include "tst_MachineLoad.moc"
