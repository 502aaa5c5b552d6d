// MemoryBudget: refuses, before anything is allocated, tensors that need more memory than the machine
// has — an input made at random, the outputs and the intermediates of a run — with the number, instead
// of dying of std::bad_alloc or being killed by the kernel halfway. Sizes are computed with overflow
// checks (a hostile shape such as 2^40 × 2^40 does not wrap around to a small number).
#pragma once

#include "core/ir/DType.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dcw::codegen {

// The machine's physical memory in bytes (0 when unknown).
int64_t physicalMemoryBytes();
// "1.5 GiB", "40.0 GB (37.3 GiB)"-style text for messages: binary units.
std::string formatBytes(double bytes);
// "[100000, 100000]"
std::string shapeText(const std::vector<int64_t>& dims);
// dims × element size, or -1 when it overflows 2^62 (or a dim is negative).
int64_t tensorBytes(const std::vector<int64_t>& dims, ir::DType dtype);
// Fails, located at `where`, when `bytes` (or -1: too large to count) exceeds the physical memory.
Expected<void> checkFitsInMemory(const std::string& where, const std::string& what, int64_t bytes);

} // namespace dcw::codegen
