// The CUDA target: GpuTransform with the code the CUDA targets generate — GpuTransform's structure
// (device copies, explicit host/device states, transients moved, gpu_device top-level maps, undo and
// redo exact) and numbers (the transformed model run by target cuda-sim, whose kernels run on the CPU
// thread after thread, equals the CPU before) on hand-built SDFGs and expanded ONNX node models; the
// generated CUDA (a kernel per device map, every launch checked, write-conflict resolution atomic only
// where threads share an element, the source map covering kernels); host and device memory kept apart,
// each misplacement refused naming the element and the data; and the `cuda` target built by nvcc for
// sm_80/sm_90 where the toolkit is, run where a GPU is (skipped, saying why, where none is).
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"
#include "support/TransformTestSupport.h"
#include "transforms/catalogue/GpuBlockTiling.h"
#include "transforms/catalogue/GpuTransform.h"
#include "transforms/catalogue/InLocalStorage.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/StateFusion.h"
#include "transforms/catalogue/MapTiling.h"

#include "codegen/Target.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cuda/CudaGenerator.h"
#include "codegen/cuda/CudaTarget.h"
#include "codegen/run/Executor.h"
#include "codegen/run/ProfileReport.h"
#include "codegen/run/ChromeTrace.h"
#include "codegen/run/Profiler.h"
#include "codegen/run/RandomInputs.h"
#include "pipeline/OnnxTestCase.h"
#include "pipeline/Pipeline.h"
#include "core/ir/AccessNode.h"
#include "core/ir/DeviceState.h"
#include "core/ir/Tasklet.h"

#include <QFile>
#include <QSet>
#include <QTemporaryDir>

#include <cstdlib>
#include <cstring>
#include <filesystem>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match onState(const State& st, bool whole = true) {
  transforms::Match m{"GpuTransform", {{"state", pathOf(st)}}, {}};
  if (!whole) m.options["whole_sdfg"] = "false";
  return m;
}

std::unique_ptr<Sdfg> twoStates() { return twoStateModel(); }

std::unique_ptr<Sdfg> reduction(int R, int C, bool byRow, const std::string& wcr) { return reductionModel(R, C, byRow, wcr); }

const State* stateNamed(const Sdfg& s, const std::string& label) { return stateLabelled(s, label); }

int gpuStates(const Sdfg& s) {
  int n = 0;
  for (State* st : s.allStates()) n += isGpuState(s, *st) ? 1 : 0;
  return n;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The model moved onto the GPU by GpuTransform (whole model).
void moveToGpu(Sdfg& s) {
  const State* first = nullptr;
  for (State* st : s.allStates())
    if (!first && stateComputes(*st)) first = st;
  edit::Editor ed(s);
  auto r = transforms::GpuTransform().apply(onState(*first), ed);
  QVERIFY2(r, r ? "" : r.error().str().c_str());
}

// The `cuda` target's program of twoStates() moved to the GPU (the SDFG in `s`).
Expected<codegen::GeneratedCode> gpuTwoStatesProgram(std::unique_ptr<Sdfg>& s) {
  s = twoStates();
  moveToGpu(*s);
  const codegen::Target* cuda = codegen::findTarget("cuda");
  if (!cuda) return fail("cuda", "the cuda target is not registered");
  return cuda->generate(*s, {});
}

Expected<codegen::CudaProgram> generate(const Sdfg& s) { return codegen::generateCuda(s); }

} // namespace

