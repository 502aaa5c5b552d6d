#include "codegen/run/Executor.h"

#include "codegen/run/MemoryBudget.h"

#include "core/ir/AccessNode.h"
#include "core/ir/ValueSymbol.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Specialize.h"
#include "core/ir/State.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace dcw::codegen {

using namespace dcw::ir;

namespace {

std::string dimsText(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::string shapeText(const std::vector<sym::Expr>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i].str();
  return s + "]";
}

// An output's dims at the symbols' values, or the error naming the output.
Expected<std::vector<int64_t>> dimsOf(const ProgramArg& a, const std::map<std::string, int64_t>& syms) {
  std::vector<int64_t> dims;
  for (auto& e : a.shape) {
    auto v = e.evaluate(syms);
    if (!v) return fail("output '" + a.name + "'", "its shape " + shapeText(a.shape) + " cannot be evaluated: " + v.error().message);
    if (*v < 0) return fail("output '" + a.name + "'", "its shape evaluates to a negative dimension");
    dims.push_back(*v);
  }
  return dims;
}

// Where a symbol no input binds first arises: "the shape of 'Y', written by main/state0/reshape" (the
// node whose output's shape it is), so a refusal names the node to look at.
std::string whereSymbolArises(const Sdfg& sdfg, const std::string& symbol) {
  for (State* st : sdfg.allStates())
    for (auto& n : st->nodes()) {
      auto* an = dynamic_cast<const AccessNode*>(n.get());
      const DataDescriptor* d = an ? sdfg.findData(an->data()) : nullptr;
      if (!d) continue;
      bool uses = false;
      for (auto& e : d->shape) uses = uses || e.freeSymbols().count(symbol);
      if (!uses) continue;
      std::string where = "the shape of '" + d->name() + "'";
      for (auto* e : st->inEdges(an->id()))
        if (!dynamic_cast<const AccessNode*>(st->node(e->src))) {
          std::string path = PathIndex(sdfg).pathOf(e->src);
          return where + ", written by " + (path.empty() ? "'" + st->node(e->src)->label() + "'" : path);
        }
      return where;
    }
  return "";
}

} // namespace

Expected<std::unique_ptr<Executor>> Executor::create(const Sdfg& sdfg, const RunOptions& options) {
  auto target = requireTarget(options.target);
  if (!target) return target.takeError();
  Diagnostics owned = checkTarget(sdfg, **target);
  if (const Diagnostic* e = owned.firstError()) return fail(*e);
  auto code = (*target)->generate(sdfg, options.generate);
  if (!code) return code.takeError();
  auto lib = (*target)->build(*code, options.compile);
  if (!lib) return lib.takeError();
  return load(sdfg, std::move(*code), std::move(*lib), options);
}

Expected<std::unique_ptr<Executor>> Executor::load(const Sdfg& sdfg, GeneratedCode code, CompiledLibrary library,
                                                   const RunOptions& options) {
  std::unique_ptr<Executor> e(new Executor());
  e->sdfg_ = &sdfg;
  e->threads_ = options.threads;
  e->followFreeCores_ = options.threads <= 0 && !std::getenv("OMP_NUM_THREADS");
  if (options.isolated) {
    // The library is never loaded here; the worker starts with the first run.
    e->worker_ = std::make_unique<WorkerProcess>(library.path, options.limits);
    e->cancel_ = options.cancel;
  } else {
    auto prog = LoadedProgram::load(library.path);
    if (!prog) return prog.takeError();
    e->program_ = std::move(*prog);
    if (options.threads > 0) e->program_->setThreads(options.threads);
  }
  e->code_ = std::move(code);
  e->library_ = std::move(library);
  if (options.stringStages && !options.stringStages->empty()) e->stages_ = options.stringStages;
  return e;
}

std::string Executor::elementPath(int64_t id) const {
  for (auto& entry : code_.sourceMap)
    if (int64_t(entry.element) == id) return entry.path;
  return {};
}

