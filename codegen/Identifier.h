// Identifier: derives safe C/C++/CUDA identifiers from untrusted names (ONNX value and node names
// can hold any bytes). Generated code never pastes a model string raw: names go through
// IdentifierTable, which yields valid, non-reserved, collision-free identifiers deterministically.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace dcw::codegen {

// [A-Za-z_][A-Za-z0-9_]*, not a C++ keyword, not reserved (no leading "__" or "_[A-Z]"), not a name the
// runtime environments' helpers use unqualified in tasklet code (dims, plain, engine, ...).
bool isSafeIdentifier(std::string_view s);
// Maps each distinct name to one safe identifier, unique within the table.
class IdentifierTable {
public:
  const std::string& get(const std::string& name);
  size_t size() const { return byName_.size(); }

private:
  std::map<std::string, std::string> byName_;
  std::set<std::string> used_;
  std::map<std::string, int> nextSuffix_; // base -> next k to try for base_k
};

} // namespace dcw::codegen
