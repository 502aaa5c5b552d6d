// Structural tests of the `pure` expansions of the Losses, Quantization and Misc families: every ONNX
// backend node test model holding these ops (the *_expanded variants excluded: they hold other ops)
// goes through the shared conformance harness (tests/support/ExpansionTestSupport.h): its nodes of
// these ops expand and validate with none left as a library node; none is refused. A few expansions
// are checked in detail (map ranges, WCR on the reductions), and the refusals name their reason.
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

#include <QtTest>

#include <set>

using namespace dcw;
using namespace dcw::ir;

namespace {

const std::set<std::string>& familyOps() {
  static const std::set<std::string> ops{
      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
      "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv", "HannWindow", "HammingWindow", "BlackmanWindow",
      "Det", "MaxUnpool", "RoiAlign", "GridSample", "DFT", "STFT", "MelWeightMatrix"};
  return ops;
}

// The family: node tests of these ops by folder prefix, without the _expanded variants.
const testsupport::ExpansionFamily& family() {
  static const testsupport::ExpansionFamily f = [] {
    testsupport::ExpansionFamily f;
    f.nodePrefixes = {
        "test_nllloss_", "test_sce_", "test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear",
        "test_matmulinteger", "test_qlinearmatmul", "test_basic_convinteger", "test_convinteger", "test_qlinearconv",
        "test_hannwindow", "test_hammingwindow", "test_blackmanwindow", "test_det_", "test_maxunpool_", "test_roialign_",
        "test_gridsample", "test_dft", "test_stft", "test_melweightmatrix"};
    f.select = [](const LibraryNode& n) { return n.domain.empty() && familyOps().count(n.opType) > 0; };
    return f;
  }();
  return f;
}

using testsupport::findMap;
using testsupport::MapInfo;
using testsupport::nodesOf;

bool hasTasklet(Sdfg& s, const std::string& label) {
  for (auto [st, t] : nodesOf<Tasklet>(s))
    if (t->label().rfind(label, 0) == 0) return true;
  return false;
}

// Loads a model, sets an attribute of its first node of `op`, and returns the expansion's refusal.
std::string refusalWith(const std::string& folder, const std::string& op, Attribute attr) {
  auto m = io::loadModel(testsupport::nodeFolder(folder) + "/model.onnx");
  if (!m) return "does not import: " + m.error().str();
  for (auto& [st, node] : nodesOf<LibraryNode>(*m->sdfg)) {
    if (node->opType != op) continue;
    bool set = false;
    for (auto& a : node->attributes)
      if (a.name == attr.name) a = attr, set = true;
    if (!set) node->attributes.push_back(attr);
    auto r = expansions::expandNode(*m->sdfg, node->id(), "pure");
    return r ? std::string("expands") : r.error().str();
  }
  return "no node of " + op;
}

} // namespace

