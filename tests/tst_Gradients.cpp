// Gradients of real architectures against PyTorch's, and ONNX's own gradient test cases.
//  - mlp, lenet, resnet_block, transformer_layer (tests/data/autodiff/<model>/, written by
//    tests/models/autodiff_references.py): the model computes its loss; it is differentiated with
//    respect to its first input and some weights through the history (`differentiate` command),
//    expanded, compiled and run on the stored inputs; every gradient must match PyTorch's (float64
//    reference) element-wise within |a - b| <= 1e-4 |b| + 1e-6 max|b|. The largest normwise relative
//    error per model is printed.
//  - /usr/share/libonnx-testdata/data/simple/test_gradient_*: ONNX's Gradient op
//    (ai.onnx.preview.training) lowered to an autodiff request (autodiff/GradientOp.h), compared with
//    the case's expected outputs.
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "codegen/run/Executor.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/Validate.h"
#include "core/onnx/TensorFile.h"
#include "transforms/FoldConstants.h"
#include "transforms/autodiff/Differentiate.h"
#include "transforms/autodiff/GradientOp.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace dcw;
namespace fs = std::filesystem;

namespace {

const std::string kRefs = testpaths::source("/tests/data/autodiff/");

std::vector<double> values(const ir::Tensor& t) {
  std::vector<double> v;
  if (!t.bytes) return v;
  if (t.dtype == ir::DType::Float32)
    for (size_t i = 0; i + 4 <= t.bytes->size(); i += 4) {
      float f;
      std::memcpy(&f, t.bytes->data() + i, 4);
      v.push_back(f);
    }
  else if (t.dtype == ir::DType::Float64)
    for (size_t i = 0; i + 8 <= t.bytes->size(); i += 8) {
      double d;
      std::memcpy(&d, t.bytes->data() + i, 8);
      v.push_back(d);
    }
  return v;
}

// Element-wise check |a - b| <= rtol |b| + atol max|b|; returns the normwise relative error
// max|a - b| / max|b|, or a negative value (with `why`) when the check fails.
double compare(const ir::Tensor& got, const ir::Tensor& want, double rtol, double atol, std::string* why) {
  // A scalar may be rank 0 on one side and [1] on the other.
  if (got.dims != want.dims && !(got.elementCount() == 1 && want.elementCount() == 1)) {
    *why = "dims differ";
    return -1;
  }
  auto a = values(got), b = values(want);
  if (a.size() != b.size() || a.empty()) {
    *why = "sizes differ or not floating-point";
    return -1;
  }
  double scale = 0, diff = 0;
  for (double x : b) scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < a.size(); ++i) {
    double d = std::abs(a[i] - b[i]);
    diff = std::max(diff, d);
    if (!(d <= rtol * std::abs(b[i]) + atol * scale)) {
      *why = "element " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " + std::to_string(b[i]);
      return -1;
    }
  }
  return scale > 0 ? diff / scale : diff;
}

std::vector<ir::Tensor> readTensors(const std::string& dir, const std::string& prefix) {
  std::vector<ir::Tensor> out;
  for (size_t i = 0;; ++i) {
    fs::path f = fs::path(dir) / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(f)) break;
    auto t = onnx::readTensorFile(f.string());
    if (!t) return {};
    out.push_back(t->tensor);
  }
  return out;
}

// Expands, validates and compiles the (differentiated) model.
Expected<std::unique_ptr<codegen::Executor>> compile(ir::Sdfg& sdfg) {
  transforms::foldConstants(sdfg);
  if (auto r = expansions::expandAll(sdfg); !r) return r.takeError();
  auto v = ir::validate(sdfg);
  if (const Diagnostic* e = v.firstError()) return fail(*e);
  codegen::RunOptions opts;
  opts.threads = 2;
  return codegen::Executor::create(sdfg, opts);
}

} // namespace

class TestGradients : public QObject {
  Q_OBJECT
private slots:
  void againstPyTorch_data();
  void againstPyTorch();
  void onnxGradientCases_data();
  void onnxGradientCases();
  void refusals();
};

void TestGradients::againstPyTorch_data() {
  QTest::addColumn<QString>("model");
  for (const char* m : {"mlp", "lenet", "resnet_block", "transformer_layer"}) QTest::newRow(m) << QString(m);
}

