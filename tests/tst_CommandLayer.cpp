// Tests of the command layer: the journaling editor, the history (undo, redo, jumps, rollback of a
// failing command), the model commands (set, rename, delete), scripts (write, parse, replay,
// errors that name the line and element) and projects (write, parse, refusals of malformed files).
#include "support/TransformTestSupport.h"

#include "core/edit/ScriptSyntax.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"
#include "core/support/Sha256.h"
#include "transforms/ModelCommands.h"
#include "transforms/Project.h"
#include "transforms/Script.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// A command that leaves the model invalid (the input edge of a node removed): what a buggy
// transformation would do. Only a test writes such a command.
class Disconnect : public edit::Command {
public:
  explicit Disconnect(std::string node) : node_(std::move(node)) {}
  std::string scriptLine() const override { return "delete-input " + node_; }
  std::string title() const override { return "Disconnect " + node_; }
  Expected<void> execute(edit::Editor& ed) const override {
    DCW_TRY(auto e, resolvePath(ed.root(), node_));
    auto* n = static_cast<Node*>(e);
    State& st = *n->parent();
    ed.removeEdge(st, st.inEdges(n->id()).front()->id());
    return {};
  }

private:
  std::string node_;
};

} // namespace

class TestCommandLayer : public QObject {
  Q_OBJECT
private slots:
  void editorUndoRedoIsExact() {
    auto m = loadModel(onnxCase("test_relu"), false);
    QVERIFY(m);
    std::string before = serialize::toJson(*m);
    edit::Editor ed(*m);
    State* st = m->allStates().front();
    auto* t = ed.add<Tasklet>(*st, "extra", "y = 1");
    t->addOut({"y"});
    ed.addTransient(*m, "tmp", DType::Float32, {sym::Expr(3)});
    auto* a = ed.add<AccessNode>(*st, "tmp");
    ed.addEdge(*st, *t, "y", *a, "", Memlet::simple("tmp", Subset({Range::index(0)})));
    ed.relabel(*st, "renamed_state");
    ed.removeNode(*st, st->nodes().front()->id());
    std::string after = serialize::toJson(*m);
    QVERIFY(after != before);
    auto j = ed.takeJournal();
    j.undo();
    QCOMPARE(serialize::toJson(*m), before);
    j.redo();
    QCOMPARE(serialize::toJson(*m), after);
    j.undo();
    QCOMPARE(serialize::toJson(*m), before);
  }

  // Nodes and edges taken from the middle of a state come back where they were, in order, however the
  // removals interleave (a removal reports the element after it; see ir/OwnedList.h).
  void editorUndoRestoresOrder() {
    Sdfg s("main");
    State* st = s.addState("state0");
    std::vector<AccessNode*> a;
    for (int i = 0; i < 8; ++i) {
      s.addArray("a" + std::to_string(i), DType::Float32, {sym::Expr(4)}, true);
      a.push_back(st->add<AccessNode>("a" + std::to_string(i)));
    }
    for (int i = 0; i + 1 < 8; ++i) st->addEdge(*a[i], "", *a[i + 1], "", Memlet::full("a" + std::to_string(i), {sym::Expr(4)}));
    auto order = [&] {
      std::vector<std::string> out;
      for (auto& n : st->nodes()) out.push_back(n->label());
      for (auto& e : st->edges()) out.push_back(std::to_string(e->id()) + ":" + std::to_string(e->src) + "->" + std::to_string(e->dst));
      return out;
    };
    const auto before = order();
    edit::Editor ed(s);
    ed.removeNode(*st, a[3]->id());
    ed.removeNode(*st, a[1]->id());
    ed.removeNode(*st, a[7]->id());
    ed.add<AccessNode>(*st, "a3"); // appended, takes the removed node's label
    ed.removeNode(*st, a[4]->id());
    ed.removeNode(*st, a[0]->id());
    const auto after = order();
    QCOMPARE(std::vector<std::string>(after.begin(), after.begin() + 4), (std::vector<std::string>{"a2", "a5", "a6", "a3"}));
    QCOMPARE(after.size(), size_t(5)); // and the one edge left, a5 -> a6
    QCOMPARE(st->nodeByLabel("a3")->parent(), st);
    auto j = ed.takeJournal();
    j.undo();
    QCOMPARE(order(), before);
    QCOMPARE(st->nodeByLabel("a3"), static_cast<Node*>(a[3]));
    QCOMPARE(st->outEdges(a[3]->id()).size(), size_t(1));
    j.redo();
    QCOMPARE(order(), after);
    j.undo();
    QCOMPARE(order(), before);
  }

