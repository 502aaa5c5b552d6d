// Structural tests of the `pure` expansions of the recurrent (RNN, GRU, LSTM) and control-flow (If,
// Loop, Scan) families: every ONNX backend node test of these ops goes through the shared conformance
// harness (tests/support/ExpansionTestSupport.h), expanded completely (bodies included): the result
// validates with no library node left, or it is a listed refusal with its exact message (sequences,
// data-dependent shapes). The loops, conditionals, map ranges and WCR sums are checked in detail on
// a few models, and the refusals of bad attributes by message.
// The `onednn` implementations (core/expansions/onednn/Recurrent.cpp): one C++ tasklet calling the
// primitive, its declared work, the ONNX gate order mapped by pieces; and what they refuse, naming the
// node and pointing to pure. (Their numbers against ONNX Runtime and pure: implementation_cases.py.)
#include "tests/support/ExpansionTestSupport.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"

#include <QtTest>

#include <set>

using namespace dcw;
using namespace dcw::ir;

namespace {

// The family: node tests of these ops by folder prefix, without the _expanded variants, expanded
// completely (bodies included).
const testsupport::ExpansionFamily& family() {
  static const testsupport::ExpansionFamily f = [] {
    testsupport::ExpansionFamily f;
    f.nodePrefixes = {"test_rnn_", "test_gru_", "test_lstm_", "test_simple_rnn_", "test_if", "test_loop", "test_scan"};
    f.select = [](const LibraryNode& n) {
      static const std::set<std::string> ops{"RNN", "GRU", "LSTM", "If", "Loop", "Scan"};
      return n.domain.empty() && ops.count(n.opType) > 0;
    };
    f.expandEverything = true;
    using testsupport::refusedOnExpansion;
    f.refusals = {
        // Sequences and optionals are not lowered.
        {"test_if_opt", refusedOnExpansion("output 'outputs_0' is a optional(seq(float32[5])); If with sequence, optional or "
                                           "unknown-rank outputs cannot be expanded")},
        {"test_if_seq", refusedOnExpansion("output 'outputs_0' is a seq(float32[5]); If with sequence, optional or unknown-rank "
                                           "outputs cannot be expanded")},
        {"test_loop13_seq",
         refusedOnExpansion("loop-carried value 'v_initial_0' is seq(float32[]); only tensors of known shape can be carried")},
        {"test_loop16_seq_none", refusedOnExpansion("loop-carried value 'v_initial_0' is optional(seq(float32[])); only "
                                                    "tensors of known shape can be carried")},
        // The body slices with a run-time start: the slice's shape is data-dependent (the Loop node itself
        // expands: loopIsLoopRegion).
        {"test_loop11", refusedOnExpansion("the rank of output 'output' is unknown: its shape is data-dependent")},
    };
    return f;
  }();
  return f;
}

using testsupport::nodesOf;

template <class T>
void blocksOf(const ControlFlowBlock& b, std::vector<const T*>& out) {
  if (auto* t = dynamic_cast<const T*>(&b)) out.push_back(t);
  if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b))
    for (auto& c : r->blocks()) blocksOf<T>(*c, out);
  if (auto* c = dynamic_cast<const ConditionalRegion*>(&b))
    for (auto& br : c->branches()) blocksOf<T>(*br, out);
}
// Control-flow blocks of a kind in an SDFG (not in nested SDFGs).
template <class T>
std::vector<const T*> blocksOf(const Sdfg& s) {
  std::vector<const T*> out;
  for (auto& b : s.blocks()) blocksOf<T>(*b, out);
  return out;
}

LibraryNode* findOp(Sdfg& s, const std::string& op) {
  for (auto [st, l] : nodesOf<LibraryNode>(s))
    if (l->opType == op) return l;
  return nullptr;
}

// The nested SDFG that replaced the node labelled `label` in the root's first state.
const Sdfg* expansionOf(const Sdfg& root, const std::string& label) {
  for (auto [st, ns] : nodesOf<NestedSdfgNode>(root))
    if (ns->label() == label) return &ns->sdfg();
  return nullptr;
}

// The map whose label starts with `label`, with the WCR of the memlets entering its exit.
struct MapInfo {
  MapEntry* entry = nullptr;
  std::set<std::string> wcr;
};
MapInfo findMap(const Sdfg& s, const std::string& label) {
  testsupport::MapInfo found = testsupport::findMap(s, label);
  return {found.entry, found.innerWcr};
}

