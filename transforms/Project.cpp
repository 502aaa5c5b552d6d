#include "transforms/Project.h"

#include "transforms/Script.h"

#include "core/support/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

namespace dcw::transforms {

namespace fs = std::filesystem;

Project projectOf(const edit::History& history, const std::string& modelPath, const std::string& sha256) {
  Project p;
  p.model = fs::absolute(modelPath).lexically_normal().string();
  p.sha256 = sha256;
  p.position = history.position();
  for (size_t i = 0; i < history.size(); ++i) {
    std::vector<std::string> lines;
    std::stringstream ss(history.command(i).scriptLine());
    for (std::string l; std::getline(ss, l);)
      if (!l.empty() && l[0] != '#') lines.push_back(l);
    p.steps.push_back(std::move(lines));
  }
  return p;
}

namespace {

constexpr int kFormatVersion = 1; // the one version this DCW reads and writes

// Why a project file cannot be opened, before the kept copy is looked at.
enum class Refusal { Unreadable, Corrupt, Newer };

struct Parsed {
  std::optional<Project> project;
  Refusal refusal = Refusal::Corrupt;
  Diagnostic why;
};

Parsed refuse(Refusal r, const std::string& file, std::string message, std::string hint = {}) {
  return Parsed{std::nullopt, r, Diagnostic::error(file, std::move(message), std::move(hint))};
}

Parsed corrupt(const std::string& file, const std::string& what) {
  return refuse(Refusal::Corrupt, file, "is corrupt: " + what, "no previous copy is kept beside it");
}

// The one parse of a project's text. Every field is checked for its type before it is read, so no
// nlohmann exception escapes (a wrong type once ended the app), and no value is ever dumped into a
// message (it may be nested arbitrarily deep).
Parsed parseText(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // An error past the last byte: the file stops where the project has not (a torn or truncated write).
    if (e.byte > text.size()) return corrupt(file, "cut short after " + std::to_string(text.size()) + " bytes");
    return corrupt(file, "not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const std::exception&) {
    return corrupt(file, "not valid JSON");
  }
  auto field = [&](const char* key) -> const nlohmann::json* {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  };
  const nlohmann::json* format = field("format");
  if (!format || !format->is_string() || *format != "dcwproj")
    return refuse(Refusal::Corrupt, file, "is not a DCW project (no \"format\": \"dcwproj\")", "open .onnx, .dcw.json or .dcwproj files");
  const nlohmann::json* v = field("version");
  if (!v || !v->is_number_integer()) return corrupt(file, "\"version\" is missing or not a whole number");
  const long long version = v->get<long long>();
  if (version > kFormatVersion)
    return refuse(Refusal::Newer, file,
                  "was written by a newer DCW (format version " + std::to_string(version) + "; this one reads " +
                      std::to_string(kFormatVersion) + ")",
                  "open it with that DCW or a later one");
  if (version < kFormatVersion)
    return corrupt(file, "format version " + std::to_string(version) + " does not exist (this DCW reads " +
                             std::to_string(kFormatVersion) + ")");
  auto malformed = [&](const char* name) { return corrupt(file, std::string("\"") + name + "\" is missing or malformed"); };
  Project p;
  const nlohmann::json* model = field("model");
  if (!model || !model->is_string()) return malformed("model");
  fs::path modelPath = model->get<std::string>();
  if (modelPath.is_relative()) modelPath = fs::absolute(file).parent_path() / modelPath;
  p.model = modelPath.lexically_normal().string();
  if (const nlohmann::json* sha = field("sha256"); sha && !sha->is_null()) {
    if (!sha->is_string()) return malformed("sha256");
    p.sha256 = sha->get<std::string>();
  }
  const nlohmann::json* position = field("position");
  if (!position || !position->is_number_unsigned()) return malformed("position");
  const nlohmann::json* steps = field("steps");
  if (!steps || !steps->is_array()) return malformed("steps");
  for (const nlohmann::json& step : *steps) {
    if (!step.is_array()) return malformed("steps");
    std::vector<std::string> lines;
    for (const nlohmann::json& line : step) {
      if (!line.is_string()) return malformed("steps");
      lines.push_back(line.get<std::string>());
    }
    p.steps.push_back(std::move(lines));
  }
  const uint64_t pos = position->get<uint64_t>();
  if (pos > p.steps.size())
    return corrupt(file, "its position (" + std::to_string(pos) + ") is past its last step (" + std::to_string(p.steps.size()) + ")");
  p.position = static_cast<size_t>(pos);
  return Parsed{std::move(p), Refusal::Corrupt, {}};
}

// Reads `file` without looking at its kept copy.
Parsed parseFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return refuse(Refusal::Unreadable, file, "cannot be read", "check the path of the project");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parseText(text, file);
}

} // namespace

std::string projectText(const Project& p, const std::string& file) {
  nlohmann::ordered_json j;
  j["format"] = "dcwproj";
  j["version"] = kFormatVersion;
  fs::path dir = fs::absolute(file).parent_path();
  fs::path model = fs::path(p.model);
  fs::path rel = model.lexically_relative(dir);
  j["model"] = !rel.empty() && rel.string().rfind("..", 0) != 0 ? rel.string() : model.string();
  j["sha256"] = p.sha256;
  j["position"] = p.position;
  j["steps"] = p.steps;
  // Replace invalid UTF-8 (a path or script line with stray bytes) rather than throw.
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Expected<Project> parseProject(std::string_view text, const std::string& file) {
  Parsed parsed = parseText(text, file);
  if (parsed.project) return std::move(*parsed.project);
  return fail(parsed.why);
}

Expected<void> saveProject(const Project& p, const std::string& file) {
  // The version being replaced becomes the kept copy, unless it is corrupt: then the kept copy is
  // still the last good one and stays.
  std::error_code ec;
  AtomicWriteOptions options;
  if (fs::exists(file, ec)) {
    Parsed old = parseFile(file);
    options.keepBackup = old.project || old.refusal == Refusal::Newer;
  }
  return writeFileAtomically(file, projectText(p, file), options);
}

Expected<Project> loadProject(const std::string& file) {
  Parsed parsed = parseFile(file);
  if (parsed.project) return std::move(*parsed.project);
  Diagnostic d = parsed.why;
  const std::string kept = backupPathOf(file);
  std::error_code ec;
  if (fs::exists(kept, ec) && parseFile(kept).project)
    d.hint = parsed.refusal == Refusal::Newer ? d.hint + ", or open the previous good copy kept as " + kept
                                              : "the previous good copy is kept as " + kept + ": open that instead";
  return fail(d);
}

Expected<void> restoreProject(const Project& p, edit::History& history, const std::string& file) {
  size_t start = history.position();
  size_t target = start;
  for (size_t s = 0; s < p.steps.size(); ++s) {
    for (size_t k = 0; k < p.steps[s].size(); ++k) {
      std::string where = file + ": step " + std::to_string(s + 1);
      DCW_TRY(auto cmd, parseCommand(p.steps[s][k], where));
      if (auto r = history.execute(std::move(cmd)); !r) {
        history.jumpTo(start);
        history.truncate();
        Diagnostic d = r.error();
        d.message = (d.location.empty() ? "" : d.location + ": ") + d.message;
        d.location = where;
        return fail(d);
      }
    }
    if (s < p.position) target = history.position();
  }
  history.jumpTo(target);
  return {};
}

} // namespace dcw::transforms
