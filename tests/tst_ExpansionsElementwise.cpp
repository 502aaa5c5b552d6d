// Structural tests of the `pure` expansions of the Elementwise, Reductions, Softmax and
// Normalization families: every ONNX backend test model of these ops (node, pytorch-converted,
// pytorch-operator) is loaded, its nodes of these ops expanded, and the result must validate with
// none of them left as a library node — or be refused with the expected message (string casts,
// sequences, random dropout). A few expansions are checked in detail (map ranges, broadcast
// subsets, WCR on reductions, the stable softmax passes, TopK's rank formulation).
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/io/ModelFile.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/tasklet/TaskletCode.h"

#include <QtTest>

#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;
using namespace dcw;
using namespace dcw::ir;

namespace {

const std::string kData = "/usr/share/libonnx-testdata/data";

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

// Node test folders of these ops (by name prefix), the _expanded variants included.
const std::vector<std::string>& nodePrefixes() {
  static const std::vector<std::string> p{
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
  return p;
}

using Found = testsupport::FoundNode;

void collect(Sdfg& s, std::vector<Found>& out) { testsupport::collectLibraryNodes(s, out); }

// Expands every node of the families' ops; returns the first refusal's message (empty when all expanded).
std::string expandFamily(Sdfg& root, int& expanded) {
  return testsupport::expandWhere(root, [](const LibraryNode& n) { return n.domain.empty() && familyOps().count(n.opType); }, expanded);
}

// Refusals that are expected, by test folder: the message must contain the text.
const std::map<std::string, std::string>& expectedRefusals() {
  static const std::map<std::string, std::string> m{
      {"test_cast_FLOAT_to_STRING", "string"},
      {"test_cast_STRING_to_FLOAT", "string"},
      {"test_castlike_FLOAT_to_STRING", "string"},
      {"test_castlike_STRING_to_FLOAT", "string"},
      {"test_castlike_FLOAT_to_STRING_expanded", "string"},
      {"test_castlike_STRING_to_FLOAT_expanded", "string"},
      {"test_identity_sequence", "tensors only"},
      {"test_identity_opt", "tensors only"},
      {"test_training_dropout", "training_mode"},
      {"test_training_dropout_default", "training_mode"},
      {"test_training_dropout_default_mask", "training_mode"},
      {"test_training_dropout_mask", "training_mode"},
      {"test_training_dropout_zero_ratio", "training_mode"},
      {"test_training_dropout_zero_ratio_mask", "training_mode"},
  };
  return m;
}

using testsupport::nodesOf;

std::unique_ptr<Sdfg> loadAndExpand(const std::string& folder, std::string* error = nullptr) {
  auto m = io::loadModel(kData + "/node/" + folder + "/model.onnx");
  if (!m) {
    if (error) *error = m.error().str();
    return nullptr;
  }
  int n = 0;
  std::string err = expandFamily(*m->sdfg, n);
  if (!err.empty()) {
    if (error) *error = err;
    return nullptr;
  }
  return std::move(m->sdfg);
}

// The map whose label starts with `label`, the WCR of the memlets leaving its exit, and the memlets
// entering its tasklet.
struct MapInfo {
  MapEntry* entry = nullptr;
  std::set<std::string> wcr;
  std::vector<std::string> inMemlets; // "data[subset]"
  std::string code;
};
MapInfo findMap(Sdfg& s, const std::string& label, int skip = 0) {
  MapInfo info;
  for (auto [st, me] : nodesOf<MapEntry>(s)) {
    if (me->label().rfind(label + "_map", 0) != 0) continue;
    if (skip-- > 0) continue;
    info.entry = me;
    for (auto* e : st->outEdges(me->exitId)) info.wcr.insert(e->memlet.wcr);
    for (auto* e : st->outEdges(me->id())) {
      if (!e->memlet.isEmpty()) info.inMemlets.push_back(e->memlet.data + "[" + e->memlet.subset.str() + "]");
      if (auto* t = dynamic_cast<Tasklet*>(st->node(e->dst))) info.code = t->code;
    }
    return info;
  }
  return info;
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

} // namespace

class TestExpansionsElementwise : public QObject {
  Q_OBJECT
private slots:
  void registered() {
    for (auto& op : familyOps())
      QVERIFY2(expansions::registry().find("", op, "pure"), qPrintable(QString::fromStdString(op) + " has no pure expansion"));
  }

  void conformance_data() {
    QTest::addColumn<QString>("path");
    if (!fs::exists(kData)) return;
    std::vector<std::string> paths;
    for (auto& d : fs::directory_iterator(fs::path(kData) / "node")) {
      std::string name = d.path().filename().string();
      for (auto& p : nodePrefixes())
        if (name.rfind(p, 0) == 0) paths.push_back(d.path().string());
    }
    for (const char* suite : {"pytorch-converted", "pytorch-operator"})
      for (auto& d : fs::directory_iterator(fs::path(kData) / suite)) paths.push_back(d.path().string());
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    for (auto& p : paths) QTest::newRow(fs::path(p).filename().string().c_str()) << QString::fromStdString(p);
  }

  void conformance() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    QFETCH(QString, path);
    std::string folder = fs::path(path.toStdString()).filename().string();
    auto m = io::loadModel(path.toStdString() + "/model.onnx");
    if (!m) QSKIP(qPrintable("does not import: " + QString::fromStdString(m.error().str())));
    int expanded = 0;
    std::string err = expandFamily(*m->sdfg, expanded);
    auto exp = expectedRefusals().find(folder);
    if (exp != expectedRefusals().end()) {
      QVERIFY2(!err.empty(), "expected a refusal");
      QVERIFY2(err.find(exp->second) != std::string::npos, err.c_str());
      return;
    }
    QVERIFY2(err.empty(), err.c_str());
    if (expanded == 0) QSKIP("no node of these families");
    Diagnostics v = validate(*m->sdfg);
    QVERIFY2(!v.hasErrors(), v.hasErrors() ? v.firstError()->str().c_str() : "");
    std::string bad = checkTasklets(*m->sdfg);
    QVERIFY2(bad.empty(), bad.c_str());
    std::vector<Found> left;
    collect(*m->sdfg, left);
    for (auto& f : left)
      QVERIFY2(!familyOps().count(f.node->opType), qPrintable("library node left: " + QString::fromStdString(f.node->opType)));
  }

  void unaryIsOneMap() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_relu");
    QVERIFY(s);
    MapInfo relu = findMap(*s, "relu");
    QVERIFY(relu.entry);
    QCOMPARE(QString::fromStdString(relu.entry->range.str()), QString("0:3, 0:4, 0:5"));
    QCOMPARE(relu.wcr, std::set<std::string>{""});
    QVERIFY(contains(relu.inMemlets, "X[i0, i1, i2]"));
    QVERIFY2(relu.code.find("max(") != std::string::npos, relu.code.c_str());
  }

