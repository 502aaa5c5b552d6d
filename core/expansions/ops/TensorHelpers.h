// Private helpers shared by the Linalg, Convolution, Pooling and TensorOps expansion families:
// axis normalisation, index text for subsets and tasklet code, literals and identities per dtype,
// windowed-op geometry (strides, dilations, pads, auto_pad) and the checks every expansion starts with.
#pragma once

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/symbolic/Expr.h"

#include <optional>
#include <string>
#include <vector>

namespace dcw::expansions::th {

using Shape = std::vector<sym::Expr>;

// A negative axis counts from the back; returns nullopt when out of [-rank, rank).
std::optional<int64_t> normAxis(int64_t axis, int64_t rank);

// Text of an expression for subsets and tasklet code, parenthesised unless atomic.
std::string par(const sym::Expr& e);
// An integer expression of dims and map parameters (every symbol >= 0) as tasklet code, parenthesized:
// floor division and modulo become C++'s / and % where the dividend is provably >= 0 and the divisor a
// positive number (then they agree), comparisons become select(c, 1, 0). Otherwise par(e): tasklet code
// floors `//` as sym does, but a `%` there is sym's floor modulo, which tasklet code's truncating `%` is
// not for a negative dividend (callers check with taskletSafe-like tests).
std::string taskletDim(const sym::Expr& e);
std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ");
std::string num(int64_t v);

// Row-major linear index of `idx` (texts) in a container of `shape` — for array connectors.
std::string linearIndex(const std::vector<std::string>& idx, const Shape& shape);
// The subset text that unflattens the row-major linear index `lin` into `shape` (floor-div/mod per dim).
std::vector<std::string> unflatten(const std::string& lin, const Shape& shape);
sym::Expr product(const Shape& s, size_t from = 0, size_t to = SIZE_MAX);

// Literals in tasklet code: a value of `t` ("1.5", "3", "true", "-inf"); the identity of max/min.
std::string literal(double v, ir::DType t);
std::string lowestLiteral(ir::DType t);  // -inf for floats, the smallest integer otherwise
std::string highestLiteral(ir::DType t);
std::string castTo(ir::DType t, const std::string& code); // "float32(code)"

// The data of a connector, checked to have a known rank (an error names the connector otherwise).
// MatMul's operands as matrices (numpy semantics): a 1-D A is [1, K], a 1-D B is [K, 1], batch dims
// padded with 1s to one rank; y is the broadcast result (batch dims, M, N) and batch the product of
// its batch dims. Fails naming the shapes when inner dims differ, batch dims do not broadcast or the
// output `ys` does not hold the product. Shared by the library implementations (onednn, cublas).
struct MatMulOperands {
  std::vector<int64_t> a, b, y;
  size_t rank = 0;
  int64_t M = 0, K = 0, N = 0, batch = 1;
};
Expected<MatMulOperands> matmulOperands(const ExpansionContext& ctx, const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                                        const std::vector<int64_t>& ys);

Expected<const ir::DataDescriptor*> needIn(const ExpansionContext& ctx, const std::string& conn);
Expected<const ir::DataDescriptor*> needOut(const ExpansionContext& ctx, const std::string& conn);

// Geometry of a windowed op (Conv, ConvTranspose, pooling) over the spatial dims (2..rank).
struct Window {
  size_t nd = 0;                  // number of spatial dims
  std::vector<int64_t> kernel;    // kernel extents (from kernel_shape or W's dims)
  std::vector<int64_t> strides, dilations;
  std::vector<sym::Expr> padBegin, padEnd;
};
// Reads strides/dilations/pads/auto_pad; `in`/`out` are the spatial extents of input and output.
// SAME_* pads are derived from the output extents as ONNX does: total = (out-1)*s + (k-1)*d + 1 - in.
Expected<Window> window(const ExpansionContext& ctx, const std::vector<int64_t>& kernel, const Shape& in, const Shape& out);

// Integer values of a constant input or, failing that, the hint-bearing error.
Expected<std::vector<int64_t>> constInts(const ExpansionContext& ctx, const std::string& conn, const std::string& what);

// Tables an expansion computes from attributes (n-gram pools, tree nodes, coefficients), as constant
// arrays of its nested SDFG: the tensors, and the transient holding one (its unique name).
ir::Tensor int64Tensor(std::vector<int64_t> dims, const std::vector<int64_t>& values);
ir::Tensor float32Tensor(std::vector<int64_t> dims, const std::vector<float>& values);
std::string constantArray(SdfgBuilder& b, const std::string& base, ir::Tensor t);

} // namespace dcw::expansions::th
