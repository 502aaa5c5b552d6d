#include "core/support/MachineLoad.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace dcw {

namespace {

// The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal guest guest_nice".
long long machineBusyTicks() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
  if (!(in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq) || cpu != "cpu") return -1;
  return user + nice + system + irq + softirq;
}

// Fields 14 and 15 of /proc/PID/stat (utime, stime), after the command name in parentheses (which may
// hold spaces); 0 when the process is gone.
long long processTicks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = all.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(all.substr(close + 1));
  std::string field;
  long long utime = 0, stime = 0;
  for (int k = 3; k <= 15 && rest >> field; ++k) {
    if (k == 14) utime = std::atoll(field.c_str());
    if (k == 15) stime = std::atoll(field.c_str());
  }
  return utime + stime;
}

} // namespace

MachineLoad::MachineLoad(std::vector<pid_t> ours) : ours_(std::move(ours)) {
  ours_.push_back(::getpid());
  start_ = sample();
}

MachineLoad::Sample MachineLoad::sample() const {
  Sample s;
  s.at = std::chrono::steady_clock::now();
  s.machineTicks = machineBusyTicks();
  for (pid_t p : ours_) s.ourTicks += processTicks(p);
  return s;
}

std::string MachineLoad::note(std::optional<double> cores) {
  if (!cores || *cores < kNoticeable) return {};
  char text[160];
  std::snprintf(text, sizeof text, "other processes kept %.1f cores busy while the runs were timed: these are a shared machine's times", *cores);
  return text;
}

std::optional<double> MachineLoad::otherBusyCores() const {
  const Sample end = sample();
  if (start_.machineTicks < 0 || end.machineTicks < 0 || end.at - start_.at < kShortest) return std::nullopt;
  const double ticksPerSecond = double(::sysconf(_SC_CLK_TCK));
  const double seconds = std::chrono::duration<double>(end.at - start_.at).count();
  const double others = double((end.machineTicks - start_.machineTicks) - (end.ourTicks - start_.ourTicks)) / ticksPerSecond;
  return others > 0 ? others / seconds : 0.0;
}

} // namespace dcw
