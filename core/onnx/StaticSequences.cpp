#include "core/onnx/StaticSequences.h"

#include "core/onnx/OnnxTypes.h"
#include "core/onnx/ShapeArithmetic.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace dcw::onnx {

using ::onnx::AttributeProto;
using ::onnx::GraphProto;
using ::onnx::NodeProto;
using ::onnx::TensorProto;
using ::onnx::TypeProto;
using ::onnx::ValueInfoProto;

namespace {

const std::set<std::string> kSequenceOps = {"SequenceEmpty",  "SequenceConstruct", "SequenceInsert",     "SequenceErase",
                                            "SequenceAt",     "SequenceLength",    "ConcatFromSequence", "SplitToSequence"};
const std::set<std::string> kOptionalOps = {"Optional", "OptionalHasElement", "OptionalGetElement"};

constexpr int64_t kMaxIterations = 4096;  // a Loop unrolled past this is left to the refusal
constexpr size_t kMaxNodes = 200000;      // nodes the rewrite may emit in all
constexpr int kMaxInlineDepth = 64;

bool isStructuredType(const TypeProto& t) { return t.has_sequence_type() || t.has_optional_type(); }

// A sequence or optional op, or one whose subgraph is one (SequenceMap's body too).
bool involvesStructureOps(const GraphProto& g) {
  for (auto& n : g.node()) {
    if (n.domain().empty() && (kSequenceOps.count(n.op_type()) || kOptionalOps.count(n.op_type()) || n.op_type() == "SequenceMap"))
      return true;
    for (auto& a : n.attribute()) {
      if (a.has_g() && involvesStructureOps(a.g())) return true;
      for (auto& sub : a.graphs())
        if (involvesStructureOps(sub)) return true;
    }
  }
  for (auto& v : g.input())
    if (isStructuredType(v.type())) return true;
  for (auto& v : g.output())
    if (isStructuredType(v.type())) return true;
  return false;
}

void collectNames(const GraphProto& g, std::set<std::string>& names) {
  for (auto& t : g.initializer()) names.insert(t.name());
  for (auto& v : g.input()) names.insert(v.name());
  for (auto& n : g.node()) {
    for (auto& o : n.output()) names.insert(o);
    names.insert(n.name());
    for (auto& a : n.attribute()) {
      if (a.has_g()) collectNames(a.g(), names);
      for (auto& sub : a.graphs()) collectNames(sub, names);
    }
  }
}

class Resolver {
public:
  Resolver(GraphProto& g, int64_t opset, const std::map<std::string, InterfaceValue>* inputs)
      : g_(g), opset_(opset), bound_(inputs) {
    collectNames(g, names_);
    for (auto& t : g.initializer()) consts_[t.name()] = &t;
    for (auto& n : g.node())
      if (n.op_type() == "Constant" && n.domain().empty() && n.output_size() == 1)
        for (auto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) consts_[n.output(0)] = &a.t();
  }

