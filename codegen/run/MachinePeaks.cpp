// MachinePeaks: see the header.
//
// FLOP/s: every thread updates K independent 64-byte vector accumulators (GCC vector extensions, so the
// same source uses AVX-512, AVX2 or SSE, whatever -march=native gives) with acc = acc * m + c, which
// contracts to one FMA per lane (-ffp-contract=fast is added to the flags for this build: the ISO
// modes turn contraction off). Several K are tried, because the number of accumulators needed to hide
// the FMA latency depends on the register file; the best counts (2 FLOPs per lane and FMA). The
// iteration count is calibrated to about 0.15 s per measurement; the best of three is kept.
// Bandwidth: a[i] = b[i] + s * c[i] over three double arrays of max(64 MiB, 4 × L3) each (capped at
// 512 MiB), first-touched by the same static OpenMP schedule that runs the triad; best of five.
#include "codegen/run/MachinePeaks.h"
#include "core/support/HostCpu.h"
#include "core/support/UsableCores.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace dcw::codegen {

namespace {

namespace fs = std::filesystem;

constexpr const char* kKernels = R"DCWPEAK(// DCW machine-peak kernels (codegen/run/MachinePeaks.cpp).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <dnnl.h>
#include <omp.h>

typedef float dcw_vf __attribute__((vector_size(64)));
typedef double dcw_vd __attribute__((vector_size(64)));

template <class V, class S, int K> static double fma_seconds(int64_t iters, int threads, double* sink) {
  double total = 0;
  auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    V acc[K];
    V m = V{} + static_cast<S>(0.99999);
    V c = V{} + static_cast<S>(1e-6);
    for (int k = 0; k < K; ++k) acc[k] = V{} + static_cast<S>(1 + k * 0.001 + omp_get_thread_num() * 1e-5);
    for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
      for (int k = 0; k < K; ++k) acc[k] = acc[k] * m + c;
    }
    V s = acc[0];
    for (int k = 1; k < K; ++k) s += acc[k];
    for (unsigned l = 0; l < sizeof(V) / sizeof(S); ++l) total += static_cast<double>(s[l]);
  }
  auto t1 = std::chrono::steady_clock::now();
  *sink = total;
  return std::chrono::duration<double>(t1 - t0).count();
}

// dtype 0: float32, 1: float64. Returns seconds; FLOPs = threads * iters * K * lanes * 2.
extern "C" double dcw_peak_fma(int dtype, int k, int64_t iters, int threads, double* sink) {
  if (dtype == 0) {
    switch (k) {
    case 4: return fma_seconds<dcw_vf, float, 4>(iters, threads, sink);
    case 6: return fma_seconds<dcw_vf, float, 6>(iters, threads, sink);
    case 8: return fma_seconds<dcw_vf, float, 8>(iters, threads, sink);
    case 12: return fma_seconds<dcw_vf, float, 12>(iters, threads, sink);
    }
  } else {
    switch (k) {
    case 4: return fma_seconds<dcw_vd, double, 4>(iters, threads, sink);
    case 6: return fma_seconds<dcw_vd, double, 6>(iters, threads, sink);
    case 8: return fma_seconds<dcw_vd, double, 8>(iters, threads, sink);
    case 12: return fma_seconds<dcw_vd, double, 12>(iters, threads, sink);
    }
  }
  return -1;
}

// Best seconds of `reps` oneDNN sgemm calls C[n,n] = A[n,n] B[n,n] (2 n^3 FLOPs) on `threads`
// threads after one warm-up call; -1 when the matrices cannot be allocated or the call fails.
extern "C" double dcw_peak_sgemm(int64_t n, int threads, int reps, double* sink) {
  const size_t bytes = static_cast<size_t>(n * n) * sizeof(float);
  float* a = static_cast<float*>(std::aligned_alloc(64, bytes));
  float* b = static_cast<float*>(std::aligned_alloc(64, bytes));
  float* c = static_cast<float*>(std::aligned_alloc(64, bytes));
  double best = -1;
  if (a && b && c) {
    for (int64_t i = 0; i < n * n; ++i) a[i] = b[i] = 1.0f / static_cast<float>(1 + i % 7);
    omp_set_num_threads(threads);
    for (int r = 0; r <= reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a, n, b, n, 0.0f, c, n) != dnnl_success) { best = -1; break; }
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0 && (best < 0 || t < best)) best = t;
    }
    *sink = c[n + 1];
  }
  std::free(a);
  std::free(b);
  std::free(c);
  return best;
}

