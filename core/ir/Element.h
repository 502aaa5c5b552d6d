// Element: what every addressable part of an SDFG has in common — a stable id that survives edits
// (ids are never list positions and are never reused within one root SDFG), a label that is unique
// among its siblings, and a kind. Readable paths (`main/state0/Conv_3`) are built from labels by
// core/ir/Path.h; scripts, reports and overlays use paths, the editor uses ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dcw::ir {

using ElementId = uint64_t;
constexpr ElementId kNoId = 0;

enum class ElementKind {
  Sdfg,
  State,
  LoopRegion,
  ConditionalRegion,
  BranchRegion,     // one branch of a ConditionalRegion
  InterstateEdge,
  Data,             // a data descriptor
  AccessNode,
  Tasklet,
  MapEntry,
  MapExit,
  LibraryNode,
  NestedSdfg,
  DataflowEdge,
};

std::string_view elementKindName(ElementKind k);

template <class T>
class OwnedList;

// An id for an element built outside any SDFG tree; replaced when the element is adopted into one.
ElementId provisionalId();
// Counts renames of data descriptors anywhere in the process (their label is their name). An SDFG's
// index of data by name is exact while this count is what it was when the index was built.
uint64_t dataRenameCount();
void noteDataRename();

class Element {
public:
  explicit Element(ElementKind kind, std::string label = {}) : kind_(kind), label_(std::move(label)) {}
  virtual ~Element() = default;
  Element(const Element&) = delete;
  Element& operator=(const Element&) = delete;

  ElementKind kind() const { return kind_; }
  ElementId id() const { return id_; }
  void setId(ElementId id) { id_ = id; }
  const std::string& label() const { return label_; }
  void setLabel(std::string label) {
    if (kind_ == ElementKind::Data && label != label_) noteDataRename();
    label_ = std::move(label);
  }

private:
  template <class>
  friend class OwnedList;
  ElementKind kind_;
  ElementId id_ = kNoId;
  std::string label_;
  void* ownedLink_ = nullptr; // the element's link in the OwnedList that owns it (OwnedList.h), if any
};

} // namespace dcw::ir
