// Structural tests of FoldConstants on the shape arithmetic exporters emit (directly and through a
// journaling editor, undone and redone exactly), and a check that nothing else is folded.
#include "core/edit/Editor.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/onnx/OnnxImporter.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/FoldConstants.h"

#include <onnx/onnx_pb.h>

#include <QtTest>

#include <cstring>

using namespace dcw;
using namespace dcw::ir;

namespace {

::onnx::NodeProto* addNode(::onnx::GraphProto* g, const char* op, std::vector<std::string> in, std::vector<std::string> out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (auto& i : in) n->add_input(i);
  for (auto& o : out) n->add_output(o);
  return n;
}

void addInt64Init(::onnx::GraphProto* g, const char* name, std::vector<int64_t> v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_dims(int64_t(v.size()));
  for (auto x : v) t->add_int64_data(x);
}

// The hand-built graphs leave output types to shape inference, which the checker would refuse.
dcw::onnx::ImportOptions lenient() {
  dcw::onnx::ImportOptions o;
  o.runChecker = false;
  return o;
}

std::vector<std::string> ops(const Sdfg& s) {
  std::vector<std::string> out;
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* l = dynamic_cast<LibraryNode*>(n.get())) out.push_back(l->opType);
  return out;
}

// x:float32[2,3] -> Shape -> Gather(0) -> Concat(-1) -> shape -> Reshape(x, shape) -> Relu -> z.
::onnx::ModelProto shapeChainModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(::onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("y");
  addInt64Init(g, "idx", {0});
  addInt64Init(g, "axes", {0});
  addInt64Init(g, "minus1", {-1});
  addNode(g, "Shape", {"x"}, {"s"});
  addNode(g, "Gather", {"s", "idx"}, {"g"});
  addNode(g, "Concat", {"g", "minus1"}, {"shape"})->add_attribute()->CopyFrom([] {
    ::onnx::AttributeProto a;
    a.set_name("axis");
    a.set_type(::onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  addNode(g, "Reshape", {"x", "shape"}, {"y"});
  addNode(g, "Relu", {"y"}, {"z"});
  g->mutable_output(0)->set_name("z");
  return m;
}

} // namespace

class TestFoldConstants : public QObject {
  Q_OBJECT
private slots:
  void foldsShapeChain() {
    ::onnx::ModelProto m = shapeChainModel();
    auto r = dcw::onnx::importOnnxBytes(m.SerializeAsString(), "fold.onnx", "", lenient());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(ops(*r->sdfg).size(), size_t(5));
    auto report = transforms::foldConstants(*r->sdfg);
    QCOMPARE(report.folded, 3);
    QCOMPARE(ops(*r->sdfg), (std::vector<std::string>{"Reshape", "Relu"}));
    DataDescriptor* shape = r->sdfg->findData("shape");
    QVERIFY(shape && shape->constant);
    std::vector<int64_t> v(2);
    std::memcpy(v.data(), shape->constant->bytes->data(), 16);
    QCOMPARE(v, (std::vector<int64_t>{2, -1}));
    QVERIFY(!r->sdfg->findData("idx") && !r->sdfg->findData("g"));
    auto d = validate(*r->sdfg);
    QVERIFY2(!d.hasErrors(), d.firstError() ? d.firstError()->str().c_str() : "");
  }

  void foldsThroughTheEditor() {
    // The same fold through an editor: one journal that undoes to the imported model exactly and
    // redoes to what the throwaway-editor overload gives.
    auto r = dcw::onnx::importOnnxBytes(shapeChainModel().SerializeAsString(), "fold.onnx", "", lenient());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    auto twin = dcw::onnx::importOnnxBytes(shapeChainModel().SerializeAsString(), "fold.onnx", "", lenient());
    QVERIFY(twin);
    const std::string before = serialize::toJson(*r->sdfg);
    edit::Editor ed(*r->sdfg);
    QCOMPARE(transforms::foldConstants(ed).folded, 3);
    edit::Journal j = ed.takeJournal();
    QVERIFY(j.stats().nodesRemoved > 0 && j.stats().dataRemoved > 0 && j.stats().other > 0);
    const std::string after = serialize::toJson(*r->sdfg);
    QCOMPARE(transforms::foldConstants(*twin->sdfg).folded, 3);
    QCOMPARE(after, serialize::toJson(*twin->sdfg));
    j.undo();
    QCOMPARE(serialize::toJson(*r->sdfg), before);
    j.redo();
    QCOMPARE(serialize::toJson(*r->sdfg), after);
  }

  // The symbols a fold leaves unused go (shape inference's unk__N that sized a folded value); one that
  // only a tasklet reads stays: a dim specialized to a number in every shape, but not in an index
  // expression of tasklet code (a model optimized before its dims were known, run at its real size).
  void keepsSymbolsTaskletsRead() {
    auto r = dcw::onnx::importOnnxBytes(shapeChainModel().SerializeAsString(), "fold.onnx", "", lenient());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    r->sdfg->addSymbol("batch", DType::Int64);
    r->sdfg->addSymbol("unk__9", DType::Int64);
    r->sdfg->allStates().front()->add<Tasklet>("reads_batch", "y = 384 * batch");
    QCOMPARE(transforms::foldConstants(*r->sdfg).folded, 3);
    QVERIFY(r->sdfg->symbols().count("batch"));
    QVERIFY(!r->sdfg->symbols().count("unk__9"));
  }

  void leavesDataDependentWork() {
    ::onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(13);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto* x = g->add_input();
    x->set_name("x");
    auto* tt = x->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(::onnx::TensorProto::INT64);
    tt->mutable_shape()->add_dim()->set_dim_param("N");
    g->add_output()->set_name("y");
    addInt64Init(g, "one", {1});
    addNode(g, "Add", {"x", "one"}, {"y"});
    addNode(g, "Shape", {"x"}, {"s"}); // symbolic shape: not foldable
    auto r = dcw::onnx::importOnnxBytes(m.SerializeAsString(), "nofold.onnx", "", lenient());
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QCOMPARE(transforms::foldConstants(*r->sdfg).folded, 0);
    QCOMPARE(ops(*r->sdfg).size(), size_t(2));
  }
};

QTEST_GUILESS_MAIN(TestFoldConstants)
#include "tst_FoldConstants.moc"
