// The epilogue of a oneDNN convolution or matmul (core/expansions/onednn/PostOps.h): SiLU and GELU on
// a dense output of 4096 values or more run as DCW's vectorized pass after the call (siluInPlace,
// geluInPlace), not as oneDNN's slower swish / gelu_erf post-ops; on fewer values, or an activation
// oneDNN computes fast, the post-op stays. Numbers against the pure path after `dcw optimize`'s
// pipeline, with weights scaled up (x30 and x3: pre-activations in the tens, where e^-x and e^-x^2
// leave the float range unless clamped) and element counts that leave a scalar tail and, for the
// convolution, span several threads.
#include "support/SdfgFixtures.h"

#include "core/ir/AccessNode.h"

#include <cmath>
#include <cstring>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// The largest |value| of float32 outputs.
double maxMagnitude(const std::vector<Tensor>& ts) {
  double m = 0;
  for (const auto& t : ts) {
    if (t.dtype != DType::Float32 || !t.bytes) continue;
    const auto* f = reinterpret_cast<const float*>(t.bytes->data());
    for (int64_t k = 0; k < t.elementCount(); ++k) m = std::max(m, double(std::fabs(f[k])));
  }
  return m;
}

} // namespace

class TestOneDnnPostOps : public QObject {
  Q_OBJECT

private slots:
  void passAfterTheCall_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("pass");
    QTest::addColumn<QString>("postOp");
    // The convolution reads 3 channels: DCW's few-channel kernel is its call's other variant (SiLU in
    // registers), so the primitive's pass is the call's `finish`, timed with it.
    QTest::newRow("Conv -> SiLU, 13x53x53, channels-last")
        << "conv_silu_wide.onnx" << "dcw_k.finish = [](Call& k) { siluInPlace(static_cast<float*>(const_cast<void*>(k.ops[3].pointer)), 36517L); };"
        << "eltwise_swish";
    QTest::newRow("MatMul + bias -> GELU, 2x70x50") << "matmul_bias_gelu_wide.onnx" << "dcw_env_onednn::geluInPlace(Y, 7000L);"
                                                    << "eltwise_gelu_erf";
  }
  void passAfterTheCall() {
    QFETCH(QString, file);
    QFETCH(QString, pass);
    QFETCH(QString, postOp);
    auto m = loadModel(controlflowDataFile(file.toStdString()), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    QVERIFY(autoOptimized(*m, {"onednn"}));
    // The activation is in the fused node (one node for the GELU model; the two convolutions).
    bool fused = false;
    for (auto* n : allNodes<LibraryNode>(*m))
      if (auto* a = n->attribute("activation")) fused = fused || std::get<std::string>(a->value) == (file.contains("silu") ? "Silu" : "Gelu");
    QVERIFY(fused);
    if (file.contains("silu")) {
      // The SiLU's result sits between two oneDNN convolutions: channels-last, still one dense block.
      const DataDescriptor* u = nullptr;
      for (const auto& d : m->data())
        if (d->transient && d->shape.size() == 4 && d->isChannelsLast()) u = d.get();
      QVERIFY2(u, "no channels-last activation after optimize");
    }
    std::string code;
    auto out = runExpandedPreferring(*m, 5, {"onednn"}, &code);
    QVERIFY(!out.empty());
    QVERIFY2(code.find(pass.toStdString()) != std::string::npos, code.c_str());
    QVERIFY2(code.find(postOp.toStdString()) == std::string::npos, code.c_str());
    const double scale = maxMagnitude(ref);
    QVERIFY2(scale > 10, qPrintable(QString("outputs up to %1 only: the weights were meant to give large values").arg(scale)));
    auto d = codegen::compareOutputs(ref, out);
    QVERIFY2(d.mismatch.empty(), d.mismatch.c_str());
    QVERIFY2(d.maxAbs <= 1e-5 * scale, qPrintable(QString("max |difference| %1 for outputs up to %2").arg(d.maxAbs).arg(scale)));
  }

  // Few values: the post-op (one call, no second pass over Y).
  void postOpOnFewValues() {
    auto m = loadModel(controlflowDataFile("conv_silu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(autoOptimized(*m, {"onednn"}));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("eltwise_swish") != std::string::npos, code.c_str());
    QVERIFY2(code.find("siluInPlace(") == std::string::npos, code.c_str());
  }
};

QTEST_GUILESS_MAIN(TestOneDnnPostOps)
#include "tst_OneDnnPostOps.moc"
