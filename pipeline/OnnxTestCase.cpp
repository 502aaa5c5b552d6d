#include "pipeline/OnnxTestCase.h"

#include "pipeline/Pipeline.h"
#include "core/onnx/TensorFile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
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

std::vector<std::string> tensorFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p.string());
  }
  return out;
}

} // namespace

CaseResult runOnnxTestCase(const std::string& folder, const Options& options) {
  CaseResult r;
  r.name = fs::path(folder).filename().string();
  if (r.name.empty()) r.name = fs::path(folder).parent_path().filename().string();
  fs::path model = fs::path(folder) / "model.onnx";
  if (!fs::exists(model)) {
    r.status = CaseResult::Status::Failed;
    r.message = folder + ": no model.onnx in this folder";
    return r;
  }
  auto built = build(model.string(), {}, options);
  if (!built) {
    const Stage stage = built.failure().stage;
    r.status = stage == Stage::Generate || stage == Stage::Build ? CaseResult::Status::Failed : CaseResult::Status::Unsupported;
    r.message = built.error().str();
    return r;
  }
  auto& p = *built;
  r.implementations = p.prepared.implementations;
  std::vector<fs::path> sets;
  for (auto& d : fs::directory_iterator(folder))
    if (d.is_directory() && d.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(d.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) { // nothing to compare with: not a pass
    r.status = CaseResult::Status::Failed;
    r.message = folder + ": no test_data_set_* folder";
    return r;
  }
  for (auto& set : sets) {
    std::vector<Tensor> inputs;
    for (auto& f : tensorFiles(set, "input")) {
      auto t = onnx::readTensorFile(f);
      if (!t) {
        r.status = CaseResult::Status::Failed;
        r.message = t.error().str();
        return r;
      }
      inputs.push_back(std::move(t->tensor));
    }
    auto out = p.executor->run(inputs);
    if (!out) {
      r.status = CaseResult::Status::Failed;
      r.message = out.error().str();
      return r;
    }
    auto expectedFiles = tensorFiles(set, "output");
    if (expectedFiles.size() != out->size()) {
      r.status = CaseResult::Status::Failed;
      r.message = "the model produced " + std::to_string(out->size()) + " outputs, the test expects " + std::to_string(expectedFiles.size());
      return r;
    }
    for (size_t i = 0; i < expectedFiles.size(); ++i) {
      auto e = onnx::readTensorFile(expectedFiles[i]);
      if (!e) {
        r.status = CaseResult::Status::Failed;
        r.message = e.error().str();
        return r;
      }
      std::string diff = compare(e->tensor, (*out)[i], p.prepared.model.sdfg->outputs[i], r.maxAbsError);
      if (!diff.empty()) {
        r.status = CaseResult::Status::Failed;
        r.message = set.filename().string() + ": " + diff;
        return r;
      }
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
