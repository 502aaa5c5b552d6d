// JournalKey: the passkey of the IR's journal primitives — the detach/attach calls that take an
// element out of its container and put it back at the same position, unchanged. They bypass id
// allocation, label uniqueness and start-block upkeep, which is right only when a journal is undone
// or redone, so only the journaling editor (core/edit/Editor) can make a key. Everything else uses
// the building API (fresh IR) or the Editor (a live model).
#pragma once

namespace dcw::edit {
class Editor;
}

namespace dcw::ir {

class JournalKey {
  friend class dcw::edit::Editor;
  JournalKey() = default;

public:
  JournalKey(const JournalKey&) = default;
};

} // namespace dcw::ir
