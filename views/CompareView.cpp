// CompareView: see the header.
#include "views/CompareView.h"

#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "views/GraphCanvas.h"

#include <QLabel>
#include <QLineF>
#include <QListWidget>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dcw::views {

namespace {
double fraction(const QScrollBar* b) { return b->maximum() > b->minimum() ? double(b->value() - b->minimum()) / (b->maximum() - b->minimum()) : 0.5; }
void setFraction(QScrollBar* b, double f) { b->setValue(b->minimum() + int(std::lround(f * (b->maximum() - b->minimum())))); }
} // namespace

CompareView::CompareView(std::shared_ptr<const ir::Sdfg> left, const QString& leftTitle, std::shared_ptr<const ir::Sdfg> right,
                         const QString& rightTitle, QWidget* parent)
    : QWidget(parent), leftSdfg_(std::move(left)), rightSdfg_(std::move(right)) {
  setObjectName(QStringLiteral("compareView"));
  setWindowTitle(tr("Compare — %1 and %2").arg(leftTitle, rightTitle));
  diff_ = analysis::diffGraphs(*leftSdfg_, *rightSdfg_);

  auto side = [&](const QString& title, GraphCanvas*& canvas) {
    auto* box = new QWidget;
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    v->addWidget(label);
    canvas = new GraphCanvas;
    v->addWidget(canvas, 1);
    return box;
  };
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(side(leftTitle, left_));
  split->addWidget(side(rightTitle, right_));
  summary_ = new QLabel(tr("%1 added · %2 removed · %3 changed · %4 the same (nodes matched by path)")
                            .arg(diff_.added)
                            .arg(diff_.removed)
                            .arg(diff_.changed)
                            .arg(diff_.same));
  summary_->setObjectName(QStringLiteral("compareSummary"));
  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("compareDifferences"));
  list_->setUniformItemSizes(true);
  for (auto& line : diff_.lines) list_->addItem(QString::fromStdString(line));
  auto* vsplit = new QSplitter(Qt::Vertical);
  vsplit->addWidget(split);
  vsplit->addWidget(list_);
  vsplit->setStretchFactor(0, 4);
  vsplit->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(vsplit, 1);

  left_->setDiffMarks(diff_.left);
  right_->setDiffMarks(diff_.right);
  left_->setSdfg(leftSdfg_.get());
  right_->setSdfg(rightSdfg_.get());
  for (auto [a, b] : {std::pair{left_, right_}, std::pair{right_, left_}}) {
    // The user's own moves (scroll bars, wheel zoom), not each canvas framing its first view.
    for (QScrollBar* bar : {a->horizontalScrollBar(), a->verticalScrollBar()}) {
      connect(bar, &QScrollBar::actionTriggered, this, [this, a, b] { QMetaObject::invokeMethod(this, [this, a, b] { follow(a, b); }, Qt::QueuedConnection); });
      connect(bar, &QScrollBar::sliderMoved, this, [this, a, b] { follow(a, b); });
    }
    connect(a, &GraphCanvas::zoomChanged, this, [this, a, b] { follow(a, b); });
  }
  connect(list_, &QListWidget::currentRowChanged, this, &CompareView::showDifference);
  resize(1400, 900);
}

CompareView::~CompareView() = default;

void CompareView::follow(GraphCanvas* from, GraphCanvas* to) {
  if (following_) return;
  following_ = true;
  const double s = from->transform().m11();
  if (std::abs(to->transform().m11() - s) > 1e-9) to->setTransform(QTransform::fromScale(s, s));
  // Element by element: the node nearest the middle of `from` that the other side has too (by path)
  // lands at the same place in `to`'s view; in proportion when no such node is drawn on both sides.
  const QPointF middle = from->mapToScene(from->viewport()->rect().center());
  if (auto anchor = commonAnchor(from, to, middle)) {
    to->centerOn(anchor->second + (middle - anchor->first));
  } else {
    setFraction(to->horizontalScrollBar(), fraction(from->horizontalScrollBar()));
    setFraction(to->verticalScrollBar(), fraction(from->verticalScrollBar()));
  }
  following_ = false;
}

std::optional<std::pair<QPointF, QPointF>> CompareView::commonAnchor(const GraphCanvas* from, const GraphCanvas* to, QPointF near) const {
  const VisualGraph* a = from->visualGraph();
  const VisualGraph* b = to->visualGraph();
  if (!a || !b || !from->sdfg() || !to->sdfg()) return std::nullopt;
  // Nodes by distance from `near`; the first one drawn on both sides wins.
  std::vector<std::pair<double, int>> order;
  order.reserve(a->nodes.size());
  for (size_t i = 0; i < a->nodes.size(); ++i) {
    const VisualNode& n = a->nodes[i];
    if (n.element == ir::kNoId || VisualGraph::isGroupId(n.element) || !n.children.empty()) continue; // leaves of the IR
    const QPointF c = a->scenePos(int(i)) + QPointF(n.size.width() / 2, n.size.height() / 2);
    order.emplace_back(QLineF(c, near).length(), int(i));
  }
  std::sort(order.begin(), order.end());
  for (size_t k = 0; k < order.size() && k < 64; ++k) {
    const VisualNode& n = a->nodes[size_t(order[k].second)];
    const ir::Element* e = from->sdfg()->findElement(n.element);
    if (!e) continue;
    auto there = ir::resolvePath(*to->sdfg(), ir::pathOfElement(*from->sdfg(), *e));
    if (!there) continue;
    const int j = b->find((*there)->id());
    if (j < 0) continue;
    const VisualNode& m = b->nodes[size_t(j)];
    return std::pair{a->scenePos(order[k].second) + QPointF(n.size.width() / 2, n.size.height() / 2),
                     b->scenePos(j) + QPointF(m.size.width() / 2, m.size.height() / 2)};
  }
  return std::nullopt;
}

void CompareView::showDifference(int row) {
  if (row < 0 || size_t(row) >= diff_.lines.size()) return;
  const std::string& line = diff_.lines[size_t(row)];
  std::string path = line.substr(2);
  if (auto colon = path.find(": "); colon != std::string::npos && line[0] == '~') path = path.substr(0, colon);
  auto show = [&](GraphCanvas* canvas, const ir::Sdfg& sdfg) {
    auto e = ir::resolvePath(sdfg, path);
    if (e && *e) canvas->showSelection((*e)->id());
  };
  following_ = true; // each side goes to its own element
  if (line[0] != '+') show(left_, *leftSdfg_);
  if (line[0] != '-') show(right_, *rightSdfg_);
  following_ = false;
}

} // namespace dcw::views