// A one-op model: float32 inputs and outputs named after the connectors.
struct OneOp {
  std::unique_ptr<Sdfg> sdfg;
  LibraryNode* node = nullptr;
};
OneOp oneOp(const std::string& op, int64_t opset, const std::vector<std::pair<std::string, std::vector<int64_t>>>& ins,
            const std::vector<std::pair<std::string, std::vector<int64_t>>>& outs, std::vector<Attribute> attrs) {
  OneOp m;
  m.sdfg = std::make_unique<Sdfg>("main");
  State* st = m.sdfg->addState("state0");
  auto* ln = st->add<LibraryNode>(op + "_0");
  ln->opType = op;
  ln->opsetVersion = opset;
  ln->attributes = std::move(attrs);
  auto shapeOf = [](const std::vector<int64_t>& d) {
    std::vector<sym::Expr> s;
    for (auto x : d) s.emplace_back(x);
    return s;
  };
  for (auto& [name, dims] : ins) {
    m.sdfg->addArray(name, DType::Float32, shapeOf(dims));
    m.sdfg->inputs.push_back(name);
    auto* a = st->add<AccessNode>(name);
    ln->addIn({name, DType::Float32, false});
    st->addEdge(*a, "", *ln, name, Memlet::full(name, shapeOf(dims)));
  }
  for (auto& [name, dims] : outs) {
    m.sdfg->addArray(name, DType::Float32, shapeOf(dims));
    m.sdfg->outputs.push_back(name);
    auto* a = st->add<AccessNode>(name);
    ln->addOut({name, DType::Float32, false});
    st->addEdge(*ln, name, *a, "", Memlet::full(name, shapeOf(dims)));
  }
  m.node = ln;
  return m;
}

} // namespace

class TestExpansionsRecurrent : public QObject {
  Q_OBJECT
private slots:
  void initTestCase() { DCW_REQUIRE_ONNX_TESTDATA(); }

  void conformance_data() { testsupport::addConformanceRows(family()); }
  void conformance() { testsupport::checkConformanceRow(family()); }
  void coverage() { testsupport::checkCoverage(family()); }

  // LSTM: one loop over the time steps; the gate products are maps with WCR sum into the gates.
  void lstmIsTimeLoopWithWcrProducts() {
    auto m = io::loadModel(testsupport::nodeFolder("test_lstm_defaults") + "/model.onnx"); // X [1, 3, 2], hidden 3
    QVERIFY(m);
    LibraryNode* l = findOp(*m->sdfg, "LSTM");
    QVERIFY(l);
    std::string label = l->label();
    auto r = expansions::expandNode(*m->sdfg, l->id());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QVERIFY(!validate(*m->sdfg).hasErrors());
    const Sdfg* e = expansionOf(*m->sdfg, label);
    QVERIFY(e);
    auto loops = blocksOf<LoopRegion>(*e);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(QString::fromStdString(loops[0]->loopVariable), QString("rt"));
    QCOMPARE(QString::fromStdString(loops[0]->init.str()), QString("0"));
    QCOMPARE(QString::fromStdString(loops[0]->condition.str()), QString("rt < 1"));
    QCOMPARE(QString::fromStdString(loops[0]->update.str()), QString("rt + 1"));
    MapInfo in = findMap(*e, "input_product");
    QVERIFY(in.entry);
    QCOMPARE(QString::fromStdString(in.entry->range.str()), QString("0:3, 0:12, 0:2")); // batch, 4 gates x hidden, input
    QCOMPARE(in.wcr, std::set<std::string>{"sum"});
    MapInfo rec = findMap(*e, "recurrent_product");
    QVERIFY(rec.entry);
    QCOMPARE(QString::fromStdString(rec.entry->range.str()), QString("0:3, 0:12, 0:3"));
    QCOMPARE(rec.wcr, std::set<std::string>{"sum"});
    MapInfo cell = findMap(*e, "cell");
    QVERIFY(cell.entry);
    QCOMPARE(QString::fromStdString(cell.entry->range.str()), QString("0:3, 0:3"));
    QCOMPARE(cell.wcr, std::set<std::string>{""});
    // The cell and the products run inside the loop; the final state is copied out after it.
    bool cellInLoop = false;
    for (auto [st, me] : nodesOf<MapEntry>(*e))
      if (me == cell.entry)
        for (const ControlFlowBlock* p = st->parent(); p; p = p->parent()) cellInLoop |= p == loops[0];
    QVERIFY(cellInLoop);
    QVERIFY(findMap(*e, "final_h").entry);
  }

