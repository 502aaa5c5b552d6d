#include "views/GraphCanvas.h"

#include "core/analysis/Cost.h"
#include "core/ir/Sdfg.h"
#include "views/CategoryLegend.h"
#include "views/Minimap.h"
#include "views/SceneExport.h"

#include <QFutureWatcher>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QToolTip>
#include <QLinearGradient>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace dcw::views {

using ir::ElementId;
using ir::kNoId;

// A layout in flight: the graph built on the UI thread, laid out on a worker.
struct GraphCanvas::Job {
  quint64 serial = 0;
  VisualGraph graph;
  LayoutStats stats;
  double buildMs = 0;
};

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent), cache_(std::make_shared<LayoutCache>()) {
  setObjectName(QStringLiteral("graphCanvas"));
  setScene(new QGraphicsScene(this));
  scene()->setItemIndexMethod(QGraphicsScene::NoIndex); // one item (GraphItem indexes what it draws)
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
  setOptimizationFlag(QGraphicsView::DontSavePainterState);
  setCacheMode(QGraphicsView::CacheBackground);
  setFocusPolicy(Qt::StrongFocus);
  paint_.font = font();
  paint_.bold = font();
  paint_.bold.setBold(true);
  paint_.small = font();
  paint_.small.setPointSizeF(std::max(6.0, font().pointSizeF() - 1.5));
  paint_.title = paint_.bold;
  paint_.title.setPointSizeF(font().pointSizeF() + 0.5);
  minimap_ = new Minimap(this, this);
  legend_ = new CategoryLegend(this);
  // Any navigation by the user ends the first view (frameFirstView is not applied again).
  connect(minimap_, &Minimap::navigated, this, [this] { firstView_ = false; });
  for (QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
    connect(bar, &QScrollBar::actionTriggered, this, [this] { firstView_ = false; });
  setTheme(ThemeKind::Light);
}

GraphCanvas::~GraphCanvas() {
  ++serial_; // drop a layout still running
  scene()->clear();
}

void GraphCanvas::setSdfg(const ir::Sdfg* sdfg) {
  sdfg_ = sdfg;
  expansion_.clear();
  cache_ = std::make_shared<LayoutCache>();
  memo_ = VisualGraph::newMemo();
  hits_.clear();
  current_ = -1;
  selected_ = kNoId;
  overlay_.clear();
  tree_ = ElementTree();
  firstPaintDone_ = false;
  fitPending_ = true;
  if (!sdfg) {
    ++serial_;
    layoutPending_ = false;
    scene()->clear();
    graphItem_ = nullptr;
    graph_.reset();
    refreshPictures();
    return;
  }
  // The element index and the visual graph both only read the model, which cannot change while this
  // thread is busy here: index on a second core while this one builds the graph (0.9 s at 50k ops).
  QFuture<ElementTree> tree = QtConcurrent::run([sdfg] { return ElementTree(*sdfg); });
  relayout();
  tree_ = tree.result();
}

void GraphCanvas::modelEdited() {
  if (!sdfg_) return;
  memo_ = VisualGraph::newMemo();
  tree_ = ElementTree(*sdfg_);
  if (selected_ != kNoId && !tree_.find(selected_)) selected_ = kNoId;
  hits_.clear();
  current_ = -1;
  preview_.clear();
  // An edit keeps the view where the user has it; a first view not framed yet (the window refreshes
  // every view right after opening a model, before the first layout arrives) is still framed.
  firstView_ = false;
  relayout();
}

void GraphCanvas::setPreview(std::vector<ElementId> ids) {
  preview_ = std::move(ids);
  for (ElementId id : preview_) reveal(id);
  refreshMatches();
}

void GraphCanvas::setExpansionProvider(VisualGraph::ExpansionProvider provider,
                                       std::function<bool(const ir::LibraryNode&)> canExpand) {
  options_.expansions = std::move(provider);
  options_.canExpand = std::move(canExpand);
  memo_ = VisualGraph::newMemo(); // the expansions' states are other objects now
}

void GraphCanvas::setNodeFlops(std::unordered_map<ElementId, double> flops, bool relayoutNow) {
  options_.flops = &flops_;
  if (flops == flops_) return;
  flops_ = std::move(flops);
  memo_ = VisualGraph::newMemo(); // group totals are worked out with the facts
  if (sdfg_ && relayoutNow) relayout();
}

void GraphCanvas::setShowConstants(bool on) {
  if (options_.showConstants == on) return;
  options_.showConstants = on;
  if (sdfg_) relayout();
}

// The scene's looks changed (layout, theme, overlay, diff marks): the minimap renders it again and the
// far-zoom picture is rendered again when next needed.
void GraphCanvas::refreshPictures() {
  minimap_->refresh();
  overview_ = QImage();
}

void GraphCanvas::setModuleGroups(bool on) {
  if (options_.moduleGroups == on) return;
  options_.moduleGroups = on;
  if (sdfg_) relayout();
}

void GraphCanvas::setTheme(ThemeKind kind) {
  paint_.theme = CanvasTheme::of(kind);
  setBackgroundBrush(paint_.theme.background);
  resetCachedContent();
  viewport()->update();
  refreshPictures();
  updateCategoryLegend();
}

std::vector<int> GraphCanvas::unlabelledOpsOnScreen() {
  std::vector<int> out;
  if (!graph_) return out;
  paint_.labelled.assign(graph_->nodes.size(), 0);
  viewport()->repaint();
  const QRectF seen = mapToScene(viewport()->rect()).boundingRect();
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    const VisualNode& n = graph_->nodes[i];
    if ((n.kind != VisualKind::Library && n.kind != VisualKind::Group) || n.expanded) continue;
    if (seen.contains(QRectF(graph_->scenePos(int(i)), n.size)) && !paint_.labelled[i]) out.push_back(int(i));
  }
  return out;
}

