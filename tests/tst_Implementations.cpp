// Tests of first-class implementations of library nodes: what each registered implementation declares
// (targets, environments, differentiable), the environments registry, expandAll honouring each node's
// choice with the target's default policy for the others, the refusals (an unknown choice lists the
// alternatives; a choice for another target; `set PATH implementation=X` checked the same way), and the
// `onednn` MatMul end to end: expanded to a C++ tasklet, generated with the environment's prologue and
// link flags, compiled, run and compared with `pure` on random inputs of odd shapes (rtol 1e-4).
#include "support/TransformTestSupport.h"

#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CppGenerator.h"
#include "core/expansions/Environment.h"
#include "core/expansions/Implementations.h"
#include "core/expansions/onednn/OneDnnCall.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"
#include "transforms/ModelCommands.h"

#include <QtTest>

#include <cmath>
#include <cstring>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

std::vector<sym::Expr> exprs(const std::vector<int64_t>& d) { return {d.begin(), d.end()}; }

// A float32 array listed as an input or an output.
void addArg(Sdfg& s, const std::string& name, std::vector<sym::Expr> shape, bool input) {
  s.addArray(name, DType::Float32, std::move(shape));
  (input ? s.inputs : s.outputs).push_back(name);
}

// Adds `label`: Y = MatMul(A, B) on arrays named `a`, `b`, `y` (declared by the caller) to `st`.
LibraryNode* addMatMul(Sdfg& s, State& st, const std::string& label, const std::string& a, const std::string& b,
                       const std::string& y) {
  auto* l = st.add<LibraryNode>(label);
  l->opType = "MatMul";
  l->opsetVersion = 13;
  l->addIn({"A", DType::Float32, false});
  l->addIn({"B", DType::Float32, false});
  l->addOut({"Y", DType::Float32, false});
  auto full = [&](const std::string& n) { return Memlet::full(n, s.findData(n)->shape); };
  st.addEdge(*st.add<AccessNode>(a), "", *l, "A", full(a));
  st.addEdge(*st.add<AccessNode>(b), "", *l, "B", full(b));
  st.addEdge(*l, "Y", *st.add<AccessNode>(y), "", full(y));
  return l;
}

// A model Y = A x B with the given shapes; the node chooses `implementation` ("" = the default).
std::unique_ptr<Sdfg> matmulModel(const std::vector<int64_t>& as, const std::vector<int64_t>& bs,
                                  const std::vector<int64_t>& ys, const std::string& implementation) {
  auto s = std::make_unique<Sdfg>("main");
  addArg(*s, "A", exprs(as), true);
  addArg(*s, "B", exprs(bs), true);
  addArg(*s, "Y", exprs(ys), false);
  State* st = s->addState("state0");
  addMatMul(*s, *st, "MatMul_0", "A", "B", "Y")->implementation = implementation;
  return s;
}

std::vector<float> floats(const Tensor& t) {
  std::vector<float> v(size_t(t.elementCount()));
  std::memcpy(v.data(), t.bytes->data(), v.size() * sizeof(float));
  return v;
}

// np.allclose(a, b, rtol, atol) over every output; the worst element in `why`.
bool allClose(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double rtol, double atol, std::string& why) {
  if (a.size() != b.size() || a.empty()) {
    why = "different output counts";
    return false;
  }
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].dims != b[k].dims) {
      why = "output " + std::to_string(k) + " has different dims";
      return false;
    }
    auto x = floats(a[k]), y = floats(b[k]);
    for (size_t i = 0; i < x.size(); ++i)
      if (!(std::fabs(double(x[i]) - y[i]) <= atol + rtol * std::fabs(double(y[i])))) {
        why = "output " + std::to_string(k) + " element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " +
              std::to_string(y[i]);
        return false;
      }
  }
  return true;
}