  // Bidirectional GRU without linear_before_reset: a forward and a reverse loop, each with the second
  // product (r * h) Rh^T.
  void bidirectionalGruHasTwoLoops() {
    auto m = oneOp("GRU", 14, {{"X", {4, 2, 3}}, {"W", {2, 9, 3}}, {"R", {2, 9, 3}}, {"B", {2, 18}}},
                   {{"Y", {4, 2, 2, 3}}, {"Y_h", {2, 2, 3}}},
                   {{"hidden_size", int64_t(3)}, {"direction", std::string("bidirectional")}});
    auto r = expansions::expandNode(*m.sdfg, m.node->id());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    Diagnostics v = validate(*m.sdfg);
    QVERIFY2(!v.hasErrors(), v.hasErrors() ? v.firstError()->str().c_str() : "");
    const Sdfg* e = expansionOf(*m.sdfg, "GRU_0");
    QVERIFY(e);
    auto loops = blocksOf<LoopRegion>(*e);
    QCOMPARE(loops.size(), size_t(2));
    QCOMPARE(QString::fromStdString(loops[0]->init.str()), QString("0"));
    QCOMPARE(QString::fromStdString(loops[1]->init.str()), QString("3"));
    QCOMPARE(QString::fromStdString(loops[1]->condition.str()), QString("rt >= 0"));
    QCOMPARE(QString::fromStdString(loops[1]->update.str()), QString("rt - 1"));
    MapInfo reset = findMap(*e, "reset_product");
    QVERIFY(reset.entry);
    QCOMPARE(QString::fromStdString(reset.entry->range.str()), QString("0:2, 0:3, 0:3"));
    QCOMPARE(reset.wcr, std::set<std::string>{"sum"});
    // z and r use only the first two gate blocks of R before the reset product.
    MapInfo rec = findMap(*e, "recurrent_product");
    QVERIFY(rec.entry);
    QCOMPARE(QString::fromStdString(rec.entry->range.str()), QString("0:2, 0:6, 0:3"));
  }

