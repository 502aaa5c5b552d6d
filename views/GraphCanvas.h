// GraphCanvas: the hierarchical graph view of an SDFG — a QGraphicsView over the laid-out
// VisualGraph, with in-place expand/collapse of every state, map scope, library node (its bodies and
// its `pure` implementation, through VisualGraph::ExpansionProvider) and nested SDFG; level of
// detail; a minimap; search highlights with next/previous; overlays (a value per element on a colour
// ramp, with a legend); keyboard navigation; and SVG/PNG export of the view or the whole graph.
//
// Layout runs on a worker thread (QtConcurrent, GraphLayout); the canvas stays responsive and shows
// the previous picture until the new one is ready (layoutFinished()). Layouts are cached per
// container, so opening one node re-lays out only that node and its ancestors, and the view keeps
// the toggled node where it was on screen.
//
// The canvas never changes the SDFG and never sets the shared selection itself: clicks and keyboard
// moves emit selectionRequested(id); the owner sets views::Selection and calls showSelection(id).
// Expansion is view state, not a model edit, so the canvas changes it directly.
#pragma once

#include "core/analysis/GraphDiff.h"
#include "core/ir/Element.h"
#include "views/GraphItem.h"
#include "views/ElementTree.h"
#include "views/GraphLayout.h"
#include "views/GraphSearch.h"
#include "views/Theme.h"
#include "views/VisualGraph.h"

#include <QElapsedTimer>
#include <QGraphicsView>
#include <QImage>

#include <memory>
#include <unordered_map>

namespace dcw::views {

class CategoryLegend;
class Minimap;

class GraphCanvas : public QGraphicsView {
  Q_OBJECT
public:
  enum class ExportRegion { WholeGraph, CurrentView };

  explicit GraphCanvas(QWidget* parent = nullptr);
  ~GraphCanvas() override;

  // Shows `sdfg` (nullptr: nothing). The SDFG must stay alive and unchanged while shown; call again
  // after an edit. Expansion state and layout cache are reset; the first layout fits the view.
  void setSdfg(const ir::Sdfg* sdfg);
  const ir::Sdfg* sdfg() const { return sdfg_; }
  // The shown SDFG was edited in place (a command, undo, redo): re-lay it out keeping the view, the
  // open containers that still exist and the layouts of unchanged containers.
  void modelEdited();
  // Elements a previewed transformation would touch, highlighted like the current search hit (empty: none).
  void setPreview(std::vector<ir::ElementId> ids);
  // Where library nodes' implementations come from; takes effect with the next setSdfg().
  void setExpansionProvider(VisualGraph::ExpansionProvider provider,
                            std::function<bool(const ir::LibraryNode&)> canExpand = {});
  // FLOPs per op (analysis::Cost under the current symbol values): module groups show their sum.
  // Lays out again when they changed, unless `relayoutNow` is false (a setSdfg/modelEdited follows).
  void setNodeFlops(std::unordered_map<ir::ElementId, double> flops, bool relayoutNow = true);
  void setShowConstants(bool on);
  bool showConstants() const { return options_.showConstants; }
  // Module groups from node names (VisualGraph::Options::moduleGroups), on by default.
  void setModuleGroups(bool on);
  bool moduleGroups() const { return options_.moduleGroups; }

  void setTheme(ThemeKind kind);
  ThemeKind theme() const { return paint_.theme.kind; }

  // Expansion (view state). Each call starts one background re-layout.
  bool isExpandable(ir::ElementId id) const;
  bool isExpanded(ir::ElementId id) const;
  void setExpanded(ir::ElementId id, bool expanded);
  void toggleExpanded(ir::ElementId id);
  void expandAll();
  void collapseAll();
  // Opens every collapsed container that holds `id` so that it becomes visible.
  void reveal(ir::ElementId id);

  // Selection as the owner reports it; reveals and scrolls to the element.
  void showSelection(ir::ElementId id);
  ir::ElementId shownSelection() const { return selected_; }

  // Search (highlights every hit; next/previous reveal, center and request selection of a hit).
  int search(const QString& text, SearchMode mode); // number of hits; see searchError()
  QString searchError() const { return searchError_; }
  void nextMatch();
  void previousMatch();
  void clearSearch();
  int matchCount() const { return int(hits_.size()); }
  int currentMatch() const { return current_; }
  ir::ElementId currentMatchElement() const;

  // Overlay: a value per element (library nodes, tasklets, maps, nested SDFGs), drawn on a log colour
  // ramp with a legend. An empty map turns the overlay off.
  void setOverlay(const QString& title, std::unordered_map<ir::ElementId, double> values);
  bool hasOverlay() const { return !overlay_.empty(); }
  // Where visual node `v` sits on the overlay's ramp, in [0, 1]; < 0 when the overlay does not colour it.
  float paintOverlayOf(int v) const { return size_t(v) < paint_.overlay.size() ? paint_.overlay[size_t(v)] : -1.f; }

  // Keyboard navigation over the visible graph.
  void moveToProducer();
  void moveToConsumer();
  void moveSideways(int direction); // -1 left, +1 right, among nodes of the same row
  void fitToView();
  void zoomBy(double factor);

  bool exportSvg(const QString& path, ExportRegion region, QString* error);
  bool exportPng(const QString& path, ExportRegion region, double scale, QString* error);

