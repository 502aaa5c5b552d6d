// RunProcess: runs a program to its end with an argument vector (posix_spawnp, no shell), its standard
// output and error captured together through a pipe and standard input from /dev/null. What the
// compiler of generated programs and the RTL co-simulation's builds and runs share.
#pragma once

#include <string>
#include <vector>

namespace dcw {

struct RunResult {
  int status = -1;       // exit status, or -1 when it could not run or a signal ended it
  int signal = 0;        // the signal that ended it, if one did
  std::string output;    // stdout and stderr together (the first 8 MiB)
  std::string spawnError;
};

RunResult runProcess(const std::vector<std::string>& argv);

} // namespace dcw