  void historyJumpsAndRollsBackFailures() {
    auto m = loadModel(onnxCase("test_softmax_axis_1"), false);
    QVERIFY(m);
    std::string s0 = serialize::toJson(*m);
    edit::History h(*m);
    auto lib = allNodes<LibraryNode>(*m).front();
    transforms::Match e{"ExpandLibraryNode", {{"node", pathOf(*lib)}}, {}};
    QVERIFY(h.execute(applyCmd(e)));
    std::string s1 = serialize::toJson(*m);
    auto maps = allNodes<MapEntry>(*m);
    QVERIFY(!maps.empty());
    QVERIFY(h.execute(std::make_unique<transforms::SetProperty>(pathOf(*maps[0]), "schedule", "sequential")));
    std::string s2 = serialize::toJson(*m);
    // A command that fails leaves no trace.
    auto bad = h.execute(std::make_unique<transforms::SetProperty>(pathOf(*maps[0]), "schedule", "warp"));
    QVERIFY(!bad);
    QVERIFY(QString::fromStdString(bad.error().str()).contains("'warp' is not a valid schedule"));
    QCOMPARE(h.size(), size_t(2));
    QCOMPARE(serialize::toJson(*m), s2);
    h.jumpTo(0);
    QCOMPARE(serialize::toJson(*m), s0);
    h.jumpTo(2);
    QCOMPARE(serialize::toJson(*m), s2);
    h.undo();
    QCOMPARE(serialize::toJson(*m), s1);
    // A new command after an undo drops the undone step and gets the same ids a fresh replay would.
    QVERIFY(h.execute(std::make_unique<transforms::SetProperty>(pathOf(*maps[0]), "schedule", "cpu_multicore")));
    QCOMPARE(h.size(), size_t(2));
    QVERIFY(!h.canRedo());
  }

