// SdfgWalker: the target-neutral walk (see SdfgWalker.h).
//
// Shape of the output:
//   the target's prologue (runtime text), then dcw_program():
//     argument pointers and symbol locals; control-flow symbols; SDFG-lifetime transients;
//     the root region: states as `{ ... }` blocks, structured when the region is a chain, otherwise
//     labelled blocks joined by gotos that follow the interstate edges; loops as for/while, conditionals
//     as if/else; a state's dataflow in topological order per map scope: maps as the target emits them,
//     tasklets as blocks re-printed from their parsed code, access-to-access copies as the target emits
//     them, nested SDFGs inline with pointers into the outer data.
// Identifiers: every generated name is fresh for the whole function (no shadowing anywhere); names
// come from codegen/Identifier and never from raw model text; comments carry sanitised paths only.
#include "codegen/SdfgWalker.h"

#include "core/ir/ElementAddress.h"
#include "core/ir/View.h"

#include "codegen/Identifier.h"
#include "codegen/cpu/TaskletPrinter.h"
#include "core/expansions/Environment.h"
#include "core/ir/DynamicExtent.h"
#include "core/ir/Walk.h"
#include "core/ir/LibraryNode.h"
#include "core/tasklet/TaskletCode.h"

#include <functional>

namespace dcw::codegen {

using namespace dcw::ir;
using cpu::ValueKind;

namespace {

// Identifiers that could be macros of the headers the program includes (<cstdint>'s INT64_C, <cmath>'s
// NAN, ...) are avoided: all-caps names of three or more characters and a few lower-case macros.
bool macroLike(const std::string& id) {
  static const std::set<std::string> lower{"errno", "assert", "stdin", "stdout", "stderr", "offsetof", "unix",
                                           "linux", "i386", "setjmp", "va_arg", "va_start", "va_end", "va_copy"};
  if (lower.count(id)) return true;
  if (id.size() < 3) return false;
  for (char c : id)
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

} // namespace

std::string commentText(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (out.size() >= 160) {
      out += "...";
      break;
    }
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '.' || c == '@' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

SdfgWalker::SdfgWalker(const Sdfg& root, std::string targetName, const Instrumentation& instrument)
    : root_(root), targetName_(std::move(targetName)), paths_(root), instrumenter_(instrument, root, paths_) {
  reserve({"dcw_rt", "dcw_program", "dcw_set_threads", "dcw_set_progress_slot", "std", "args", "symbols", "error", "errorSize", "int8_t", "int16_t",
           "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
           "main"});
}

std::string SdfgWalker::fresh(const std::string& hint) {
  IdentifierTable t;
  std::string base = t.get(hint.empty() ? std::string("v") : hint);
  if (macroLike(base)) base = "v_" + base;
  std::string id = base;
  if (used_.count(id)) {
    // Names are only ever added, so the search for base_k resumes where the last one for this base
    // stopped: one "i" per map of a 100,000-node program must not rescan i_1 ... i_99999.
    int& k = nextSuffix_.try_emplace(base, 1).first->second;
    for (; used_.count(id = base + "_" + std::to_string(k)); ++k) {}
    ++k;
  }
  used_.insert(id);
  return id;
}

// Emits the timer of an element (a fresh local, destroyed at the end of the enclosing block).
void SdfgWalker::beginProfile(ProfiledElement::Kind k, ElementId id) {
  int index = instrumenter_.begin(k, id, path(id), insideParallelLoop());
  line(timerStatement(index, fresh("prof"), insideParallelLoop()));
}

Expected<void> SdfgWalker::allocateScope(const StateInfo& si, const MapEntry* scope) {
  if (auto it = ctx_->scopeAlloc.find(si.state); it != ctx_->scopeAlloc.end())
    if (auto jt = it->second.find(scope); jt != it->second.end())
      for (auto* d : jt->second) DCW_CHECK(allocateOrBind(*d, *ctx_));
  return {};
}

Expected<void> SdfgWalker::allocateOrBind(const DataDescriptor& d, Ctx& c) {
  return d.dataKind == DataKind::View ? bindView(d, c) : allocate(d, c);
}

Expected<void> SdfgWalker::bindView(const DataDescriptor& d, Ctx& c) {
  DCW_TRY(auto src, viewSource(*c.sdfg, d));
  DCW_TRY(auto offset, checkPlainView(*c.sdfg, d, src));
  auto it = c.data.find(src.array->name());
  if (it == c.data.end())
    return fail(path(d.id()), "view '" + d.name() + "' shows '" + src.array->name() + "', which is not allocated where the view is",
                "keep a view and the array it shows in one state");
  if (src.written) c.writtenThrough.insert(src.edge);
  // The same storage from the view's first element on: its accesses use the view's shape and strides.
  c.data[d.name()] = offset == sym::Expr(0) ? it->second : "(" + it->second + " + " + offset.str() + ")";
  return {};
}

void SdfgWalker::then(std::vector<Step> steps) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) steps_.push_back(std::move(*it));
}

void SdfgWalker::defer(const std::string& text, std::vector<SourceMapEntry> map) {
  for (auto& e : map) {
    e.firstLine += deferredLines_;
    e.lastLine += deferredLines_;
    deferredMap_.push_back(std::move(e));
  }
  deferred_ += text;
  if (!text.empty() && text.back() != '\n') deferred_ += '\n';
  deferredLines_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++deferredLines_;
}

Expected<void> SdfgWalker::drive() {
  while (!steps_.empty()) {
    Step step = std::move(steps_.back());
    steps_.pop_back();
    if (auto r = step(); !r) {
      steps_.clear();
      return r;
    }
  }
  return {};
}

Expected<GeneratedCode> SdfgWalker::run() {
  GeneratedCode result;
  ProgramSignature& sig = result.signature;
  const bool instrumented = instrumenter_.enabled();
  if (instrumented) {
    reserve({"dcw_prof", "dcw_event", "dcw_profile_events", "dcw_profile_reset", "dcw_profile_dropped", "dcw_profile_set_capacity",
             "dcw_profile_set_counters", "dcw_profile_element_count"});
    DCW_CHECK(instrumenter_.resolvePaths());
  }
  std::set<std::string> inArgs;
  auto addArg = [&](const std::string& name, ProgramArg::Role role) -> Expected<void> {
    if (inArgs.count(name)) return {};
    const DataDescriptor* d = root_.findData(name);
    if (!d) return fail(root_.name(), "argument '" + name + "' has no data descriptor in SDFG '" + root_.name() + "'");
    inArgs.insert(name);
    sig.args.push_back({name, role, d->dtype, d->shape});
    return {};
  };
  for (auto& n : root_.inputs) DCW_CHECK(addArg(n, ProgramArg::Role::Input));
  for (auto& n : root_.outputs) DCW_CHECK(addArg(n, ProgramArg::Role::Output));
  for (auto& d : root_.data())
    if (d->constant) DCW_CHECK(addArg(d->name(), ProgramArg::Role::Constant));
  for (auto& d : root_.data()) {
    std::string where = path(d->id());
    if (!d->transient && !inArgs.count(d->name()))
      return fail(where, "data '" + d->name() + "' is not transient but is neither an input, an output nor a constant",
                  "list it in Sdfg::inputs or Sdfg::outputs, or make it transient");
  }
  for (auto& [name, type] : root_.symbols()) {
    if (auto e = dynamicExtent(root_, name)) sig.extents.push_back({name, e->bound, e->node});
    else sig.symbols.push_back(name);
  }

  // Control-flow symbols of the root (assigned symbols cannot be const).
  std::set<std::string> assigned;
  std::function<void(const ControlFlowBlock&)> collect = [&](const ControlFlowBlock& b) {
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      for (auto& e : r->edges())
        for (auto& [n, v] : e->assignments) assigned.insert(n);
      if (auto* l = dynamic_cast<const LoopRegion*>(r); l && !l->loopVariable.empty()) assigned.insert(l->loopVariable);
      for (auto& c : r->blocks()) collect(*c);
    } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : c->branches()) collect(*br);
    }
  };
  collect(root_);

  DCW_CHECK(collectEnvironments());
  for (auto* env : envs_)
    for (auto& f : env->linkFlags)
      if (std::find(result.linkFlags.begin(), result.linkFlags.end(), f) == result.linkFlags.end()) result.linkFlags.push_back(f);
  emitPrologue(instrumented);
  if (hasCpp_) emitEnvironments();
  line("");
  // Deferred definitions (defer()) go here, once the walk has written them.
  const size_t deferAt = out_.size();
  const int deferLine = line_;
  line("extern \"C\" void dcw_set_threads(int n) { dcw_rt::set_threads(n); }");
  line("extern \"C\" void dcw_set_progress_slot(volatile int64_t* slot) { dcw_rt::progress_slot() = slot; }");
  line("");
  line("extern \"C\" int dcw_program(void* const* args, const int64_t* symbols, char* error, size_t errorSize) {");
  ++indent_;
  line("dcw_rt::reset_status();");
  if (hasCpp_) {
    line("if (!dcw_cpp::ready()) return dcw_rt::report(error, errorSize, \"dcw_init was not called, or failed, before dcw_program\");");
    line("dcw_cpp::reset();");
  }
  emitProgramStart();
  if (instrumented) beginProfile(ProfiledElement::Kind::Model, root_.id());
  line("(void)args;");
  line("(void)symbols;");
  Ctx rootCtx;
  rootCtx.sdfg = &root_;
  ctx_ = &rootCtx;
  for (size_t k = 0; k < sig.args.size(); ++k) {
    const auto& a = sig.args[k];
    const DataDescriptor* d = root_.findData(a.name);
    std::string where = path(d->id());
    if (d->dtype == DType::String) { // the host's (codegen/run/StringStages.h): the program never reads it
      line("// args[" + std::to_string(k) + "]: " + commentText(a.name) + ", strings the host handles");
      continue;
    }
    std::string t = cpu::storageType(d->dtype);
    if (t.empty())
      return fail(where, "data '" + a.name + "' has type " + std::string(dtypeName(d->dtype)) + ", which the " + targetName_ +
                             " target does not support");
    std::string id = fresh(a.name);
    line(t + "* __restrict " + id + " = static_cast<" + t + "*>(args[" + std::to_string(k) + "]); // " +
         commentText(a.name));
    line("(void)" + id + ";");
    rootCtx.data[a.name] = id;
  }
  for (size_t k = 0; k < sig.symbols.size(); ++k) {
    std::string id = fresh(sig.symbols[k]);
    line(std::string(assigned.count(sig.symbols[k]) ? "" : "const ") + "int64_t " + id + " = symbols[" + std::to_string(k) +
         "];");
    line("(void)" + id + ";");
    rootCtx.symbols[sig.symbols[k]] = id;
  }
  if (!sig.extents.empty()) {
    extentsId_ = fresh("extents");
    line("int64_t* const " + extentsId_ + " = static_cast<int64_t*>(args[" + std::to_string(sig.args.size()) + "]);");
    for (size_t k = 0; k < sig.extents.size(); ++k) {
      line(extentsId_ + "[" + std::to_string(k) + "] = 0; // " + commentText(sig.extents[k].symbol));
      extentIndex_[sig.extents[k].symbol] = k;
      extentBounds_.emplace(sig.extents[k].symbol, sig.extents[k].bound);
    }
    extents_ = sig.extents;
  }
  std::set<std::string> predeclared(sig.symbols.begin(), sig.symbols.end());
  DCW_CHECK(emitSdfgBody(root_, rootCtx, predeclared));
  DCW_CHECK(drive());
  if (hasCpp_) line("if (dcw_cpp::failed()) return dcw_rt::report(error, errorSize, dcw_cpp::message());");
  emitProgramEnd();
  line("return dcw_rt::finish(error, errorSize);");
  --indent_;
  line("}");
  if (instrumented) {
    endProfile();
    DCW_CHECK(instrumenter_.checkEveryPathTimed());
    line("");
    line("extern \"C\" size_t dcw_profile_element_count() { return " + std::to_string(instrumenter_.count()) + "u; }");
    result.profiled = instrumenter_.take();
  }

  if (!deferred_.empty()) {
    out_.insert(deferAt, deferred_);
    for (auto& e : sourceMap_)
      if (e.file.empty() && e.firstLine > deferLine) {
        e.firstLine += deferredLines_;
        e.lastLine += deferredLines_;
      }
    for (auto& e : deferredMap_) {
      e.firstLine += deferLine;
      e.lastLine += deferLine;
      sourceMap_.push_back(std::move(e));
    }
  }
  std::sort(sourceMap_.begin(), sourceMap_.end(), [](const SourceMapEntry& a, const SourceMapEntry& b) {
    if (a.firstLine != b.firstLine) return a.firstLine < b.firstLine;
    return a.lastLine > b.lastLine;
  });
  result.target = targetName_;
  result.source = std::move(out_);
  result.sourceMap = std::move(sourceMap_);
  return result;
}

