// Editor: the one way a command changes a model (the IR's own mutators are for IR under
// construction; its journal primitives need the editor's JournalKey, core/ir/JournalKey.h). Every
// change is a primitive edit — add or remove a
// node, edge, data descriptor, block or interstate edge, relabel an element, set a field — recorded
// in a Journal so that it can be undone and redone. Transformations, expansions, property changes
// and autodiff all write through an Editor; none of them needs undo code of its own.
//
// Fields are set through member pointers, so any property of any element is journaled the same way:
//   ed.set(*entry, &ir::MapEntry::schedule, ir::Schedule::CpuMulticore);
//   ed.set(*edge, &ir::DataflowEdge::memlet, newMemlet);
#pragma once

#include "core/edit/Journal.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"

#include <memory>
#include <string>
#include <utility>

namespace dcw::edit {

class Editor {
public:
  explicit Editor(ir::Sdfg& root);
  ir::Sdfg& root() { return root_; }
  const ir::Sdfg& root() const { return root_; }

  // --- dataflow -------------------------------------------------------------------------------
  // The node gets fresh ids (and so do SDFGs nested in it); its label is made unique in the state.
  ir::Node* addNode(ir::State& st, std::unique_ptr<ir::Node> node);
  template <class T, class... Args>
  T* add(ir::State& st, Args&&... args) {
    return static_cast<T*>(addNode(st, std::make_unique<T>(std::forward<Args>(args)...)));
  }
  // Removes the node and, first, every edge attached to it.
  void removeNode(ir::State& st, ir::ElementId node);
  ir::DataflowEdge* addEdge(ir::State& st, const ir::Node& src, std::string srcConn, const ir::Node& dst,
                            std::string dstConn, ir::Memlet memlet);
  void removeEdge(ir::State& st, ir::ElementId edge);
  // Connectors are plain lists on the node; these journal the whole list.
  void addInConnector(ir::Node& n, ir::Connector c);
  void addOutConnector(ir::Node& n, ir::Connector c);
  void removeInConnector(ir::Node& n, const std::string& name);
  void removeOutConnector(ir::Node& n, const std::string& name);

  // --- data -------------------------------------------------------------------------------------
  ir::DataDescriptor* addData(ir::Sdfg& sdfg, std::unique_ptr<ir::DataDescriptor> desc); // nullptr if taken
  ir::DataDescriptor* addTransient(ir::Sdfg& sdfg, const std::string& name, ir::DType dtype,
                                   std::vector<sym::Expr> shape);
  void removeData(ir::Sdfg& sdfg, const std::string& name);
  void addSymbol(ir::Sdfg& sdfg, const std::string& name, ir::DType type = ir::DType::Int64);
  void removeSymbol(ir::Sdfg& sdfg, const std::string& name);

  // --- control flow -----------------------------------------------------------------------------
  ir::ControlFlowBlock* addBlock(ir::ControlFlowRegion& region, std::unique_ptr<ir::ControlFlowBlock> block);
  ir::State* addState(ir::ControlFlowRegion& region, const std::string& label);
  // Removes the block and, first, its interstate edges; the start block moves to the first block left.
  void removeBlock(ir::ControlFlowRegion& region, ir::ElementId block);
  ir::InterstateEdge* addInterstateEdge(ir::ControlFlowRegion& region, ir::ElementId src, ir::ElementId dst,
                                        sym::Expr condition = sym::Expr(1));
  void removeInterstateEdge(ir::ControlFlowRegion& region, ir::ElementId edge);
  void setStartBlock(ir::ControlFlowRegion& region, ir::ElementId block);

  // --- properties -------------------------------------------------------------------------------
  // Renames any element; node labels go through their state's label index.
  void relabel(ir::Element& e, std::string label);
  template <class Obj, class V>
  void set(Obj& obj, V Obj::*member, V value) {
    record(std::make_unique<FieldEdit<V>>(&(obj.*member), std::move(value)));
  }
  // Any other value owned by an element (e.g. an AccessNode's data name through its setter).
  template <class V>
  void setValue(V& slot, V value) {
    record(std::make_unique<FieldEdit<V>>(&slot, std::move(value)));
  }
  void setAccessData(ir::AccessNode& n, const std::string& data); // the data name and the label (unique in its state)

  // --- journal ----------------------------------------------------------------------------------
  size_t mark() const { return journal_.size(); }
  void rollbackTo(size_t mark);
  // Hands over the edits made so far (the editor starts a new journal).
  Journal takeJournal();
  bool changed() const { return !journal_.empty(); }
  JournalStats stats() const { return journal_.stats(); }

private:
  template <class V>
  struct FieldEdit : Edit {
    FieldEdit(V* slot, V value) : slot(slot), other(std::move(value)) { swap(); }
    void undo() override { swap(); }
    void redo() override { swap(); }
    void swap() { std::swap(*slot, other); }
    V* slot;
    V other;
  };
  void record(std::unique_ptr<Edit> e) { journal_.record(std::move(e)); }

  ir::Sdfg& root_;
  Journal journal_;
};

} // namespace dcw::edit
