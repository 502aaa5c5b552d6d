// FuzzCheck: what every libFuzzer target here asserts about a refusal and a broken property. A
// refusal must say why (a non-empty message); a property that fails (a printed form that does not
// read back, say) prints what differed and traps, so libFuzzer saves the input as a crash.
#pragma once

#include "core/support/Expected.h"

#include <cstdio>
#include <string>

namespace dcw::fuzz {

[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz property broken: %s\n", what.c_str());
  __builtin_trap();
}

// A refusal without a message is a bug: the user would be told nothing.
inline void checkRefusal(const Diagnostic& d) {
  if (d.message.empty()) broken("a refusal without a message (location '" + d.location + "')");
}

} // namespace dcw::fuzz