Expected<std::string> SdfgWalker::sym(const sym::Expr& e, const std::string& where) {
  using sym::Op;
  auto list = [&](const std::string& sep, const std::string& open, const std::string& close) -> Expected<std::string> {
    std::string s = open;
    bool first = true;
    for (auto& o : e.operands()) {
      auto t = sym(o, where);
      if (!t) return t;
      if (!first) s += sep;
      s += *t;
      first = false;
    }
    return s + close;
  };
  auto nested = [&](const std::string& fn) -> Expected<std::string> {
    // n-ary min/max folded into binary helper calls
    auto& ops = e.operands();
    if (ops.empty()) return std::string("0");
    auto acc = sym(ops[0], where);
    if (!acc) return acc;
    std::string s = *acc;
    for (size_t i = 1; i < ops.size(); ++i) {
      auto t = sym(ops[i], where);
      if (!t) return t;
      s = fn + "(" + s + ", " + *t + ")";
    }
    return s;
  };
  auto binaryCall = [&](const std::string& fn) -> Expected<std::string> {
    if (e.operands().size() != 2) return fail(where, "malformed symbolic expression '" + e.str() + "'");
    auto a = sym(e.operands()[0], where);
    if (!a) return a;
    auto b = sym(e.operands()[1], where);
    if (!b) return b;
    return fn + "(" + *a + ", " + *b + ")";
  };
  switch (e.op()) {
  case Op::Const: {
    int64_t v = *e.constantValue();
    if (v == INT64_MIN) return std::string("(-9223372036854775807LL - 1)");
    std::string s = std::to_string(v);
    if (v > 2147483647LL || v < -2147483647LL) s += "LL";
    return v < 0 ? "(" + s + ")" : s;
  }
  case Op::Symbol: {
    const std::string& name = e.symbolName();
    if (auto it = ctx_->symbols.find(name); it != ctx_->symbols.end()) return it->second;
    // Scalar data used as a symbol (interstate conditions may read one).
    if (auto* d = ctx_->sdfg->findData(name); d && ctx_->data.count(name)) {
      if (!cpu::kindOf(d->dtype)) return fail(where, "data '" + name + "' cannot be used as an integer symbol");
      return cpu::loadValue(d->dtype, controlFlowRead(name, ctx_->data.at(name)), ValueKind::Int);
    }
    return fail(where, "symbol '" + name + "' is not defined in SDFG '" + ctx_->sdfg->name() + "'",
                "declare it (Sdfg::addSymbol), assign it on an interstate edge, or map it from the outer SDFG");
  }
  case Op::Add: return list(" + ", "(", ")");
  case Op::Mul: return list(" * ", "(", ")");
  case Op::FloorDiv: return binaryCall("dcw_rt::floordiv");
  case Op::Mod: return binaryCall("dcw_rt::floormod");
  case Op::Min: return nested("dcw_rt::imin");
  case Op::Max: return nested("dcw_rt::imax");
  case Op::Eq: return list(" == ", "(", ")");
  case Op::Ne: return list(" != ", "(", ")");
  case Op::Lt: return list(" < ", "(", ")");
  case Op::Le: return list(" <= ", "(", ")");
  case Op::Gt: return list(" > ", "(", ")");
  case Op::Ge: return list(" >= ", "(", ")");
  case Op::And: return list(" && ", "(", ")");
  case Op::Or: return list(" || ", "(", ")");
  case Op::Not: {
    auto a = list("", "(!", ")");
    return a;
  }
  }
  return fail(where, "unsupported symbolic expression '" + e.str() + "'");
}

