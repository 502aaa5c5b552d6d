#include "core/expansions/onednn/OneDnnCall.h"

#include "core/support/IntList.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace dcw::expansions::onednn {

ImplementationDecl decl() { return ImplementationDecl{"onednn", {"cpu"}, {"onednn"}, false}; }

std::string pureHint(const ExpansionContext& ctx) {
  return "choose the `pure` implementation for this node (set " + ctx.path() + " implementation=pure)";
}

namespace {

Expected<std::vector<int64_t>> knownDims(const ExpansionContext& ctx, const std::string& op, const std::string& name,
                                         const ir::DataDescriptor& d) {
  if (d.dtype != ir::DType::Float32)
    return ctx.error("onednn " + op + " supports float32 only; " + name + " is " + std::string(ir::dtypeName(d.dtype)), pureHint(ctx));
  if (!d.rankKnown) return ctx.error("onednn " + op + " needs the rank of " + name, pureHint(ctx));
  std::vector<int64_t> v;
  for (auto& e : d.shape) {
    auto c = e.constantValue();
    if (!c)
      return ctx.error("onednn " + op + " needs known dims; " + name + " has dim " + e.str(),
                       "give the input shapes (dcw run specializes them), or " + pureHint(ctx));
    if (*c <= 0)
      return ctx.error("onednn " + op + " needs non-empty operands; " + name + " has a dim of " + std::to_string(*c), pureHint(ctx));
    v.push_back(*c);
  }
  if (v.size() > 12) return ctx.error("onednn " + op + " supports at most 12 dims; " + name + " has " + std::to_string(v.size()), pureHint(ctx));
  return v;
}

// Row-major, ignoring the strides of dims of extent 1 (no element steps along them).
bool isRowMajor(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  int64_t expect = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] == 1) continue;
    if (strides[k] != expect) return false;
    expect *= dims[k];
  }
  return true;
}

// The dims, ordered by stride, tile product(dims) slots with no gap and no overlap.
bool isDense(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  std::vector<size_t> order;
  for (size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != 1) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expect = 1;
  for (size_t k : order) {
    if (strides[k] != expect) return false;
    expect *= dims[k];
  }
  return true;
}

} // namespace

Expected<Described> describedOperand(const ExpansionContext& ctx, const std::string& op, const std::string& name,
                                     const ir::DataDescriptor& d) {
  Described out;
  DCW_TRY(out.dims, knownDims(ctx, op, name, d));
  const auto strides = d.elementStrides();
  for (auto& e : strides) {
    auto c = e.constantValue();
    if (!c || *c < 0) return ctx.error("onednn " + op + " needs known non-negative strides; " + name + " has stride " + e.str(), pureHint(ctx));
    out.strides.push_back(*c);
  }
  if (d.channelBlock > 0) {
    out.block = d.channelBlock;
    out.rowMajor = out.dense = false;
    out.desc = "blocked(" + dimsText(out.dims) + ", tag::" + d.blockedLayoutName() + ")";
    return out;
  }
  out.rowMajor = isRowMajor(out.dims, out.strides);
  out.dense = isDense(out.dims, out.strides);
  out.desc = out.rowMajor ? "plain(" + dimsText(out.dims) + ")" : "strided(" + dimsText(out.dims) + ", " + dimsText(out.strides) + ")";
  return out;
}

Expected<std::vector<int64_t>> floatDims(const ExpansionContext& ctx, const std::string& op, const std::string& name,
                                         const ir::DataDescriptor& d) {
  DCW_TRY(auto described, describedOperand(ctx, op, name, d));
  if (!described.rowMajor)
    return ctx.error("onednn " + op + " reads " + name + " as a row-major array, and " + name + " has strides " +
                         dimsText(described.strides).substr(4) + " (another layout)",
                     "copy it into a row-major array first, or " + pureHint(ctx));
  return described.dims;
}

std::string dimsText(const std::vector<int64_t>& d) { return "dims{" + joinInts(d, ", ") + "}"; }

std::string shapeText(const std::vector<int64_t>& d) { return d.empty() ? "scalar" : joinInts(d, "x"); }

std::string floatLiteral(double v) {
  // Past float's range (a Clip without a bound is clipped at infinity): no literal, a value.
  if (std::isnan(v)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::abs(v) > double(std::numeric_limits<float>::max()))
    return v > 0 ? "std::numeric_limits<float>::infinity()" : "(-std::numeric_limits<float>::infinity())";
  std::ostringstream s;
  s.precision(9);
  s << v;
  std::string t = s.str();
  if (t.find_first_of(".ein") == std::string::npos) t += ".0";
  return t + "f";
}

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t k = from; k < std::min(to, d.size()); ++k) p *= d[k];
  return p;
}

std::string constantFlag(const ExpansionContext& ctx, const std::string& connector) {
  return ctx.constantIn(connector) ? "true" : "false";
}

std::string callCode(const std::string& comment, const std::string& make, const std::vector<std::string>& buffers, int variants) {
  std::string s = "// " + comment + "\n";
  s += "static std::unique_ptr<dcw_env_onednn::Tuned> dcw_call;\n";
  s += "static unsigned dcw_made = 0;\n";
  // The make function runs once per load: DCW_ONEDNN_MAKE (OneDnnRuntime.cpp) compiles it cheaply.
  s += "dcw_env_onednn::call(dcw_call, dcw_made, " + std::to_string(variants) +
       ", [](dcw_env_onednn::Call& dcw_k, int dcw_variant) DCW_ONEDNN_MAKE {\n";
  s += "  using namespace dcw_env_onednn;\n";
  if (variants == 1) s += "  (void)dcw_variant;\n";
  size_t start = 0;
  while (start < make.size()) {
    size_t end = make.find('\n', start);
    if (end == std::string::npos) end = make.size();
    s += "  " + make.substr(start, end - start) + "\n";
    start = end + 1;
  }
  s += "}).run({";
  for (size_t k = 0; k < buffers.size(); ++k) s += (k ? ", " : "") + ("dcw_env_onednn::buffer(" + buffers[k] + ")");
  s += "});\n";
  return s;
}

} // namespace dcw::expansions::onednn
