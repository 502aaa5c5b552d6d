// Structural tests of the `pure` expansions of the Elementwise, Reductions, Softmax and
// Normalization families: every ONNX backend test model holding these ops (node with the _expanded
// variants, pytorch-converted, pytorch-operator) goes through the shared conformance harness
// (tests/support/ExpansionTestSupport.h): its nodes of these ops expand and validate with none left
// as a library node and every tasklet well-formed, or it is a listed refusal with its exact message
// (string casts, sequences, random dropout). A few expansions are checked in detail (map ranges,
// broadcast subsets, WCR on reductions, the stable softmax passes, TopK's rank formulation).
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/Expansion.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"

#include <QtTest>

#include <set>

using namespace dcw;
using namespace dcw::ir;

namespace {

const std::set<std::string>& familyOps() {
  static const std::set<std::string> ops{
      // Elementwise
      "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos",
      "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Erf", "Not", "IsNaN", "IsInf", "Relu", "LeakyRelu", "Elu", "Selu",
      "Celu", "HardSigmoid", "HardSwish", "Sigmoid", "Softplus", "Softsign", "Tanh", "ThresholdedRelu", "Shrink", "Identity",
      "Dropout", "Cast", "CastLike", "Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Sum", "Mean", "And", "Or", "Xor",
      "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "BitShift", "PRelu", "Where", "Clip",
      // Reductions
      "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
      "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin", "TopK",
      // Softmax
      "Softmax", "LogSoftmax", "Hardmax",
      // Normalization
      "BatchNormalization", "LayerNormalization", "InstanceNormalization", "LRN", "MeanVarianceNormalization"};
  return ops;
}

// Every tasklet parses, and reads only its input connectors, map parameters of enclosing maps or
// SDFG symbols; it writes only its output connectors. Returns the first problem (empty when none).
std::string checkTasklets(Sdfg& s) {
  for (State* st : s.allStates()) {
    auto scopes = st->scopeOf();
    if (!scopes) return scopes.error().str();
    for (auto& n : st->nodes()) {
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) {
        if (auto e = checkTasklets(ns->sdfg()); !e.empty()) return e;
        continue;
      }
      auto* t = dynamic_cast<Tasklet*>(n.get());
      if (!t) continue;
      auto p = tasklet::parse(t->code, t->label());
      if (!p) return p.error().str() + "\n" + t->code;
      std::set<std::string> known;
      for (auto& c : t->inConnectors()) known.insert(c.name);
      for (auto& [name, type] : s.symbols()) known.insert(name);
      for (const MapEntry* me = scopes->at(t->id()); me; me = scopes->at(me->id()))
        for (auto& prm : me->params) known.insert(prm);
      for (auto& name : tasklet::readNames(*p))
        if (!known.count(name)) return t->label() + " reads unknown name '" + name + "':\n" + t->code;
      std::set<std::string> outs;
      for (auto& c : t->outConnectors()) outs.insert(c.name);
      for (auto& name : tasklet::writtenNames(*p))
        if (!outs.count(name)) return t->label() + " writes '" + name + "', which is no output connector";
    }
  }
  return {};
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// The family: node tests of these ops (by folder prefix, the _expanded variants included) and the
// PyTorch suites; every tasklet of an expanded case must be well-formed (checkTasklets).
const testsupport::ExpansionFamily& family() {
  static const testsupport::ExpansionFamily f = [] {
    testsupport::ExpansionFamily f;
    f.nodePrefixes = {
        "test_abs", "test_neg", "test_exp", "test_log", "test_sqrt", "test_reciprocal", "test_floor", "test_ceil", "test_round",
        "test_sign", "test_sin", "test_cos", "test_tan", "test_asin", "test_acos", "test_atan", "test_sinh", "test_cosh",
        "test_erf", "test_not_", "test_isnan", "test_isinf", "test_relu", "test_leakyrelu", "test_elu", "test_selu", "test_celu",
        "test_hardsigmoid", "test_hardswish", "test_sigmoid", "test_softplus", "test_softsign", "test_tanh",
        "test_thresholdedrelu", "test_shrink", "test_identity", "test_dropout", "test_training_dropout", "test_cast",
        "test_add", "test_sub", "test_mul", "test_div", "test_pow", "test_mod", "test_max_", "test_min_", "test_sum_",
        "test_mean_", "test_and", "test_or", "test_xor", "test_equal", "test_less", "test_greater", "test_bitshift",
        "test_prelu", "test_where", "test_clip", "test_reduce_", "test_argmax", "test_argmin", "test_top_k", "test_softmax",
        "test_logsoftmax", "test_hardmax", "test_batchnorm", "test_layer_normalization", "test_instancenorm", "test_lrn",
        "test_mvn"};
    f.withExpandedVariants = true;
    f.wholeSuites = {"pytorch-converted", "pytorch-operator"};
    f.select = [](const LibraryNode& n) { return n.domain.empty() && familyOps().count(n.opType) > 0; };
    f.check = checkTasklets;
    const std::string toString = "casts from or to string are not supported by the pure expansion (float32 -> string)";
    const std::string fromString = "casts from or to string are not supported by the pure expansion (string -> float32)";
    using testsupport::refusedOnExpansion;
    f.refusals = {
        // Strings are not lowered.
        {"test_cast_FLOAT_to_STRING", refusedOnExpansion(toString)},
        {"test_cast_STRING_to_FLOAT", refusedOnExpansion(fromString)},
        {"test_castlike_FLOAT_to_STRING", refusedOnExpansion(toString)},
        {"test_castlike_STRING_to_FLOAT", refusedOnExpansion(fromString)},
        {"test_castlike_FLOAT_to_STRING_expanded", refusedOnExpansion(toString)},
        {"test_castlike_STRING_to_FLOAT_expanded", refusedOnExpansion(fromString)},
        // Sequences and optionals are not lowered.
        {"test_identity_sequence", refusedOnExpansion("operand 'input' is a seq(float32[?]); this expansion handles tensors only")},
        {"test_identity_opt",
         refusedOnExpansion("operand 'input' is a optional(seq(float32[5])); this expansion handles tensors only")},
    };
    return f;
  }();
  return f;
}

// The map of an elementwise, reduction or normalization expansion: labelled "<label>_map…".
testsupport::MapInfo findMap(const Sdfg& s, const std::string& label, int skip = 0) {
  return testsupport::findMap(s, label + "_map", skip);
}
using testsupport::MapInfo;

} // namespace