std::vector<Tasklet*> cppTasklets(const Sdfg& s) {
  std::vector<Tasklet*> out;
  for (auto* t : allNodes<Tasklet>(s))
    if (t->language == TaskletLanguage::Cpp) out.push_back(t);
  return out;
}

LibraryNode* firstLibraryNode(const Sdfg& s) {
  auto v = allNodes<LibraryNode>(s);
  return v.empty() ? nullptr : v.front();
}

std::vector<int64_t> dims(const QString& text) {
  std::vector<int64_t> v;
  for (auto& p : text.split('x')) v.push_back(p.toLongLong());
  return v;
}

NestedSdfgNode* expansionAt(Sdfg& s, const std::string& path) {
  auto e = resolvePath(s, path);
  return e ? dynamic_cast<NestedSdfgNode*>(*e) : nullptr;
}

} // namespace

class TestImplementations : public QObject {
  Q_OBJECT
private slots:
  // Attribute values in oneDNN calls: finite ones as float literals; a Clip bound at infinity (or past
  // float's range) as a value, since "inff" is no C++ (openWakeWord's melspectrogram after optimize).
  void floatLiteralsOfEveryValue() {
    using expansions::onednn::floatLiteral;
    QCOMPARE(QString::fromStdString(floatLiteral(1e-10)), QString("1e-10f"));
    QCOMPARE(QString::fromStdString(floatLiteral(2)), QString("2.0f"));
    QCOMPARE(QString::fromStdString(floatLiteral(INFINITY)), QString("std::numeric_limits<float>::infinity()"));
    QCOMPARE(QString::fromStdString(floatLiteral(-1e300)), QString("(-std::numeric_limits<float>::infinity())"));
    QCOMPARE(QString::fromStdString(floatLiteral(NAN)), QString("std::numeric_limits<float>::quiet_NaN()"));
  }

  void declarations() {
    int pure = 0, other = 0;
    for (auto& e : expansions::registry().all()) {
      QCOMPARE(e.implementation, e.decl.name);
      if (e.implementation == "pure") {
        ++pure;
        QVERIFY2(e.decl.targets.empty() && e.decl.environments.empty() && e.decl.differentiable, e.op.c_str());
        continue;
      }
      ++other;
      QVERIFY2(!e.decl.targets.empty(), (e.op + " " + e.implementation + " declares no target").c_str());
      for (auto& t : e.decl.targets) {
        auto& known = expansions::knownTargets();
        QVERIFY2(std::find(known.begin(), known.end(), t) != known.end(), t.c_str());
      }
      for (auto& env : e.decl.environments) {
        const expansions::Environment* x = expansions::findEnvironment(env);
        QVERIFY2(x, (e.implementation + " needs unknown environment " + env).c_str());
        QVERIFY2(e.decl.forTarget(x->target), env.c_str());
      }
    }
    QVERIFY(pure > 150);
    QVERIFY(other >= 1);
    const auto* onednn = expansions::registry().find("", "MatMul", "onednn");
    QVERIFY(onednn);
    QCOMPARE(onednn->decl.targets, std::vector<std::string>{"cpu"});
    QCOMPARE(onednn->decl.environments, std::vector<std::string>{"onednn"});
    QVERIFY(!onednn->decl.differentiable);
    QVERIFY(onednn->decl.forTarget("cpu") && !onednn->decl.forTarget("cuda"));
    QCOMPARE(QString::fromStdString(expansions::alternativesText("", "MatMul")),
             QString("pure (any target, differentiable), onednn (cpu, not differentiable), cublas (cuda, not differentiable), systolic (fpga, not differentiable)"));
    const auto* cublas = expansions::registry().find("", "Gemm", "cublas");
    QVERIFY(cublas && cublas->decl.forTarget("cuda") && !cublas->decl.forTarget("cpu"));
    QCOMPARE(cublas->decl.environments, std::vector<std::string>{"cublas"});
  }

