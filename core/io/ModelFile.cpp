#include "core/io/ModelFile.h"

#include "core/ir/Specialize.h"
#include "core/ir/Validate.h"
#include "core/ir/ValueSymbol.h"
#include "core/onnx/OnnxImporter.h"
#include "core/onnx/ShapeArithmetic.h"
#include "core/serialize/JsonFormat.h"

#include <filesystem>
#include <fstream>

namespace dcw::io {

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Sniffs the first non-blank byte: '{' means JSON.
bool looksLikeJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char c;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  return false;
}

} // namespace

ModelFormat detectFormat(const std::string& path) {
  bool json = endsWith(path, ".dcw.json") || endsWith(path, ".json") || (!endsWith(path, ".onnx") && looksLikeJson(path));
  return json ? ModelFormat::DcwJson : ModelFormat::Onnx;
}

void specializeModel(ir::Sdfg& sdfg, const std::map<std::string, int64_t>& fixedDims,
                     const std::map<std::string, ir::Tensor>& fixedValues) {
  if (fixedDims.empty() && fixedValues.empty()) return;
  // The model's dim names are the symbols' (or, where import renamed one, metadata "symbol:S"); a
  // fixed input's elements are the symbols that stand for them ("value-symbol:S" = input, element).
  std::map<std::string, int64_t> bySymbol;
  for (auto& [symbol, type] : sdfg.symbols()) {
    auto m = sdfg.metadata.find("symbol:" + symbol);
    auto v = fixedDims.find(m == sdfg.metadata.end() ? symbol : m->second);
    if (v != fixedDims.end()) bySymbol[symbol] = v->second;
  }
  for (const ir::ValueSymbol& vs : ir::valueSymbols(sdfg))
    if (auto f = fixedValues.find(vs.input); f != fixedValues.end())
      if (auto ints = onnx::intValues(f->second); ints && vs.element >= 0 && size_t(vs.element) < ints->size())
        bySymbol[vs.symbol] = (*ints)[size_t(vs.element)];
  ir::specializeSymbols(sdfg, bySymbol);
}

Expected<LoadedModel> loadModel(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail(path, "no such file", "check the path");
  LoadedModel out;
  out.path = path;
  bool json = detectFormat(path) == ModelFormat::DcwJson;
  if (json) {
    out.format = ModelFormat::DcwJson;
    DCW_TRY(auto s, serialize::loadFile(path));
    out.sdfg = std::move(s);
    specializeModel(*out.sdfg, options.fixedDims, options.fixedValues);
  } else {
    out.format = ModelFormat::Onnx;
    onnx::ImportOptions io;
    io.fixedDims = options.fixedDims;
    io.interface = options.interface;
    io.fixedValues = options.fixedValues;
    DCW_TRY(auto r, onnx::importOnnxFile(path, io));
    out.sdfg = std::move(r.sdfg);
    out.warnings = std::move(r.warnings);
  }
  out.validation = ir::validate(*out.sdfg);
  if (const Diagnostic* e = out.validation.firstError()) {
    Diagnostic d = *e;
    d.location = path + ": " + d.location;
    d.message = "the model does not validate: " + d.message;
    return fail(d);
  }
  return out;
}

} // namespace dcw::io