Expected<const DataDescriptor*> SdfgWalker::descriptor(const std::string& name, const std::string& where) const {
  const DataDescriptor* d = ctx_->sdfg->findData(name);
  if (!d) return fail(where, "data '" + name + "' is not declared in SDFG '" + ctx_->sdfg->name() + "'");
  return d;
}

Expected<std::string> SdfgWalker::pointer(const std::string& name, const std::string& where) const {
  auto it = ctx_->data.find(name);
  if (it == ctx_->data.end())
    return fail(where, "data '" + name + "' is not available here (a transient used outside the scope it is allocated in?)");
  return it->second;
}

Expected<std::string> SdfgWalker::offsetOf(const DataDescriptor& d, const std::vector<sym::Expr>& index,
                                          const std::string& where) {
  sym::Expr off = d.offset;
  if (d.dataKind == DataKind::Scalar || d.shape.empty()) {
    for (auto& i : index) off = off + i; // a scalar: only index 0 is valid
  } else {
    if (index.size() != d.shape.size())
      return fail(where, "an access to '" + d.name() + "' has " + std::to_string(index.size()) + " indices but the data has " +
                             std::to_string(d.shape.size()) + " dimensions");
    off = elementAddress(d, index);
  }
  return sym(off, where);
}

Expected<std::string> SdfgWalker::offsetOf(const DataDescriptor& d, const Subset& s, const std::string& where) {
  std::vector<sym::Expr> begin;
  for (auto& r : s.ranges()) begin.push_back(r.begin);
  // A part of an array with channels in blocks is no array of its own (its elements are not at strides
  // from its first): one element or the whole array.
  if (d.channelBlock > 0 && s.volume() != sym::Expr(1)) {
    bool whole = s.rank() == d.shape.size();
    for (size_t k = 0; whole && k < s.rank(); ++k)
      whole = s[k].begin == sym::Expr(0) && s[k].end == d.shape[k] && s[k].step == sym::Expr(1);
    if (!whole)
      return fail(where, "an access to [" + s.str() + "] of '" + d.name() + "', whose channels are in blocks (" + d.blockedLayoutName() +
                             "), is neither one element nor the whole array",
                  "store '" + d.name() + "' row-major (undo BlockedLayout), or access it element by element");
  }
  return offsetOf(d, begin, where);
}

Expected<void> SdfgWalker::emitSdfgBody(const Sdfg& s, Ctx& c, const std::set<std::string>& predeclared) {
  // Symbols assigned by control flow (interstate edges, loop variables), declared once up front so
  // that gotos never cross an initialisation.
  std::vector<std::string> cf;
  std::function<void(const ControlFlowBlock&)> collect = [&](const ControlFlowBlock& b) {
    auto add = [&](const std::string& n) {
      if (!predeclared.count(n) && std::find(cf.begin(), cf.end(), n) == cf.end()) cf.push_back(n);
    };
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      for (auto& e : r->edges())
        for (auto& [n, v] : e->assignments) add(n);
      if (auto* l = dynamic_cast<const LoopRegion*>(r); l && !l->loopVariable.empty()) add(l->loopVariable);
      for (auto& ch : r->blocks()) collect(*ch);
    } else if (auto* cr = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : cr->branches()) collect(*br);
    }
  };
  collect(s);
  for (auto& n : cf) {
    if (!sym::isIdentifier(n)) return fail(path(s.id()), "control-flow symbol '" + n + "' is not an identifier");
    std::string id = fresh(n);
    line("int64_t " + id + " = 0;");
    line("(void)" + id + ";");
    c.symbols[n] = id;
  }
  // Constants of nested SDFGs (the root's are arguments) are embedded in the program.
  if (&s != &root_)
    for (auto& d : s.data())
      if (d->constant && !c.data.count(d->name())) DCW_CHECK(embedConstant(*d, c));
  DCW_CHECK(planTransients(s, c));
  for (auto* d : c.sdfgAlloc) DCW_CHECK(allocateOrBind(*d, c));
  return emitRegion(s);
}

// The bytes go in as one string literal of \xHH escapes (fast to compile even when large) and are
// decoded once into an aligned buffer by a function-local static (thread-safe initialisation).
Expected<void> SdfgWalker::embedConstant(const DataDescriptor& d, Ctx& c) {
  std::string where = path(d.id());
  std::string t = cpu::storageType(d.dtype);
  const Tensor& v = *d.constant;
  if (t.empty() || !v.bytes || v.dtype != d.dtype)
    return fail(where, "constant '" + d.name() + "' has a type the CPU target cannot embed");
  auto total = d.totalSize().constantValue();
  if (total && static_cast<int64_t>(v.byteSize()) != *total * static_cast<int64_t>(dtypeSize(d.dtype)))
    return fail(where, "constant '" + d.name() + "' holds " + std::to_string(v.byteSize()) + " bytes, which does not match its shape");
  std::string id = fresh(d.name());
  std::string raw = fresh(d.name() + "_bytes");
  static const char* hex = "0123456789abcdef";
  const std::string& bytes = *v.bytes;
  line("static const char " + raw + "[] = // " + commentText(d.name()) + ", " + std::to_string(bytes.size()) + " bytes");
  ++indent_;
  if (bytes.empty()) line("\"\"");
  for (size_t k = 0; k < bytes.size(); k += 32) {
    std::string l = "\"";
    for (size_t j = k; j < std::min(bytes.size(), k + 32); ++j) {
      unsigned char b = static_cast<unsigned char>(bytes[j]);
      l += "\\x";
      l += hex[b >> 4];
      l += hex[b & 15];
    }
    l += "\"";
    line(l);
  }
  line(";");
  --indent_;
  line("static " + t + "* const " + id + " = dcw_rt::decode<" + t + ">(" + raw + ", sizeof(" + raw + ") - 1);");
  if (insideParallelLoop()) line("if (!" + id + ") { dcw_rt::set_oom(); continue; }");
  else line("if (!" + id + ") return dcw_rt::report(error, errorSize, \"out of memory decoding a constant\");");
  c.data[d.name()] = id;
  return {};
}

