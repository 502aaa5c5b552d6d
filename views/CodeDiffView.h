// CodeDiffView: what one history step changed in the generated code — a read-only QScintilla editor
// with diff highlighting (QsciLexerDiff: added lines green, removed red, hunk headers) showing the
// unified diff of the code before and after the step (core/support/LineDiff.h), with a summary line
// ("MapTiling on conv_map: +14 −6 lines").
#pragma once

#include <QWidget>

class QLabel;
class QsciScintilla;
class QsciLexerDiff;

namespace dcw::views {

class CodeDiffView : public QWidget {
  Q_OBJECT
public:
  explicit CodeDiffView(QWidget* parent = nullptr);
  // Shows `diff` (unified format) under `summary`; an empty diff says the code did not change.
  void setDiff(const QString& summary, const QString& diff);
  void setMessage(const QString& message);
  QString summary() const;
  QString text() const;
  QsciScintilla* editor() const { return editor_; }

private:
  QLabel* summary_ = nullptr;
  QsciScintilla* editor_ = nullptr;
  QsciLexerDiff* lexer_ = nullptr;
};

} // namespace dcw::views
