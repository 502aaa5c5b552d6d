// The FPGA target: FpgaTransform and StreamingComposition with the code the FPGA targets generate —
// FpgaTransform's structure (device copies, explicit host/device states,
// transients moved, pipelined top-level maps, undo and redo exact) and numbers (the transformed model
// run in C-simulation by target fpga-sim equals the CPU before) on hand-built SDFGs and on expanded
// ONNX node models; the generated HLS (a kernel per device state, m_axi bundles, PIPELINE II=1 on
// innermost loops, on-chip transients, ROM constants); refusals with their reasons; the cpu target
// refusing FPGA storage; the cycle estimate of simple kernels; the Vitis project; streams joining
// processing elements that C-simulation runs side by side, and a stream too shallow for a reconvergent
// dataflow reported as a deadlock naming the streams and elements.
#include "support/TestPaths.h"
#include "support/SdfgFixtures.h"
#include "support/TransformTestSupport.h"
#include "transforms/catalogue/FpgaMemoryBank.h"
#include "transforms/catalogue/FpgaArrayPartition.h"
#include "transforms/catalogue/InterleaveAccumulation.h"
#include "transforms/ModelCommands.h"
#include "transforms/Script.h"
#include "transforms/catalogue/FpgaTransform.h"
#include "transforms/catalogue/StreamingComposition.h"
#include "transforms/catalogue/StreamingMemory.h"

#include "codegen/Target.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/fpga/CycleEstimate.h"
#include "codegen/fpga/HlsGenerator.h"
#include "codegen/fpga/RtlGenerator.h"
#include "codegen/run/Executor.h"
#include "codegen/run/ProfileReport.h"
#include "codegen/run/Profiler.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>

#include <fstream>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match onState(const State& st, bool whole = true) {
  transforms::Match m{"FpgaTransform", {{"state", pathOf(st)}}, {}};
  if (!whole) m.options["whole_sdfg"] = "false";
  return m;
}

std::unique_ptr<Sdfg> twoStates() { return twoStateModel(); }

// X[R, C] -> map(i){ map(j){ acc[i] += x } } -> S[R]: a row sum by write-conflict resolution.
std::unique_ptr<Sdfg> rowSum(int R, int C) { return reductionModel(R, C); }

// map[i=0:N] { code } over 1-D arrays of N floats: inputs read at [i], outputs written at [i]; the
// tasklet's connectors are the data names in lower case.
void map1d(State* st, const std::vector<std::string>& ins, const std::vector<std::string>& outs, const std::string& code, int N,
           const std::string& label) {
  auto* me = st->add<MapEntry>(label);
  auto* mx = st->add<MapExit>(label + "_exit");
  me->params = {"i"};
  me->range = Subset({Range::full(N)});
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>(label + "_t", code);
  auto lower = [](std::string x) {
    for (auto& c : x) c = char(std::tolower(c));
    return x;
  };
  auto nodeOf = [&](const std::string& data) -> AccessNode* {
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == data) return a;
    return st->add<AccessNode>(data);
  };
  for (auto& in : ins) {
    t->addIn({lower(in), DType::Float32});
    me->addIn({"IN_" + in});
    me->addOut({"OUT_" + in});
    st->addEdge(*nodeOf(in), "", *me, "IN_" + in, Memlet::simple(in, Subset({Range::full(N)})));
    st->addEdge(*me, "OUT_" + in, *t, lower(in), Memlet::simple(in, *Subset::parse("i")));
  }
  for (auto& out : outs) {
    t->addOut({lower(out), DType::Float32});
    mx->addIn({"IN_" + out});
    mx->addOut({"OUT_" + out});
    st->addEdge(*t, lower(out), *mx, "IN_" + out, Memlet::simple(out, *Subset::parse("i")));
    st->addEdge(*mx, "OUT_" + out, *nodeOf(out), "", Memlet::simple(out, Subset({Range::full(N)})));
  }
}

// One state: X -> first { a = 2x; tmp = x + 0.5 } -> A, TMP; TMP -> second { b = 3 tmp } -> B;
// A, B -> third { y = a + b } -> Y. Streams on A and B make the first and second maps one processing
// element (joined by TMP) that fills A before B, and the third one that reads A and B in turn: a
// reconvergent dataflow, which deadlocks when A cannot hold what the third cannot yet take.
std::unique_ptr<Sdfg> reconvergent(int N) {
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {N});
  for (const char* t : {"A", "B", "TMP"}) s->addArray(t, DType::Float32, {N}, true)->lifetime = Lifetime::Sdfg;
  s->addArray("Y", DType::Float32, {N});
  s->inputs = {"X"};
  s->outputs = {"Y"};
  auto* st = s->addState("compute");
  map1d(st, {"X"}, {"A", "TMP"}, "a = x * 2.0\ntmp = x + 0.5", N, "first");
  map1d(st, {"TMP"}, {"B"}, "b = tmp * 3.0", N, "second");
  map1d(st, {"A", "B"}, {"Y"}, "y = a + b", N, "third");
  return s;
}

transforms::Match streamOf(const Sdfg& s, const std::string& data, int depth) {
  const State* st = s.allStates().front();
  const AccessNode* a = nullptr;
  for (auto& n : st->nodes())
    if (auto* x = dynamic_cast<const AccessNode*>(n.get()); x && x->data() == data) a = x;
  auto in = st->inEdges(a->id());
  auto out = st->outEdges(a->id());
  return {"StreamingComposition",
          {{"first_exit", pathOf(s, in.at(0)->src)}, {"array", pathOf(*a)}, {"second_entry", pathOf(s, out.at(0)->dst)}},
          {{"depth", std::to_string(depth)}}};
}

const State* stateNamed(const Sdfg& s, const std::string& label) { return stateLabelled(s, label); }

// One state: X, W -> axpy { y = x * w + 0.5 } -> Y, all of N floats (inputs and output of the model).
std::unique_ptr<Sdfg> axpy(int N) {
  auto s = std::make_unique<Sdfg>("main");
  for (const char* a : {"X", "W", "Y"}) s->addArray(a, DType::Float32, {N});
  s->inputs = {"X", "W"};
  s->outputs = {"Y"};
  map1d(s->addState("compute"), {"X", "W"}, {"Y"}, "y = x * w + 0.5", N, "axpy");
  return s;
}

const MapEntry* mapLabelled(const Sdfg& s, const std::string& label) {
  for (auto* me : allNodes<MapEntry>(s))
    if (me->label() == label) return me;
  return nullptr;
}

