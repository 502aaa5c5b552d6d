// What the GPU library implementations (cublas, cudnn) ask of an operand before they take a node:
// float32, row-major, every dim known and within int range (the libraries' sizes are C ints, constants
// of the call). A refusal names the library, the op and the operand, and points to `pure`.
#pragma once

#include "core/expansions/Expansion.h"

#include <string>
#include <vector>

namespace dcw::expansions::cuda {

std::string pureHint(const ExpansionContext& ctx);

// The operand's dims, or the refusal ("cublas MatMul needs known dims; A has dim N").
Expected<std::vector<int64_t>> knownDims(const ExpansionContext& ctx, const std::string& library, const std::string& op,
                                         const std::string& name, const ir::DataDescriptor& d);

// "2x3x4" ("scalar" for none).
std::string dimsText(const std::vector<int64_t>& d);

} // namespace dcw::expansions::cuda
