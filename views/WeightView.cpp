#include "views/WeightView.h"

#include "core/ir/DataDescriptor.h"

#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>

namespace dcw::views {

// The histogram: one bar per bucket, value range underneath.
class Histogram : public QWidget {
public:
  explicit Histogram(QWidget* parent) : QWidget(parent) { setMinimumHeight(120); }
  void setStats(const WeightStats* s) {
    stats_ = s;
    update();
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!stats_ || !stats_->ok || stats_->histogram.empty()) return;
    const auto& h = stats_->histogram;
    int64_t peak = std::max<int64_t>(1, *std::max_element(h.begin(), h.end()));
    QRectF area = QRectF(rect()).adjusted(6, 6, -6, -20);
    double w = area.width() / double(h.size());
    p.setPen(Qt::NoPen);
    p.setBrush(palette().color(QPalette::Highlight));
    for (size_t i = 0; i < h.size(); ++i) {
      double bh = area.height() * double(h[i]) / double(peak);
      if (h[i] > 0) bh = std::max(bh, 1.0);
      p.drawRect(QRectF(area.left() + double(i) * w, area.bottom() - bh, std::max(1.0, w - 1), bh));
    }
    p.setPen(palette().color(QPalette::Text));
    QRectF labels(area.left(), area.bottom() + 2, area.width(), 16);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QString::number(stats_->min, 'g', 4));
    p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QString::number(stats_->max, 'g', 4));
    p.drawText(labels, Qt::AlignHCenter | Qt::AlignVCenter, tr("peak %1").arg(peak));
  }

private:
  const WeightStats* stats_ = nullptr;
};

WeightView::WeightView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("weightView"));
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stats_label_ = new QLabel(this);
  stats_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  histogram_ = new Histogram(this);
  layout->addWidget(title_);
  layout->addWidget(stats_label_);
  layout->addWidget(histogram_, 1);
  setData(nullptr);
}

void WeightView::setData(const ir::DataDescriptor* desc) {
  stats_ = WeightStats();
  if (!desc || !desc->constant) {
    title_->setText(tr("Select a constant array (weights) to see its values."));
    stats_label_->clear();
    histogram_->setStats(nullptr);
    return;
  }
  title_->setText(QStringLiteral("<b>%1</b> &nbsp; %2")
                      .arg(QString::fromStdString(desc->name()).toHtmlEscaped(),
                           QString::fromStdString(desc->typeString()).toHtmlEscaped()));
  stats_ = computeWeightStats(*desc->constant);
  if (!stats_.ok) {
    stats_label_->setText(stats_.error);
    histogram_->setStats(nullptr);
    return;
  }
  auto num = [](double v) { return QString::number(v, 'g', 5); };
  stats_label_->setText(
      tr("<table>"
         "<tr><td>elements&nbsp;</td><td>%1</td><td>&nbsp;&nbsp;zeros&nbsp;</td><td>%2 (%3%)</td></tr>"
         "<tr><td>min</td><td>%4</td><td>&nbsp;&nbsp;max</td><td>%5</td></tr>"
         "<tr><td>mean</td><td>%6</td><td>&nbsp;&nbsp;std</td><td>%7</td></tr>"
         "<tr><td>NaN</td><td>%8</td><td>&nbsp;&nbsp;Inf</td><td>%9</td></tr></table>")
          .arg(stats_.count)
          .arg(stats_.zeros)
          .arg(stats_.count ? 100.0 * double(stats_.zeros) / double(stats_.count) : 0.0, 0, 'f', 1)
          .arg(num(stats_.min), num(stats_.max), num(stats_.mean), num(stats_.stddev))
          .arg(stats_.nans)
          .arg(stats_.infs));
  histogram_->setStats(&stats_);
}

} // namespace dcw::views