// Symbols that stand for an element of a small integer input (metadata "value-symbol:SYMBOL" = input,
// element; see core/onnx/SymbolicShapes.h): bound from the input's values. Dims computed from them are
// derived assuming they are not negative, so a negative one is refused, naming the input.
Expected<void> Executor::bindValueSymbols(const std::vector<Tensor>& inputs, std::map<std::string, int64_t>& syms) const {
  const ir::Sdfg& root = *sdfg_->root();
  const auto& args = code_.signature.args;
  for (const ir::ValueSymbol& vs : ir::valueSymbols(root)) {
    const std::string& symbol = vs.symbol;
    const std::string& input = vs.input;
    const std::string element = std::to_string(vs.element);
    const int64_t k = vs.element;
    for (size_t i = 0; i < inputs.size() && i < args.size(); ++i) {
      if (args[i].name != input) continue;
      const Tensor& t = inputs[i];
      if (k < 0 || k >= t.elementCount() || !t.bytes) return fail("input '" + input + "'", "has no element " + element);
      int64_t v = 0;
      if (t.dtype == DType::Int64) std::memcpy(&v, t.bytes->data() + k * 8, 8);
      else if (t.dtype == DType::Int32) {
        int32_t w;
        std::memcpy(&w, t.bytes->data() + k * 4, 4);
        v = w;
      } else {
        return fail("input '" + input + "'", "must hold integers: shapes are computed from its values");
      }
      if (v < 0)
        return fail("input '" + input + "'", "holds " + std::to_string(v) + (t.elementCount() > 1 ? " at element " + element : std::string()) +
                        "; the model's shapes are computed from it as a non-negative number",
                    "give a value >= 0");
      if (auto fixed = ir::specializedValue(root, symbol); fixed && *fixed != v)
        return fail("input '" + input + "'", "holds " + std::to_string(v) + ", the program was specialized for " + std::to_string(*fixed) +
                        " (" + symbol + ")",
                    "give the value it was specialized for, or compile it again for this one");
      syms[symbol] = v;
    }
  }
  return {};
}

// The conditions import recorded on the inputs' dims (metadata "dims-check:N": node, condition; see
// core/onnx/SymbolicShapes.h): a run whose dims break one is refused, naming the node, instead of
// computing with dims that do not hold.
Expected<void> Executor::checkDims(const std::map<std::string, int64_t>& syms) const {
  const ir::Sdfg& root = *sdfg_->root();
  std::map<std::string, int64_t> values = syms;
  for (auto it = root.metadata.lower_bound("dims-check:"); it != root.metadata.end() && it->first.rfind("dims-check:", 0) == 0; ++it) {
    std::vector<std::string> lines;
    std::istringstream in(it->second);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    if (lines.size() != 3) continue;
    auto a = sym::Expr::parse(lines[1]), b = sym::Expr::parse(lines[2]);
    if (!a || !b) continue;
    for (auto& s : sym::eq(*a, *b).freeSymbols())
      if (!values.count(s))
        if (auto v = ir::specializedValue(root, s)) values[s] = *v;
    auto va = a->evaluate(values), vb = b->evaluate(values);
    if (!va || !vb || *va == *vb || *va == 1 || *vb == 1) continue;
    auto text = [](const sym::Expr& e, int64_t v) { return e.isConstant() ? std::to_string(v) : std::to_string(v) + " (" + e.str() + ")"; };
    return fail("node '" + lines[0] + "'", "the input dims do not fit it: it broadcasts dims " + text(*a, *va) + " and " + text(*b, *vb) +
                    " together, which must be equal or 1",
                "give inputs whose dims the model accepts");
  }
  return {};
}

// What a run certainly needs: the outputs, and the largest intermediate of the root SDFG (a lower
// bound: the others may not be alive at the same time). Refused when it exceeds the machine's memory.
Expected<void> Executor::checkMemory(const std::map<std::string, int64_t>& syms) const {
  auto bytesOf = [&](const std::vector<sym::Expr>& shape, DType dtype) -> int64_t {
    std::vector<int64_t> dims;
    for (auto& e : shape) {
      auto v = e.evaluate(syms);
      if (!v) return 0; // not known here: the program checks its own allocations
      dims.push_back(*v);
    }
    return tensorBytes(dims, dtype);
  };
  int64_t outputs = 0, largest = 0;
  std::string largestName;
  for (auto& a : code_.signature.args)
    if (a.role == ProgramArg::Role::Output) {
      int64_t b = bytesOf(a.shape, a.dtype);
      outputs = b < 0 || outputs < 0 ? -1 : outputs + b;
    }
  for (auto& d : sdfg_->data())
    if (d->transient && !d->constant) {
      int64_t b = bytesOf(d->shape, d->dtype);
      if (b < 0 || (largest >= 0 && b > largest)) {
        largest = b;
        largestName = d->name();
      }
    }
  int64_t total = outputs < 0 || largest < 0 ? -1 : outputs + largest;
  std::string what = "a run (the outputs" + std::string(largestName.empty() ? ")" : " and intermediate '" + largestName + "')");
  return checkFitsInMemory(sdfg_->name(), what, total);
}

