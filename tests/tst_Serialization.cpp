// Tests of the `*.dcw.json` format (core/serialize): base64, a hand-built SDFG that uses every element
// kind and attribute type (validates, round-trips byte for byte, keeps ids, labels, paths and
// payloads), the golden file, atomic save/load, and each rejection of bad input checked by its message.
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/serialize/Base64.h"
#include "core/serialize/JsonFormat.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::serialize;
using sym::Expr;

namespace {

Expr S(const char* name) { return Expr::symbol(name); }

Subset subset(const char* text) {
  auto s = Subset::parse(text);
  if (!s) qFatal("bad subset in test: %s", text);
  return *s;
}

template <class T>
std::shared_ptr<const std::string> bytesOf(const std::vector<T>& v) {
  std::string b(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return std::make_shared<const std::string>(std::move(b));
}

Tensor floatTensor(std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor t;
  t.dtype = DType::Float32;
  t.dims = std::move(dims);
  t.bytes = bytesOf(values);
  return t;
}

// The small SDFG of the golden file: B[i] += A[i] * W[i % 2] over a map, then a second state.
std::unique_ptr<Sdfg> buildSmall() {
  auto sdfg = std::make_unique<Sdfg>("small");
  sdfg->addSymbol("N");
  sdfg->metadata["producer"] = "tst_Serialization";
  sdfg->addArray("A", DType::Float32, {S("N")});
  sdfg->addArray("B", DType::Float32, {S("N")});
  auto* w = sdfg->addArray("W", DType::Float32, {Expr(2)});
  w->constant = std::make_shared<const Tensor>(floatTensor({2}, {0.5f, -2.0f}));
  sdfg->inputs = {"A"};
  sdfg->outputs = {"B"};

  State* st = sdfg->addState("compute");
  auto* a = st->add<AccessNode>("A");
  auto* wn = st->add<AccessNode>("W");
  auto* b = st->add<AccessNode>("B");
  auto* me = st->add<MapEntry>("map_i");
  auto* mx = st->add<MapExit>("map_i_exit");
  me->params = {"i"};
  me->range = subset("0:N");
  me->schedule = Schedule::CpuMulticore;
  me->exitId = mx->id();
  mx->entryId = me->id();
  me->addIn({"IN_A"});
  me->addIn({"IN_W"});
  me->addOut({"OUT_A"});
  me->addOut({"OUT_W"});
  mx->addIn({"IN_B"});
  mx->addOut({"OUT_B"});
  auto* t = st->add<Tasklet>("mul", "b = a * w");
  t->addIn({"a", DType::Float32});
  t->addIn({"w", DType::Float32});
  t->addOut({"b", DType::Float32});
  st->addEdge(*a, "", *me, "IN_A", Memlet::full("A", {S("N")}));
  st->addEdge(*wn, "", *me, "IN_W", Memlet::full("W", {Expr(2)}));
  st->addEdge(*me, "OUT_A", *t, "a", Memlet::simple("A", subset("i")));
  st->addEdge(*me, "OUT_W", *t, "w", Memlet::simple("W", subset("i % 2")));
  Memlet out = Memlet::simple("B", subset("i"));
  out.wcr = "sum";
  st->addEdge(*t, "b", *mx, "IN_B", out);
  Memlet all = Memlet::full("B", {S("N")});
  all.wcr = "sum";
  st->addEdge(*mx, "OUT_B", *b, "", all);

  State* done = sdfg->addState("done");
  auto* e = sdfg->addEdge(st->id(), done->id(), sym::gt(S("N"), Expr(0)));
  e->assignments.push_back({"k", S("N") * 2});
  return sdfg;
}

// An SDFG that uses every element kind, every attribute type and every descriptor feature.
struct Full {
  std::unique_ptr<Sdfg> sdfg = std::make_unique<Sdfg>("main");
  LibraryNode* lib = nullptr;
  NestedSdfgNode* nested = nullptr;
  DataDescriptor* weights = nullptr;
  DataflowEdge* wcrEdge = nullptr;

  Full() {
    Sdfg& s = *sdfg;
    s.addSymbol("N");
    s.addSymbol("M", DType::Int32);
    s.metadata["producer"] = "tst_Serialization";
    s.metadata["doc"] = "unicode ✓, quotes \" and a / slash";

    s.addArray("X", DType::Float32, {S("N"), Expr(3)});
    s.addArray("Y", DType::Float32, {S("N"), Expr(3)});
    weights = s.addArray("W", DType::Float32, {Expr(3)});
    weights->constant = std::make_shared<const Tensor>(
        floatTensor({3}, {1.5f, -2.25f, std::numeric_limits<float>::quiet_NaN()}));
    weights->sourceName = "onnx::weights.0";
    auto* tmp = s.addArray("tmp", DType::Float64, {S("N"), Expr(3)}, true);
    tmp->storage = StorageType::GpuGlobal;
    tmp->lifetime = Lifetime::Persistent;
    auto* sc = s.addScalar("s", DType::Int64, true);
    sc->storage = StorageType::Register;
    sc->lifetime = Lifetime::State;
    auto view = std::make_unique<DataDescriptor>("V");
    view->dataKind = DataKind::View;
    view->shape = {floorDiv(S("N"), Expr(2)), Expr(3)};
    view->strides = {Expr(6), Expr(1)};
    view->offset = S("N") + 1;
    view->transient = true;
    s.addData(std::move(view));
    auto seq = std::make_unique<DataDescriptor>("seq");
    seq->dtype = DType::Int64;
    seq->rankKnown = false;
    seq->wrappers = {Wrapper::Sequence};
    seq->transient = true;
    s.addData(std::move(seq));
    auto opt = std::make_unique<DataDescriptor>("opt");
    opt->dtype = DType::Float16;
    opt->shape = {S("M")};
    opt->strides = {Expr(1)};
    opt->wrappers = {Wrapper::Optional, Wrapper::Sequence};
    opt->transient = true;
    opt->lifetime = Lifetime::External;
    s.addData(std::move(opt));
    auto* names = s.addArray("names", DType::String, {Expr(3)}, true);
    Tensor strs;
    strs.dtype = DType::String;
    strs.dims = {3};
    strs.strings = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"alpha", "", std::string("bin\xff\x00z", 6)});
    names->constant = std::make_shared<const Tensor>(strs);
    auto* noBytes = s.addArray("bytes", DType::UInt8, {Expr(0)}, true);
    Tensor empty;
    empty.dtype = DType::UInt8;
    empty.dims = {0};
    empty.bytes = std::make_shared<const std::string>();
    noBytes->constant = std::make_shared<const Tensor>(empty);
    s.inputs = {"X"};
    s.outputs = {"Y"};

    State* compute = buildCompute(s);
    State* ops = buildOps(s);
    auto* loop = static_cast<LoopRegion*>(s.addBlock(std::make_unique<LoopRegion>("loop")));
    loop->loopVariable = "t";
    loop->init = Expr(0);
    loop->condition = sym::lt(S("t"), S("M"));
    loop->update = S("t") + 1;
    State* body = loop->addState("body");
    State* body2 = loop->addState("body2");
    loop->addEdge(body->id(), body2->id());
    auto* inc = body->add<Tasklet>("inc", "o = 1;", TaskletLanguage::Cpp);
    inc->addOut({"o", DType::Int64});
    auto* sn = body->add<AccessNode>("s");
    auto* yn = body->add<AccessNode>("Y");
    body->addEdge(*inc, "o", *sn, "", Memlet::simple("s", subset("0")));
    body->addEdge(*yn, "", *inc, "", Memlet()); // ordering only

    auto* cond = static_cast<ConditionalRegion*>(s.addBlock(std::make_unique<ConditionalRegion>("choose")));
    auto* big = cond->addBranch(std::make_unique<BranchRegion>("big"));
    big->condition = sym::logicalAnd(sym::gt(S("N"), Expr(4)), sym::ne(S("M"), Expr(0)));
    State* copy = big->addState("copy");
    auto* xn = copy->add<AccessNode>("X");
    auto* tn = copy->add<AccessNode>("tmp");
    Memlet m = Memlet::simple("X", subset("0:N, 0:3"));
    m.otherSubset = subset("0:N, 0:3:1");
    m.dynamic = true;
    copy->addEdge(*xn, "", *tn, "", m);
    auto* other = cond->addBranch(std::make_unique<BranchRegion>("otherwise"));
    other->addState("nothing");

    auto* e1 = s.addEdge(compute->id(), ops->id());
    e1->assignments.push_back({"k", S("N") * 2});
    e1->assignments.push_back({"j", min(S("k"), Expr(16))});
    e1->setLabel("to_ops");
    s.addEdge(ops->id(), loop->id(), sym::ge(S("N"), Expr(1)));
    s.addEdge(loop->id(), cond->id(), sym::logicalNot(sym::eq(mod(S("k"), Expr(2)), Expr(1))));
  }