Expected<void> SdfgWalker::planTransients(const Sdfg& s, Ctx& c) {
  // Where each transient is used: (state, innermost scope) pairs.
  std::map<std::string, std::vector<std::pair<const State*, const MapEntry*>>> uses;
  const std::set<std::string> controlFlowData = namesReadByControlFlow(s);
  // Scopes per state, computed once: asking again per transient made a 5,000-node program quadratic.
  std::map<const State*, std::map<ElementId, const MapEntry*>> scopesOf;
  for (State* st : s.allStates()) {
    auto computed = st->scopeOf();
    if (!computed) return fail(path(st->id()), computed.error().message, computed.error().hint);
    auto* scopes = &(scopesOf[st] = std::move(*computed));
    auto scopeOfNode = [&](ElementId id) -> const MapEntry* {
      auto it = scopes->find(id);
      return it == scopes->end() ? nullptr : it->second;
    };
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get())) uses[a->data()].push_back({st, scopeOfNode(a->id())});
    for (auto& e : st->edges()) {
      if (e->memlet.isEmpty()) continue;
      Node* src = st->node(e->src);
      Node* dst = st->node(e->dst);
      if (src && dst && src->kind() != ElementKind::AccessNode && dst->kind() != ElementKind::AccessNode &&
          src->kind() != ElementKind::MapEntry && dst->kind() != ElementKind::MapExit)
        uses[e->memlet.data].push_back({st, scopeOfNode(src->id())});
    }
  }
  for (auto& dp : s.data()) {
    const DataDescriptor& d = *dp;
    if (!d.transient || d.constant) continue;
    if (d.dataKind == DataKind::Stream && !streamsAllowed())
      return fail(path(d.id()), "stream data is not supported by the " + targetName_ + " target",
                  "streams connect FPGA processing elements: compile with --target fpga-sim or fpga");
    auto it = uses.find(d.name());
    if (it == uses.end() && !controlFlowData.count(d.name())) continue; // never used: never allocated
    std::set<const State*> states;
    if (it != uses.end())
      for (auto& u : it->second) states.insert(u.first);
    bool wholeSdfg = d.lifetime == Lifetime::Sdfg || d.lifetime == Lifetime::Persistent ||
                     d.lifetime == Lifetime::External || states.size() != 1 || controlFlowData.count(d.name());
    if (wholeSdfg) {
      c.sdfgAlloc.push_back(&d);
      continue;
    }
    const State* st = *states.begin();
    const MapEntry* place = nullptr;
    if (d.lifetime == Lifetime::Scope) {
      // Innermost scope that contains every use.
      const auto* scopes = &scopesOf.at(st);
      auto chain = [&](const MapEntry* m) {
        std::vector<const MapEntry*> v;
        for (; m; m = scopes->count(m->id()) ? scopes->at(m->id()) : nullptr) v.insert(v.begin(), m);
        return v;
      };
      std::vector<const MapEntry*> common;
      bool first = true;
      for (auto& u : it->second) {
        auto ch = chain(u.second);
        if (first) {
          common = ch;
          first = false;
          continue;
        }
        size_t k = 0;
        while (k < common.size() && k < ch.size() && common[k] == ch[k]) ++k;
        common.resize(k);
      }
      place = common.empty() ? nullptr : common.back();
    }
    c.scopeAlloc[st][place].push_back(&d);
  }
  // Views after everything else, so the arrays they show are bound first.
  auto viewsLast = [](std::vector<const DataDescriptor*>& list) {
    std::stable_partition(list.begin(), list.end(), [](const DataDescriptor* d) { return d->dataKind != DataKind::View; });
  };
  viewsLast(c.sdfgAlloc);
  for (auto& [st, places] : c.scopeAlloc)
    for (auto& [place, list] : places) viewsLast(list);
  return {};
}

Expected<void> SdfgWalker::emitAssignments(const InterstateEdge& e) {
  std::string where = path(e.id());
  if (e.assignments.empty()) return {};
  if (e.assignments.size() == 1) {
    auto& [n, v] = e.assignments[0];
    auto value = sym(v, where);
    if (!value) return value.takeError();
    auto it = ctx_->symbols.find(n);
    if (it == ctx_->symbols.end()) return fail(where, "assigns symbol '" + n + "', which is not declared");
    line(it->second + " = " + *value + ";");
    return emitExtent(n, it->second, where);
  }
  // All right-hand sides see the values from before the edge.
  line("{");
  ++indent_;
  std::vector<std::string> temps;
  for (auto& [n, v] : e.assignments) {
    auto value = sym(v, where);
    if (!value) return value.takeError();
    std::string t = fresh("next_" + n);
    line("const int64_t " + t + " = " + *value + ";");
    temps.push_back(t);
  }
  for (size_t k = 0; k < e.assignments.size(); ++k) {
    auto it = ctx_->symbols.find(e.assignments[k].first);
    if (it == ctx_->symbols.end()) return fail(where, "assigns symbol '" + e.assignments[k].first + "', which is not declared");
    line(it->second + " = " + temps[k] + ";");
    DCW_CHECK(emitExtent(e.assignments[k].first, it->second, where));
  }
  --indent_;
  line("}");
  return {};
}

// After the root assigns a data-dependent extent: checked against its bound (the data alive across
// states and the outputs were allocated for it), then returned to the caller.
Expected<void> SdfgWalker::emitExtent(const std::string& symbol, const std::string& id, const std::string& where) {
  if (ctx_->sdfg != &root_) return {};
  auto it = extentIndex_.find(symbol);
  if (it == extentIndex_.end()) return {};
  const ProgramExtent& x = extents_[it->second];
  auto bound = sym(x.bound, where);
  if (!bound) return bound.takeError();
  line("if (" + id + " < 0 || " + id + " > " + *bound + ") return dcw_rt::report(error, errorSize, \"" +
       commentText(x.node) + ": its count is outside 0.." + commentText(x.bound.str()) + "\");");
  line(extentsId_ + "[" + std::to_string(it->second) + "] = " + id + ";");
  return {};
}

sym::Expr SdfgWalker::atBounds(const sym::Expr& e) const {
  return extentBounds_.empty() ? e : e.substitute(extentBounds_);
}

Expected<void> SdfgWalker::emitRegion(const ControlFlowRegion& r) {
  if (r.blocks().empty()) return {};
  std::string where = path(r.id());
  const ControlFlowBlock* start = r.block(r.startBlock());
  if (!start) start = r.blocks().front().get();

  // A simple chain (each block has at most one unconditional successor, entered only from its
  // predecessor) is emitted as straight-line code.
  std::vector<const ControlFlowBlock*> chain;
  std::vector<const InterstateEdge*> chainEdges;
  bool isChain = r.inEdges(start->id()).empty();
  std::set<const ControlFlowBlock*> seen;
  for (const ControlFlowBlock* cur = start; isChain && cur;) {
    seen.insert(cur);
    chain.push_back(cur);
    auto outs = r.outEdges(cur->id());
    if (outs.empty()) break;
    if (outs.size() > 1 || !outs[0]->isUnconditional()) {
      isChain = false;
      break;
    }
    const ControlFlowBlock* next = r.block(outs[0]->dst);
    if (!next || seen.count(next) || r.inEdges(next->id()).size() != 1) {
      isChain = false;
      break;
    }
    chainEdges.push_back(outs[0]);
    cur = next;
  }
  if (isChain) {
    std::vector<Step> steps;
    for (size_t k = 0; k < chain.size(); ++k) {
      const ControlFlowBlock* b = chain[k];
      steps.push_back([this, b] { return emitBlock(*b); });
      if (k < chainEdges.size()) {
        const InterstateEdge* e = chainEdges[k];
        steps.push_back([this, e] { return emitAssignments(*e); });
      }
    }
    then(std::move(steps));
    return {};
  }

  // General form: labelled blocks, gotos along the interstate edges (first true condition wins).
  std::vector<const ControlFlowBlock*> order{start};
  std::set<const ControlFlowBlock*> reachable{start};
  for (size_t k = 0; k < order.size(); ++k)
    for (auto* e : r.outEdges(order[k]->id()))
      if (auto* b = r.block(e->dst); b && reachable.insert(b).second) order.push_back(b);
  // Keep the region's own block order for readability (start first).
  std::vector<const ControlFlowBlock*> emitOrder{start};
  for (auto& b : r.blocks())
    if (b.get() != start && reachable.count(b.get())) emitOrder.push_back(b.get());
  // Shared by the steps below: the labels, and whether a block jumps to the end.
  struct Gotos {
    std::map<ElementId, std::string> labels;
    std::string endLabel;
    bool endUsed = false;
  };
  auto g = std::make_shared<Gotos>();
  for (auto* b : emitOrder)
    for (auto* e : r.outEdges(b->id()))
      if (!g->labels.count(e->dst)) g->labels[e->dst] = std::string("L") + std::to_string(++labels_);
  g->endLabel = std::string("L") + std::to_string(++labels_);
  line("{ // control flow of " + commentText(where));
  ++indent_;
  std::vector<Step> steps;
  for (size_t k = 0; k < emitOrder.size(); ++k) {
    const ControlFlowBlock* b = emitOrder[k];
    const bool last = k + 1 == emitOrder.size();
    steps.push_back([this, b, g] {
      if (auto it = g->labels.find(b->id()); it != g->labels.end()) {
        --indent_;
        line(it->second + ":;");
        ++indent_;
      }
      return emitBlock(*b);
    });
    steps.push_back([this, &r, b, g, last]() -> Expected<void> {
      bool unconditional = false;
      for (auto* e : r.outEdges(b->id())) {
        if (!r.block(e->dst)) return fail(path(e->id()), "interstate edge leads to a block outside region '" + r.label() + "'");
        if (e->isUnconditional()) {
          line("{");
        } else {
          auto cond = sym(e->condition, path(e->id()));
          if (!cond) return cond.takeError();
          line("if (" + *cond + ") {");
        }
        ++indent_;
        DCW_CHECK(emitAssignments(*e));
        line("goto " + g->labels.at(e->dst) + ";");
        --indent_;
        line("}");
        if (e->isUnconditional()) {
          unconditional = true;
          break;
        }
      }
      if (!unconditional && !last) {
        line("goto " + g->endLabel + ";");
        g->endUsed = true;
      }
      return {};
    });
  }
  steps.push_back([this, g]() -> Expected<void> {
    --indent_;
    if (g->endUsed) line(g->endLabel + ":;");
    line("}");
    return {};
  });
  then(std::move(steps));
  return {};
}