class TestCuda : public QObject {
  Q_OBJECT
private slots:
  void wholeModelMovesWithExplicitCopies() {
    auto s = twoStates();
    QVERIFY(checkTransformation(*s, transforms::GpuTransform(), onState(*stateNamed(*s, "produce")), 1e-6, true, "cuda-sim"));
    // X and Y keep their host arrays and get device copies; T moves itself.
    const DataDescriptor* gx = s->findData("gpu_X");
    const DataDescriptor* gy = s->findData("gpu_Y");
    QVERIFY(gx && gy);
    QCOMPARE(gx->storage, StorageType::GpuGlobal);
    QVERIFY(gx->transient);
    QCOMPARE(s->findData("X")->storage, StorageType::Default);
    QCOMPARE(s->findData("T")->storage, StorageType::GpuGlobal);
    QVERIFY(!s->findData("gpu_T"));
    QCOMPARE(gpuStates(*s), 2);
    const State* pre = stateNamed(*s, "host_to_device");
    const State* post = stateNamed(*s, "device_to_host");
    QVERIFY(pre && post);
    QCOMPARE(s->startBlock(), pre->id());
    QVERIFY(!isGpuState(*s, *pre) && !isGpuState(*s, *post));
    QCOMPARE(pre->edges().front()->memlet.data, std::string("X"));
    QCOMPARE(post->edges().front()->memlet.data, std::string("gpu_Y"));
    for (auto* me : allNodes<MapEntry>(*s)) QCOMPARE(me->schedule, Schedule::GpuDevice);
    // FPGA states are not GPU states and the other way round.
    for (State* st : s->allStates()) QVERIFY(!isDeviceState(*s, *st));
  }

  void oneStateMovesWithCopiesAroundIt() {
    auto s = twoStates();
    QVERIFY(checkTransformation(*s, transforms::GpuTransform(), onState(*stateNamed(*s, "consume"), false), 1e-6, true, "cuda-sim"));
    QCOMPARE(gpuStates(*s), 1);
    QVERIFY(isGpuState(*s, *stateNamed(*s, "consume")));
    QVERIFY(s->findData("gpu_T")); // shared with the host state before: a device copy
    // The host state keeps its CPU schedule; the GPU state's map is a kernel.
    for (auto* me : allNodes<MapEntry>(*s)) {
      const bool onGpuState = isGpuState(*s, *static_cast<const State*>(me->parent()));
      QCOMPARE(me->schedule == Schedule::GpuDevice, onGpuState);
    }
  }

  void refusals() {
    auto s = twoStates();
    transforms::GpuTransform t;
    edit::Editor ed(*s);
    QVERIFY(t.apply(onState(*stateNamed(*s, "produce")), ed));
    Diagnostics why;
    QVERIFY(!t.canApply(onState(*stateNamed(*s, "consume")), *s, &why));
    QVERIFY2(why.firstError()->message.find("on the GPU already") != std::string::npos, why.firstError()->message.c_str());
    // A state that only copies computes nothing.
    Diagnostics why2;
    QVERIFY(!t.canApply(onState(*stateNamed(*s, "host_to_device")), *s, &why2));
    QVERIFY(why2.firstError()->message.find("computes nothing") != std::string::npos);
  }