Expected<size_t> Executor::profiledElements() const {
  if (worker_) return worker_->profiledElements();
  return program_->profiling() ? program_->profileElementCount() : 0;
}

Expected<std::vector<Tensor>> Executor::run(const std::vector<Tensor>& inputs, ProfileCapture* capture) const {
  if (stages_) return runWithStringStages(inputs, capture);
  return runProgram(inputs, capture);
}

// The model's inputs -> the front's host ops -> the program (the model's inputs, then what the front
// computed for it) -> the back's host ops -> the model's outputs (StringStages.h).
Expected<std::vector<Tensor>> Executor::runWithStringStages(const std::vector<Tensor>& inputs, ProfileCapture* capture) const {
  const StringStages& st = *stages_;
  const auto& args = code_.signature.args;
  std::vector<const ProgramArg*> ins, outs;
  for (auto& a : args) {
    if (a.role == ProgramArg::Role::Input) ins.push_back(&a);
    if (a.role == ProgramArg::Role::Output) outs.push_back(&a);
  }
  if (inputs.size() != st.modelInputs)
    return fail(sdfg_->name(), "the model takes " + std::to_string(st.modelInputs) + " input(s), " + std::to_string(inputs.size()) + " given",
                "pass one tensor per model input, in order");
  std::map<std::string, Tensor> values;
  for (size_t i = 0; i < inputs.size() && i < ins.size(); ++i) values[ins[i]->name] = inputs[i];
  auto withConstants = [&](const HostOp& op) {
    for (auto& [conn, name] : op.inputs)
      if (const DataDescriptor* d = sdfg_->findData(name); d && d->constant && !values.count(name)) values[name] = *d->constant;
  };
  for (auto& op : st.front) {
    withConstants(op);
    DCW_CHECK(runHostOp(op, values));
  }
  std::vector<Tensor> programInputs(inputs.begin(), inputs.end());
  for (size_t i = st.modelInputs; i < ins.size(); ++i) {
    auto it = values.find(ins[i]->name);
    if (it == values.end()) return fail(sdfg_->name(), "the host computed no value for '" + ins[i]->name + "'", "this is a bug in DCW");
    programInputs.push_back(it->second);
  }
  DCW_TRY(auto programOutputs, runProgram(programInputs, capture));
  for (size_t i = 0; i < outs.size() && i < programOutputs.size(); ++i)
    if (outs[i]->dtype != DType::String && !values.count(outs[i]->name)) values[outs[i]->name] = std::move(programOutputs[i]);
  for (auto& op : st.back) {
    withConstants(op);
    DCW_CHECK(runHostOp(op, values));
  }
  std::vector<Tensor> result;
  for (size_t i = 0; i < st.modelOutputs && i < outs.size(); ++i) {
    auto it = values.find(outs[i]->name);
    if (it == values.end()) return fail("output '" + outs[i]->name + "'", "no op computed it", "this is a bug in DCW");
    result.push_back(it->second);
  }
  return result;
}