Expected<void> SdfgWalker::emitBlock(const ControlFlowBlock& b) {
  std::string where = path(b.id());
  if (auto* st = dynamic_cast<const State*>(&b)) return emitState(*st);
  if (auto* loop = dynamic_cast<const LoopRegion*>(&b)) {
    int first = nextLine();
    auto cond = sym(loop->condition, where);
    if (!cond) return cond.takeError();
    if (loop->loopVariable.empty()) {
      line("while (" + *cond + ") { // loop " + commentText(where));
    } else {
      auto it = ctx_->symbols.find(loop->loopVariable);
      if (it == ctx_->symbols.end()) return fail(where, "loop variable '" + loop->loopVariable + "' is not declared");
      auto init = sym(loop->init, where);
      if (!init) return init.takeError();
      auto update = sym(loop->update, where);
      if (!update) return update.takeError();
      line("for (" + it->second + " = " + *init + "; " + *cond + "; " + it->second + " = " + *update + ") { // loop " +
           commentText(where));
    }
    ++indent_;
    const ElementId id = b.id();
    then({[this, loop] { return emitRegion(*loop); },
          [this, first, id]() -> Expected<void> {
            --indent_;
            line("}");
            record(first, id);
            return {};
          }});
    return {};
  }
  if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
    int first = nextLine();
    line("// conditional " + commentText(where));
    std::vector<Step> steps;
    for (size_t k = 0; k < c->branches().size(); ++k) {
      const BranchRegion* br = c->branches()[k].get();
      const bool open = k > 0;
      steps.push_back([this, br, open]() -> Expected<void> {
        if (br->condition) {
          auto cond = sym(*br->condition, path(br->id()));
          if (!cond) return cond.takeError();
          line(std::string(open ? "} else if (" : "if (") + *cond + ") {");
        } else {
          line(open ? "} else {" : "{");
        }
        ++indent_;
        return emitRegion(*br);
      });
      steps.push_back([this]() -> Expected<void> {
        --indent_;
        return {};
      });
      if (!br->condition) break; // an else ends the chain
    }
    const bool any = !c->branches().empty();
    const ElementId id = b.id();
    steps.push_back([this, any, first, id]() -> Expected<void> {
      if (any) line("}");
      record(first, id);
      return {};
    });
    then(std::move(steps));
    return {};
  }
  if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
    line("{");
    ++indent_;
    then({[this, r] { return emitRegion(*r); },
          [this]() -> Expected<void> {
            --indent_;
            line("}");
            return {};
          }});
    return {};
  }
  return fail(where, "control-flow block of kind " + std::string(elementKindName(b.kind())) + " is not supported");
}

void SdfgWalker::append(Fragment& to, Fragment from) {
  const int lines = int(std::count(to.text.begin(), to.text.end(), '\n'));
  for (auto& e : from.map) {
    e.firstLine += lines;
    e.lastLine += lines;
    to.map.push_back(std::move(e));
  }
  to.text += from.text;
}

Expected<SdfgWalker::Fragment> SdfgWalker::aside(Ctx& ctx, const std::function<Expected<void>()>& body) {
  std::string savedOut = std::move(out_);
  out_.clear();
  const int savedLine = line_, savedIndent = indent_, savedDepth = mapDepth_;
  const bool savedKernel = inKernel_, savedMarks = progressMarks_;
  std::vector<SourceMapEntry> savedMap = std::move(sourceMap_);
  sourceMap_.clear();
  std::vector<Step> savedSteps = std::move(steps_);
  steps_.clear();
  Ctx* savedCtx = ctx_;
  line_ = 0;
  indent_ = 0;
  mapDepth_ = 0;
  ctx_ = &ctx;
  inKernel_ = true;
  progressMarks_ = false;
  auto r = body();
  Fragment f{std::move(out_), std::move(sourceMap_)};
  out_ = std::move(savedOut);
  sourceMap_ = std::move(savedMap);
  steps_ = std::move(savedSteps);
  line_ = savedLine;
  indent_ = savedIndent;
  mapDepth_ = savedDepth;
  ctx_ = savedCtx;
  inKernel_ = savedKernel;
  progressMarks_ = savedMarks;
  if (!r) return r.takeError();
  return f;
}

Expected<std::shared_ptr<SdfgWalker::StateInfo>> SdfgWalker::stateInfo(const State& st) {
  auto scopes = StateScopes::of(st);
  if (!scopes) return fail(path(st.id()), scopes.error().message, scopes.error().hint);
  return std::make_shared<StateInfo>(std::move(*scopes));
}

Expected<void> SdfgWalker::emitState(const State& st) {
  std::string where = path(st.id());
  // Shared with the steps of the state's nodes and maps, which refer to it until the closing step.
  auto scopes = StateScopes::of(st);
  if (!scopes) return fail(where, scopes.error().message, scopes.error().hint);
  auto si = std::make_shared<StateInfo>(std::move(*scopes));
  int first = nextLine();
  line("{ // state " + commentText(where));
  ++indent_;
  markProgress(st.id());
  const bool timed = wantProfile(ProfiledElement::Kind::State, st.id());
  if (timed) beginProfile(ProfiledElement::Kind::State, st.id());
  DCW_CHECK(planStateStorage(*si));
  DCW_CHECK(allocateScope(*si, nullptr));
  then({[this, si] { return emitScope(*si, nullptr); },
        [this, si, timed, first]() -> Expected<void> {
          if (timed) endProfile();
          --indent_;
          line("}");
          record(first, si->state->id());
          return {};
        }});
  return {};
}

Expected<void> SdfgWalker::emitScope(const StateInfo& si, const MapEntry* scope) {
  auto it = si.children.find(scope);
  if (it == si.children.end()) return {};
  std::vector<Step> steps;
  steps.reserve(it->second.size());
  for (const Node* n : it->second) steps.push_back([this, &si, n] { return emitNode(si, *n); });
  then(std::move(steps));
  return {};
}

Expected<void> SdfgWalker::emitNode(const StateInfo& si, const Node& n) {
  switch (n.kind()) {
  case ElementKind::AccessNode: {
    // A view's edge moves nothing: the view has the storage of the array it shows (core/ir/View.h).
    const DataDescriptor* data = ctx_->sdfg ? ctx_->sdfg->findData(static_cast<const AccessNode&>(n).data()) : nullptr;
    if (data && data->dataKind == DataKind::View) return {};
    for (auto* e : si.state->inEdges(n.id())) {
      const Node* src = si.state->node(e->src);
      if (!src || src->kind() != ElementKind::AccessNode || e->memlet.isEmpty()) continue;
      // Nor does the edge of a view written through: its writers wrote the array's elements in place.
      // (A view that is read may be copied into another array: that edge is a copy.)
      if (ctx_->writtenThrough.count(e)) continue;
      DCW_CHECK(emitCopy(si, *e, static_cast<const AccessNode&>(*src), static_cast<const AccessNode&>(n)));
    }
    return {};
  }
  case ElementKind::Tasklet: return emitTasklet(si, static_cast<const Tasklet&>(n));
  case ElementKind::MapEntry: return emitMap(si, static_cast<const MapEntry&>(n));
  case ElementKind::NestedSdfg: return emitNested(si, static_cast<const NestedSdfgNode&>(n));
  case ElementKind::LibraryNode: {
    auto& l = static_cast<const LibraryNode&>(n);
    std::string where = path(n.id());
    return fail(where, "node '" + where + "' (" + l.className() + ") is not expanded; run the expansion pass or pick an implementation",
                "expand library nodes (dcw expand, or the expansion pass) before generating code");
  }
  default: return {};
  }
}

