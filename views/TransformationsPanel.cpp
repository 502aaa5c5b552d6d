// The transformation headers come before any Qt header: Pattern has a member named `slots`,
// which Qt defines as a macro.
#include "transforms/Matcher.h"
#include "transforms/ModuleScope.h"
#include "transforms/TransformationRegistry.h"

#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "views/TransformationsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace dcw::views {

using namespace dcw::transforms;

struct TransformationsPanel::Row {
  const Transformation* t = nullptr;
  Match match;
  bool applicable = false;
  QString whyNot;
  size_t places = 0; // a row over a module group: how many places it covers
};

namespace {
constexpr int kRowRole = Qt::UserRole + 1;   // index into rows_; -1 on a group
constexpr int kGroupRole = Qt::UserRole + 2; // true on the whole model's group items

QString shortPath(const std::string& p) {
  QString s = QString::fromStdString(p);
  int cut = s.lastIndexOf('/');
  if (cut > 0) cut = s.lastIndexOf('/', cut - 1);
  return cut < 0 ? s : s.mid(cut + 1);
}
} // namespace

TransformationsPanel::TransformationsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  header_ = new QLabel(tr("Select a node to see what applies"), this);
  header_->setWordWrap(true);
  list_ = new QTreeWidget(this);
  list_->setObjectName("transformationList");
  list_->setColumnCount(2);
  list_->setHeaderLabels({tr("Transformation"), tr("Where")});
  list_->setRootIsDecorated(false);
  list_->setMouseTracking(true);
  list_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  details_ = new QLabel(this);
  details_->setObjectName("transformationDetails");
  details_->setWordWrap(true);
  details_->setTextFormat(Qt::RichText);
  changes_ = new QLabel(this);
  changes_->setObjectName(QStringLiteral("transformationChanges"));
  changes_->setWordWrap(true);
  optionsBox_ = new QWidget(this);
  options_ = new QFormLayout(optionsBox_);
  options_->setContentsMargins(0, 0, 0, 0);
  apply_ = new QPushButton(tr("Apply"), this);
  apply_->setObjectName("applyTransformation");
  apply_->setEnabled(false);
  layout->addWidget(header_);
  layout->addWidget(list_, 1);
  layout->addWidget(details_);
  layout->addWidget(changes_);
  layout->addWidget(optionsBox_);
  layout->addWidget(apply_);
  connect(list_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    showDetails(item);
    previewItem(item);
  });
  connect(list_, &QTreeWidget::itemEntered, this, [this](QTreeWidgetItem* item) { previewItem(item); });
  connect(list_, &QTreeWidget::itemDoubleClicked, this, [this] { applyCurrent(); });
  connect(apply_, &QPushButton::clicked, this, [this] { applyCurrent(); });
}

TransformationsPanel::~TransformationsPanel() = default;

void TransformationsPanel::setContext(const ir::Sdfg* sdfg, std::vector<ir::ElementId> anchors) {
  sdfg_ = sdfg;
  anchors_ = std::move(anchors);
  module_.clear();
  refresh();
}

void TransformationsPanel::setModuleContext(const ir::Sdfg* sdfg, const QString& address) {
  sdfg_ = sdfg;
  anchors_.clear();
  module_ = address.toStdString();
  refresh();
}

