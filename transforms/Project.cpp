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

std::string projectText(const Project& p, const std::string& file) {
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
  // Replace invalid UTF-8 (a path or script line with stray bytes) rather than throw.
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Expected<void> saveProject(const Project& p, const std::string& file) {
  const std::string text = projectText(p, file);
  // Written beside and renamed over, so a crash while saving never leaves half a project.
  std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail(file, "cannot be written", "check that the folder exists and is writable");
    out << text;
    if (!out) return fail(file, "could not be written completely", "check the free disk space");
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) return fail(file, "cannot be replaced: " + ec.message());
  return {};
}

namespace {

// What a JSON value is, for messages ("a string", "an array"); never dumps the value itself, which
// may be nested arbitrarily deep.
std::string kindOf(const nlohmann::json& v) {
  if (v.is_number_float()) return "a floating-point number";
  if (v.is_number()) return "an integer";
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

} // namespace

Expected<Project> parseProject(std::string_view text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return fail(file, std::string("is not valid JSON: ") + e.what(), "is this a .dcwproj file?");
  } catch (const std::exception& e) {
    return fail(file, std::string("is not valid JSON: ") + e.what(), "is this a .dcwproj file?");
  }
  auto field = [&](const char* key) -> const nlohmann::json* {
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  };
  const nlohmann::json* format = j.is_object() ? field("format") : nullptr;
  if (!format || !format->is_string() || *format != "dcwproj")
    return fail(file, "is not a DCW project (no \"format\": \"dcwproj\")", "open .onnx, .dcw.json or .dcwproj files");
  const nlohmann::json* version = field("version");
  if (!version) return fail(file, "has no \"version\"", "the project file was edited or truncated");
  if (!version->is_number_integer() || *version != 1)
    return fail(file, "project version " + (version->is_number() ? version->dump() : kindOf(*version)) + " is not supported",
                "this DCW reads version 1");
  Project p;
  const nlohmann::json* model = field("model");
  if (!model || !model->is_string())
    return fail(file, "\"model\" must be the path of the source model (a string), not " + (model ? kindOf(*model) : "missing"),
                "the project file was edited or truncated");
  fs::path modelPath = model->get<std::string>();
  if (modelPath.is_relative()) modelPath = fs::absolute(file).parent_path() / modelPath;
  p.model = modelPath.lexically_normal().string();
  if (const nlohmann::json* sha = field("sha256"); sha && !sha->is_null()) {
    if (!sha->is_string()) return fail(file, "\"sha256\" must be a string, not " + kindOf(*sha), "the project file was edited");
    p.sha256 = sha->get<std::string>();
  }
  const nlohmann::json* position = field("position");
  if (!position || !position->is_number_unsigned())
    return fail(file, "\"position\" must be a non-negative integer, not " + (position ? kindOf(*position) : "missing"),
                "the project file was edited or truncated");
  const nlohmann::json* steps = field("steps");
  if (!steps || !steps->is_array())
    return fail(file, "\"steps\" must be an array of steps, not " + (steps ? kindOf(*steps) : "missing"),
                "the project file was edited or truncated");
  for (size_t s = 0; s < steps->size(); ++s) {
    const nlohmann::json& step = (*steps)[s];
    if (!step.is_array())
      return fail(file, "step " + std::to_string(s + 1) + " must be an array of script lines, not " + kindOf(step),
                  "the project file was edited or truncated");
    std::vector<std::string> lines;
    for (size_t k = 0; k < step.size(); ++k) {
      if (!step[k].is_string())
        return fail(file, "step " + std::to_string(s + 1) + ", line " + std::to_string(k + 1) + " must be a string, not " +
                              kindOf(step[k]), "the project file was edited or truncated");
      lines.push_back(step[k].get<std::string>());
    }
    p.steps.push_back(std::move(lines));
  }
  if (position->get<uint64_t>() > p.steps.size()) return fail(file, "its position is past its last step");
  p.position = static_cast<size_t>(position->get<uint64_t>());
  return p;
}

Expected<Project> loadProject(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(file, "cannot be read", "check the path of the project");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseProject(ss.str(), file);
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