transforms::Match streamMemoryOf(const MapEntry& me, std::map<std::string, std::string> options = {}) {
  return {"StreamingMemory", {{"entry", pathOf(me)}}, std::move(options)};
}

int deviceStates(const Sdfg& s) {
  int n = 0;
  for (State* st : s.allStates()) n += isDeviceState(s, *st) ? 1 : 0;
  return n;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

} // namespace

class TestFpga : public QObject {
  Q_OBJECT
private slots:
  void wholeModelMovesWithExplicitCopies() {
    auto s = twoStates();
    QVERIFY(checkTransformation(*s, transforms::FpgaTransform(), onState(*stateNamed(*s, "produce")), 1e-6, true, "fpga-sim"));
    // X and Y keep their host arrays and get device copies; T moves itself.
    const DataDescriptor* fx = s->findData("fpga_X");
    const DataDescriptor* fy = s->findData("fpga_Y");
    QVERIFY(fx && fy);
    QCOMPARE(fx->storage, StorageType::FpgaGlobal);
    QVERIFY(fx->transient);
    QCOMPARE(s->findData("X")->storage, StorageType::Default);
    QCOMPARE(s->findData("T")->storage, StorageType::FpgaGlobal);
    QVERIFY(!s->findData("fpga_T"));
    QCOMPARE(deviceStates(*s), 2);
    // The start state copies X in; the last copies Y out; both are host states.
    const State* pre = stateNamed(*s, "host_to_device");
    const State* post = stateNamed(*s, "device_to_host");
    QVERIFY(pre && post);
    QCOMPARE(s->startBlock(), pre->id());
    QVERIFY(s->outEdges(post->id()).empty());
    QVERIFY(!isDeviceState(*s, *pre) && !isDeviceState(*s, *post));
    QCOMPARE(pre->edges().size(), size_t(1));
    QCOMPARE(pre->edges().front()->memlet.data, std::string("X"));
    QCOMPARE(post->edges().size(), size_t(1));
    QCOMPARE(post->edges().front()->memlet.data, std::string("fpga_Y"));
    // Top-level maps are pipelined on the device.
    for (auto* me : allNodes<MapEntry>(*s)) QCOMPARE(me->schedule, Schedule::FpgaPipeline);
  }

