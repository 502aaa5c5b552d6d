// MachinePeaks: the machine's measured peak FLOP/s (float32: the better of a fused multiply-add loop
// and oneDNN's sgemm on 2048x2048 matrices, which reaches more of the machine; float64: the FMA loop;
// all threads) and memory bandwidth (a STREAM-like triad on arrays far larger than the last-level cache),
// the roof of the roofline that profiles are placed against.
//
// Why measured and not from a datasheet: what counts is what generated code can reach through the same
// compiler and flags (CompileOptions) and thread count, in this VM or container. The kernels are C++
// compiled through compileShared (so the build is cached like any program) and loaded with dlopen. The
// result is cached per machine as JSON under <cache>/machine-peaks/, keyed by the CPU's model name and
// feature flags (HostCpu), the number of usable cores, the thread count and the compiler's version line.
#pragma once

#include "codegen/cpu/Compiler.h"
#include "core/support/Expected.h"

#include <string>

namespace dcw::codegen {

struct MachinePeaks {
  std::string cpuModel;
  int cores = 0;            // usable cores (affinity mask)
  int threads = 0;          // threads the kernels ran with
  std::string compiler;     // the compiler's version line
  double gflopsFloat32 = 0;      // the roof: max of the two below
  double gflopsFloat32Fma = 0;   // the FMA loop
  double gflopsFloat32Sgemm = 0; // oneDNN sgemm
  // oneDNN sgemm as measured this time, before the highest of this and the cached figure is kept (0
  // when read from the cache): what a benchmark compares elements timed in the same run with, on a
  // machine whose speed moves with its neighbours' load.
  double gflopsFloat32SgemmNow = 0;
  std::string float32Method;     // how gflopsFloat32 was measured, in words (reports say it)
  double gflopsFloat64 = 0;
  double bandwidthGBs = 0;  // triad: 3 × 8 bytes per element (write-allocate traffic not counted)
  double arrayMiB = 0;      // size of each triad array
  bool cached = false;      // read from the cache rather than measured now
  std::string cacheFile;
};

struct MachinePeakOptions {
  int threads = 0;          // 0: all usable cores
  CompileOptions compile;   // the same path as generated code
  bool useCache = true;     // false: measure again (and refresh the cache; each figure keeps the highest
                            // of the new and the cached measurement: a peak only rises)
};

Expected<MachinePeaks> machinePeaks(const MachinePeakOptions& options = {});

} // namespace dcw::codegen
