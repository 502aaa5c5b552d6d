#include "core/onnx/OnnxTypes.h"

#include <cstring>
#include <limits>

namespace dcw::onnx {

using ir::DType;
using TP = ::onnx::TensorProto;

DType dtypeFromOnnx(int32_t e) {
  switch (e) {
  case TP::FLOAT: return DType::Float32;
  case TP::UINT8: return DType::UInt8;
  case TP::INT8: return DType::Int8;
  case TP::UINT16: return DType::UInt16;
  case TP::INT16: return DType::Int16;
  case TP::INT32: return DType::Int32;
  case TP::INT64: return DType::Int64;
  case TP::STRING: return DType::String;
  case TP::BOOL: return DType::Bool;
  case TP::FLOAT16: return DType::Float16;
  case TP::DOUBLE: return DType::Float64;
  case TP::UINT32: return DType::UInt32;
  case TP::UINT64: return DType::UInt64;
  case TP::COMPLEX64: return DType::Complex64;
  case TP::COMPLEX128: return DType::Complex128;
  case TP::BFLOAT16: return DType::BFloat16;
  default: return DType::Undefined;
  }
}

int32_t dtypeToOnnx(DType t) {
  switch (t) {
  case DType::Float32: return TP::FLOAT;
  case DType::UInt8: return TP::UINT8;
  case DType::Int8: return TP::INT8;
  case DType::UInt16: return TP::UINT16;
  case DType::Int16: return TP::INT16;
  case DType::Int32: return TP::INT32;
  case DType::Int64: return TP::INT64;
  case DType::String: return TP::STRING;
  case DType::Bool: return TP::BOOL;
  case DType::Float16: return TP::FLOAT16;
  case DType::Float64: return TP::DOUBLE;
  case DType::UInt32: return TP::UINT32;
  case DType::UInt64: return TP::UINT64;
  case DType::Complex64: return TP::COMPLEX64;
  case DType::Complex128: return TP::COMPLEX128;
  case DType::BFloat16: return TP::BFLOAT16;
  default: return TP::UNDEFINED;
  }
}

static std::string elemText(int32_t e) {
  static const char* names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  if (e >= 0 && e < int32_t(std::size(names))) return names[e];
  return "elem" + std::to_string(e);
}

std::string typeText(const ::onnx::TypeProto& t) {
  switch (t.value_case()) {
  case ::onnx::TypeProto::kTensorType: return "tensor(" + elemText(t.tensor_type().elem_type()) + ")";
  case ::onnx::TypeProto::kSequenceType: return "seq(" + typeText(t.sequence_type().elem_type()) + ")";
  case ::onnx::TypeProto::kOptionalType: return "optional(" + typeText(t.optional_type().elem_type()) + ")";
  case ::onnx::TypeProto::kMapType:
    return "map(" + elemText(t.map_type().key_type()) + "," + typeText(t.map_type().value_type()) + ")";
  case ::onnx::TypeProto::kSparseTensorType: return "sparse_tensor(" + elemText(t.sparse_tensor_type().elem_type()) + ")";
  default: return "unknown";
  }
}

::onnx::TensorProto tensorToOnnx(const ir::Tensor& tensor, const std::string& name) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(dtypeToOnnx(tensor.dtype));
  for (auto d : tensor.dims) t.add_dims(d);
  if (tensor.dtype == ir::DType::String) {
    if (tensor.strings)
      for (auto& s : *tensor.strings) t.add_string_data(s);
  } else if (tensor.bytes) {
    t.set_raw_data(*tensor.bytes);
  }
  return t;
}

std::optional<int64_t> checkedElementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

namespace {

template <class Src, class Dst>
std::string packAs(const google::protobuf::RepeatedField<Src>& f) {
  std::string out(f.size() * sizeof(Dst), '\0');
  for (int i = 0; i < f.size(); ++i) {
    Dst v = static_cast<Dst>(f.Get(i));
    std::memcpy(out.data() + i * sizeof(Dst), &v, sizeof(Dst));
  }
  return out;
}

// Typed storage: which repeated field holds which element type (see onnx.proto).
Expected<std::string> typedBytes(const TP& t, DType dt, int64_t count, const std::string& where) {
  std::string bytes;
  int64_t have = -1;
  switch (dt) {
  case DType::Float32: bytes = packAs<float, float>(t.float_data()); have = t.float_data_size(); break;
  case DType::Complex64: bytes = packAs<float, float>(t.float_data()); have = t.float_data_size() / 2; break;
  case DType::Float64: bytes = packAs<double, double>(t.double_data()); have = t.double_data_size(); break;
  case DType::Complex128: bytes = packAs<double, double>(t.double_data()); have = t.double_data_size() / 2; break;
  case DType::Int64: bytes = packAs<int64_t, int64_t>(t.int64_data()); have = t.int64_data_size(); break;
  case DType::UInt32: bytes = packAs<uint64_t, uint32_t>(t.uint64_data()); have = t.uint64_data_size(); break;
  case DType::UInt64: bytes = packAs<uint64_t, uint64_t>(t.uint64_data()); have = t.uint64_data_size(); break;
  case DType::Int32: bytes = packAs<int32_t, int32_t>(t.int32_data()); have = t.int32_data_size(); break;
  case DType::Int16: bytes = packAs<int32_t, int16_t>(t.int32_data()); have = t.int32_data_size(); break;
  case DType::Int8: bytes = packAs<int32_t, int8_t>(t.int32_data()); have = t.int32_data_size(); break;
  case DType::UInt16: case DType::Float16: case DType::BFloat16:
    bytes = packAs<int32_t, uint16_t>(t.int32_data()); have = t.int32_data_size(); break;
  case DType::UInt8: case DType::Bool: bytes = packAs<int32_t, uint8_t>(t.int32_data()); have = t.int32_data_size(); break;
  default:
    return fail(where, "tensor element type " + std::to_string(t.data_type()) + " is not supported",
                "use one of ONNX's standard tensor types");
  }
  if (have != count)
    return fail(where, "tensor holds " + std::to_string(have) + " values but its dims say " + std::to_string(count),
                "the model is corrupted; re-export it");
  return bytes;
}

} // namespace