void GraphCanvas::setDiffMarks(std::unordered_map<ElementId, analysis::DiffMark> marks) {
  diff_ = std::move(marks);
  refreshDiff();
  refreshPictures();
}

void GraphCanvas::refreshDiff() {
  if (!graph_) return;
  paint_.diff.assign(graph_->nodes.size(), 0);
  for (auto& [id, mark] : diff_) {
    int v = graph_->find(id);
    unsigned char m = static_cast<unsigned char>(mark);
    if (v < 0) { // folded into the box that lists it, inside a closed group or container: that box has changed
      v = graph_->shownAs(id);
      for (ElementId g : graph_->groupsHolding(id))
        if (int gv = graph_->find(g); gv >= 0 && !graph_->nodes[size_t(gv)].expanded) {
          v = gv;
          break;
        }
      if (v < 0 && sdfg_) v = visibleAncestor(id);
      m = static_cast<unsigned char>(analysis::DiffMark::Changed);
    }
    if (v >= 0 && !paint_.diff[size_t(v)]) paint_.diff[size_t(v)] = m;
  }
  viewport()->update();
}

int GraphCanvas::visibleAncestor(ElementId id) const {
  // Up the IR from the element (a node inside a closed map, nested SDFG or library node's subgraph, or a
  // state of one) to the first container the graph draws, or one of its module groups when closed.
  const ir::Element* e = sdfg_->findElement(id);
  while (e) {
    if (auto* n = dynamic_cast<const ir::Node*>(e)) e = n->parent();
    else if (auto* s = dynamic_cast<const ir::Sdfg*>(e)) e = s->parentNode();
    else if (auto* b = dynamic_cast<const ir::ControlFlowBlock*>(e)) e = b->parent();
    else return -1;
    if (!e) return -1;
    if (int v = graph_->find(e->id()); v >= 0) return v;
    for (ElementId g : graph_->groupsHolding(e->id()))
      if (int gv = graph_->find(g); gv >= 0 && !graph_->nodes[size_t(gv)].expanded) return gv;
  }
  return -1;
}

int GraphCanvas::diffMarkOf(int v) const { return size_t(v) < paint_.diff.size() ? paint_.diff[size_t(v)] : 0; }

void GraphCanvas::setCategoryLegendEnabled(bool on) {
  legendEnabled_ = on;
  updateCategoryLegend();
}

void GraphCanvas::updateCategoryLegend() {
  std::vector<int> count(kOpCategoryCount, 0);
  if (graph_)
    for (auto& n : graph_->nodes)
      if (n.kind == VisualKind::Library) ++count[size_t(n.category)];
  std::vector<std::pair<OpCategory, int>> present;
  for (int c = 0; c < kOpCategoryCount; ++c)
    if (count[size_t(c)] > 0) present.emplace_back(OpCategory(c), count[size_t(c)]);
  legend_->setCategories(std::move(present), paint_.theme);
  legend_->setVisible(legendEnabled_ && overlay_.empty() && !legend_->categories().empty());
}

// ---- expansion --------------------------------------------------------------------------------------

