// CategoryLegend: see the header.
#include "views/CategoryLegend.h"

#include <QFontMetrics>
#include <QPainter>

namespace dcw::views {

namespace {
constexpr int kMargin = 6, kSwatch = 10, kGap = 6;
}

CategoryLegend::CategoryLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("categoryLegend"));
  setAttribute(Qt::WA_TransparentForMouseEvents); // the canvas below stays clickable
  setToolTip(tr("Op colours: what each library node's operator does"));
  hide();
}

void CategoryLegend::setCategories(std::vector<std::pair<OpCategory, int>> counts, const CanvasTheme& theme) {
  counts_ = std::move(counts);
  theme_ = theme;
  QFontMetrics fm(font());
  int w = 0;
  for (auto& [c, n] : counts_) w = std::max(w, fm.horizontalAdvance(QStringLiteral("%1  %2").arg(opCategoryName(c)).arg(n)));
  setFixedSize(kMargin * 2 + kSwatch + kGap + w, kMargin * 2 + int(counts_.size()) * fm.height());
  reposition();
  update();
}

void CategoryLegend::reposition() {
  // Top right, left of a vertical scroll bar: the first view frames the graph's start at the left and
  // the minimap keeps the bottom right.
  if (parentWidget()) move(parentWidget()->width() - width() - 12 - 16, 12);
}

void CategoryLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  QColor bg = theme_.background;
  bg.setAlpha(235);
  p.setPen(QPen(theme_.frameBorder, 1));
  p.setBrush(bg);
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
  QFontMetrics fm(font());
  int y = kMargin;
  for (auto& [c, n] : counts_) {
    QRect sw(kMargin, y + (fm.height() - kSwatch) / 2, kSwatch, kSwatch);
    p.setPen(QPen(theme_.stroke, 1));
    p.setBrush(theme_.category(c));
    p.drawRect(sw);
    p.setPen(theme_.text);
    p.drawText(QRect(sw.right() + kGap, y, width() - sw.right() - kGap - kMargin, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               opCategoryName(c));
    p.setPen(theme_.textDim);
    p.drawText(QRect(sw.right() + kGap, y, width() - sw.right() - kGap - kMargin, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
               QString::number(n));
    y += fm.height();
  }
}

} // namespace dcw::views
