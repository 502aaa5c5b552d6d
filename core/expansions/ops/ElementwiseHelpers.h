// Private helpers of the elementwise, reduction, softmax and normalization expansions: typed
// tasklet literals, compute types (float16/bfloat16 compute in float32), broadcast maps over an
// output shape, and the index bookkeeping of reductions (which axes are reduced, keepdims layout).
// Not a public API: only core/expansions/ops/{Elementwise,Reductions,Softmax,Normalization}.cpp use it.
#pragma once

#include "core/expansions/SdfgBuilder.h"

#include <optional>
#include <string>
#include <vector>

namespace dcw::expansions::ew {

using ir::DType;

// ---- types and literals (tasklet language, see core/tasklet/TaskletCode.h) ----
std::string typeName(DType t);                        // "float32"
// The type a tasklet computes in for data of type t: float16/bfloat16 compute in float32.
DType computeType(DType t);
std::string castTo(DType t, const std::string& expr); // "float32(expr)"
// `expr` (of type `from`) as a value of type `to`: unchanged when equal, else a cast.
std::string convert(const std::string& expr, DType from, DType to);
// A number literal: "0.5", "1.0", "inf", "-inf", "nan" (always floating-point form).
std::string number(double v);
// A literal of type t: "float32(0.5)", "0.5" for float64, "int8(3)", "true".
std::string literal(double v, DType t);
// The lowest / highest value of t (-inf / inf for floating types), as a typed literal.
std::string lowest(DType t);
std::string highest(DType t);

// ---- shapes and axes ----
// Normalises a possibly negative axis; nullopt when out of [-rank, rank).
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);
// The subset of an input of shape `in` read at output index `prefix`k, aligned so that input dim k
// is output dim k + offset (numpy broadcasting: offset = outRank - inRank); size-1 dims read 0.
std::string alignedSubset(const std::vector<sym::Expr>& in, const std::vector<sym::Expr>& out, size_t offset,
                          const std::string& prefix = "i");
// For a reduction over `reduced` axes: the shape of the result and its subset at input index
// `prefix`k (keepdims: reduced dims have size 1 and index 0; otherwise they are dropped).
std::vector<sym::Expr> reducedShape(const std::vector<sym::Expr>& shape, const std::vector<bool>& reduced, bool keepdims);
std::string reducedSubset(const std::vector<bool>& reduced, bool keepdims, const std::string& prefix = "i");
// Product of the reduced dims (the element count of one reduction).
sym::Expr reducedCount(const std::vector<sym::Expr>& shape, const std::vector<bool>& reduced);

// ---- maps ----
struct Arg {
  std::string conn; // tasklet connector
  std::string data; // container of the nested SDFG
  std::optional<size_t> offset = std::nullopt; // broadcast alignment (default: trailing dims)
};
// A map over the shape of outs[0] with one tasklet; every input is broadcast to that shape, every
// output has that shape.
void broadcastMap(SdfgBuilder& b, const std::string& label, const std::vector<Arg>& ins, const std::string& code,
                  const std::vector<Arg>& outs);
// Writes `value` (tasklet expression) into every element of `data`.
void fill(SdfgBuilder& b, const std::string& label, const std::string& data, const std::string& value);

// Refuses (naming the connector) operands and outputs that are not tensors of known rank.
Expected<void> requireRanked(const ExpansionContext& ctx);

} // namespace dcw::expansions::ew
