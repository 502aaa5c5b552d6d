// CodeView: the generated-code panel — a read-only QScintilla editor (C++ highlighting, line numbers,
// folding, colours from views/Theme) showing generated source together with its source map
// (codegen::SourceMapEntry: line ranges -> element id and path). highlightElement() marks and scrolls
// to the line ranges of one element; a click on a line emits elementClicked() with the innermost
// source-map range containing it. Like every view it never edits anything; it only emits intent.
#pragma once

#include "codegen/cpu/CppGenerator.h"
#include "core/ir/Element.h"
#include "views/Theme.h"

#include <QWidget>

#include <vector>

class QsciScintilla;
class QsciLexerCPP;
class QLabel;

namespace dcw::views {

class CodeView : public QWidget {
  Q_OBJECT
public:
  explicit CodeView(QWidget* parent = nullptr);

  void setCode(const QString& source, std::vector<codegen::SourceMapEntry> map);
  // Replaces the code with a one-line message (e.g. a generation error or "Generating…").
  void setMessage(const QString& message);
  void clear();

  // Marks the line ranges of `id` and scrolls to the first; kNoId clears the marks.
  void highlightElement(ir::ElementId id);
  // Same, for source-map entries whose path equals `path`.
  void highlightPath(const std::string& path);

  // The innermost (shortest) source-map entry whose range contains 1-based `line`, or nullptr.
  const codegen::SourceMapEntry* entryAt(int line) const;
  // 1-based lines currently marked.
  std::vector<int> markedLines() const;
  // 1-based first visible line.
  int firstVisibleLine() const;
  QString message() const;
  QsciScintilla* editor() const { return editor_; }
  const std::vector<codegen::SourceMapEntry>& sourceMap() const { return map_; }

  void setTheme(ThemeKind kind);
  // What a click on 1-based `line` does (public for tests and keyboard use).
  void activateLine(int line);

signals:
  void elementClicked(qulonglong id);
  // The source-map path of the clicked entry (ids of a regenerated copy differ from the model's).
  void pathClicked(const QString& path);

private:
  void markEntries(const std::vector<const codegen::SourceMapEntry*>& entries);

  QsciScintilla* editor_ = nullptr;
  QsciLexerCPP* lexer_ = nullptr;
  QLabel* message_ = nullptr;
  std::vector<codegen::SourceMapEntry> map_;
  int marker_ = 0;
  ThemeKind theme_ = ThemeKind::Light;
};

} // namespace dcw::views