bool GraphCanvas::isExpandable(ElementId id) const {
  if (!graph_) return false;
  int v = graph_->find(id);
  return v >= 0 && graph_->nodes[size_t(v)].expandable;
}

bool GraphCanvas::isExpanded(ElementId id) const {
  if (!graph_) return false;
  int v = graph_->find(id);
  if (v < 0) return false;
  const VisualNode& n = graph_->nodes[size_t(v)];
  // An open map's box holds an inner MapEntry with the same id: the container is what is open.
  if (n.kind == VisualKind::MapEntry && n.parent >= 0) return graph_->nodes[size_t(n.parent)].expanded;
  return n.expanded;
}

void GraphCanvas::setExpanded(ElementId id, bool expanded) {
  if (!sdfg_) return;
  expansion_.set(id, expanded);
  relayout(id);
  emit expansionChanged();
}

void GraphCanvas::toggleExpanded(ElementId id) { setExpanded(id, !isExpanded(id)); }

void GraphCanvas::expandAll() {
  expansion_.setExpandAll(true);
  fitPending_ = true;
  if (sdfg_) relayout();
  emit expansionChanged();
}

void GraphCanvas::collapseAll() {
  expansion_.setExpandAll(false);
  fitPending_ = true;
  if (sdfg_) relayout();
  emit expansionChanged();
}

void GraphCanvas::reveal(ElementId id) {
  if (!sdfg_) return;
  bool changed = false;
  for (ElementId a : tree_.ancestors(id)) {
    const ElementEntry* e = tree_.find(a);
    if (!e) continue;
    VisualKind kind = e->kind == ir::ElementKind::MapEntry     ? VisualKind::Map
                      : e->kind == ir::ElementKind::LibraryNode ? VisualKind::Library
                      : e->kind == ir::ElementKind::NestedSdfg  ? VisualKind::NestedSdfg
                                                                : VisualKind::State;
    if (!expansion_.isExpanded(a, kind)) {
      expansion_.set(a, true);
      changed = true;
    }
  }
  if (graph_)
    for (ElementId g : graph_->groupsHolding(id)) { // the module groups around it
      int v = graph_->find(g);
      if (v < 0 || !graph_->nodes[size_t(v)].expanded) {
        expansion_.set(g, true);
        changed = true;
      }
    }
  if (changed) {
    centerAfterLayout_ = id;
    relayout();
    emit expansionChanged();
  } else {
    centerOnElement(id);
  }
}

// ---- layout -----------------------------------------------------------------------------------------

void GraphCanvas::relayout(ElementId anchor) {
  if (!sdfg_) return;
  QElapsedTimer t;
  t.start();
  auto job = std::make_shared<Job>();
  job->serial = ++serial_;
  ++layoutRuns_;
  job->graph = VisualGraph::build(*sdfg_, expansion_, options_, paint_.font, memo_.get());
  job->buildMs = double(t.nsecsElapsed()) / 1e6;
  // Keep the anchor (the toggled node) where it is on screen.
  anchor_ = kNoId;
  if (anchor != kNoId && graph_) {
    QRectF r = sceneRectOf(anchor);
    if (!r.isEmpty()) {
      anchor_ = anchor;
      anchorOffset_ = mapToScene(viewport()->rect().center()) - r.topLeft();
    }
  }
  layoutPending_ = true;
  auto cache = cache_;
  using Watcher = QFutureWatcher<std::shared_ptr<Job>>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher] {
    watcher->deleteLater();
    std::shared_ptr<Job> done = watcher->result();
    if (done->serial == serial_) applyLayout(std::move(done));
  });
  watcher->setFuture(QtConcurrent::run([job, cache]() {
    job->stats = layoutVisualGraph(job->graph, *cache);
    return job;
  }));
}

