#include "views/TimelineView.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace dcw::views {

namespace {
constexpr int kAxis = 22;   // height of the time axis
constexpr int kRow = 18;    // height of one bar row
constexpr int kLaneGap = 8;

QColor kindColor(const std::string& kind) {
  if (kind == "model") return QColor(0x90, 0xa4, 0xae);
  if (kind == "state") return QColor(0x81, 0xc7, 0x84);
  if (kind == "map") return QColor(0x64, 0xb5, 0xf6);
  if (kind == "nested_sdfg") return QColor(0xff, 0xb7, 0x4d);
  if (kind == "tasklet") return QColor(0xba, 0x68, 0xc8);
  return QColor(0xe5, 0x73, 0x73);
}
} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(60);
}

void TimelineView::setReport(const codegen::ProfileReport* report) {
  report_ = report;
  depth_.clear();
  lanes_.clear();
  maxDepth_ = 0;
  if (report_) {
    // Depth from the parent chain (paths of enclosing timed elements).
    std::map<std::string, size_t> index;
    for (size_t i = 0; i < report_->elements.size(); ++i) index[report_->elements[i].path] = i;
    depth_.assign(report_->elements.size(), 0);
    for (size_t i = 0; i < report_->elements.size(); ++i) {
      int d = 0;
      std::string p = report_->elements[i].parent;
      while (!p.empty() && d < 64) {
        auto it = index.find(p);
        if (it == index.end()) break;
        ++d;
        p = report_->elements[it->second].parent;
      }
      depth_[i] = d;
      maxDepth_ = std::max(maxDepth_, d);
    }
    for (auto& e : report_->trace)
      if (std::find(lanes_.begin(), lanes_.end(), e.thread) == lanes_.end()) lanes_.push_back(e.thread);
    std::sort(lanes_.begin(), lanes_.end());
    double end = report_->traceRunWallUs;
    for (auto& e : report_->trace) end = std::max(end, e.startUs + e.durationUs);
    startUs_ = 0;
    spanUs_ = std::max(end, 1.0);
  }
  // Inside a scroll area: the bars' full height, which scrolls when the dock is small.
  setMinimumHeight(kAxis + int(std::max<size_t>(lanes_.size(), 1)) * ((maxDepth_ + 1) * kRow + kLaneGap) + 4);
  update();
}

void TimelineView::setHighlightedPath(const QString& path) {
  highlighted_ = path;
  update();
}

int TimelineView::rowOf(size_t event) const {
  const auto& e = report_->trace[event];
  size_t lane = size_t(std::find(lanes_.begin(), lanes_.end(), e.thread) - lanes_.begin());
  int d = size_t(e.element) < depth_.size() ? depth_[size_t(e.element)] : 0;
  return kAxis + int(lane) * ((maxDepth_ + 1) * kRow + kLaneGap) + d * kRow;
}

QRectF TimelineView::barRect(size_t event) const {
  if (!report_ || event >= report_->trace.size()) return {};
  const auto& e = report_->trace[event];
  double scale = double(width() - 2) / spanUs_;
  double x = 1 + (e.startUs - startUs_) * scale;
  double w = std::max(1.0, e.durationUs * scale);
  return QRectF(x, rowOf(event), w, kRow - 2);
}

QString TimelineView::pathAt(const QPoint& pos) const {
  if (!report_) return {};
  // Deepest bar under the cursor wins.
  for (size_t i = report_->trace.size(); i-- > 0;)
    if (barRect(i).contains(pos)) {
      int el = report_->trace[i].element;
      if (el >= 0 && size_t(el) < report_->elements.size()) return QString::fromStdString(report_->elements[size_t(el)].path);
    }
  return {};
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!report_ || report_->trace.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Profile the model (Run ▸ Profile) to see a timeline of one run"));
    return;
  }
  // Axis: ticks at a round step.
  p.setPen(palette().color(QPalette::Text));
  double step = std::pow(10.0, std::floor(std::log10(spanUs_ / 5)));
  if (spanUs_ / step > 10) step *= 2;
  if (spanUs_ / step > 10) step *= 2.5;
  double scale = double(width() - 2) / spanUs_;
  for (double t = std::ceil(startUs_ / step) * step; t < startUs_ + spanUs_; t += step) {
    int x = int(1 + (t - startUs_) * scale);
    p.drawLine(x, kAxis - 6, x, kAxis - 2);
    QString label = t >= 1000 ? QStringLiteral("%1 ms").arg(t / 1000, 0, 'g', 4) : QStringLiteral("%1 µs").arg(t, 0, 'g', 4);
    p.drawText(x + 2, kAxis - 8, label);
  }
  for (size_t lane = 0; lane < lanes_.size(); ++lane) {
    int y = kAxis + int(lane) * ((maxDepth_ + 1) * kRow + kLaneGap);
    p.setPen(palette().color(QPalette::Mid));
    p.drawText(2, y + kRow - 5, lanes_[lane] >= (1u << 16) ? tr("GPU stream %1").arg(lanes_[lane] - (1u << 16)) : tr("thread %1").arg(lanes_[lane]));
  }
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  p.setFont(f);
  for (size_t i = 0; i < report_->trace.size(); ++i) {
    QRectF r = barRect(i);
    if (r.right() < 0 || r.left() > width()) continue;
    const auto& el = report_->elements[size_t(report_->trace[i].element)];
    QColor c = kindColor(el.kind);
    bool hl = !highlighted_.isEmpty() && highlighted_.toStdString() == el.path;
    p.setPen(hl ? QPen(palette().color(QPalette::Highlight), 2) : QPen(c.darker(130)));
    p.setBrush(c);
    p.drawRect(r);
    if (r.width() > 40) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 p.fontMetrics().elidedText(QString::fromStdString(el.label), Qt::ElideRight, int(r.width()) - 5));
    }
  }
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (!report_) return;
  double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
  double at = startUs_ + spanUs_ * event->position().x() / std::max(1, width());
  spanUs_ = std::clamp(spanUs_ * factor, 0.5, std::max(1.0, report_->traceRunWallUs * 2));
  startUs_ = at - spanUs_ * event->position().x() / std::max(1, width());
  update();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  pressPos_ = event->pos();
  pressStart_ = startUs_;
  dragged_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton)) return;
  int dx = event->pos().x() - pressPos_.x();
  if (std::abs(dx) > 3) dragged_ = true;
  startUs_ = pressStart_ - dx * spanUs_ / std::max(1, width());
  update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (dragged_) return;
  QString path = pathAt(event->pos());
  if (!path.isEmpty()) emit elementClicked(path);
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && report_) {
    auto* help = static_cast<QHelpEvent*>(event);
    for (size_t i = report_->trace.size(); i-- > 0;)
      if (barRect(i).contains(help->pos())) {
        const auto& t = report_->trace[i];
        const auto& el = report_->elements[size_t(t.element)];
        QToolTip::showText(help->globalPos(), tr("%1 (%2)\n%3 µs at %4 µs, thread %5")
                                                  .arg(QString::fromStdString(el.path))
                                                  .arg(QString::fromStdString(el.kind))
                                                  .arg(t.durationUs, 0, 'f', 1)
                                                  .arg(t.startUs, 0, 'f', 1)
                                                  .arg(t.thread));
        return true;
      }
    QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

} // namespace dcw::views
