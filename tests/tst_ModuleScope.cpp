// Module groups as addresses (core/ir/ModulePath.h, transforms/ModuleScope.h): module paths read from
// op names, `main/state0/module:block1` resolved to the ops of the group, `set` and `apply` over a
// group as one undoable step (structure, numbers, undo/redo), scripts that say so replaying to the
// same model, and the refusals, each naming the address and what exists.
#include "support/TestPaths.h"
#include "support/TransformTestSupport.h"

#include "core/ir/ModulePath.h"
#include "transforms/ModelCommands.h"
#include "transforms/ModuleScope.h"
#include "transforms/Script.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kTinyResnet = testpaths::source("/resources/examples/tiny_resnet.onnx");

std::vector<std::string> labels(const std::vector<Node*>& nodes) {
  std::vector<std::string> out;
  for (Node* n : nodes) out.push_back(n->label());
  return out;
}

std::unique_ptr<edit::Command> parse(const std::string& line) {
  auto c = transforms::parseCommand(line, "test:1");
  if (!c) qWarning("%s", c.error().str().c_str());
  return c ? std::move(*c) : nullptr;
}

// The library nodes of the model's first state, with their implementation.
std::map<std::string, std::string> implementations(const Sdfg& s) {
  std::map<std::string, std::string> out;
  for (auto& n : s.allStates().front()->nodes())
    if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) out[l->label()] = l->implementation;
  return out;
}

} // namespace

class TestModuleScope : public QObject {
  Q_OBJECT
private slots:
  void modulePathsFromNodeNames() {
    using V = std::vector<std::string>;
    QCOMPARE(modulePath("/encoder/layer.3/attention/self/MatMul"), V({"encoder", "layer.3", "attention", "self"}));
    QCOMPARE(modulePath("encoder.layers.0.self_attn.MatMul"), V({"encoder", "layers.0", "self_attn"}));
    QCOMPARE(modulePath("layer1.layer1.0.conv1.Conv"), V({"layer1", "layer1.0", "conv1"}));
    QCOMPARE(modulePath("/Flatten"), V());
    QCOMPARE(modulePath("Conv_12"), V());
    QCOMPARE(modulePath("p2o.Conv.0"), V());
  }

  void addresses() {
    QCOMPARE(moduleAddress("main/state0", "encoder/layer.3"), std::string("main/state0/module:encoder/layer.3"));
    auto a = parseModuleAddress("main/state0/module:encoder/layer.3");
    QVERIFY(a);
    QCOMPARE(a->state, std::string("main/state0"));
    QCOMPARE(a->module, std::string("encoder/layer.3"));
    QVERIFY(!parseModuleAddress("main/state0/block1.conv1.Conv"));
    QVERIFY(!parseModuleAddress("module:block1")); // no state
  }

