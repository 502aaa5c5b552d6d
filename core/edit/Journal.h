// Journal: the primitive edits one command made to a model, in order, each able to undo and redo
// itself. Undo replays the journal backwards, redo forwards, so every command — a transformation,
// an expansion, a property change — is undoable without code of its own. Edits keep the elements
// they removed alive (and the ones they added, once undone), so the journals of a history, applied
// strictly last-in first-out, always find the objects they refer to. The id counter of the root
// SDFG is restored as well, so a command redone or replayed from scratch hands out the same ids.
#pragma once

#include "core/ir/Element.h"

#include <memory>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::edit {

class Edit {
public:
  enum class Kind { NodeAdded, NodeRemoved, EdgeAdded, EdgeRemoved, DataAdded, DataRemoved, BlockAdded, BlockRemoved, Other };
  virtual ~Edit() = default;
  virtual void undo() = 0;
  virtual void redo() = 0;
  virtual Kind kind() const { return Kind::Other; }
};

// What a journal did, counted by kind (what a preview tells before a step is applied).
struct JournalStats {
  int nodesAdded = 0, nodesRemoved = 0, edgesAdded = 0, edgesRemoved = 0;
  int dataAdded = 0, dataRemoved = 0, blocksAdded = 0, blocksRemoved = 0, other = 0;
  std::string str() const; // "+3 nodes, −1 node, +4 edges, 2 property changes"
};

class Journal {
public:
  Journal() = default;
  Journal(Journal&&) = default;
  Journal& operator=(Journal&&) = default;

  void record(std::unique_ptr<Edit> e) { edits_.push_back(std::move(e)); }
  size_t size() const { return edits_.size(); }
  JournalStats stats() const;
  bool empty() const { return edits_.empty(); }

  // Undoes the edits after `mark` (newest first) and forgets them.
  void rollbackTo(size_t mark);
  void undo(); // all edits, newest first
  void redo(); // all edits, oldest first

  ir::Sdfg* root = nullptr;
  ir::ElementId nextIdBefore = ir::kNoId;
  ir::ElementId nextIdAfter = ir::kNoId;

private:
  std::vector<std::unique_ptr<Edit>> edits_;
};

} // namespace dcw::edit
