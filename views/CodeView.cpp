#include "views/CodeView.h"

#include <Qsci/qscilexercpp.h>
#include <Qsci/qsciscintilla.h>

#include <QEvent>
#include <QFontDatabase>
#include <QLabel>
#include <QMouseEvent>
#include <QVBoxLayout>

#include <algorithm>

namespace dcw::views {

namespace {

QColor blend(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t), float(a.greenF() * (1 - t) + b.greenF() * t),
                          float(a.blueF() * (1 - t) + b.blueF() * t));
}

// Forwards left-button releases on the editor's viewport as "line clicked".
class ClickFilter : public QObject {
public:
  explicit ClickFilter(CodeView* view) : QObject(view), view_(view) {}
  bool eventFilter(QObject* obj, QEvent* event) override {
    if (event->type() == QEvent::MouseButtonRelease && static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton) {
      QsciScintilla* ed = view_->editor();
      if (!ed->hasSelectedText()) {
        QPoint p = static_cast<QMouseEvent*>(event)->position().toPoint();
        long pos = ed->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMPOINTCLOSE, long(p.x()), long(p.y()));
        if (pos < 0) pos = ed->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMPOINT, long(p.x()), long(p.y()));
        int line = int(ed->SendScintilla(QsciScintillaBase::SCI_LINEFROMPOSITION, pos));
        view_->activateLine(line + 1);
      }
    }
    return QObject::eventFilter(obj, event);
  }

private:
  CodeView* view_;
};

} // namespace

CodeView::CodeView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setContentsMargins(6, 4, 6, 4);
  message_->setObjectName(QStringLiteral("codeMessage"));
  message_->hide();
  layout->addWidget(message_);

  editor_ = new QsciScintilla(this);
  editor_->setObjectName(QStringLiteral("codeEditor"));
  editor_->setReadOnly(true);
  editor_->setUtf8(true);
  editor_->setWrapMode(QsciScintilla::WrapNone);
  lexer_ = new QsciLexerCPP(editor_);
  lexer_->setFoldCompact(false);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  lexer_->setDefaultFont(mono);
  lexer_->setFont(mono, -1);
  editor_->setLexer(lexer_);
  editor_->setMarginType(0, QsciScintilla::NumberMargin);
  editor_->setMarginLineNumbers(0, true);
  editor_->setMarginWidth(0, QStringLiteral("00000"));
  editor_->setMarginsFont(mono);
  editor_->setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
  editor_->setCaretLineVisible(true);
  marker_ = editor_->markerDefine(QsciScintilla::Background);
  editor_->viewport()->installEventFilter(new ClickFilter(this));
  layout->addWidget(editor_, 1);
  setTheme(ThemeKind::Light);
}

void CodeView::setCode(const QString& source, std::vector<codegen::SourceMapEntry> map) {
  map_ = std::move(map);
  message_->hide();
  message_->clear();
  editor_->markerDeleteAll(marker_);
  editor_->setText(source);
  editor_->setMarginWidth(0, QStringLiteral("0") + QString::number(editor_->lines()));
  editor_->setFirstVisibleLine(0);
}

void CodeView::setMessage(const QString& message) {
  map_.clear();
  editor_->markerDeleteAll(marker_);
  editor_->clear();
  message_->setText(message);
  message_->show();
}

void CodeView::clear() {
  map_.clear();
  editor_->markerDeleteAll(marker_);
  editor_->clear();
  message_->clear();
  message_->hide();
}

QString CodeView::message() const { return message_->isHidden() ? QString() : message_->text(); }

void CodeView::highlightElement(ir::ElementId id) {
  std::vector<const codegen::SourceMapEntry*> hits;
  if (id != ir::kNoId)
    for (const auto& e : map_)
      if (e.element == id) hits.push_back(&e);
  markEntries(hits);
}

void CodeView::highlightPath(const std::string& path) {
  std::vector<const codegen::SourceMapEntry*> hits;
  if (!path.empty())
    for (const auto& e : map_)
      if (e.path == path) hits.push_back(&e);
  markEntries(hits);
}

