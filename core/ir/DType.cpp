#include "core/ir/DType.h"

#include <array>
#include <utility>

namespace dcw::ir {

namespace {
struct Info {
  DType type;
  std::string_view name;
  size_t size;
};
constexpr std::array<Info, 17> kInfo{{
    {DType::Undefined, "undefined", 0}, {DType::Bool, "bool", 1},
    {DType::Int8, "int8", 1},           {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 4},         {DType::Int64, "int64", 8},
    {DType::UInt8, "uint8", 1},         {DType::UInt16, "uint16", 2},
    {DType::UInt32, "uint32", 4},       {DType::UInt64, "uint64", 8},
    {DType::Float16, "float16", 2},     {DType::BFloat16, "bfloat16", 2},
    {DType::Float32, "float32", 4},     {DType::Float64, "float64", 8},
    {DType::Complex64, "complex64", 8}, {DType::Complex128, "complex128", 16},
    {DType::String, "string", 0},
}};
} // namespace

std::string_view dtypeName(DType t) {
  for (const auto& i : kInfo)
    if (i.type == t) return i.name;
  return "undefined";
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.type;
  return std::nullopt;
}

size_t dtypeSize(DType t) {
  for (const auto& i : kInfo)
    if (i.type == t) return i.size;
  return 0;
}

bool isFloating(DType t) {
  return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}

bool isInteger(DType t) {
  switch (t) {
  case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
  case DType::UInt8: case DType::UInt16: case DType::UInt32: case DType::UInt64:
    return true;
  default:
    return false;
  }
}

} // namespace dcw::ir
