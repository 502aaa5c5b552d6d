// libFuzzer target for the ONNX importer: any byte string must either import (and then validate
// without crashing) or be refused with a diagnostic — never crash, hang or read outside the folder.
#include "core/ir/Validate.h"
#include "core/onnx/OnnxImporter.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  // No base folder: all external data is refused, so fuzzing never reads files.
  auto r = dcw::onnx::importOnnxBytes(bytes, "fuzz.onnx", "");
  if (r) {
    auto diags = dcw::ir::validate(*r->sdfg);
    (void)diags;
  } else if (r.error().message.empty()) {
    __builtin_trap(); // a refusal must say why
  }
  return 0;
}