class TestExpansionsLosses : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() { DCW_REQUIRE_ONNX_TESTDATA(); }

  void conformance_data() { testsupport::addConformanceRows(family()); }
  void conformance() { testsupport::checkConformanceRow(family()); }
  void coverage() { testsupport::checkCoverage(family()); }

  void nllMeanIsTwoWcrSums() {
    // input [3, 5, 2], target [3, 2], weight [5], mean.
    auto s = testsupport::expandCase(family(), "test_nllloss_NCd1_weight");
    QVERIFY2(s, s.error.c_str());
    MapInfo nll = findMap(*s, "nll");
    QVERIFY(nll.entry);
    QCOMPARE(QString::fromStdString(nll.entry->range.str()), QString("0:3, 0:2"));
    QCOMPARE(nll.wcr, std::set<std::string>{"sum"});
    QVERIFY(hasTasklet(*s, "mean"));
  }

  void nllNoneWritesDirectly() {
    auto s = testsupport::expandCase(family(), "test_nllloss_NCd1d2d3_none_no_weight_negative_ii");
    QVERIFY2(s, s.error.c_str());
    MapInfo nll = findMap(*s, "nll");
    QVERIFY(nll.entry);
    QCOMPARE(nll.wcr, std::set<std::string>{""});
    QVERIFY(!hasTasklet(*s, "mean"));
  }

  void sceIsStableLogSoftmaxThenNll() {
    auto s = testsupport::expandCase(family(), "test_sce_mean_weight_ii_3d_log_prob");
    QVERIFY2(s, s.error.c_str());
    QCOMPARE(findMap(*s, "max").wcr, std::set<std::string>{"max"});
    QCOMPARE(findMap(*s, "sum").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*s, "log_softmax").entry);
    QCOMPARE(findMap(*s, "nll").wcr, std::set<std::string>{"sum"});
  }

  void quantizationStructure() {
    auto dq = testsupport::expandCase(family(), "test_dynamicquantizelinear");
    QVERIFY2(dq, dq.error.c_str());
    QCOMPARE(findMap(*dq, "range").wcr, (std::set<std::string>{"min", "max"}));
    auto qc = testsupport::expandCase(family(), "test_qlinearconv");
    QVERIFY2(qc, qc.error.c_str());
    MapInfo conv = findMap(*qc, "conv");
    QVERIFY(conv.entry);
    QCOMPARE(conv.entry->params.size(), size_t(7)); // n, m, o0, o1, c, k0, k1
    QCOMPARE(conv.wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*qc, "requantize").entry);
    auto mm = testsupport::expandCase(family(), "test_matmulinteger");
    QVERIFY2(mm, mm.error.c_str());
    MapInfo prod = findMap(*mm, "product");
    QVERIFY(prod.entry);
    QCOMPARE(QString::fromStdString(prod.entry->range.str()), QString("0:4, 0:2, 0:3")); // Y [4, 2], K = 3
    QCOMPARE(prod.wcr, std::set<std::string>{"sum"});
    // Per-axis parameters are read at the axis' map index.
    auto qa = testsupport::expandCase(family(), "test_quantizelinear_axis");
    QVERIFY2(qa, qa.error.c_str());
    QVERIFY(findMap(*qa, "quantize").entry);
  }

  void miscStructure() {
    auto mu = testsupport::expandCase(family(), "test_maxunpool_export_without_output_shape");
    QVERIFY2(mu, mu.error.c_str());
    MapInfo un = findMap(*mu, "unpool");
    QVERIFY(un.entry);
    QCOMPARE(QString::fromStdString(un.entry->range.str()), QString("0, 0, 0:4, 0:4, 0:2, 0:2"));
    QCOMPARE(un.wcr, std::set<std::string>{"max"});
    auto ra = testsupport::expandCase(family(), "test_roialign_aligned_true");
    QVERIFY2(ra, ra.error.c_str());
    MapInfo roi = findMap(*ra, "roi_align");
    QVERIFY(roi.entry);
    QCOMPARE(QString::fromStdString(roi.entry->range.str()), QString("0:3, 0, 0:5, 0:5, 0:2, 0:2"));
    QCOMPARE(roi.wcr, std::set<std::string>{"sum"});
    auto det = testsupport::expandCase(family(), "test_det_nd");
    QVERIFY2(det, det.error.c_str());
    QCOMPARE(QString::fromStdString(findMap(*det, "det").entry->range.str()), QString("0:3"));
    auto w = testsupport::expandCase(family(), "test_hannwindow");
    QVERIFY2(w, w.error.c_str());
    QCOMPARE(QString::fromStdString(findMap(*w, "window").entry->range.str()), QString("0:10"));
    // DFT: output positions (without the component dim) and the signal index, WCR sum into re and im.
    auto dft = testsupport::expandCase(family(), "test_dft");
    QVERIFY2(dft, dft.error.c_str());
    MapInfo d = findMap(*dft, "dft");
    QVERIFY(d.entry);
    QCOMPARE(QString::fromStdString(d.entry->range.str()), QString("0, 0:10, 0:10, 0:10"));
    QCOMPARE(d.wcr, std::set<std::string>{"sum"});
  }

  void refusals() {
    std::string e = refusalWith("test_roialign_aligned_false", "RoiAlign", {"sampling_ratio", int64_t(0)});
    QVERIFY2(e.find("data-dependent") != std::string::npos, e.c_str());
    e = refusalWith("test_sce_mean", "SoftmaxCrossEntropyLoss", {"reduction", std::string("median")});
    QVERIFY2(e.find("reduction 'median'") != std::string::npos, e.c_str());
    e = refusalWith("test_quantizelinear_axis", "QuantizeLinear", {"block_size", int64_t(2)});
    QVERIFY2(e.find("block quantization") != std::string::npos, e.c_str());
    e = refusalWith("test_gridsample", "GridSample", {"mode", std::string("lanczos")});
    QVERIFY2(e.find("mode 'lanczos'") != std::string::npos, e.c_str());
  }
};

QTEST_GUILESS_MAIN(TestExpansionsLosses)
#include "tst_ExpansionsLosses.moc"
