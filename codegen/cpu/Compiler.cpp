// Compiler: content-addressed builds of generated C++ into shared libraries.
//
// Cache layout: <cacheDir>/<hash>/program.cpp and program.so, where hash = FNV-1a 128 of the compiler
// (its name and version line), the flags, the source and, when a flag asks for the native CPU
// (-march=native), the CPU's model and feature flags (HostCpu): a program built for one CPU is not
// handed to another from a shared cache. A build happens in a private temporary folder next to the cache entries
// and is renamed into place atomically, so concurrent builds of the same program never see a
// half-written library; the loser of a race discards its copy. The compiler runs through runProcess
// (core/support/RunProcess.h): an argument vector, no shell, its output captured.
#include "codegen/cpu/Compiler.h"

#include "core/support/HostCpu.h"
#include "core/support/RunProcess.h"
#include "core/support/TemporaryFolder.h"

#include <cerrno>
#include <map>
#include <mutex>
#include <set>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>


namespace dcw::codegen {

namespace {

namespace fs = std::filesystem;

// FNV-1a, 128-bit (offset basis and prime from the FNV specification).
std::string fnv1a128(std::string_view data) {
  unsigned __int128 h = (static_cast<unsigned __int128>(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;
  const unsigned __int128 prime = (static_cast<unsigned __int128>(0x0000000001000000ULL) << 64) | 0x000000000000013BULL;
  for (unsigned char c : data) {
    h ^= c;
    h *= prime;
  }
  static const char* hex = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 31; i >= 0; --i) {
    out[static_cast<size_t>(i)] = hex[static_cast<unsigned>(h & 15)];
    h >>= 4;
  }
  return out;
}

bool writeFile(const fs::path& p, std::string_view text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  if (!f) return false;
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(f);
}

std::string firstErrorLine(const std::string& output) {
  size_t pos = 0;
  std::string firstLine;
  while (pos < output.size()) {
    size_t end = output.find('\n', pos);
    if (end == std::string::npos) end = output.size();
    std::string l = output.substr(pos, end - pos);
    if (firstLine.empty() && !l.empty()) firstLine = l;
    if (l.find("error:") != std::string::npos) return l;
    pos = end + 1;
  }
  return firstLine.empty() ? std::string("the compiler failed without a message") : firstLine;
}

} // namespace

std::vector<std::string> defaultCompileFlags() {
  // -fno-gnu-unique: the runtime's statics (inline functions' locals: the progress slot, the pools, the
  // profiling buffer) stay each program's own. With g++'s default STB_GNU_UNIQUE binding every loaded
  // program would share the first one's, whatever RTLD_LOCAL says, and none could be unloaded.
  std::vector<std::string> flags = {"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-std=c++17", "-fno-gnu-unique"};
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  // The runtime's math in vector form (glibc's libmvec, Runtime.cpp): libmvec is part of this C library.
  for (const char* f : {"-DDCW_RT_LIBMVEC", "-Wl,--no-as-needed", "-lmvec"}) flags.push_back(f);
#endif
#ifdef DCW_SANITIZE_FLAGS
  // A sanitized DCW loads only sanitized programs: the same runtime, and their faults are reported too.
  std::string all = DCW_SANITIZE_FLAGS;
  for (size_t at = 0; at < all.size();) {
    size_t end = all.find(' ', at);
    if (end == std::string::npos) end = all.size();
    if (end > at) flags.push_back(all.substr(at, end - at));
    at = end + 1;
  }
#endif
  return flags;
}

std::string defaultCacheDir() {
  if (const char* d = std::getenv("DCW_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "dcw").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "dcw").string();
  return (fs::temp_directory_path() / ("dcw-cache-" + std::to_string(getuid()))).string();
}

namespace {

struct CompilerInfo {
  std::string identity; // the first line of `--version`
  bool gcc = false;     // GCC's driver (g++, c++), whose precompiled headers the build uses
};

// The compiler's own version line (`g++ --version`), asked once per compiler and process, so that
// upgrading the compiler does not keep serving programs it did not build.
CompilerInfo compilerInfo(const std::string& compiler) {
  static std::mutex mu;
  static std::map<std::string, CompilerInfo> known;
  std::lock_guard lock(mu);
  auto it = known.find(compiler);
  if (it != known.end()) return it->second;
  RunResult r = runProcess({compiler, "--version"});
  CompilerInfo info;
  info.identity = r.output.substr(0, r.output.find('\n'));
  // GCC's --version names its copyright holder; clang's and nvcc's do not.
  info.gcc = r.status == 0 && r.output.find("Free Software Foundation") != std::string::npos;
  return known[compiler] = info;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The host CPU's identity when the flags build for it (-march=native, -mcpu=native, -mtune=native, also
// through nvcc's -Xcompiler), else nothing: such a build is only valid on a CPU with the same features.
std::string nativeCpuPart(const std::vector<std::string>& flags) {
  for (const std::string& f : flags)
    if (f.find("=native") != std::string::npos) return hostCpuIdentity();
  return {};
}

// The flags that shape compilation (not linking): a precompiled header must be built with the same ones.
std::vector<std::string> compileOnlyFlags(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    if (f == "-Xlinker" || f == "-L" || f == "-l") {
      ++i;
      continue;
    }
    if (f == "-shared" || startsWith(f, "-l") || startsWith(f, "-L") || startsWith(f, "-Wl,")) continue;
    out.push_back(f);
  }
  return out;
}

// A cache entry's folder gets the time of its last use, so that a cache kept between runs (the tests'
// one, ~/.cache/dcw) can drop what no run used for a while (scripts/test.sh) without losing the rest.
void touchEntry(const fs::path& folder) {
  std::error_code ec;
  fs::last_write_time(folder, fs::file_time_type::clock::now(), ec);
}

// <cache>/pch-<hash>/prelude.h with its prelude.h.gch, built unless there already; empty when it
// cannot be built (the program then compiles from the text, as without one).
fs::path precompiledPrelude(const fs::path& cache, const std::string& block, const std::string& compiler,
                            const std::string& identity, const std::vector<std::string>& flags) {
  std::vector<std::string> compileFlags = compileOnlyFlags(flags);
  std::string key = "precompiled prelude";
  const std::string cpu = nativeCpuPart(flags);
  for (const std::string* part : {&compiler, &identity, &cpu, &block}) {
    key += '\0';
    key += *part;
  }
  for (auto& f : compileFlags) {
    key += '\0';
    key += f;
  }
  const fs::path folder = cache / ("pch-" + fnv1a128(key));
  std::error_code ec;
  if (fs::is_regular_file(folder / "prelude.h.gch", ec)) {
    touchEntry(folder);
    return folder / "prelude.h";
  }
  // A header that failed to build is not tried again by this process (each try costs seconds).
  static std::mutex mu;
  static std::set<std::string> failed;
  {
    std::lock_guard lock(mu);
    if (failed.count(folder.string())) return {};
  }
  auto give_up = [&] {
    std::lock_guard lock(mu);
    failed.insert(folder.string());
    return fs::path();
  };
  auto tmp = TemporaryFolder::create(cache, "tmp-pch-");
  if (!tmp) return give_up();
  if (!writeFile(tmp->path() / "prelude.h", block)) return give_up();
  std::vector<std::string> argv{compiler};
  argv.insert(argv.end(), compileFlags.begin(), compileFlags.end());
  for (const char* a : {"-x", "c++-header", "-o"}) argv.push_back(a);
  argv.push_back((tmp->path() / "prelude.h.gch").string());
  argv.push_back((tmp->path() / "prelude.h").string());
  RunResult r = runProcess(argv);
  if (r.status != 0 || !fs::is_regular_file(tmp->path() / "prelude.h.gch", ec)) return give_up();
  fs::rename(tmp->path(), folder, ec);
  if (!ec) tmp->release();
  // Whether ours or a concurrent build's copy landed, the folder now holds a complete header.
  return fs::is_regular_file(folder / "prelude.h.gch", ec) ? folder / "prelude.h" : give_up();
}

} // namespace

std::string compilerIdentity(const std::string& compiler) { return compilerInfo(compiler).identity; }

std::string leadingIncludeBlock(std::string_view source) {
  std::string text, block; // the directives read so far; those up to the last point outside any #if
  size_t pos = 0;
  int depth = 0;
  bool included = false;
  while (pos < source.size()) {
    size_t eol = source.find('\n', pos);
    size_t next = eol == std::string_view::npos ? source.size() : eol + 1;
    std::string_view l = source.substr(pos, next - pos);
    size_t first = l.find_first_not_of(" \t\r\n");
    std::string_view t = first == std::string_view::npos ? std::string_view() : l.substr(first);
    pos = next;
    if (t.empty() || startsWith(t, "//")) continue; // (a comment may name the program: not part of the block)
    if (startsWith(t, "#include <")) {
      included = true;
    } else if (startsWith(t, "#if")) {
      ++depth;
    } else if (startsWith(t, "#else") || startsWith(t, "#elif")) {
      if (depth == 0) break;
    } else if (startsWith(t, "#endif")) {
      if (--depth < 0) break;
    } else {
      break;
    }
    text += l;
    if (l.back() != '\n') text += '\n';
    if (depth == 0 && included) block = text;
  }
  return block;
}

std::string buildCacheKey(const std::string& source, const CompileOptions& options) {
  std::string key = options.compiler;
  key += '\0';
  key += compilerInfo(options.compiler).identity;
  key += '\0';
  key += nativeCpuPart(options.flags);
  key += '\0';
  for (auto& f : options.flags) {
    key += f;
    key += '\0';
  }
  key += '\0';
  key += source;
  return key;
}

Expected<CompiledLibrary> compileShared(const std::string& source, const CompileOptions& options) {
  const CompilerInfo info = compilerInfo(options.compiler);
  std::string hash = fnv1a128(buildCacheKey(source, options));
  fs::path cache = options.cacheDir.empty() ? fs::path(defaultCacheDir()) : fs::path(options.cacheDir);
  fs::path entry = cache / hash;
  CompiledLibrary lib;
  lib.path = (entry / "program.so").string();
  lib.sourcePath = (entry / "program.cpp").string();
  std::error_code ec;
  if (fs::is_regular_file(entry / "program.so", ec)) {
    touchEntry(entry);
    lib.cacheHit = true;
    return lib;
  }
  fs::create_directories(cache, ec);
  if (ec) return fail(cache.string(), "cannot create the build cache folder: " + ec.message(), "set DCW_CACHE_DIR to a writable folder");

  // A private build folder (removed unless it becomes the cache entry or the kept failure).
  auto folder = TemporaryFolder::create(cache, "tmp-" + hash + "-");
  if (!folder) return folder.takeError();
  const fs::path tmp = folder->path();
  if (!writeFile(tmp / "program.cpp", source))
    return fail((tmp / "program.cpp").string(), "cannot write the generated source");
  std::vector<std::string> argv{options.compiler};
  for (auto& f : options.flags) argv.push_back(f);
  // The program's leading #include block, from a precompiled header: the same text, included first,
  // so the program's own #include lines after it find their headers' guards set and add nothing.
  if (std::string block = leadingIncludeBlock(source); info.gcc && !block.empty())
    if (fs::path prelude = precompiledPrelude(cache, block, options.compiler, info.identity, options.flags); !prelude.empty()) {
      argv.push_back("-include");
      argv.push_back(prelude.string());
    }
  argv.push_back("-o");
  argv.push_back((tmp / "program.so").string());
  argv.push_back((tmp / "program.cpp").string());
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = runProcess(argv);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.spawnError.empty())
    return fail(options.compiler, "cannot run the compiler: " + r.spawnError, "install g++ or set CompileOptions::compiler");
  (void)writeFile(tmp / "compile.log", r.output);
  if (r.status != 0 || !fs::is_regular_file(tmp / "program.so", ec)) {
    // Keep the failed build for inspection, replacing an older failure of the same program.
    fs::path failed = cache / ("failed-" + hash);
    fs::remove_all(failed, ec);
    fs::rename(tmp, failed, ec);
    if (!ec) folder->release();
    std::string log = ec ? std::string() : (failed / "compile.log").string();
    return fail((ec ? tmp : failed / "program.cpp").string(), "compilation failed: " + firstErrorLine(r.output),
                log.empty() ? std::string() : "the full compiler output is in " + log);
  }
  fs::rename(tmp, entry, ec);
  if (ec && !fs::is_regular_file(entry / "program.so")) {
    // A stale, incomplete entry (an interrupted older layout, a crash): replace it.
    std::error_code ec2;
    fs::remove_all(entry, ec2);
    fs::rename(tmp, entry, ec);
  }
  if (!ec) folder->release();
  if (ec) {
    // Another process finished the same program first: use its copy (ours is removed).
    if (!fs::is_regular_file(entry / "program.so"))
      return fail(entry.string(), "cannot move the build into the cache: " + ec.message());
  }
  lib.seconds = seconds;
  return lib;
}

} // namespace dcw::codegen