void SdfgWalker::collectSubtree(const StateInfo& si, const MapEntry* scope, std::vector<const Node*>& out) const {
  auto it = si.children.find(scope);
  if (it == si.children.end()) return;
  for (const Node* n : it->second) {
    out.push_back(n);
    if (auto* me = dynamic_cast<const MapEntry*>(n)) collectSubtree(si, me, out);
  }
}

Expected<void> SdfgWalker::emitTasklet(const StateInfo& si, const Tasklet& t) {
  std::string where = path(t.id());
  if (t.language == TaskletLanguage::Cpp) return emitCppTasklet(si, t);
  auto prog = tasklet::parse(t.code, where);
  if (!prog) return prog.takeError();
  cpu::TaskletPrinter pr(where);
  pr.setSymbolResolver([this](const std::string& name) -> std::optional<cpu::TaskletName> {
    auto it = ctx_->symbols.find(name);
    if (it == ctx_->symbols.end()) return std::nullopt;
    return cpu::TaskletName{it->second, ValueKind::Int, false, DType::Int64, false};
  });
  std::set<std::string> outNames;
  for (auto& c : t.outConnectors()) outNames.insert(c.name);
  auto written = tasklet::writtenNames(*prog);
  std::set<std::string> assigned(written.begin(), written.end());

  int first = nextLine();
  line("{ // tasklet " + commentText(where));
  ++indent_;
  markProgress(t.id());
  const bool timed = wantProfileNamed(t.id());
  if (timed) beginProfile(ProfiledElement::Kind::Tasklet, t.id());
  std::set<std::string> declared;
  for (auto* e : si.state->inEdges(t.id())) {
    if (e->memlet.isEmpty() || e->dstConnector.empty()) continue;
    const Connector* conn = t.findIn(e->dstConnector);
    if (!conn) return fail(where, "an edge enters connector '" + e->dstConnector + "', which the tasklet does not have");
    if (!sym::isIdentifier(conn->name)) return fail(where, "connector '" + conn->name + "' is not an identifier");
    auto d = descriptor(e->memlet.data, path(e->id()));
    if (!d) return d.takeError();
    auto ptr = pointer(e->memlet.data, path(e->id()));
    if (!ptr) return ptr.takeError();
    auto off = offsetOf(**d, e->memlet.subset, path(e->id()));
    if (!off) return off.takeError();
    DType storage = (*d)->dtype;
    auto k = cpu::kindOf(conn->dtype != DType::Undefined ? conn->dtype : storage);
    if (!k || cpu::storageType(storage).empty())
      return fail(where, "input '" + conn->name + "' has a type the CPU target does not support");
    std::string id = pr.localId(conn->name);
    bool scalar = (*d)->dataKind == DataKind::Scalar || e->memlet.subset.volume() == sym::Expr(1);
    bool inout = outNames.count(conn->name) > 0;
    if ((*d)->dataKind == DataKind::Stream) { // one element popped (a blocking read)
      line("const " + cpu::cppType(*k) + " " + id + " = " + cpu::loadValue(storage, *ptr + ".read()", *k) + ";");
      pr.bind(conn->name, {id, *k, false, storage, false});
    } else if (scalar) {
      line(std::string(inout ? "" : "const ") + cpu::cppType(*k) + " " + id + " = " +
           cpu::loadValue(storage, *ptr + "[" + *off + "]", *k) + ";");
      pr.bind(conn->name, {id, *k, false, storage, inout});
    } else {
      line("const " + cpu::storageType(storage) + "* " + id + " = " + *ptr + " + " + *off + ";");
      pr.bind(conn->name, {id, *k, true, storage, false});
    }
    line("(void)" + id + ";");
    declared.insert(conn->name);
  }
  // Outputs: locals written back after the statements.
  struct Out {
    std::string name, id;
    ValueKind kind;
  };
  std::vector<Out> outs;
  for (auto& c : t.outConnectors()) {
    if (!sym::isIdentifier(c.name)) return fail(where, "connector '" + c.name + "' is not an identifier");
    DType dt = c.dtype;
    if (dt == DType::Undefined)
      for (auto* e : si.state->outEdges(t.id()))
        if (e->srcConnector == c.name && !e->memlet.isEmpty())
          if (auto* d = ctx_->sdfg->findData(e->memlet.data)) {
            dt = d->dtype;
            break;
          }
    auto k = cpu::kindOf(dt == DType::Undefined ? DType::Float32 : dt);
    if (!k) return fail(where, "output '" + c.name + "' has a type the CPU target does not support");
    std::string id = pr.localId(c.name);
    if (!declared.count(c.name)) {
      line(cpu::cppType(*k) + " " + id + " = 0;");
      pr.bind(c.name, {id, *k, false, dt, true});
    }
    outs.push_back({c.name, id, *k});
  }
  auto lines = pr.print(*prog);
  if (!lines) return lines.takeError();
  for (auto& l : *lines) line(l);
  for (auto& o : outs) {
    if (!assigned.count(o.name)) continue; // never assigned: nothing to write (a dynamic output)
    for (auto* e : si.state->outEdges(t.id())) {
      if (e->srcConnector != o.name || e->memlet.isEmpty()) continue;
      std::string ew = path(e->id());
      auto d = descriptor(e->memlet.data, ew);
      if (!d) return d.takeError();
      auto ptr = pointer(e->memlet.data, ew);
      if (!ptr) return ptr.takeError();
      if ((*d)->dataKind == DataKind::Stream) { // one element pushed (a blocking write)
        line(*ptr + ".write(" + cpu::storeValue((*d)->dtype, o.id, o.kind) + ");");
        continue;
      }
      if ((*d)->dataKind != DataKind::Scalar && e->memlet.subset.volume() != sym::Expr(1))
        return fail(ew, "output '" + o.name + "' writes [" + e->memlet.subset.str() + "], more than one element",
                    "a tasklet output is one element; use a map around the tasklet");
      auto off = offsetOf(**d, e->memlet.subset, ew);
      if (!off) return off.takeError();
      DCW_CHECK(emitWrite(**d, *ptr + "[" + *off + "]", o.id, o.kind, e->memlet.wcr,
                        needsAtomic(e->memlet.data, e->memlet.subset), ew));
    }
  }
  if (timed) endProfile();
  --indent_;
  line("}");
  record(first, t.id());
  return {};
}