  void environments() {
    const expansions::Environment* e = expansions::findEnvironment("onednn");
    QVERIFY(e);
    QCOMPARE(e->target, std::string("cpu"));
    QCOMPARE(e->headers.front(), std::string("dnnl.hpp"));
    QVERIFY(std::find(e->linkFlags.begin(), e->linkFlags.end(), "-ldnnl") != e->linkFlags.end());
    QVERIFY(e->init.find("dnnl::engine") != std::string::npos); // the engine is made once, at load
    // Each oneDNN tasklet's primitive is made once (its Call), and released before the engine goes.
    QVERIFY(e->globals.find("struct Call") != std::string::npos);
    QVERIFY(e->teardown.find("releases()") < e->teardown.find("engine = dnnl::engine()"));
    QCOMPARE(e->ns(), std::string("dcw_env_onednn"));
    QVERIFY(!expansions::findEnvironment("cublas_not_yet"));
    std::set<std::string> names;
    for (auto& x : expansions::environments()) QVERIFY2(names.insert(x.name).second, x.name.c_str());
  }

  // No explicit choice: the cpu default policy gives `pure` (maps and tasklets, no C++).
  void defaultPolicyIsPure() {
    QCOMPARE(expansions::defaultPolicy("cpu"), std::vector<std::string>{"pure"});
    auto s = matmulModel({4, 5}, {5, 3}, {4, 3}, "");
    auto r = expansions::expandAll(*s);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    auto* n = expansionAt(*s, "main/state0/MatMul_0");
    QVERIFY(n);
    QCOMPARE(n->sdfg().metadata.at("implementation"), std::string("pure"));
    QVERIFY(cppTasklets(*s).empty());
    QVERIFY(!allNodes<MapEntry>(*s).empty());
  }

  // `set ... implementation=onednn` through the command layer, then expandAll: one C++ tasklet that
  // names the environment, declares its FLOPs and reads/writes whole arrays; the model validates.
  void setThenExpandYieldsCppTasklet() {
    auto s = matmulModel({3, 5, 7}, {7, 6}, {3, 5, 6}, "");
    edit::History h(*s);
    auto r = h.execute(std::make_unique<transforms::SetProperty>("main/state0/MatMul_0", "implementation", "onednn"));
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    auto x = expansions::expandAll(*s);
    QVERIFY2(x, x ? "" : x.error().str().c_str());
    auto* n = expansionAt(*s, "main/state0/MatMul_0");
    QVERIFY(n);
    QCOMPARE(n->sdfg().metadata.at("implementation"), std::string("onednn"));
    auto cpp = cppTasklets(*s);
    QCOMPARE(cpp.size(), size_t(1));
    Tasklet* t = cpp.front();
    QCOMPARE(t->environments, std::vector<std::string>{"onednn"});
    QVERIFY(t->flops);
    QCOMPARE(*t->flops->constantValue(), int64_t(2 * 3 * 5 * 6 * 7));
    QVERIFY(t->code.find("dnnl::matmul") != std::string::npos);
    QCOMPARE(t->inConnectors().size(), size_t(2));
    QCOMPARE(t->outConnectors().size(), size_t(1));
    State* st = t->parent();
    for (auto* e : st->inEdges(t->id())) QCOMPARE(e->memlet.subset.volume(), e->dstConnector == "A" ? sym::Expr(105) : sym::Expr(42));
    QVERIFY(allNodes<MapEntry>(*s).empty()); // no maps: one library call
    auto d = validate(*s);
    QVERIFY2(!d.hasErrors(), d.firstError() ? d.firstError()->str().c_str() : "");
  }