  void modelCommandsCheckTheirInput() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    edit::History h(*m);
    auto r1 = h.execute(std::make_unique<transforms::Rename>("main/nowhere", "x"));
    QVERIFY(!r1);
    QVERIFY(QString::fromStdString(r1.error().str()).contains("main/nowhere"));
    auto node = allNodes<NestedSdfgNode>(*m).front();
    auto r2 = h.execute(std::make_unique<transforms::Rename>(pathOf(*node), "a/b"));
    QVERIFY(!r2);
    QVERIFY(QString::fromStdString(r2.error().str()).contains("cannot be a label"));
    QVERIFY(h.execute(std::make_unique<transforms::Rename>(pathOf(*node), "my_relu")));
    QCOMPARE(QString::fromStdString(node->label()), QString("my_relu"));
    auto r3 = h.execute(std::make_unique<transforms::Delete>("main/@x"));
    QVERIFY(!r3);
    QVERIFY(QString::fromStdString(r3.error().str()).contains("only transient data"));
    auto r4 = h.execute(std::make_unique<transforms::SetProperty>(pathOf(*node), "schedule", "sequential"));
    QVERIFY(!r4);
    QVERIFY(QString::fromStdString(r4.error().str()).contains("has no settable property 'schedule'"));
    auto maps = allNodes<MapEntry>(*m);
    QVERIFY(h.execute(std::make_unique<transforms::Delete>(pathOf(*maps[0]))));
    QVERIFY(allNodes<MapEntry>(*m).empty());
    h.undo();
    QCOMPARE(allNodes<MapEntry>(*m).size(), maps.size());
  }

  void scriptSyntax() {
    auto t = edit::tokenizeLine("apply T a=\"x y\" b=1   # note", "s:1");
    QVERIFY(t);
    QCOMPARE(t->size(), size_t(4));
    QCOMPARE(QString::fromStdString((*t)[2].value), QString("x y"));
    QVERIFY(!edit::tokenizeLine("apply \"open", "s:2"));
    QCOMPARE(QString::fromStdString(edit::quoteValue("a b\"c")), QString("\"a b\\\"c\""));
    QCOMPARE(QString::fromStdString(sha256Hex("abc")),
             QString("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(QString::fromStdString(sha256Hex(std::string(1000, 'a'))),
             QString("41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"));
  }

  void scriptRoundTripReplaysByteIdentical() {
    const std::string path = onnxCase("test_softmax_axis_1");
    auto m = loadModel(path, false);
    QVERIFY(m);
    edit::History h(*m);
    auto lib = allNodes<LibraryNode>(*m).front();
    QVERIFY(h.execute(applyCmd({"ExpandLibraryNode", {{"node", pathOf(*lib)}}, {{"implementation", "pure"}}})));
    auto maps = allNodes<MapEntry>(*m);
    QVERIFY(h.execute(applyCmd({"MapTiling", {{"entry", pathOf(*maps.back())}}, {{"tile_sizes", "2"}}})));
    QVERIFY(h.execute(std::make_unique<transforms::SetProperty>(pathOf(*maps.front()), "schedule", "sequential")));
    QVERIFY(h.execute(std::make_unique<transforms::Rename>(pathOf(*allNodes<NestedSdfgNode>(*m).front()), "soft max")));
    auto sha = sha256File(path);
    QVERIFY(sha);
    std::string text = transforms::writeScript(h, path, *sha);
    QVERIFY(text.find("dcw-script 1\n") != std::string::npos);
    QVERIFY(text.find("rename ") != std::string::npos);

    auto fresh = loadModel(path, false);
    auto script = transforms::parseScript(text, "s.dcws");
    QVERIFY2(script, script ? "" : script.error().str().c_str());
    QCOMPARE(QString::fromStdString(script->sha256), QString::fromStdString(*sha));
    QCOMPARE(script->steps.size(), size_t(4));
    edit::History h2(*fresh);
    auto r = transforms::replay(*script, h2, "s.dcws");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(serialize::toJson(*fresh), serialize::toJson(*m));
    // Written again, the script is the same text.
    QCOMPARE(transforms::writeScript(h2, path, *sha), text);
  }

  // A replay validates once after its steps; a step that left the model invalid is found again and
  // reported with its line (the steps after it ran, and are undone with it), as step-by-step
  // validation reported it.
  void replayNamesTheStepThatLeftTheModelInvalid() {
    auto m = loadModel(onnxCase("test_relu"), false);
    QVERIFY(m);
    const std::string before = serialize::toJson(*m);
    const std::string lib = pathOf(*allNodes<LibraryNode>(*m).front());
    transforms::Script s;
    s.steps.push_back({3, std::make_unique<transforms::SetProperty>(lib, "implementation", "pure")});
    s.steps.push_back({4, std::make_unique<Disconnect>(lib)});
    s.steps.push_back({5, std::make_unique<transforms::Rename>(lib, "renamed")});
    edit::History h(*m);
    auto r = transforms::replay(s, h, "t.dcws");
    QVERIFY(!r);
    const QString msg = QString::fromStdString(r.error().str());
    QVERIFY2(msg.startsWith("t.dcws:4:") && msg.contains("'delete-input " + QString::fromStdString(lib) + "' would leave the model invalid"),
             qPrintable(msg));
    QCOMPARE(serialize::toJson(*m), before);
    QCOMPARE(h.size(), size_t(0));
    QVERIFY(h.validateEachStep); // restored
  }

  void scriptErrorsNameLineAndElement() {
    const std::string path = onnxCase("test_relu");
    auto m = loadModel(path, false);
    QVERIFY(m);
    std::string before = serialize::toJson(*m);
    auto lib = allNodes<LibraryNode>(*m).front();
    std::string text = "dcw-script 1\nmodel x.onnx\n# comment\napply ExpandLibraryNode node=" + pathOf(*lib) +
                       "\napply MapTiling entry=main/state0/nothing_here tile_sizes=4\n";
    auto s = transforms::parseScript(text, "t.dcws");
    QVERIFY(s);
    edit::History h(*m);
    auto r = transforms::replay(*s, h, "t.dcws");
    QVERIFY(!r);
    QString msg = QString::fromStdString(r.error().str());
    QVERIFY2(msg.startsWith("t.dcws:5:"), qPrintable(msg));
    QVERIFY2(msg.contains("main/state0/nothing_here"), qPrintable(msg));
    QVERIFY2(msg.contains("slot 'entry'"), qPrintable(msg));
    QCOMPARE(serialize::toJson(*m), before); // nothing half-applied
    QCOMPARE(h.size(), size_t(0));

    auto bad1 = transforms::parseScript("apply X\n", "u.dcws");
    QVERIFY(!bad1);
    QVERIFY(QString::fromStdString(bad1.error().str()).startsWith("u.dcws:1: a DCW script starts with"));
    auto bad2 = transforms::parseScript("dcw-script 1\nfrobnicate a\n", "u.dcws");
    QVERIFY(!bad2);
    QVERIFY(QString::fromStdString(bad2.error().str()).contains("u.dcws:2: unknown command 'frobnicate'"));
    auto bad3 = transforms::parseScript("dcw-script 1\napply NoSuch x=1\n", "u.dcws");
    QVERIFY(!bad3);
    QVERIFY(QString::fromStdString(bad3.error().str()).contains("no transformation is called 'NoSuch'"));
    auto bad4 = transforms::parseScript("dcw-script 9\n", "u.dcws");
    QVERIFY(!bad4);
    QVERIFY(QString::fromStdString(bad4.error().str()).contains("version 9"));
  }

  void projectRoundTrip() {
    transforms::Project p;
    p.model = "/work/models/m.onnx";
    p.sha256 = "00ff";
    p.steps = {{"apply ExpandLibraryNode node=main/state0/Conv_0"}, {"set main/state0/map schedule=sequential", "delete \"a b\""}};
    p.position = 1;
    const std::string text = transforms::projectText(p, "/work/models/m.dcwproj");
    QVERIFY2(text.find("\"model\": \"m.onnx\"") != std::string::npos, text.c_str()); // relative beside the project
    auto back = transforms::parseProject(text, "/work/models/m.dcwproj");
    QVERIFY2(back, back ? "" : back.error().str().c_str());
    QCOMPARE(QString::fromStdString(back->model), QString::fromStdString(p.model));
    QCOMPARE(back->sha256, p.sha256);
    QCOMPARE(back->steps, p.steps);
    QCOMPARE(back->position, p.position);
  }

  // Malformed projects are refused with a message, never an exception. In the rows marked "threw" a
  // nlohmann::json::type_error escaped loadProject before (the app terminated on opening such a file);
  // the inputs are kept as seeds of tests/fuzz/FuzzProject.cpp in tests/fuzz/corpus/project/.
  void projectLoadErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QString head = R"({"format": "dcwproj", "version": 1, )";
    QTest::newRow("not JSON") << "{" << "p.dcwproj: is corrupt: cut short after 1 bytes";
    QTest::newRow("array") << "[1]" << R"(p.dcwproj: is not a DCW project (no "format": "dcwproj"))";
    QTest::newRow("threw: format a number") << R"({"format": 1})" << R"(p.dcwproj: is not a DCW project (no "format": "dcwproj"))";
    QTest::newRow("no version") << R"({"format": "dcwproj"})" << R"(p.dcwproj: is corrupt: "version" is missing or not a whole number)";
    QTest::newRow("threw: version a string") << R"({"format": "dcwproj", "version": "1"})"
                                             << R"(p.dcwproj: is corrupt: "version" is missing or not a whole number)";
    QTest::newRow("deep version") << R"({"format": "dcwproj", "version": )" + QString(100000, '[') + QString(100000, ']') + "}"
                                  << R"(p.dcwproj: is corrupt: "version" is missing or not a whole number)";
    QTest::newRow("version 2") << R"({"format": "dcwproj", "version": 2})" << "p.dcwproj: was written by a newer DCW (format version 2; this one reads 1)";
    QTest::newRow("version 1.0") << R"({"format": "dcwproj", "version": 1.0})" << R"(p.dcwproj: is corrupt: "version" is missing or not a whole number)";
    QTest::newRow("no model") << head + R"("position": 0, "steps": []})"
                              << R"(p.dcwproj: is corrupt: "model" is missing or malformed)";
    QTest::newRow("sha256 a number") << head + R"("model": "m.onnx", "sha256": 5, "position": 0, "steps": []})"
                                            << R"(p.dcwproj: is corrupt: "sha256" is missing or malformed)";
    QTest::newRow("negative position") << head + R"("model": "m.onnx", "position": -1, "steps": []})"
                                       << R"(p.dcwproj: is corrupt: "position" is missing or malformed)";
    QTest::newRow("position past") << head + R"("model": "m.onnx", "position": 2, "steps": [["delete a"]]})"
                                   << "p.dcwproj: is corrupt: its position (2) is past its last step (1)";
    QTest::newRow("steps an object") << head + R"("model": "m.onnx", "position": 0, "steps": {}})"
                                     << R"(p.dcwproj: is corrupt: "steps" is missing or malformed)";
    QTest::newRow("step a string") << head + R"("model": "m.onnx", "position": 0, "steps": ["delete a"]})"
                                   << R"(p.dcwproj: is corrupt: "steps" is missing or malformed)";
    QTest::newRow("line a number") << head + R"("model": "m.onnx", "position": 0, "steps": [["delete a"], ["delete b", 7]]})"
                                   << R"(p.dcwproj: is corrupt: "steps" is missing or malformed)";
  }

  void projectLoadErrors() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    auto p = transforms::parseProject(text.toStdString(), "p.dcwproj");
    QVERIFY(!p);
    const QString got = QString::fromStdString(p.error().location + ": " + p.error().message);
    QVERIFY2(got.startsWith(message), qPrintable(got));
  }

  void matcherFindsAndExplains() {
    auto m = loadModel(onnxCase("test_relu"), false);
    QVERIFY(m);
    auto lib = allNodes<LibraryNode>(*m).front();
    transforms::MatchQuery q;
    q.anchors = {lib};
    auto c = transforms::findCandidates(transforms::TransformationRegistry::instance(), *m, q);
    QVERIFY(!c.empty());
    QCOMPARE(QString::fromStdString(c.front().match.transformation), QString("ExpandLibraryNode"));
    QVERIFY(c.front().applicable);
    // A MapTiling option that does not fit says why.
    QVERIFY(loadModel(onnxCase("test_relu")));
    auto e = loadModel(onnxCase("test_relu"));
    auto maps = allNodes<MapEntry>(*e);
    transforms::Match mt{"MapTiling", {{"entry", pathOf(*maps[0])}}, {{"tile_sizes", "4,4,4,4,4,4,4"}}};
    Diagnostics why;
    QVERIFY(!transforms::TransformationRegistry::instance().find("MapTiling")->canApply(mt, *e, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("sizes for a map of"));
  }
};

QTEST_APPLESS_MAIN(TestCommandLayer)
#include "tst_CommandLayer.moc"
