#include "views/SummaryView.h"

#include "core/analysis/ModelSummary.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

namespace dcw::views {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString esc(const QString& s) { return s.toHtmlEscaped(); }

QString typeOf(const analysis::ArrayInfo& a) {
  QStringList dims;
  for (auto& d : a.shape) dims << qs(d);
  return qs(a.dtype) + QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

QTreeWidgetItem* group(QTreeWidget* tree, const QString& name, int count) {
  auto* g = new QTreeWidgetItem(tree, {name, QStringLiteral("%1").arg(count)});
  QFont f = g->font(0);
  f.setBold(true);
  g->setFont(0, f);
  return g;
}

} // namespace

SummaryView::SummaryView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("summaryTitle"));
  QFont tf = title_->font();
  tf.setPointSizeF(tf.pointSizeF() * 1.3);
  tf.setBold(true);
  title_->setFont(tf);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(title_);

  facts_ = new QLabel(this);
  facts_->setObjectName(QStringLiteral("summaryFacts"));
  facts_->setTextFormat(Qt::RichText);
  facts_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  facts_->setWordWrap(true);
  layout->addWidget(facts_);

  auto* split = new QSplitter(Qt::Vertical, this);
  ops_ = new QTreeWidget(split);
  ops_->setObjectName(QStringLiteral("summaryOps"));
  ops_->setHeaderLabels({tr("Operation"), tr("Count")});
  ops_->setRootIsDecorated(false);
  ops_->setUniformRowHeights(true);
  ops_->setAlternatingRowColors(true);
  ops_->setSortingEnabled(true);
  ops_->header()->setStretchLastSection(false);
  ops_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  ops_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);

  io_ = new QTreeWidget(split);
  io_->setObjectName(QStringLiteral("summaryIo"));
  io_->setHeaderLabels({tr("Name"), tr("Type / Value")});
  io_->setUniformRowHeights(true);
  io_->setAlternatingRowColors(true);
  io_->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  io_->setColumnWidth(0, 200);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  clear();
}

void SummaryView::clear() {
  title_->setText(tr("No model"));
  facts_->setText(tr("Open an ONNX model (.onnx) or a saved SDFG (.dcw.json) with File ▸ Open, "
                     "or drop one on this window."));
  ops_->clear();
  io_->clear();
}

void SummaryView::setSummary(const analysis::ModelSummary& s) {
  QLocale loc;
  title_->setText(qs(s.name));

  QStringList symbols;
  for (auto& [name, type] : s.symbols) symbols << esc(qs(name)) + QStringLiteral(": ") + esc(qs(type));
  auto row = [](const QString& k, const QString& v) {
    return QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>").arg(k, v);
  };
  const QString nodes = loc.toString(qlonglong(s.nodeCount));
  QString ops = s.stateCount == 1 ? tr("%1 operations in 1 state").arg(nodes)
                                  : tr("%1 operations in %2 states").arg(nodes, QString::number(s.stateCount));
  if (s.opaqueOps) ops += tr(" (%1 opaque: inspectable, not runnable)").arg(s.opaqueOps);
  QString params = loc.toString(qlonglong(s.parameterCount)) + QStringLiteral(" (") +
                   loc.formattedDataSize(s.parameterBytes, 1, QLocale::DataSizeTraditionalFormat) + QLatin1Char(')');
  QString html = QStringLiteral("<table>");
  html += row(tr("Operations"), ops);
  html += row(tr("Parameters"), params);
  html += row(tr("Depth"), tr("%1 operations on the longest chain; subgraph nesting %2").arg(s.depth).arg(s.nesting));
  html += row(tr("Inputs / outputs"), QStringLiteral("%1 / %2").arg(s.inputs.size()).arg(s.outputs.size()));
  html += row(tr("Symbols"), symbols.isEmpty() ? tr("none") : symbols.join(QStringLiteral(", ")));
  html += QStringLiteral("</table>");
  facts_->setText(html);

  ops_->setSortingEnabled(false);
  ops_->clear();
  for (auto& [type, count] : s.opsByType) {
    auto* it = new QTreeWidgetItem(ops_);
    it->setText(0, qs(type));
    it->setData(1, Qt::DisplayRole, qlonglong(count));
    it->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
  }
  ops_->setSortingEnabled(true);
  ops_->sortByColumn(1, Qt::DescendingOrder);

  io_->clear();
  std::map<std::string, const analysis::ArrayInfo*> arrays;
  for (auto& a : s.arrays) arrays.emplace(a.name, &a);
  auto addArgs = [&](const QString& title, const std::vector<std::string>& names) {
    auto* g = group(io_, title, int(names.size()));
    for (auto& n : names) {
      auto* it = new QTreeWidgetItem(g);
      it->setText(0, qs(n));
      auto found = arrays.find(n);
      if (found != arrays.end()) {
        it->setText(1, typeOf(*found->second));
        it->setToolTip(0, qs(found->second->path));
      }
    }
    g->setExpanded(true);
  };
  addArgs(tr("Inputs"), s.inputs);
  addArgs(tr("Outputs"), s.outputs);
  if (!s.symbols.empty()) {
    auto* g = group(io_, tr("Symbols"), int(s.symbols.size()));
    for (auto& [name, type] : s.symbols) new QTreeWidgetItem(g, {qs(name), qs(type)});
    g->setExpanded(true);
  }
  if (!s.metadata.empty()) {
    auto* g = group(io_, tr("Metadata"), int(s.metadata.size()));
    for (auto& [k, v] : s.metadata) {
      auto* it = new QTreeWidgetItem(g, {qs(k), qs(v).simplified()});
      it->setToolTip(1, qs(v));
    }
  }
}

} // namespace dcw::views