void GraphCanvas::applyLayout(std::shared_ptr<Job> job) {
  layoutPending_ = false;
  stats_ = job->stats;
  QElapsedTimer t;
  t.start();
  scene()->clear(); // the item points into the old graph: remove it first
  graphItem_ = nullptr;
  graph_ = std::make_unique<VisualGraph>(std::move(job->graph));
  rebuildScene();
  refreshMatches();
  refreshOverlay();
  refreshDiff();
  refreshSelection();
  sceneBuildMs_ = double(t.nsecsElapsed()) / 1e6;
  graphBuildMs_ = job->buildMs;
  QRectF bounds = scene()->itemsBoundingRect();
  setSceneRect(bounds.adjusted(-200, -200, 200, 200));
  if (fitPending_) {
    fitPending_ = false;
    // The first view holds until the user navigates: the viewport may not have its final size (or its
    // scroll range) yet when the layout arrives, so it is framed again when it is resized and once the
    // events queued now have run.
    firstView_ = true;
    frameFirstView();
    QTimer::singleShot(0, this, [this] {
      if (firstView_) frameFirstView();
    });
  } else if (anchor_ != kNoId) {
    QRectF r = sceneRectOf(anchor_);
    if (!r.isEmpty()) centerOn(r.topLeft() + anchorOffset_);
  }
  anchor_ = kNoId;
  if (centerAfterLayout_ != kNoId) {
    centerOnElement(centerAfterLayout_);
    centerAfterLayout_ = kNoId;
  }
  refreshPictures();
  updateCategoryLegend();
  viewport()->update();
  emit layoutFinished();
}

void GraphCanvas::rebuildScene() {
  const VisualGraph& g = *graph_;
  edgeByElement_.clear();
  graphItem_ = new GraphItem(&g, &paint_);
  scene()->addItem(graphItem_);
  for (size_t e = 0; e < g.edges.size(); ++e) edgeByElement_.emplace(g.edges[e].element, int(e));
}

QRectF GraphCanvas::sceneRectOf(ElementId id) const {
  if (!graph_) return {};
  int v = graph_->shownAs(id);
  if (v < 0) {
    // The nearest visible container.
    auto chain = tree_.ancestors(id);
    for (auto it = chain.rbegin(); it != chain.rend() && v < 0; ++it) v = graph_->find(*it);
  }
  if (v < 0) return {};
  return QRectF(graph_->scenePos(v), graph_->nodes[size_t(v)].size);
}

// ---- selection, search, overlay ---------------------------------------------------------------------

void GraphCanvas::showSelection(ElementId id) {
  selected_ = id;
  if (!graph_) return;
  refreshSelection();
  if (id == kNoId) return;
  if (graph_->shownAs(id) < 0 && !edgeByElement_.count(id) && tree_.find(id)) {
    reveal(id);
    return;
  }
  QRectF r = sceneRectOf(id);
  if (!r.isEmpty()) ensureVisible(r, 60, 60);
}

void GraphCanvas::refreshSelection() {
  paint_.selected = graph_ ? graph_->shownAs(selected_) : -1;
  auto e = edgeByElement_.find(selected_);
  paint_.selectedEdge = e == edgeByElement_.end() ? -1 : e->second;
  viewport()->update();
}

void GraphCanvas::centerOnElement(ElementId id) {
  firstView_ = false;
  QRectF r = sceneRectOf(id);
  if (r.isEmpty()) return;
  // Zoom in far enough to read the element when the view is zoomed far out.
  if (transform().m11() < 0.5) setTransform(QTransform::fromScale(0.8, 0.8));
  centerOn(r.center());
}

int GraphCanvas::search(const QString& text, SearchMode mode) {
  SearchResult r = searchElements(tree_, text, mode, graph_ ? &graph_->modules : nullptr);
  hits_ = std::move(r.hits);
  searchError_ = r.error;
  current_ = -1;
  refreshMatches();
  emit searchChanged(current_, int(hits_.size()));
  return int(hits_.size());
}

void GraphCanvas::clearSearch() {
  hits_.clear();
  current_ = -1;
  searchError_.clear();
  refreshMatches();
  emit searchChanged(-1, 0);
}

ElementId GraphCanvas::currentMatchElement() const {
  return current_ >= 0 && current_ < int(hits_.size()) ? hits_[size_t(current_)] : kNoId;
}

void GraphCanvas::nextMatch() {
  if (hits_.empty()) return;
  current_ = (current_ + 1) % int(hits_.size());
  refreshMatches();
  ElementId id = hits_[size_t(current_)];
  emit searchChanged(current_, int(hits_.size()));
  emit selectionRequested(qulonglong(id));
  reveal(id);
}

void GraphCanvas::previousMatch() {
  if (hits_.empty()) return;
  current_ = current_ <= 0 ? int(hits_.size()) - 1 : current_ - 1;
  refreshMatches();
  ElementId id = hits_[size_t(current_)];
  emit searchChanged(current_, int(hits_.size()));
  emit selectionRequested(qulonglong(id));
  reveal(id);
}

