// Compiler: builds generated C++ into a shared library with the system compiler (g++ -O3 -fopenmp
// -shared -fPIC), cached by a hash of the source and flags under the cache folder
// ($DCW_CACHE_DIR, else $XDG_CACHE_HOME/dcw, else ~/.cache/dcw). A cache hit costs no compilation.
// Compiler errors come back as a Diagnostic with the compiler's first error line.
// A sanitizer build of DCW (CMake option DCW_SANITIZE) builds the generated programs with the same
// sanitizers by default, so that the programs it runs are checked too.
#pragma once

#include "core/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::codegen {

// -O3 -march=native -fopenmp -fPIC -shared -std=c++17 -fno-gnu-unique, plus the sanitizers of a DCW_SANITIZE build.
std::vector<std::string> defaultCompileFlags();

struct CompileOptions {
  std::string compiler = "g++";
  std::vector<std::string> flags = defaultCompileFlags();
  std::string cacheDir;             // empty: the default cache folder
};

struct CompiledLibrary {
  std::string path;                 // the .so
  std::string sourcePath;           // the .cpp next to it
  bool cacheHit = false;
  double seconds = 0;               // compile time (0 on a hit)
};

// With GCC, the program's leading block of #include lines (leadingIncludeBlock) comes from a precompiled
// header built once per compiler, flags and block under the cache folder (pch-<hash>/prelude.h.gch, 37 MB;
// 89 MB with oneDNN's headers and <immintrin.h>): most of a small program's compile time is parsing the
// standard headers (1.2 s of 1.25 s for a conformance case; 0.35 s with the header, 0.2 s of it loading
// the header). Where the header cannot be built or GCC finds it unusable, the program compiles from the
// text as before; the library is the same either way.
Expected<CompiledLibrary> compileShared(const std::string& source, const CompileOptions& options = {});
// The directives (#include <...>, and #if/#ifdef/#ifndef/#elif/#else/#endif around them) that open
// `source`, comments and blank lines left out, up to the last point outside every #if; empty when they
// include nothing.
std::string leadingIncludeBlock(std::string_view source);
std::string defaultCacheDir();
// What names a program's cache entry (its folder is the FNV-1a 128 of this): the compiler and its version
// line, the CPU's model and feature flags when a flag builds for the native CPU (HostCpu), the flags and
// the source.
std::string buildCacheKey(const std::string& source, const CompileOptions& options = {});
// The first line of the compiler's `--version`, asked once per compiler and process (part of the cache key).
std::string compilerIdentity(const std::string& compiler);

} // namespace dcw::codegen
