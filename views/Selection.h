// Selection: the one current element of the workbench, shared by every panel (canvas, outline,
// inspector, weight viewer, problems). Views never change it themselves: they emit an intent signal
// (e.g. GraphCanvas::selectionRequested) and the main window calls setCurrent(); every view then
// follows currentChanged(). Elements are named by stable id, so a selection survives re-layouts and
// re-expansion of the canvas.
#pragma once

#include "core/ir/Element.h"

#include <QObject>

namespace dcw::views {

class Selection : public QObject {
  Q_OBJECT
public:
  using QObject::QObject;
  ir::ElementId current() const { return current_; }
  // Emits currentChanged only when the id changes.
  void setCurrent(ir::ElementId id);
  void clear() { setCurrent(ir::kNoId); }

signals:
  void currentChanged(qulonglong id);

private:
  ir::ElementId current_ = ir::kNoId;
};

} // namespace dcw::views