class TestExpansionsElementwise : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() { DCW_REQUIRE_ONNX_TESTDATA(); }

  void registered() {
    for (auto& op : familyOps())
      QVERIFY2(expansions::registry().find("", op, "pure"), qPrintable(QString::fromStdString(op) + " has no pure expansion"));
  }

  void conformance_data() { testsupport::addConformanceRows(family()); }
  void conformance() { testsupport::checkConformanceRow(family()); }
  void coverage() { testsupport::checkCoverage(family()); }

  void unaryIsOneMap() {
    auto s = testsupport::expandCase(family(), "test_relu");
    QVERIFY2(s, s.error.c_str());
    MapInfo relu = findMap(*s, "relu");
    QVERIFY(relu.entry);
    QCOMPARE(QString::fromStdString(relu.entry->range.str()), QString("0:3, 0:4, 0:5"));
    QCOMPARE(relu.wcr, std::set<std::string>{""});
    QVERIFY(contains(relu.inMemlets, "X[i0, i1, i2]"));
    QVERIFY2(relu.code.find("max(") != std::string::npos, relu.code.c_str());
  }

  void binaryBroadcasts() {
    auto s = testsupport::expandCase(family(), "test_add_bcast"); // A[3, 4, 5] + B[5]
    QVERIFY2(s, s.error.c_str());
    MapInfo add = findMap(*s, "add");
    QVERIFY(add.entry);
    QCOMPARE(QString::fromStdString(add.entry->range.str()), QString("0:3, 0:4, 0:5"));
    QVERIFY(contains(add.inMemlets, "A[i0, i1, i2]"));
    QVERIFY(contains(add.inMemlets, "B[i2]"));
    // Integer Mod with Python's sign rule; float16 computes in float32.
    auto mod = testsupport::expandCase(family(), "test_mod_mixed_sign_int32");
    QVERIFY2(mod, mod.error.c_str());
    QVERIFY(findMap(*mod, "mod").code.find("%") != std::string::npos);
    auto h = testsupport::expandCase(family(), "test_max_float16");
    QVERIFY2(h, h.error.c_str());
    QVERIFY2(findMap(*h, "max").code.find("float32(") != std::string::npos, findMap(*h, "max").code.c_str());
  }

  void reductionsUseWcr() {
    auto s = testsupport::expandCase(family(), "test_reduce_sum_keepdims_example"); // data[3, 2, 2], axes [1] (constant or not)
    QVERIFY2(s, s.error.c_str());
    MapInfo red = findMap(*s, "reduce");
    QVERIFY(red.entry);
    QCOMPARE(red.wcr, std::set<std::string>{"sum"});
    QCOMPARE(QString::fromStdString(red.entry->range.str()), QString("0:3, 0:2, 0:2"));
    auto mx = testsupport::expandCase(family(), "test_reduce_max_keepdims_example");
    QVERIFY2(mx, mx.error.c_str());
    QCOMPARE(findMap(*mx, "reduce").wcr, std::set<std::string>{"max"});
    // LogSumExp subtracts the maximum first.
    auto lse = testsupport::expandCase(family(), "test_reduce_log_sum_exp_keepdims_example");
    QVERIFY2(lse, lse.error.c_str());
    QCOMPARE(findMap(*lse, "max").wcr, std::set<std::string>{"max"});
    QCOMPARE(findMap(*lse, "reduce").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*lse, "finish").entry);
    // ArgMax: the first index reaching the max (WCR min); select_last_index takes WCR max.
    auto am = testsupport::expandCase(family(), "test_argmax_keepdims_example");
    QVERIFY2(am, am.error.c_str());
    QCOMPARE(findMap(*am, "index").wcr, std::set<std::string>{"min"});
    auto al = testsupport::expandCase(family(), "test_argmax_keepdims_example_select_last_index");
    QVERIFY2(al, al.error.c_str());
    QCOMPARE(findMap(*al, "index").wcr, std::set<std::string>{"max"});
  }

  void runtimeAxesPickACandidate() {
    // data[3, 2, 2] -> reduced[3, 2] with keepdims = 0: axis 1 or 2 fit the shapes. Unless the axes
    // are a constant, both candidates are computed and the runtime axes select one.
    auto s = testsupport::expandCase(family(), "test_reduce_sum_do_not_keepdims_example");
    QVERIFY2(s, s.error.c_str());
    MapInfo first = findMap(*s, "reduce");
    QVERIFY(first.entry);
    QCOMPARE(first.wcr, std::set<std::string>{"sum"});
    if (findMap(*s, "reduce", 1).entry)
      QVERIFY2(first.code.find("ax0 == 1") != std::string::npos, first.code.c_str());
  }

  void softmaxIsStable() {
    auto s = testsupport::expandCase(family(), "test_softmax_axis_1"); // opset 13: only axis 1
    QVERIFY2(s, s.error.c_str());
    QCOMPARE(findMap(*s, "max").wcr, std::set<std::string>{"max"});
    MapInfo sum = findMap(*s, "sum");
    QCOMPARE(sum.wcr, std::set<std::string>{"sum"});
    QVERIFY(contains(sum.inMemlets, "max[i0, 0, i2]"));
    QVERIFY2(findMap(*s, "softmax").code.find("exp(x - m)") != std::string::npos, findMap(*s, "softmax").code.c_str());
  }

  void topKRanks() {
    auto s = testsupport::expandCase(family(), "test_top_k"); // X[3, 4], k = 3 along axis 1
    QVERIFY2(s, s.error.c_str());
    MapInfo rank = findMap(*s, "rank");
    QVERIFY(rank.entry);
    QCOMPARE(rank.wcr, std::set<std::string>{"sum"});
    QCOMPARE(QString::fromStdString(rank.entry->range.str()), QString("0:3, 0:4, 0:4"));
    MapInfo sel = findMap(*s, "select");
    QVERIFY(sel.entry);
    QCOMPARE(QString::fromStdString(sel.entry->range.str()), QString("0:3, 0:3, 0:4"));
    QCOMPARE(sel.wcr, std::set<std::string>{"sum"});
  }

  void normalizationStatistics() {
    auto ln = testsupport::expandCase(family(), "test_layer_normalization_4d_axis1");
    QVERIFY2(ln, ln.error.c_str());
    QCOMPARE(findMap(*ln, "sum").wcr, std::set<std::string>{"sum"});
    QCOMPARE(findMap(*ln, "sqdev").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*ln, "layernorm").entry);
    auto lrn = testsupport::expandCase(family(), "test_lrn");
    QVERIFY2(lrn, lrn.error.c_str());
    MapInfo w = findMap(*lrn, "window");
    QVERIFY(w.entry);
    QCOMPARE(w.wcr, std::set<std::string>{"sum"});
    QVERIFY(contains(w.inMemlets, "squares[i0, i1 + k, i2, i3]"));
    auto bn = testsupport::expandCase(family(), "test_batchnorm_example_training_mode");
    QVERIFY2(bn, bn.error.c_str());
    QVERIFY(findMap(*bn, "running_mean").entry);
  }

  void refusalsAreClear() {
    auto s = testsupport::expandCase(family(), "test_cast_FLOAT_to_STRING");
    QVERIFY(!s);
    QVERIFY2(s.error.find("Cast") != std::string::npos && s.error.find("string") != std::string::npos, s.error.c_str());
  }
};

QTEST_GUILESS_MAIN(TestExpansionsElementwise)
#include "tst_ExpansionsElementwise.moc"