void TransformationsPanel::refresh() {
  QElapsedTimer timer;
  timer.start();
  list_->clear();
  rows_.clear();
  applicable_ = 0;
  if (!sdfg_) {
    header_->setText(tr("No model"));
    showDetails(nullptr);
    return;
  }
  MatchQuery q;
  for (ir::ElementId id : anchors_)
    if (const ir::Element* e = sdfg_->findElement(id)) q.anchors.push_back(e);
  if (!module_.empty())
    if (auto members = ir::moduleMembers(*sdfg_, module_)) q.anchors.assign(members->begin(), members->end());
  const bool whole = q.anchors.empty() && module_.empty();
  q.includeInapplicable = !whole;
  q.limitPerTransformation = whole ? 50 : 1000;
  const auto& registry = TransformationRegistry::instance();
  std::set<const Transformation*> matched;
  auto candidates = findCandidates(registry, *sdfg_, q);
  if (!module_.empty())
    for (auto& g : moduleCandidates(candidates, module_, *sdfg_))
      rows_.push_back({g.transformation, g.match, true, {}, g.places});
  for (auto& c : candidates) {
    matched.insert(c.transformation);
    rows_.push_back({c.transformation, c.match, c.applicable, QString::fromStdString(c.whyNot)});
  }
  if (!whole)
    for (auto& t : registry.all())
      if (!matched.count(t.get()))
        rows_.push_back({t.get(), Match{std::string(t->name()), {}, {}}, false, QString::fromStdString(whyNoMatch(*t))});
  // The whole model: one collapsed group per kind of opportunity, with its count (not a row for each of
  // 90 identity nodes); a selection: its candidates, one a row.
  std::map<const Transformation*, QTreeWidgetItem*> groups;
  list_->setRootIsDecorated(whole);
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    const QString name = QString::fromUtf8(r.t->name().data(), int(r.t->name().size()));
    QTreeWidgetItem* item = nullptr;
    if (whole) {
      QTreeWidgetItem*& group = groups[r.t];
      if (!group) {
        group = new QTreeWidgetItem(list_);
        group->setText(0, name);
        group->setData(0, kRowRole, -1);
        group->setData(0, kGroupRole, true);
        group->setToolTip(0, QString::fromUtf8(r.t->description().data(), int(r.t->description().size())));
      }
      item = new QTreeWidgetItem(group);
      const int n = group->childCount(); // the search stops at its limit: then "50+"
      group->setText(1, n == 1 ? tr("1 place") : tr("%1%2 places").arg(n).arg(size_t(n) >= q.limitPerTransformation ? "+" : ""));
    } else {
      item = new QTreeWidgetItem(list_);
    }
    item->setText(0, name);
    QString where = r.match.elements.empty() ? QString() : shortPath(r.match.elements.begin()->second);
    if (r.places > 0) {
      const auto a = ir::parseModuleAddress(r.match.elements.begin()->second);
      const QString module = QString::fromStdString(a ? a->module : std::string());
      where = r.places == 1 ? tr("1 in %1").arg(module) : tr("all %1 in %2").arg(r.places).arg(module);
      QFont bold = item->font(0);
      bold.setBold(true);
      item->setFont(0, bold);
    }
    item->setText(1, where);
    item->setData(0, kRowRole, int(i));
    QString tip = QString::fromUtf8(r.t->description().data(), int(r.t->description().size()));
    if (r.places > 0) {
      tip += "\n" + tr("Applies at each of the %n place(s) in the module group, as one step: %1", "", int(r.places))
                        .arg(QString::fromStdString(r.match.elements.begin()->second));
    } else if (r.applicable) {
      ++applicable_;
    } else {
      item->setForeground(0, palette().color(QPalette::Disabled, QPalette::Text));
      item->setForeground(1, palette().color(QPalette::Disabled, QPalette::Text));
      tip += "\n" + tr("Why not: %1").arg(r.whyNot);
    }
    item->setToolTip(0, tip);
    item->setToolTip(1, tip);
  }
  lastMs_ = double(timer.nsecsElapsed()) / 1e6;
  header_->setText(!module_.empty() ? tr("Module group %1: %n applicable at its ops; the bold rows act on all of them at once", "", applicable_)
                                        .arg(QString::fromStdString(ir::parseModuleAddress(module_)->module))
                   : whole ? tr("%n applicable transformation(s) in the model, of %1 kinds; select a node to see what applies there", "",
                              applicable_).arg(int(groups.size()))
                         : tr("%n applicable here; %1 others with the reason", "", applicable_).arg(int(rows_.size()) - applicable_));
  if (list_->topLevelItemCount() > 0) list_->setCurrentItem(list_->topLevelItem(0));
  else showDetails(nullptr);
}