void TestGradients::againstPyTorch() {
  QFETCH(QString, model);
  const std::string dir = kRefs + model.toStdString();
  std::vector<std::string> wrt;
  {
    std::ifstream f(dir + "/wrt.txt");
    for (std::string line; std::getline(f, line);)
      if (!line.empty()) wrt.push_back(line);
  }
  QVERIFY(!wrt.empty());
  auto inputs = readTensors(dir, "input_");
  auto refs = readTensors(dir, "grad_");
  QCOMPARE(refs.size(), wrt.size());

  auto m = io::loadModel(dir + "/model.onnx");
  QVERIFY2(m, m ? "" : m.error().str().c_str());
  ir::Sdfg& sdfg = *m->sdfg;
  const size_t forwardOutputs = sdfg.outputs.size();
  autodiff::Request req;
  req.of = {"loss"};
  req.wrt = wrt;
  edit::History history(sdfg);
  auto d = history.execute(std::make_unique<autodiff::Differentiate>(req));
  QVERIFY2(d, d ? "" : d.error().str().c_str());
  QCOMPARE(sdfg.outputs.size(), forwardOutputs + wrt.size());
  auto exec = compile(sdfg);
  QVERIFY2(exec, exec ? "" : exec.error().str().c_str());
  auto out = (*exec)->run(inputs);
  QVERIFY2(out, out ? "" : out.error().str().c_str());

  double worst = 0;
  for (size_t k = 0; k < wrt.size(); ++k) {
    std::string why;
    double e = compare((*out)[forwardOutputs + k], refs[k], 1e-4, 1e-6, &why);
    QVERIFY2(e >= 0, (model.toStdString() + ": d loss / d " + wrt[k] + ": " + why).c_str());
    worst = std::max(worst, e);
  }
  // The forward loss too (float32 PyTorch).
  auto loss = readTensors(dir, "output_");
  std::string why;
  QVERIFY2(!loss.empty() && compare((*out)[0], loss[0], 1e-5, 1e-6, &why) >= 0, why.c_str());
  qInfo("%-18s %zu gradients, max normwise relative error vs PyTorch %.2e", model.toUtf8().constData(), wrt.size(), worst);
}

void TestGradients::onnxGradientCases_data() {
  QTest::addColumn<QString>("dir");
  const fs::path root = testsupport::kOnnxTestDataRoot.toStdString() + "/simple";
  std::vector<std::string> cases;
  if (fs::is_directory(root))
    for (auto& e : fs::directory_iterator(root))
      if (e.path().filename().string().rfind("test_gradient_", 0) == 0) cases.push_back(e.path().string());
  std::sort(cases.begin(), cases.end());
  for (auto& c : cases) QTest::newRow(fs::path(c).filename().string().c_str()) << QString::fromStdString(c);
  if (cases.empty()) QTest::newRow("no test_gradient_ case") << QString(); // fails, or skips without the test data
}

void TestGradients::onnxGradientCases() {
  QFETCH(QString, dir);
  if (dir.isEmpty()) {
    DCW_REQUIRE_ONNX_TESTDATA();
    QFAIL(qPrintable(testsupport::kOnnxTestDataRoot + "/simple holds no test_gradient_* case"));
  }
  const std::string d = dir.toStdString();
  auto m = io::loadModel(d + "/model.onnx");
  QVERIFY2(m, m ? "" : m.error().str().c_str());
  edit::Editor ed(*m->sdfg);
  auto n = autodiff::lowerGradientOps(ed);
  QVERIFY2(n, n ? "" : n.error().str().c_str());
  QCOMPARE(*n, 1);
  auto exec = compile(*m->sdfg);
  QVERIFY2(exec, exec ? "" : exec.error().str().c_str());
  int sets = 0;
  for (int s = 0; fs::is_directory(d + "/test_data_set_" + std::to_string(s)); ++s, ++sets) {
    const std::string set = d + "/test_data_set_" + std::to_string(s);
    auto out = (*exec)->run(readTensors(set, "input_"));
    QVERIFY2(out, out ? "" : out.error().str().c_str());
    auto want = readTensors(set, "output_");
    QCOMPARE(out->size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      std::string why;
      QVERIFY2(compare((*out)[k], want[k], 1e-5, 1e-6, &why) >= 0, (set + " output " + std::to_string(k) + ": " + why).c_str());
    }
  }
  QVERIFY(sets > 0);
}

// What cannot be differentiated is refused naming it, and the model is left unchanged.
void TestGradients::refusals() {
  auto m = io::loadModel(kRefs + "mlp/model.onnx");
  QVERIFY(m);
  edit::History history(*m->sdfg);
  const auto outputs = m->sdfg->outputs;
  struct Case {
    std::vector<std::string> of, wrt;
    const char* mentions;
  };
  for (const Case& c : {Case{{"loss"}, {"labels"}, "labels"}, Case{{"loss"}, {"nope"}, "nope"}, Case{{"x"}, {"fc1.weight"}, "x"}}) {
    autodiff::Request req;
    req.of = c.of;
    req.wrt = c.wrt;
    auto r = history.execute(std::make_unique<autodiff::Differentiate>(req));
    QVERIFY(!r);
    QVERIFY2(r.error().str().find(c.mentions) != std::string::npos, r.error().str().c_str());
    QCOMPARE(history.size(), size_t(0));
    QVERIFY(m->sdfg->outputs == outputs);
  }
}

QTEST_GUILESS_MAIN(TestGradients)
#include "tst_Gradients.moc"
