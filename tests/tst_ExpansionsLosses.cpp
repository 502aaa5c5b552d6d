// Structural tests of the `pure` expansions of the Losses, Quantization and Misc families: every ONNX
// backend node test model of these ops (the *_expanded variants excluded: they hold other ops) is
// loaded, its nodes of these ops expanded, and the result must validate with none of them left as a
// library node. A few expansions are checked in detail (map ranges, WCR on the reductions), and the
// refusals name their reason.
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"

#include <QtTest>

#include <filesystem>
#include <set>

namespace fs = std::filesystem;
using namespace dcw;
using namespace dcw::ir;

namespace {

const std::string kNode = "/usr/share/libonnx-testdata/data/node";

const std::set<std::string>& familyOps() {
  static const std::set<std::string> ops{
      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
      "MatMulInteger", "QLinearMatMul", "ConvInteger", "QLinearConv", "HannWindow", "HammingWindow", "BlackmanWindow",
      "Det", "MaxUnpool", "RoiAlign", "GridSample", "DFT", "STFT", "MelWeightMatrix"};
  return ops;
}

const std::vector<std::string>& folderPrefixes() {
  static const std::vector<std::string> p{
      "test_nllloss_", "test_sce_", "test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear",
      "test_matmulinteger", "test_qlinearmatmul", "test_basic_convinteger", "test_convinteger", "test_qlinearconv",
      "test_hannwindow", "test_hammingwindow", "test_blackmanwindow", "test_det_", "test_maxunpool_", "test_roialign_",
      "test_gridsample", "test_dft", "test_stft", "test_melweightmatrix"};
  return p;
}

using Found = testsupport::FoundNode;

void collect(Sdfg& s, std::vector<Found>& out) { testsupport::collectLibraryNodes(s, out); }

// Expands every node of the families; returns the first refusal's message (empty when all expanded).
std::string expandFamily(Sdfg& root, int& expanded) {
  return testsupport::expandWhere(root, [](const LibraryNode& n) { return n.domain.empty() && familyOps().count(n.opType); }, expanded);
}

using testsupport::nodesOf;

std::unique_ptr<Sdfg> loadAndExpand(const std::string& folder) {
  auto m = io::loadModel(kNode + "/" + folder + "/model.onnx");
  if (!m) return nullptr;
  int n = 0;
  if (!expandFamily(*m->sdfg, n).empty() || n == 0) return nullptr;
  return std::move(m->sdfg);
}

using testsupport::MapInfo;
using testsupport::findMap;

bool hasTasklet(Sdfg& s, const std::string& label) {
  for (auto [st, t] : nodesOf<Tasklet>(s))
    if (t->label().rfind(label, 0) == 0) return true;
  return false;
}

// Loads a model, sets an attribute of its first node of `op`, and returns the expansion's refusal.
std::string refusalWith(const std::string& folder, const std::string& op, Attribute attr) {
  auto m = io::loadModel(kNode + "/" + folder + "/model.onnx");
  if (!m) return "does not import";
  std::vector<Found> found;
  collect(*m->sdfg, found);
  for (auto& f : found) {
    if (f.node->opType != op) continue;
    bool set = false;
    for (auto& a : f.node->attributes)
      if (a.name == attr.name) a = attr, set = true;
    if (!set) f.node->attributes.push_back(attr);
    auto r = expansions::expandNode(*m->sdfg, f.node->id(), "pure");
    return r ? std::string() : r.error().str();
  }
  return "no node";
}

} // namespace

class TestExpansionsLosses : public QObject {
  Q_OBJECT
private slots:
  void conformance_data() {
    QTest::addColumn<QString>("path");
    if (!fs::exists(kNode)) return;
    std::vector<std::string> paths;
    for (auto& d : fs::directory_iterator(kNode)) {
      std::string name = d.path().filename().string();
      if (name.find("_expanded") != std::string::npos) continue;
      for (auto& p : folderPrefixes())
        if (name.rfind(p, 0) == 0) {
          paths.push_back(d.path().string());
          break;
        }
    }
    std::sort(paths.begin(), paths.end());
    for (auto& p : paths) QTest::newRow(fs::path(p).filename().string().c_str()) << QString::fromStdString(p);
  }