// Best seconds of `reps` triads over n doubles; -1 when the arrays cannot be allocated.
extern "C" double dcw_peak_triad(int64_t n, int threads, int reps, double* sink) {
  size_t bytes = static_cast<size_t>(n) * sizeof(double);
  double* a = static_cast<double*>(std::aligned_alloc(64, bytes));
  double* b = static_cast<double*>(std::aligned_alloc(64, bytes));
  double* c = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (!a || !b || !c) {
    std::free(a);
    std::free(b);
    std::free(c);
    return -1;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = 1;
    c[i] = 2;
  }
  double best = 1e30;
  const double s = 3.0;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    auto t1 = std::chrono::steady_clock::now();
    double t = std::chrono::duration<double>(t1 - t0).count();
    if (t < best) best = t;
  }
  *sink = a[n / 2];
  std::free(a);
  std::free(b);
  std::free(c);
  return best;
}
)DCWPEAK";

uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

int64_t l3Bytes() {
  long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (v > 0) return v;
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string t;
  if (f >> t && !t.empty()) {
    int64_t n = std::atoll(t.c_str());
    if (t.back() == 'K') n *= 1024;
    if (t.back() == 'M') n *= 1024 * 1024;
    return n;
  }
  return 32 << 20;
}

struct Library {
  void* handle = nullptr;
  ~Library() {
    if (handle) dlclose(handle);
  }
};

} // namespace