void CodeView::markEntries(const std::vector<const codegen::SourceMapEntry*>& entries) {
  editor_->markerDeleteAll(marker_);
  int first = -1;
  const int lines = editor_->lines();
  for (const auto* e : entries) {
    for (int l = std::max(1, e->firstLine); l <= std::min(e->lastLine, lines); ++l) editor_->markerAdd(l - 1, marker_);
    if (first < 0 || e->firstLine < first) first = e->firstLine;
  }
  if (first >= 1) {
    // Put the range near the top, with a little context above it.
    editor_->setFirstVisibleLine(std::max(0, first - 1 - 2));
    editor_->ensureLineVisible(first - 1);
  }
}

std::vector<int> CodeView::markedLines() const {
  std::vector<int> out;
  for (int l = 0; l < editor_->lines(); ++l)
    if (editor_->markersAtLine(l) & (1u << marker_)) out.push_back(l + 1);
  return out;
}

int CodeView::firstVisibleLine() const { return editor_->firstVisibleLine() + 1; }

const codegen::SourceMapEntry* CodeView::entryAt(int line) const {
  const codegen::SourceMapEntry* best = nullptr;
  for (const auto& e : map_) {
    if (line < e.firstLine || line > e.lastLine) continue;
    if (!best || e.lastLine - e.firstLine < best->lastLine - best->firstLine) best = &e;
  }
  return best;
}

void CodeView::activateLine(int line) {
  const codegen::SourceMapEntry* e = entryAt(line);
  if (!e) return;
  emit elementClicked(qulonglong(e->element));
  emit pathClicked(QString::fromStdString(e->path));
}

void CodeView::setTheme(ThemeKind kind) {
  theme_ = kind;
  const CanvasTheme t = CanvasTheme::of(kind);
  const bool dark = kind == ThemeKind::Dark;
  lexer_->setDefaultPaper(t.background);
  lexer_->setDefaultColor(t.text);
  lexer_->setPaper(t.background, -1);
  lexer_->setColor(t.text, -1);
  struct S {
    int style;
    QColor light, dark;
  };
  const S styles[] = {
      {QsciLexerCPP::Comment, QColor(0x6a, 0x73, 0x7d), QColor(0x8b, 0x94, 0x9e)},
      {QsciLexerCPP::CommentLine, QColor(0x6a, 0x73, 0x7d), QColor(0x8b, 0x94, 0x9e)},
      {QsciLexerCPP::CommentDoc, QColor(0x6a, 0x73, 0x7d), QColor(0x8b, 0x94, 0x9e)},
      {QsciLexerCPP::Number, QColor(0x00, 0x5c, 0xc5), QColor(0x79, 0xc0, 0xff)},
      {QsciLexerCPP::Keyword, QColor(0xd7, 0x3a, 0x49), QColor(0xff, 0x7b, 0x72)},
      {QsciLexerCPP::KeywordSet2, QColor(0x6f, 0x42, 0xc1), QColor(0xd2, 0xa8, 0xff)},
      {QsciLexerCPP::DoubleQuotedString, QColor(0x03, 0x2f, 0x62), QColor(0xa5, 0xd6, 0xff)},
      {QsciLexerCPP::SingleQuotedString, QColor(0x03, 0x2f, 0x62), QColor(0xa5, 0xd6, 0xff)},
      {QsciLexerCPP::PreProcessor, QColor(0x6f, 0x42, 0xc1), QColor(0xd2, 0xa8, 0xff)},
      {QsciLexerCPP::Operator, t.text, t.text},
      {QsciLexerCPP::Identifier, t.text, t.text},
  };
  for (const S& s : styles) lexer_->setColor(dark ? s.dark : s.light, s.style);
  editor_->setMarginsBackgroundColor(blend(t.background, t.text, 0.06));
  editor_->setMarginsForegroundColor(t.textDim);
  editor_->setFoldMarginColors(blend(t.background, t.text, 0.06), blend(t.background, t.text, 0.06));
  editor_->setCaretForegroundColor(t.text);
  editor_->setCaretLineBackgroundColor(blend(t.background, t.text, 0.05));
  editor_->setSelectionBackgroundColor(blend(t.background, t.selection, 0.45));
  editor_->setMarkerBackgroundColor(blend(t.background, t.selection, 0.30), marker_);
  editor_->setPaper(t.background);
  editor_->setColor(t.text);
}

} // namespace dcw::views