  void conformance() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    QFETCH(QString, path);
    auto m = io::loadModel(path.toStdString() + "/model.onnx");
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    int expanded = 0;
    std::string err = expandFamily(*m->sdfg, expanded);
    QVERIFY2(err.empty(), err.c_str());
    QVERIFY(expanded > 0);
    Diagnostics v = validate(*m->sdfg);
    QVERIFY2(!v.hasErrors(), v.hasErrors() ? v.firstError()->str().c_str() : "");
    std::vector<Found> left;
    collect(*m->sdfg, left);
    for (auto& f : left)
      QVERIFY2(!familyOps().count(f.node->opType), qPrintable("library node left: " + QString::fromStdString(f.node->opType)));
  }

  void nllMeanIsTwoWcrSums() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    // input [3, 5, 2], target [3, 2], weight [5], mean.
    auto s = loadAndExpand("test_nllloss_NCd1_weight");
    QVERIFY(s);
    MapInfo nll = findMap(*s, "nll");
    QVERIFY(nll.entry);
    QCOMPARE(QString::fromStdString(nll.entry->range.str()), QString("0:3, 0:2"));
    QCOMPARE(nll.wcr, std::set<std::string>{"sum"});
    QVERIFY(hasTasklet(*s, "mean"));
  }

  void nllNoneWritesDirectly() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_nllloss_NCd1d2d3_none_no_weight_negative_ii");
    QVERIFY(s);
    MapInfo nll = findMap(*s, "nll");
    QVERIFY(nll.entry);
    QCOMPARE(nll.wcr, std::set<std::string>{""});
    QVERIFY(!hasTasklet(*s, "mean"));
  }

  void sceIsStableLogSoftmaxThenNll() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    auto s = loadAndExpand("test_sce_mean_weight_ii_3d_log_prob");
    QVERIFY(s);
    QCOMPARE(findMap(*s, "max").wcr, std::set<std::string>{"max"});
    QCOMPARE(findMap(*s, "sum").wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*s, "log_softmax").entry);
    QCOMPARE(findMap(*s, "nll").wcr, std::set<std::string>{"sum"});
  }

  void quantizationStructure() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    auto dq = loadAndExpand("test_dynamicquantizelinear");
    QVERIFY(dq);
    QCOMPARE(findMap(*dq, "range").wcr, (std::set<std::string>{"min", "max"}));
    auto qc = loadAndExpand("test_qlinearconv");
    QVERIFY(qc);
    MapInfo conv = findMap(*qc, "conv");
    QVERIFY(conv.entry);
    QCOMPARE(conv.entry->params.size(), size_t(7)); // n, m, o0, o1, c, k0, k1
    QCOMPARE(conv.wcr, std::set<std::string>{"sum"});
    QVERIFY(findMap(*qc, "requantize").entry);
    auto mm = loadAndExpand("test_matmulinteger");
    QVERIFY(mm);
    MapInfo prod = findMap(*mm, "product");
    QVERIFY(prod.entry);
    QCOMPARE(QString::fromStdString(prod.entry->range.str()), QString("0:4, 0:2, 0:3")); // Y [4, 2], K = 3
    QCOMPARE(prod.wcr, std::set<std::string>{"sum"});
    // Per-axis parameters are read at the axis' map index.
    auto qa = loadAndExpand("test_quantizelinear_axis");
    QVERIFY(qa);
    QVERIFY(findMap(*qa, "quantize").entry);
  }

  void miscStructure() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
    auto mu = loadAndExpand("test_maxunpool_export_without_output_shape");
    QVERIFY(mu);
    MapInfo un = findMap(*mu, "unpool");
    QVERIFY(un.entry);
    QCOMPARE(QString::fromStdString(un.entry->range.str()), QString("0, 0, 0:4, 0:4, 0:2, 0:2"));
    QCOMPARE(un.wcr, std::set<std::string>{"max"});
    auto ra = loadAndExpand("test_roialign_aligned_true");
    QVERIFY(ra);
    MapInfo roi = findMap(*ra, "roi_align");
    QVERIFY(roi.entry);
    QCOMPARE(QString::fromStdString(roi.entry->range.str()), QString("0:3, 0, 0:5, 0:5, 0:2, 0:2"));
    QCOMPARE(roi.wcr, std::set<std::string>{"sum"});
    auto det = loadAndExpand("test_det_nd");
    QVERIFY(det);
    QCOMPARE(QString::fromStdString(findMap(*det, "det").entry->range.str()), QString("0:3"));
    auto w = loadAndExpand("test_hannwindow");
    QVERIFY(w);
    QCOMPARE(QString::fromStdString(findMap(*w, "window").entry->range.str()), QString("0:10"));
    // DFT: output positions (without the component dim) and the signal index, WCR sum into re and im.
    auto dft = loadAndExpand("test_dft");
    QVERIFY(dft);
    MapInfo d = findMap(*dft, "dft");
    QVERIFY(d.entry);
    QCOMPARE(QString::fromStdString(d.entry->range.str()), QString("0, 0:10, 0:10, 0:10"));
    QCOMPARE(d.wcr, std::set<std::string>{"sum"});
  }

  void refusals() {
    if (!fs::exists(kNode)) QSKIP("libonnx-testdata is not installed");
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