const TransformationsPanel::Row* TransformationsPanel::rowOf(QTreeWidgetItem* item) const {
  if (!item) return nullptr;
  bool ok = false;
  int i = item->data(0, kRowRole).toInt(&ok);
  if (!ok) return nullptr;
  return i >= 0 && size_t(i) < rows_.size() ? &rows_[size_t(i)] : nullptr;
}

void TransformationsPanel::showDetails(QTreeWidgetItem* item) {
  while (options_->rowCount() > 0) options_->removeRow(0);
  const Row* r = rowOf(item);
  apply_->setEnabled(r && r->applicable);
  if (!r) {
    details_->clear();
    if (item && item->data(0, kGroupRole).toBool()) // a group: what it does and where
      details_->setText("<b>" + item->text(0).toHtmlEscaped() + "</b>: " + item->toolTip(0).toHtmlEscaped() + "<br>" +
                        tr("Applies in %n place(s); open the group to choose one.", "", item->childCount()));
    return;
  }
  QString text = "<b>" + QString::fromUtf8(r->t->name().data(), int(r->t->name().size())) + "</b>: " +
                 QString::fromUtf8(r->t->description().data(), int(r->t->description().size())).toHtmlEscaped();
  if (!r->match.elements.empty()) {
    text += "<br>" + tr("Touches:");
    for (auto& [slot, path] : r->match.elements)
      text += "<br>&nbsp;&nbsp;" + QString::fromStdString(slot).toHtmlEscaped() + " = " + QString::fromStdString(path).toHtmlEscaped();
  }
  if (!r->t->keepsDifferentiable()) text += "<br>" + tr("The result can no longer be differentiated.");
  baseDetails_ = text;
  details_->setText(text + (r->applicable ? QString() : "<br><i>" + tr("Why not: %1").arg(r->whyNot.toHtmlEscaped()) + "</i>"));
  // Options are editable whenever the pattern matched: a refusal may depend on them (a tile size
  // larger than the map), and canApply is asked again as they change.
  if (r->match.elements.empty()) return;
  for (auto& o : r->t->options()) {
    QString value = QString::fromStdString(r->t->option(r->match, o.name));
    QWidget* editor = nullptr;
    switch (o.type) {
    case OptionSpec::Type::Int: {
      auto* spin = new QSpinBox(optionsBox_);
      spin->setRange(0, 1 << 24);
      spin->setValue(value.toInt());
      editor = spin;
      break;
    }
    case OptionSpec::Type::Bool: {
      auto* box = new QCheckBox(optionsBox_);
      box->setChecked(value == "true");
      editor = box;
      break;
    }
    case OptionSpec::Type::Choice: {
      auto* combo = new QComboBox(optionsBox_);
      for (auto& c : o.choices) combo->addItem(QString::fromStdString(c));
      combo->setCurrentText(value);
      editor = combo;
      break;
    }
    default: editor = new QLineEdit(value, optionsBox_); break;
    }
    editor->setObjectName(QString::fromStdString("option_" + o.name));
    if (auto* spin = qobject_cast<QSpinBox*>(editor)) connect(spin, &QSpinBox::valueChanged, this, [this] { revalidate(); });
    if (auto* box = qobject_cast<QCheckBox*>(editor)) connect(box, &QCheckBox::toggled, this, [this] { revalidate(); });
    if (auto* combo = qobject_cast<QComboBox*>(editor)) connect(combo, &QComboBox::currentTextChanged, this, [this] { revalidate(); });
    if (auto* line = qobject_cast<QLineEdit*>(editor)) connect(line, &QLineEdit::textChanged, this, [this] { revalidate(); });
    editor->setToolTip(QString::fromStdString(o.description));
    options_->addRow(QString::fromStdString(o.name), editor);
  }
}

void TransformationsPanel::setChangeSummary(const QString& summary) {
  changes_->setText(summary.isEmpty() ? QString() : tr("Will change: %1").arg(summary));
}

QString TransformationsPanel::changeSummary() const { return changes_->text(); }