  // An unknown choice is refused by `set` and by expandAll, naming node, op, choice and alternatives.
  void unknownImplementationListsAlternatives() {
    auto s = matmulModel({4, 5}, {5, 3}, {4, 3}, "");
    const std::string before = serialize::toJson(*s);
    edit::History h(*s);
    auto r = h.execute(std::make_unique<transforms::SetProperty>("main/state0/MatMul_0", "implementation", "blis"));
    QVERIFY(!r);
    QCOMPARE(QString::fromStdString(r.error().location), QString("main/state0/MatMul_0 (MatMul)"));
    QCOMPARE(QString::fromStdString(r.error().message),
             QString("op MatMul has no 'blis' implementation; available: pure (any target, differentiable), onednn (cpu, "
                     "not differentiable), cublas (cuda, not differentiable), systolic (fpga, not differentiable)"));
    QVERIFY(QString::fromStdString(r.error().hint).contains("set main/state0/MatMul_0 implementation=NAME"));
    QCOMPARE(serialize::toJson(*s), before);

    // A choice made without the command (a hand-edited .dcw.json) is refused by the pass the same way.
    firstLibraryNode(*s)->implementation = "blis";
    auto x = expansions::expandAll(*s);
    QVERIFY(!x);
    QCOMPARE(QString::fromStdString(x.error().message), QString::fromStdString(r.error().message));
    QCOMPARE(QString::fromStdString(x.error().location), QString("main/state0/MatMul_0 (MatMul)"));
  }

  void choiceForAnotherTargetIsRefused() {
    auto s = matmulModel({4, 5}, {5, 3}, {4, 3}, "onednn");
    expansions::ExpandOptions o;
    o.target = "cuda";
    auto x = expansions::expandAll(*s, o);
    QVERIFY(!x);
    QVERIFY2(QString::fromStdString(x.error().str())
                 .contains("main/state0/MatMul_0 (MatMul): implementation 'onednn' of MatMul is for cpu, not for target "
                           "cuda; available: pure (any target, differentiable), onednn (cpu, not differentiable), cublas (cuda, "
                           "not differentiable), systolic (fpga, not differentiable)"),
             x.error().str().c_str());
    QVERIFY(firstLibraryNode(*s)); // nothing expanded
  }

  // What the oneDNN matmul primitive cannot do is refused at the node, pointing to `pure`.
  void onednnRefusesWhatItCannotDo() {
    auto s = std::make_unique<Sdfg>("main");
    s->addArray("A", DType::Int64, {4, 5});
    s->addArray("B", DType::Int64, {5, 3});
    s->addArray("Y", DType::Int64, {4, 3});
    s->inputs = {"A", "B"};
    s->outputs = {"Y"};
    addMatMul(*s, *s->addState("state0"), "MatMul_0", "A", "B", "Y")->implementation = "onednn";
    auto x = expansions::expandAll(*s);
    QVERIFY(!x);
    QCOMPARE(QString::fromStdString(x.error().location), QString("main/state0/MatMul_0 (MatMul)"));
    QVERIFY2(QString::fromStdString(x.error().message).contains("float32 only; A is int64"), x.error().str().c_str());
    QVERIFY(QString::fromStdString(x.error().hint).contains("implementation=pure"));

    auto sym = std::make_unique<Sdfg>("main");
    sym->addSymbol("n");
    addArg(*sym, "A", {sym::Expr::symbol("n"), sym::Expr(5)}, true);
    addArg(*sym, "B", {sym::Expr(5), sym::Expr(3)}, true);
    addArg(*sym, "Y", {sym::Expr::symbol("n"), sym::Expr(3)}, false);
    addMatMul(*sym, *sym->addState("state0"), "MatMul_0", "A", "B", "Y")->implementation = "onednn";
    auto y = expansions::expandAll(*sym);
    QVERIFY(!y);
    QVERIFY2(QString::fromStdString(y.error().message).contains("needs known dims; A has dim n"), y.error().str().c_str());
  }