  void binaryBroadcasts() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_add_bcast"); // A[3, 4, 5] + B[5]
    QVERIFY(s);
    MapInfo add = findMap(*s, "add");
    QVERIFY(add.entry);
    QCOMPARE(QString::fromStdString(add.entry->range.str()), QString("0:3, 0:4, 0:5"));
    QVERIFY(contains(add.inMemlets, "A[i0, i1, i2]"));
    QVERIFY(contains(add.inMemlets, "B[i2]"));
    // Integer Mod with Python's sign rule; float16 computes in float32.
    auto mod = loadAndExpand("test_mod_mixed_sign_int32");
    QVERIFY(mod);
    QVERIFY(findMap(*mod, "mod").code.find("%") != std::string::npos);
    auto h = loadAndExpand("test_max_float16");
    QVERIFY(h);
    QVERIFY2(findMap(*h, "max").code.find("float32(") != std::string::npos, findMap(*h, "max").code.c_str());
  }

  void reductionsUseWcr() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_reduce_sum_keepdims_example"); // data[3, 2, 2], axes [1] (constant or not)
    QVERIFY(s);
    MapInfo red = findMap(*s, "reduce");
    QVERIFY(red.entry);
    QCOMPARE(red.wcr, std::set<std::string>{"sum"});
    QCOMPARE(QString::fromStdString(red.entry->range.str()), QString("0:3, 0:2, 0:2"));
    auto mx = loadAndExpand("test_reduce_max_keepdims_example");
    QVERIFY(mx);
    QCOMPARE(findMap(*mx, "reduce").wcr, std::set<std::string>{"max"});
    // LogSumExp subtracts the maximum first.
    auto lse = loadAndExpand("test_reduce_log_sum_exp_keepdims_example");
    QVERIFY(lse);
    QCOMPARE(findMap(*lse, "max").wcr, std::set<std::string>{"max"});
    QCOMPARE(findMap(*lse, "reduce").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*lse, "finish").entry);
    // ArgMax: the first index reaching the max (WCR min); select_last_index takes WCR max.
    auto am = loadAndExpand("test_argmax_keepdims_example");
    QVERIFY(am);
    QCOMPARE(findMap(*am, "index").wcr, std::set<std::string>{"min"});
    auto al = loadAndExpand("test_argmax_keepdims_example_select_last_index");
    QVERIFY(al);
    QCOMPARE(findMap(*al, "index").wcr, std::set<std::string>{"max"});
  }

  void runtimeAxesPickACandidate() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    // data[3, 2, 2] -> reduced[3, 2] with keepdims = 0: axis 1 or 2 fit the shapes. Unless the axes
    // are a constant, both candidates are computed and the runtime axes select one.
    std::string err;
    auto s = loadAndExpand("test_reduce_sum_do_not_keepdims_example", &err);
    QVERIFY2(s, err.c_str());
    MapInfo first = findMap(*s, "reduce");
    QVERIFY(first.entry);
    QCOMPARE(first.wcr, std::set<std::string>{"sum"});
    if (findMap(*s, "reduce", 1).entry)
      QVERIFY2(first.code.find("ax0 == 1") != std::string::npos, first.code.c_str());
  }

  void softmaxIsStable() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_softmax_axis_1"); // opset 13: only axis 1
    QVERIFY(s);
    QCOMPARE(findMap(*s, "max").wcr, std::set<std::string>{"max"});
    MapInfo sum = findMap(*s, "sum");
    QCOMPARE(sum.wcr, std::set<std::string>{"sum"});
    QVERIFY(contains(sum.inMemlets, "max[i0, 0, i2]"));
    QVERIFY2(findMap(*s, "softmax").code.find("exp(x - m)") != std::string::npos, findMap(*s, "softmax").code.c_str());
  }

  void topKRanks() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_top_k"); // X[3, 4], k = 3 along axis 1
    QVERIFY(s);
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
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto ln = loadAndExpand("test_layer_normalization_4d_axis1");
    QVERIFY(ln);
    QCOMPARE(findMap(*ln, "sum").wcr, std::set<std::string>{"sum"});
    QCOMPARE(findMap(*ln, "sqdev").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*ln, "layernorm").entry);
    auto lrn = loadAndExpand("test_lrn");
    QVERIFY(lrn);
    MapInfo w = findMap(*lrn, "window");
    QVERIFY(w.entry);
    QCOMPARE(w.wcr, std::set<std::string>{"sum"});
    QVERIFY(contains(w.inMemlets, "squares[i0, i1 + k, i2, i3]"));
    auto bn = loadAndExpand("test_batchnorm_example_training_mode");
    QVERIFY(bn);
    QVERIFY(findMap(*bn, "running_mean").entry);
  }

  void refusalsAreClear() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    std::string err;
    QVERIFY(!loadAndExpand("test_cast_FLOAT_to_STRING", &err));
    QVERIFY2(err.find("Cast") != std::string::npos && err.find("string") != std::string::npos, err.c_str());
  }
};

QTEST_GUILESS_MAIN(TestExpansionsElementwise)
#include "tst_ExpansionsElementwise.moc"