Expected<void> SdfgWalker::emitNested(const StateInfo& si, const NestedSdfgNode& n) {
  std::string where = path(n.id());
  const Sdfg& inner = n.sdfg();
  int first = nextLine();
  line("{ // nested SDFG " + commentText(where));
  ++indent_;
  markProgress(n.id());
  const bool timed = wantProfile(ProfiledElement::Kind::NestedSdfg, n.id());
  if (timed) beginProfile(ProfiledElement::Kind::NestedSdfg, n.id());
  auto cp = std::make_shared<Ctx>(); // what the nested body's steps see, until the closing step
  Ctx& c = *cp;
  c.sdfg = &inner;

  // Symbols: the mapping, evaluated in the outer SDFG.
  std::set<std::string> assigned;
  std::function<void(const ControlFlowBlock&)> collect = [&](const ControlFlowBlock& b) {
    if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      for (auto& e : r->edges())
        for (auto& [nm, v] : e->assignments) assigned.insert(nm);
      if (auto* l = dynamic_cast<const LoopRegion*>(r); l && !l->loopVariable.empty()) assigned.insert(l->loopVariable);
      for (auto& ch : r->blocks()) collect(*ch);
    } else if (auto* cr = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : cr->branches()) collect(*br);
    }
  };
  collect(inner);
  for (auto& [name, type] : inner.symbols())
    if (!n.symbolMapping.count(name))
      return fail(where, "nested symbol '" + name + "' is not mapped", "add it to the node's symbol mapping");
  std::set<std::string> predeclared;
  for (auto& [name, value] : n.symbolMapping) {
    if (!sym::isIdentifier(name)) return fail(where, "mapped symbol '" + name + "' is not an identifier");
    auto v = sym(value, where);
    if (!v) return v.takeError();
    std::string id = fresh(name);
    line(std::string(assigned.count(name) ? "" : "const ") + "int64_t " + id + " = " + *v + ";");
    line("(void)" + id + ";");
    c.symbols[name] = id;
    predeclared.insert(name);
  }

  // Data: each non-transient nested container points into the outer data at the memlet's begin.
  struct Binding {
    const DataflowEdge* edge = nullptr;
    bool written = false;
  };
  std::map<std::string, Binding> bindings;
  for (auto* e : si.state->inEdges(n.id()))
    if (!e->memlet.isEmpty() && !e->dstConnector.empty()) bindings[e->dstConnector].edge = e;
  for (auto* e : si.state->outEdges(n.id()))
    if (!e->memlet.isEmpty() && !e->srcConnector.empty()) {
      auto& b = bindings[e->srcConnector];
      if (!b.edge) b.edge = e;
      b.written = true;
    }
  std::map<std::string, int> outerUses, outerWrites;
  for (auto& [name, b] : bindings) {
    ++outerUses[b.edge->memlet.data];
    if (b.written) ++outerWrites[b.edge->memlet.data];
  }
  for (auto& dp : inner.data()) {
    const DataDescriptor& d = *dp;
    if (d.transient) continue;
    std::string t = cpu::storageType(d.dtype);
    if (t.empty()) return fail(path(d.id()), "data '" + d.name() + "' has a type the CPU target does not support");
    std::string id = fresh(d.name());
    auto it = bindings.find(d.name());
    if (it == bindings.end()) {
      line(t + "* " + id + " = nullptr; // " + commentText(d.name()) + " (unconnected)");
    } else {
      const DataflowEdge& e = *it->second.edge;
      std::string ew = path(e.id());
      auto od = descriptor(e.memlet.data, ew);
      if (!od) return od.takeError();
      if ((*od)->dtype != d.dtype)
        return fail(ew, "nested data '" + d.name() + "' is " + std::string(dtypeName(d.dtype)) + " but the outer data '" +
                            e.memlet.data + "' is " + std::string(dtypeName((*od)->dtype)));
      auto ptr = pointer(e.memlet.data, ew);
      if (!ptr) return ptr.takeError();
      auto off = offsetOf(**od, e.memlet.subset, ew);
      if (!off) return off.takeError();
      const std::string& outer = e.memlet.data;
      bool restrict = outerUses[outer] == 1 || outerWrites[outer] == 0;
      line(t + "* " + (restrict ? "__restrict " : "") + id + " = " + *ptr + " + " + *off + "; // " + commentText(d.name()));
      if (ctx_->privateData.count(outer)) c.privateData.insert(d.name());
      if (it->second.written && !needsAtomic(outer, e.memlet.subset)) c.safeOuter.insert(d.name());
    }
    line("(void)" + id + ";");
    c.data[d.name()] = id;
  }
  Ctx* outerCtx = ctx_;
  const ElementId id = n.id();
  then({[this, &inner, cp, predeclared = std::move(predeclared)] {
          ctx_ = cp.get();
          return emitSdfgBody(inner, *cp, predeclared);
        },
        [this, cp, outerCtx, timed, first, id]() -> Expected<void> {
          ctx_ = outerCtx;
          if (timed) endProfile();
          --indent_;
          line("}");
          record(first, id);
          return {};
        }});
  return {};
}

// ---- C++ tasklets and their environments ---------------------------------------------------

// Every C++ tasklet of the program (nested SDFGs included) and the environments they name, checked:
// an unknown name or one for another target is refused at the tasklet.
Expected<void> SdfgWalker::collectEnvironments() {
  std::optional<Diagnostic> err;
  walk(const_cast<Sdfg&>(root_), [&](Element& el) {
    auto* t = dynamic_cast<const Tasklet*>(&el);
    if (err || !t || t->language != TaskletLanguage::Cpp) return;
    hasCpp_ = true;
    for (auto& name : t->environments) {
      const expansions::Environment* env = expansions::findEnvironment(name);
      std::string known;
      for (auto& e : expansions::environments()) known += (known.empty() ? "" : ", ") + e.name;
      if (!env) {
        err = Diagnostic::error(path(t->id()), "tasklet uses environment '" + commentText(name) + "', which DCW does not know",
                                "use one of: " + known);
        return;
      }
      if (env->target != targetName_) {
        err = Diagnostic::error(path(t->id()), "environment '" + name + "' is for target " + env->target + ", not " + targetName_,
                                "choose an implementation for the " + targetName_ + " target");
        return;
      }
      if (std::find(envs_.begin(), envs_.end(), env) == envs_.end()) envs_.push_back(env);
    }
  });
  if (err) return fail(*err);
  if (hasCpp_)
    for (const char* r : {"dcw_cpp", "dcw_init", "dcw_teardown"}) used_.insert(r);
  for (auto* env : envs_) used_.insert(env->ns());
  return {};
}

// The prologue of a program with C++ tasklets: the environments' headers, the error slot C++ tasklets
// report exceptions into, each environment's globals with its init/teardown, and the two entry
// points dcw_init / dcw_teardown (GeneratedCode.h).
void SdfgWalker::emitEnvironmentIncludes() {
  if (environmentIncludesEmitted_) return;
  environmentIncludesEmitted_ = true;
  std::set<std::string> headers;
  for (const char* h : {"cstdio", "exception", "mutex", "stdexcept"}) {
    headers.insert(h);
    line(std::string("#include <") + h + ">");
  }
  for (auto* env : envs_)
    for (auto& h : env->headers)
      if (headers.insert(h).second) {
        // "immintrin.h?": only where the platform has the header (Environments.cpp).
        if (!h.empty() && h.back() == '?') {
          const std::string name = h.substr(0, h.size() - 1);
          line("#if __has_include(<" + name + ">)");
          line("#include <" + name + ">");
          line("#endif");
        } else {
          line("#include <" + h + ">");
        }
      }
}

void SdfgWalker::emitEnvironments() {
  if (!environmentIncludesEmitted_) {
    line("");
    emitEnvironmentIncludes();
  }
  line("");
  line("namespace dcw_cpp {");
  line("// users: successful dcw_init calls not yet matched by dcw_teardown (a library loaded twice is one");
  line("// copy: its environments are set up by the first and torn down by the last)");
  line("inline int& users() { static int u = 0; return u; }");
  line("inline std::mutex& lock() { static std::mutex m; return m; }");
  line("inline bool ready() { std::lock_guard<std::mutex> g(lock()); return users() > 0; }");
  line("inline int& failed() { static int f = 0; return f; }");
  line("inline char* message() { static char m[1024]; return m; }");
  line("inline void reset() { __atomic_store_n(&failed(), 0, __ATOMIC_RELAXED); }");
  line("inline void fail(const char* where, const char* what) {");
  line("  if (__atomic_exchange_n(&failed(), 1, __ATOMIC_ACQ_REL) == 0) std::snprintf(message(), 1024, \"%s: %s\", where, what);");
  line("}");
  line("} // namespace dcw_cpp");
  for (auto* env : envs_) {
    line("");
    line("// environment " + env->name + ": " + env->description); // registry text, not model text
    line("namespace " + env->ns() + " {");
    raw(env->globals);
    line("inline void init() {");
    raw(env->init);
    line("}");
    line("inline void teardown() {");
    raw(env->teardown);
    line("}");
    if (!env->attach.empty()) {
      line("inline void attach() {");
      raw(env->attach);
      line("}");
    }
    line("} // namespace " + env->ns());
  }
  line("");
  line("extern \"C\" void dcw_teardown() {");
  ++indent_;
  line("std::lock_guard<std::mutex> guard(dcw_cpp::lock());");
  line("if (dcw_cpp::users() == 0 || --dcw_cpp::users() > 0) return;");
  for (size_t k = envs_.size(); k-- > 0;) line("try { " + envs_[k]->ns() + "::teardown(); } catch (...) {}");
  --indent_;
  line("}");
  line("");
  line("extern \"C\" int dcw_init(char* error, size_t errorSize) {");
  ++indent_;
  line("(void)error;");
  line("(void)errorSize;");
  line("std::lock_guard<std::mutex> guard(dcw_cpp::lock());");
  // Every load attaches: a second program loaded from this library binds buffers of its own.
  std::string attach;
  for (auto* env : envs_)
    if (!env->attach.empty()) attach += env->ns() + "::attach();\n";
  line("if (dcw_cpp::users() > 0) {");
  line("  ++dcw_cpp::users();");
  if (!attach.empty()) raw(attach);
  line("  return 0;");
  line("}");
  for (size_t k = 0; k < envs_.size(); ++k) {
    const std::string& ns = envs_[k]->ns();
    line("try {");
    line("  " + ns + "::init();");
    line("} catch (const std::exception& e) {");
    ++indent_;
    for (size_t j = k; j-- > 0;) line("try { " + envs_[j]->ns() + "::teardown(); } catch (...) {}");
    line("char m[1024];");
    line("std::snprintf(m, sizeof m, \"environment " + commentText(envs_[k]->name) + ": %s\", e.what());");
    line("return dcw_rt::report(error, errorSize, m);");
    --indent_;
    line("}");
  }
  if (!attach.empty()) raw(attach);
  line("dcw_cpp::users() = 1;");
  line("return 0;");
  --indent_;
  line("}");
}