  void expandedOnnxModelsRunOnCudaSim_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"test_conv_with_strides_padding", "test_gemm_default_matrix_bias", "test_softmax_axis_1",
                          "test_maxpool_2d_default", "test_relu", "test_reduce_sum_keepdims_example", "test_matmul_3d",
                          "test_batchnorm_example", "test_transpose_all_permutations_3", "test_concat_2d_axis_1"})
      QTest::newRow(n) << n;
  }
  void expandedOnnxModelsRunOnCudaSim() {
    QFETCH(QString, name);
    auto s = loadModel(onnxCase(name.toStdString()));
    QVERIFY(s);
    const State* first = nullptr;
    for (State* st : s->allStates())
      for (auto& n : st->nodes())
        if (!first && n->kind() != ElementKind::AccessNode) first = st;
    QVERIFY(first);
    QVERIFY(checkTransformation(*s, transforms::GpuTransform(), onState(*first), 1e-4, true, "cuda-sim"));
    // Nothing computes on the host any more: every map at the top of a host-level state is a kernel,
    // and the data of nested SDFGs between kernels are in GPU memory.
    auto p = generate(*s);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY(!p->kernels.empty());
    QCOMPARE(count(p->code.source, "dcw_cu::launch("), int(p->kernels.size()));
    QVERIFY(p->code.source.find("#pragma omp parallel") == std::string::npos);
  }

  // An If whose condition is a model input: the input is copied to the GPU with the rest, and the
  // host's branch reads it from there through the stream (read_on_host), never through the device
  // pointer (which a real GPU's host cannot dereference: the suite's test_if crashed so on an H200
  // while cuda-sim, whose device memory is host memory, passed it).
  void hostControlFlowReadsGpuValuesThroughTheStream() {
    auto s = loadModel(onnxCase("test_if"));
    QVERIFY(s);
    moveToGpu(*s);
    auto p = generate(*s);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY(count(p->code.source, "dcw_cu::read_on_host(") >= 1);
    pipeline::Options o;
    o.target = "cuda-sim";
    o.threads = 1;
    auto r = pipeline::runOnnxTestCase("/usr/share/libonnx-testdata/data/node/test_if", o);
    QVERIFY2(r.status == pipeline::CaseResult::Status::Passed, r.message.c_str());
  }

  void generatedCudaHasCheckedLaunchesAndAMappedKernel() {
    auto s = twoStates();
    moveToGpu(*s);
    auto p = generate(*s);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    const std::string& src = p->code.source;
    QCOMPARE(p->code.mainFile, std::string("program.cu"));
    QCOMPARE(p->kernels.size(), size_t(2));
    QCOMPARE(count(src, "__global__ void"), 2);
    QCOMPARE(count(src, "dcw_cu::launch("), 2);
    QCOMPARE(count(src, "dcw_cu::launched(error, errorSize"), 2); // every launch checked, naming its map
    QCOMPARE(count(src, "cudaMemcpyAsync(gpu_X"), 1);              // host to GPU once, GPU to host once
    QCOMPARE(count(src, "cudaMemcpyAsync(Y"), 1);
    QVERIFY(src.find("dcw_cu::ready(error, errorSize)") != std::string::npos);
    QVERIFY(src.find("dcw_cu::finish(error, errorSize") != std::string::npos);
    QVERIFY(src.find("dcw_cu::DeviceBuffer<float>") != std::string::npos);
    // The program opens with every standard header it includes, the runtime's and cuda-sim's, so that
    // under cuda-sim g++ takes them from the precompiled prelude (compileShared).
    const std::string block = codegen::leadingIncludeBlock(src);
    for (const char* h : {"#include <omp.h>", "#include <cuda_runtime.h>", "#else\n#include <chrono>", "#include <ucontext.h>"})
      QVERIFY2(block.find(h) != std::string::npos, h);
    QVERIFY(block.find("#define") == std::string::npos);
    // The kernel's lines map to its map: the line holding `__global__ void <kernel>` lies in an entry
    // of the source map whose element is that map.
    for (auto& k : p->kernels) {
      const size_t at = src.find("__global__ void __launch_bounds__(256) " + k.function + "(");
      QVERIFY(at != std::string::npos);
      const int lineNo = 1 + int(std::count(src.begin(), src.begin() + long(at), '\n'));
      bool mapped = false;
      for (auto& e : p->code.sourceMap)
        if (e.element == k.element && e.firstLine <= lineNo && lineNo <= e.lastLine) mapped = true;
      QVERIFY2(mapped, k.path.c_str());
    }
  }

  void atomicsOnlyWhereThreadsShareAnElement() {
    // Row sums: i on the grid, j a loop in each thread; no two threads write one element.
    auto rows = reduction(6, 37, true, "sum");
    moveToGpu(*rows);
    auto p = generate(*rows);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY(p->code.source.find("dcw_cu::atomic_add(") == std::string::npos);
    QVERIFY(p->code.source.find("dcw_cu::cas(") == std::string::npos);
    // Column sums: threads of different rows add into one element: atomicAdd.
    auto cols = reduction(6, 37, false, "sum");
    moveToGpu(*cols);
    p = generate(*cols);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY(p->code.source.find("dcw_cu::atomic_add(&") != std::string::npos);
    // A maximum by compare-and-swap.
    auto maxes = reduction(6, 37, false, "max");
    moveToGpu(*maxes);
    p = generate(*maxes);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY(p->code.source.find("dcw_cu::cas(") != std::string::npos);
    // All three compute what the CPU computes (cuda-sim).
    for (auto* make : {+[] { return reduction(6, 37, true, "sum"); }, +[] { return reduction(6, 37, false, "sum"); },
                       +[] { return reduction(6, 37, false, "max"); }, +[] { return reduction(6, 37, false, "min"); }}) {
      auto before = make();
      auto inputs = randomInputsFor(*before);
      auto want = runModel(*before, inputs);
      auto after = make();
      moveToGpu(*after);
      auto got = runModel(*after, inputs, "cuda-sim");
      QVERIFY(!want.empty() && !got.empty());
      auto d = codegen::compareOutputs(want, got);
      QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-4, d.mismatch.c_str());
    }
  }

  // Long row reductions run a thread block per row: the block's threads take the row's elements in
  // turn, accumulate in registers, and a tree in shared memory combines them (no atomics); short rows
  // keep a thread per row looping, and column sums keep their atomics. Numbers equal the CPU's.
  void longReductionsRunAThreadBlockPerElement_data() {
    QTest::addColumn<QString>("wcr");
    for (const char* w : {"sum", "max", "min", "prod"}) QTest::newRow(w) << w;
  }
  void longReductionsRunAThreadBlockPerElement() {
    QFETCH(QString, wcr);
    const std::string w = wcr.toStdString();
    const int C = w == "prod" ? 300 : 1000; // a product of 300 values near 1 stays finite
    auto rows = reduction(5, C, true, w);
    moveToGpu(*rows);
    auto p = generate(*rows);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    const std::string& src = p->code.source;
    QVERIFY(src.find("(a thread block per point, reducing together)") != std::string::npos);
    QVERIFY(src.find("dcw_cu::launch_blocks(") != std::string::npos);
    QVERIFY(src.find("// block reduction (" + w + ")") != std::string::npos);
    QVERIFY(src.find("dcw_cu::atomic_add(") == std::string::npos && src.find("dcw_cu::cas(") == std::string::npos);
    QVERIFY(src.find("/*DCW_ACCUMULATORS") == std::string::npos); // the marker became the declarations
    auto before = reduction(5, C, true, w);
    auto inputs = randomInputsFor(*before);
    auto want = runModel(*before, inputs);
    auto got = runModel(*rows, inputs, "cuda-sim");
    QVERIFY(!want.empty() && !got.empty());
    auto d = codegen::compareOutputs(want, got);
    QVERIFY2(d.mismatch.empty() && d.maxRel < 1e-5, d.mismatch.c_str());
    // Short rows: a thread per row; column sums: atomics, not blocks.
    for (bool byRow : {true, false}) {
      auto other = byRow ? reduction(5, 37, true, w) : reduction(300, 1000, false, w);
      moveToGpu(*other);
      auto q = generate(*other);
      QVERIFY2(q, q ? "" : q.error().str().c_str());
      QVERIFY(q->code.source.find("reducing together") == std::string::npos);
    }
  }

  void hostAndDeviceMemoryKeptApart() {
    // A map left on the host (cpu_multicore) in a GPU state: refused, naming the map and the data.
    auto s = twoStates();
    moveToGpu(*s);
    for (auto* me : allNodes<MapEntry>(*s))
      if (static_cast<const State*>(me->parent())->label() == "consume") me->schedule = Schedule::CpuMulticore;
    auto p = generate(*s);
    QVERIFY(!p);
    QVERIFY2(p.error().str().find("consume") != std::string::npos, p.error().str().c_str());
    QVERIFY2(p.error().str().find("runs on the host (schedule cpu_multicore) but uses 'T' in GPU memory") != std::string::npos,
             p.error().str().c_str());
    // A kernel on host data: a gpu_device map in a model nothing moved.
    auto h = twoStates();
    for (auto* me : allNodes<MapEntry>(*h)) me->schedule = Schedule::GpuDevice;
    p = generate(*h);
    QVERIFY(!p);
    QVERIFY2(p.error().str().find("runs on the GPU but uses 'X' in default memory, which a kernel cannot reach") != std::string::npos,
             p.error().str().c_str());
    QVERIFY(p.error().hint.find("GpuTransform") != std::string::npos);
    // The CPU target refuses GPU schedules and storages before generating.
    auto owned = codegen::checkTarget(*h, *codegen::findTarget("cpu"));
    QVERIFY(owned.firstError());
    QVERIFY(owned.firstError()->message.find("gpu_device") != std::string::npos);
  }

  // A model's weights are copied to the GPU on the first run and stay there: later runs compute the
  // same; a second executor of the same program with other weights (another array) gets its own.
  void weightsStayOnTheGpuBetweenRuns() {
    const std::string model = testpaths::source("/resources/examples/tiny_resnet.onnx");
    pipeline::Options cpu, sim;
    sim.target = "cuda-sim";
    auto ref = pipeline::build(model, {}, cpu);
    auto gpu = pipeline::build(model, {}, sim);
    QVERIFY2(ref && gpu, ref ? (gpu ? "" : gpu.error().str().c_str()) : ref.error().str().c_str());
    const std::string& src = gpu->executor->code().source;
    QVERIFY(src.find("static dcw_cu::Resident") != std::string::npos);
    QVERIFY(src.find(".upload(") != std::string::npos);
    // The same model with every weight doubled: other numbers from the same compiled program.
    auto doubled = [](io::LoadedModel& m) -> Expected<void> {
      for (auto& d : m.sdfg->data())
        if (d->constant && d->dtype == DType::Float32 && d->constant->bytes) {
          std::string bytes = *d->constant->bytes;
          for (size_t k = 0; k + 4 <= bytes.size(); k += 4) {
            float v;
            std::memcpy(&v, &bytes[k], 4);
            v *= 2;
            std::memcpy(&bytes[k], &v, 4);
          }
          auto t = std::make_shared<Tensor>(*d->constant);
          t->bytes = std::make_shared<const std::string>(std::move(bytes));
          m.sdfg->findData(d->name())->constant = t;
        }
      return {};
    };
    cpu.edit = doubled;
    sim.edit = doubled;
    auto ref2 = pipeline::build(model, {}, cpu);
    auto gpu2 = pipeline::build(model, {}, sim);
    QVERIFY(ref2 && gpu2);
    QCOMPARE(gpu2->executor->code().source, src); // one program: the weights are its arguments
    auto inputs = codegen::randomInputs(gpu->executor->code().signature, 5);
    QVERIFY(inputs);
    auto want = ref->executor->run(*inputs), want2 = ref2->executor->run(*inputs);
    QVERIFY(want && want2);
    QVERIFY(!codegen::compareOutputs(*want, *want2).mismatch.empty() || codegen::compareOutputs(*want, *want2).maxAbs > 1e-3);
    for (int round = 0; round < 3; ++round) { // interleaved: each executor sees its own weights every time
      auto got = gpu->executor->run(*inputs), got2 = gpu2->executor->run(*inputs);
      QVERIFY(got && got2);
      auto d = codegen::compareOutputs(*want, *got), d2 = codegen::compareOutputs(*want2, *got2);
      QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-4, qPrintable(QString("round %1: %2").arg(round).arg(d.maxAbs)));
      QVERIFY2(d2.mismatch.empty() && d2.maxAbs < 1e-4, qPrintable(QString("round %1: %2").arg(round).arg(d2.maxAbs)));
    }
  }

  // GpuTransform, then MapTiling and the inner map scheduled gpu_threadblock: a thread block per tile;
  // with InLocalStorage the tile of X is copied into shared memory by the block's threads, then read
  // by other threads after the barrier (cuda-sim runs a block's threads as coroutines meeting at each
  // barrier: without it, threads would read elements not yet copied).
  void threadBlocksAndSharedMemory_data() {
    QTest::addColumn<bool>("shared");
    QTest::newRow("thread blocks") << false;
    QTest::newRow("shared tile") << true;
  }
  void threadBlocksAndSharedMemory() {
    QFETCH(bool, shared);
    auto before = twoStates();
    auto inputs = randomInputsFor(*before);
    auto want = runModel(*before, inputs);
    auto s = twoStates();
    moveToGpu(*s);
    // GpuBlockTiling: structure, numbers on cuda-sim, exact undo and redo.
    transforms::Match tiling{"GpuBlockTiling", {{"entry", pathOf(*mapNamed(*s, "T_map"))}}, {{"tile_sizes", "2,5"}}};
    QVERIFY(checkTransformation(*s, transforms::GpuBlockTiling(), tiling, 1e-6, true, "cuda-sim", "cuda-sim"));
    MapEntry* outer = mapNamed(*s, "T_map_tiles");
    MapEntry* inner = mapNamed(*s, "T_map");
    QVERIFY(outer && inner);
    QCOMPARE(outer->schedule, Schedule::GpuDevice);
    QCOMPARE(inner->schedule, Schedule::GpuThreadBlock);
    // Applied once: the map runs in thread blocks now.
    QCOMPARE(whyNot(transforms::GpuBlockTiling(), {"GpuBlockTiling", {{"entry", pathOf(*outer)}}, {}}, *s),
             QString("the map runs in thread blocks already"));
    if (shared) {
      transforms::Match m{"InLocalStorage", {{"outer", pathOf(*outer)}, {"inner", pathOf(*inner)}}, {}};
      QVERIFY2(applyNow(*s, transforms::InLocalStorage(), m), qPrintable(whyNot(transforms::InLocalStorage(), m, *s)));
      int buffers = 0; // the tile goes into shared memory by itself
      for (auto& d : s->data())
        if (d->transient && d->name().find("local") != std::string::npos) {
          QCOMPARE(d->storage, StorageType::GpuShared);
          ++buffers;
        }
      QCOMPARE(buffers, 1);
    }
    auto p = generate(*s);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    const std::string& src = p->code.source;
    QVERIFY(src.find("dcw_cu::launch_blocks(") != std::string::npos);
    QVERIFY(src.find("__syncthreads();") != std::string::npos);
    QCOMPARE(src.find("__shared__ float") != std::string::npos, shared);
    auto got = runModel(*s, inputs, "cuda-sim");
    QVERIFY(!want.empty() && !got.empty());
    auto d = codegen::compareOutputs(want, got);
    QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-6, d.mismatch.c_str());
  }

  // Kernel fusion of an elementwise chain on the GPU is the catalogue's: StateFusion puts the two GPU
  // states together, MapFusion makes the two kernels one (T becomes a value in a thread).
  void elementwiseKernelsFuse() {
    auto s = twoStates();
    moveToGpu(*s);
    QCOMPARE(generate(*s)->kernels.size(), size_t(2));
    transforms::Match states{"StateFusion", {{"first", pathOf(*stateNamed(*s, "produce"))}, {"second", pathOf(*stateNamed(*s, "consume"))}}, {}};
    QVERIFY(checkTransformation(*s, transforms::StateFusion(), states, 1e-6, true, "cuda-sim", "cuda-sim"));
    const State* st = stateNamed(*s, "produce");
    QVERIFY(st);
    const AccessNode* t = nullptr;
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get()); a && a->data() == "T") t = a;
    QVERIFY(t);
    transforms::Match fuse{"MapFusion",
                           {{"first_exit", pathOf(*s, st->inEdges(t->id()).at(0)->src)},
                            {"array", pathOf(*t)},
                            {"second_entry", pathOf(*s, st->outEdges(t->id()).at(0)->dst)}},
                           {}};
    QVERIFY(checkTransformation(*s, transforms::MapFusion(), fuse, 1e-6, true, "cuda-sim", "cuda-sim"));
    auto p = generate(*s);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(p->kernels.size(), size_t(1));
  }

  void gpuBlockTilingRefusals() {
    auto s = twoStates();
    transforms::Match m{"GpuBlockTiling", {{"entry", pathOf(*mapNamed(*s, "T_map"))}}, {}};
    QVERIFY(whyNot(transforms::GpuBlockTiling(), m, *s).contains("not a GPU kernel (its schedule is"));
    moveToGpu(*s);
    m.options["tile_sizes"] = "4,5";
    QVERIFY(transforms::GpuBlockTiling().canApply(m, *s, nullptr) == false); // 4 x 5 fits one tile: nothing to tile
    auto big = reduction(64, 64, true, "sum");
    moveToGpu(*big);
    transforms::Match b{"GpuBlockTiling", {{"entry", pathOf(*mapNamed(*big, "rows"))}}, {{"tile_sizes", "64,32"}}};
    QVERIFY(whyNot(transforms::GpuBlockTiling(), b, *big).contains("more than the 1024 threads of a CUDA block"));
    b.options.clear(); // the default tile: 8 x 32 threads
    QVERIFY(checkTransformation(*big, transforms::GpuBlockTiling(), b, 1e-3, true, "cuda-sim", "cuda-sim"));
  }

  // A profile of a CUDA program: kernels timed by CUDA events on the stream, on a
  // track of their own inside the states that queued them (cuda-sim's events read the host's clock).
  void profileTimesKernelsOnTheGpuTrack() {
    auto s = twoStates();
    moveToGpu(*s);
    const codegen::Target* target = codegen::findTarget("cuda-sim");
    codegen::RunOptions ro;
    ro.target = "cuda-sim";
    ro.generate.instrument = codegen::parseInstrumentation({"all"});
    auto code = target->generate(*s, ro.generate);
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    QCOMPARE(count(code->source, "dcw_cu::GpuTimer "), 2); // the two kernels ("all" times copies only when named)
    QVERIFY(code->source.find("dcw_cu::SyncedScope ") != std::string::npos);
    // A state's scope waits for the stream before its clock starts (what was queued before is not its
    // time) and before it ends: the base that waits comes before dcw_prof::Scope.
    QVERIFY(code->source.find("struct SyncedScope : private StreamDrained, dcw_prof::Scope") != std::string::npos);
    QVERIFY(code->source.find(".flush();") != std::string::npos);
    auto inputs = codegen::randomInputs(code->signature, 7);
    QVERIFY(inputs);
    auto lib = target->build(*code, {});
    QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
    auto ex = codegen::Executor::load(*s, std::move(*code), std::move(*lib), ro);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    codegen::ProfileOptions po;
    po.repeat = 3;
    po.counters = false;
    auto r = codegen::profileRuns(**ex, *inputs, po);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    std::map<std::string, int> onGpu;
    double stateStart = 0, stateEnd = 0, kernelStart = -1, kernelEnd = 0;
    for (auto& e : r->trace) {
      const auto& el = r->elements[size_t(e.element)];
      if (e.thread == (1u << 16)) ++onGpu[el.kind];
      if (el.path == "main/consume") stateStart = e.startUs, stateEnd = e.startUs + e.durationUs;
      if (el.kind == "map" && el.path.rfind("main/consume/", 0) == 0) kernelStart = e.startUs, kernelEnd = e.startUs + e.durationUs;
    }
    QCOMPARE(onGpu["map"], 2);
    QCOMPARE(onGpu["state"], 0);
    QVERIFY(kernelStart >= stateStart - 1 && kernelEnd <= stateEnd + 1); // inside the state that queued it
    QVERIFY(codegen::chromeTraceJson(*r).find("GPU stream 0") != std::string::npos);
    // GPU memory: DCW's device allocations (the inputs', outputs' and transient's device copies, pooled)
    // peaked at no less than those arrays' bytes; the report keeps the figure.
    int64_t arrays = 0;
    for (auto& d : s->data())
      if (isGpuStorage(d->storage)) arrays += int64_t(d->totalSize().constantValue().value_or(0)) * int64_t(dtypeSize(d->dtype));
    QVERIFY(arrays > 0);
    QVERIFY2(r->memory.gpuPeakBytes >= arrays, qPrintable(QString("%1 < %2").arg(r->memory.gpuPeakBytes).arg(arrays)));
    QVERIFY(r->memory.gpuHeldBytes >= arrays && r->memory.gpuHeldBytes <= r->memory.gpuPeakBytes);
    auto back = codegen::parseReport(codegen::reportJson(*r), "report");
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(back->memory.gpuPeakBytes, r->memory.gpuPeakBytes);
  }

  void cudaNeedsNvccAndSaysSo() {
    const char* old = std::getenv("DCW_NVCC");
    const std::string saved = old ? old : "";
    ::setenv("DCW_NVCC", "/nonexistent/nvcc", 1);
    auto t = codegen::requireTarget("cuda");
    QVERIFY(!t);
    QVERIFY2(t.error().str().find("nvcc was not found") != std::string::npos, t.error().str().c_str());
    QVERIFY(codegen::requireTarget("cuda-sim")); // the simulation needs g++ only
    if (old) ::setenv("DCW_NVCC", saved.c_str(), 1);
    else ::unsetenv("DCW_NVCC");
  }

  // With the CUDA toolkit (CI has it): the program compiles with nvcc, for the GPU present or for
  // sm_80 and sm_90, or for the architectures DCW_CUDA_ARCHS lists; it runs and equals the CPU where a
  // GPU is, and otherwise says there is none.
  void nvccBuildsAndTheProgramRunsWhereAGpuIs() {
    if (codegen::findNvcc().empty()) {
      // CI has the toolkit: there its absence is a failure, not a skip.
      if (const char* ci = std::getenv("CI"); ci && std::string(ci) == "true") QFAIL("CI=true but the CUDA toolkit's nvcc was not found");
      QSKIP("the CUDA toolkit (nvcc) is not installed here: the cuda target is not built");
    }
    auto before = twoStates();
    auto inputs = randomInputsFor(*before);
    auto want = runModel(*before, inputs);
    std::unique_ptr<Sdfg> s;
    auto code = gpuTwoStatesProgram(s);
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    const codegen::Target* cuda = codegen::findTarget("cuda");
    QTemporaryDir cache;
    codegen::CompileOptions co;
    co.cacheDir = cache.path().toStdString();
    auto lib = cuda->build(*code, co);
    QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
    QVERIFY(std::filesystem::is_regular_file(lib->path));
    // DCW_CUDA_ARCHS chooses the architectures (as for another machine's GPU): the library holds code
    // for those alone; a value that is not one is refused naming the variable.
    const char* old = std::getenv("DCW_CUDA_ARCHS");
    const std::string saved = old ? old : "";
    ::setenv("DCW_CUDA_ARCHS", "sm_9x", 1);
    auto bad = cuda->build(*code, co);
    ::setenv("DCW_CUDA_ARCHS", "sm_86", 1);
    auto chosen = cuda->build(*code, co);
    if (old) ::setenv("DCW_CUDA_ARCHS", saved.c_str(), 1);
    else ::unsetenv("DCW_CUDA_ARCHS");
    QVERIFY(!bad);
    QVERIFY2(bad.error().str().find("DCW_CUDA_ARCHS: '9x' is not a GPU architecture") != std::string::npos, bad.error().str().c_str());
    QVERIFY2(chosen, chosen ? "" : chosen.error().str().c_str());
    // The fatbinary keeps each cubin's ptxas options ("-arch sm_86 -m 64 ...") as text.
    QFile so(QString::fromStdString(chosen->path));
    QVERIFY(so.open(QIODevice::ReadOnly));
    const QByteArray bytes = so.readAll();
    QSet<QString> archs;
    for (int at = bytes.indexOf("-arch sm_"); at >= 0; at = bytes.indexOf("-arch sm_", at + 1))
      archs.insert(QString::fromLatin1(bytes.mid(at + 6, 5)).trimmed());
    const QString elf = QStringList(archs.values()).join(' ');
    QVERIFY2(archs == QSet<QString>{"sm_86"}, qPrintable(elf));
    codegen::RunOptions ro;
    ro.target = "cuda";
    ro.compile.cacheDir = co.cacheDir;
    auto ex = codegen::Executor::create(*s, ro);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    auto out = (*ex)->run(inputs);
    std::string why;
    if (!codegen::gpuPresent(&why)) {
      QVERIFY(!out);
      QVERIFY2(out.error().str().find("no CUDA GPU is usable on this machine") != std::string::npos, out.error().str().c_str());
      QSKIP(("compiled with nvcc; not run: " + why + " (CI never has this)").c_str());
    }
    QVERIFY2(out, out ? "" : out.error().str().c_str());
    auto d = codegen::compareOutputs(want, *out);
    QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-5, d.mismatch.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCuda)
#include "tst_Cuda.moc"