  // The generated program: the environment's include, globals, dcw_init/dcw_teardown, the link flags,
  // and a source map entry that covers the C++ tasklet's code lines.
  void generatedCodeCarriesTheEnvironment() {
    auto s = matmulModel({13, 17}, {17, 11}, {13, 11}, "onednn");
    QVERIFY(expansions::expandAll(*s));
    auto g = codegen::generateCpp(*s);
    QVERIFY2(g, g ? "" : g.error().str().c_str());
    const std::string& src = g->source;
    QVERIFY(src.find("#include <dnnl.hpp>") != std::string::npos);
    // The environment's headers open the program, where the precompiled prelude takes them
    // (compileShared): <immintrin.h> (the runtime's AVX-512 kernels) where the platform has it. A program
    // without oneDNN leaves it out: it was 25 of a 61 MB prelude, 0.07 s of every compile.
    const std::string block = codegen::leadingIncludeBlock(src);
    QVERIFY(block.find("#include <dnnl.hpp>") != std::string::npos);
    QVERIFY(block.find("#if __has_include(<immintrin.h>)\n#include <immintrin.h>\n#endif\n") != std::string::npos);
    auto plain = matmulModel({13, 17}, {17, 11}, {13, 11}, "");
    QVERIFY(expansions::expandAll(*plain));
    auto pure = codegen::generateCpp(*plain);
    QVERIFY2(pure, pure ? "" : pure.error().str().c_str());
    QVERIFY(pure->source.find("immintrin") == std::string::npos);
    QVERIFY(pure->source.find("dnnl") == std::string::npos);
    QVERIFY(src.find("namespace dcw_env_onednn {") != std::string::npos);
    QVERIFY(src.find("extern \"C\" int dcw_init(char* error, size_t errorSize)") != std::string::npos);
    QVERIFY(src.find("extern \"C\" void dcw_teardown()") != std::string::npos);
    QVERIFY(std::find(g->linkFlags.begin(), g->linkFlags.end(), "-ldnnl") != g->linkFlags.end());
    Tasklet* t = cppTasklets(*s).front();
    const std::string path = pathOf(*t);
    // The line of the primitive call, 1-based.
    size_t at = src.find("dcw_k.prim = dnnl::matmul(pd);");
    QVERIFY(at != std::string::npos);
    const int line = int(std::count(src.begin(), src.begin() + std::ptrdiff_t(at), '\n')) + 1;
    bool mapped = false;
    for (auto& e : g->sourceMap) mapped = mapped || (e.path == path && e.firstLine <= line && line <= e.lastLine);
    QVERIFY2(mapped, ("no source map entry of " + path + " covers line " + std::to_string(line)).c_str());

    // Without C++ tasklets, nothing of this is generated (pure programs are what they were).
    auto p = matmulModel({13, 17}, {17, 11}, {13, 11}, "");
    QVERIFY(expansions::expandAll(*p));
    auto gp = codegen::generateCpp(*p);
    QVERIFY(gp);
    QVERIFY(gp->linkFlags.empty());
    QVERIFY(gp->source.find("dcw_init") == std::string::npos);
  }

  // Validation does not parse a C++ tasklet's code, but checks what binds it: connectors that can be
  // C++ names, each output written through exactly one memlet, environment names.
  void validationOfCppTasklets() {
    Sdfg s("main");
    addArg(s, "X", {sym::Expr(4)}, true);
    addArg(s, "Y", {sym::Expr(4)}, false);
    State* st = s.addState("s");
    auto* t = st->add<Tasklet>("call", "this is { not parsed", TaskletLanguage::Cpp);
    t->environments = {"onednn"};
    t->addIn({"X"});
    t->addOut({"Y"});
    st->addEdge(*st->add<AccessNode>("X"), "", *t, "X", Memlet::full("X", {sym::Expr(4)}));
    auto* y = st->add<AccessNode>("Y");
    st->addEdge(*t, "Y", *y, "", Memlet::full("Y", {sym::Expr(4)}));
    auto ok = validate(s);
    QVERIFY2(!ok.hasErrors(), ok.firstError() ? ok.firstError()->str().c_str() : "");

    t->addOut({"unwritten"});
    t->environments.push_back("not a name");
    auto bad = validate(s);
    QVERIFY(bad.hasErrors());
    QStringList messages;
    for (auto& d : bad.items()) messages << QString::fromStdString(d.str());
    const QString all = messages.join('\n');
    QVERIFY2(all.contains("main/s/call: output 'unwritten' of C++ tasklet 'call' has 0 memlets; it needs exactly one"), qPrintable(all));
    QVERIFY2(all.contains("names environment 'not a name', which is not an identifier"), qPrintable(all));
  }

