// Sdfg: a stateful dataflow multigraph, the IR of DCW (after DaCe). It owns its data descriptors,
// its symbol table, its argument order and its control flow (it is the root ControlFlowRegion).
// A root SDFG hands out element ids; nested SDFGs (inside NestedSdfgNode or a LibraryNode's subgraph)
// draw ids from their root, so an id names one element in the whole tree.
#pragma once

#include "core/ir/ControlFlow.h"
#include "core/ir/DataDescriptor.h"
#include "core/ir/State.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dcw::ir {

class Node;

class Sdfg : public ControlFlowRegion {
public:
  explicit Sdfg(std::string name);
  ~Sdfg() override;

  const std::string& name() const { return label(); }

  // A deep, exact copy: data descriptors (constant payloads shared, they are immutable), symbols,
  // arguments, metadata, control flow (regions, loops, conditionals, interstate edges), states, every
  // node kind with the SDFGs nested in it, memlets. Every element keeps its id and label, so the copy
  // serializes to the same JSON. The copy is a standalone root (no parent node) whose allocator
  // continues after this SDFG's root's, so what is added to the copy never takes a copied id; attaching
  // it to another tree renumbers it (adoption), as for any subtree. Implemented in Clone.cpp.
  std::unique_ptr<Sdfg> clone() const;

  // Data descriptors, in insertion order.
  const std::vector<std::unique_ptr<DataDescriptor>>& data() const { return data_; }
  // Building (IR under construction; a live model goes through edit::Editor: addData, addTransient,
  // removeData, addSymbol, set(...)).
  DataDescriptor* addData(std::unique_ptr<DataDescriptor> desc); // nullptr if the name is taken
  DataDescriptor* addArray(const std::string& name, DType dtype, std::vector<sym::Expr> shape, bool transient = false);
  DataDescriptor* addScalar(const std::string& name, DType dtype, bool transient = false);
  // By name (the first descriptor with it), through an index: a lookup per node of a 100,000-node
  // model must not scan every descriptor. The index follows the mutators above and is rebuilt on
  // the next lookup after any descriptor was renamed with setLabel (see dataRenameCount()).
  DataDescriptor* findData(std::string_view name) const;
  std::unique_ptr<DataDescriptor> removeData(std::string_view name);
  // Journal primitives (edit::Editor only, see JournalKey.h): out and back in at the same position,
  // id unchanged.
  std::unique_ptr<DataDescriptor> detachData(JournalKey, std::string_view name, size_t* position);
  DataDescriptor* attachData(JournalKey, std::unique_ptr<DataDescriptor> desc, size_t position);

  // Symbols (name -> integer type), ordered by name. Building; a live model: Editor::addSymbol.
  const std::map<std::string, DType>& symbols() const { return symbols_; }
  void addSymbol(const std::string& name, DType type = DType::Int64) { symbols_[name] = type; }
  void removeSymbol(const std::string& name) { symbols_.erase(name); }

  // Argument order: the SDFG's inputs and outputs (names of non-transient data).
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  // Free-form provenance: source file, producer, opset imports, doc string.
  std::map<std::string, std::string> metadata;

  // The node that contains this SDFG (NestedSdfgNode or LibraryNode) or nullptr for a root.
  Node* parentNode() const { return parentNode_; }
  void setParentNode(Node* n) { parentNode_ = n; }
  Sdfg* root();
  const Sdfg* root() const;

  // Id allocation (root only; nested SDFGs forward to their root). The editor saves and restores the
  // counter with each journal; loading sets it (resetNextId).
  ElementId allocateId();
  ElementId peekNextId() const;
  void reserveIds(ElementId maxUsed); // the next id handed out will be > maxUsed
  // Sets the root's next id exactly (loading: the caller guarantees no element holds an id >= next).
  void resetNextId(ElementId next) { root()->nextId_ = next; }
  // Gives every element of a freshly attached subtree a fresh id from this SDFG's root and rewrites
  // the references inside the subtree (edge ends, start blocks, map entry/exit links) to match.
  // Elements built while detached carry provisional ids; nested SDFGs built standalone carry ids of
  // their own allocator: adoption makes both unique in the tree.
  void adopt(ControlFlowBlock& subtree);
  void adopt(Node& subtree);
  void reassignIds(); // adopt(*this) for an SDFG that was attached as a whole

  // Every element in a deterministic pre-order (SDFG, data, blocks, nodes, edges, nested SDFGs).
  void forEachElement(const std::function<void(Element&)>& fn);
  void forEachElement(const std::function<void(const Element&)>& fn) const;
  Element* findElement(ElementId id);
  const Element* findElement(ElementId id) const;

  // All states, recursively through regions (not into nested SDFGs).
  std::vector<State*> allStates() const;

private:
  std::vector<std::unique_ptr<DataDescriptor>> data_;
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // name -> first descriptor with that name; valid while dataRenameCount() == dataIndexRenames_.
  // Guarded by the mutex: lookups from several threads on one SDFG may rebuild it.
  mutable std::mutex dataIndexMutex_;
  mutable std::unordered_map<std::string, DataDescriptor*, NameHash, std::equal_to<>> dataIndex_;
  mutable uint64_t dataIndexRenames_ = 0;
  mutable bool dataIndexDuplicates_ = false; // two descriptors share a name (after a rename)
  void dataIndexRemoved(const DataDescriptor& d);
  void refreshDataIndex() const; // rebuilds the index when a rename made it stale (mutex held)
  void rebuildDataIndex() const;
  std::map<std::string, DType> symbols_;
  Node* parentNode_ = nullptr;
  ElementId nextId_ = 1;
};

// The SDFG owning a state/region, walking up the region tree.
Sdfg* owningSdfg(const ControlFlowBlock* block);
// The SDFG owning a node (its state's SDFG).
Sdfg* owningSdfg(const Node* node);

} // namespace dcw::ir
