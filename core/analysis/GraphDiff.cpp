// GraphDiff: see the header.
#include "core/analysis/GraphDiff.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Walk.h"

#include <map>

namespace dcw::analysis {

namespace {

using namespace dcw::ir;

struct Seen {
  ElementId id = kNoId;
  std::map<std::string, std::string> signature; // property -> value
};

// Every node of the tree, nested SDFGs and library nodes' subgraphs included, by path.
std::map<std::string, Seen> nodesByPath(const Sdfg& sdfg) {
  std::map<std::string, Seen> out;
  walk(const_cast<Sdfg&>(sdfg), [&](Element& e) {
    auto* n = dynamic_cast<Node*>(&e);
    State* st = n ? n->parent() : nullptr;
    if (!st) return;
    Seen s;
    s.id = n->id();
    s.signature["kind"] = elementKindName(n->kind());
    if (auto* l = dynamic_cast<const LibraryNode*>(n)) {
      s.signature["op"] = l->className();
      s.signature["implementation"] = l->implementation.empty() ? "(default)" : l->implementation;
      for (auto& a : l->attributes) s.signature["attribute " + a.name] = a.str();
    } else if (auto* t = dynamic_cast<const Tasklet*>(n)) {
      s.signature["code"] = t->code;
    } else if (auto* m = dynamic_cast<const MapEntry*>(n)) {
      std::string params;
      for (auto& p : m->params) params += (params.empty() ? "" : ", ") + p;
      s.signature["params"] = params;
      s.signature["range"] = m->range.str();
      s.signature["schedule"] = std::string(scheduleName(m->schedule));
    } else if (auto* a = dynamic_cast<const AccessNode*>(n)) {
      const DataDescriptor* d = st->sdfg() ? st->sdfg()->findData(a->data()) : nullptr;
      s.signature["data"] = a->data();
      if (d) s.signature["type"] = d->typeString();
    }
    out.emplace(pathOf(*n), std::move(s));
  });
  return out;
}

} // namespace

GraphDiff diffGraphs(const Sdfg& left, const Sdfg& right) {
  GraphDiff d;
  const auto a = nodesByPath(left), b = nodesByPath(right);
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      d.left[ia->second.id] = DiffMark::Removed;
      d.lines.push_back("- " + ia->first);
      ++d.removed;
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      d.right[ib->second.id] = DiffMark::Added;
      d.lines.push_back("+ " + ib->first);
      ++d.added;
      ++ib;
    } else {
      std::string what;
      for (auto& [key, value] : ia->second.signature) {
        auto other = ib->second.signature.find(key);
        if (other == ib->second.signature.end()) what += (what.empty() ? "" : "; ") + key + " removed";
        else if (other->second != value) what += (what.empty() ? "" : "; ") + key + " " + value + " -> " + other->second;
      }
      for (auto& [key, value] : ib->second.signature)
        if (!ia->second.signature.count(key)) what += (what.empty() ? "" : "; ") + key + " " + value + " added";
      if (what.empty()) {
        ++d.same;
      } else {
        d.left[ia->second.id] = DiffMark::Changed;
        d.right[ib->second.id] = DiffMark::Changed;
        d.lines.push_back("~ " + ia->first + ": " + what);
        ++d.changed;
      }
      ++ia;
      ++ib;
    }
  }
  return d;
}

} // namespace dcw::analysis
