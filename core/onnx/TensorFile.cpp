#include "core/onnx/TensorFile.h"

#include "core/onnx/OnnxTypes.h"

#include <filesystem>
#include <fstream>

namespace dcw::onnx {

Expected<NamedTensor> readTensorFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(path, "cannot open the tensor file", "check the path");
  ::onnx::TensorProto t;
  if (!t.ParseFromIstream(&in))
    return fail(path, "not a serialized ONNX TensorProto", "tensor files are written by onnx.numpy_helper.from_array(...).SerializeToString()");
  if (t.data_location() == ::onnx::TensorProto::EXTERNAL)
    return fail(path, "tensor files with external data are not supported", "store the tensor inline");
  DCW_TRY(auto tensor, tensorFromOnnx(t, path, /*steal=*/true));
  return NamedTensor{t.name(), std::move(tensor)};
}

Expected<void> writeTensorFile(const std::string& path, const ir::Tensor& tensor, const std::string& name) {
  ::onnx::TensorProto t = tensorToOnnx(tensor, name);
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !t.SerializeToOstream(&out)) return fail(path, "cannot write the tensor file", "check that the folder exists and is writable");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return fail(path, "cannot write the tensor file: " + ec.message());
  return {};
}

} // namespace dcw::onnx
