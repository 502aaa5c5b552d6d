#include "transforms/catalogue/ControlFlowTools.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Tasklet.h"

namespace dcw::transforms::controlflow {

using namespace dcw::ir;

std::unique_ptr<Node> cloneNode(const Node& n, bool keepAccessLabel) {
  std::unique_ptr<Node> out;
  if (auto* t = dynamic_cast<const Tasklet*>(&n)) {
    out = t->copyPayload();
  } else if (auto* me = dynamic_cast<const MapEntry*>(&n)) {
    auto e = std::make_unique<MapEntry>(me->label());
    e->params = me->params;
    e->range = me->range;
    e->schedule = me->schedule;
    out = std::move(e);
  } else if (dynamic_cast<const MapExit*>(&n)) {
    out = std::make_unique<MapExit>(n.label());
  } else if (auto* an = dynamic_cast<const AccessNode*>(&n)) {
    auto a = std::make_unique<AccessNode>(an->data());
    if (keepAccessLabel) a->setLabel(an->label());
    out = std::move(a);
  } else if (auto* lib = dynamic_cast<const LibraryNode*>(&n)) {
    auto l = std::make_unique<LibraryNode>(lib->label());
    l->domain = lib->domain;
    l->opType = lib->opType;
    l->opsetVersion = lib->opsetVersion;
    l->implementation = lib->implementation;
    l->opaque = lib->opaque;
    l->sourceName = lib->sourceName;
    l->attributes = lib->attributes;
    out = std::move(l);
  } else {
    return nullptr;
  }
  out->inConnectors() = n.inConnectors();
  out->outConnectors() = n.outConnectors();
  return out;
}

} // namespace dcw::transforms::controlflow
