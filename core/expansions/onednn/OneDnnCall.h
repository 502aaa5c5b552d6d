// What every `onednn` implementation shares: the declaration (cpu, environment `onednn`, not
// differentiable), the checks that refuse what oneDNN cannot take (naming the node and pointing to
// `pure`), and the C++ text of one oneDNN tasklet — a `Call` (OneDnnRuntime.cpp) made on the first run
// by the statements of `make`, then run on the tasklet's buffers.
#pragma once

#include "core/expansions/Expansion.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dcw::expansions::onednn {

ImplementationDecl decl();

// "choose the `pure` implementation for this node (set PATH implementation=pure)".
std::string pureHint(const ExpansionContext& ctx);

// The dims of a float32 row-major operand, known and positive; otherwise a refusal naming the operand.
Expected<std::vector<int64_t>> floatDims(const ExpansionContext& ctx, const std::string& op, const std::string& name,
                                         const ir::DataDescriptor& d);

// The dims of a float32 operand as floatDims gives them, for the operands of an implementation that
// takes any constant strides (the channels-last arrays ChannelsLast makes): `strides` in elements and
// `desc`, the C++ text of its oneDNN memory descriptor ("plain(dims{..})" for a row-major array,
// "blocked(dims{..}, tag::nChw16c)" for channels in blocks, "strided(dims{..}, dims{..})" otherwise).
// floatDims itself refuses an array that is not row-major.
struct Described {
  std::vector<int64_t> dims, strides;
  int block = 0;        // channels in blocks of `block` (DataDescriptor::channelBlock): strides are not
                        // enough to address it, rowMajor and dense are false
  std::string desc;
  bool rowMajor = true; // row-major up to the strides of dims of extent 1
  bool dense = true;    // its elements fill product(dims) consecutive slots (row-major or permuted)
};
Expected<Described> describedOperand(const ExpansionContext& ctx, const std::string& op, const std::string& name,
                                     const ir::DataDescriptor& d);

// "dims{1, 64, 56, 56}" and "1x64x56x56".
std::string dimsText(const std::vector<int64_t>& d);
std::string shapeText(const std::vector<int64_t>& d);
// A float literal for generated C++ ("0.01f", "1.0f", "-3.40282347e+38f").
std::string floatLiteral(double v);
int64_t product(const std::vector<int64_t>& d, size_t from = 0, size_t to = SIZE_MAX);
// "true"/"false" for the `constant` argument of Call::add: whether the input is a model constant.
std::string constantFlag(const ExpansionContext& ctx, const std::string& connector);

// The tasklet body: `comment` (one line), the Call made by `make` (statements using `dcw_k`, the
// Call, with dcw_env_onednn's names in scope, and `dcw_variant`, 0 to variants - 1: with more than
// one, the first run keeps the fastest), run on `buffers` (connector names, in the order the operands
// were added).
std::string callCode(const std::string& comment, const std::string& make, const std::vector<std::string>& buffers, int variants = 1);

} // namespace dcw::expansions::onednn
