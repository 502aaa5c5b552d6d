#include "core/support/HostCpu.h"

#include <fstream>

namespace dcw {

namespace {

// The value of the first line of /proc/cpuinfo that starts with one of the keys ("" when none does).
std::string cpuinfoValue(std::initializer_list<const char*> keys) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    for (const char* key : keys) {
      const std::string k = key;
      if (line.rfind(k, 0) != 0) continue;
      auto c = line.find(':');
      if (c == std::string::npos || line.find_first_not_of(" \t", k.size()) != c) continue; // "flags" is not "flags_x"
      std::string v = line.substr(c + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return {};
}

} // namespace

std::string hostCpuModel() {
  std::string m = cpuinfoValue({"model name"});
  return m.empty() ? "unknown CPU" : m;
}

const std::string& hostCpuIdentity() {
  static const std::string identity = hostCpuModel() + "\n" + cpuinfoValue({"flags", "Features"});
  return identity;
}

} // namespace dcw
