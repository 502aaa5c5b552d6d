#include "core/expansions/SdfgBuilder.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

namespace dcw::expansions {

using namespace dcw::ir;
using sym::Expr;

SdfgBuilder::SdfgBuilder(std::string name, std::string where) : where_(std::move(where)) {
  sdfg_ = std::make_unique<Sdfg>(name.empty() ? "sdfg" : name);
  if (where_.empty()) where_ = sdfg_->name();
  state_ = sdfg_->addState("compute");
}

SdfgBuilder::SdfgBuilder(const ExpansionContext& ctx, std::string name) : ctx_(&ctx), where_(ctx.path()) {
  sdfg_ = std::make_unique<Sdfg>(name.empty() ? ctx.node().opType.empty() ? "expansion" : ctx.node().opType : name);
  auto declare = [&](const std::string& conn, const DataDescriptor& outer) {
    auto d = std::make_unique<DataDescriptor>(conn);
    d->dataKind = outer.dataKind == DataKind::Scalar ? DataKind::Scalar : DataKind::Array;
    d->dtype = outer.dtype;
    d->shape = outer.shape;
    // The outer array's layout (a channels-last or blocked activation stays so inside), so that the
    // expansion's memlets index the caller's buffer as the caller lays it out.
    d->strides = outer.strides.size() == outer.shape.size() && !outer.shape.empty() ? outer.strides
                                                                                  : DataDescriptor::contiguousStrides(outer.shape);
    d->channelBlock = outer.channelBlock;
    d->rankKnown = outer.rankKnown;
    d->wrappers = outer.wrappers;
    d->transient = false;
    for (auto& s : outer.freeSymbols()) sdfg_->addSymbol(s);
    sdfg_->addData(std::move(d));
  };
  for (auto& c : ctx.inputs()) {
    declare(c, *ctx.in(c));
    sdfg_->inputs.push_back(c);
  }
  for (auto& c : ctx.outputs()) {
    declare(c, *ctx.out(c));
    sdfg_->outputs.push_back(c);
  }
  state_ = sdfg_->addState("compute");
}

State& SdfgBuilder::nextState(std::string label) {
  State* prev = state_;
  state_ = sdfg_->addState(label.empty() ? sdfg_->uniqueBlockLabel("compute") : label);
  sdfg_->addEdge(prev->id(), state_->id());
  readers_.clear();
  writers_.clear();
  return *state_;
}

const DataDescriptor& SdfgBuilder::data(const std::string& name) const { return *sdfg_->findData(name); }

std::string SdfgBuilder::transient(const std::string& base, DType dtype, std::vector<Expr> shape) {
  std::string name = base;
  for (int k = 1; sdfg_->findData(name); ++k) name = base + "_" + std::to_string(k);
  for (auto& e : shape)
    for (auto& s : e.freeSymbols()) sdfg_->addSymbol(s);
  DataDescriptor* d = shape.empty() ? sdfg_->addScalar(name, dtype, true) : sdfg_->addArray(name, dtype, std::move(shape), true);
  d->lifetime = Lifetime::Sdfg;
  return name;
}

AccessNode& SdfgBuilder::reader(const std::string& data) {
  if (auto it = writers_.find(data); it != writers_.end()) return *it->second; // read after write
  auto& r = readers_[data];
  if (!r) {
    auto n = std::make_unique<AccessNode>(data);
    n->setLabel(state_->uniqueNodeLabel(data));
    r = static_cast<AccessNode*>(state_->addNode(std::move(n)));
  }
  return *r;
}

AccessNode& SdfgBuilder::writer(const std::string& data) {
  auto& w = writers_[data];
  if (!w) {
    auto n = std::make_unique<AccessNode>(data);
    n->setLabel(state_->uniqueNodeLabel(data));
    w = static_cast<AccessNode*>(state_->addNode(std::move(n)));
  }
  return *w;
}

std::string SdfgBuilder::uniqueLabel(const std::string& base) { return state_->uniqueNodeLabel(base); }

void SdfgBuilder::mappedTasklet(const std::string& label, const std::vector<MapParam>& params,
                                const std::vector<TaskletIn>& inputs, const std::string& code,
                                const std::vector<TaskletOut>& outputs, Schedule schedule) {
  if (error_) return;
  // Writing a container already read or written in this state would race: order it with a new state.
  for (auto& o : outputs)
    if (writers_.count(o.data) || readers_.count(o.data)) {
      nextState();
      break;
    }
  auto subsetOf = [&](const std::string& data, const std::string& text) -> std::optional<Subset> {
    const DataDescriptor* d = sdfg_->findData(data);
    if (!d) {
      error_ = Diagnostic::error(where_, "expansion refers to unknown data '" + data + "'", "this is a bug in the expansion");
      return std::nullopt;
    }
    if (text.empty()) return Subset::fullOf(d->shape);
    auto s = Subset::parse(text);
    if (!s) {
      error_ = Diagnostic::error(where_, "expansion subset: " + s.error().str(), "this is a bug in the expansion");
      return std::nullopt;
    }
    return *s;
  };
  auto full = [&](const std::string& data) { return Memlet::full(data, sdfg_->findData(data)->shape); };

  Tasklet* t = state_->add<Tasklet>(uniqueLabel(label), code);
  for (auto& i : inputs) t->addIn({i.connector, sdfg_->findData(i.data) ? sdfg_->findData(i.data)->dtype : DType::Undefined});
  for (auto& o : outputs) t->addOut({o.connector, sdfg_->findData(o.data) ? sdfg_->findData(o.data)->dtype : DType::Undefined});

  if (params.empty()) {
    for (auto& i : inputs) {
      auto s = subsetOf(i.data, i.subset);
      if (!s) return;
      state_->addEdge(reader(i.data), "", *t, i.connector, Memlet::simple(i.data, *s));
    }
    for (auto& o : outputs) {
      auto s = subsetOf(o.data, o.subset);
      if (!s) return;
      Memlet m = Memlet::simple(o.data, *s);
      m.wcr = o.wcr;
      state_->addEdge(*t, o.connector, writer(o.data), "", m);
    }
    return;
  }

  auto* me = state_->add<MapEntry>(uniqueLabel(label + "_map"));
  auto* mx = state_->add<MapExit>(uniqueLabel(label + "_map_exit"));
  std::vector<Range> ranges;
  for (auto& p : params) {
    me->params.push_back(p.name);
    ranges.push_back(p.range);
  }
  me->range = Subset(ranges);
  me->schedule = schedule;
  me->exitId = mx->id();
  mx->entryId = me->id();

  std::set<std::string> seenIn;
  for (auto& i : inputs) {
    if (seenIn.insert(i.data).second) {
      me->addIn({"IN_" + i.data});
      me->addOut({"OUT_" + i.data});
      state_->addEdge(reader(i.data), "", *me, "IN_" + i.data, full(i.data));
    }
    auto s = subsetOf(i.data, i.subset);
    if (!s) return;
    state_->addEdge(*me, "OUT_" + i.data, *t, i.connector, Memlet::simple(i.data, *s));
  }
  if (inputs.empty()) state_->addEdge(*me, "", *t, "", Memlet{}); // keeps the tasklet inside the scope
  std::map<std::string, std::string> outWcr;
  for (auto& o : outputs) {
    auto s = subsetOf(o.data, o.subset);
    if (!s) return;
    Memlet m = Memlet::simple(o.data, *s);
    m.wcr = o.wcr;
    if (!outWcr.count(o.data)) {
      mx->addIn({"IN_" + o.data});
      mx->addOut({"OUT_" + o.data});
      outWcr[o.data] = o.wcr;
    }
    state_->addEdge(*t, o.connector, *mx, "IN_" + o.data, m);
  }
  for (auto& [data, wcr] : outWcr) {
    Memlet m = full(data);
    m.wcr = wcr;
    state_->addEdge(*mx, "OUT_" + data, writer(data), "", m);
  }
}

void SdfgBuilder::cppTasklet(const std::string& label, const std::vector<std::string>& inputs, const std::string& code,
                             const std::vector<std::string>& outputs, std::vector<std::string> environments,
                             std::optional<sym::Expr> flops, std::vector<std::pair<std::string, std::string>> inPlace) {
  if (error_) return;
  for (auto& o : outputs)
    if (writers_.count(o) || readers_.count(o)) {
      nextState();
      break;
    }
  for (auto* names : {&inputs, &outputs})
    for (auto& n : *names)
      if (!sdfg_->findData(n)) {
        error_ = Diagnostic::error(where_, "expansion refers to unknown data '" + n + "'", "this is a bug in the expansion");
        return;
      }
  Tasklet* t = state_->add<Tasklet>(uniqueLabel(label), code, TaskletLanguage::Cpp);
  t->environments = std::move(environments);
  t->flops = std::move(flops);
  t->inPlace = std::move(inPlace);
  auto memlet = [&](const std::string& data) { return Memlet::full(data, sdfg_->findData(data)->shape); };
  for (auto& i : inputs) {
    t->addIn({i, sdfg_->findData(i)->dtype});
    state_->addEdge(reader(i), "", *t, i, memlet(i));
  }
  for (auto& o : outputs) {
    t->addOut({o, sdfg_->findData(o)->dtype});
    state_->addEdge(*t, o, writer(o), "", memlet(o));
  }
}

void SdfgBuilder::copy(const std::string& src, const std::string& dst) {
  if (error_) return;
  if (writers_.count(dst) || readers_.count(dst)) nextState();
  const DataDescriptor* s = sdfg_->findData(src);
  const DataDescriptor* d = sdfg_->findData(dst);
  if (!s || !d) {
    error_ = Diagnostic::error(where_, "expansion copies unknown data '" + (s ? dst : src) + "'", "this is a bug in the expansion");
    return;
  }
  Memlet m = Memlet::full(src, s->shape);
  m.otherSubset = Subset::fullOf(d->shape);
  state_->addEdge(reader(src), "", writer(dst), "", m);
}

Expected<std::unique_ptr<Sdfg>> SdfgBuilder::finish() {
  if (error_) return fail(*error_);
  return std::move(sdfg_);
}

std::vector<MapParam> fullRangeParams(const std::vector<Expr>& shape, const std::string& prefix) {
  std::vector<MapParam> out;
  for (size_t k = 0; k < shape.size(); ++k) out.push_back({prefix + std::to_string(k), Range::full(shape[k])});
  return out;
}

std::string indexList(size_t rank, const std::string& prefix) {
  std::string s;
  for (size_t k = 0; k < rank; ++k) s += (k ? ", " : "") + prefix + std::to_string(k);
  return s;
}

std::string broadcastSubset(const std::vector<Expr>& in, const std::vector<Expr>& out, const std::string& prefix) {
  std::string s;
  size_t offset = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) {
    std::string idx = prefix + std::to_string(k + offset);
    if (in[k] == Expr(1) && out[k + offset] != Expr(1)) idx = "0";
    s += (k ? ", " : "") + idx;
  }
  return s;
}

} // namespace dcw::expansions
