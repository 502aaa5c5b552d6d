// TorchExport: see the header. The Python side is one short script given to `python3 -c`: it loads the
// TorchScript module, makes the example inputs and calls torch.onnx.export; a failure prints one line
// `dcw-torch-error: MESSAGE` that becomes the diagnostic.
#include "core/io/TorchExport.h"

#include "core/support/RunProcess.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

namespace dcw::io {

namespace {

constexpr const char* kScript = R"PY(
import sys, json
try:
    import torch
except Exception as e:
    print("dcw-torch-error: no torch in this Python (" + str(e) + "); install python3-torch")
    sys.exit(3)
spec = json.loads(sys.argv[1])
types = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}
if spec["class"]:
    import importlib.util, os
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(spec["model"])))
        source = importlib.util.spec_from_file_location("dcw_user_model", spec["model"])
        module = importlib.util.module_from_spec(source)
        source.loader.exec_module(module)
    except Exception as e:
        print("dcw-torch-error: the Python file does not run: " + type(e).__name__ + ": " + str(e).strip().splitlines()[0])
        sys.exit(4)
    # NAME or NAME(literal arguments): Net, Net(3, hidden=64, act="relu"); only literals are evaluated.
    import ast
    try:
        call = ast.parse(spec["class"].strip(), mode="eval").body
        if isinstance(call, ast.Name):
            name, args, kwargs = call.id, [], {}
        elif isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and all(k.arg for k in call.keywords):
            name = call.func.id
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        else:
            raise ValueError("not a class name or a call of one")
    except (SyntaxError, ValueError) as e:
        print("dcw-torch-error: '" + spec["class"] + "' is not NAME or NAME(arguments) with literal arguments (" + str(e).strip().splitlines()[0] + ")")
        sys.exit(4)
    if not hasattr(module, name):
        print("dcw-torch-error: the file defines no '" + name + "'")
        sys.exit(4)
    try:
        model = getattr(module, name)(*args, **kwargs).eval()
    except Exception as e:
        print("dcw-torch-error: " + spec["class"] + (" fails: " if args or kwargs else "() fails (give its arguments: --class 'Net(3, hidden=64)'): ") +
              type(e).__name__ + ": " + str(e).strip().splitlines()[0])
        sys.exit(4)
else:
    try:
        model = torch.jit.load(spec["model"], map_location="cpu").eval()
    except Exception as e:
        print("dcw-torch-error: not a TorchScript file torch can load: " + str(e).strip().splitlines()[0])
        sys.exit(4)
examples, names, axes = [], [], {}
for k, i in enumerate(spec["inputs"]):
    t = types[i["dtype"]]
    shape = i["shape"]
    examples.append(torch.randn(shape).to(t) if t.is_floating_point else torch.zeros(shape, dtype=t))
    name = "input%d" % k
    names.append(name)
    dyn = {d: n for d, n in enumerate(i["dims"]) if n}
    if dyn:
        axes[name] = dyn
try:
    with torch.no_grad():
        torch.onnx.export(model, tuple(examples), spec["out"], opset_version=spec["opset"], input_names=names,
                          dynamic_axes=axes or None)
except Exception as e:
    lines = [l for l in str(e).strip().splitlines() if l.strip()]
    print("dcw-torch-error: torch.onnx.export failed: " + (lines[-1] if lines else type(e).__name__))
    sys.exit(5)
)PY";

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

bool isTorchModelPath(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".pt" || ext == ".pth" || ext == ".torchscript" || ext == ".py";
}