  // False (and g untouched) when some sequence or optional cannot be resolved or there is none.
  bool run(ModelInterface* interface) {
    std::set<std::string> inits;
    for (auto& t : g_.initializer()) inits.insert(t.name());
    google::protobuf::RepeatedPtrField<ValueInfoProto> inputs;
    std::vector<std::pair<std::string, InterfaceLayout>> inputLayouts;
    for (auto& v : g_.input()) {
      if (inits.count(v.name())) {
        *inputs.Add() = v;
        continue;
      }
      const InterfaceValue* value = nullptr;
      if (bound_)
        if (auto it = bound_->find(v.name()); it != bound_->end()) value = &it->second;
      if (isStructuredType(v.type())) {
        if (!value) {
          why_ = "input '" + v.name() + "'\nis " + (v.type().has_sequence_type() ? "a sequence" : "an optional") +
                 ": what it holds is known only from a run's values";
          return false;
        }
        if ((value->kind == InterfaceValue::Kind::Sequence) != v.type().has_sequence_type() ||
            (value->kind == InterfaceValue::Kind::Optional) != v.type().has_optional_type())
          return false;
        std::string name = bindInput(v.name(), *value, inputs, true);
        if (name.empty()) return false;
        inputLayouts.emplace_back(v.name(), InterfaceLayout::of(*value));
        changed_ = true;
        continue;
      }
      *inputs.Add() = v;
      inputLayouts.emplace_back(v.name(), InterfaceLayout{});
      if (value && value->kind == InterfaceValue::Kind::Tensor && value->tensor.bytes && value->tensor.elementCount() == 1 &&
          intValues(value->tensor))
        candidates_[v.name()] = &value->tensor;
    }
    for (auto& n : g_.node())
      if (!process(n)) return false;
    if (!changed_) return false;

    // Outputs: a sequence or optional becomes the tensors it holds.
    google::protobuf::RepeatedPtrField<ValueInfoProto> outputs;
    std::vector<std::pair<std::string, InterfaceLayout>> outputLayouts;
    for (auto& o : g_.output()) {
      if (!bound_ && isStructured(o.name())) { // the model's interface changes only for a run's values
        why_ = "output '" + o.name() + "'\nis a sequence or optional: its tensors are known only for a run's values";
        return false;
      }
      if (!isStructured(o.name())) {
        *outputs.Add() = o;
        outputLayouts.emplace_back(o.name(), InterfaceLayout{});
        continue;
      }
      int32_t elemType = 0;
      for (const TypeProto* t = &o.type(); t;) {
        if (t->has_tensor_type()) elemType = t->tensor_type().elem_type();
        t = t->has_sequence_type() ? &t->sequence_type().elem_type() : t->has_optional_type() ? &t->optional_type().elem_type() : nullptr;
      }
      auto layout = flattenOutput(o.name(), o.name(), elemType, outputs);
      if (!layout) return false;
      outputLayouts.emplace_back(o.name(), std::move(*layout));
    }

    // Inputs folded into the program become constants ahead of everything.
    std::vector<NodeProto> head;
    google::protobuf::RepeatedPtrField<ValueInfoProto> kept;
    for (auto& v : inputs) {
      if (!folded_.count(v.name())) {
        *kept.Add() = v;
        continue;
      }
      NodeProto c;
      c.set_op_type("Constant");
      c.set_name(fresh(v.name() + "_folded"));
      c.add_output(v.name());
      AttributeProto* a = c.add_attribute();
      a->set_name("value");
      a->set_type(AttributeProto::TENSOR);
      *a->mutable_t() = *consts_.at(v.name());
      a->mutable_t()->clear_name();
      head.push_back(std::move(c));
    }
    for (auto& [name, layout] : inputLayouts)
      if (folded_.count(name)) layout.kind = InterfaceLayout::Kind::Folded;

    if (!provisional_.empty() && !dropProvisional(outputs)) return false;
    g_.clear_node();
    for (auto& n : head) *g_.add_node() = std::move(n);
    for (auto& n : nodes_) *g_.add_node() = std::move(n);
    for (auto& t : inits_) *g_.add_initializer() = std::move(t);
    *g_.mutable_input() = kept;
    *g_.mutable_output() = outputs;
    google::protobuf::RepeatedPtrField<ValueInfoProto> vi;
    for (auto& v : g_.value_info())
      if (!isStructured(v.name()) && !isStructuredType(v.type())) *vi.Add() = v;
    *g_.mutable_value_info() = vi;
    if (interface) {
      interface->inputs = std::move(inputLayouts);
      interface->outputs = std::move(outputLayouts);
    }
    return true;
  }

private:
  bool isStructured(const std::string& name) const { return seqs_.count(name) || opts_.count(name); }

  // A graph input bound to a run's value: its tensors become graph inputs named after it; returns the
  // name standing for it (registered as a sequence or optional), empty when it cannot be passed.
  std::string bindInput(const std::string& name, const InterfaceValue& v, google::protobuf::RepeatedPtrField<ValueInfoProto>& inputs,
                        bool top) {
    switch (v.kind) {
    case InterfaceValue::Kind::Tensor: {
      if (v.tensor.dtype == ir::DType::String || v.tensor.dtype == ir::DType::Undefined) return {};
      std::string n = top ? name : freshExact(name);
      ValueInfoProto* vi = inputs.Add();
      vi->set_name(n);
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(dtypeToOnnx(v.tensor.dtype));
      auto* shape = tt->mutable_shape();
      for (auto d : v.tensor.dims) shape->add_dim()->set_dim_value(d);
      return n;
    }
    case InterfaceValue::Kind::Sequence: {
      std::vector<std::string> parts;
      for (size_t i = 0; i < v.elements.size(); ++i) {
        if (v.elements[i].kind != InterfaceValue::Kind::Tensor) return {};
        auto p = bindInput(name + "_" + std::to_string(i), v.elements[i], inputs, false);
        if (p.empty()) return {};
        parts.push_back(p);
      }
      std::string n = top ? name : freshExact(name);
      seqs_[n] = parts;
      return n;
    }
    case InterfaceValue::Kind::Optional: {
      std::optional<std::string> element;
      if (!v.elements.empty()) {
        auto p = bindInput(name + "_value", v.elements[0], inputs, false);
        if (p.empty()) return {};
        element = p;
      }
      std::string n = top ? name : freshExact(name);
      opts_[n] = element;
      return n;
    }
    }
    return {};
  }

