#include "transforms/Project.h"

#include "transforms/Script.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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

Expected<void> saveProject(const Project& p, const std::string& file) {
  nlohmann::ordered_json j;
  j["format"] = "dcwproj";
  j["version"] = 1;
  fs::path dir = fs::absolute(file).parent_path();
  fs::path model = fs::path(p.model);
  fs::path rel = model.lexically_relative(dir);
  j["model"] = !rel.empty() && rel.string().rfind("..", 0) != 0 ? rel.string() : model.string();
  j["sha256"] = p.sha256;
  j["position"] = p.position;
  j["steps"] = p.steps;
  // Written beside and renamed over, so a crash while saving never leaves half a project.
  std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(file, "cannot be written", "check that the folder exists and is writable");
    out << j.dump(1) << "\n";
    if (!out) return fail(file, "could not be written completely", "check the free disk space");
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) return fail(file, "cannot be replaced: " + ec.message());
  return {};
}

Expected<Project> loadProject(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(file, "cannot be read", "check the path of the project");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    return fail(file, std::string("is not valid JSON: ") + e.what(), "is this a .dcwproj file?");
  }
  if (!j.is_object() || j.value("format", "") != "dcwproj")
    return fail(file, "is not a DCW project (no \"format\": \"dcwproj\")", "open .onnx, .dcw.json or .dcwproj files");
  if (j.value("version", 0) != 1) return fail(file, "project version " + j.value("version", nlohmann::json()).dump() + " is not supported");
  Project p;
  try {
    fs::path model = j.at("model").get<std::string>();
    if (model.is_relative()) model = fs::absolute(file).parent_path() / model;
    p.model = model.lexically_normal().string();
    p.sha256 = j.value("sha256", "");
    p.position = j.at("position").get<size_t>();
    p.steps = j.at("steps").get<std::vector<std::vector<std::string>>>();
  } catch (const nlohmann::json::exception& e) {
    return fail(file, std::string("has a missing or malformed field: ") + e.what(), "the project file was edited or truncated");
  }
  if (p.position > p.steps.size()) return fail(file, "its position is past its last step");
  return p;
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