Expected<MachinePeaks> machinePeaks(const MachinePeakOptions& options) {
  using json = nlohmann::ordered_json;
  MachinePeaks p;
  p.cpuModel = hostCpuModel();
  p.cores = usableCores();
  p.threads = options.threads > 0 ? options.threads : p.cores;
  p.compiler = compilerIdentity(options.compile.compiler);
  std::string flags;
  for (auto& f : options.compile.flags) flags += f + " ";
  const std::string key = "fma+sgemm+triad\n" + hostCpuIdentity() + "\n" + std::to_string(p.cores) + "\n" + std::to_string(p.threads) + "\n" + p.compiler + "\n" + flags;
  fs::path dir = fs::path(options.compile.cacheDir.empty() ? defaultCacheDir() : options.compile.cacheDir) / "machine-peaks";
  char name[64];
  std::snprintf(name, sizeof name, "peaks-%016llx.json", static_cast<unsigned long long>(fnv1a64(key)));
  p.cacheFile = (dir / name).string();
  // The cached figures for this key, if any.
  auto cached = [&]() -> std::optional<MachinePeaks> {
    std::ifstream f(p.cacheFile);
    if (!f) return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (!j.is_object() || j.value("key", std::string()) != key || j.value("gflop_per_s_float32", 0.0) <= 0) return std::nullopt;
    MachinePeaks c = p;
    c.gflopsFloat32 = j.value("gflop_per_s_float32", 0.0);
    c.gflopsFloat32Fma = j.value("gflop_per_s_float32_fma", 0.0);
    c.gflopsFloat32Sgemm = j.value("gflop_per_s_float32_sgemm", 0.0);
    c.float32Method = j.value("float32_method", std::string());
    c.gflopsFloat64 = j.value("gflop_per_s_float64", 0.0);
    c.bandwidthGBs = j.value("gb_per_s", 0.0);
    c.arrayMiB = j.value("triad_array_mib", 0.0);
    c.cached = true;
    return c;
  };
  const std::optional<MachinePeaks> before = cached();
  if (options.useCache && before) return *before;

  CompileOptions co = options.compile;
  co.flags.push_back("-ffp-contract=fast");
  co.flags.push_back("-Wl,--no-as-needed");
  co.flags.push_back("-ldnnl");
  auto lib = compileShared(kKernels, co);
  if (!lib) return lib.takeError();
  Library l;
  l.handle = dlopen(lib->path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!l.handle) {
    const char* e = dlerror();
    return fail(lib->path, std::string("cannot load the machine-peak kernels: ") + (e ? e : "unknown error"), "delete the cache entry");
  }
  auto fma = reinterpret_cast<double (*)(int, int, int64_t, int, double*)>(dlsym(l.handle, "dcw_peak_fma"));
  auto triad = reinterpret_cast<double (*)(int64_t, int, int, double*)>(dlsym(l.handle, "dcw_peak_triad"));
  auto sgemm = reinterpret_cast<double (*)(int64_t, int, int, double*)>(dlsym(l.handle, "dcw_peak_sgemm"));
  if (!fma || !triad || !sgemm) return fail(lib->path, "the machine-peak kernels lack their entry points", "delete the cache entry");

  double sink = 0;
  for (int dtype = 0; dtype < 2; ++dtype) {
    const double lanes = dtype == 0 ? 16 : 8;
    double best = 0;
    for (int k : {4, 6, 8, 12}) {
      int64_t iters = 1 << 14;
      double t = fma(dtype, k, iters, p.threads, &sink);
      while (t < 0.05 && iters < (int64_t(1) << 40)) {
        iters *= t > 1e-4 ? std::max<int64_t>(2, static_cast<int64_t>(0.15 / t)) : 16;
        t = fma(dtype, k, iters, p.threads, &sink);
      }
      for (int rep = 0; rep < 3; ++rep) {
        double s = rep == 0 ? t : fma(dtype, k, iters, p.threads, &sink);
        if (s <= 0) continue;
        double g = static_cast<double>(p.threads) * static_cast<double>(iters) * k * lanes * 2 / s / 1e9;
        best = std::max(best, g);
      }
    }
    (dtype == 0 ? p.gflopsFloat32Fma : p.gflopsFloat64) = best;
  }
  // float32: the better of the FMA loop and oneDNN's sgemm, which reaches more of the machine than a
  // plain loop (its blocking keeps every FMA unit busy), so the roof is one the best code can touch.
  constexpr int64_t kSgemmN = 2048;
  const double ts = sgemm(kSgemmN, p.threads, 3, &sink);
  p.gflopsFloat32Sgemm = ts > 0 ? 2.0 * double(kSgemmN) * kSgemmN * kSgemmN / ts / 1e9 : 0;
  p.gflopsFloat32SgemmNow = p.gflopsFloat32Sgemm;
  int64_t arrayBytes = std::clamp<int64_t>(4 * l3Bytes(), 64ll << 20, 512ll << 20);
  int64_t n = arrayBytes / 8;
  double t = triad(n, p.threads, 5, &sink);
  if (t <= 0) return fail("machine peaks", "cannot allocate the bandwidth benchmark's arrays (3 × " + std::to_string(arrayBytes >> 20) + " MiB)");
  p.bandwidthGBs = 3.0 * static_cast<double>(n) * 8 / t / 1e9;
  p.arrayMiB = static_cast<double>(arrayBytes) / (1 << 20);
  // A peak only rises: measured again (--remeasure-peaks), each figure keeps the highest of this and
  // the cached measurement, so a measurement disturbed by other work on the machine cannot lower a
  // roof that a quiet one reached (nor, once cached, stay the roof when a quiet one is taken).
  const bool kept = before && (before->gflopsFloat32Fma > p.gflopsFloat32Fma || before->gflopsFloat32Sgemm > p.gflopsFloat32Sgemm ||
                               before->gflopsFloat64 > p.gflopsFloat64 || before->bandwidthGBs > p.bandwidthGBs);
  if (before) {
    p.gflopsFloat32Fma = std::max(p.gflopsFloat32Fma, before->gflopsFloat32Fma);
    p.gflopsFloat32Sgemm = std::max(p.gflopsFloat32Sgemm, before->gflopsFloat32Sgemm);
    p.gflopsFloat64 = std::max(p.gflopsFloat64, before->gflopsFloat64);
    p.bandwidthGBs = std::max(p.bandwidthGBs, before->bandwidthGBs);
  }
  p.gflopsFloat32 = std::max(p.gflopsFloat32Fma, p.gflopsFloat32Sgemm);
  char how[320];
  std::snprintf(how, sizeof how, "%s: oneDNN sgemm %lldx%lldx%lld best of 3 = %.1f GFLOP/s, FMA loop = %.1f GFLOP/s (%d threads)%s",
                p.gflopsFloat32Sgemm >= p.gflopsFloat32Fma ? "oneDNN sgemm" : "FMA loop", static_cast<long long>(kSgemmN),
                static_cast<long long>(kSgemmN), static_cast<long long>(kSgemmN), p.gflopsFloat32Sgemm, p.gflopsFloat32Fma, p.threads,
                kept ? "; the highest of this and earlier measurements" : "");
  p.float32Method = how;

  std::error_code ec;
  fs::create_directories(dir, ec);
  json j{{"key", key}, {"cpu", p.cpuModel}, {"cores", p.cores}, {"threads", p.threads}, {"compiler", p.compiler},
         {"gflop_per_s_float32", p.gflopsFloat32}, {"gflop_per_s_float32_fma", p.gflopsFloat32Fma},
         {"gflop_per_s_float32_sgemm", p.gflopsFloat32Sgemm}, {"float32_method", p.float32Method},
         {"gflop_per_s_float64", p.gflopsFloat64}, {"gb_per_s", p.bandwidthGBs},
         {"triad_array_mib", p.arrayMiB}};
  // Written to a temporary name and renamed, so a concurrent reader never sees half a file.
  std::string tmp = p.cacheFile + ".tmp" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << j.dump(2) << "\n";
  }
  fs::rename(tmp, p.cacheFile, ec);
  if (ec) fs::remove(tmp, ec); // the cache is an optimisation: a read-only cache folder is not an error
  return p;
}

} // namespace dcw::codegen
