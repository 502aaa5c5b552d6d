// DataDescriptor: a named data container of an SDFG — its element type, symbolic shape and strides,
// where it lives (storage) and for how long (lifetime), and whether it is transient (internal to the
// SDFG) or an argument. Constant arrays (ONNX initializers) carry their value.
// Sequence/Optional wrappers describe ONNX's non-tensor types (a sequence of tensors, an optional
// tensor) so that every ONNX model can be represented; the wrapped element is described by the rest.
#pragma once

#include "core/ir/DType.h"
#include "core/ir/Element.h"
#include "core/ir/Tensor.h"
#include "core/symbolic/Expr.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dcw::ir {

enum class DataKind { Scalar, Array, View, Stream };
enum class Wrapper { Sequence, Optional };

enum class StorageType {
  Default,
  CpuHeap,
  CpuStack,
  Register,
  GpuGlobal,
  GpuShared,
  FpgaGlobal,
  FpgaLocal,
};

enum class Lifetime {
  Scope,      // allocated around the innermost scope that uses it
  State,      // alive during one state
  Sdfg,       // alive during one SDFG invocation
  Persistent, // alive across invocations
  External,   // allocated by the caller
};

enum class PartitionKind { None, Cyclic, Block, Complete };
std::string_view partitionName(PartitionKind k); // none, cyclic, block, complete
std::optional<PartitionKind> partitionFromName(std::string_view s);

std::string_view dataKindName(DataKind k);
std::optional<DataKind> dataKindFromName(std::string_view s);
std::string_view wrapperName(Wrapper w);
std::optional<Wrapper> wrapperFromName(std::string_view s);
std::string_view storageName(StorageType s);
std::optional<StorageType> storageFromName(std::string_view s);
std::string_view lifetimeName(Lifetime l);
std::optional<Lifetime> lifetimeFromName(std::string_view s);

class DataDescriptor : public Element {
public:
  explicit DataDescriptor(std::string name) : Element(ElementKind::Data, std::move(name)) {}
  const std::string& name() const { return label(); }

  DataKind dataKind = DataKind::Array;
  DType dtype = DType::Float32;
  std::vector<sym::Expr> shape;   // empty for Scalar
  std::vector<sym::Expr> strides; // in elements; same rank as shape
  sym::Expr offset = sym::Expr(0);
  // Channels in blocks (oneDNN's nCw8c/nChw16c/nCdhw16c, see transforms/catalogue/BlockedLayout): 0 for
  // none; else b (8 or 16) and element [n, c, ..] lives at sum_{k != 1} i_k strides[k] + (c / b)
  // strides[1] + c % b, so strides[1] is the step between blocks of b channels and the other strides
  // count in blocks of b elements. Channels a multiple of b (no padding); float32 arrays of rank 3 to 5.
  int channelBlock = 0;
  bool rankKnown = true;          // false: an ONNX value whose rank shape inference could not tell
  std::vector<Wrapper> wrappers;  // outermost first; empty for a plain tensor
  StorageType storage = StorageType::Default;
  int memoryBank = -1;            // FPGA global memory: the board's bank it lives in (an index into its
                                  // banks, e.g. DDR[2] of an Alveo U250); -1: the first
  // FPGA on-chip memory split into banks (Vitis HLS ARRAY_PARTITION of the array's storage), so an
  // unrolled loop reads or writes several elements a cycle: element k in bank k mod factor (cyclic) or
  // k / (size / factor) (block), or every element a register (complete); none: one memory, two ports.
  PartitionKind partition = PartitionKind::None;
  int partitionFactor = 0;        // banks, for cyclic and block
  Lifetime lifetime = Lifetime::Scope;
  bool transient = false;
  std::shared_ptr<const Tensor> constant; // set for constant arrays (initializers)
  std::string sourceName;         // the name in the source model when it differs (e.g. ONNX value name)

  // An exact copy (same id, name and fields; a constant's payload is shared). Adding it to an SDFG
  // gives it a fresh id; rename it first with setLabel where the name is taken. In Clone.cpp.
  std::unique_ptr<DataDescriptor> clone() const;

  // Row-major strides for the current shape (what import and most lowering use).
  static std::vector<sym::Expr> contiguousStrides(const std::vector<sym::Expr>& shape);
  // The same for a constant shape (strided views place their elements in such numbers).
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape);
  // The strides elements are addressed by: the stored ones, or row-major ones when none are stored.
  std::vector<sym::Expr> elementStrides() const;
  sym::Expr totalSize() const;    // product of shape (1 for Scalar)
  std::set<std::string> freeSymbols() const;
  std::string typeString() const; // "float32[N, 3, 224, 224]", "seq(float32[?])", "float32[1, 8, 4, 4] channels-last", ...
  // Strides that put dim 1 (channels) innermost and the others row-major (NHWC for a 4-D array), as
  // transforms/catalogue/ChannelsLast stores activations between oneDNN nodes.
  bool isChannelsLast() const;
  // Those strides for `shape` (rank 3 or more; row-major below that).
  static std::vector<sym::Expr> channelsLastStrides(const std::vector<sym::Expr>& shape);
  // The strides of channels in blocks of `block` (channelBlock) for `shape` of rank 3 or more: the
  // blocks, then the spatial dims, then the b channels of a block innermost (N, C/b, H, W, b).
  static std::vector<sym::Expr> blockedStrides(const std::vector<sym::Expr>& shape, int block);
  // oneDNN's name of the layout: "nChw16c", "nCw8c", "nCdhw16c"; empty without channelBlock.
  std::string blockedLayoutName() const;
};

} // namespace dcw::ir