// A C++ tasklet: an outer block binds each connector to a fresh local (pointer or value), an inner
// block names them as the connectors and holds the code verbatim inside try/catch; scalar outputs are
// written back through their memlets afterwards.
Expected<void> SdfgWalker::emitCppTasklet(const StateInfo& si, const Tasklet& t) {
  std::string where = path(t.id());
  static const std::set<std::string> reserved{
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "decltype", "default", "delete", "do", "double", "else", "enum", "explicit",
      "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
      "namespace", "new", "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public",
      "register", "return", "short", "signed", "sizeof", "static", "struct", "switch", "template", "this",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "while", "xor", "std", "dnnl", "error", "errorSize", "args", "symbols", "int8_t", "int16_t",
      "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "ptrdiff_t"};
  auto checkName = [&](const std::string& n) -> Expected<void> {
    if (!sym::isIdentifier(n) || reserved.count(n) || n.rfind("dcw_", 0) == 0 || macroLike(n))
      return fail(where, "connector '" + commentText(n) + "' cannot name a variable in C++ code",
                  "rename the connector: an identifier that is not a C++ keyword, not all capitals, not starting with dcw_");
    return {};
  };
  std::vector<std::string> aliases;
  struct ScalarOut {
    std::string id;
    const DataflowEdge* edge;
    DType storage;
  };
  std::vector<ScalarOut> scalarOuts;

  int first = nextLine();
  line("{ // C++ tasklet " + commentText(where));
  ++indent_;
  markProgress(t.id());
  const bool timed = wantProfile(ProfiledElement::Kind::Tasklet, t.id());
  if (timed) beginProfile(ProfiledElement::Kind::Tasklet, t.id());
  for (auto* e : si.state->inEdges(t.id())) {
    if (e->memlet.isEmpty() || e->dstConnector.empty()) continue;
    const Connector* conn = t.findIn(e->dstConnector);
    if (!conn) return fail(where, "an edge enters connector '" + e->dstConnector + "', which the tasklet does not have");
    DCW_CHECK(checkName(conn->name));
    std::string ew = path(e->id());
    auto d = descriptor(e->memlet.data, ew);
    if (!d) return d.takeError();
    auto ptr = pointer(e->memlet.data, ew);
    if (!ptr) return ptr.takeError();
    auto off = offsetOf(**d, e->memlet.subset, ew);
    if (!off) return off.takeError();
    std::string type = cpu::storageType((*d)->dtype);
    if (type.empty()) return fail(where, "input '" + conn->name + "' has a type the " + targetName_ + " target does not support");
    std::string id = fresh("dcw_c_" + conn->name); // never a connector name: those cannot start with dcw_
    if ((*d)->dataKind == DataKind::Scalar) {
      line("const " + type + " " + id + " = " + *ptr + "[" + *off + "];");
      aliases.push_back("const " + type + " " + conn->name + " = " + id + ";");
    } else {
      line("const " + type + "* const " + id + " = " + *ptr + " + " + *off + ";");
      aliases.push_back("const " + type + "* const " + conn->name + " = " + id + ";");
    }
  }
  for (auto& c : t.outConnectors()) {
    DCW_CHECK(checkName(c.name));
    const DataflowEdge* edge = nullptr;
    for (auto* e : si.state->outEdges(t.id()))
      if (e->srcConnector == c.name && !e->memlet.isEmpty()) {
        if (edge) return fail(where, "output '" + c.name + "' has more than one edge", "a C++ tasklet output takes one memlet");
        edge = e;
      }
    if (!edge) return fail(where, "output '" + c.name + "' of the C++ tasklet is not connected", "connect it to the data it writes");
    std::string ew = path(edge->id());
    auto d = descriptor(edge->memlet.data, ew);
    if (!d) return d.takeError();
    std::string type = cpu::storageType((*d)->dtype);
    if (type.empty()) return fail(where, "output '" + c.name + "' has a type the CPU target does not support");
    std::string id = fresh("dcw_c_" + c.name);
    if ((*d)->dataKind == DataKind::Scalar) {
      line(type + " " + id + "{};");
      aliases.push_back(type + "& " + c.name + " = " + id + ";");
      scalarOuts.push_back({id, edge, (*d)->dtype});
    } else {
      if (!edge->memlet.wcr.empty())
        return fail(ew, "output '" + c.name + "' of a C++ tasklet is an array written with WCR '" + commentText(edge->memlet.wcr) + "'",
                    "write the array directly (no write-conflict resolution)");
      auto ptr = pointer(edge->memlet.data, ew);
      if (!ptr) return ptr.takeError();
      auto off = offsetOf(**d, edge->memlet.subset, ew);
      if (!off) return off.takeError();
      line(type + "* const " + id + " = " + *ptr + " + " + *off + ";");
      aliases.push_back(type + "* const " + c.name + " = " + id + ";");
    }
  }
  line("{");
  ++indent_;
  for (auto& a : aliases) line(a);
  for (auto& c : t.inConnectors()) line("(void)" + c.name + ";");
  for (auto& c : t.outConnectors()) line("(void)" + c.name + ";");
  line("try {");
  raw(t.code);
  line("} catch (const std::exception& dcw_e) {");
  line("  dcw_cpp::fail(\"" + commentText(where) + "\", dcw_e.what());");
  line("} catch (...) {");
  line("  dcw_cpp::fail(\"" + commentText(where) + "\", \"unknown exception\");");
  line("}");
  --indent_;
  line("}");
  for (auto& o : scalarOuts) {
    std::string ew = path(o.edge->id());
    auto d = descriptor(o.edge->memlet.data, ew);
    if (!d) return d.takeError();
    auto ptr = pointer(o.edge->memlet.data, ew);
    if (!ptr) return ptr.takeError();
    auto off = offsetOf(**d, o.edge->memlet.subset, ew);
    if (!off) return off.takeError();
    auto k = cpu::kindOf(o.storage);
    if (!k) return fail(where, "an output has a type the CPU target does not support");
    DCW_CHECK(emitWrite(**d, *ptr + "[" + *off + "]", cpu::loadValue(o.storage, o.id, *k), *k, o.edge->memlet.wcr,
                      needsAtomic(o.edge->memlet.data, o.edge->memlet.subset), ew));
  }
  if (timed) endProfile();
  --indent_;
  line("}");
  record(first, t.id());
  return {};
}

} // namespace dcw::codegen
