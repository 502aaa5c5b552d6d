// RooflineView: every profiled element that has a cost placed by arithmetic intensity (FLOPs per
// byte moved, x) and achieved performance (GFLOP/s, y), on log axes, under the machine's roofs —
// memory bandwidth × intensity and the float32 compute peak (codegen/run/MachinePeaks, measured).
// How far a point sits below its roof is what a transformation can still win. A click on a point
// emits elementClicked(path). Qt Charts (Debian qt6-charts-dev).
#pragma once

#include "codegen/run/ProfileReport.h"

#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QScatterSeries;

namespace dcw::views {

class RooflineView : public QWidget {
  Q_OBJECT
public:
  explicit RooflineView(QWidget* parent = nullptr);
  void setReport(const codegen::ProfileReport* report);
  // Points shown: (element path, intensity, GFLOP/s).
  struct Point {
    QString path;
    double intensity = 0;
    double gflops = 0;
  };
  const std::vector<Point>& points() const { return points_; }
  QChart* chart() const { return chart_; }
  // What a click on the point nearest to (intensity, GFLOP/s) does.
  void clickNear(double intensity, double gflops);

signals:
  void elementClicked(const QString& path);

private:
  QChart* chart_ = nullptr;
  QChartView* view_ = nullptr;
  std::vector<Point> points_;
};

} // namespace dcw::views