  void onednnMatchesPure_data() {
    QTest::addColumn<QString>("as");
    QTest::addColumn<QString>("bs");
    QTest::addColumn<QString>("ys");
    QTest::newRow("2-D") << "13x17" << "17x11" << "13x11";
    QTest::newRow("batched") << "3x5x7" << "3x7x9" << "3x5x9";
    QTest::newRow("B broadcast") << "3x5x7" << "7x6" << "3x5x6";
    QTest::newRow("both broadcast") << "2x1x5x7" << "3x7x9" << "2x3x5x9";
    QTest::newRow("1-D A") << "7" << "3x7x4" << "3x4";
    QTest::newRow("1-D B") << "5x7" << "7" << "5";
  }

  // The numerical test: the same random inputs through `pure` and `onednn`, compared (rtol 1e-4).
  void onednnMatchesPure() {
    QFETCH(QString, as);
    QFETCH(QString, bs);
    QFETCH(QString, ys);
    const auto a = dims(as), b = dims(bs), y = dims(ys);
    auto pure = matmulModel(a, b, y, "pure");
    auto onednn = matmulModel(a, b, y, "onednn");
    QVERIFY(expansions::expandAll(*pure));
    auto x = expansions::expandAll(*onednn);
    QVERIFY2(x, x ? "" : x.error().str().c_str());
    QCOMPARE(cppTasklets(*onednn).size(), size_t(1));
    auto inputs = randomInputsFor(*pure, 11);
    QCOMPARE(inputs.size(), size_t(2));
    auto ref = runModel(*pure, inputs);
    auto out = runModel(*onednn, inputs);
    QVERIFY(!ref.empty() && !out.empty());
    std::string why;
    QVERIFY2(allClose(out, ref, 1e-4, 1e-5, why), why.c_str());
    // A second run of the loaded program reuses the engine made at load (and gives the same result).
    auto ex = codegen::Executor::create(*onednn);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    auto r1 = (*ex)->run(inputs);
    auto r2 = (*ex)->run(inputs);
    QVERIFY(r1 && r2);
    QVERIFY(allClose(*r1, *r2, 0, 0, why));
  }

