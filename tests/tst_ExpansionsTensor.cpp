// Structural tests of the `pure` expansions of the Linalg, Convolution, Pooling and TensorOps families:
// every ONNX backend test model holding these ops (node, pytorch-converted, pytorch-operator), as
// imported and constant-folded, goes through the shared conformance harness
// (tests/support/ExpansionTestSupport.h): its nodes of these ops expand and validate with none left
// as a library node (NonZero and Compress on a run-time condition too: their counts are dynamic
// extents, core/ir/DynamicExtent.h). A few expansions are checked in detail (map ranges, WCR on the reductions).
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/Expansion.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"
#include "transforms/FoldConstants.h"

#include <QtTest>

#include <set>

using namespace dcw;
using namespace dcw::ir;

namespace {

const std::set<std::string>& familyOps() {
  static const std::set<std::string> ops{
      "MatMul", "Gemm", "Einsum", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
      "LpPool", "GlobalLpPool", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice",
      "Gather", "GatherElements", "GatherND", "ScatterElements", "Scatter", "ScatterND", "Pad", "Tile", "Expand", "Resize",
      "Upsample", "Shape", "Size", "Constant", "ConstantOfShape", "Range", "OneHot", "DepthToSpace", "SpaceToDepth", "Trilu",
      "EyeLike", "CumSum", "ReverseSequence", "Compress", "NonZero", "Identity"};
  return ops;
}

// The family: node tests of these ops (by folder prefix, without the _expanded variants) and the
// PyTorch suites, each as imported and after constant folding (as `dcw run` and `dcw test-onnx`
// prepare models); the nodes of the family's ops that have a pure expansion are expanded.
const testsupport::ExpansionFamily& family() {
  static const testsupport::ExpansionFamily f = [] {
    testsupport::ExpansionFamily f;
    f.nodePrefixes = {
        "test_matmul_", "test_gemm_", "test_einsum_", "test_basic_conv_", "test_conv_with_", "test_convtranspose",
        "test_maxpool_", "test_averagepool_", "test_globalaveragepool", "test_globalmaxpool", "test_reshape_", "test_flatten_",
        "test_squeeze", "test_unsqueeze_", "test_transpose_", "test_concat_", "test_split_", "test_slice", "test_gather_",
        "test_gathernd_", "test_scatter_elements_", "test_scatter_with", "test_scatter_without", "test_scatternd", "test_constant_pad",
        "test_edge_pad", "test_reflect_pad", "test_tile", "test_expand_", "test_resize_", "test_upsample_", "test_shape",
        "test_size", "test_constant", "test_range_", "test_onehot_", "test_depthtospace_", "test_spacetodepth", "test_tril",
        "test_triu", "test_eyelike_", "test_cumsum_", "test_reversesequence_", "test_compress_", "test_nonzero_"};
    f.wholeSuites = {"pytorch-converted", "pytorch-operator"};
    f.select = [](const LibraryNode& n) {
      return n.domain.empty() && familyOps().count(n.opType) && expansions::registry().find("", n.opType, "pure");
    };
    f.fold = [](Sdfg& s) { transforms::foldConstants(s); };
    return f;
  }();
  return f;
}

using testsupport::findMap;
using testsupport::MapInfo;
using testsupport::nodesOf;

} // namespace

class TestExpansionsTensor : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() { DCW_REQUIRE_ONNX_TESTDATA(); }

  void conformance_data() { testsupport::addConformanceRows(family()); }
  void conformance() { testsupport::checkConformanceRow(family()); }
  void coverage() { testsupport::checkCoverage(family()); }

  void convIsMapNestWithWcr() {
    auto s = testsupport::expandCase(family(), "test_basic_conv_with_padding", true);
    QVERIFY2(s, s.error.c_str());
    MapInfo conv = findMap(*s, "conv");
    QVERIFY(conv.entry);
    // n, m, o0, o1, c, k0, k1 over Y[1, 1, 5, 5] and W[1, 1, 3, 3].
    QCOMPARE(conv.entry->params.size(), size_t(7));
    QCOMPARE(QString::fromStdString(conv.entry->range.str()), QString("0, 0, 0:5, 0:5, 0, 0:3, 0:3"));
    QCOMPARE(conv.wcr, std::set<std::string>{"sum"});
    // With padding, the window reads a zero-padded copy of X (7x7 for 5x5 and pads of 1), and the
    // tasklet is one multiply-add.
    MapInfo copy = findMap(*s, "pad_copy");
    QVERIFY(copy.entry);
    bool sawCopy = false, plain = false;
    for (auto [st, t] : nodesOf<Tasklet>(*s)) {
      if (t->label().rfind("conv", 0) == 0) plain = t->code == "y = x * w";
      if (t->label() == "pad_copy") sawCopy = true;
    }
    QVERIFY(sawCopy && plain);
  }

  void poolingReductions() {
    auto mp = testsupport::expandCase(family(), "test_maxpool_2d_pads", true);
    QVERIFY2(mp, mp.error.c_str());
    QCOMPARE(findMap(*mp, "maxpool").wcr, std::set<std::string>{"max"});
    auto ap = testsupport::expandCase(family(), "test_averagepool_2d_pads", true);
    QVERIFY2(ap, ap.error.c_str());
    QCOMPARE(findMap(*ap, "window_sum").wcr, std::set<std::string>{"sum"});
    QCOMPARE(findMap(*ap, "window_count").wcr, std::set<std::string>{"sum"});
    auto am = testsupport::expandCase(family(), "test_maxpool_with_argmax_2d_precomputed_pads", true);
    QVERIFY2(am, am.error.c_str());
    QCOMPARE(findMap(*am, "argmax").wcr, std::set<std::string>{"min"});
  }

  void matmulBroadcastsBatch() {
    auto s = testsupport::expandCase(family(), "test_matmul_4d", true);
    QVERIFY2(s, s.error.c_str());
    MapInfo mm = findMap(*s, "matmul");
    QVERIFY(mm.entry);
    QCOMPARE(mm.entry->params.size(), size_t(5)); // 4 output dims + k
    QCOMPARE(mm.wcr, std::set<std::string>{"sum"});
  }

  void reshapeIsIndexArithmetic() {
    auto s = testsupport::expandCase(family(), "test_reshape_reordered_all_dims", true);
    QVERIFY2(s, s.error.c_str());
    MapInfo c = findMap(*s, "reshape");
    QVERIFY(c.entry);
    QCOMPARE(c.wcr, std::set<std::string>{""});
  }
};

QTEST_GUILESS_MAIN(TestExpansionsTensor)
#include "tst_ExpansionsTensor.moc"
