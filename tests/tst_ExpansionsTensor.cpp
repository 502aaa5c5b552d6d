// Structural tests of the `pure` expansions of the Linalg, Convolution, Pooling and TensorOps families:
// every ONNX backend test model of these ops (node, pytorch-converted, pytorch-operator) is loaded,
// its nodes of these ops expanded, and the result must validate with none of them left as a library
// node — or be refused with the expected message (data-dependent shapes, unsupported modes). A few
// expansions are checked in detail (map ranges, WCR on the reductions).
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
#include "transforms/FoldConstants.h"

#include <QtTest>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace dcw;
using namespace dcw::ir;

namespace {

const std::string kData = "/usr/share/libonnx-testdata/data";

const std::set<std::string>& familyOps() {
  static const std::set<std::string> ops{
      "MatMul", "Gemm", "Einsum", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
      "LpPool", "GlobalLpPool", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice",
      "Gather", "GatherElements", "GatherND", "ScatterElements", "Scatter", "ScatterND", "Pad", "Tile", "Expand", "Resize",
      "Upsample", "Shape", "Size", "Constant", "ConstantOfShape", "Range", "OneHot", "DepthToSpace", "SpaceToDepth", "Trilu",
      "EyeLike", "CumSum", "ReverseSequence", "Compress", "NonZero", "Identity"};
  return ops;
}

// Test folders whose node set contains one of the family's ops (by name prefix).
const std::vector<std::string>& nodePrefixes() {
  static const std::vector<std::string> p{
      "test_matmul_", "test_gemm_", "test_einsum_", "test_basic_conv_", "test_conv_with_", "test_convtranspose",
      "test_maxpool_", "test_averagepool_", "test_globalaveragepool", "test_globalmaxpool", "test_reshape_", "test_flatten_",
      "test_squeeze", "test_unsqueeze_", "test_transpose_", "test_concat_", "test_split_", "test_slice", "test_gather_",
      "test_gathernd_", "test_scatter_elements_", "test_scatter_with", "test_scatter_without", "test_scatternd", "test_constant_pad",
      "test_edge_pad", "test_reflect_pad", "test_tile", "test_expand_", "test_resize_", "test_upsample_", "test_shape",
      "test_size", "test_constant", "test_range_", "test_onehot_", "test_depthtospace_", "test_spacetodepth", "test_tril",
      "test_triu", "test_eyelike_", "test_cumsum_", "test_reversesequence_", "test_compress_", "test_nonzero_"};
  return p;
}

using Found = testsupport::FoundNode;

void collect(Sdfg& s, std::vector<Found>& out) { testsupport::collectLibraryNodes(s, out); }

// Expands every node of the family's ops; returns the first refusal's message (empty when all expanded).
std::string expandFamily(Sdfg& root, int& expanded) {
  return testsupport::expandWhere(root, [](const LibraryNode& n) { return n.domain.empty() && familyOps().count(n.opType) && expansions::registry().find("", n.opType, "pure"); }, expanded);
}

// Refusals that are expected, by test folder: the message must contain the text.
const std::map<std::string, std::string>& expectedRefusals() {
  static const std::map<std::string, std::string> m{
      {"test_nonzero_example", "data-dependent"},
      {"test_compress_0", "data-dependent"},
      {"test_compress_1", "data-dependent"},
      {"test_compress_default_axis", "data-dependent"},
      {"test_compress_negative_axis", "data-dependent"},
  };
  return m;
}

using testsupport::nodesOf;

std::unique_ptr<Sdfg> loadAndExpand(const std::string& folder) {
  auto m = io::loadModel(kData + "/node/" + folder + "/model.onnx");
  if (!m) return nullptr;
  int n = 0;
  transforms::foldConstants(*m->sdfg);
  if (!expandFamily(*m->sdfg, n).empty()) return nullptr;
  return std::move(m->sdfg);
}

using testsupport::MapInfo;
using testsupport::findMap;

} // namespace

