// Match: where a transformation applies, as plain data — the transformation's stable name, each
// pattern slot bound to an element (by readable path, so a match survives save/load and can be
// written into a script), and named option values. One Match is one line of a transformation script:
//   MapTiling entry=main/state0/map_oc tile_sizes=32,32
// Values containing spaces, quotes or '=' are double-quoted with backslash escapes.
#pragma once

#include "core/support/Expected.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace dcw::transforms {

struct Match {
  std::string transformation;
  std::map<std::string, std::string> elements;   // pattern slot -> element path
  std::map<std::string, std::string> options; // option name -> value text

  std::string str() const; // "Name slot=path ... opt=value ..." (elements first, each group sorted)
  // Parses one script line; `where` locates errors (e.g. "opt.dcws:12"). Slot vs option is decided by
  // `isSlot` (a key naming a pattern slot of the transformation).
  static Expected<Match> parse(std::string_view line, const std::string& where,
                               const std::function<bool(const std::string& key)>& isSlot);
  bool operator==(const Match& o) const = default;
};

} // namespace dcw::transforms