Expected<TorchInput> parseTorchInput(const std::string& text) {
  TorchInput in;
  std::string dims = text;
  if (auto colon = text.rfind(':'); colon != std::string::npos) {
    in.dtype = text.substr(colon + 1);
    dims = text.substr(0, colon);
    if (in.dtype != "float32" && in.dtype != "float64" && in.dtype != "int64" && in.dtype != "int32" && in.dtype != "bool")
      return fail(text, "unknown type '" + in.dtype + "'", "use float32, float64, int64, int32 or bool");
  }
  // Each dim: digits, or a name up to '=' then digits (a name may hold an 'x': "max_len=8"); then 'x' or the end.
  const std::string hint = "e.g. 1x3x224x224 or batch=1x3x224x224:float32";
  size_t at = 0;
  while (true) {
    std::string name;
    if (at >= dims.size()) return fail(text, "expected a size at the end", hint);
    if (!std::isdigit(static_cast<unsigned char>(dims[at]))) {
      const size_t eq = dims.find('=', at);
      if (eq == std::string::npos || eq == at) return fail(text, "expected a size or NAME=SIZE at '" + dims.substr(at) + "'", hint);
      name = dims.substr(at, eq - at);
      at = eq + 1;
    }
    size_t digits = at;
    while (digits < dims.size() && std::isdigit(static_cast<unsigned char>(dims[digits]))) ++digits;
    if (digits == at) return fail(text, "expected a size after '" + dims.substr(0, at) + "'", hint);
    if (digits - at > 15) return fail(text, "size " + dims.substr(at, digits - at) + " is too large", hint);
    const long long v = std::stoll(dims.substr(at, digits - at));
    if (v < 1) return fail(text, "sizes must be positive", hint);
    in.shape.push_back(v);
    in.dimNames.push_back(name);
    at = digits;
    if (at == dims.size()) break;
    if (dims[at] != 'x') return fail(text, "expected 'x' between sizes at '" + dims.substr(at) + "'", hint);
    ++at;
  }
  return in;
}

std::string torchInputText(const TorchInput& in) {
  std::string s;
  for (size_t k = 0; k < in.shape.size(); ++k)
    s += (k ? "x" : "") + (in.dimNames[k].empty() ? std::string() : in.dimNames[k] + "=") + std::to_string(in.shape[k]);
  return in.dtype == "float32" ? s : s + ":" + in.dtype;
}

Expected<void> exportTorchToOnnx(const std::string& model, const std::string& onnxPath, const TorchExportOptions& o) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(model, ec)) return fail(model, "no such file");
  if (o.inputs.empty())
    return fail(model, "a TorchScript model needs the shapes of its inputs to be exported",
                "give one per input of forward(), e.g. --input 1x3x224x224 (a NAME= before a size makes that dim dynamic)");
  std::string inputs;
  for (auto& in : o.inputs) {
    std::string shape, names;
    for (size_t k = 0; k < in.shape.size(); ++k) {
      shape += (k ? "," : "") + std::to_string(in.shape[k]);
      names += (k ? "," : "") + jsonString(in.dimNames[k]);
    }
    inputs += (inputs.empty() ? "" : ",") + std::string("{\"shape\":[") + shape + "],\"dims\":[" + names + "],\"dtype\":" + jsonString(in.dtype) + "}";
  }
  const bool python = std::filesystem::path(model).extension() == ".py";
  if (python && o.className.empty())
    return fail(model, "a Python file needs the name of the model's class (an nn.Module)",
                "give it, e.g. --class MyNet, or with its constructor's arguments --class 'MyNet(3, hidden=64)'");
  const std::string spec = "{\"model\":" + jsonString(model) + ",\"class\":" + jsonString(python ? o.className : "") +
                           ",\"out\":" + jsonString(onnxPath) + ",\"opset\":" + std::to_string(o.opset) +
                           ",\"inputs\":[" + inputs + "]}";
  RunResult r = runProcess({o.python, "-c", kScript, spec});
  if (!r.spawnError.empty())
    return fail(model, "cannot run " + o.python + " to export the model: " + r.spawnError, "install python3 and python3-torch");
  if (r.status != 0) {
    const auto at = r.output.rfind("dcw-torch-error: ");
    std::string message;
    if (at != std::string::npos) {
      message = r.output.substr(at + 17);
      message = message.substr(0, message.find('\n'));
    } else {
      message = "the exporter stopped (" + (r.signal ? std::string("signal ") + std::to_string(r.signal) : "exit status " + std::to_string(r.status)) + ")";
    }
    return fail(model, message);
  }
  if (!std::filesystem::is_regular_file(onnxPath, ec)) return fail(model, "torch.onnx.export wrote no file at " + onnxPath);
  return {};
}

} // namespace dcw::io