  // The layout of output `name`, its tensors appended to `outputs` (named after `base`).
  std::optional<InterfaceLayout> flattenOutput(const std::string& name, const std::string& base, int32_t elemType,
                                               google::protobuf::RepeatedPtrField<ValueInfoProto>& outputs) {
    InterfaceLayout l;
    if (auto s = seqs_.find(name); s != seqs_.end()) {
      l.kind = InterfaceLayout::Kind::Sequence;
      auto parts = s->second;
      for (size_t i = 0; i < parts.size(); ++i) {
        auto e = flattenOutput(parts[i], base + "_" + std::to_string(i), elemType, outputs);
        if (!e) return std::nullopt;
        l.elements.push_back(std::move(*e));
      }
      return l;
    }
    if (auto o = opts_.find(name); o != opts_.end()) {
      l.kind = InterfaceLayout::Kind::Optional;
      if (auto element = o->second) {
        auto e = flattenOutput(*element, base, elemType, outputs);
        if (!e) return std::nullopt;
        l.elements.push_back(std::move(*e));
      }
      return l;
    }
    std::string out = freshExact(base);
    NodeProto id;
    id.set_op_type("Identity");
    id.set_name(fresh(base + "_output"));
    id.add_input(name);
    id.add_output(out);
    nodes_.push_back(std::move(id));
    ValueInfoProto* vi = outputs.Add();
    vi->set_name(out);
    if (elemType) vi->mutable_type()->mutable_tensor_type()->set_elem_type(elemType);
    return l;
  }

  // Such a Split is dropped when only the sequence's length was asked for.
  bool dropProvisional(const google::protobuf::RepeatedPtrField<ValueInfoProto>& outputs) {
    std::set<std::string> used;
    std::function<void(const GraphProto&)> collect = [&](const GraphProto& sub) {
      for (auto& m : sub.node()) {
        for (auto& i : m.input()) used.insert(i);
        for (auto& a : m.attribute()) {
          if (a.has_g()) collect(a.g());
          for (auto& b : a.graphs()) collect(b);
        }
      }
      for (auto& o : sub.output()) used.insert(o.name());
    };
    GraphProto kept;
    for (auto& m : nodes_) *kept.add_node() = m;
    for (auto& o : outputs) *kept.add_output() = o;
    collect(kept);
    std::vector<NodeProto> live;
    for (auto& m : nodes_) {
      if (provisional_.count(m.name())) {
        for (auto& o : m.output())
          if (used.count(o)) return false;
        continue;
      }
      live.push_back(std::move(m));
    }
    nodes_ = std::move(live);
    return true;
  }

  // One node of the graph (or of a subgraph being inlined), in order. Where it cannot be resolved, the
  // first node that failed (the innermost) is recorded with the reason (why()).
  bool process(const NodeProto& n) {
    if (++processed_ > kMaxNodes) return refuse(n, "resolving the sequences would make more than 200000 nodes");
    if (n.domain().empty()) {
      const std::string& op = n.op_type();
      if (kSequenceOps.count(op) || kOptionalOps.count(op) || op == "SequenceMap") {
        changed_ = true;
        bool ok = kSequenceOps.count(op) ? sequenceOp(n) : kOptionalOps.count(op) ? optionalOp(n) : sequenceMap(n);
        return ok || refuse(n, reasonFor(op));
      }
      if (op == "Identity" && n.input_size() == 1 && n.output_size() == 1 && isStructured(n.input(0))) {
        alias(n.output(0), n.input(0));
        return true;
      }
      if ((op == "If" || op == "Loop") && (readsStructure(n) || subgraphsInvolveStructure(n))) {
        changed_ = true;
        return (op == "If" ? inlineIf(n) : unrollLoop(n)) || refuse(n, reasonFor(op));
      }
    }
    if (readsStructure(n)) return refuse(n, reasonFor(""));
    keep(n);
    return true;
  }