  // tiny_resnet's ops are named /stem/stem.0/Conv, /block1/conv1/Conv, /block2/downsample/downsample.0/Conv...
  void modulesOfAState() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    State* st = m->allStates().front();
    std::vector<std::string> seen;
    for (auto& g : modulesOf(*st)) seen.push_back(g.module + " " + std::to_string(g.ops) + " " + std::to_string(g.depth));
    QCOMPARE(seen, std::vector<std::string>({"stem 4 0", "block1 7 0", "block2 9 0", "block2/downsample 2 1"}));
    QCOMPARE(modulesOf(*st)[1].address, std::string("main/state0/module:block1"));
    // moduleGroups: the same groups, each with the ops moduleMembers gives for its address.
    auto groups = moduleGroups(*st);
    QCOMPARE(groups.size(), size_t(4));
    for (auto& g : groups) {
      auto members = moduleMembers(*m, g.info.address);
      QVERIFY(members);
      QCOMPARE(labels(g.members), labels(*members));
      QCOMPARE(int(g.members.size()), g.info.ops);
    }
  }

  void membersAndRefusals() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    auto block1 = moduleMembers(*m, "main/state0/module:block1");
    QVERIFY(block1);
    QCOMPARE(labels(*block1), std::vector<std::string>({"block1.conv1.Conv", "block1.bn1.BatchNormalization", "block1.relu.Relu",
                                                         "block1.conv2.Conv", "block1.bn2.BatchNormalization", "block1.Add",
                                                         "block1.relu_1.Relu"}));
    auto down = moduleMembers(*m, "main/state0/module:block2/downsample/");
    QVERIFY(down);
    QCOMPARE(down->size(), size_t(2));

    auto none = moduleMembers(*m, "main/state0/module:block9");
    QVERIFY(!none);
    QCOMPARE(none.error().location, std::string("main/state0/module:block9"));
    QVERIFY2(none.error().message.find("no op of main/state0 is in module 'block9'") != std::string::npos, none.error().message.c_str());
    QVERIFY2(none.error().hint.find("block1, block2") != std::string::npos, none.error().hint.c_str());
    auto deeper = moduleMembers(*m, "main/state0/module:block2/conv9");
    QVERIFY(!deeper);
    QVERIFY2(deeper.error().hint.find("block2/conv1, block2/conv2") != std::string::npos, deeper.error().hint.c_str());
    auto state = moduleMembers(*m, "main/nowhere/module:block1");
    QVERIFY(!state);
    QVERIFY2(state.error().message.find("the state of this module address does not exist") != std::string::npos, state.error().message.c_str());
    auto empty = moduleMembers(*m, "main/state0/module:");
    QVERIFY(!empty);
    // One element's path expected: the refusal says that this names a group.
    auto one = resolvePath(*m, "main/state0/module:block1");
    QVERIFY(!one);
    QVERIFY2(one.error().message.find("names the module group 'block1'") != std::string::npos, one.error().message.c_str());
  }

  // `set` over a group: every op of block1 gets the implementation, nothing outside it; one undo step.
  void setOverAModule() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    const std::string before = serialize::toJson(*m);
    edit::History h(*m);
    auto r = h.execute(parse("set main/state0/module:block1 implementation=pure"));
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(h.size(), size_t(1));
    QCOMPARE(h.command(0).title(), std::string("Set implementation of module block1 to pure"));
    for (auto& [label, impl] : implementations(*m))
      QCOMPARE(impl, label.rfind("block1.", 0) == 0 ? std::string("pure") : std::string());
    h.jumpTo(0);
    QCOMPARE(serialize::toJson(*m), before);

    // No op of the group takes the value: refused, naming the group and the first op's reason.
    auto bad = h.execute(parse("set main/state0/module:block1 implementation=winograd"));
    QVERIFY(!bad);
    QCOMPARE(bad.error().location, std::string("main/state0/module:block1"));
    QVERIFY2(bad.error().message.find("none of the 7 ops of this module group takes implementation=winograd") != std::string::npos,
             bad.error().message.c_str());
    QVERIFY2(bad.error().message.find("block1.conv1.Conv") != std::string::npos, bad.error().message.c_str());
    auto schedule = h.execute(parse("set main/state0/module:block1 schedule=sequential"));
    QVERIFY(!schedule);
    QVERIFY2(schedule.error().message.find("has no settable property 'schedule'") != std::string::npos, schedule.error().message.c_str());
    QCOMPARE(serialize::toJson(*m), before);
    // rename and delete take one element.
    auto rename = h.execute(parse("rename main/state0/module:block1 b1"));
    QVERIFY(!rename);
    QVERIFY2(rename.error().message.find("names the module group") != std::string::npos, rename.error().message.c_str());
  }

  // `apply` over a group: ExpandLibraryNode at each of block1's ops, numbers unchanged, undo exact.
  void expandAModule() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(parse("apply ExpandLibraryNode node=main/state0/module:block1 implementation=pure"));
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    // Applied again (redo left it applied): block1's ops are expanded, the others are still library nodes.
    auto left = implementations(*m);
    QCOMPARE(int(left.size()), 23 - 7);
    for (auto& [label, impl] : left) QVERIFY2(label.rfind("block1.", 0) != 0, label.c_str());
    QVERIFY(sameNumbersAsImported(kTinyResnet, *m, 1e-4));
  }

  // A pattern of several slots: the slot given by the group, the others found inside it.
  void foldBatchNormsOfAModule() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(parse("apply ConvBatchNormFolding conv=main/state0/module:block2"));
    QVERIFY(checkSteps(*m, std::move(steps), 0, false));
    auto left = implementations(*m);
    // block2's three BatchNormalizations (downsample.1, bn1, bn2) are gone; stem's and block1's remain.
    int bn = 0;
    for (auto& [label, impl] : left) {
      QVERIFY2(!(label.rfind("block2.", 0) == 0 && label.find("BatchNormalization") != std::string::npos), label.c_str());
      bn += label.find("BatchNormalization") != std::string::npos;
    }
    QCOMPARE(bn, 3);

    edit::History h(*m);
    auto again = h.execute(parse("apply ConvBatchNormFolding conv=main/state0/module:block2"));
    QVERIFY(!again); // nothing left to fold there
    QCOMPARE(again.error().location, std::string("main/state0/module:block2"));
    QVERIFY2(again.error().message.find("ConvBatchNormFolding applies to no op of this module group; the first: "
                                        "main/state0/block2.downsample.downsample.0.Conv: the Conv's result does not go to an ONNX "
                                        "BatchNormalization node") != std::string::npos,
             again.error().message.c_str());
    auto maps = h.execute(parse("apply MapTiling entry=main/state0/module:block2")); // its ops are library nodes, not maps
    QVERIFY(!maps);
    QVERIFY2(maps.error().message.find("no op of this module group fits MapTiling's pattern") != std::string::npos, maps.error().message.c_str());
    auto two = h.execute(parse("apply ConvBatchNormFolding conv=main/state0/module:block1 bn=main/state0/module:block1"));
    QVERIFY(!two);
    QVERIFY2(two.error().message.find("both name a module group") != std::string::npos, two.error().message.c_str());
    QVERIFY(sameNumbersAsImported(kTinyResnet, *m, 1e-4));
  }

  // What the panel and `dcw transforms --at` offer for a group, and canApply for a group's match.
  void candidatesOverAModule() {
    auto m = loadModel(kTinyResnet, false);
    QVERIFY(m);
    const std::string address = "main/state0/module:block1";
    auto members = moduleMembers(*m, address);
    QVERIFY(members);
    transforms::MatchQuery q;
    q.anchors.assign(members->begin(), members->end());
    auto groups = transforms::moduleCandidates(transforms::findCandidates(transforms::TransformationRegistry::instance(), *m, q), address, *m);
    std::map<std::string, size_t> places;
    for (auto& g : groups) {
      places[g.match.str()] = g.places;
      QVERIFY(transforms::canApplyMatch(*g.transformation, g.match, *m, nullptr));
    }
    QCOMPARE(places["ExpandLibraryNode node=main/state0/module:block1"], size_t(7));
    QCOMPARE(places["ConvBatchNormFolding conv=main/state0/module:block1"], size_t(2));
    QCOMPARE(transforms::touchedElements(groups.front().match, *m).size(), size_t(7));
    Diagnostics why;
    const auto* fold = transforms::TransformationRegistry::instance().find("ConvBatchNormFolding");
    QVERIFY(!transforms::canApplyMatch(*fold, transforms::Match{"ConvBatchNormFolding", {{"conv", "main/state0/module:nothing"}}, {}}, *m, &why));
    QVERIFY(why.firstError() && why.firstError()->message.find("is in module 'nothing'") != std::string::npos);
  }

  // A script line over a group replays to the same model as the steps one op at a time.
  void scriptReplaysTheSameModel() {
    auto direct = loadModel(kTinyResnet, false);
    auto scripted = loadModel(kTinyResnet, false);
    QVERIFY(direct && scripted);
    {
      edit::History h(*direct);
      for (const char* node : {"block1.conv1.Conv", "block1.bn1.BatchNormalization", "block1.relu.Relu", "block1.conv2.Conv",
                               "block1.bn2.BatchNormalization", "block1.Add", "block1.relu_1.Relu"})
        QVERIFY(h.execute(parse(std::string("set main/state0/") + node + " implementation=pure")));
    }
    edit::History h(*scripted);
    auto s = transforms::parseScript("dcw-script 1\nmodel tiny_resnet.onnx\nset main/state0/module:block1 implementation=pure\n", "g.dcws");
    QVERIFY(s);
    auto r = transforms::replay(*s, h, "g.dcws");
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(serialize::toJson(*scripted), serialize::toJson(*direct));
    // Written back, the history says the same line.
    QVERIFY(transforms::writeScript(h, "tiny_resnet.onnx", "").find("\nset main/state0/module:block1 implementation=pure\n") !=
            std::string::npos);
    // A bad group in a script fails at its line.
    edit::History h2(*direct);
    auto bad = transforms::parseScript("dcw-script 1\nset main/state0/module:block7 implementation=pure\n", "b.dcws");
    QVERIFY(bad);
    auto failed = transforms::replay(*bad, h2, "b.dcws");
    QVERIFY(!failed);
    QCOMPARE(failed.error().location, std::string("b.dcws:2"));
    QVERIFY2(failed.error().message.find("module 'block7'") != std::string::npos, failed.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(TestModuleScope)
#include "tst_ModuleScope.moc"
