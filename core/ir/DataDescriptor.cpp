#include "core/ir/DataDescriptor.h"

#include <array>

namespace dcw::ir {

namespace {
template <class E, size_t N>
std::string_view nameOf(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
  for (auto& [k, n] : table)
    if (k == v) return n;
  return "?";
}
template <class E, size_t N>
std::optional<E> fromName(const std::array<std::pair<E, std::string_view>, N>& table, std::string_view s) {
  for (auto& [k, n] : table)
    if (n == s) return k;
  return std::nullopt;
}
constexpr std::array<std::pair<DataKind, std::string_view>, 4> kKinds{
    {{DataKind::Scalar, "scalar"}, {DataKind::Array, "array"}, {DataKind::View, "view"}, {DataKind::Stream, "stream"}}};
constexpr std::array<std::pair<Wrapper, std::string_view>, 2> kWrappers{
    {{Wrapper::Sequence, "sequence"}, {Wrapper::Optional, "optional"}}};
constexpr std::array<std::pair<StorageType, std::string_view>, 8> kStorage{{
    {StorageType::Default, "default"}, {StorageType::CpuHeap, "cpu_heap"}, {StorageType::CpuStack, "cpu_stack"},
    {StorageType::Register, "register"}, {StorageType::GpuGlobal, "gpu_global"}, {StorageType::GpuShared, "gpu_shared"},
    {StorageType::FpgaGlobal, "fpga_global"}, {StorageType::FpgaLocal, "fpga_local"}}};
constexpr std::array<std::pair<Lifetime, std::string_view>, 5> kLifetimes{{
    {Lifetime::Scope, "scope"}, {Lifetime::State, "state"}, {Lifetime::Sdfg, "sdfg"},
    {Lifetime::Persistent, "persistent"}, {Lifetime::External, "external"}}};
constexpr std::array<std::pair<PartitionKind, std::string_view>, 4> kPartitions{{
    {PartitionKind::None, "none"}, {PartitionKind::Cyclic, "cyclic"}, {PartitionKind::Block, "block"}, {PartitionKind::Complete, "complete"}}};
} // namespace

std::string_view partitionName(PartitionKind k) { return nameOf(kPartitions, k); }
std::optional<PartitionKind> partitionFromName(std::string_view s) { return fromName(kPartitions, s); }

std::string_view dataKindName(DataKind k) { return nameOf(kKinds, k); }
std::optional<DataKind> dataKindFromName(std::string_view s) { return fromName(kKinds, s); }
std::string_view wrapperName(Wrapper w) { return nameOf(kWrappers, w); }
std::optional<Wrapper> wrapperFromName(std::string_view s) { return fromName(kWrappers, s); }
std::string_view storageName(StorageType s) { return nameOf(kStorage, s); }
std::optional<StorageType> storageFromName(std::string_view s) { return fromName(kStorage, s); }
std::string_view lifetimeName(Lifetime l) { return nameOf(kLifetimes, l); }
std::optional<Lifetime> lifetimeFromName(std::string_view s) { return fromName(kLifetimes, s); }

std::vector<sym::Expr> DataDescriptor::contiguousStrides(const std::vector<sym::Expr>& shape) {
  std::vector<sym::Expr> strides(shape.size(), sym::Expr(1));
  sym::Expr acc(1);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc = acc * shape[i];
  }
  return strides;
}

std::vector<int64_t> DataDescriptor::contiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::vector<sym::Expr> DataDescriptor::elementStrides() const {
  return strides.size() == shape.size() ? strides : contiguousStrides(shape);
}

sym::Expr DataDescriptor::totalSize() const {
  sym::Expr n(1);
  for (const auto& d : shape) n = n * d;
  return n;
}

std::set<std::string> DataDescriptor::freeSymbols() const {
  std::set<std::string> out;
  for (const auto* v : {&shape, &strides})
    for (const auto& e : *v)
      for (auto& s : e.freeSymbols()) out.insert(s);
  for (auto& s : offset.freeSymbols()) out.insert(s);
  return out;
}

std::string DataDescriptor::typeString() const {
  std::string s(dtypeName(dtype));
  if (!rankKnown) s += "[?]";
  else if (dataKind != DataKind::Scalar) {
    s += "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].str();
    s += "]";
  }
  if (isChannelsLast()) s += " channels-last";
  if (channelBlock > 0) s += " " + blockedLayoutName();
  if (dataKind == DataKind::View && !isChannelsLast() && channelBlock == 0 && !strides.empty() && strides != contiguousStrides(shape))
    s += " strided"; // StridedView's: a transposed or strided part of its array
  if (dataKind == DataKind::View) s += " view";
  for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it)
    s = (*it == Wrapper::Sequence ? "seq(" : "optional(") + s + ")";
  return s;
}

std::vector<sym::Expr> DataDescriptor::channelsLastStrides(const std::vector<sym::Expr>& shape) {
  if (shape.size() < 3) return contiguousStrides(shape);
  // N, C, S1..Sk with C innermost: C 1, Sk C, S(k-1) C*Sk, ..., N C*S1*...*Sk.
  std::vector<sym::Expr> s(shape.size(), sym::Expr(1));
  sym::Expr step = shape[1];
  for (size_t k = shape.size(); k-- > 2;) {
    s[k] = step;
    step = step * shape[k];
  }
  s[0] = step;
  return s;
}

std::vector<sym::Expr> DataDescriptor::blockedStrides(const std::vector<sym::Expr>& shape, int block) {
  if (shape.size() < 3 || block <= 0) return contiguousStrides(shape);
  // N, C/b, S1..Sk, b: Sk b, S(k-1) b Sk, ..., the blocks b S1..Sk, N C S1..Sk.
  std::vector<sym::Expr> s(shape.size(), sym::Expr(1));
  sym::Expr step(block);
  for (size_t k = shape.size(); k-- > 2;) {
    s[k] = step;
    step = step * shape[k];
  }
  s[1] = step;
  s[0] = step * sym::floorDiv(shape[1], sym::Expr(block));
  return s;
}

std::string DataDescriptor::blockedLayoutName() const {
  if (channelBlock <= 0) return {};
  static const char* spatial[] = {"w", "hw", "dhw"};
  const size_t k = shape.size() >= 3 && shape.size() <= 5 ? shape.size() - 3 : 1;
  return std::string("nC") + spatial[k] + std::to_string(channelBlock) + "c";
}

bool DataDescriptor::isChannelsLast() const {
  if (dataKind != DataKind::Array || shape.size() < 3 || strides.size() != shape.size() || channelBlock > 0) return false;
  return strides == channelsLastStrides(shape) && strides != contiguousStrides(shape);
}

} // namespace dcw::ir