  static std::string reasonFor(const std::string& op) {
    if (op == "SequenceAt" || op == "SequenceInsert" || op == "SequenceErase")
      return "its sequence or its position is known only at run time";
    if (op == "SplitToSequence") return "how many pieces it makes is known only at run time";
    if (op == "SequenceMap") return "the lengths of its input sequences are known only at run time";
    if (kOptionalOps.count(op)) return "whether the optional holds a value is known only at run time";
    if (kSequenceOps.count(op)) return "its sequence is known only at run time";
    if (op == "If") return "its condition is known only at run time";
    if (op == "Loop") return "its trip count or condition is known only at run time (or it runs more than 4096 times)";
    return "it takes a sequence or optional, which only the sequence and optional ops can";
  }
  bool refuse(const NodeProto& n, const std::string& reason) {
    if (why_.empty())
      why_ = "node '" + (n.name().empty() ? n.output_size() ? n.output(0) : n.op_type() : n.name()) + "' (" + n.op_type() +
             ")\ncannot be resolved into tensors: " + reason;
    return false;
  }

public:
  const std::string& why() const { return why_; }

private:

  // A node kept as it is; constants (and Identities of them) stay known to later positions.
  void keep(const NodeProto& n) {
    nodes_.push_back(n);
    if (n.domain().empty() && n.output_size() == 1) {
      if (n.op_type() == "Constant") {
        for (auto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) consts_[n.output(0)] = &owned_.emplace_back(a.t());
      } else if (n.op_type() == "Identity" && n.input_size() == 1) {
        if (auto it = consts_.find(n.input(0)); it != consts_.end()) consts_[n.output(0)] = it->second;
      } else if (n.attribute_size() == 0) { // integer arithmetic on constants (Not of OptionalHasElement, ...)
        std::vector<ir::Tensor> values;
        for (auto& i : n.input()) {
          auto it = consts_.find(i);
          if (it == consts_.end()) return;
          TensorProto copy = *it->second;
          auto t = tensorFromOnnx(copy, i, true);
          if (!t) return;
          values.push_back(std::move(*t));
        }
        std::vector<ShapeOpInput> in;
        for (auto& v : values) in.push_back(ShapeOpInput{true, &v, v.dims});
        if (auto r = evaluateShapeOp(n.op_type(), opset_, {}, in, std::nullopt))
          consts_[n.output(0)] = &owned_.emplace_back(tensorToOnnx(*r, n.output(0)));
      }
    }
  }

  // `outer` takes the value of `inner`: the same list for a sequence or optional, a copy for a tensor.
  void alias(const std::string& outer, const std::string& inner) {
    if (auto s = seqs_.find(inner); s != seqs_.end()) {
      seqs_[outer] = s->second;
    } else if (auto o = opts_.find(inner); o != opts_.end()) {
      opts_[outer] = o->second;
    } else {
      NodeProto id;
      id.set_op_type("Identity");
      id.set_name(fresh(outer + "_Identity"));
      id.add_input(inner);
      id.add_output(outer);
      keep(id);
    }
  }

  bool subgraphsInvolveStructure(const NodeProto& n) const {
    for (auto& a : n.attribute())
      if (a.has_g() && involvesStructureOps(a.g())) return true;
    return false;
  }
  static const GraphProto* graphAttr(const NodeProto& n, const std::string& name) {
    for (auto& a : n.attribute())
      if (a.name() == name && a.has_g()) return &a.g();
    return nullptr;
  }

