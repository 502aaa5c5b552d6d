#include "pipeline/OnnxTestCase.h"

#include "pipeline/Pipeline.h"
#include "pipeline/ModelValues.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace dcw::pipeline {

namespace fs = std::filesystem;
using namespace dcw::ir;

namespace {

double valueAt(const Tensor& t, int64_t i) {
  const char* p = t.bytes->data();
  auto rd = [&](auto v) {
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return double(v);
  };
  switch (t.dtype) {
  case DType::Float32: return rd(float{});
  case DType::Float64: return rd(double{});
  case DType::Int8: return rd(int8_t{});
  case DType::Int16: return rd(int16_t{});
  case DType::Int32: return rd(int32_t{});
  case DType::Int64: return rd(int64_t{});
  case DType::UInt8: return rd(uint8_t{});
  case DType::UInt16: return rd(uint16_t{});
  case DType::UInt32: return rd(uint32_t{});
  case DType::UInt64: return rd(uint64_t{});
  case DType::Bool: return rd(uint8_t{}) != 0;
  case DType::Float16: {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v = exp == 0 ? std::ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : std::ldexp(man + 1024, int(exp) - 25);
    return sign ? -v : v;
  }
  case DType::BFloat16: {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  default: return NAN;
  }
}

// Empty string when equal within tolerance; otherwise what differs. Updates maxErr.
std::string compare(const Tensor& expectedIn, const Tensor& actual, const std::string& name, double& maxErr) {
  // Test data may hold bfloat16/float16 values as uint16 bit patterns: read them as the actual type.
  Tensor expected = expectedIn;
  if (expected.dtype == DType::UInt16 && (actual.dtype == DType::BFloat16 || actual.dtype == DType::Float16))
    expected.dtype = actual.dtype;
  if (expected.dtype != actual.dtype)
    return "output '" + name + "' has dtype " + std::string(dtypeName(actual.dtype)) + ", expected " + std::string(dtypeName(expected.dtype));
  if (expected.dims != actual.dims) {
    auto txt = [](const std::vector<int64_t>& d) {
      std::string s;
      for (auto x : d) s += (s.empty() ? "" : ",") + std::to_string(x);
      return "[" + s + "]";
    };
    return "output '" + name + "' has shape " + txt(actual.dims) + ", expected " + txt(expected.dims);
  }
  if (expected.dtype == DType::String)
    return expected.strings && actual.strings && *expected.strings == *actual.strings ? "" : "output '" + name + "' strings differ";
  const bool exact = !isFloating(expected.dtype) && expected.dtype != DType::Complex64 && expected.dtype != DType::Complex128;
  int64_t n = expected.elementCount();
  int64_t bad = 0, firstBad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double e = valueAt(expected, i), a = valueAt(actual, i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && e == a) continue;
    double err = std::fabs(e - a);
    if (!std::isnan(err)) maxErr = std::max(maxErr, err);
    bool ok = exact ? e == a : (err <= 1e-7 + 1e-3 * std::fabs(e));
    if (!ok) {
      if (firstBad < 0) firstBad = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  return "output '" + name + "': " + std::to_string(bad) + " of " + std::to_string(n) + " values differ (first at " +
         std::to_string(firstBad) + ": expected " + std::to_string(valueAt(expected, firstBad)) + ", got " +
         std::to_string(valueAt(actual, firstBad)) + ")";
}



// Empty when equal (recursively for sequences and optionals); otherwise what differs.
std::string compareValue(const onnx::InterfaceValue& expected, const onnx::InterfaceValue& actual, const std::string& name,
                         double& maxErr) {
  if (expected.kind != actual.kind || expected.elements.size() != actual.elements.size())
    return "output '" + name + "' is " + actual.describe() + ", expected " + expected.describe();
  if (expected.kind == onnx::InterfaceValue::Kind::Tensor) return compare(expected.tensor, actual.tensor, name, maxErr);
  for (size_t i = 0; i < expected.elements.size(); ++i) {
    std::string d = compareValue(expected.elements[i], actual.elements[i], name + "[" + std::to_string(i) + "]", maxErr);
    if (!d.empty()) return d;
  }
  return "";
}

} // namespace

CaseResult runOnnxTestCase(const std::string& folder, const Options& options, bool run) {
  CaseResult r;
  r.name = fs::path(folder).filename().string();
  if (r.name.empty()) r.name = fs::path(folder).parent_path().filename().string();
  fs::path model = fs::path(folder) / "model.onnx";
  auto failed = [&](const std::string& message) {
    r.status = CaseResult::Status::Failed;
    r.message = message;
    return r;
  };
  if (!fs::exists(model)) return failed(folder + ": no model.onnx in this folder");
  auto declared = declaredValues(model.string());
  if (!declared) {
    r.status = CaseResult::Status::Unsupported;
    r.message = declared.error().str();
    return r;
  }
  std::vector<fs::path> sets;
  for (auto& d : fs::directory_iterator(folder))
    if (d.is_directory() && d.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(d.path());
  std::sort(sets.begin(), sets.end());

  // A model with sequences or optionals at its interface is built for each data set's values
  // (ModelValues.h); any other once, unspecialized.
  std::optional<Program> program;
  auto buildFor = [&](const std::vector<onnx::InterfaceValue>& values) -> bool {
    Options o = options;
    bindInterface(o, *declared, values);
    auto built = build(model.string(), {}, o);
    if (!built) {
      const Stage stage = built.failure().stage;
      r.status = stage == Stage::Generate || stage == Stage::Build ? CaseResult::Status::Failed : CaseResult::Status::Unsupported;
      r.message = built.error().str();
      return false;
    }
    program.emplace(std::move(*built));
    r.implementations = program->prepared.implementations;
    return true;
  };
  const bool structured = declared->structured();
  if (!structured && !buildFor({})) return r;
  if (sets.empty()) return failed(folder + ": no test_data_set_* folder"); // nothing to compare with: not a pass
  if (!run) { // built only: for a structured interface, for the first data set's values
    if (structured) {
      auto inputs = readValues(sets.front().string(), "input", declared->inputs);
      if (!inputs) return failed(inputs.error().str());
      if (!buildFor(*inputs)) return r;
    }
    r.status = CaseResult::Status::Passed;
    r.message = "built, not run";
    return r;
  }

  for (auto& set : sets) {
    auto inputs = readValues(set.string(), "input", declared->inputs);
    if (!inputs) return failed(inputs.error().str());
    if (structured && !buildFor(*inputs)) return r;
    std::vector<std::string> names;
    auto outputs = runValues(*program, *inputs, &names);
    if (!outputs) return failed(outputs.error().str());
    auto expected = readValues(set.string(), "output", declared->outputs);
    if (!expected) return failed(expected.error().str());
    if (expected->size() != outputs->size())
      return failed("the model produced " + std::to_string(outputs->size()) + " outputs, the test expects " +
                    std::to_string(expected->size()));
    for (size_t i = 0; i < expected->size(); ++i) {
      std::string diff = compareValue((*expected)[i], (*outputs)[i], names[i], r.maxAbsError);
      if (!diff.empty()) return failed(set.filename().string() + ": " + diff);
    }
    ++r.dataSets;
  }
  r.status = CaseResult::Status::Passed;
  return r;
}

const char* statusName(CaseResult::Status s) {
  switch (s) {
  case CaseResult::Status::Passed: return "passed";
  case CaseResult::Status::Failed: return "failed";
  case CaseResult::Status::Unsupported: return "unsupported";
  }
  return "failed";
}

Expected<ExpectedFailures> ExpectedFailures::parse(const std::string& text, const std::string& file) {
  ExpectedFailures list;
  list.file = file;
  std::istringstream in(text);
  std::string line;
  std::set<std::string> seen;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = file + ":" + std::to_string(number);
    ExpectedFailure e;
    e.line = number;
    if (auto hash = line.find('#'); hash != std::string::npos) {
      e.reason = line.substr(hash + 1);
      line.resize(hash);
      auto first = e.reason.find_first_not_of(" \t");
      e.reason = first == std::string::npos ? "" : e.reason.substr(first);
      while (!e.reason.empty() && std::isspace(static_cast<unsigned char>(e.reason.back()))) e.reason.pop_back();
    }
    std::istringstream words(line);
    std::string status, extra;
    if (!(words >> e.name)) continue; // blank or comment only
    if (!(words >> status) || (words >> extra))
      return fail(where, "expected `NAME STATUS  # reason`, got '" + line + "'", "STATUS is failed or unsupported");
    if (status == "failed") e.status = CaseResult::Status::Failed;
    else if (status == "unsupported") e.status = CaseResult::Status::Unsupported;
    else return fail(where, "unknown status '" + status + "' for " + e.name, "write failed or unsupported");
    if (e.reason.empty()) return fail(where, e.name + " has no reason", "say why after '#'");
    if (!seen.insert(e.name).second) return fail(where, e.name + " is listed twice", "keep one line per case");
    list.cases.push_back(std::move(e));
  }
  return list;
}

Expected<ExpectedFailures> ExpectedFailures::load(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(file, "cannot read the list of expected failures", "give an existing file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), file);
}

const ExpectedFailure* ExpectedFailures::find(const std::string& name) const {
  for (auto& e : cases)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<Diagnostic> compareWithExpectedFailures(const std::vector<CaseResult>& results, const ExpectedFailures& list,
                                                    const std::function<bool(const std::string&)>& selected) {
  std::vector<Diagnostic> out;
  std::set<std::string> ran;
  for (auto& r : results) {
    ran.insert(r.name);
    const ExpectedFailure* e = list.find(r.name);
    if (!e) {
      if (r.status != CaseResult::Status::Passed)
        out.push_back(Diagnostic::error(r.name, std::string(statusName(r.status)) + " and is not listed as an expected failure: " + r.message,
                                        "fix it, or list it in " + list.file + " with the reason"));
      continue;
    }
    const std::string where = list.file + ":" + std::to_string(e->line);
    if (r.status == CaseResult::Status::Passed)
      out.push_back(Diagnostic::error(where, r.name + " passes now but is listed as " + statusName(e->status),
                                      "remove it from the list"));
    else if (r.status != e->status)
      out.push_back(Diagnostic::error(where, r.name + " is listed as " + std::string(statusName(e->status)) + " but " +
                                                 statusName(r.status) + ": " + r.message,
                                      "fix it, or correct its line"));
  }
  for (auto& e : list.cases)
    if (!ran.count(e.name) && selected(e.name))
      out.push_back(Diagnostic::error(list.file + ":" + std::to_string(e.line), e.name + " is no case of this run",
                                      "remove it from the list"));
  return out;
}

} // namespace dcw::pipeline