  void refusals_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad activation") << "RNN" << "activation 'Foo'";
    QTest::newRow("activation count") << "LSTM" << "takes 3";
    QTest::newRow("X of rank 2") << "GRU" << "rank 3";
    QTest::newRow("loop without bound") << "Loop" << "would not end";
  }
  void refusals() {
    QFETCH(QString, op);
    QFETCH(QString, message);
    OneOp m;
    if (op == "RNN")
      m = oneOp("RNN", 14, {{"X", {2, 1, 3}}, {"W", {1, 4, 3}}, {"R", {1, 4, 4}}}, {{"Y_h", {1, 1, 4}}},
                {{"hidden_size", int64_t(4)}, {"activations", std::vector<std::string>{"Foo"}}});
    else if (op == "LSTM")
      m = oneOp("LSTM", 14, {{"X", {2, 1, 3}}, {"W", {1, 16, 3}}, {"R", {1, 16, 4}}}, {{"Y_h", {1, 1, 4}}},
                {{"hidden_size", int64_t(4)}, {"activations", std::vector<std::string>{"Sigmoid", "Tanh"}}});
    else if (op == "GRU")
      m = oneOp("GRU", 14, {{"X", {2, 3}}, {"W", {1, 12, 3}}, {"R", {1, 12, 4}}}, {{"Y_h", {1, 1, 4}}}, {{"hidden_size", int64_t(4)}});
    else
      m = oneOp("Loop", 16, {{"v_initial_0", {2}}}, {{"v_final_and_scan_outputs_0", {2}}}, {});
    auto r = expansions::expandNode(*m.sdfg, m.node->id());
    QVERIFY(!r);
    QVERIFY2(r.error().str().find(message.toStdString()) != std::string::npos, r.error().str().c_str());
  }

  // onednn LSTM: the node becomes one C++ tasklet of the onednn environment calling lstm_forward, with
  // the work of the gate products over all steps (D T B G H (2 (I + H) + 1)); W and R reach the
  // primitive in three pieces each (ONNX i o f c -> oneDNN i f c o: gate i, then f c together, then
  // o), B in six (Wb the same three, Rb summed in the same three), P in three (i o f -> i f o).
  void onednnLstmIsOneTasklet() {
    auto m = oneOp("LSTM", 14, {{"X", {5, 2, 3}}, {"W", {1, 16, 3}}, {"R", {1, 16, 4}}, {"B", {1, 32}}, {"P", {1, 12}}},
                   {{"Y", {5, 1, 2, 4}}, {"Y_h", {1, 2, 4}}}, {{"hidden_size", int64_t(4)}});
    // P is the eighth input: the connectors between B and P are absent (sequence_lens, initial_h/c).
    std::string label = m.node->label();
    QVERIFY(expansions::expandNode(*m.sdfg, m.node->id(), "onednn"));
    QVERIFY(!validate(*m.sdfg).hasErrors());
    const Sdfg* e = expansionOf(*m.sdfg, label);
    QVERIFY(e);
    std::vector<const Tasklet*> tasklets;
    for (auto [st, t] : nodesOf<Tasklet>(*e)) tasklets.push_back(t);
    QCOMPARE(tasklets.size(), size_t(1));
    const Tasklet& t = *tasklets[0];
    QVERIFY(t.language == TaskletLanguage::Cpp);
    QCOMPARE(t.environments, std::vector<std::string>{"onednn"});
    QVERIFY(t.flops);
    QCOMPARE(t.flops->constantValue().value_or(-1), int64_t(5 * 2 * 4 * 4 * (2 * (3 + 4) + 1)));
    QVERIFY2(t.code.find("dnnl::lstm_forward::desc(dnnl::prop_kind::forward_inference, dnnl::rnn_direction::unidirectional_left2right") !=
                 std::string::npos,
             t.code.c_str());
    auto count = [&](const std::string& what) {
      size_t n = 0;
      for (size_t at = t.code.find(what); at != std::string::npos; at = t.code.find(what, at + 1)) ++n;
      return n;
    };
    QCOMPARE(count("Piece{"), size_t(3 + 3 + 6 + 3));
    QCOMPARE(count(", true}"), size_t(3)); // the Rb sums
    // Gate f (oneDNN's second) comes from ONNX's third block of W (offset 2 H I = 24) with c after it.
    QVERIFY2(t.code.find("Piece{view(dims{1, 1, 3, 2, 4}, dims{48, 48, 1, 12, 3}, 24), view(dims{1, 1, 3, 2, 4}, dims{48, 48, 16, 4, 1}, 4), "
                         "false}") != std::string::npos,
             t.code.c_str());
  }

  void onednnRefusals_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("message");
    QTest::newRow("clip") << "LSTM" << "onednn LSTM does not clip the gate pre-activations; this node has clip 2.5";
    QTest::newRow("input_forget") << "LSTM" << "onednn LSTM has no coupled input and forget gates (input_forget = 1)";
    QTest::newRow("GRU activations") << "GRU" << "onednn GRU computes the default activations (sigmoid, tanh); activations are relu, tanh";
    QTest::newRow("RNN activation per direction") << "RNN" << "onednn RNN computes one of Tanh, Relu or Sigmoid for both directions; "
                                                               "activations are tanh, relu";
    QTest::newRow("sequence_lens an input") << "GRU_lens" << "onednn GRU runs all 2 steps for every batch entry; sequence_lens must be "
                                                             "absent or a constant 2 for each";
  }
  void onednnRefusals() {
    QFETCH(QString, op);
    QFETCH(QString, message);
    OneOp m;
    if (op == "LSTM")
      m = oneOp("LSTM", 14, {{"X", {2, 1, 3}}, {"W", {1, 16, 3}}, {"R", {1, 16, 4}}}, {{"Y_h", {1, 1, 4}}},
                {{"hidden_size", int64_t(4)},
                 QTest::currentDataTag() == QString("clip") ? Attribute{"clip", 2.5} : Attribute{"input_forget", int64_t(1)}});
    else if (op == "GRU")
      m = oneOp("GRU", 14, {{"X", {2, 1, 3}}, {"W", {1, 12, 3}}, {"R", {1, 12, 4}}}, {{"Y_h", {1, 1, 4}}},
                {{"hidden_size", int64_t(4)}, {"activations", std::vector<std::string>{"Relu", "Tanh"}}});
    else if (op == "GRU_lens")
      m = oneOp("GRU", 14, {{"X", {2, 1, 3}}, {"W", {1, 12, 3}}, {"R", {1, 12, 4}}, {"B", {1, 24}}, {"sequence_lens", {1}}},
                {{"Y_h", {1, 1, 4}}}, {{"hidden_size", int64_t(4)}});
    else
      m = oneOp("RNN", 14, {{"X", {2, 1, 3}}, {"W", {2, 4, 3}}, {"R", {2, 4, 4}}}, {{"Y_h", {2, 1, 4}}},
                {{"hidden_size", int64_t(4)}, {"direction", std::string("bidirectional")},
                 {"activations", std::vector<std::string>{"Tanh", "Relu"}}});
    auto r = expansions::expandNode(*m.sdfg, m.node->id(), "onednn");
    QVERIFY(!r);
    const std::string type = op.startsWith("GRU") ? "GRU" : op.toStdString();
    QCOMPARE(QString::fromStdString(r.error().location), QString::fromStdString("main/state0/" + type + "_0 (" + type + ")"));
    QCOMPARE(QString::fromStdString(r.error().message), message);
    QVERIFY2(r.error().hint.find("implementation=pure") != std::string::npos, r.error().str().c_str());
  }

  // If: a conditional region reading the bool input; each branch inlines a copy of its body.
  void ifIsConditionalRegion() {
    auto m = io::loadModel(testsupport::nodeFolder("test_if") + "/model.onnx");
    QVERIFY(m);
    LibraryNode* l = findOp(*m->sdfg, "If");
    QVERIFY(l);
    std::string label = l->label();
    QVERIFY(expansions::expandNode(*m->sdfg, l->id()));
    QVERIFY(!validate(*m->sdfg).hasErrors());
    const Sdfg* e = expansionOf(*m->sdfg, label);
    QVERIFY(e);
    auto conds = blocksOf<ConditionalRegion>(*e);
    QCOMPARE(conds.size(), size_t(1));
    QCOMPARE(conds[0]->branches().size(), size_t(2));
    QVERIFY(conds[0]->branches()[0]->condition);
    QCOMPARE(QString::fromStdString(conds[0]->branches()[0]->condition->str()), QString("cond != 0"));
    QVERIFY(!conds[0]->branches()[1]->condition);
    for (auto& br : conds[0]->branches()) {
      int bodies = 0;
      for (auto& b : br->blocks())
        if (auto* st = dynamic_cast<const State*>(b.get()))
          for (auto& n : st->nodes()) bodies += n->kind() == ElementKind::NestedSdfg;
      QCOMPARE(bodies, 1);
    }
    // The bodies' Constant nodes expand in later rounds; the node's own subgraphs are left as they were.
    QVERIFY(findOp(*m->sdfg, "Constant"));
    auto all = expansions::expandAll(*m->sdfg);
    QVERIFY2(all, all ? "" : all.error().str().c_str());
    QVERIFY(!validate(*m->sdfg).hasErrors());
    QVERIFY(nodesOf<LibraryNode>(*m->sdfg).empty());
  }

  // Loop: a loop region bounded by M, the condition and the scan output's rows; the body writes its
  // scan output into row loop_i.
  void loopIsLoopRegion() {
    auto m = io::loadModel(testsupport::nodeFolder("test_loop11") + "/model.onnx");
    QVERIFY(m);
    LibraryNode* l = findOp(*m->sdfg, "Loop");
    QVERIFY(l);
    std::string label = l->label();
    auto r = expansions::expandNode(*m->sdfg, l->id());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    Diagnostics v = validate(*m->sdfg);
    QVERIFY2(!v.hasErrors(), v.hasErrors() ? v.firstError()->str().c_str() : "");
    const Sdfg* e = expansionOf(*m->sdfg, label);
    QVERIFY(e);
    auto loops = blocksOf<LoopRegion>(*e);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(QString::fromStdString(loops[0]->loopVariable), QString("loop_i"));
    auto syms = loops[0]->condition.freeSymbols();
    QVERIFY(syms.count("M") && syms.count("condition") && syms.count("loop_i"));
    bool scanRow = false;
    for (auto [st, ns] : nodesOf<NestedSdfgNode>(*e))
      for (auto* edge : st->outEdges(ns->id()))
        if (edge->memlet.data == "v_final_and_scan_outputs_1")
          scanRow = edge->memlet.subset[0].begin == sym::Expr::symbol("loop_i") && edge->memlet.subset[0].isIndex();
    QVERIFY(scanRow);
  }

  // Scan: a loop over the scan axis with the slices copied in and out by maps.
  void scanIsLoopWithSliceMaps() {
    auto m = io::loadModel(testsupport::nodeFolder("test_scan9_sum") + "/model.onnx"); // x [3, 2]
    QVERIFY(m);
    LibraryNode* l = findOp(*m->sdfg, "Scan");
    QVERIFY(l);
    std::string label = l->label();
    QVERIFY(expansions::expandNode(*m->sdfg, l->id()));
    QVERIFY(!validate(*m->sdfg).hasErrors());
    const Sdfg* e = expansionOf(*m->sdfg, label);
    QVERIFY(e);
    auto loops = blocksOf<LoopRegion>(*e);
    QCOMPARE(loops.size(), size_t(1));
    QCOMPARE(QString::fromStdString(loops[0]->condition.str()), QString("scan_t < 3"));
    MapInfo in = findMap(*e, "scan_in");
    QVERIFY(in.entry);
    QCOMPARE(QString::fromStdString(in.entry->range.str()), QString("0:2"));
    QVERIFY(findMap(*e, "scan_out").entry);
  }
};

QTEST_GUILESS_MAIN(TestExpansionsRecurrent)
#include "tst_ExpansionsRecurrent.moc"
