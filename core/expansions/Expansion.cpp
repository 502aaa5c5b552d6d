#include "core/expansions/Expansion.h"

#include "core/ir/AccessNode.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace dcw::expansions {

using namespace dcw::ir;

ExpansionContext::ExpansionContext(const Sdfg& sdfg, const State& state, const LibraryNode& node, std::string path)
    : sdfg_(sdfg), state_(state), node_(node), path_(std::move(path)) {
  for (auto* e : state.inEdges(node.id()))
    if (auto* a = dynamic_cast<const AccessNode*>(state.node(e->src)))
      if (auto* d = sdfg.findData(a->data())) in_[e->dstConnector] = d;
  for (auto* e : state.outEdges(node.id()))
    if (auto* a = dynamic_cast<const AccessNode*>(state.node(e->dst)))
      if (auto* d = sdfg.findData(a->data())) out_[e->srcConnector] = d;
}

const DataDescriptor* ExpansionContext::in(std::string_view c) const {
  auto it = in_.find(c);
  return it == in_.end() ? nullptr : it->second;
}

const DataDescriptor* ExpansionContext::out(std::string_view c) const {
  auto it = out_.find(c);
  return it == out_.end() ? nullptr : it->second;
}

std::vector<std::string> ExpansionContext::inputs() const {
  std::vector<std::string> v;
  for (auto& c : node_.inConnectors())
    if (in(c.name)) v.push_back(c.name);
  return v;
}

std::vector<std::string> ExpansionContext::outputs() const {
  std::vector<std::string> v;
  for (auto& c : node_.outConnectors())
    if (out(c.name)) v.push_back(c.name);
  return v;
}

const Tensor* ExpansionContext::constantIn(std::string_view c) const {
  auto* d = in(c);
  return d && d->constant ? d->constant.get() : nullptr;
}

std::optional<std::vector<int64_t>> ExpansionContext::constantInts(std::string_view c) const {
  const Tensor* t = constantIn(c);
  if (!t || !t->bytes) return std::nullopt;
  std::vector<int64_t> out;
  int64_t n = t->elementCount();
  if (t->dtype == DType::Int64) {
    out.resize(size_t(n));
    std::memcpy(out.data(), t->bytes->data(), size_t(n) * 8);
  } else if (t->dtype == DType::Int32) {
    for (int64_t i = 0; i < n; ++i) {
      int32_t v;
      std::memcpy(&v, t->bytes->data() + i * 4, 4);
      out.push_back(v);
    }
  } else {
    return std::nullopt;
  }
  return out;
}

int64_t ExpansionContext::attrInt(std::string_view name, int64_t fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<int64_t>(&a->value) : nullptr) return *v;
  return fallback;
}

double ExpansionContext::attrFloat(std::string_view name, double fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<double>(&a->value) : nullptr) return *v;
  return fallback;
}

std::string ExpansionContext::attrString(std::string_view name, std::string fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<std::string>(&a->value) : nullptr) return *v;
  return fallback;
}

std::vector<int64_t> ExpansionContext::attrInts(std::string_view name, std::vector<int64_t> fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<std::vector<int64_t>>(&a->value) : nullptr) return *v;
  return fallback;
}

std::vector<double> ExpansionContext::attrFloats(std::string_view name, std::vector<double> fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<std::vector<double>>(&a->value) : nullptr) return *v;
  return fallback;
}

std::vector<std::string> ExpansionContext::attrStrings(std::string_view name, std::vector<std::string> fallback) const {
  auto* a = node_.attribute(name);
  if (auto* v = a ? std::get_if<std::vector<std::string>>(&a->value) : nullptr) return *v;
  return fallback;
}

Unexpected ExpansionContext::error(std::string message, std::string hint) const {
  return fail(path_ + " (" + node_.className() + ")", std::move(message), std::move(hint));
}

bool ImplementationDecl::forTarget(std::string_view target) const {
  return targets.empty() || std::find(targets.begin(), targets.end(), target) != targets.end();
}

std::string ImplementationDecl::targetsText() const {
  if (targets.empty()) return "any target";
  std::string s;
  for (auto& t : targets) s += (s.empty() ? "" : ", ") + t;
  return s;
}

ImplementationDecl pureImplementation() { return ImplementationDecl{"pure", {}, {}, true}; }

void ExpansionRegistry::add(std::string domain, std::string op, std::string implementation, ExpandFn fn,
                            std::string description) {
  assert(implementation == "pure" && "an implementation other than pure must declare itself (ImplementationDecl)");
  add(std::move(domain), std::move(op), pureImplementation(), std::move(fn), std::move(description));
}

void ExpansionRegistry::add(std::string domain, std::string op, ImplementationDecl decl, ExpandFn fn,
                            std::string description) {
  assert(!find(domain, op, decl.name) && "an implementation is registered once per op");
  std::string name = decl.name;
  list_.push_back(ExpansionInfo{std::move(domain), std::move(op), std::move(name), std::move(description), std::move(fn),
                                std::move(decl)});
}

const ExpansionInfo* ExpansionRegistry::find(std::string_view domain, std::string_view op, std::string_view impl) const {
  for (auto& e : list_)
    if (e.domain == domain && e.op == op && e.implementation == impl) return &e;
  return nullptr;
}

std::vector<std::string> ExpansionRegistry::implementations(std::string_view domain, std::string_view op) const {
  std::vector<std::string> out;
  for (auto& e : list_)
    if (e.domain == domain && e.op == op) out.push_back(e.implementation);
  return out;
}

} // namespace dcw::expansions
