// tst_Target: the target registry and the check that refuses, before any code is generated, the map
// schedules and storages the chosen target does not own — a GPU map is never run as an OpenMP loop.
// Through the pipeline (as every caller builds) and through `dcw run` as a user meets it.
#include "support/TestPaths.h"
#include "codegen/Target.h"
#include "codegen/run/Executor.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "pipeline/Pipeline.h"
#include "support/CliRunner.h"

#include <QTemporaryDir>
#include <QTest>

using namespace dcw;

namespace {

const std::string kConvNode = "main/state0/block1.conv1.Conv";
const std::string kConvMap = kConvNode + "/compute1/conv_map";

pipeline::Steps stepsWith(const std::string& last) {
  pipeline::Steps s;
  s.lines = {"apply ExpandLibraryNode node=" + kConvNode, last};
  return s;
}

} // namespace

class TestTarget : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { qputenv("DCW_CACHE_DIR", testpaths::kernelCache().c_str()); }

  void registryListsCpu() {
    QVERIFY(codegen::findTarget("cpu") != nullptr);
    QCOMPARE(std::string(codegen::findTarget("cpu")->name()), std::string("cpu"));
    QVERIFY(codegen::findTarget("no-such-target") == nullptr);
    auto t = codegen::requireTarget("quantum");
    QVERIFY(!t);
    QVERIFY2(t.error().str().find("the targets are: cpu") != std::string::npos, t.error().str().c_str());
    QVERIFY(codegen::requireTarget("cpu"));
    const codegen::Target& cpu = *codegen::findTarget("cpu");
    QVERIFY(cpu.ownsSchedule(ir::Schedule::CpuMulticore));
    QVERIFY(cpu.ownsSchedule(ir::Schedule::Vectorized));
    QVERIFY(!cpu.ownsSchedule(ir::Schedule::GpuDevice));
    QVERIFY(!cpu.ownsSchedule(ir::Schedule::GpuThreadBlock));
    QVERIFY(!cpu.ownsSchedule(ir::Schedule::FpgaPipeline));
    QVERIFY(cpu.ownsStorage(ir::StorageType::CpuHeap));
    QVERIFY(!cpu.ownsStorage(ir::StorageType::GpuGlobal));
    QVERIFY(!cpu.ownsStorage(ir::StorageType::FpgaLocal));
  }

  void gpuScheduleRefusedNamingTheMap_data() {
    QTest::addColumn<QString>("schedule");
    QTest::newRow("gpu_device") << "gpu_device";
    QTest::newRow("gpu_threadblock") << "gpu_threadblock";
    QTest::newRow("fpga_pipeline") << "fpga_pipeline";
  }
  void gpuScheduleRefusedNamingTheMap() {
    QFETCH(QString, schedule);
    auto p = pipeline::prepare(clisupport::kExample.toStdString(), stepsWith("set " + kConvMap + " schedule=" + schedule.toStdString()));
    QVERIFY(!p);
    QCOMPARE(p.failure().stage, pipeline::Stage::Lower);
    const std::string msg = p.error().str();
    QVERIFY2(msg.find(kConvMap) != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("schedule " + schedule.toStdString() + " is not supported by target cpu") != std::string::npos, msg.c_str());
  }

  void foreignStorageRefusedNamingTheData() {
    auto p = pipeline::prepare(clisupport::kExample.toStdString(), stepsWith("set main/@stem.0.weight storage=gpu_global"));
    QVERIFY(!p);
    const std::string msg = p.error().str();
    QVERIFY2(msg.find("stem.0.weight") != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("storage gpu_global is not supported by target cpu") != std::string::npos, msg.c_str());
  }

  // The short path (an SDFG already expanded) checks too.
  void executorChecksTheTarget() {
    auto p = pipeline::prepare(clisupport::kExample.toStdString(), stepsWith("set " + kConvMap + " schedule=cpu_multicore"));
    QVERIFY2(bool(p), p ? "" : p.error().str().c_str());
    auto e = ir::resolvePath(*p->model.sdfg, kConvMap);
    QVERIFY(e.ok());
    static_cast<ir::MapEntry*>(*e)->schedule = ir::Schedule::GpuDevice;
    auto ex = codegen::Executor::create(*p->model.sdfg);
    QVERIFY(!ex);
    QVERIFY2(ex.error().str().find("not supported by target cpu") != std::string::npos, ex.error().str().c_str());
  }

  void cliRefusesWithOneErrorLine() {
    QTemporaryDir dir;
    const QString script = dir.filePath("gpu.dcws");
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(("dcw-script 1\napply ExpandLibraryNode node=" + kConvNode + "\nset " + kConvMap + " schedule=gpu_device\n").c_str());
    f.close();
    auto r = clisupport::dcw({"run", clisupport::kExample, "--random", "1", "--script", script});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.startsWith("error: ") && r.err.count('\n') == 1, qPrintable(r.err));
    QVERIFY2(r.err.contains(QString::fromStdString(kConvMap)), qPrintable(r.err));
    auto bad = clisupport::dcw({"codegen", clisupport::kExample, "--target", "quantum", "-o", dir.filePath("out")});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("quantum"), qPrintable(bad.err));
  }
};

QTEST_APPLESS_MAIN(TestTarget)
#include "tst_Target.moc"
