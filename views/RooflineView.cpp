#include "views/RooflineView.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dcw::views {

RooflineView::RooflineView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignRight);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  view_ = new QChartView(chart_, this);
  view_->setRenderHint(QPainter::Antialiasing);
  layout->addWidget(view_);
  setMinimumHeight(120); // the Profile dock grows when a profile is shown
}

void RooflineView::setReport(const codegen::ProfileReport* report) {
  chart_->removeAllSeries();
  for (auto* a : chart_->axes()) {
    chart_->removeAxis(a);
    delete a;
  }
  points_.clear();
  if (!report) return;
  double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = 0;
  for (auto& e : report->elements) {
    if (e.kind == "model" || !e.flops || !e.bytes || !e.gflopsPerSecond || *e.bytes <= 0 || *e.flops <= 0) continue;
    Point p{QString::fromStdString(e.path), *e.flops / *e.bytes, *e.gflopsPerSecond};
    if (p.gflops <= 0) continue;
    points_.push_back(p);
    xmin = std::min(xmin, p.intensity);
    xmax = std::max(xmax, p.intensity);
    ymin = std::min(ymin, p.gflops);
    ymax = std::max(ymax, p.gflops);
  }
  double peak = report->peaks ? report->peaks->gflopsFloat32 : 0;
  double bw = report->peaks ? report->peaks->bandwidthGBs : 0;
  if (points_.empty() && peak <= 0) {
    chart_->setTitle(tr("Roofline: no element with a cost was timed"));
    return;
  }
  if (points_.empty()) xmin = 0.01, xmax = 100, ymin = 0.01, ymax = peak;
  xmin = std::pow(10, std::floor(std::log10(xmin)) - 1);
  xmax = std::pow(10, std::ceil(std::log10(std::max(xmax, peak > 0 && bw > 0 ? 4 * peak / bw : xmax))) + 1);
  ymin = std::pow(10, std::floor(std::log10(ymin)));
  ymax = std::pow(10, std::ceil(std::log10(std::max(ymax, peak) * 1.5)));
  auto* ax = new QLogValueAxis;
  ax->setTitleText(tr("Arithmetic intensity (FLOP/byte)"));
  ax->setBase(10);
  ax->setRange(xmin, xmax);
  ax->setLabelFormat("%g");
  auto* ay = new QLogValueAxis;
  ay->setTitleText(tr("GFLOP/s"));
  ay->setBase(10);
  ay->setRange(ymin, ymax);
  ay->setLabelFormat("%.3g");
  ay->setMinorTickCount(-1); // minor ticks at 2..9 of each decade, as log paper
  chart_->addAxis(ax, Qt::AlignBottom);
  chart_->addAxis(ay, Qt::AlignLeft);
  if (peak > 0 && bw > 0) {
    auto* roof = new QLineSeries;
    roof->setName(tr("roof: %1 GB/s, %2 GFLOP/s (float32)").arg(bw, 0, 'f', 1).arg(peak, 0, 'f', 1));
    double ridge = peak / bw;
    roof->append(xmin, bw * xmin);
    roof->append(ridge, peak);
    roof->append(xmax, peak);
    chart_->addSeries(roof);
    roof->attachAxis(ax);
    roof->attachAxis(ay);
  }
  auto* pts = new QScatterSeries;
  pts->setName(tr("elements (%1)").arg(points_.size()));
  pts->setMarkerSize(8);
  for (auto& p : points_) pts->append(p.intensity, p.gflops);
  chart_->addSeries(pts);
  pts->attachAxis(ax);
  pts->attachAxis(ay);
  connect(pts, &QScatterSeries::clicked, this, [this](const QPointF& at) { clickNear(at.x(), at.y()); });
  chart_->setTitle(QString());
  pts->setName(report->peaks ? tr("elements (%1)\n%2, %3 threads").arg(points_.size()).arg(QString::fromStdString(report->peaks->cpuModel)).arg(report->peaks->threads)
                             : tr("elements (%1)\nmachine peaks not measured").arg(points_.size()));
}

void RooflineView::clickNear(double intensity, double gflops) {
  const Point* best = nullptr;
  double bestD = 1e300;
  for (auto& p : points_) {
    double d = std::hypot(std::log10(p.intensity) - std::log10(intensity), std::log10(p.gflops) - std::log10(gflops));
    if (d < bestD) {
      bestD = d;
      best = &p;
    }
  }
  if (best) emit elementClicked(best->path);
}

} // namespace dcw::views