Expected<ir::Tensor> tensorFromOnnx(TP& t, const std::string& where, bool steal) {
  ir::Tensor out;
  out.dtype = dtypeFromOnnx(t.data_type());
  if (out.dtype == DType::Undefined)
    return fail(where, "tensor has unknown element type " + std::to_string(t.data_type()), "use a standard ONNX tensor type");
  out.dims.assign(t.dims().begin(), t.dims().end());
  auto count = checkedElementCount(out.dims);
  if (!count) return fail(where, "tensor dims are negative or their product overflows 64 bits", "fix the tensor's dims");
  if (t.data_location() == TP::EXTERNAL)
    return fail(where, "tensor data is stored externally but was not loaded", "keep the data file next to the model");
  if (out.dtype == DType::String) {
    if (t.string_data_size() != *count)
      return fail(where, "string tensor holds " + std::to_string(t.string_data_size()) + " values but its dims say " +
                             std::to_string(*count));
    out.strings = std::make_shared<std::vector<std::string>>(t.string_data().begin(), t.string_data().end());
    return out;
  }
  const size_t esize = ir::dtypeSize(out.dtype);
  if (t.has_raw_data()) {
    if (static_cast<uint64_t>(*count) > t.raw_data().size() / esize || t.raw_data().size() != size_t(*count) * esize)
      return fail(where, "tensor has " + std::to_string(t.raw_data().size()) + " bytes of data but its dims and type need " +
                             std::to_string(static_cast<uint64_t>(*count) * esize),
                  "the model is truncated or corrupted; re-export it");
    if (steal) out.bytes = std::make_shared<const std::string>(std::move(*t.mutable_raw_data()));
    else out.bytes = std::make_shared<const std::string>(t.raw_data());
    return out;
  }
  DCW_TRY(auto bytes, typedBytes(t, out.dtype, *count, where));
  out.bytes = std::make_shared<const std::string>(std::move(bytes));
  return out;
}

Expected<ir::Tensor> tensorFromOnnx(const ::onnx::SparseTensorProto& s, const std::string& where) {
  TP values = s.values();
  auto v = tensorFromOnnx(values, where + " (values)", false);
  if (!v) return v;
  TP indicesProto = s.indices();
  auto idx = tensorFromOnnx(indicesProto, where + " (indices)", false);
  if (!idx) return idx;
  ir::Tensor dense;
  dense.dtype = v->dtype;
  dense.dims.assign(s.dims().begin(), s.dims().end());
  auto count = checkedElementCount(dense.dims);
  if (!count) return fail(where, "sparse tensor dims are negative or overflow");
  if (dense.dtype == DType::String) return fail(where, "sparse string tensors are not supported", "store the tensor densely");
  if (idx->dtype != DType::Int64) return fail(where, "sparse tensor indices must be int64");
  const size_t es = ir::dtypeSize(dense.dtype);
  const int64_t nnz = v->elementCount();
  const auto* ix = reinterpret_cast<const int64_t*>(idx->bytes->data());
  const size_t rank = dense.dims.size();
  const bool linear = idx->dims.size() == 1;
  if ((linear && idx->elementCount() != nnz) || (!linear && idx->elementCount() != nnz * int64_t(rank)))
    return fail(where, "sparse tensor has " + std::to_string(nnz) + " values but a mismatching number of indices");
  if (*count > (int64_t(1) << 31)) return fail(where, "sparse tensor is too large to densify");
  std::string bytes(size_t(*count) * es, '\0');
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t lin = 0;
    if (linear) lin = ix[k];
    else
      for (size_t d = 0; d < rank; ++d) {
        int64_t i = ix[k * rank + d];
        if (i < 0 || i >= dense.dims[d]) return fail(where, "sparse tensor index out of range");
        lin = lin * dense.dims[d] + i;
      }
    if (lin < 0 || lin >= *count) return fail(where, "sparse tensor index out of range");
    std::memcpy(bytes.data() + lin * es, v->bytes->data() + k * es, es);
  }
  dense.bytes = std::make_shared<const std::string>(std::move(bytes));
  return dense;
}

} // namespace dcw::onnx