  State* buildCompute(Sdfg& s) {
    State* st = s.addState("compute");
    auto* x = st->add<AccessNode>("X");
    auto* w = st->add<AccessNode>("W");
    auto* y = st->add<AccessNode>("Y");
    auto* me = st->add<MapEntry>("map_ij");
    auto* mx = st->add<MapExit>("map_ij_exit");
    me->params = {"i", "j"};
    me->range = subset("0:N, 0:min(N, 3):1");
    me->schedule = Schedule::GpuDevice;
    me->exitId = mx->id();
    mx->entryId = me->id();
    me->addIn({"IN_X"});
    me->addIn({"IN_W"});
    me->addOut({"OUT_X"});
    me->addOut({"OUT_W"});
    mx->addIn({"IN_Y"});
    mx->addOut({"OUT_Y"});
    auto* t = st->add<Tasklet>("mul", "out = a * w");
    t->addIn({"a", DType::Float32});
    t->addIn({"w", DType::Float32});
    t->addOut({"out", DType::Float32});
    st->addEdge(*x, "", *me, "IN_X", Memlet::full("X", {S("N"), Expr(3)}));
    st->addEdge(*w, "", *me, "IN_W", Memlet::full("W", {Expr(3)}));
    st->addEdge(*me, "OUT_X", *t, "a", Memlet::simple("X", subset("i, j")));
    st->addEdge(*me, "OUT_W", *t, "w", Memlet::simple("W", subset("j")));
    Memlet acc = Memlet::simple("Y", subset("i, j"));
    acc.wcr = "(a, b) -> a + b";
    wcrEdge = st->addEdge(*t, "out", *mx, "IN_Y", acc);
    Memlet all = Memlet::full("Y", {S("N"), Expr(3)});
    all.wcr = "sum";
    st->addEdge(*mx, "OUT_Y", *y, "", all);
    return st;
  }

