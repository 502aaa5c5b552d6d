// Compiler: builds generated C++ into a shared library with the system compiler (g++ -O3 -fopenmp
// -shared -fPIC), cached by a hash of the source and flags under the cache folder
// ($DCW_CACHE_DIR, else $XDG_CACHE_HOME/dcw, else ~/.cache/dcw). A cache hit costs no compilation.
// Compiler errors come back as a Diagnostic with the compiler's first error line.
// A sanitizer build of DCW (CMake option DCW_SANITIZE) builds the generated programs with the same
// sanitizers by default, so that the programs it runs are checked too.
#pragma once

#include "core/support/Expected.h"

#include <string>
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

Expected<CompiledLibrary> compileShared(const std::string& source, const CompileOptions& options = {});
std::string defaultCacheDir();

} // namespace dcw::codegen
