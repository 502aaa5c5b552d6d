// The values of a list option ("tile_sizes=32,64", "order=j,i,k"): comma-separated items, each
// trimmed of spaces. One parser for every transformation that takes a list, and for the check of
// IntList options before a step runs (Transformation::checkOptions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::transforms {

// "a, b,c" -> {"a", "b", "c"}; "" -> {""} (one empty item: a list names at least one).
std::vector<std::string> listItems(std::string_view text);

// The integers of a list ("32,8" -> {32, 8}); nullopt when an item is no integer (within int64).
std::optional<std::vector<int64_t>> intListItems(std::string_view text);

// The integers of a list for each of `rank` dimensions: one value widened to all ("32" -> 32, 32, 32),
// or one per dimension as given (a count other than 1 or `rank` is returned as is, for the caller's
// error). Empty when an item is no integer.
std::vector<int64_t> perDimension(std::string_view text, size_t rank);

// {"a", "b"} -> "a,b" (the form listItems reads back).
std::string joinListItems(const std::vector<std::string>& items);

} // namespace dcw::transforms