  State* buildOps(Sdfg& s) {
    State* st = s.addState("ops");
    auto* x = st->add<AccessNode>("X");
    auto* y = st->add<AccessNode>("Y");

    // A library node with an owned subgraph and one attribute of every type.
    lib = st->add<LibraryNode>("If_0");
    lib->opType = "If";
    lib->opsetVersion = 16;
    lib->implementation = "pure";
    lib->sourceName = "onnx-node/If:0";
    lib->addIn({"cond", DType::Bool});
    lib->addIn({"X", DType::Float32});
    lib->addIn({"bias", DType::Float32, true});
    lib->addOut({"Y", DType::Float32});
    // One subgraph is filled after it is attached, the other (and the nested SDFG below) before.
    Sdfg* then = lib->addSubgraph("then_branch", std::make_unique<Sdfg>("then_branch"));
    then->addArray("out", DType::Float32, {Expr(3)});
    then->outputs = {"out"};
    State* ts = then->addState("then_state");
    auto* tt = ts->add<Tasklet>("one", "o = 1");
    tt->addOut({"o", DType::Float32});
    auto* on = ts->add<AccessNode>("out");
    ts->addEdge(*tt, "o", *on, "", Memlet::simple("out", subset("0")));
    auto els = std::make_unique<Sdfg>("else_branch");
    State* es = els->addState("else_state");
    auto* et = es->add<Tasklet>("zero", "o = 0");
    et->addOut({"o", DType::Float32});
    els->addArray("out", DType::Float32, {Expr(3)});
    auto* eo = es->add<AccessNode>("out");
    es->addEdge(*et, "o", *eo, "", Memlet::simple("out", subset("1")));
    lib->addSubgraph("else_branch", std::move(els));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    lib->attributes = {
        {"i", int64_t(-7)},
        {"big", std::numeric_limits<int64_t>::min()},
        {"f", 1.0 / 3.0},
        {"tiny", 5e-324},
        {"neg0", -0.0},
        {"whole", 2.0},
        {"fnan", nan},
        {"finf", -inf},
        {"s", std::string("hello \"world\"\n\t✓")},
        {"sbin", std::string("\x80\x81", 2)},
        {"t", floatTensor({2, 2}, {1, 2, 3, 4})},
        {"then_branch", GraphRef{"then_branch"}},
        {"ty", TypeName{"seq(tensor(int64))"}},
        {"is", std::vector<int64_t>{1, -1, 0}},
        {"fs", std::vector<double>{0.1, inf, nan, -1e300}},
        {"ss", std::vector<std::string>{"a", "", std::string("\xc3", 1)}},
        {"ts", std::vector<Tensor>{floatTensor({}, {7}), floatTensor({0}, {})}},
        {"gs", std::vector<GraphRef>{{"then_branch"}, {"else_branch"}}},
        {"tys", std::vector<TypeName>{{"tensor(float)"}, {"optional(tensor(bool))"}}},
        {"empty", std::vector<int64_t>{}},
    };
    auto* condN = st->add<AccessNode>("s");
    st->addEdge(*condN, "", *lib, "cond", Memlet::simple("s", subset("0")));
    st->addEdge(*x, "", *lib, "X", Memlet::full("X", {S("N"), Expr(3)}));
    st->addEdge(*lib, "Y", *y, "", Memlet::full("Y", {S("N"), Expr(3)}));

    // A nested SDFG with its own symbol, mapped from the outside.
    auto inner = std::make_unique<Sdfg>("inner");
    inner->addSymbol("K");
    inner->addArray("A", DType::Float32, {S("K"), Expr(3)});
    inner->inputs = {"A"};
    State* is = inner->addState("inner_state");
    is->add<AccessNode>("A");
    nested = st->add<NestedSdfgNode>("nested", std::move(inner));
    nested->symbolMapping["K"] = S("N") - 1;
    nested->addIn({"A", DType::Float32});
    st->addEdge(*x, "", *nested, "A", Memlet::simple("X", subset("1:N, 0:3")));
    return st;
  }
};

QString dump(const Diagnostics& d) {
  QString s;
  for (auto& x : d.items()) s += QString::fromStdString(x.str()) + "\n";
  return s;
}

struct Entry {
  ElementId id;
  ElementKind kind;
  std::string label;
  bool operator==(const Entry& o) const { return id == o.id && kind == o.kind && label == o.label; }
};

std::vector<Entry> entries(const Sdfg& s) {
  std::vector<Entry> out;
  s.forEachElement([&](const Element& e) { out.push_back({e.id(), e.kind(), e.label()}); });
  return out;
}

std::string readBytes(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll().toStdString();
}

// Replaces the first occurrence of `from` (which must exist) in `text`.
std::string replaceFirst(std::string text, const std::string& from, const std::string& to) {
  auto p = text.find(from);
  if (p == std::string::npos) qFatal("test mutation target not found: %s", from.c_str());
  return text.replace(p, from.size(), to);
}

// Replaces the first `from` after the first `anchor`.
std::string replaceAfter(std::string text, const std::string& anchor, const std::string& from, const std::string& to) {
  auto a = text.find(anchor);
  auto p = a == std::string::npos ? a : text.find(from, a);
  if (p == std::string::npos) qFatal("test mutation target not found: %s", from.c_str());
  return text.replace(p, from.size(), to);
}

// Replaces the JSON array that starts at the first `key` occurrence with `to`.
std::string replaceArray(std::string text, const std::string& key, const std::string& to) {
  auto p = text.find(key);
  if (p == std::string::npos) qFatal("test mutation target not found: %s", key.c_str());
  auto open = text.find('[', p);
  auto close = text.find(']', open);
  return text.replace(open, close - open + 1, to);
}

const QString kGolden = testpaths::qsource("/tests/data/golden/small.dcw.json");
const QString kGoldenCpp = testpaths::qsource("/tests/data/golden/cpp_tasklet.dcw.json");

// What an opaque implementation expands to: Y[N, M] = A[N, K] x B[K, M] in one C++ tasklet that names
// the `onednn` environment and declares its FLOPs, plus a scalar output written with WCR sum.
const char* const kCppCode = "// \"quoted\" and a tab\t\ndnnl_call(A, B, Y);\ncalls = 1;\n";
std::unique_ptr<Sdfg> buildCppTasklet() {
  auto s = std::make_unique<Sdfg>("matmul_onednn");
  for (const char* n : {"N", "K", "M"}) s->addSymbol(n);
  s->addArray("A", DType::Float32, {S("N"), S("K")});
  s->addArray("B", DType::Float32, {S("K"), S("M")});
  s->addArray("Y", DType::Float32, {S("N"), S("M")});
  s->addScalar("calls", DType::Int64);
  s->inputs = {"A", "B"};
  s->outputs = {"Y", "calls"};
  State* st = s->addState("compute");
  auto* t = st->add<Tasklet>("onednn_matmul", kCppCode, TaskletLanguage::Cpp);
  t->environments = {"onednn"};
  t->flops = Expr(2) * S("N") * S("K") * S("M");
  t->inPlace = {{"Y", "A"}};
  t->addIn({"A", DType::Float32});
  t->addIn({"B", DType::Float32});
  t->addOut({"Y", DType::Float32});
  t->addOut({"calls", DType::Int64});
  st->addEdge(*st->add<AccessNode>("A"), "", *t, "A", Memlet::full("A", {S("N"), S("K")}));
  st->addEdge(*st->add<AccessNode>("B"), "", *t, "B", Memlet::full("B", {S("K"), S("M")}));
  st->addEdge(*t, "Y", *st->add<AccessNode>("Y"), "", Memlet::full("Y", {S("N"), S("M")}));
  Memlet c = Memlet::simple("calls", subset("0"));
  c.wcr = "sum";
  st->addEdge(*t, "calls", *st->add<AccessNode>("calls"), "", c);
  return s;
}

} // namespace

