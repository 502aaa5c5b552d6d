// Autodiff: the request side of reverse-mode AD (see Autodiff.h) — validation of `of`/`wrt`/`keep`,
// expansion of every library node (pure) through the editor, seeds, the new gradient outputs and the
// store/recompute report. The reverse sweep itself is transforms/autodiff/ReversePass.
#include "transforms/autodiff/Autodiff.h"

#include "core/expansions/ExpandPass.h"
#include "core/expansions/Implementations.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "transforms/autodiff/ReversePass.h"

#include <algorithm>

namespace dcw::autodiff {

using namespace dcw::ir;

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

int64_t bytesOf(const DataDescriptor& d) {
  std::map<std::string, int64_t> ones;
  for (auto& s : d.freeSymbols()) ones[s] = 1;
  auto n = d.totalSize().evaluate(ones);
  return (n ? *n : 0) * int64_t(dtypeSize(d.dtype));
}

// The first library node of the tree (root and nested SDFGs; not inside library nodes' subgraphs).
LibraryNode* firstLibraryNode(const Sdfg& s) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* l = dynamic_cast<LibraryNode*>(n.get())) return l;
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get()))
        if (auto* l = firstLibraryNode(ns->sdfg())) return l;
    }
  return nullptr;
}

Expected<void> validate(const Sdfg& root, const Request& req) {
  const std::string where = root.name();
  if (req.of.empty()) return fail(where, "nothing to differentiate: no output given", "name a (loss) output with of=");
  if (req.wrt.empty()) return fail(where, "no input given to differentiate with respect to", "name inputs or weights with wrt=");
  std::set<std::string> seen;
  for (auto& o : req.of) {
    const DataDescriptor* d = root.findData(o);
    if (!d || !contains(root.outputs, o))
      return fail(where + "/@" + o, "'" + o + "' is not an output of the model", "outputs: pick one of the model's outputs");
    if (!isFloating(d->dtype))
      return fail(where + "/@" + o, "output '" + o + "' has type " + std::string(dtypeName(d->dtype)) + " and cannot be differentiated",
                  "differentiate a floating-point output");
    if (!seen.insert("of:" + o).second) return fail(where + "/@" + o, "'" + o + "' is named twice", "name it once");
    if (req.requireScalar && req.sumOutputs && d->totalSize() != sym::Expr(1))
      return fail(where + "/@" + o, "output '" + o + "' is not a scalar loss (" + d->typeString() + ")",
                  "say sum=true to differentiate the sum of its elements, or seeds=true to give seed gradients");
  }
  for (auto& w : req.wrt) {
    const DataDescriptor* d = root.findData(w);
    if (!d || !(contains(root.inputs, w) || d->constant))
      return fail(where + "/@" + w, "'" + w + "' is not an input or a constant (weight) of the model",
                  "differentiate with respect to inputs or initializers");
    if (!isFloating(d->dtype))
      return fail(where + "/@" + w, "'" + w + "' has type " + std::string(dtypeName(d->dtype)) + "; gradients exist for floating-point data only");
    if (!seen.insert("wrt:" + w).second) return fail(where + "/@" + w, "'" + w + "' is named twice", "name it once");
  }
  for (auto& [name, keep] : req.keep) {
    const DataDescriptor* d = root.findData(name);
    if (!d || !d->transient || d->constant)
      return fail(where + "/@" + name, "'" + name + "' is not an intermediate of the model",
                  "store/recompute choices apply to intermediate (transient) data");
  }
  return {};
}

} // namespace

Expected<Report> differentiate(edit::Editor& ed, const Request& req) {
  Sdfg& root = ed.root();
  DCW_CHECK(validate(root, req));

  // 1. Every library node becomes its implementation (repeatedly: expansions may nest ops): `pure`
  // unless the node chose one, which must keep the model differentiable (opaque C++ does not).
  for (int guard = 0; guard < 100000; ++guard) {
    LibraryNode* lib = firstLibraryNode(root);
    if (!lib) break;
    const std::string where = pathOf(*lib);
    std::string choice = lib->implementation.empty() ? std::string("pure") : lib->implementation;
    auto info = expansions::chooseImplementation(*lib, choice, expansions::kCpuTarget, where);
    if (!info) return info.takeError();
    if (!(*info)->decl.differentiable)
      return fail(where + " (" + lib->className() + ")",
                  "cannot differentiate through node '" + lib->label() + "': its implementation '" + choice +
                      "' is opaque C++ and not differentiable",
                  "choose the `pure` implementation for it (set " + where + " implementation=pure)");
    if (auto r = expansions::expandNode(ed, *lib, choice); !r) return r.takeError();
  }

  Report report;
  detail::ReverseOptions opt;
  opt.root = true;
  opt.where = "";
  opt.gradIn.insert(req.of.begin(), req.of.end());
  opt.gradOut.insert(req.wrt.begin(), req.wrt.end());
  for (auto& [name, keep] : req.keep)
    if (keep == Keep::Recompute) opt.recompute.insert(name);

  // 2. Seeds for non-scalar outputs when their sum is not what is differentiated.
  if (!req.sumOutputs) {
    std::vector<std::string> inputs = root.inputs;
    for (auto& o : req.of) {
      const DataDescriptor* d = root.findData(o);
      auto one = d->totalSize().constantValue();
      if (d->shape.empty() || (one && *one == 1)) continue;
      std::string name = o + "_seed";
      for (int k = 1; root.findData(name); ++k) name = o + "_seed_" + std::to_string(k);
      auto s = std::make_unique<DataDescriptor>(name);
      s->dataKind = d->dataKind == DataKind::Scalar ? DataKind::Scalar : DataKind::Array;
      s->dtype = d->dtype;
      s->shape = d->shape;
      s->strides = DataDescriptor::contiguousStrides(d->shape);
      s->transient = false;
      ed.addData(root, std::move(s));
      inputs.push_back(name);
      opt.seeds[o] = name;
      report.seeds.push_back(name);
    }
    if (inputs != root.inputs) ed.set(root, &Sdfg::inputs, inputs);
  }

  // 3. The reverse sweep.
  DCW_TRY(auto rr, detail::reverse(ed, root, opt));

  // 4. Gradients of `wrt` become outputs, in `wrt` order.
  std::vector<std::string> outputs = root.outputs;
  for (auto& w : req.wrt) {
    const std::string& g = rr.gradName.at(w);
    report.gradients.push_back(g);
    outputs.push_back(g);
  }
  ed.set(root, &Sdfg::outputs, outputs);

  // 5. What the backward pass keeps alive.
  for (auto& r : rr.forwardReads) {
    const DataDescriptor* d = root.findData(r);
    if (!d || !d->transient || d->constant) continue;
    report.stored.push_back(r);
    report.storedBytes += bytesOf(*d);
  }
  for (auto& r : rr.recomputed)
    if (const DataDescriptor* d = root.findData(r)) report.recomputedBytes += bytesOf(*d);
  return report;
}

Expected<std::map<std::string, int64_t>> intermediatesNeeded(const Sdfg& sdfg, const Request& request) {
  auto copy = sdfg.clone();
  edit::Editor ed(*copy);
  DCW_TRY(auto rep, differentiate(ed, request));
  std::map<std::string, int64_t> out;
  for (auto& s : rep.stored)
    if (const DataDescriptor* d = copy->findData(s)) out[s] = bytesOf(*d);
  (void)ed.takeJournal();
  return out;
}

} // namespace dcw::autodiff
