#include "core/onnx/StaticSequences.h"

#include "core/onnx/OnnxTypes.h"
#include "core/onnx/ShapeArithmetic.h"

#include <algorithm>
#include <cstdint>
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
using ::onnx::ValueInfoProto;

namespace {

const std::set<std::string> kSequenceOps = {"SequenceEmpty",  "SequenceConstruct", "SequenceInsert",     "SequenceErase",
                                            "SequenceAt",     "SequenceLength",    "ConcatFromSequence", "SplitToSequence"};

class Resolver {
public:
  Resolver(GraphProto& g, int64_t opset) : g_(g), opset_(opset) {
    for (auto& t : g.initializer()) {
      names_.insert(t.name());
      consts_[t.name()] = &t;
    }
    for (auto& v : g.input()) names_.insert(v.name());
    for (auto& n : g.node()) {
      for (auto& o : n.output()) names_.insert(o);
      if (n.op_type() == "Constant" && n.domain().empty() && n.output_size() == 1)
        for (auto& a : n.attribute())
          if (a.name() == "value" && a.has_t()) consts_[n.output(0)] = &a.t();
    }
  }

  // False (and g untouched) when some sequence cannot be resolved or there is none.
  bool run() {
    for (auto& n : g_.node()) {
      if (n.domain().empty() && kSequenceOps.count(n.op_type())) {
        if (!sequenceOp(n)) return false;
        continue;
      }
      if (n.domain().empty() && n.op_type() == "Identity" && n.input_size() == 1 && seqs_.count(n.input(0))) {
        seqs_[n.output(0)] = seqs_[n.input(0)];
        continue;
      }
      if (readsSequence(n)) return false;
      nodes_.push_back(n);
    }
    if (seqs_.empty()) return false;
    for (auto& o : g_.output())
      if (seqs_.count(o.name())) return false;
    if (!provisional_.empty()) { // such a Split is dropped when only the sequence's length was asked for
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
      for (auto& o : g_.output()) *kept.add_output() = o;
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
    }
    g_.clear_node();
    for (auto& n : nodes_) *g_.add_node() = std::move(n);
    for (auto& t : inits_) *g_.add_initializer() = std::move(t);
    google::protobuf::RepeatedPtrField<ValueInfoProto> vi;
    for (auto& v : g_.value_info())
      if (!seqs_.count(v.name())) *vi.Add() = v;
    *g_.mutable_value_info() = vi;
    return true;
  }

private:
  // A node (or a subgraph of it, which may capture outer names) reading a resolved sequence.
  bool readsSequence(const NodeProto& n) const {
    for (auto& i : n.input())
      if (seqs_.count(i)) return true;
    for (auto& a : n.attribute()) {
      if (a.has_g() && graphReads(a.g())) return true;
      for (auto& sub : a.graphs())
        if (graphReads(sub)) return true;
    }
    return false;
  }
  bool graphReads(const GraphProto& sub) const {
    for (auto& n : sub.node())
      if (readsSequence(n)) return true;
    for (auto& o : sub.output())
      if (seqs_.count(o.name())) return true;
    return false;
  }

  std::optional<std::vector<int64_t>> constInts(const std::string& name) const {
    auto it = consts_.find(name);
    if (it == consts_.end()) return std::nullopt;
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
  std::optional<int64_t> position(const NodeProto& n, int input, int64_t fallback, int64_t size, bool insert) const {
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
      emit(n, "Identity", {(*s)[size_t(*p)]}, {out});
      return true;
    }
    if (op == "SequenceLength") {
      AttributeProto* value = emit(n, "Constant", {}, {out}).add_attribute();
      value->set_name("value");
      value->set_type(AttributeProto::TENSOR);
      value->mutable_t()->set_data_type(TensorProto::INT64);
      value->mutable_t()->add_int64_data(size);
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
  std::map<std::string, const TensorProto*> consts_;
  std::set<std::string> names_;
  std::map<std::string, std::vector<std::string>> seqs_;
  std::set<std::string> provisional_;   // Splits valid only if no one reads their pieces (a run-time split before opset 13)
  std::vector<NodeProto> nodes_;
  std::vector<TensorProto> inits_;
};

} // namespace

bool resolveStaticSequences(GraphProto& g, int64_t opset) {
  bool any = false;
  for (auto& n : g.node())
    if (n.domain().empty() && kSequenceOps.count(n.op_type())) any = true;
  if (!any) return false;
  return Resolver(g, opset).run();
}

} // namespace dcw::onnx