class TestSerialization : public QObject {
  Q_OBJECT
private slots:
  // --- base64 -----------------------------------------------------------------------------------

  void base64RoundTrip() {
    const std::string all = [] {
      std::string s;
      for (int i = 0; i < 256; ++i) s += static_cast<char>(i);
      return s;
    }();
    for (size_t n = 0; n <= 7; ++n) {
      std::string in = all.substr(100, n);
      auto d = base64Decode(base64Encode(in));
      QVERIFY(d.ok());
      QCOMPARE(d.bytes, in);
    }
    auto d = base64Decode(base64Encode(all));
    QVERIFY(d.ok());
    QCOMPARE(d.bytes, all);
    QCOMPARE(base64Encode(""), std::string());
    QCOMPARE(base64Encode("f"), std::string("Zg=="));
    QCOMPARE(base64Encode("fo"), std::string("Zm8="));
    QCOMPARE(base64Encode("foo"), std::string("Zm9v"));
    QCOMPARE(base64Encode("foobar"), std::string("Zm9vYmFy"));
    QCOMPARE(base64Decode("Zm9vYg==").bytes, std::string("foob"));
  }

  void base64Errors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("offset");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad char") << "Zm9v!mFy" << 4 << "invalid character '!' at offset 4";
    QTest::newRow("space") << "Zm9 vYmFy" << 3 << "invalid character byte 0x20 at offset 3";
    QTest::newRow("url alphabet") << "Zm9v-_Fy" << 4 << "invalid character '-'";
    QTest::newRow("inner padding") << "Zm=vYmFy" << 2 << "padding '=' at offset 2 is not at the end";
    QTest::newRow("truncated") << "Zm9vYmF" << 7 << "not a multiple of 4";
    QTest::newRow("too much padding") << "Zm9vY===" << 5 << "padding '=' at offset 5";
  }

  void base64Errors() {
    QFETCH(QString, text);
    QFETCH(int, offset);
    QFETCH(QString, message);
    auto d = base64Decode(text.toStdString());
    QVERIFY(!d.ok());
    QCOMPARE(*d.errorOffset, size_t(offset));
    QVERIFY2(QString::fromStdString(d.error).contains(message), d.error.c_str());
    QVERIFY(d.bytes.empty());
  }

  // --- round trips ------------------------------------------------------------------------------

  void fullSdfgValidates() {
    Full f;
    auto d = validate(*f.sdfg);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
  }

  void fullRoundTripIsByteExact() {
    Full f;
    std::string a = toJson(*f.sdfg);
    QCOMPARE(toJson(*f.sdfg), a); // deterministic
    auto loaded = fromJson(a, "full");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    std::string b = toJson(**loaded);
    QCOMPARE(b, a);
    auto d = validate(**loaded);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
    // Twice more, to be sure nothing drifts.
    auto again = fromJson(b, "again");
    QVERIFY(again.ok());
    QCOMPARE(toJson(**again), a);
  }

  void fullRoundTripKeepsStructure() {
    Full f;
    auto loaded = fromJson(toJson(*f.sdfg));
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    const Sdfg& y = **loaded;

    // Same ids, kinds and labels in the same walk order; same next id.
    auto before = entries(*f.sdfg), after = entries(y);
    QCOMPARE(after.size(), before.size());
    QVERIFY(after == before);
    QCOMPARE(y.peekNextId(), f.sdfg->peekNextId());

    // Same path for every element, and paths resolve to the same ids.
    PathIndex pa(*f.sdfg), pb(y);
    QCOMPARE(pb.size(), pa.size());
    for (const auto& e : before) {
      QCOMPARE(pb.pathOf(e.id), pa.pathOf(e.id));
      auto r = resolvePath(y, pa.pathOf(e.id));
      QVERIFY(r.ok());
    }
    QCOMPARE(pathOf(y, f.wcrEdge->id()), pathOf(*f.sdfg, f.wcrEdge->id()));
    QCOMPARE(pathOf(y, f.wcrEdge->id()), std::string("main/compute/mul:out->map_ij_exit:IN_Y"));

    // Constant payloads are equal byte for byte (including the NaN weight and binary strings).
    auto* w = y.findData("W");
    QVERIFY(w && w->constant);
    QCOMPARE(*w->constant->bytes, *f.weights->constant->bytes);
    QVERIFY(*w->constant == *f.weights->constant);
    QCOMPARE(w->sourceName, std::string("onnx::weights.0"));
    auto* names = y.findData("names");
    QVERIFY(names && names->constant && names->constant->strings);
    QCOMPARE(names->constant->strings->at(2), std::string("bin\xff\x00z", 6));
    QVERIFY(*names->constant == *f.sdfg->findData("names")->constant);
    QCOMPARE(y.findData("bytes")->constant->byteSize(), size_t(0));

    // Descriptors.
    auto* v = y.findData("V");
    QCOMPARE(v->dataKind, DataKind::View);
    QCOMPARE(v->offset, S("N") + 1);
    QCOMPARE(v->shape.at(0), floorDiv(S("N"), Expr(2)));
    auto* opt = y.findData("opt");
    QCOMPARE(opt->wrappers, (std::vector<Wrapper>{Wrapper::Optional, Wrapper::Sequence}));
    QCOMPARE(opt->lifetime, Lifetime::External);
    QCOMPARE(opt->dtype, DType::Float16);
    QVERIFY(!y.findData("seq")->rankKnown);
    QCOMPARE(y.findData("tmp")->storage, StorageType::GpuGlobal);
    QCOMPARE(y.findData("s")->dataKind, DataKind::Scalar);
    QCOMPARE(y.symbols().at("M"), DType::Int32);
    QCOMPARE(y.metadata, f.sdfg->metadata);
    QCOMPARE(y.inputs, f.sdfg->inputs);

    // Library node: attributes compare equal (NaN aside), the subgraph is owned and linked.
    auto* lib = dynamic_cast<LibraryNode*>(pb.element(f.lib->id()));
    QVERIFY(lib);
    QCOMPARE(lib->attributes.size(), f.lib->attributes.size());
    for (size_t i = 0; i < lib->attributes.size(); ++i) {
      const auto& a = lib->attributes[i];
      const auto& b = f.lib->attributes[i];
      QCOMPARE(a.name, b.name);
      QCOMPARE(a.type(), b.type());
      if (a.name == "fnan" || a.name == "fs") continue;
      QVERIFY2(a == b, a.name.c_str());
    }
    QVERIFY(std::isnan(std::get<double>(lib->attribute("fnan")->value)));
    QCOMPARE(std::get<double>(lib->attribute("f")->value), 1.0 / 3.0);
    QCOMPARE(std::get<double>(lib->attribute("tiny")->value), 5e-324);
    QVERIFY(std::signbit(std::get<double>(lib->attribute("neg0")->value)));
    auto fs = std::get<std::vector<double>>(lib->attribute("fs")->value);
    QCOMPARE(fs.size(), size_t(4));
    QCOMPARE(fs[0], 0.1);
    QVERIFY(std::isinf(fs[1]) && fs[1] > 0);
    QVERIFY(std::isnan(fs[2]));
    QCOMPARE(fs[3], -1e300);
    QCOMPARE(std::get<std::string>(lib->attribute("sbin")->value), std::string("\x80\x81", 2));
    Sdfg* then = lib->subgraph("then_branch");
    QVERIFY(then);
    QCOMPARE(then->parentNode(), static_cast<Node*>(lib));
    QCOMPARE(then->root(), &y);
    QCOMPARE(lib->implementation, std::string("pure"));
    QCOMPARE(lib->opsetVersion, int64_t(16));
    QVERIFY(lib->findIn("bias")->optional);

    // Nested SDFG: mapping and parent links.
    auto* ns = dynamic_cast<NestedSdfgNode*>(pb.element(f.nested->id()));
    QVERIFY(ns);
    QCOMPARE(ns->symbolMapping.at("K"), S("N") - 1);
    QCOMPARE(ns->sdfg().parentNode(), static_cast<Node*>(ns));
    QCOMPARE(ns->sdfg().root(), &y);

    // Maps and memlets.
    auto* compute = static_cast<State*>(y.blockByLabel("compute"));
    auto* me = dynamic_cast<MapEntry*>(compute->nodeByLabel("map_ij"));
    QVERIFY(me);
    QCOMPARE(me->schedule, Schedule::GpuDevice);
    QCOMPARE(me->params, (std::vector<std::string>{"i", "j"}));
    auto* mx = dynamic_cast<MapExit*>(compute->node(me->exitId));
    QVERIFY(mx);
    QCOMPARE(mx->entryId, me->id());
    QVERIFY(compute->scopeOf().ok());
    auto* edge = compute->edge(f.wcrEdge->id());
    QVERIFY(edge);
    QVERIFY(edge->memlet == f.wcrEdge->memlet);
    QCOMPARE(edge->memlet.wcr, std::string("(a, b) -> a + b"));

    // Control flow.
    auto* loop = dynamic_cast<LoopRegion*>(y.blockByLabel("loop"));
    QVERIFY(loop);
    QCOMPARE(loop->loopVariable, std::string("t"));
    QCOMPARE(loop->condition, sym::lt(S("t"), S("M")));
    QCOMPARE(loop->startBlock(), loop->blockByLabel("body")->id());
    auto* cond = dynamic_cast<ConditionalRegion*>(y.blockByLabel("choose"));
    QVERIFY(cond);
    QCOMPARE(cond->branches().size(), size_t(2));
    QVERIFY(cond->branches()[0]->condition.has_value());
    QVERIFY(!cond->branches()[1]->condition.has_value());
    auto* copy = static_cast<State*>(cond->branches()[0]->blocks().at(0).get());
    QVERIFY(copy->edges().front()->memlet.otherSubset.has_value());
    QVERIFY(copy->edges().front()->memlet.dynamic);
    QCOMPARE(y.startBlock(), y.blockByLabel("compute")->id());
    auto* first = y.edges().at(0).get();
    QCOMPARE(first->label(), std::string("to_ops"));
    QCOMPARE(first->assignments.size(), size_t(2));
    QCOMPARE(first->assignments[1].first, std::string("j"));
    QVERIFY(y.edges().at(1)->condition == sym::ge(S("N"), Expr(1)));

    // New elements get fresh ids after loading.
    auto* added = const_cast<Sdfg&>(y).addState("later");
    QCOMPARE(added->id(), f.sdfg->peekNextId());
  }

  void keepsDeletedIdsRetired() {
    // next_id survives a reload: ids of deleted elements are not handed out again.
    auto s = buildSmall();
    State* extra = s->addState("extra");
    ElementId gone = extra->id();
    (void)s->removeBlock(gone);
    auto loaded = fromJson(toJson(*s));
    QVERIFY(loaded.ok());
    QVERIFY((*loaded)->addState("new")->id() > gone);
  }

  void emptyRegionsAndUnsetLinks() {
    // Not valid (validate complains), but savable work in progress must reload unchanged.
    auto s = std::make_unique<Sdfg>("wip");
    State* st = s->addState("");
    st->setLabel("");
    auto* me = st->add<MapEntry>("");
    me->setLabel("");
    s->addBlock(std::make_unique<LoopRegion>("empty_loop"));
    s->addBlock(std::make_unique<ConditionalRegion>("no_branches"));
    std::string a = toJson(*s);
    QVERIFY(a.find("\"exit\": null") != std::string::npos);
    auto loaded = fromJson(a);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    QCOMPARE(toJson(**loaded), a);
    QCOMPARE((*loaded)->blocks().at(0)->label(), std::string());
  }

  // --- golden file ------------------------------------------------------------------------------

  void goldenFile() {
    std::string built = toJson(*buildSmall());
    if (qEnvironmentVariableIsSet("DCW_UPDATE_GOLDEN")) {
      QVERIFY(saveFile(*buildSmall(), kGolden.toStdString()).ok());
      qInfo("wrote %s", qPrintable(kGolden));
    }
    std::string golden = readBytes(kGolden);
    QVERIFY2(!golden.empty(), qPrintable("missing " + kGolden + " (run with DCW_UPDATE_GOLDEN=1 to create it)"));
    auto loaded = loadFile(kGolden.toStdString());
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    QCOMPARE(toJson(**loaded), golden);
    QCOMPARE(built, golden); // the writer's output for the same SDFG has not changed
    auto d = validate(**loaded);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
  }

  // A C++ tasklet (language, code, environments, declared FLOPs, in-place pairs, array and scalar
  // connectors) round-trips byte for byte through its own golden file, validates, and loads without the
  // optional fields.
  void goldenCppTasklet() {
    std::string built = toJson(*buildCppTasklet());
    if (qEnvironmentVariableIsSet("DCW_UPDATE_GOLDEN")) {
      QVERIFY(saveFile(*buildCppTasklet(), kGoldenCpp.toStdString()).ok());
      qInfo("wrote %s", qPrintable(kGoldenCpp));
    }
    std::string golden = readBytes(kGoldenCpp);
    QVERIFY2(!golden.empty(), qPrintable("missing " + kGoldenCpp + " (run with DCW_UPDATE_GOLDEN=1 to create it)"));
    QCOMPARE(built, golden);
    auto loaded = loadFile(kGoldenCpp.toStdString());
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
    QCOMPARE(toJson(**loaded), golden);
    auto d = validate(**loaded);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
    Tasklet* t = nullptr;
    for (auto& n : (*loaded)->allStates().front()->nodes())
      if (auto* x = dynamic_cast<Tasklet*>(n.get())) t = x;
    QVERIFY(t);
    QCOMPARE(t->language, TaskletLanguage::Cpp);
    QCOMPARE(t->environments, std::vector<std::string>{"onednn"});
    QVERIFY(t->flops);
    QCOMPARE(*t->flops, Expr(2) * S("N") * S("K") * S("M"));
    QCOMPARE(t->code, std::string(kCppCode));
    QVERIFY(golden.find("\"environments\": [\"onednn\"]") != std::string::npos);
    QVERIFY(golden.find("\"flops\": \"") != std::string::npos);
    QCOMPARE(t->inPlace, (std::vector<std::pair<std::string, std::string>>{{"Y", "A"}}));
    QVERIFY(golden.find("\"in_place\": [") != std::string::npos && golden.find("[\"Y\", \"A\"]") != std::string::npos);

    // The fields are optional on load (absent: no environment, FLOPs not declared, nothing in place).
    std::string older = replaceFirst(replaceFirst(replaceFirst(golden, "\"environments\": [\"onednn\"],", ""), "\"flops\": ", "\"flops_\": "),
                                     "\"in_place\": ", "\"in_place_\": ");
    auto o = fromJson(older);
    QVERIFY2(o.ok(), o.ok() ? "" : o.error().str().c_str());
    for (auto& n : (*o)->allStates().front()->nodes())
      if (auto* x = dynamic_cast<Tasklet*>(n.get())) {
        QVERIFY(x->environments.empty());
        QVERIFY(!x->flops);
        QVERIFY(x->inPlace.empty());
      }
    // An in-place pair that is not two names, or that names a connector the tasklet lacks: named and located.
    auto badPair = fromJson(replaceFirst(golden, "[\"Y\", \"A\"]", "[\"Y\"]"));
    QVERIFY(!badPair.ok());
    QVERIFY2(QString::fromStdString(badPair.error().location).endsWith("/in_place/0"), badPair.error().str().c_str());
    auto unknown = fromJson(replaceFirst(golden, "[\"Y\", \"A\"]", "[\"Y\", \"Q\"]"));
    QVERIFY2(unknown.ok(), unknown.ok() ? "" : unknown.error().str().c_str());
    auto unknownIssues = validate(**unknown);
    QVERIFY(unknownIssues.hasErrors());
    QVERIFY2(dump(unknownIssues).contains("lets output 'Y' take the storage of input 'Q', but it has no such input"), qPrintable(dump(unknownIssues)));
    // Malformed: named and located.
    auto bad = fromJson(replaceFirst(golden, "\"environments\": [\"onednn\"]", "\"environments\": [3]"));
    QVERIFY(!bad.ok());
    QVERIFY2(QString::fromStdString(bad.error().location).endsWith("/environments/0"), bad.error().str().c_str());
    auto badFlops = fromJson(replaceFirst(golden, "\"flops\": \"", "\"flops\": \"2 * ) "));
    QVERIFY(!badFlops.ok());
    QVERIFY2(QString::fromStdString(badFlops.error().location).endsWith("/flops"), badFlops.error().str().c_str());
  }

  // --- files ------------------------------------------------------------------------------------

  void saveAndLoadFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string path = dir.filePath("model.dcw.json").toStdString();
    Full f;
    auto r = saveFile(*f.sdfg, path);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp")));
    QCOMPARE(readBytes(QString::fromStdString(path)), toJson(*f.sdfg));
    // Overwriting replaces the file.
    auto small = buildSmall();
    QVERIFY(saveFile(*small, path).ok());
    auto loaded = loadFile(path);
    QVERIFY(loaded.ok());
    QCOMPARE(toJson(**loaded), toJson(*small));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"model.dcw.json"});
  }

  void saveFileFailsCleanly() {
    auto s = buildSmall();
    std::string path = "/nonexistent-dir-dcw/sub/model.dcw.json";
    auto r = saveFile(*s, path);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().location, path);
    // Written through the one atomic writer (core/support/AtomicFile.h), which says why.
    QCOMPARE(r.error().str(), path + ": cannot be written: No such file or directory; check that the folder exists and is writable");
  }

  void loadFileMissing() {
    std::string path = "/nonexistent-dir-dcw/missing.dcw.json";
    auto r = loadFile(path);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().location, path);
    QVERIFY2(QString::fromStdString(r.error().message).contains("No such file or directory"), r.error().str().c_str());
  }

  void loadFileDirectory() {
    QTemporaryDir dir;
    auto r = loadFile(dir.path().toStdString());
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains("directory"), r.error().str().c_str());
  }

  void corruptedFixture() {
    QString path = testpaths::qsource("/tests/data/bad/corrupted.dcw.json");
    DCW_REQUIRE_FIXTURE(path);
    auto r = loadFile(path.toStdString());
    QVERIFY(!r.ok());
    QString msg = QString::fromStdString(r.error().str());
    QVERIFY2(msg.contains("not valid JSON (line "), qPrintable(msg));
    QVERIFY2(msg.contains("truncated"), qPrintable(msg));
    QVERIFY2(QString::fromStdString(r.error().location).startsWith(path + ":"), qPrintable(msg));
  }

  // --- rejections -------------------------------------------------------------------------------

  void rejects_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("location"); // expected to end the diagnostic's location
    QTest::addColumn<QString>("message");  // expected inside the diagnostic's message
    const std::string good = toJson(*buildSmall());
    auto row = [](const char* name, const std::string& text, const char* loc, const char* msg) {
      QTest::newRow(name) << QByteArray::fromStdString(text) << QString::fromUtf8(loc) << QString::fromUtf8(msg);
    };
    const size_t half = good.size() / 2;
    const size_t line = static_cast<size_t>(std::count(good.begin(), good.begin() + static_cast<long>(half), '\n')) + 1;
    const std::string truncLoc = ":" + std::to_string(line) + ":";
    row("truncated", good.substr(0, half), truncLoc.c_str(), "not valid JSON (line ");
    row("truncated hint", good.substr(0, good.size() - 3), "", "unexpected end of input");
    row("not json", "hello, world\n", "<memory>:1:1", "not valid JSON (line 1, column 1)");
    row("garbage later", "{\n \"format\": \"dcw\",\n \"version\": 1 x\n}", "<memory>:3:15", "not valid JSON (line 3, column 15)");
    row("empty", "  \n", "<memory>", "the file is empty");
    row("array", "[1, 2]", ": /", "the document is an array, not a DCW project");
    row("no format", "{\"version\": 1}", ": /", "not a DCW project (it has no \"format\": \"dcw\" tag)");
    row("wrong format", replaceFirst(good, "\"format\": \"dcw\"", "\"format\": \"onnx\""), ": /format",
        "not a DCW project (format 'onnx', expected 'dcw')");
    row("version 99", replaceFirst(good, "\"version\": 1", "\"version\": 99"), ": /version",
        "file format version 99 is newer than this DCW supports (version 1)");
    row("version 0", replaceFirst(good, "\"version\": 1", "\"version\": 0"), ": /version", "version 0 does not exist");
    row("version text", replaceFirst(good, "\"version\": 1", "\"version\": \"1\""), ": /version",
        "\"version\" must be an integer, not a string");
    row("unknown node kind", replaceFirst(good, "\"kind\": \"access\"", "\"kind\": \"foo\""), ": /sdfg/blocks/0/nodes/0",
        "node kind 'foo' is unknown");
    row("unknown block kind", replaceFirst(good, "\"kind\": \"state\"", "\"kind\": \"region\""), ": /sdfg/blocks/0",
        "block kind 'region' is unknown");
    row("missing label", replaceFirst(good, "\"label\": \"compute\",", ""), ": /sdfg/blocks/0",
        "required field \"label\" is missing (expected a string)");
    row("shape type", replaceArray(good, "\"shape\"", "\"N\""), ": /sdfg/data/0/shape",
        "\"shape\" must be an array, not a string");
    row("shape element", replaceArray(good, "\"shape\"", "[7]"), ": /sdfg/data/0/shape/0",
        "an element of \"shape\" (an expression) must be a string, not an integer");
    row("bad subset", replaceFirst(good, "\"subset\": \"i % 2\"", "\"subset\": \"i %% 2\""),
        ": /sdfg/blocks/0/edges/3/memlet/subset", "invalid subset 'i %% 2'");
    row("bad range", replaceFirst(good, "\"range\": \"0:N\"", "\"range\": \"0:N:1:2\""), ": /sdfg/blocks/0/nodes/3/range",
        "invalid subset '0:N:1:2'");
    row("bad condition", replaceFirst(good, "\"condition\": \"", "\"condition\": \"(N > "), ": /sdfg/edges/0/condition",
        "invalid expression '(N > ");
    row("dtype", replaceFirst(good, "\"dtype\": \"float32\"", "\"dtype\": \"float33\""), ": /sdfg/data/0/dtype",
        "dtype 'float33' is unknown");
    row("schedule", replaceFirst(good, "\"schedule\": \"cpu_multicore\"", "\"schedule\": \"gpu\""),
        ": /sdfg/blocks/0/nodes/3/schedule", "schedule 'gpu' is unknown");
    row("bool type", replaceFirst(good, "\"transient\": false", "\"transient\": 0"), ": /sdfg/data/0/transient",
        "\"transient\" must be a boolean, not an integer");
    row("duplicate id", replaceFirst(good, "\"id\": 3,", "\"id\": 2,"), ": /sdfg/data/1/id",
        "id 2 is already used by the element at /sdfg/data/0");
    row("zero id", replaceFirst(good, "\"id\": 2,", "\"id\": 0,"), ": /sdfg/data/0/id", "\"id\" 0 is not a valid id");
    row("negative id", replaceFirst(good, "\"id\": 2,", "\"id\": -2,"), ": /sdfg/data/0/id", "\"id\" -2 is not a valid id");
    row("float id", replaceFirst(good, "\"id\": 2,", "\"id\": 2.5,"), ": /sdfg/data/0/id",
        "must be a positive integer id, not a floating-point number");
    row("huge id", replaceFirst(good, "\"id\": 2,", "\"id\": 18446744073709551615,"), ": /sdfg/data/0/id", "is not a valid id");
    row("next_id small", replaceFirst(good, "\"next_id\": ", "\"next_id\": 2, \"x\": "), ": /next_id",
        "next_id 2 is not greater than the largest id in the file");
    row("edge to missing node", replaceAfter(good, "\"src_conn\"", "\"dst\": ", "\"dst\": 9999, \"x\": "),
        ": /sdfg/blocks/0/edges/0/dst", "edge destination 9999 is not a node of state 'compute'");
    row("start block", replaceFirst(good, "\"start_block\": ", "\"start_block\": 777, \"x\": "), ": /sdfg/start_block",
        "start block 777 is not a block of 'small'");
    row("map exit link", replaceFirst(good, "\"exit\": ", "\"exit\": 2, \"x\": "), ": /sdfg/blocks/0/nodes/3/exit",
        "node 2 is not in state 'compute'");
    row("invalid base64", replaceFirst(good, "\"base64\": \"", "\"base64\": \"!"), ": /sdfg/data/2/constant/base64",
        "invalid base64 data: invalid character '!' at offset 0");
    row("short payload", replaceFirst(good, "\"base64\": \"", "\"base64\": \"AAAA\", \"x\": \""), ": /sdfg/data/2/constant/base64",
        "the tensor holds 3 bytes, but float32 with these dims needs 8");
    row("duplicate data", replaceFirst(good, "\"label\": \"B\"", "\"label\": \"A\""), ": /sdfg/data/1/label",
        "data 'A' is declared twice in SDFG 'small'");
    row("missing memlet", replaceFirst(good, "\"memlet\": {", "\"memlet_\": {"), ": /sdfg/blocks/0/edges/0",
        "required field \"memlet\" is missing (expected an object)");
  }

  void rejects() {
    QFETCH(QByteArray, text);
    QFETCH(QString, location);
    QFETCH(QString, message);
    auto r = fromJson(std::string_view(text.constData(), static_cast<size_t>(text.size())));
    QVERIFY2(!r.ok(), "loaded although it should not");
    QString loc = QString::fromStdString(r.error().location);
    QString msg = QString::fromStdString(r.error().message);
    QString all = QString::fromStdString(r.error().str());
    QVERIFY2(loc.startsWith("<memory>"), qPrintable(all));
    QVERIFY2(location.isEmpty() || loc.endsWith(location) || loc.contains(location), qPrintable(all));
    QVERIFY2(msg.contains(message), qPrintable(all));
    QVERIFY2(!msg.isEmpty(), qPrintable(all));
  }

  void rejectsInterstateEdgeToMissingBlock() {
    std::string good = toJson(*buildSmall());
    // The interstate edge is the last "dst" in the file.
    auto p = good.rfind("\"dst\": ");
    std::string bad = good.substr(0, p) + "\"dst\": 777, \"x\": " + good.substr(p + 7);
    auto r = fromJson(bad, "f.dcw.json");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().location, std::string("f.dcw.json: /sdfg/edges/0/dst"));
    QCOMPARE(r.error().message, std::string("edge destination 777 is not a block of 'small'"));
  }

  void rejectsDeepNesting() {
    // 5000 loops inside each other: refused with a message, not a stack overflow.
    std::string open, close;
    for (int i = 0; i < 5000; ++i) {
      std::string id = std::to_string(i + 2);
      open += "{\"kind\": \"loop\", \"id\": " + id + ", \"label\": \"l" + id +
              "\", \"loop_variable\": \"\", \"init\": \"0\", \"condition\": \"1\", \"update\": \"0\", \"blocks\": [";
      close += "], \"start_block\": null, \"edges\": []}";
    }
    std::string text = "{\"format\": \"dcw\", \"version\": 1, \"next_id\": 10000, \"sdfg\": {\"id\": 1, \"label\": \"m\", "
                       "\"symbols\": {}, \"inputs\": [], \"outputs\": [], \"metadata\": {}, \"data\": [], "
                       "\"start_block\": null, \"edges\": [], \"blocks\": [" + open + close + "]}}";
    auto r = fromJson(text);
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains("nested more than 2200 levels"), r.error().str().c_str());
  }

  void neverCrashesOnDamagedInput() {
    // Every truncation point of a small file and seeded byte flips of the full one: each either loads
    // (and then validates and re-saves) or is refused with a located message.
    auto check = [](const std::string& text) {
      auto r = fromJson(text, "damaged");
      if (r.ok()) {
        (void)validate(**r);
        (void)toJson(**r);
      } else {
        QVERIFY(!r.error().message.empty());
        QVERIFY(QString::fromStdString(r.error().location).startsWith("damaged"));
      }
    };
    std::string small = toJson(*buildSmall());
    for (size_t n = 0; n < small.size(); n += 7) check(small.substr(0, n));
    Full f;
    std::string full = toJson(*f.sdfg);
    std::mt19937 rng(12345);
    const char pool[] = "{}[]\",:0123456789-eE.aznt \n\\/\x80\xff";
    for (int i = 0; i < 1500; ++i) {
      std::string t = full;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < flips; ++k) t[rng() % t.size()] = pool[rng() % (sizeof pool - 1)];
      check(t);
    }
  }
};

QTEST_GUILESS_MAIN(TestSerialization)
#include "tst_Serialization.moc"
