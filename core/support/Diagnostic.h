// Diagnostic: one located message (what is wrong, where, and what to do), and Diagnostics, a list
// of them. Every rejection of bad input in DCW is a Diagnostic: the location names the file, the
// element path (`main/state0/Conv_3`) or the script line, so a user can find and fix the cause.
#pragma once

#include <string>
#include <vector>

namespace dcw {

enum class Severity { Error, Warning, Note };

const char* severityName(Severity s);

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string location;  // file path, element path or "script.dcws:12"; may be empty
  std::string message;   // what is wrong
  std::string hint;      // what to do about it; may be empty
  std::string elementId; // stable id of the element concerned, when there is one (as text)

  static Diagnostic error(std::string location, std::string message, std::string hint = {});
  static Diagnostic warning(std::string location, std::string message, std::string hint = {});

  // "location: message; hint" on one line (newlines in parts are replaced by spaces).
  std::string str() const;
};

class Diagnostics {
public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  void error(std::string location, std::string message, std::string hint = {});
  void warning(std::string location, std::string message, std::string hint = {});
  void append(const Diagnostics& other);

  bool hasErrors() const;
  size_t errorCount() const;
  size_t warningCount() const;
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const std::vector<Diagnostic>& items() const { return items_; }
  const Diagnostic* firstError() const;

private:
  std::vector<Diagnostic> items_;
};

} // namespace dcw