void GraphCanvas::refreshMatches() {
  if (!graph_) return;
  paint_.match.assign(graph_->nodes.size(), 0);
  for (size_t k = 0; k < hits_.size(); ++k) {
    int v = graph_->shownAs(hits_[k]); // itself, or the box that lists it
    const auto& groups = graph_->groupsHolding(hits_[k]);
    for (auto g = groups.rbegin(); g != groups.rend() && v < 0; ++g) v = graph_->find(*g); // in a closed group
    if (v < 0) { // hidden: mark the collapsed container that holds it
      auto chain = tree_.ancestors(hits_[k]);
      for (auto it = chain.rbegin(); it != chain.rend() && v < 0; ++it) v = graph_->find(*it);
    }
    if (v < 0) continue;
    unsigned char m = int(k) == current_ ? 2 : 1;
    paint_.match[size_t(v)] = std::max(paint_.match[size_t(v)], m);
  }
  for (ElementId id : preview_) {
    int v = graph_->find(id);
    if (v >= 0) paint_.match[size_t(v)] = 2;
  }
  viewport()->update();
}

void GraphCanvas::setOverlay(const QString& title, std::unordered_map<ElementId, double> values) {
  overlayTitle_ = title;
  overlay_ = std::move(values);
  refreshOverlay();
  refreshPictures();
  updateCategoryLegend();
}

void GraphCanvas::refreshOverlay() {
  if (!graph_) return;
  paint_.overlay.assign(graph_->nodes.size(), -1.f);
  if (overlay_.empty()) {
    viewport()->update();
    return;
  }
  overlayMin_ = INFINITY;
  overlayMax_ = 0;
  for (auto& [id, v] : overlay_)
    if (v > 0) overlayMin_ = std::min(overlayMin_, v), overlayMax_ = std::max(overlayMax_, v);
  // A closed module group shows the sum over the elements inside it.
  std::unordered_map<ElementId, double> groupSum;
  for (auto& [id, chain] : graph_->groupChain)
    if (auto it = overlay_.find(id); it != overlay_.end())
      for (ElementId g : chain) groupSum[g] += it->second;
  for (size_t i = 0; i < graph_->nodes.size(); ++i)
    if (graph_->nodes[i].kind == VisualKind::Group && !graph_->nodes[i].expanded)
      if (auto it = groupSum.find(graph_->nodes[i].element); it != groupSum.end() && it->second > 0)
        overlayMax_ = std::max(overlayMax_, it->second);
  if (!std::isfinite(overlayMin_)) overlayMin_ = overlayMax_ = 0;
  const double lo = std::log10(overlayMin_ + 1), hi = std::log10(overlayMax_ + 1);
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    const VisualNode& n = graph_->nodes[i];
    if (n.expanded && n.kind != VisualKind::Library && n.kind != VisualKind::NestedSdfg) continue;
    double value = 0;
    if (n.kind == VisualKind::Group) {
      auto it = groupSum.find(n.element);
      if (it == groupSum.end()) continue;
      value = it->second;
    } else {
      auto it = overlay_.find(n.element);
      if (it == overlay_.end()) continue;
      value = it->second;
    }
    double t = hi > lo ? (std::log10(value + 1) - lo) / (hi - lo) : (value > 0 ? 1.0 : 0.0);
    paint_.overlay[i] = float(std::clamp(t, 0.0, 1.0));
  }
  viewport()->update();
}

void GraphCanvas::paintLegend(QPainter& p, const QRectF& area) const {
  if (overlay_.empty()) return;
  const CanvasTheme& t = paint_.theme;
  QRectF box(area.left() + 12, area.bottom() - 64, 230, 52);
  QColor bg = t.background;
  bg.setAlpha(235);
  p.setPen(QPen(t.frameBorder, 1));
  p.setBrush(bg);
  p.drawRoundedRect(box, 5, 5);
  p.setFont(paint_.bold);
  p.setPen(t.text);
  p.drawText(QRectF(box.left() + 8, box.top() + 3, box.width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter, overlayTitle_);
  QRectF bar(box.left() + 8, box.top() + 22, box.width() - 16, 10);
  QLinearGradient grad(bar.topLeft(), bar.topRight());
  for (double s : {0.0, 0.25, 0.5, 0.75, 1.0}) grad.setColorAt(s, t.ramp(s));
  p.setPen(Qt::NoPen);
  p.setBrush(grad);
  p.drawRect(bar);
  p.setFont(paint_.small);
  p.setPen(t.textDim);
  QRectF labels(bar.left(), bar.bottom() + 1, bar.width(), 14);
  p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(analysis::formatCount(overlayMin_)));
  p.drawText(labels, Qt::AlignHCenter | Qt::AlignVCenter, tr("log scale"));
  p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(analysis::formatCount(overlayMax_)));
}

