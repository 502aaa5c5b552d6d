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

// Reads `file` without looking at its kept copy.
Parsed parseProject(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return refuse(Refusal::Unreadable, file, "cannot be read", "check the path of the project");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // An error past the last byte: the file stops where the project has not (a torn or truncated write).
    if (e.byte > text.size()) return corrupt(file, "cut short after " + std::to_string(text.size()) + " bytes");
    return corrupt(file, "not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != "dcwproj")
    return refuse(Refusal::Corrupt, file, "is not a DCW project (no \"format\": \"dcwproj\")", "open .onnx, .dcw.json or .dcwproj files");
  const nlohmann::json& v = j.contains("version") ? j["version"] : nlohmann::json();
  if (!v.is_number_integer()) return corrupt(file, "\"version\" is missing or not a whole number");
  const long long version = v.get<long long>();
  if (version > kFormatVersion)
    return refuse(Refusal::Newer, file,
                  "was written by a newer DCW (format version " + std::to_string(version) + "; this one reads " +
                      std::to_string(kFormatVersion) + ")",
                  "open it with that DCW or a later one");
  if (version < kFormatVersion)
    return corrupt(file, "format version " + std::to_string(version) + " does not exist (this DCW reads " +
                             std::to_string(kFormatVersion) + ")");
  Project p;
  const char* field = "model";
  try {
    fs::path model = j.at("model").get<std::string>();
    if (model.is_relative()) model = fs::absolute(file).parent_path() / model;
    p.model = model.lexically_normal().string();
    field = "sha256";
    p.sha256 = j.contains("sha256") ? j["sha256"].get<std::string>() : std::string();
    field = "position";
    p.position = j.at("position").get<size_t>();
    field = "steps";
    p.steps = j.at("steps").get<std::vector<std::vector<std::string>>>();
  } catch (const nlohmann::json::exception&) {
    return corrupt(file, std::string("\"") + field + "\" is missing or malformed");
  }
  if (p.position > p.steps.size())
    return corrupt(file, "its position (" + std::to_string(p.position) + ") is past its last step (" +
                             std::to_string(p.steps.size()) + ")");
  return Parsed{std::move(p), Refusal::Corrupt, {}};
}

} // namespace

Expected<void> saveProject(const Project& p, const std::string& file) {
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
  // The version being replaced becomes the kept copy, unless it is corrupt: then the kept copy is
  // still the last good one and stays.
  std::error_code ec;
  AtomicWriteOptions options;
  if (fs::exists(file, ec)) {
    Parsed old = parseProject(file);
    options.keepBackup = old.project || old.refusal == Refusal::Newer;
  }
  return writeFileAtomically(file, j.dump(1) + "\n", options);
}

Expected<Project> loadProject(const std::string& file) {
  Parsed parsed = parseProject(file);
  if (parsed.project) return std::move(*parsed.project);
  Diagnostic d = parsed.why;
  const std::string kept = backupPathOf(file);
  std::error_code ec;
  if (fs::exists(kept, ec) && parseProject(kept).project)
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
