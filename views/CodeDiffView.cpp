#include "views/CodeDiffView.h"

#include <Qsci/qscilexerdiff.h>
#include <Qsci/qsciscintilla.h>

#include <QFontDatabase>
#include <QLabel>
#include <QVBoxLayout>

namespace dcw::views {

CodeDiffView::CodeDiffView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  summary_ = new QLabel(tr("Choose a step in the History panel and use Edit ▸ Show Code Changes of the Step"), this);
  summary_->setObjectName(QStringLiteral("codeDiffSummary"));
  summary_->setContentsMargins(6, 4, 6, 4);
  summary_->setWordWrap(true);
  editor_ = new QsciScintilla(this);
  editor_->setReadOnly(true);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  lexer_ = new QsciLexerDiff(editor_);
  lexer_->setDefaultFont(mono);
  lexer_->setFont(mono, -1);
  editor_->setLexer(lexer_);
  editor_->setMarginWidth(0, 0);
  layout->addWidget(summary_);
  layout->addWidget(editor_, 1);
}

void CodeDiffView::setDiff(const QString& summary, const QString& diff) {
  summary_->setText(diff.isEmpty() ? summary + tr(" — the generated code did not change") : summary);
  editor_->setText(diff);
}

void CodeDiffView::setMessage(const QString& message) {
  summary_->setText(message);
  editor_->clear();
}

QString CodeDiffView::summary() const { return summary_->text(); }
QString CodeDiffView::text() const { return editor_->text(); }

} // namespace dcw::views