void TransformationsPanel::previewItem(QTreeWidgetItem* item) {
  const Row* r = rowOf(item);
  setChangeSummary({});
  if (r && r->applicable && item == list_->currentItem()) {
    QString cmd = currentCommand();
    if (!cmd.isEmpty()) emit dryRunRequested(cmd);
  }
  QList<qulonglong> ids;
  if (r && sdfg_)
    for (ir::ElementId id : touchedElements(r->match, *sdfg_)) ids.push_back(id);
  emit previewRequested(ids);
}

bool TransformationsPanel::choose(const QString& transformation) {
  // Applicable rows come first, so the first row with the name is the applicable one if there is one
  // (in a group, its first place).
  for (int i = 0; i < list_->topLevelItemCount(); ++i)
    if (list_->topLevelItem(i)->text(0) == transformation) {
      QTreeWidgetItem* item = list_->topLevelItem(i);
      if (item->data(0, kGroupRole).toBool() && item->childCount() > 0) {
        item->setExpanded(true);
        item = item->child(0);
      }
      if (list_->currentItem() == item) { // no change signal: show and preview it anyway
        showDetails(item);
        previewItem(item);
      }
      list_->setCurrentItem(item);
      return true;
    }
  return false;
}

bool TransformationsPanel::setOption(const QString& name, const QString& value) {
  auto* w = optionsBox_->findChild<QWidget*>("option_" + name);
  if (auto* spin = qobject_cast<QSpinBox*>(w)) spin->setValue(value.toInt());
  else if (auto* box = qobject_cast<QCheckBox*>(w)) box->setChecked(value == "true");
  else if (auto* combo = qobject_cast<QComboBox*>(w)) combo->setCurrentText(value);
  else if (auto* line = qobject_cast<QLineEdit*>(w)) line->setText(value);
  else return false;
  revalidate();
  return true;
}

QString TransformationsPanel::currentCommand() const {
  const Row* r = rowOf(list_->currentItem());
  if (!r || r->match.elements.empty() || !sdfg_) return {};
  Match m = editedMatch(*r);
  if (!r->t->checkOptions(m, "options") || !canApplyMatch(*r->t, m, *sdfg_, nullptr)) return {};
  return QString::fromStdString("apply " + m.str());
}

void TransformationsPanel::revalidate() {
  const Row* r = rowOf(list_->currentItem());
  if (!r || !sdfg_) return;
  Match m = editedMatch(*r);
  Diagnostics why;
  bool ok = false;
  if (auto c = r->t->checkOptions(m, "options"); !c) why.add(c.error());
  else ok = canApplyMatch(*r->t, m, *sdfg_, &why);
  apply_->setEnabled(ok);
  setChangeSummary({});
  if (ok) emit dryRunRequested(QString::fromStdString("apply " + m.str()));
  QString reason = why.firstError() ? QString::fromStdString(why.firstError()->message) : QString();
  details_->setText(baseDetails_ + (ok ? QString() : "<br><i>" + tr("Why not: %1").arg(reason.toHtmlEscaped()) + "</i>"));
}

transforms::Match TransformationsPanel::editedMatch(const Row& row) const {
  const Row* r = &row;
  Match m = r->match;
  for (auto& o : r->t->options()) {
    auto* w = optionsBox_->findChild<QWidget*>(QString::fromStdString("option_" + o.name));
    QString v;
    if (auto* spin = qobject_cast<QSpinBox*>(w)) v = QString::number(spin->value());
    else if (auto* box = qobject_cast<QCheckBox*>(w)) v = box->isChecked() ? "true" : "false";
    else if (auto* combo = qobject_cast<QComboBox*>(w)) v = combo->currentText();
    else if (auto* line = qobject_cast<QLineEdit*>(w)) v = line->text();
    else continue;
    if (v.toStdString() != o.defaultValue || m.options.count(o.name)) m.options[o.name] = v.toStdString();
  }
  return m;
}

void TransformationsPanel::applyCurrent() {
  QString cmd = currentCommand();
  if (!cmd.isEmpty()) emit applyRequested(cmd);
}

} // namespace dcw::views
