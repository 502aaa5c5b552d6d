// LoadedProgram: a compiled program loaded into the process (dlopen) — call it with argument pointers
// and symbol values (see CppGenerator.h for the ABI).
#pragma once

#include "core/support/Expected.h"

#include <cstdint>
#include <memory>
#include <string>

namespace dcw::codegen {

class LoadedProgram {
public:
  static Expected<std::shared_ptr<LoadedProgram>> load(const std::string& libraryPath);
  ~LoadedProgram();
  Expected<void> run(void* const* args, const int64_t* symbols) const;
  void setThreads(int n) const;

private:
  LoadedProgram() = default;
  void* handle_ = nullptr;
  int (*entry_)(void* const*, const int64_t*, char*, size_t) = nullptr;
  void (*setThreads_)(int) = nullptr;
  std::string path_;
};

} // namespace dcw::codegen