Expected<std::vector<Tensor>> Executor::runProgram(const std::vector<Tensor>& inputs, ProfileCapture* capture) const {
  const auto& args = code_.signature.args;
  size_t nIn = 0;
  for (auto& a : args) nIn += a.role == ProgramArg::Role::Input;
  if (inputs.size() != nIn)
    return fail(sdfg_->name(), "the model takes " + std::to_string(nIn) + " input(s), " + std::to_string(inputs.size()) + " given",
                "pass one tensor per model input, in order");

  // Bind symbols from the input dims; check everything that is already determined.
  std::map<std::string, int64_t> syms;
  for (size_t i = 0; i < nIn; ++i) {
    const ProgramArg& a = args[i];
    const Tensor& t = inputs[i];
    // ONNX's test data stores bfloat16/float16 tensors as uint16 bit patterns: the same bytes.
    bool sameBits = t.dtype == DType::UInt16 && (a.dtype == DType::BFloat16 || a.dtype == DType::Float16);
    if (t.dtype != a.dtype && !sameBits)
      return fail("input '" + a.name + "'", "has dtype " + std::string(dtypeName(t.dtype)) + ", the model expects " +
                                                 std::string(dtypeName(a.dtype)),
                  "convert the tensor to " + std::string(dtypeName(a.dtype)));
    if (t.dims.size() != a.shape.size())
      return fail("input '" + a.name + "'", "has shape " + dimsText(t.dims) + ", the model expects " + shapeText(a.shape),
                  "give a tensor of rank " + std::to_string(a.shape.size()));
    for (size_t k = 0; k < a.shape.size(); ++k)
      if (a.shape[k].isSymbol() && !syms.count(a.shape[k].symbolName())) syms[a.shape[k].symbolName()] = t.dims[k];
  }
  for (size_t i = 0; i < nIn; ++i) {
    const ProgramArg& a = args[i];
    for (size_t k = 0; k < a.shape.size(); ++k) {
      auto v = a.shape[k].evaluate(syms);
      if (v && *v != inputs[i].dims[k])
        return fail("input '" + a.name + "'", "has shape " + dimsText(inputs[i].dims) + ", the model expects " +
                                                   shapeText(a.shape) + " (dimension " + std::to_string(k) + " must be " +
                                                   std::to_string(*v) + ")",
                    "reshape the input");
    }
    if (inputs[i].dtype != DType::String && (!inputs[i].bytes || inputs[i].bytes->size() < size_t(inputs[i].elementCount()) * dtypeSize(inputs[i].dtype)))
      return fail("input '" + a.name + "'", "holds fewer bytes than its dims need");
  }
  DCW_CHECK(bindValueSymbols(inputs, syms));
  DCW_CHECK(checkDims(syms));
  std::vector<int64_t> symbolValues;
  for (auto& s : code_.signature.symbols) {
    auto it = syms.find(s);
    if (it == syms.end())
      if (auto v = ir::specializedValue(*sdfg_->root(), s)) it = syms.emplace(s, *v).first;
    if (it == syms.end() && stages_) {
      // A dim of string data only (the host's, StringStages.h): the program never uses it.
      bool used = false;
      for (auto& d : sdfg_->data())
        if (d->dtype != DType::String && d->freeSymbols().count(s)) used = true;
      if (!used) it = syms.emplace(s, 0).first;
    }
    if (it == syms.end())
    {
      std::string where = whereSymbolArises(*sdfg_, s);
      return fail(sdfg_->name(),
                  "symbol '" + s + "'" + (where.empty() ? "" : " (" + where + ")") +
                      " cannot be determined from the input shapes (a data-dependent shape)",
                  "export the model with static shapes for this part");
    }
    symbolValues.push_back(it->second);
  }

  // Data-dependent extents (core/ir/DynamicExtent.h): the outputs that use one are allocated at its
  // bound, and trimmed to the count the program returns.
  const auto& extents = code_.signature.extents;
  std::map<std::string, int64_t> atBounds = syms;
  for (auto& x : extents) {
    auto v = x.bound.evaluate(atBounds);
    if (!v) return fail(sdfg_->name(), "the bound of " + x.node + "'s count (" + x.bound.str() + ") cannot be evaluated: " + v.error().message);
    atBounds[x.symbol] = std::max<int64_t>(*v, 0);
  }
  DCW_CHECK(checkMemory(atBounds));

  std::vector<Tensor> outputs;
  std::vector<std::shared_ptr<std::string>> outBuffers;
  std::vector<void*> ptrs;
  std::vector<WorkerArg> shared; // the same arguments with their sizes, for a worker
  size_t in = 0;
  for (auto& a : args) {
    if (a.dtype == DType::String) { // the host's (StringStages.h): the program never reads or writes it
      static char none = 0;
      ptrs.push_back(&none);
      shared.push_back({ptrs.back(), 1, a.role == ProgramArg::Role::Output ? WorkerArg::Kind::Output : WorkerArg::Kind::Input});
      if (a.role == ProgramArg::Role::Input) ++in;
      if (a.role == ProgramArg::Role::Output) {
        outBuffers.push_back(std::make_shared<std::string>());
        Tensor t;
        t.dtype = DType::String;
        outputs.push_back(std::move(t));
      }
      continue;
    }
    switch (a.role) {
    case ProgramArg::Role::Input:
      ptrs.push_back(const_cast<char*>(inputs[in].bytes->data()));
      shared.push_back({ptrs.back(), inputs[in].bytes->size(), WorkerArg::Kind::Input});
      ++in;
      break;
    case ProgramArg::Role::Constant: {
      const DataDescriptor* d = sdfg_->findData(a.name);
      if (!d || !d->constant || !d->constant->bytes) return fail("'" + a.name + "'", "constant has no value");
      ptrs.push_back(const_cast<char*>(d->constant->bytes->data()));
      shared.push_back({ptrs.back(), d->constant->bytes->size(), WorkerArg::Kind::Constant});
      break;
    }
    case ProgramArg::Role::Output: {
      Tensor t;
      t.dtype = a.dtype;
      DCW_TRY(t.dims, dimsOf(a, atBounds));
      auto buf = std::make_shared<std::string>(size_t(std::max<int64_t>(t.elementCount(), 1)) * dtypeSize(a.dtype), '\0');
      ptrs.push_back(buf->data());
      shared.push_back({ptrs.back(), buf->size(), WorkerArg::Kind::Output});
      outBuffers.push_back(buf);
      outputs.push_back(std::move(t));
      break;
    }
    }
  }
  std::string extentValues(extents.size() * sizeof(int64_t), '\0');
  if (!extents.empty()) {
    ptrs.push_back(extentValues.data());
    shared.push_back({ptrs.back(), extentValues.size(), WorkerArg::Kind::Output});
  }
  int threads = threads_;
  if (followFreeCores_) {
    std::vector<pid_t> ours;
    if (worker_ && worker_->pid() > 0) ours.push_back(worker_->pid());
    threads = capture ? 0 : freeCores_.next(ours);
    if (program_) program_->setThreads(threads);
  }
  if (worker_) {
    auto r = worker_->run(shared, symbolValues, threads, cancel_.get(), [this](int64_t id) { return elementPath(id); }, capture);
    if (!r) return r.takeError();
  } else {
    if (capture) {
      if (capture->capacity != capacity_) {
        if (!program_->setProfileCapacity(capture->capacity))
          return fail(sdfg_->name(), "cannot allocate the profiling event buffer (" + std::to_string(capture->capacity) + " events)");
        capacity_ = capture->capacity;
      }
      program_->profileReset();
    }
    if (auto r = program_->run(ptrs.data(), symbolValues.data()); !r) return r.takeError();
    if (capture) {
      auto events = program_->profileEvents();
      capture->events.assign(events.begin(), events.end());
      capture->dropped = program_->profileDropped();
      capture->fpgaStreams = program_->fpgaStreamStats();
    }
  }
  if (!extents.empty()) {
    for (size_t k = 0; k < extents.size(); ++k) {
      int64_t v = 0;
      std::memcpy(&v, extentValues.data() + k * sizeof(int64_t), sizeof v);
      if (v < 0 || v > atBounds.at(extents[k].symbol))
        return fail(sdfg_->name(), extents[k].node + " returned the count " + std::to_string(v) + ", outside its bound " +
                                       std::to_string(atBounds.at(extents[k].symbol)));
      syms[extents[k].symbol] = v;
    }
    size_t o = 0;
    for (auto& a : args)
      if (a.role == ProgramArg::Role::Output) {
        Tensor& t = outputs[o++];
        if (a.dtype == DType::String) continue;
        DCW_TRY(t.dims, dimsOf(a, syms));
      }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    outBuffers[i]->resize(size_t(outputs[i].elementCount()) * dtypeSize(outputs[i].dtype));
    outputs[i].bytes = outBuffers[i];
  }
  symbols_ = std::move(syms);
  return outputs;
}

} // namespace dcw::codegen
