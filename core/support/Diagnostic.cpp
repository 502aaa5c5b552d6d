#include "core/support/Diagnostic.h"

#include <algorithm>

namespace dcw {

const char* severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

Diagnostic Diagnostic::error(std::string location, std::string message, std::string hint) {
  return Diagnostic{Severity::Error, std::move(location), std::move(message), std::move(hint), {}};
}

Diagnostic Diagnostic::warning(std::string location, std::string message, std::string hint) {
  return Diagnostic{Severity::Warning, std::move(location), std::move(message), std::move(hint), {}};
}

static std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

std::string Diagnostic::str() const {
  std::string out;
  if (!location.empty()) out += oneLine(location) + ": ";
  out += oneLine(message);
  if (!hint.empty()) out += "; " + oneLine(hint);
  return out;
}

void Diagnostics::error(std::string location, std::string message, std::string hint) {
  add(Diagnostic::error(std::move(location), std::move(message), std::move(hint)));
}

void Diagnostics::warning(std::string location, std::string message, std::string hint) {
  add(Diagnostic::warning(std::move(location), std::move(message), std::move(hint)));
}

void Diagnostics::append(const Diagnostics& other) {
  items_.insert(items_.end(), other.items_.begin(), other.items_.end());
}

bool Diagnostics::hasErrors() const { return errorCount() > 0; }

size_t Diagnostics::errorCount() const {
  return std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

size_t Diagnostics::warningCount() const {
  return std::count_if(items_.begin(), items_.end(), [](const Diagnostic& d) { return d.severity == Severity::Warning; });
}

const Diagnostic* Diagnostics::firstError() const {
  for (const auto& d : items_)
    if (d.severity == Severity::Error) return &d;
  return nullptr;
}

} // namespace dcw
