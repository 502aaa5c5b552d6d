#include "views/TourDialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace dcw::views {

QString TourDialog::tourMarkdown() {
  QFile f(QStringLiteral(":/docs/tour.md"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll());
}

TourDialog::TourDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("tourDialog"));
  setWindowTitle(tr("Tour"));
  browser_ = new QTextBrowser(this);
  browser_->setObjectName(QStringLiteral("tourBrowser"));
  browser_->setOpenExternalLinks(true);
  browser_->setMarkdown(tourMarkdown());
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(browser_);
  layout->addWidget(buttons);
  resize(720, 640);
}

} // namespace dcw::views