// ---- navigation -------------------------------------------------------------------------------------

int GraphCanvas::currentVisual() const { return graph_ ? graph_->find(selected_) : -1; }

void GraphCanvas::requestSelectionOfVisual(int v) {
  if (!graph_ || v < 0) return;
  ElementId id = graph_->nodes[size_t(v)].element;
  emit selectionRequested(qulonglong(id));
  QRectF r(graph_->scenePos(v), graph_->nodes[size_t(v)].size);
  ensureVisible(r, 60, 60);
}

void GraphCanvas::moveToProducer() {
  int v = currentVisual();
  if (v < 0) return;
  auto preds = graph_->predecessors(v);
  if (!preds.empty()) requestSelectionOfVisual(preds.front());
  else if (graph_->nodes[size_t(v)].parent > 0) requestSelectionOfVisual(graph_->nodes[size_t(v)].parent);
}

void GraphCanvas::moveToConsumer() {
  int v = currentVisual();
  if (v < 0) return;
  if (graph_->nodes[size_t(v)].expanded && !graph_->nodes[size_t(v)].children.empty()) {
    requestSelectionOfVisual(graph_->nodes[size_t(v)].children.front()); // step into an open container
    return;
  }
  auto succ = graph_->successors(v);
  if (!succ.empty()) requestSelectionOfVisual(succ.front());
}

void GraphCanvas::moveSideways(int direction) {
  int v = currentVisual();
  if (v < 0) return;
  const VisualNode& n = graph_->nodes[size_t(v)];
  if (n.parent < 0) return;
  int best = -1;
  double bestDx = 1e18;
  for (int s : graph_->nodes[size_t(n.parent)].children) {
    if (s == v) continue;
    const VisualNode& o = graph_->nodes[size_t(s)];
    double dy = std::abs(o.center.y() - n.center.y()), dx = (o.center.x() - n.center.x()) * direction;
    if (dx <= 0 || dy > std::max(n.size.height(), o.size.height())) continue;
    if (dx < bestDx) bestDx = dx, best = s;
  }
  if (best >= 0) requestSelectionOfVisual(best);
}

