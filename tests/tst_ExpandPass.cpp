// Tests of the expansion pass: one node or a whole model is lowered to `pure` nested SDFGs, the
// result validates, paths stay stable, and a node without the requested implementation is refused
// with a message naming the node and the op, leaving the model unchanged.
#include "support/TestPaths.h"
#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Validate.h"

#include <QtTest>

using namespace dcw;
using namespace dcw::ir;

namespace {

const std::string kExample = testpaths::source("/resources/examples/tiny_resnet.onnx");

int countLibraryNodes(const Sdfg& s) {
  int n = 0;
  for (State* st : s.allStates())
    for (auto& node : st->nodes()) {
      if (node->kind() == ElementKind::LibraryNode) ++n;
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(node.get())) n += countLibraryNodes(ns->sdfg());
    }
  return n;
}

LibraryNode* firstOp(const Sdfg& s, const std::string& op) {
  for (State* st : s.allStates())
    for (auto& node : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(node.get()); l && l->opType == op) return l;
  return nullptr;
}

} // namespace

class TestExpandPass : public QObject {
  Q_OBJECT
private slots:
  void expandOneNode() {
    auto m = io::loadModel(kExample);
    QVERIFY2(m, m ? "" : m.error().str().c_str());
    LibraryNode* conv = firstOp(*m->sdfg, "Conv");
    QVERIFY(conv);
    const std::string path = pathOf(*m->sdfg, conv->id());
    const int before = countLibraryNodes(*m->sdfg);
    auto r = expansions::expandNode(*m->sdfg, conv->id());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(countLibraryNodes(*m->sdfg), before - 1);
    auto e = resolvePath(*m->sdfg, path);
    QVERIFY(e);
    auto* nested = dynamic_cast<NestedSdfgNode*>(*e);
    QVERIFY2(nested, "the node at the same path is the expansion");
    QCOMPARE(QString::fromStdString(nested->sdfg().metadata.at("expanded_from")), QString("Conv"));
    // A convolution is a map nest (with a WCR accumulation), not a block of code.
    bool wcr = false, map = false;
    for (State* st : nested->sdfg().allStates()) {
      for (auto& n : st->nodes()) map = map || n->kind() == ElementKind::MapEntry;
      for (auto& ed : st->edges()) wcr = wcr || ed->memlet.wcr == "sum";
    }
    QVERIFY(map && wcr);
    auto d = validate(*m->sdfg);
    QVERIFY2(!d.hasErrors(), d.firstError() ? d.firstError()->str().c_str() : "");
  }

  void expandWholeModel() {
    auto m = io::loadModel(kExample);
    QVERIFY(m);
    auto r = expansions::expandAll(*m->sdfg);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(r->expanded, 23);
    QCOMPARE(countLibraryNodes(*m->sdfg), 0);
    auto d = validate(*m->sdfg);
    QVERIFY2(!d.hasErrors(), d.firstError() ? d.firstError()->str().c_str() : "");
  }

  void refusesMissingImplementation() {
    auto m = io::loadModel(kExample);
    QVERIFY(m);
    LibraryNode* conv = firstOp(*m->sdfg, "Conv");
    const ElementId id = conv->id();
    const std::string path = pathOf(*m->sdfg, id);
    auto r = expansions::expandNode(*m->sdfg, id, "hls");
    QVERIFY(!r);
    QString msg = QString::fromStdString(r.error().str());
    QVERIFY2(msg.startsWith(QString::fromStdString(path + " (Conv): op Conv has no 'hls' implementation; available: pure")), qPrintable(msg));
    QCOMPARE(m->sdfg->findElement(id), static_cast<Element*>(conv)); // unchanged
    QVERIFY(!expansions::registry().implementations("", "Conv").empty());
  }

  void everyRegisteredExpansionIsDescribed() {
    for (auto& e : expansions::registry().all()) {
      QVERIFY2(!e.op.empty() && !e.implementation.empty(), e.op.c_str());
      QVERIFY(e.fn);
    }
    QVERIFY(expansions::registry().all().size() > 150);
  }
};

QTEST_GUILESS_MAIN(TestExpandPass)
#include "tst_ExpandPass.moc"
