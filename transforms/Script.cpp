#include "transforms/Script.h"

#include "core/edit/ScriptSyntax.h"
#include "core/ir/Validate.h"
#include "transforms/ApplyTransformation.h"
#include "transforms/ModelCommands.h"
#include "transforms/TransformationRegistry.h"
#include "transforms/autodiff/Differentiate.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace dcw::transforms {

namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t s = 0;
  while (s <= text.size()) {
    size_t e = text.find('\n', s);
    if (e == std::string_view::npos) e = text.size();
    std::string_view l = text.substr(s, e - s);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    s = e + 1;
  }
  return out;
}

} // namespace

Expected<std::unique_ptr<edit::Command>> parseCommand(std::string_view line, const std::string& where) {
  DCW_TRY(auto tokens, edit::tokenizeLine(line, where));
  auto& t = tokens;
  if (t.empty()) return fail(where, "empty command", "");
  const std::string verb = t[0].hasKey() ? "" : t[0].value;
  auto plain = [&](size_t i) { return i < t.size() && !t[i].hasKey(); };
  if (verb == "apply") {
    if (!plain(1)) return fail(where, "`apply` needs a transformation name", "write: apply NAME slot=path ... option=value ...");
    const Transformation* tr = TransformationRegistry::instance().find(t[1].value);
    if (!tr) return fail(where, "no transformation is called '" + t[1].value + "'", "`dcw transforms --list` lists them");
    Match m;
    m.transformation = t[1].value;
    for (size_t i = 2; i < t.size(); ++i) {
      if (!t[i].hasKey())
        return fail(where, "expected slot=path or option=value, found '" + t[i].value + "'", "write key=value");
      auto& group = tr->pattern().hasSlot(t[i].key) ? m.elements : m.options;
      if (!group.emplace(t[i].key, t[i].value).second) return fail(where, "'" + t[i].key + "' is given twice", "keep one");
    }
    return std::unique_ptr<edit::Command>(std::make_unique<ApplyTransformation>(std::move(m)));
  }
  if (verb == "set") {
    if (!plain(1) || t.size() != 3 || !t[2].hasKey())
      return fail(where, "`set` takes a path and one name=value", "write: set PATH name=value");
    return std::unique_ptr<edit::Command>(std::make_unique<SetProperty>(t[1].value, t[2].key, t[2].value));
  }
  if (verb == "rename") {
    if (!plain(1) || !plain(2) || t.size() != 3) return fail(where, "`rename` takes a path and a new label", "write: rename PATH NEW_LABEL");
    return std::unique_ptr<edit::Command>(std::make_unique<Rename>(t[1].value, t[2].value));
  }
  if (verb == "delete") {
    if (!plain(1) || t.size() != 2) return fail(where, "`delete` takes one path", "write: delete PATH");
    return std::unique_ptr<edit::Command>(std::make_unique<Delete>(t[1].value));
  }
  if (verb == "differentiate") return autodiff::Differentiate::parse(t, where);
  return fail(where, "unknown command '" + (verb.empty() ? t[0].key + "=" : verb) + "'",
              "a line starts with apply, set, rename, delete or differentiate (or # for a comment)");
}

Expected<Script> parseScript(std::string_view text, const std::string& file) {
  Script s;
  bool header = false, model = false;
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string where = file + ":" + std::to_string(i + 1);
    DCW_TRY(auto tokens, edit::tokenizeLine(lines[i], where));
    if (tokens.empty()) continue;
    auto& t = tokens;
    if (!header) {
      if (t[0].value != "dcw-script" || t[0].hasKey() || t.size() != 2)
        return fail(where, "a DCW script starts with `dcw-script " + std::to_string(kScriptVersion) + "`",
                    "is this a DCW script? Export one with File > Export script or `dcw optimize --script-out`");
      if (t[1].value != std::to_string(kScriptVersion))
        return fail(where, "script version " + t[1].value + " is not supported (this DCW reads version " +
                               std::to_string(kScriptVersion) + ")", "export the script again with this version of DCW");
      header = true;
      continue;
    }
    if (!t[0].hasKey() && t[0].value == "model") {
      if (model || t.size() < 2 || t[1].hasKey()) return fail(where, "`model` takes the source model's path (once)", "write: model PATH sha256=HEX");
      s.model = t[1].value;
      for (size_t k = 2; k < t.size(); ++k) {
        if (t[k].key != "sha256") return fail(where, "unexpected '" + t[k].key + t[k].value + "' on the model line", "only sha256=HEX may follow the path");
        s.sha256 = t[k].value;
      }
      model = true;
      continue;
    }
    DCW_TRY(auto cmd, parseCommand(lines[i], where));
    s.steps.push_back({int(i + 1), std::move(cmd)});
  }
  if (!header) return fail(file, "the script is empty", "a DCW script starts with `dcw-script 1`");
  return s;
}

Expected<Script> readScript(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(file, "cannot be read", "check the path of the script");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseScript(ss.str(), file);
}

std::string writeScript(const edit::History& history, const std::string& modelPath, const std::string& sha256) {
  std::string out = "# DCW script: replay with `dcw apply MODEL --script FILE`\n";
  out += "dcw-script " + std::to_string(kScriptVersion) + "\n";
  out += "model " + edit::quoteValue(modelPath) + (sha256.empty() ? "" : " sha256=" + sha256) + "\n";
  for (size_t i = 0; i < history.position(); ++i) out += history.command(i).scriptLine() + "\n";
  return out;
}

Expected<void> replay(Script& script, edit::History& history, const std::string& file) {
  // The steps run unvalidated and the model is validated once after them (a model of thousands of
  // nodes validated after each of thousands of steps took minutes); when it is invalid, the steps are
  // redone one by one from the start, each validated, and the first that leaves the model invalid is
  // reported as History::execute reports it. Every step is undone on failure, as before.
  const size_t start = history.position();
  const bool validates = history.validateEachStep;
  std::vector<int> lines; // the script line of each step executed so far
  auto located = [&](Diagnostic d, int line) {
    d.message = (d.location.empty() ? "" : d.location + ": ") + d.message;
    d.location = file + ":" + std::to_string(line);
    return d;
  };
  auto undoAll = [&] {
    history.jumpTo(start);
    history.truncate();
  };
  // The error of the first step after which the model is invalid; nullopt while it is valid.
  auto firstInvalid = [&]() -> std::optional<Diagnostic> {
    if (!validates || !ir::validate(history.model()).hasErrors()) return std::nullopt;
    auto notify = std::move(history.onChanged);
    const size_t end = history.position();
    history.jumpTo(start);
    std::optional<Diagnostic> found;
    for (size_t k = 0; start + k < end && !found; ++k) {
      history.redo();
      if (auto problems = ir::validate(history.model()); problems.hasErrors())
        found = located(edit::History::invalidAfter(history.command(start + k), problems), lines[k]);
    }
    history.onChanged = std::move(notify);
    return found;
  };
  history.validateEachStep = false;
  for (auto& step : script.steps) {
    auto r = history.execute(std::move(step.command));
    if (!r) {
      history.validateEachStep = validates;
      auto invalid = firstInvalid(); // an earlier step may be at fault
      undoAll();
      return fail(invalid ? *invalid : located(r.error(), step.line));
    }
    lines.push_back(step.line);
  }
  history.validateEachStep = validates;
  if (auto invalid = firstInvalid()) {
    undoAll();
    return fail(*invalid);
  }
  return {};
}

} // namespace dcw::transforms