// First view: the whole graph when that is readable, else the top of the graph at a readable size.
void GraphCanvas::frameFirstView() {
  if (!graph_) return;
  const QRectF bounds = scene()->itemsBoundingRect();
  if (bounds.isEmpty()) return;
  double s = std::min(1.0, (viewport()->width() - 20) / std::max(1.0, bounds.width()));
  s = std::max(s, std::min(1.0, (viewport()->height() - 20) / std::max(1.0, bounds.height())));
  s = std::clamp(s, 0.45, 1.0);
  if (bounds.width() * s < viewport()->width() && bounds.height() * s < viewport()->height()) {
    fitInView(bounds.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  } else {
    s = std::max(s, 0.6);
    setTransform(QTransform::fromScale(s, s));
    // Start at the top, around the first node of the dataflow (the model's input, typically).
    double x = bounds.center().x(), top = 1e18;
    for (size_t i = 0; i < graph_->nodes.size(); ++i)
      if (!graph_->nodes[i].expanded) {
        QPointF p = graph_->scenePos(int(i));
        if (p.y() < top) top = p.y(), x = p.x() + graph_->nodes[i].size.width() / 2;
      }
    x = std::clamp(x, bounds.left() + viewport()->width() / s / 2, std::max(bounds.left() + viewport()->width() / s / 2, bounds.right() - viewport()->width() / s / 2));
    centerOn(QPointF(x, bounds.top() + viewport()->height() / s / 2 - 10));
  }
}

void GraphCanvas::fitToView() {
  firstView_ = false;
  QRectF bounds = scene()->itemsBoundingRect();
  if (bounds.isEmpty()) return;
  fitInView(bounds.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  minimap_->update();
  emit zoomChanged();
}

void GraphCanvas::zoomBy(double factor) {
  firstView_ = false;
  double s = transform().m11() * factor;
  if (s < 0.01 || s > 6) return;
  scale(factor, factor);
  minimap_->update();
  emit zoomChanged();
}

// ---- export -----------------------------------------------------------------------------------------

QRectF GraphCanvas::exportRect(ExportRegion region) const {
  if (scene()->items().isEmpty()) return {};
  if (region == ExportRegion::CurrentView) return mapToScene(viewport()->rect()).boundingRect();
  return scene()->itemsBoundingRect().adjusted(-16, -16, 16, 16);
}

bool GraphCanvas::exportSvg(const QString& path, ExportRegion region, QString* error) {
  ExportOptions o;
  o.sceneRect = exportRect(region);
  o.background = paint_.theme.background;
  o.title = sdfg_ ? QString::fromStdString(sdfg_->name()) : QString();
  o.decorate = [this](QPainter& p, const QRectF& r) { paintLegend(p, r); };
  paint_.fullDetail = true;
  bool ok = views::exportSvg(*scene(), path, o, error);
  paint_.fullDetail = false;
  return ok;
}

bool GraphCanvas::exportPng(const QString& path, ExportRegion region, double scale, QString* error) {
  ExportOptions o;
  o.sceneRect = exportRect(region);
  o.background = paint_.theme.background;
  o.scale = scale;
  o.decorate = [this](QPainter& p, const QRectF& r) { paintLegend(p, r); };
  paint_.fullDetail = true;
  bool ok = views::exportPng(*scene(), path, o, error);
  paint_.fullDetail = false;
  return ok;
}

// ---- events -----------------------------------------------------------------------------------------

// Zoomed out so far that nodes are a few pixels, a frame would still visit every item: the view is
// drawn from one picture of the whole graph instead (rendered on first need after the scene changed,
// at least as sharp as the screen), with the selection and search hits marked on top.
bool GraphCanvas::paintOverview(QPaintEvent* event) {
  const double s = transform().m11();
  if (!graph_ || layoutPending_ || s >= kOverviewZoom || !scene()) return false;
  if (overview_.isNull()) {
    overviewRect_ = scene()->itemsBoundingRect();
    if (overviewRect_.isEmpty()) return false;
    const QSizeF size = overviewRect_.size().scaled(QSizeF(kOverviewPixels, kOverviewPixels), Qt::KeepAspectRatio);
    QImage image(size.toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.fill(paint_.theme.background);
    // The picture holds no selection or hits (they change without the scene changing).
    const int selected = std::exchange(paint_.selected, -1);
    auto match = std::exchange(paint_.match, {});
    {
      QPainter p(&image);
      scene()->render(&p, QRectF(QPointF(0, 0), size), overviewRect_, Qt::KeepAspectRatio);
    }
    paint_.selected = selected;
    paint_.match = std::move(match);
    overview_ = std::move(image);
  }
  if (s * devicePixelRatioF() > double(overview_.width()) / overviewRect_.width()) return false; // the picture is too coarse here
  QPainter p(viewport());
  p.fillRect(event->rect(), paint_.theme.background);
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(mapFromScene(overviewRect_).boundingRect(), overview_);
  auto mark = [&](int v, const QColor& c) {
    if (v < 0 || size_t(v) >= graph_->nodes.size()) return;
    QRectF r = mapFromScene(QRectF(graph_->scenePos(v), graph_->nodes[size_t(v)].size)).boundingRect();
    if (r.width() < 6) r.adjust(-(6 - r.width()) / 2, 0, (6 - r.width()) / 2, 0);
    if (r.height() < 6) r.adjust(0, -(6 - r.height()) / 2, 0, (6 - r.height()) / 2);
    p.fillRect(r, c);
  };
  for (size_t i = 0; i < paint_.match.size(); ++i)
    if (paint_.match[i]) mark(int(i), paint_.match[i] == 2 ? paint_.theme.currentMatch : paint_.theme.match);
  mark(paint_.selected, paint_.theme.selection);
  if (!overlay_.empty()) paintLegend(p, QRectF(viewport()->rect()));
  ++overviewFrames_;
  return true;
}

void GraphCanvas::paintEvent(QPaintEvent* event) {
  if (!paintOverview(event)) QGraphicsView::paintEvent(event);
  if (!firstPaintDone_ && graph_ && !layoutPending_) {
    firstPaintDone_ = true;
    emit firstPainted();
  }
}

void GraphCanvas::drawForeground(QPainter* painter, const QRectF&) {
  if (overlay_.empty()) return;
  painter->save();
  painter->resetTransform();
  paintLegend(*painter, QRectF(viewport()->rect()));
  painter->restore();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (firstView_) frameFirstView();
  minimap_->reposition();
  legend_->reposition();
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  if (!overlay_.empty()) viewport()->update(); // the legend is fixed to the viewport
  minimap_->update();
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  firstView_ = false;
  if (event->modifiers() & Qt::ShiftModifier) {
    QGraphicsView::wheelEvent(event); // scroll
    return;
  }
  double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  zoomBy(std::pow(1.2, steps));
  if (!overlay_.empty()) viewport()->update();
  event->accept();
}

int GraphCanvas::visualAt(const QPoint& pos, bool* onMarker, int* edge) const {
  if (onMarker) *onMarker = false;
  if (edge) *edge = -1;
  if (!graphItem_) return -1;
  const GraphItem::Hit h = graphItem_->hit(mapToScene(pos));
  if (edge) *edge = h.edge;
  if (onMarker) *onMarker = h.onMarker;
  return h.node;
}

bool GraphCanvas::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && graph_) {
    auto* help = static_cast<QHelpEvent*>(event);
    int edge = -1;
    const int v = visualAt(help->pos(), nullptr, &edge);
    QString tip;
    if (v >= 0) {
      const VisualNode& n = graph_->nodes[size_t(v)];
      tip = n.label;
      if (!n.detail.isEmpty()) tip += QLatin1Char('\n') + n.detail;
      if (!n.extra.isEmpty()) tip += QLatin1Char('\n') + n.extra;
    } else if (edge >= 0) {
      tip = graph_->edges[size_t(edge)].label;
    }
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, viewport());
    return true;
  }
  return QGraphicsView::viewportEvent(event);
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  firstView_ = false;
  pressPos_ = event->pos();
  QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || !graph_) return;
  if ((event->pos() - pressPos_).manhattanLength() > 4) { // a drag, not a click
    minimap_->update();
    return;
  }
  bool marker = false;
  int edge = -1;
  int v = visualAt(event->pos(), &marker, &edge);
  if (v >= 0 && marker) {
    toggleExpanded(graph_->nodes[size_t(v)].element);
    return;
  }
  if (v >= 0 && graph_->nodes[size_t(v)].kind == VisualKind::Group) {
    // A module group is not an element of the SDFG: a click on a closed one opens it.
    if (!graph_->nodes[size_t(v)].expanded) toggleExpanded(graph_->nodes[size_t(v)].element);
    return;
  }
  if (v >= 0) emit selectionRequested(qulonglong(graph_->nodes[size_t(v)].element));
  else if (edge >= 0) emit selectionRequested(qulonglong(graph_->edges[size_t(edge)].element));
  else emit selectionRequested(qulonglong(kNoId));
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!graph_) return;
  int v = visualAt(event->pos());
  if (v < 0) return;
  const VisualNode& n = graph_->nodes[size_t(v)];
  if (n.expandable && !n.expanded) toggleExpanded(n.element);
  else emit elementActivated(qulonglong(n.element));
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
  firstView_ = false;
  const bool plain = !(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier));
  switch (event->key()) {
  case Qt::Key_Up: if (plain) return moveToProducer(); break;
  case Qt::Key_Down: if (plain) return moveToConsumer(); break;
  case Qt::Key_Left: if (plain) return moveSideways(-1); break;
  case Qt::Key_Right: if (plain) return moveSideways(+1); break;
  case Qt::Key_Return:
  case Qt::Key_Enter:
  case Qt::Key_Plus:
    if (selected_ != kNoId && isExpandable(selected_) && !isExpanded(selected_)) return setExpanded(selected_, true);
    break;
  case Qt::Key_Minus:
  case Qt::Key_Backspace:
    if (selected_ != kNoId && isExpanded(selected_)) return setExpanded(selected_, false);
    if (int v = currentVisual(); v >= 0 && graph_->nodes[size_t(v)].parent > 0) {
      // Collapse the container around the selection and select it.
      int p = graph_->nodes[size_t(v)].parent;
      if (graph_->nodes[size_t(p)].kind == VisualKind::Map || graph_->nodes[size_t(p)].kind == VisualKind::Library ||
          graph_->nodes[size_t(p)].kind == VisualKind::NestedSdfg || graph_->nodes[size_t(p)].kind == VisualKind::State) {
        ElementId c = graph_->nodes[size_t(p)].element;
        emit selectionRequested(qulonglong(c));
        return setExpanded(c, false);
      }
    }
    break;
  case Qt::Key_F:
    if (plain) return fitToView();
    break;
  case Qt::Key_Equal:
    if (plain || (event->modifiers() & Qt::ControlModifier)) return zoomBy(1.25);
    break;
  default: break;
  }
  QGraphicsView::keyPressEvent(event);
}

} // namespace dcw::views