  // The nodes of `body` with its inputs bound to `bound` (outer names), every name it defines made
  // fresh; returns the outer names of its outputs.
  std::optional<std::vector<std::string>> inlineGraph(const GraphProto& body, const std::vector<std::string>& bound) {
    if (depth_ >= kMaxInlineDepth || bound.size() != size_t(body.input_size())) return std::nullopt;
    GraphProto copy = body;
    std::map<std::string, std::string> renamed;
    for (int i = 0; i < body.input_size(); ++i) renamed[body.input(i).name()] = bound[size_t(i)];
    copy.clear_input();
    renameDefinitions(copy, renamed, true);
    ++depth_;
    for (auto& m : copy.node())
      if (!process(m)) return std::nullopt;
    --depth_;
    std::vector<std::string> outs;
    for (auto& o : copy.output()) outs.push_back(o.name());
    return outs;
  }
  void renameDefinitions(GraphProto& g, std::map<std::string, std::string>& renamed, bool top) {
    auto ref = [&](std::string* name) {
      if (auto it = renamed.find(*name); !name->empty() && it != renamed.end()) *name = it->second;
    };
    for (auto& v : *g.mutable_input()) v.set_name(renamed[v.name()] = fresh(v.name()));
    for (auto& t : *g.mutable_initializer()) {
      t.set_name(renamed[t.name()] = fresh(t.name()));
      if (top) inits_.push_back(t);
    }
    if (top) g.clear_initializer();
    for (auto& n : *g.mutable_node()) {
      for (auto& i : *n.mutable_input()) ref(&i);
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) renameDefinitions(*a.mutable_g(), renamed, false);
        for (auto& sub : *a.mutable_graphs()) renameDefinitions(sub, renamed, false);
      }
      for (auto& o : *n.mutable_output())
        if (!o.empty()) o = renamed[o] = fresh(o);
      if (top) n.set_name(fresh(n.name().empty() ? n.op_type() : n.name()));
    }
    for (auto& o : *g.mutable_output()) ref(o.mutable_name());
    for (auto& v : *g.mutable_value_info())
      if (auto it = renamed.find(v.name()); it != renamed.end()) v.set_name(it->second);
  }

  // If whose condition is known (a constant, or an input folded for this run): the taken branch's nodes.
  bool inlineIf(const NodeProto& n) {
    if (n.input_size() < 1) return false;
    auto cond = constInts(n.input(0));
    const GraphProto* branch = cond && cond->size() == 1 ? graphAttr(n, (*cond)[0] ? "then_branch" : "else_branch") : nullptr;
    if (!branch) return false;
    auto outs = inlineGraph(*branch, {});
    if (!outs || outs->size() != size_t(n.output_size())) return false;
    for (int k = 0; k < n.output_size(); ++k)
      if (!n.output(k).empty()) alias(n.output(k), (*outs)[size_t(k)]);
    return true;
  }

  // Loop whose trip count and condition are known at every iteration: its body, once per iteration.
  bool unrollLoop(const NodeProto& n) {
    const GraphProto* body = graphAttr(n, "body");
    if (!body || n.input_size() < 2 || body->input_size() != n.input_size()) return false;
    std::optional<int64_t> trips;
    if (!n.input(0).empty()) {
      auto m = constInts(n.input(0));
      if (!m || m->size() != 1) return false;
      trips = (*m)[0];
    }
    std::string cond = n.input(1);
    if (cond.empty()) cond = scalarConstant(n.output(0) + "_cond", TensorProto::BOOL, 1);
    const size_t carried = size_t(n.input_size() - 2);
    std::vector<std::string> values(n.input().begin() + 2, n.input().end());
    const size_t scans = size_t(n.output_size()) - carried;
    if (size_t(body->output_size()) != 1 + carried + scans) return false;
    std::vector<std::vector<std::string>> scanned(scans);
    for (int64_t i = 0;; ++i) {
      if (trips && i >= *trips) break;
      auto c = constInts(cond);
      if (!c || c->size() != 1) return false;
      if (!(*c)[0]) break;
      if (i >= kMaxIterations) return false;
      std::vector<std::string> bound{scalarConstant(n.output(0) + "_iteration", TensorProto::INT64, i), cond};
      bound.insert(bound.end(), values.begin(), values.end());
      auto outs = inlineGraph(*body, bound);
      if (!outs) return false;
      cond = (*outs)[0];
      for (size_t j = 0; j < carried; ++j) values[j] = (*outs)[1 + j];
      for (size_t k = 0; k < scans; ++k) {
        if (isStructured((*outs)[1 + carried + k])) return false;
        scanned[k].push_back((*outs)[1 + carried + k]);
      }
    }
    for (size_t j = 0; j < carried; ++j)
      if (!n.output(int(j)).empty()) alias(n.output(int(j)), values[j]);
    for (size_t k = 0; k < scans; ++k) {
      const std::string& out = n.output(int(carried + k));
      if (out.empty()) continue;
      if (scanned[k].empty()) return false; // the scan's element shape is not known without an iteration
      std::vector<std::string> parts;
      for (auto& p : scanned[k]) parts.push_back(axisOp(n, "Unsqueeze", p, 0));
      intAttr(emit(n, "Concat", parts, {out}), "axis", 0);
    }
    return true;
  }

  // SequenceMap: its body once per element of the input sequences.
  bool sequenceMap(const NodeProto& n) {
    const GraphProto* body = graphAttr(n, "body");
    if (!body || n.input_size() < 1 || body->input_size() != n.input_size() || body->output_size() != n.output_size()) return false;
    auto first = seqs_.find(n.input(0));
    if (first == seqs_.end()) return false;
    const size_t count = first->second.size();
    std::vector<std::vector<std::string>> results(size_t(n.output_size()));
    for (size_t i = 0; i < count; ++i) {
      std::vector<std::string> bound;
      for (auto& in : n.input()) {
        if (auto s = seqs_.find(in); s != seqs_.end()) {
          if (s->second.size() != count) return false;
          bound.push_back(s->second[i]);
        } else if (opts_.count(in)) {
          return false;
        } else {
          bound.push_back(in);
        }
      }
      auto outs = inlineGraph(*body, bound);
      if (!outs) return false;
      for (size_t k = 0; k < outs->size(); ++k) {
        if (isStructured((*outs)[k])) return false;
        results[k].push_back((*outs)[k]);
      }
    }
    for (int k = 0; k < n.output_size(); ++k) seqs_[n.output(k)] = results[size_t(k)];
    return true;
  }

  bool optionalOp(const NodeProto& n) {
    if (n.output_size() < 1 || n.output(0).empty()) return false;
    const std::string& op = n.op_type();
    const std::string out = n.output(0);
    if (op == "Optional") {
      if (n.input_size() == 0 || n.input(0).empty()) opts_[out] = std::nullopt;
      else if (opts_.count(n.input(0))) return false;
      else opts_[out] = n.input(0);
      return true;
    }
    if (n.input_size() < 1) return false;
    const std::string& in = n.input(0);
    std::optional<std::string> element; // what it holds, or nothing
    if (auto o = opts_.find(in); o != opts_.end()) element = o->second;
    else if (seqs_.count(in)) element = in; // from opset 18 these take a plain sequence or tensor too
    else return false;
    if (op == "OptionalHasElement") {
      scalarConstantAs(out, TensorProto::BOOL, element ? 1 : 0);
      return true;
    }
    if (!element) return false; // OptionalGetElement of an empty optional is an error
    alias(out, *element);
    return true;
  }

  // A node (or a subgraph of it, which may capture outer names) reading a resolved sequence or optional.
  bool readsStructure(const NodeProto& n) const {
    for (auto& i : n.input())
      if (isStructured(i)) return true;
    for (auto& a : n.attribute()) {
      if (a.has_g() && graphReads(a.g())) return true;
      for (auto& sub : a.graphs())
        if (graphReads(sub)) return true;
    }
    return false;
  }
  bool graphReads(const GraphProto& sub) const {
    for (auto& n : sub.node())
      if (readsStructure(n)) return true;
    for (auto& o : sub.output())
      if (isStructured(o.name())) return true;
    return false;
  }

  std::string scalarConstant(const std::string& base, int32_t type, int64_t value) {
    std::string name = fresh(base);
    scalarConstantAs(name, type, value);
    return name;
  }
  void scalarConstantAs(const std::string& name, int32_t type, int64_t value) {
    NodeProto c;
    c.set_op_type("Constant");
    c.set_name(fresh(name + "_Constant"));
    c.add_output(name);
    AttributeProto* a = c.add_attribute();
    a->set_name("value");
    a->set_type(AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(type);
    if (type == TensorProto::BOOL) a->mutable_t()->add_int32_data(int32_t(value != 0));
    else a->mutable_t()->add_int64_data(value);
    keep(c);
  }

  // The value of a constant, or of an input this run folds (it becomes a constant of the program).
  std::optional<std::vector<int64_t>> constInts(const std::string& name) {
    auto it = consts_.find(name);
    if (it == consts_.end()) {
      auto c = candidates_.find(name);
      if (c == candidates_.end()) return std::nullopt;
      folded_.insert(name);
      changed_ = true;
      it = consts_.emplace(name, &owned_.emplace_back(tensorToOnnx(*c->second, name))).first;
    }
    TensorProto copy = *it->second;
    auto t = tensorFromOnnx(copy, name, true);
    if (!t) return std::nullopt;
    return intValues(*t);
  }
  std::optional<size_t> constRank(const std::string& name) const {
    auto it = consts_.find(name);
    return it == consts_.end() ? std::nullopt : std::optional<size_t>(size_t(it->second->dims_size()));
  }
  // Dims from the graph's inputs, value_info (ONNX's inference) or initializers: the rank, and each dim
  // where it is a number.
  using Dims = std::vector<std::optional<int64_t>>;
  std::optional<Dims> dimsOf(const std::string& name) const {
    auto fromType = [](const ValueInfoProto& v) -> std::optional<Dims> {
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return std::nullopt;
      Dims d;
      for (auto& dim : v.type().tensor_type().shape().dim())
        d.push_back(dim.has_dim_value() ? std::optional<int64_t>(dim.dim_value()) : std::nullopt);
      return d;
    };
    if (auto it = consts_.find(name); it != consts_.end()) return Dims(it->second->dims().begin(), it->second->dims().end());
    for (auto& v : g_.input())
      if (v.name() == name) return fromType(v);
    for (auto& v : g_.value_info())
      if (v.name() == name) return fromType(v);
    return std::nullopt;
  }

  std::string freshExact(const std::string& base) {
    if (names_.insert(base).second) return base;
    return fresh(base);
  }
  std::string fresh(const std::string& base) {
    for (int k = 0;; ++k) {
      std::string n = base + "_" + std::to_string(k);
      if (names_.insert(n).second) return n;
    }
  }
  std::string intConstant(const std::string& base, const std::vector<int64_t>& values, bool scalar = false) {
    TensorProto t;
    t.set_name(base.empty() ? std::string() : fresh(base));
    t.set_data_type(TensorProto::INT64);
    if (!scalar) t.add_dims(int64_t(values.size()));
    for (auto v : values) t.add_int64_data(v);
    std::string name = t.name();
    inits_.push_back(std::move(t));
    return name;
  }
  NodeProto& emit(const NodeProto& from, const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs) {
    NodeProto n;
    n.set_op_type(op);
    n.set_name(fresh((from.name().empty() ? from.op_type() : from.name()) + "_" + op));
    for (auto& i : ins) n.add_input(i);
    for (auto& o : outs) n.add_output(o);
    nodes_.push_back(std::move(n));
    return nodes_.back();
  }
  static void intAttr(NodeProto& n, const std::string& name, int64_t v) {
    AttributeProto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INT);
    a->set_i(v);
  }
  static void intsAttr(NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    AttributeProto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  static int64_t attrInt(const NodeProto& n, const std::string& name, int64_t fallback) {
    for (auto& a : n.attribute())
      if (a.name() == name && a.type() == AttributeProto::INT) return a.i();
    return fallback;
  }
  // Unsqueeze or Squeeze of `in` at `axis`: axes as an input from opset 13, an attribute before.
  std::string axisOp(const NodeProto& from, const std::string& op, const std::string& in, int64_t axis) {
    std::string out = fresh(in + "_" + (op == "Squeeze" ? std::string("squeezed") : std::string("unsqueezed")));
    if (opset_ >= 13) {
      emit(from, op, {in, intConstant(from.output(0) + "_axes", {axis})}, {out});
    } else {
      intsAttr(emit(from, op, {in}, {out}), "axes", {axis});
    }
    return out;
  }
  // A constant position into a sequence of n tensors, normalized; nullopt when run-time or out of range.
  std::optional<int64_t> position(const NodeProto& n, int input, int64_t fallback, int64_t size, bool insert) {
    int64_t p = fallback;
    if (n.input_size() > input && !n.input(input).empty()) {
      auto v = constInts(n.input(input));
      if (!v || v->size() != 1) return std::nullopt;
      p = (*v)[0];
    }
    if (p < 0) p += size;
    if (p < 0 || p > size || (!insert && p == size)) return std::nullopt;
    return p;
  }

  bool sequenceOp(const NodeProto& n) {
    const std::string& op = n.op_type();
    if (n.output_size() < 1 || n.output(0).empty()) return false;
    const std::string out = n.output(0);
    auto seqIn = [&](int k) -> const std::vector<std::string>* {
      if (n.input_size() <= k) return nullptr;
      auto it = seqs_.find(n.input(k));
      return it == seqs_.end() ? nullptr : &it->second;
    };
    if (op == "SequenceEmpty") {
      seqs_[out] = {};
      return true;
    }
    if (op == "SequenceConstruct") {
      seqs_[out] = std::vector<std::string>(n.input().begin(), n.input().end());
      return true;
    }
    if (op == "SplitToSequence") return splitToSequence(n);
    const auto* s = seqIn(0);
    if (!s) return false;
    const int64_t size = int64_t(s->size());
    if (op == "SequenceInsert") {
      if (n.input_size() < 2) return false;
      auto p = position(n, 2, size, size, true);
      if (!p) return false;
      if (isStructured(n.input(1))) return false;
      auto list = *s;
      list.insert(list.begin() + *p, n.input(1));
      seqs_[out] = std::move(list);
      return true;
    }
    if (op == "SequenceErase") {
      auto p = position(n, 1, size - 1, size, false);
      if (!p) return false;
      auto list = *s;
      list.erase(list.begin() + *p);
      seqs_[out] = std::move(list);
      return true;
    }
    if (op == "SequenceAt") {
      auto p = position(n, 1, 0, size, false);
      if (!p || n.input_size() < 2) return false;
      alias(out, (*s)[size_t(*p)]);
      return true;
    }
    if (op == "SequenceLength") {
      scalarConstantAs(out, TensorProto::INT64, size);
      return true;
    }
    if (op == "ConcatFromSequence") {
      if (s->empty()) return false;
      const int64_t axis = attrInt(n, "axis", INT64_MIN);
      if (axis == INT64_MIN) return false;
      std::vector<std::string> parts = *s;
      if (attrInt(n, "new_axis", 0) != 0)
        for (auto& p : parts) p = axisOp(n, "Unsqueeze", p, axis);
      intAttr(emit(n, "Concat", parts, {out}), "axis", axis);
      return true;
    }
    return false;
  }

  bool splitToSequence(const NodeProto& n) {
    if (n.input_size() < 1) return false;
    const std::string& x = n.input(0);
    const std::string out = n.output(0);
    int64_t axis = attrInt(n, "axis", 0);
    const bool keepdims = attrInt(n, "keepdims", 1) != 0;
    const bool hasSplit = n.input_size() > 1 && !n.input(1).empty();
    auto shape = dimsOf(x);
    if (axis < 0) {
      if (!shape) return false;
      axis += int64_t(shape->size());
    }
    if (shape && (axis < 0 || axis >= int64_t(shape->size()))) return false;
    std::optional<int64_t> dim = shape ? (*shape)[size_t(axis)] : std::nullopt;
    std::optional<std::vector<int64_t>> sizes; // constant piece sizes
    std::string runtimeSplit;                  // a 1-D split known only at run time
    size_t pieces = 0;
    if (!hasSplit) {
      if (!dim || *dim <= 0) return false;
      pieces = size_t(*dim);
      sizes = std::vector<int64_t>(pieces, 1);
    } else {
      const std::string& split = n.input(1);
      auto v = constInts(split);
      auto rank = constRank(split);
      if (v && rank && *rank == 0) { // every piece `s` long, the last one shorter
        if (!dim || (*v)[0] <= 0) return false;
        sizes = std::vector<int64_t>();
        for (int64_t at = 0; at < *dim; at += (*v)[0]) sizes->push_back(std::min((*v)[0], *dim - at));
        pieces = sizes->size();
      } else if (v) {
        sizes = *v;
        pieces = v->size();
      } else {
        auto sshape = dimsOf(split);
        if (!sshape || sshape->size() != 1 || !(*sshape)[0]) return false;
        pieces = size_t(*(*sshape)[0]);
        runtimeSplit = split;
      }
    }
    if (pieces == 0) return false;
    std::vector<std::string> parts;
    for (size_t k = 0; k < pieces; ++k) parts.push_back(fresh(out + "_part"));
    std::vector<std::string> ins{x};
    if (!runtimeSplit.empty()) ins.push_back(runtimeSplit);
    else if (opset_ >= 13) ins.push_back(intConstant(out + "_split", *sizes));
    NodeProto& split = emit(n, "Split", ins, parts);
    intAttr(split, "axis", axis);
    if (!runtimeSplit.empty() && opset_ < 13) provisional_.insert(split.name()); // Split takes no split input before 13
    if (runtimeSplit.empty() && opset_ < 13) intsAttr(split, "split", *sizes);
    if (!hasSplit && !keepdims)
      for (auto& p : parts) p = axisOp(n, "Squeeze", p, axis);
    seqs_[out] = parts;
    return true;
  }

  GraphProto& g_;
  int64_t opset_;
  const std::map<std::string, InterfaceValue>* bound_;
  std::map<std::string, const TensorProto*> consts_;
  std::deque<TensorProto> owned_;                      // constants made here (stable addresses)
  std::map<std::string, const ir::Tensor*> candidates_; // one-element integer/bool inputs that may be folded
  std::set<std::string> folded_;                       // those that were
  std::set<std::string> names_;
  std::map<std::string, std::vector<std::string>> seqs_;            // sequence → its tensors
  std::map<std::string, std::optional<std::string>> opts_;          // optional → what it holds (a tensor or a sequence)
  std::set<std::string> provisional_;   // Splits valid only if no one reads their pieces (a run-time split before opset 13)
  std::vector<NodeProto> nodes_;
  std::vector<TensorProto> inits_;
  bool changed_ = false;
  std::string why_; // the first node that could not be resolved, and why
  size_t processed_ = 0;
  int depth_ = 0;
};

} // namespace

bool resolveStaticSequences(GraphProto& g, int64_t opset, const std::map<std::string, InterfaceValue>* inputs,
                            ModelInterface* interface, std::string* why) {
  if (!involvesStructureOps(g)) return false;
  Resolver r(g, opset, inputs);
  if (r.run(interface)) return true; // g is written only when it succeeds
  if (why) *why = r.why();
  return false;
}

} // namespace dcw::onnx