class TestExpansionsTensor : public QObject {
  Q_OBJECT
private slots:
  void conformance_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("fold");
    if (!fs::exists(kData)) return;
    std::vector<std::string> paths;
    for (auto& d : fs::directory_iterator(fs::path(kData) / "node")) {
      std::string name = d.path().filename().string();
      for (auto& p : nodePrefixes())
        if (name.rfind(p, 0) == 0 && name.find("_expanded") == std::string::npos) paths.push_back(d.path().string());
    }
    for (const char* suite : {"pytorch-converted", "pytorch-operator"})
      for (auto& d : fs::directory_iterator(fs::path(kData) / suite)) paths.push_back(d.path().string());
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    // Each case as imported, and after constant folding (as `dcw run` and `dcw test-onnx` prepare models).
    for (auto& p : paths) {
      QTest::newRow(fs::path(p).filename().string().c_str()) << QString::fromStdString(p) << false;
      QTest::newRow((fs::path(p).filename().string() + "/folded").c_str()) << QString::fromStdString(p) << true;
    }
  }

  void conformance() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    QFETCH(QString, path);
    QFETCH(bool, fold);
    std::string folder = fs::path(path.toStdString()).filename().string();
    auto m = io::loadModel(path.toStdString() + "/model.onnx");
    if (!m) QSKIP(qPrintable("does not import: " + QString::fromStdString(m.error().str())));
    int expanded = 0;
    if (fold) transforms::foldConstants(*m->sdfg);
    std::string err = expandFamily(*m->sdfg, expanded);
    auto exp = expectedRefusals().find(folder);
    std::string expected = exp != expectedRefusals().end() ? exp->second : "";
    if (!expected.empty()) {
      QVERIFY2(!err.empty(), "expected a refusal");
      QVERIFY2(err.find(expected) != std::string::npos, err.c_str());
      return;
    }
    // Unfolded, a shape computed by Constant nodes is unknown to shape inference; folding fixes it.
    if (!fold && err.find("is unknown") != std::string::npos) QSKIP(qPrintable("needs folding: " + QString::fromStdString(err)));
    QVERIFY2(err.empty(), err.c_str());
    if (expanded == 0) QSKIP("no node of this family");
    Diagnostics v = validate(*m->sdfg);
    QVERIFY2(!v.hasErrors(), v.hasErrors() ? v.firstError()->str().c_str() : "");
    for (auto& f : [&] { std::vector<Found> x; collect(*m->sdfg, x); return x; }())
      QVERIFY2(!familyOps().count(f.node->opType) || !expansions::registry().find("", f.node->opType, "pure"),
               qPrintable("library node left: " + QString::fromStdString(f.node->opType)));
  }

  void convIsMapNestWithWcr() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_basic_conv_with_padding");
    QVERIFY(s);
    MapInfo conv = findMap(*s, "conv");
    QVERIFY(conv.entry);
    // n, m, o0, o1, c, k0, k1 over Y[1, 1, 5, 5] and W[1, 1, 3, 3].
    QCOMPARE(conv.entry->params.size(), size_t(7));
    QCOMPARE(QString::fromStdString(conv.entry->range.str()), QString("0, 0, 0:5, 0:5, 0, 0:3, 0:3"));
    QCOMPARE(conv.wcr, std::set<std::string>{"sum"});
    // The padded tasklet selects 0 outside the input.
    bool sawSelect = false;
    for (auto [st, t] : nodesOf<Tasklet>(*s))
      if (t->label().rfind("conv", 0) == 0) sawSelect = t->code.find("select(") != std::string::npos;
    QVERIFY(sawSelect);
  }

  void poolingReductions() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto mp = loadAndExpand("test_maxpool_2d_pads");
    QVERIFY(mp);
    QCOMPARE(findMap(*mp, "maxpool").wcr, std::set<std::string>{"max"});
    auto ap = loadAndExpand("test_averagepool_2d_pads");
    QVERIFY(ap);
    QCOMPARE(findMap(*ap, "window_sum").wcr, std::set<std::string>{"sum"});
    QCOMPARE(findMap(*ap, "window_count").wcr, std::set<std::string>{"sum"});
    auto am = loadAndExpand("test_maxpool_with_argmax_2d_precomputed_pads");
    QVERIFY(am);
    QCOMPARE(findMap(*am, "argmax").wcr, std::set<std::string>{"min"});
  }

  void matmulBroadcastsBatch() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_matmul_4d");
    QVERIFY(s);
    MapInfo mm = findMap(*s, "matmul");
    QVERIFY(mm.entry);
    QCOMPARE(mm.entry->params.size(), size_t(5)); // 4 output dims + k
    QCOMPARE(mm.wcr, std::set<std::string>{"sum"});
  }

  void reshapeIsIndexArithmetic() {
    if (!fs::exists(kData)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_reshape_reordered_all_dims");
    QVERIFY(s);
    MapInfo c = findMap(*s, "reshape");
    QVERIFY(c.entry);
    QCOMPARE(c.wcr, std::set<std::string>{""});
  }
};

QTEST_GUILESS_MAIN(TestExpansionsTensor)
#include "tst_ExpansionsTensor.moc"