  // Programs loaded from one library (the same code: weights are arguments, not code) share its oneDNN
  // calls, and each keeps its own constants: the packed copy of B made for one program is never used
  // by another, also when the other's B sits where a freed program's did.
  void onednnProgramsKeepTheirOwnConstants() {
    const std::vector<int64_t> a{13, 17}, b{17, 11}, y{13, 11};
    auto withWeights = [&](float scale, const std::string& implementation) {
      auto m = matmulModel(a, b, y, implementation);
      std::vector<float> w(size_t(17 * 11));
      for (size_t k = 0; k < w.size(); ++k) w[k] = scale * float(int(k % 7) - 3);
      Tensor t;
      t.dtype = DType::Float32;
      t.dims = b;
      t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float));
      m->findData("B")->constant = std::make_shared<const Tensor>(std::move(t));
      m->inputs.erase(std::remove(m->inputs.begin(), m->inputs.end(), "B"), m->inputs.end());
      if (!expansions::expandAll(*m)) return std::unique_ptr<Sdfg>();
      return m;
    };
    auto expected = [&](float scale) {
      auto pure = withWeights(scale, "pure");
      return pure ? runModel(*pure, randomInputsFor(*pure, 3)) : std::vector<Tensor>{};
    };
    auto one = withWeights(1, "onednn"), two = withWeights(2, "onednn");
    QVERIFY(one && two);
    const std::string call = cppTasklets(*one).front()->code;
    QVERIFY2(call.find("any(dims{17, 11})") != std::string::npos, call.c_str()); // B packed once, as a constant
    const auto inputs = randomInputsFor(*one, 3);
    auto exOne = codegen::Executor::create(*one);
    auto exTwo = codegen::Executor::create(*two);
    QVERIFY(exOne && exTwo);
    QCOMPARE((*exOne)->library().path, (*exTwo)->library().path); // one library, loaded twice
    std::string why;
    for (int round = 0; round < 2; ++round) {
      auto r2 = (*exTwo)->run(inputs);
      auto r1 = (*exOne)->run(inputs); // the first program's B is the last the shared call packed
      QVERIFY(r1 && r2);
      QVERIFY2(allClose(*r1, expected(1), 1e-5, 1e-5, why), why.c_str());
      QVERIFY2(allClose(*r2, expected(2), 1e-5, 1e-5, why), why.c_str());
    }
    // The first program goes; a third, loaded while the second keeps the library, gets B where the
    // first had it, holding other values (written in place here, as a new buffer at a freed one's
    // address would): its run must pack its own B, not keep the first program's.
    exOne->reset();
    const std::string& bytes = *one->findData("B")->constant->bytes;
    auto* w = reinterpret_cast<float*>(const_cast<char*>(bytes.data()));
    for (size_t k = 0; k < bytes.size() / sizeof(float); ++k) w[k] *= 3;
    auto exThree = codegen::Executor::create(*one);
    QVERIFY(exThree);
    auto r3 = (*exThree)->run(inputs);
    QVERIFY(r3);
    QVERIFY2(allClose(*r3, expected(3), 1e-5, 1e-5, why), why.c_str());
    auto r2 = (*exTwo)->run(inputs);
    QVERIFY(r2);
    QVERIFY2(allClose(*r2, expected(2), 1e-5, 1e-5, why), why.c_str());
  }

  // Calls that pack one constant the same way share the packed copy (a model whose layers share their
  // weights holds it once); a call that reads the buffer otherwise (Gemm's transB: the same W seen
  // transposed) packs its own. Every output equals the pure model's.
  void onednnCallsSharePackedConstants() {
    auto build = [](const std::string& implementation) {
      auto s = std::make_unique<Sdfg>("main");
      addArg(*s, "A", exprs({5, 8}), true);
      addArg(*s, "W", exprs({8, 8}), false);
      for (const char* y : {"Y1", "Y2", "Y3"}) addArg(*s, y, exprs({5, 8}), false);
      std::vector<float> w(64);
      for (size_t k = 0; k < w.size(); ++k) w[k] = float(int(k % 11) - 5) / 4;
      Tensor t;
      t.dtype = DType::Float32;
      t.dims = {8, 8};
      t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(float));
      s->findData("W")->constant = std::make_shared<const Tensor>(std::move(t));
      s->outputs = {"Y1", "Y2", "Y3"};
      State* st = s->addState("state0");
      addMatMul(*s, *st, "MatMul_1", "A", "W", "Y1")->implementation = implementation;
      addMatMul(*s, *st, "MatMul_2", "A", "W", "Y2")->implementation = implementation;
      auto* gemm = addMatMul(*s, *st, "Gemm_3", "A", "W", "Y3");
      gemm->opType = "Gemm";
      gemm->attributes.push_back(Attribute{"transB", int64_t(1)});
      gemm->implementation = implementation;
      return s;
    };
    auto pure = build("pure"), onednn = build("onednn");
    QVERIFY(expansions::expandAll(*pure));
    auto x = expansions::expandAll(*onednn);
    QVERIFY2(x, x ? "" : x.error().str().c_str());
    QCOMPARE(cppTasklets(*onednn).size(), size_t(3));
    for (auto* t : cppTasklets(*onednn)) QVERIFY2(t->code.find("any(dims{8, 8})") != std::string::npos, t->code.c_str()); // W packed
    auto inputs = randomInputsFor(*pure, 5);
    auto ref = runModel(*pure, inputs);
    QVERIFY(ref.size() == 3);
    auto ex = codegen::Executor::create(*onednn);
    QVERIFY2(ex, ex ? "" : ex.error().str().c_str());
    std::string why;
    for (int run = 0; run < 2; ++run) {
      auto out = (*ex)->run(inputs);
      QVERIFY(out);
      QVERIFY2(allClose(*out, ref, 1e-5, 1e-5, why), why.c_str());
    }
  }

  // Two MatMuls in one model, one `pure` and one `onednn`: each gets its own, and the results agree
  // with an all-pure model.
  void expandAllHonoursPerNodeChoices() {
    auto build = [](const std::string& first, const std::string& second) {
      auto s = std::make_unique<Sdfg>("main");
      addArg(*s, "A", {sym::Expr(6), sym::Expr(9)}, true);
      addArg(*s, "B", {sym::Expr(9), sym::Expr(5)}, true);
      addArg(*s, "C", {sym::Expr(5), sym::Expr(7)}, true);
      s->addArray("T", DType::Float32, {sym::Expr(6), sym::Expr(5)}, true);
      addArg(*s, "Y", {sym::Expr(6), sym::Expr(7)}, false);
      State* st = s->addState("state0");
      addMatMul(*s, *st, "mm1", "A", "B", "T")->implementation = first;
      // mm2 reads T from the access node mm1 wrote.
      auto* l = st->add<LibraryNode>("mm2");
      l->opType = "MatMul";
      l->opsetVersion = 13;
      l->implementation = second;
      l->addIn({"A", DType::Float32, false});
      l->addIn({"B", DType::Float32, false});
      l->addOut({"Y", DType::Float32, false});
      AccessNode* t = nullptr;
      for (auto& n : st->nodes())
        if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == "T") t = a;
      st->addEdge(*t, "", *l, "A", Memlet::full("T", s->findData("T")->shape));
      st->addEdge(*st->add<AccessNode>("C"), "", *l, "B", Memlet::full("C", s->findData("C")->shape));
      st->addEdge(*l, "Y", *st->add<AccessNode>("Y"), "", Memlet::full("Y", s->findData("Y")->shape));
      return s;
    };
    auto mixed = build("pure", "onednn");
    auto reference = build("", "");
    auto x = expansions::expandAll(*mixed);
    QVERIFY2(x, x ? "" : x.error().str().c_str());
    QCOMPARE(x->expanded, 2);
    QCOMPARE(expansionAt(*mixed, "main/state0/mm1")->sdfg().metadata.at("implementation"), std::string("pure"));
    QCOMPARE(expansionAt(*mixed, "main/state0/mm2")->sdfg().metadata.at("implementation"), std::string("onednn"));
    QVERIFY(cppTasklets(expansionAt(*mixed, "main/state0/mm1")->sdfg()).empty());
    QCOMPARE(cppTasklets(expansionAt(*mixed, "main/state0/mm2")->sdfg()).size(), size_t(1));
    QVERIFY(!allNodes<MapEntry>(expansionAt(*mixed, "main/state0/mm1")->sdfg()).empty());
    auto d = validate(*mixed);
    QVERIFY2(!d.hasErrors(), d.firstError() ? d.firstError()->str().c_str() : "");

    QVERIFY(expansions::expandAll(*reference));
    auto inputs = randomInputsFor(*reference, 5);
    auto ref = runModel(*reference, inputs);
    auto out = runModel(*mixed, inputs);
    std::string why;
    QVERIFY2(allClose(out, ref, 1e-4, 1e-5, why), why.c_str());
  }
};

QTEST_GUILESS_MAIN(TestImplementations)
#include "tst_Implementations.moc"