  void twoNodesOfOneInputKeepUniqueLabels() {
    // X read through two access nodes of one state (labels X and X_1): both name fpga_X afterwards,
    // with labels still unique, and undo gives back the labels exactly (checkTransformation).
    auto s = std::make_unique<Sdfg>("main");
    s->addArray("X", DType::Float32, {4, 5});
    s->addArray("Y", DType::Float32, {4, 5});
    s->addArray("Z", DType::Float32, {4, 5});
    s->inputs = {"X"};
    s->outputs = {"Y", "Z"};
    auto* st = s->addState("both");
    elementwise(st, "X", "Y", "y = x * 2.0");
    elementwise(st, "X", "Z", "y = x + 1.0");
    int xs = 0;
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == "X") ++xs;
    QCOMPARE(xs, 2);
    QVERIFY(checkTransformation(*s, transforms::FpgaTransform(), onState(*st), 1e-6, true, "fpga-sim"));
    std::set<std::string> labels;
    int fx = 0;
    for (auto& n : st->nodes()) {
      QVERIFY2(labels.insert(n->label()).second, n->label().c_str());
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == "fpga_X") ++fx;
    }
    QCOMPARE(fx, 2);
  }

  void oneStateMovesWithCopiesAroundIt() {
    auto s = twoStates();
    QVERIFY(checkTransformation(*s, transforms::FpgaTransform(), onState(*stateNamed(*s, "consume"), false), 1e-6, true, "fpga-sim"));
    QCOMPARE(deviceStates(*s), 1);
    QVERIFY(isDeviceState(*s, *stateNamed(*s, "consume")));
    // T is shared with the host state before: it gets a device copy, filled just before the kernel.
    QVERIFY(s->findData("fpga_T"));
    const State* pre = stateNamed(*s, "host_to_device");
    QVERIFY(pre);
    auto into = s->outEdges(stateNamed(*s, "produce")->id());
    QCOMPARE(into.size(), size_t(1));
    QCOMPARE(into[0]->dst, pre->id());
  }

  void expandedOnnxModelsRunInCSimulation_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"test_conv_with_strides_padding", "test_gemm_default_matrix_bias", "test_softmax_axis_1",
                          "test_maxpool_2d_default", "test_relu", "test_reduce_sum_keepdims_example", "test_matmul_3d"})
      QTest::newRow(n) << n;
  }
  void expandedOnnxModelsRunInCSimulation() {
    QFETCH(QString, name);
    auto s = loadModel(onnxCase(name.toStdString()));
    QVERIFY(s);
    const State* first = nullptr;
    for (State* st : s->allStates())
      for (auto& n : st->nodes())
        if (!first && n->kind() != ElementKind::AccessNode) first = st;
    QVERIFY(first);
    QVERIFY(checkTransformation(*s, transforms::FpgaTransform(), onState(*first), 1e-4, true, "fpga-sim"));
  }

  void generatedHlsHasKernelsInterfacesAndPipelines() {
    auto s = twoStates();
    transforms::FpgaTransform t;
    edit::Editor ed(*s);
    QVERIFY(t.apply(onState(*stateNamed(*s, "produce")), ed));
    codegen::HlsOptions o;
    auto p = codegen::generateHls(*s, o);
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(p->kernels.size(), size_t(2));
    const std::string& k = p->kernelsSource;
    QCOMPARE(count(k, "void kernel_"), 2);
    QVERIFY(k.find("#pragma HLS INTERFACE m_axi port=") != std::string::npos);
    QVERIFY(k.find("bundle=gmem1") != std::string::npos); // one bundle per global array of a kernel
    QVERIFY(k.find("#pragma HLS INTERFACE s_axilite port=return") != std::string::npos);
    QCOMPARE(count(k, "#pragma HLS PIPELINE II=1"), 2);
    QVERIFY(k.find("dcw_rt::at(") == std::string::npos); // no host runtime in device code
    // The C-simulation program opens with the shim's standard headers and the runtime's, so that g++
    // takes them from the precompiled prelude (compileShared).
    const std::string block = codegen::leadingIncludeBlock(p->code.source);
    for (const char* h : {"#include <condition_variable>", "#include <thread>", "#include <omp.h>"})
      QVERIFY2(block.find(h) != std::string::npos, h);
    // The host launches each kernel where the control flow reaches its state.
    for (auto& kern : p->kernels) QVERIFY(p->code.source.find(kern.function + "(") != std::string::npos);
    // The source map points the kernels' lines at their states.
    bool mapped = false;
    for (auto& e : p->code.sourceMap)
      if (e.element == stateNamed(*s, "consume")->id() && p->code.source.find("void " + p->kernels[1].function) != std::string::npos)
        mapped = true;
    QVERIFY(mapped);
  }

  void projectForAVitisBuild() {
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "produce")), ed));
    auto fpga = codegen::findTarget("fpga");
    QVERIFY(fpga);
    auto code = fpga->generate(*s, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    QCOMPARE(code->mainFile, std::string("host.cpp"));
    std::map<std::string, std::string> files;
    for (auto& f : code->extraFiles) files[f.name] = f.text;
    for (const char* n : {"kernels.cpp", "dcw_math.h", "dcw_xrt.h", "link.cfg", "Makefile", "README.md"}) QVERIFY2(files.count(n), n);
    // The host launches both kernels through XRT and has a main; device memory is XRT buffer objects.
    QCOMPARE(count(code->source, "dcw_xrt::launch(\"kernel_"), 2);
    QVERIFY(code->source.find("dcw_xrt::DeviceBuffer<float>") != std::string::npos);
    QVERIFY(code->source.find("int main(int argc, char** argv)") != std::string::npos);
    QVERIFY(code->source.find("#pragma HLS") == std::string::npos); // the kernels are in kernels.cpp only
    // One compute unit per kernel; every global argument connected to a bank.
    QCOMPARE(count(files["link.cfg"], "nk=kernel_"), 2);
    QCOMPARE(count(files["link.cfg"], ":DDR[0]"), 4);
    QCOMPARE(count(files["Makefile"], "v++ -c"), 2);
    QVERIFY(files["README.md"].find("`X` (input): float [4, 5]") != std::string::npos);
    // The kernels compile as C++17 against the vendor headers' interface (DCW's stand-ins here).
    QTemporaryDir dir;
    for (auto& [name, text] : files) std::ofstream(dir.filePath(QString::fromStdString(name)).toStdString()) << text;
    for (const char* h : {"ap_int.h", "ap_fixed.h", "hls_stream.h"})
      std::ofstream(dir.filePath(h).toStdString()) << "#include \"" << testpaths::source("/codegen/fpga/shim/dcw_hls_sim.h") << "\"\n";
    QProcess gxx;
    gxx.start("g++", {"-std=c++17", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-I" + dir.path(),
                      dir.filePath("kernels.cpp")});
    QVERIFY(gxx.waitForFinished(120000));
    QVERIFY2(gxx.exitCode() == 0, gxx.readAllStandardError().constData());
    // The source map places kernel lines in kernels.cpp.
    bool inKernels = false;
    for (auto& e : code->sourceMap) inKernels = inKernels || e.file == "kernels.cpp";
    QVERIFY(inKernels);
    // Building is Vitis's job: refused with the way forward.
    auto built = fpga->build(*code, {});
    QVERIFY(!built);
    QVERIFY(built.error().hint.find("--target fpga-sim") != std::string::npos);
  }

  // FpgaMemoryBank puts an array into a bank: undoable and scripted (checkSteps: structure, undo/redo,
  // JSON round trip); the Vitis link configuration connects its arguments there; a bank
  // the board lacks fails the project naming the array, and the estimate says so.
  void memoryBankAssignment() {
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "produce")), ed));
    const AccessNode* device = nullptr;
    const AccessNode* host = nullptr;
    for (auto& n : stateNamed(*s, "produce")->nodes())
      if (auto* a = dynamic_cast<const AccessNode*>(n.get())) {
        if (s->findData(a->data())->storage == StorageType::FpgaGlobal && a->data().rfind("fpga_", 0) == 0) device = a;
      }
    for (State* st : s->allStates())
      for (auto& n : st->nodes())
        if (auto* a = dynamic_cast<const AccessNode*>(n.get()))
          if (s->findData(a->data())->storage != StorageType::FpgaGlobal) host = a;
    QVERIFY(device && host);
    const std::string data = device->data();
    PathIndex paths(*s);
    auto at = [&](const AccessNode* a, const char* bank) {
      transforms::Match m;
      m.transformation = "FpgaMemoryBank";
      m.elements["array"] = paths.pathOf(a->id());
      m.options["bank"] = bank;
      return m;
    };
    const transforms::FpgaMemoryBank t;
    QVERIFY(!t.canApply(at(host, "1"), *s, nullptr)); // host memory has no banks
    QVERIFY(!t.canApply(at(device, "0"), *s, nullptr)); // there already
    QVERIFY(!t.canApply(at(device, "x"), *s, nullptr));
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(std::make_unique<ApplyDirect>(t, at(device, "2")));
    QVERIFY(checkSteps(*s, std::move(steps), 0, false)); // a placement: C-simulation's numbers cannot change
    QCOMPARE(s->findData(data)->memoryBank, 2);
    auto fpga = codegen::findTarget("fpga");
    auto code = fpga->generate(*s, {});
    QVERIFY2(code, code ? "" : code.error().str().c_str());
    std::string cfg;
    for (auto& f : code->extraFiles)
      if (f.name == "link.cfg") cfg = f.text;
    QCOMPARE(count(cfg, ":DDR[2]"), 1);
    QCOMPARE(count(cfg, ":DDR[0]"), 3);
    // Bank 7: an Alveo U250 has four.
    edit::Editor ed2(*s);
    QVERIFY(t.apply(at(device, "7"), ed2));
    auto bad = fpga->generate(*s, {});
    QVERIFY(!bad);
    QVERIFY2(bad.error().message.find("'" + data + "' is in memory bank 7, which Alveo U250") != std::string::npos, bad.error().str().c_str());
    auto e = codegen::estimateFpga(*s, {});
    QVERIFY(e);
    bool noted = false;
    for (auto& n : e->notes) noted = noted || n.find("memory bank 7 is not on Alveo U250") != std::string::npos;
    QVERIFY(noted);
    QVERIFY(codegen::estimateFpga(*s, {}, *codegen::findFpgaDevice("u280"))->notes.empty()); // 34 banks there
  }

  void profileReportKeepsTheEstimate() {
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "produce")), ed));
    auto e = codegen::estimateFpga(*s, {}, *codegen::findFpgaDevice("u280"));
    QVERIFY(e);
    codegen::ProfileReport r;
    r.target = "fpga-sim";
    r.fpga = *e;
    auto back = codegen::parseReport(codegen::reportJson(r), "report");
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QVERIFY(back->fpga);
    QCOMPARE(back->fpga->device->name, std::string("u280"));
    QCOMPARE(back->fpga->cycles, e->cycles);
    QCOMPARE(back->fpga->kernels.size(), e->kernels.size());
    QCOMPARE(back->fpga->kernels[0].loops[0].ii, e->kernels[0].loops[0].ii);
    QVERIFY(codegen::reportJson(r).find("\"evidence\": \"estimate\"") != std::string::npos);
    const std::string text = codegen::formatEstimate(*e);
    QVERIFY(text.rfind("FPGA estimate (not measured) for Alveo U280", 0) == 0);
  }

  void streamsJoinProcessingElements() {
    // The matches, found on a copy moved to the FPGA (FpgaTransform keeps the transients' nodes).
    auto moved = reconvergent(16);
    edit::Editor med(*moved);
    QVERIFY(transforms::FpgaTransform().apply(onState(*moved->allStates().front()), med));
    auto s = reconvergent(16);
    auto ref = reconvergent(16);
    auto inputs = randomInputsFor(*ref);
    auto expected = runModel(*ref, inputs);
    QVERIFY(!expected.empty());
    // Deep enough: the numbers are the CPU's (checked with undo and redo).
    const transforms::FpgaTransform toFpga;
    const transforms::StreamingComposition streaming;
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(std::make_unique<ApplyDirect>(toFpga, onState(*s->allStates().front())));
    steps.push_back(std::make_unique<ApplyDirect>(streaming, streamOf(*moved, "A", 16)));
    steps.push_back(std::make_unique<ApplyDirect>(streaming, streamOf(*moved, "B", 16)));
    QVERIFY(checkSteps(*s, std::move(steps), 1e-6, true, "fpga-sim"));
    QCOMPARE(s->findData("A")->dataKind, DataKind::Stream);
    QCOMPARE(s->findData("A")->storage, StorageType::FpgaLocal);
    auto out = runModel(*s, inputs, "fpga-sim");
    QVERIFY(!out.empty());
    QVERIFY(codegen::compareOutputs(expected, out).maxAbs < 1e-6);
    // Two processing elements under DATAFLOW, the streams between them, threads in C-simulation.
    auto p = codegen::generateHls(*s, {});
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(count(p->kernelsSource, "static void pe_"), 2);
    QVERIFY(p->kernelsSource.find("#pragma HLS DATAFLOW") != std::string::npos);
    QCOMPARE(count(p->kernelsSource, "hls::stream<float> "), 2);
    QVERIFY(p->kernelsSource.find("#pragma HLS STREAM variable=") != std::string::npos);
    QVERIFY(p->kernelsSource.find("dcw_hls::Dataflow dataflow;") != std::string::npos);
    QVERIFY(p->kernelsSource.find(".write(") != std::string::npos && p->kernelsSource.find(".read()") != std::string::npos);
    // The estimate runs the elements side by side: the slower (first and second maps) sets the pace.
    auto e = codegen::estimateFpga(*s, {});
    QVERIFY(e);
    QCOMPARE(e->kernels.size(), size_t(1));
    int64_t first = 0, second = 0, third = 0;
    for (auto& l : e->kernels[0].loops) {
      if (l.path.find("/first") != std::string::npos) first = l.cycles;
      if (l.path.find("/second") != std::string::npos) second = l.cycles;
      if (l.path.find("/third") != std::string::npos) third = l.cycles;
    }
    QVERIFY(first > 0 && second > 0 && third > 0);
    QCOMPARE(e->kernels[0].cycles, std::max(first + second, third) + 2);
  }

  // A profile of a dataflow state reports each stream as C-simulation saw it (in process and through
  // the worker process): its writes, how full it got, how often a processing element waited.
  void profileReportsStreamsFromCSimulation() {
    auto moved = reconvergent(16);
    edit::Editor med(*moved);
    QVERIFY(transforms::FpgaTransform().apply(onState(*moved->allStates().front()), med));
    auto s = reconvergent(16);
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*s->allStates().front()), ed));
    QVERIFY(applyNow(*s, transforms::StreamingComposition(), streamOf(*moved, "A", 16)));
    QVERIFY(applyNow(*s, transforms::StreamingComposition(), streamOf(*moved, "B", 16)));
    for (bool isolated : {false, true}) {
      const codegen::Target* target = codegen::findTarget("fpga-sim");
      QVERIFY(target);
      codegen::RunOptions ro;
      ro.target = "fpga-sim";
      ro.generate.instrument = codegen::parseInstrumentation({"all"});
      ro.isolated = isolated;
      auto code = target->generate(*s, ro.generate);
      QVERIFY2(code, code ? "" : code.error().str().c_str());
      auto inputs = codegen::randomInputs(code->signature, 7);
      QVERIFY(inputs);
      auto lib = target->build(*code, {});
      QVERIFY2(lib, lib ? "" : lib.error().str().c_str());
      auto ex = codegen::Executor::load(*s, std::move(*code), std::move(*lib), ro);
      QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
      codegen::ProfileOptions po;
      po.repeat = 2;
      po.counters = false;
      auto r = codegen::profileRuns(**ex, *inputs, po);
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      QVERIFY(r->fpga);
      QCOMPARE(r->fpga->streams.size(), size_t(2));
      for (auto& st : r->fpga->streams) {
        QVERIFY(st.name == "A" || st.name == "B");
        QCOMPARE(st.depth, int64_t(16));
        QCOMPARE(st.writes, int64_t(16)); // one run's, not the sum of the runs
        QCOMPARE(st.reads, st.writes);
        QVERIFY(st.maxOccupancy >= 1 && st.maxOccupancy <= 16);
      }
      auto back = codegen::parseReport(codegen::reportJson(*r), "report");
      QVERIFY(back && back->fpga && back->fpga->streams.size() == 2);
      QCOMPARE(back->fpga->streams[0].maxOccupancy, r->fpga->streams[0].maxOccupancy);
      QVERIFY(codegen::formatEstimate(*r->fpga).find("stream A (C-simulation, one run): depth 16") != std::string::npos);
    }
  }

  // StreamingMemory: the map's reads and writes of device memory move into processing elements of
  // their own, joined to it by streams; the numbers stay the CPU's (undo and redo exact), the kernel
  // becomes a dataflow region of four elements that the estimate runs side by side.
  void streamingMemoryGivesReadersAndWriters() {
    auto s = axpy(64);
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*s->allStates().front()), ed));
    auto before = codegen::estimateFpga(*s, {});
    QVERIFY2(before, before ? "" : before.error().str().c_str());
    QCOMPARE(before->kernels.at(0).loops.size(), size_t(1));
    const MapEntry* me = mapLabelled(*s, "axpy");
    QVERIFY(me);
    QVERIFY(checkTransformation(*s, transforms::StreamingMemory(), streamMemoryOf(*me), 1e-6, true, "fpga-sim", "fpga-sim"));
    for (const char* n : {"fpga_X_in", "fpga_W_in", "fpga_Y_out"}) {
      const DataDescriptor* d = s->findData(n);
      QVERIFY2(d, n);
      QCOMPARE(d->dataKind, DataKind::Stream);
      QCOMPARE(d->storage, StorageType::FpgaLocal);
      QCOMPARE(d->shape.at(0).str(), std::string("8"));
    }
    QVERIFY(mapLabelled(*s, "axpy_read_fpga_X") && mapLabelled(*s, "axpy_read_fpga_W") && mapLabelled(*s, "axpy_write_fpga_Y"));
    // The compute element touches no memory: its tasklet pops and pushes.
    auto p = codegen::generateHls(*s, {});
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QCOMPARE(count(p->kernelsSource, "static void pe_"), 4);
    QVERIFY(p->kernelsSource.find("#pragma HLS DATAFLOW") != std::string::npos);
    QCOMPARE(count(p->kernelsSource, "hls::stream<float> "), 3);
    // Side by side: the kernel takes about one loop's time, not the sum of the four.
    auto after = codegen::estimateFpga(*s, {});
    QVERIFY2(after, after ? "" : after.error().str().c_str());
    const auto& k = after->kernels.at(0);
    QCOMPARE(k.loops.size(), size_t(4));
    int64_t sum = 0, longest = 0;
    for (auto& l : k.loops) {
      QCOMPARE(l.ii, int64_t(1));
      sum += l.cycles;
      longest = std::max(longest, l.cycles);
    }
    QVERIFY2(k.cycles < sum && k.cycles >= longest, (std::to_string(k.cycles) + " vs loops " + std::to_string(sum)).c_str());
    qInfo("axpy of 64 floats: %lld estimated cycles in one pipeline, %lld as reader, compute and writer elements (loops %lld in all)",
          static_cast<long long>(before->kernels.at(0).cycles), static_cast<long long>(k.cycles), static_cast<long long>(sum));
    // Only what is asked: the output alone, then nothing is left to stream.
    auto one = axpy(16);
    edit::Editor oed(*one);
    QVERIFY(transforms::FpgaTransform().apply(onState(*one->allStates().front()), oed));
    QVERIFY(applyNow(*one, transforms::StreamingMemory(), streamMemoryOf(*mapLabelled(*one, "axpy"), {{"direction", "out"}})));
    QVERIFY(one->findData("fpga_Y_out") && !one->findData("fpga_X_in"));
    QVERIFY(applyNow(*one, transforms::StreamingMemory(), streamMemoryOf(*mapLabelled(*one, "axpy"), {{"array", "fpga_X"}, {"depth", "4"}})));
    QCOMPARE(one->findData("fpga_X_in")->shape.at(0).str(), std::string("4"));
    auto ref = axpy(16);
    auto inputs = randomInputsFor(*ref);
    auto expected = runModel(*ref, inputs);
    auto out = runModel(*one, inputs, "fpga-sim");
    QVERIFY(!expected.empty() && !out.empty());
    QVERIFY(codegen::compareOutputs(expected, out).maxAbs < 1e-6);
    Diagnostics done;
    QVERIFY(!transforms::StreamingMemory().canApply(streamMemoryOf(*mapLabelled(*one, "axpy"), {{"array", "fpga_X"}}), *one, &done));
    QVERIFY2(done.firstError()->message.find("does not read or write 'fpga_X'") != std::string::npos, done.firstError()->message.c_str());
  }

  void streamingMemoryRefusals() {
    transforms::StreamingMemory t;
    auto host = axpy(16);
    Diagnostics why;
    QVERIFY(!t.canApply(streamMemoryOf(*mapLabelled(*host, "axpy")), *host, &why)); // not on the FPGA yet
    QVERIFY2(why.firstError()->message.find("not in an FPGA device state") != std::string::npos, why.firstError()->message.c_str());
    QVERIFY(why.firstError()->hint.find("FpgaTransform") != std::string::npos);
    auto s = axpy(16);
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*s->allStates().front()), ed));
    const MapEntry* me = mapLabelled(*s, "axpy");
    Diagnostics depth;
    QVERIFY(!t.canApply(streamMemoryOf(*me, {{"depth", "0"}}), *s, &depth));
    QVERIFY(depth.firstError()->message.find("at least 1") != std::string::npos);
    Diagnostics dir;
    QVERIFY(!t.canApply(streamMemoryOf(*me, {{"direction", "sideways"}}), *s, &dir));
    QVERIFY(dir.firstError()->message.find("not in, out or both") != std::string::npos);
    // A transient written by one map and read by the next in the same state: a reader beside the
    // writer could read it early.
    auto r = reconvergent(16);
    edit::Editor red(*r);
    QVERIFY(transforms::FpgaTransform().apply(onState(*r->allStates().front()), red));
    Diagnostics early;
    QVERIFY(!t.canApply(streamMemoryOf(*mapLabelled(*r, "third"), {{"array", "A"}}), *r, &early));
    QVERIFY2(early.firstError()->message.find("written elsewhere in the state") != std::string::npos, early.firstError()->message.c_str());
    Diagnostics used;
    QVERIFY(!t.canApply(streamMemoryOf(*mapLabelled(*r, "first"), {{"array", "A"}}), *r, &used));
    QVERIFY2(used.firstError()->message.find("used elsewhere in the state") != std::string::npos, used.firstError()->message.c_str());
    // The map's input from the model can still be streamed (and only that).
    QVERIFY(t.canApply(streamMemoryOf(*mapLabelled(*r, "first")), *r, nullptr));
    // Two elements of one array a iteration.
    auto two = std::make_unique<Sdfg>("main");
    two->addArray("X", DType::Float32, {17});
    two->addArray("Y", DType::Float32, {16});
    two->inputs = {"X"};
    two->outputs = {"Y"};
    auto* st = two->addState("compute");
    auto* m = st->add<MapEntry>("pairs");
    auto* mx = st->add<MapExit>("pairs_exit");
    m->params = {"i"};
    m->range = Subset({Range::full(16)});
    m->exitId = mx->id();
    mx->entryId = m->id();
    auto* tk = st->add<Tasklet>("pairs_t", "y = a + b");
    tk->addIn({"a", DType::Float32});
    tk->addIn({"b", DType::Float32});
    tk->addOut({"y", DType::Float32});
    auto* x = st->add<AccessNode>("X");
    auto* y = st->add<AccessNode>("Y");
    m->addIn({"IN_X"});
    m->addOut({"OUT_X"});
    mx->addIn({"IN_Y"});
    mx->addOut({"OUT_Y"});
    st->addEdge(*x, "", *m, "IN_X", Memlet::simple("X", Subset({Range::full(17)})));
    st->addEdge(*m, "OUT_X", *tk, "a", Memlet::simple("X", *Subset::parse("i")));
    st->addEdge(*m, "OUT_X", *tk, "b", Memlet::simple("X", *Subset::parse("i + 1")));
    st->addEdge(*tk, "y", *mx, "IN_Y", Memlet::simple("Y", *Subset::parse("i")));
    st->addEdge(*mx, "OUT_Y", *y, "", Memlet::simple("Y", Subset({Range::full(16)})));
    edit::Editor ted(*two);
    QVERIFY(transforms::FpgaTransform().apply(onState(*st), ted));
    Diagnostics pair;
    QVERIFY(!t.canApply(streamMemoryOf(*m, {{"array", "fpga_X"}}), *two, &pair));
    QVERIFY2(pair.firstError()->message.find("through 2 edges a iteration") != std::string::npos, pair.firstError()->message.c_str());
    // Y alone qualifies.
    QVERIFY(t.canApply(streamMemoryOf(*m), *two, nullptr));
  }

  void shallowStreamDeadlockIsNamed() {
    auto s = reconvergent(16);
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*s->allStates().front()), ed));
    QVERIFY(transforms::StreamingComposition().apply(streamOf(*s, "A", 2), ed));
    QVERIFY(transforms::StreamingComposition().apply(streamOf(*s, "B", 2), ed));
    codegen::RunOptions o;
    o.target = "fpga-sim";
    o.isolated = true; // a failing run must not take the test down either
    auto ex = codegen::Executor::create(*s, o);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    QElapsedTimer clock;
    clock.start();
    auto inputs = codegen::randomInputs((*ex)->code().signature, 7);
    QVERIFY(inputs);
    auto out = (*ex)->run(*inputs);
    QVERIFY(!out);
    const std::string m = out.error().str();
    qInfo("the run failed as it should: %s", m.c_str());
    QVERIFY2(m.find("deadlock") != std::string::npos, m.c_str());
    QVERIFY2(m.find("stream 'A'") != std::string::npos && m.find("stream 'B'") != std::string::npos, m.c_str());
    QVERIFY2(m.find("PE 'first'") != std::string::npos && m.find("PE 'third'") != std::string::npos, m.c_str());
    QVERIFY2(m.find("main/compute") != std::string::npos, m.c_str()); // the kernel's state
    QVERIFY(clock.elapsed() < 60000);
  }

  void streamingRefusals() {
    transforms::StreamingComposition t;
    Diagnostics why;
    auto s = reconvergent(8);
    QVERIFY(!t.canApply(streamOf(*s, "A", 2), *s, &why)); // not on the FPGA yet
    QVERIFY(why.firstError()->message.find("not in FPGA memory") != std::string::npos);
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*s->allStates().front()), ed));
    why = {};
    QVERIFY(!t.canApply(streamOf(*s, "A", 0), *s, &why));
    QVERIFY(why.firstError()->message.find("at least 1") != std::string::npos);
    QVERIFY(t.canApply(streamOf(*s, "A", 2), *s, nullptr));
    QVERIFY(t.apply(streamOf(*s, "A", 2), ed));
    why = {};
    QVERIFY(!t.canApply(streamOf(*s, "A", 2), *s, &why));
    QVERIFY(why.firstError()->message.find("stream already") != std::string::npos);
  }

  void refusals() {
    transforms::FpgaTransform t;
    Diagnostics why;
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(t.apply(onState(*stateNamed(*s, "produce")), ed));
    QVERIFY(!t.canApply(onState(*stateNamed(*s, "consume")), *s, &why));
    QVERIFY(why.firstError()->message.find("on the FPGA already") != std::string::npos);
    why = {};
    QVERIFY(!t.canApply(onState(*stateNamed(*s, "host_to_device")), *s, &why));
    QVERIFY(why.firstError()->message.find("computes nothing") != std::string::npos);
    // Data that steers control flow stays on the host.
    auto c = twoStates();
    c->addSymbol("n");
    auto edges = c->outEdges(stateNamed(*c, "produce")->id());
    edges[0]->assignments.push_back({"n", sym::Expr::symbol("T")});
    why = {};
    QVERIFY(!t.canApply(onState(*stateNamed(*c, "produce")), *c, &why));
    QVERIFY(why.firstError()->message.find("steers the control flow") != std::string::npos);
  }

  void cpuTargetRefusesFpgaData() {
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "produce")), ed));
    auto cpu = codegen::findTarget("cpu");
    QVERIFY(cpu);
    auto d = codegen::checkTarget(*s, *cpu);
    QVERIFY(d.firstError());
    QVERIFY(d.firstError()->message.find("fpga_global is not supported by target cpu") != std::string::npos);
    QVERIFY(d.firstError()->hint.find("--target fpga-sim") != std::string::npos);
    auto sim = codegen::findTarget("fpga-sim");
    QVERIFY(sim);
    QVERIFY(!codegen::checkTarget(*s, *sim).firstError());
  }

  void movingTheModelForTheFpgaTargets() {
    auto s = twoStates();
    edit::Editor ed(*s);
    auto moved = transforms::moveModelToFpga(ed);
    QVERIFY(moved);
    QCOMPARE(*moved, pathOf(*stateNamed(*s, "produce")));
    QCOMPARE(deviceStates(*s), 2);
    auto again = transforms::moveModelToFpga(ed); // a model on the device already stays as it is
    QVERIFY(again && again->empty());
  }

  // RTL covers integer and float32 pipelined loops (tests/models/check_rtl_sim.py runs them in
  // Verilator); what it does not cover is refused naming the element and the reason, and that kernel
  // stays in C-simulation.
  void rtlRefusalsNameTheElement() {
    auto f = twoStates(); // x * 2.0 on float32: the binary32 multiplier
    edit::Editor fed(*f);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*f, "produce")), fed));
    auto pf = codegen::generateHls(*f, {});
    QVERIFY2(pf, pf ? "" : pf.error().str().c_str());
    auto rf = codegen::generateRtl(*f, pf->kernels.at(0), {});
    QVERIFY2(rf, rf ? "" : rf.error().str().c_str());
    QVERIFY(rf->verilog.find("function [31:0] dcw_fmul32") != std::string::npos);
    QVERIFY(rf->verilog.find("dcw_fmul32(") != std::string::npos);
    QCOMPARE(rf->loops.at(0).ii, int64_t(1));
    // A float division has no core.
    auto s = std::make_unique<Sdfg>("main");
    s->addArray("X", DType::Float32, {4, 5});
    s->addArray("Y", DType::Float32, {4, 5});
    s->inputs = {"X"};
    s->outputs = {"Y"};
    elementwise(s->addState("divide"), "X", "Y", "y = 1.0 / x");
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "divide")), ed));
    auto p = codegen::generateHls(*s, {});
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    auto r = codegen::generateRtl(*s, p->kernels.at(0), {});
    QVERIFY(!r);
    QVERIFY2(r.error().message.find("no floating-point divider core") != std::string::npos, r.error().str().c_str());
    QVERIFY2(r.error().location.rfind(p->kernels[0].statePath, 0) == 0, r.error().str().c_str()); // inside the kernel's state
    // A dataflow state (streams between processing elements) is not a pipelined loop.
    auto d = reconvergent(16);
    edit::Editor ded(*d);
    auto moved = reconvergent(16);
    edit::Editor med(*moved);
    QVERIFY(transforms::FpgaTransform().apply(onState(*moved->allStates().front()), med));
    QVERIFY(transforms::FpgaTransform().apply(onState(*d->allStates().front()), ded));
    QVERIFY(applyNow(*d, transforms::StreamingComposition(), streamOf(*moved, "A", 2)));
    auto pd = codegen::generateHls(*d, {});
    QVERIFY(pd);
    auto rd = codegen::generateRtl(*d, pd->kernels.at(0), {});
    QVERIFY(!rd);
    QVERIFY2(rd.error().message.find("stream 'A'") != std::string::npos, rd.error().str().c_str());
    // The C-simulation program lets co-simulation replace each kernel by its RTL.
    QVERIFY(p->code.source.find("#ifndef DCW_RTL_" + p->kernels[0].function) != std::string::npos);
  }

  // An on-chip array read by a loop unrolled 64 times: in one block RAM (two ports) the unrolled body
  // waits 32 cycles for its reads; FpgaArrayPartition (factor inferred from the unrolled loop) puts it in
  // 64 banks: one cycle, the pragma in the kernel, the C-simulation's numbers unchanged, undo exact.
  void arrayPartitionForUnrolledLoops() {
    auto make = [] {
      auto s = std::make_unique<Sdfg>("main");
      s->addArray("X", DType::Float32, {64});
      s->addArray("T", DType::Float32, {64}, true);
      s->addArray("Y", DType::Float32, {64});
      s->inputs = {"X"};
      s->outputs = {"Y"};
      auto* st = s->addState("compute");
      map1d(st, {"X"}, {"T"}, "t = x * 2.0", 64, "fill");
      map1d(st, {"T"}, {"Y"}, "y = t + 1.0", 64, "use");
      return s;
    };
    static const transforms::FpgaTransform toFpga; // ApplyDirect keeps a reference
    auto toKernel = [](const Sdfg& s) {
      std::vector<std::unique_ptr<edit::Command>> steps;
      steps.push_back(std::make_unique<ApplyDirect>(toFpga, onState(*s.allStates().front())));
      steps.push_back(transforms::parseCommand("set main/@T storage=fpga_local", "test:1").value());
      steps.push_back(transforms::parseCommand("set main/@T lifetime=state", "test:1").value()); // the kernel's own buffer
      steps.push_back(transforms::parseCommand("set main/compute/use schedule=unrolled", "test:2").value());
      return steps;
    };
    const transforms::Match partition{"FpgaArrayPartition", {{"array", "main/compute/T"}}, {}};
    // Before: estimate of the model on the FPGA with T in one memory.
    auto before = make();
    {
      edit::History h(*before);
      for (auto& c : toKernel(*before)) QVERIFY(h.execute(std::move(c)));
    }
    auto e0 = codegen::estimateFpga(*before, {});
    QVERIFY2(e0, e0 ? "" : e0.error().str().c_str());
    const codegen::LoopEstimate* use0 = nullptr;
    for (auto& l : e0->kernels.at(0).loops)
      if (l.path.find("/use") != std::string::npos) use0 = &l;
    QVERIFY(use0 && use0->unrolled);
    QCOMPARE(use0->cycles, use0->depth + 31); // 64 reads of T on two ports: 32 cycles
    Diagnostics why;
    const transforms::FpgaArrayPartition t;
    QVERIFY(t.canApply(partition, *before, &why));

    // The whole sequence: numbers of the CPU model from C-simulation, undo and redo exact.
    auto s = make();
    auto steps = toKernel(*s);
    steps.push_back(std::make_unique<ApplyDirect>(t, partition));
    QVERIFY(checkSteps(*s, std::move(steps), 1e-6, true, "fpga-sim"));
    QCOMPARE(s->findData("T")->partition, PartitionKind::Cyclic);
    QCOMPARE(s->findData("T")->partitionFactor, 64);
    auto e1 = codegen::estimateFpga(*s, {});
    QVERIFY(e1);
    const codegen::LoopEstimate* use1 = nullptr;
    for (auto& l : e1->kernels.at(0).loops)
      if (l.path.find("/use") != std::string::npos) use1 = &l;
    QVERIFY(use1);
    // Every read of T in its own bank; now Y's 64 writes to global memory (256 bytes at a DDR bank's 64 a
    // cycle) set the pace: 4 cycles a pass instead of 32.
    QCOMPARE(use1->cycles, use1->depth + 3);
    QVERIFY(e1->kernels.at(0).resources.bram18k >= e0->kernels.at(0).resources.bram18k + 63); // a block RAM per bank
    auto p = codegen::generateHls(*s, {});
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    QVERIFY2(p->kernelsSource.find("cyclic factor=64 dim=1") != std::string::npos && p->kernelsSource.find("#pragma HLS ARRAY_PARTITION variable=") != std::string::npos,
             p->kernelsSource.c_str());
    // Kept by .dcw.json.
    auto back = serialize::fromJson(serialize::toJson(*s), "t.dcw.json");
    QVERIFY(back);
    QCOMPARE((*back)->findData("T")->partition, PartitionKind::Cyclic);
    QCOMPARE((*back)->findData("T")->partitionFactor, 64);

    // Refusals, with the reason: global memory; no unrolled loop to take the factor from; a factor out of range.
    auto plain = make();
    {
      edit::History h(*plain);
      auto steps2 = toKernel(*plain);
      steps2.pop_back(); // not unrolled
      for (auto& c : steps2) QVERIFY(h.execute(std::move(c)));
    }
    Diagnostics none;
    QVERIFY(!t.canApply(partition, *plain, &none));
    QVERIFY2(none.firstError()->message.find("no unrolled loop accesses 'T'") != std::string::npos, none.firstError()->message.c_str());
    Diagnostics big;
    QVERIFY(!t.canApply({"FpgaArrayPartition", {{"array", "main/compute/T"}}, {{"factor", "128"}}}, *plain, &big));
    QVERIFY2(big.firstError()->message.find("factor 128 is not 2 to the 64 elements of 'T'") != std::string::npos, big.firstError()->message.c_str());
    Diagnostics global;
    QVERIFY(!t.canApply({"FpgaArrayPartition", {{"array", "main/compute/X"}}, {}}, *make(), &global));
    QVERIFY2(global.firstError()->message.find("is not in on-chip FPGA memory") != std::string::npos, global.firstError()->message.c_str());
  }

  void estimateOfPipelinedLoops() {
    // An elementwise map over 4x5: one pipelined loop, II 1, 20 trips.
    auto s = twoStates();
    edit::Editor ed(*s);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "produce")), ed));
    auto e = codegen::estimateFpga(*s, {});
    QVERIFY2(e, e ? "" : e.error().str().c_str());
    QCOMPARE(e->kernels.size(), size_t(2));
    const auto& l = e->kernels[0].loops.at(0);
    QVERIFY(l.pipelined);
    QCOMPARE(l.trips, int64_t(20));
    QCOMPARE(l.ii, int64_t(1));
    QCOMPARE(l.cycles, l.depth + 19);
    QVERIFY(e->kernels[0].resources.dsp >= 3); // a float multiplier
    // A row sum accumulates into S[i] while j runs: II is the adder's latency.
    auto r = rowSum(8, 64);
    edit::Editor ed2(*r);
    QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*r, "sum")), ed2));
    auto e2 = codegen::estimateFpga(*r, {});
    QVERIFY(e2);
    const auto& l2 = e2->kernels.at(0).loops.at(0);
    QVERIFY(l2.ii > 1);
    QVERIFY(l2.iiReason.find("accumulation into") != std::string::npos);
    QCOMPARE(l2.cycles, l2.depth + l2.ii * (8 * 64 - 1));
    QVERIFY(rowSum(8, 64) != nullptr);
  }

  // InterleaveAccumulation: the row sum's j loop waits for the adder (II 4); with i innermost,
  // consecutive iterations add into different rows. 64 rows: each row comes back after 64 iterations,
  // past the loop's depth: II 1, a quarter of the cycles. 8 rows come back too soon for II 1: the
  // estimate says by how much. The C-simulation's numbers equal the CPU's before; undo is exact.
  void interleavedAccumulationHidesTheAdder() {
    for (int rows : {64, 8}) {
      auto s = rowSum(rows, 64);
      edit::Editor ed(*s);
      QVERIFY(transforms::FpgaTransform().apply(onState(*stateNamed(*s, "sum")), ed));
      auto before = codegen::estimateFpga(*s, {});
      QVERIFY2(before, before ? "" : before.error().str().c_str());
      const auto l0 = before->kernels.at(0).loops.at(0);
      QCOMPARE(l0.ii, int64_t(4));
      const MapEntry* me = allNodes<MapEntry>(*s).at(0);
      QCOMPARE(me->params, (std::vector<std::string>{"i", "j"}));
      transforms::Match m{"InterleaveAccumulation", {{"entry", pathOf(*me)}}, {}};
      QVERIFY(checkTransformation(*s, transforms::InterleaveAccumulation(), m, 1e-4, true, "fpga-sim", "fpga-sim"));
      QCOMPARE(allNodes<MapEntry>(*s).at(0)->params, (std::vector<std::string>{"j", "i"}));
      auto after = codegen::estimateFpga(*s, {});
      QVERIFY(after);
      const auto l1 = after->kernels.at(0).loops.at(0);
      if (rows == 64) {
        QCOMPARE(l1.ii, int64_t(1));
        QVERIFY(l1.cycles * 3 < l0.cycles);
      } else {
        QVERIFY2(l1.ii > 1 && l1.ii < l0.ii, l1.iiReason.c_str());
        QVERIFY2(l1.iiReason.find("returns to an element every 8 iterations") != std::string::npos, l1.iiReason.c_str());
      }
    }
    // Refusals: nothing accumulated; the element already changes with the innermost parameter; a
    // parameter that is not the map's.
    transforms::InterleaveAccumulation t;
    auto plain = twoStates();
    Diagnostics none;
    QVERIFY(!t.canApply({"InterleaveAccumulation", {{"entry", pathOf(*allNodes<MapEntry>(*plain).at(0))}}, {}}, *plain, &none));
    QVERIFY2(none.firstError()->message.find("nothing leaving the map accumulates") != std::string::npos, none.firstError()->message.c_str());
    auto s = rowSum(8, 64);
    const std::string path = pathOf(*allNodes<MapEntry>(*s).at(0));
    edit::Editor ed(*s);
    QVERIFY(t.apply({"InterleaveAccumulation", {{"entry", path}}, {}}, ed));
    Diagnostics again;
    QVERIFY(!t.canApply({"InterleaveAccumulation", {{"entry", path}}, {}}, *s, &again));
    QVERIFY2(again.firstError()->message.find("with the innermost parameter i already") != std::string::npos, again.firstError()->message.c_str());
    Diagnostics unknown;
    QVERIFY(!t.canApply({"InterleaveAccumulation", {{"entry", path}}, {{"innermost", "q"}}}, *rowSum(8, 64), &unknown));
    QVERIFY2(unknown.firstError()->message.find("no parameter q") != std::string::npos, unknown.firstError()->message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestFpga)
#include "tst_Fpga.moc"
