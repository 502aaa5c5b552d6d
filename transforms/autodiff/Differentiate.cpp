// Differentiate: the history command of autodiff; see Differentiate.h.
#include "transforms/autodiff/Differentiate.h"

namespace dcw::autodiff {

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

} // namespace

std::string Differentiate::scriptLine() const {
  std::string line = "differentiate of=" + edit::quoteValue(join(request_.of, ",")) +
                     " wrt=" + edit::quoteValue(join(request_.wrt, ","));
  if (!request_.sumOutputs) line += " seeds=true";
  else if (!request_.requireScalar) line += " sum=true";
  std::vector<std::string> rec;
  for (auto& [name, keep] : request_.keep)
    if (keep == Keep::Recompute) rec.push_back(name);
  if (!rec.empty()) line += " recompute=" + edit::quoteValue(join(rec, ","));
  return line;
}

std::string Differentiate::title() const {
  return "Differentiate " + join(request_.of, ", ") + " w.r.t. " + join(request_.wrt, ", ");
}

Expected<void> Differentiate::execute(edit::Editor& editor) const {
  DCW_CHECK(differentiate(editor, request_));
  return {};
}

Expected<std::unique_ptr<edit::Command>> Differentiate::parse(const std::vector<edit::Token>& t, const std::string& where) {
  Request req;
  std::set<std::string> seen;
  bool sum = false;
  for (size_t i = 1; i < t.size(); ++i) {
    if (!t[i].hasKey())
      return fail(where, "expected key=value after `differentiate`, found '" + t[i].value + "'",
                  "write: differentiate of=OUT,... wrt=IN,... [sum=true | seeds=true] [recompute=T,...]");
    const std::string& k = t[i].key;
    if (!seen.insert(k).second) return fail(where, "'" + k + "' is given twice", "keep one");
    if (k == "of") {
      req.of = split(t[i].value);
    } else if (k == "wrt") {
      req.wrt = split(t[i].value);
    } else if (k == "seeds") {
      if (t[i].value != "true" && t[i].value != "false") return fail(where, "seeds must be true or false", "write seeds=true");
      req.sumOutputs = t[i].value != "true";
    } else if (k == "sum") {
      if (t[i].value != "true" && t[i].value != "false") return fail(where, "sum must be true or false", "write sum=true");
      sum = t[i].value == "true";
    } else if (k == "recompute") {
      for (auto& n : split(t[i].value)) req.keep[n] = Keep::Recompute;
    } else {
      return fail(where, "`differentiate` has no option '" + k + "'", "options: of, wrt, sum, seeds, recompute");
    }
  }
  if (sum && !req.sumOutputs) return fail(where, "sum=true and seeds=true exclude each other", "keep one");
  req.requireScalar = req.sumOutputs && !sum;
  if (req.of.empty()) return fail(where, "`differentiate` needs of=OUTPUT,...", "name the output(s) to differentiate");
  if (req.wrt.empty()) return fail(where, "`differentiate` needs wrt=NAME,...", "name the inputs or weights");
  return std::unique_ptr<edit::Command>(std::make_unique<Differentiate>(std::move(req)));
}

} // namespace dcw::autodiff