  // State and figures, for tests, benchmarks and the status bar.
  bool isLayoutPending() const { return layoutPending_; }
  const VisualGraph* visualGraph() const { return graph_.get(); }
  const LayoutStats& lastLayoutStats() const { return stats_; }
  // Visual graphs built and laid out since the canvas was made (one per model shown, one per edit or
  // expand/collapse; the cost that grows with the model).
  int layoutRuns() const { return layoutRuns_; }
  // Frames drawn from the whole-graph picture (zoomed far out) rather than item by item.
  int overviewFrames() const { return overviewFrames_; }
  const GraphItem* graphItem() const { return graphItem_; } // null before the first layout
  double lastGraphBuildMs() const { return graphBuildMs_; } // VisualGraph::build, UI thread
  double lastSceneBuildMs() const { return sceneBuildMs_; } // the scene from the laid-out graph, UI thread
  const LayoutCache& layoutCache() const { return *cache_; }
  Minimap* minimap() const { return minimap_; }
  CategoryLegend* categoryLegend() const { return legend_; }
  // Compare view: nodes outlined as added, removed or changed (analysis::GraphDiff); empty clears.
  void setDiffMarks(std::unordered_map<ir::ElementId, analysis::DiffMark> marks);
  int diffMarkOf(int visual) const; // the DiffMark drawn on a visual node
  // Repaints the view now and returns the op nodes (library nodes and closed module groups, visual indices) wholly on screen
  // whose name that paint did not draw: none, at any zoom where a node is still a few letters wide.
  std::vector<int> unlabelledOpsOnScreen();
  // The key to the op colours in the corner (View > Op Colour Legend); on by default.
  void setCategoryLegendEnabled(bool on);
  // Scene position of an element's box (its nearest visible container when hidden).
  QRectF sceneRectOf(ir::ElementId id) const;

signals:
  void selectionRequested(qulonglong id); // intent: make this the current element
  void elementActivated(qulonglong id);   // double-click on an element that does not expand
  void layoutFinished();
  void firstPainted();                    // the first paint with a laid-out graph
  void searchChanged(int current, int total);
  void expansionChanged();
  void zoomChanged();                     // the scale changed (wheel, keys, zoomBy, fit)

protected:
  void paintEvent(QPaintEvent* event) override;
  void drawForeground(QPainter* painter, const QRectF& rect) override;
  void resizeEvent(QResizeEvent* event) override;
  void frameFirstView();
  void wheelEvent(QWheelEvent* event) override;
  bool viewportEvent(QEvent* event) override; // tooltips of nodes and edges, made when asked
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

private:
  struct Job;
  void relayout(ir::ElementId anchor = ir::kNoId);
  int visibleAncestor(ir::ElementId id) const; // the drawn node holding an element the graph does not draw, or -1
  void applyLayout(std::shared_ptr<Job> job);
  void rebuildScene();
  void refreshMatches();
  std::vector<ir::ElementId> preview_;
  void refreshOverlay();
  void refreshSelection();
  void centerOnElement(ir::ElementId id);
  void requestSelectionOfVisual(int visual);
  void paintLegend(QPainter& p, const QRectF& area) const;
  QRectF exportRect(ExportRegion region) const;
  int visualAt(const QPoint& viewPos, bool* onMarker = nullptr, int* edge = nullptr) const;
  int currentVisual() const;

  const ir::Sdfg* sdfg_ = nullptr;
  ElementTree tree_;
  ExpansionState expansion_;
  VisualGraph::Options options_;
  std::unique_ptr<VisualGraph> graph_;
  std::shared_ptr<LayoutCache> cache_;
  std::unordered_map<ir::ElementId, double> flops_; // Options::flops points here
  std::shared_ptr<VisualGraph::Memo> memo_ = VisualGraph::newMemo(); // per-state facts while the model is unchanged
  CanvasPaintState paint_;
  GraphItem* graphItem_ = nullptr;          // owned by the scene
  std::unordered_map<ir::ElementId, int> edgeByElement_;
  quint64 serial_ = 0;
  int layoutRuns_ = 0;
  bool layoutPending_ = false;
  bool fitPending_ = false;
  bool firstView_ = false; // the first view is kept (framed again on resize) until the user navigates
  bool firstPaintDone_ = false;
  LayoutStats stats_;
  double sceneBuildMs_ = 0, graphBuildMs_ = 0;
  ir::ElementId anchor_ = ir::kNoId;
  QPointF anchorOffset_;                    // view centre minus the anchor's scene position
  ir::ElementId centerAfterLayout_ = ir::kNoId;
  ir::ElementId selected_ = ir::kNoId;
  std::vector<ir::ElementId> hits_;
  int current_ = -1;
  QString searchError_;
  QString overlayTitle_;
  std::unordered_map<ir::ElementId, double> overlay_;
  double overlayMin_ = 0, overlayMax_ = 0;
  Minimap* minimap_ = nullptr;
  std::unordered_map<ir::ElementId, analysis::DiffMark> diff_;
  void refreshDiff();
  // The picture of the whole graph that far-zoomed frames are drawn from (paintOverview).
  QImage overview_;
  QRectF overviewRect_;
  static constexpr double kOverviewZoom = 0.05;  // below this scale a node is a few pixels
  static constexpr int kOverviewPixels = 4096;   // the picture's longer side
  bool paintOverview(QPaintEvent* event);
  void refreshPictures();
  int overviewFrames_ = 0;
  CategoryLegend* legend_ = nullptr;
  bool legendEnabled_ = true;
  void updateCategoryLegend();
  QPoint pressPos_;
};

} // namespace dcw::views
