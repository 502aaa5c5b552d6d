// WeightView: the weight viewer dock — for a constant array (an ONNX initializer) its name, type and
// shape, its statistics (WeightStats) and a histogram of its values; for anything else a hint to
// select a weight. It copies what it shows, so it never holds a pointer into the model.
#pragma once

#include "views/WeightStats.h"

#include <QWidget>

class QLabel;

namespace dcw::ir {
class DataDescriptor;
}

namespace dcw::views {

class Histogram;

class WeightView : public QWidget {
  Q_OBJECT
public:
  explicit WeightView(QWidget* parent = nullptr);
  // Shows `desc` when it is a constant array; otherwise (nullptr too) the hint.
  void setData(const ir::DataDescriptor* desc);
  const WeightStats& stats() const { return stats_; }
  bool showsWeights() const { return stats_.ok; }
  QLabel* statsLabel() const { return stats_label_; }

private:
  QLabel* title_ = nullptr;
  QLabel* stats_label_ = nullptr;
  Histogram* histogram_ = nullptr;
  WeightStats stats_;
};

} // namespace dcw::views
