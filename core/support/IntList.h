// IntList: a list of integers as text, the items joined by a separator ("1, 3, 3" or "1x3x3"). Shapes,
// strides and perms are printed so in error messages, comments of generated code and reports; one
// printer keeps them alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dcw {

std::string joinInts(const std::vector<int64_t>& values, std::string_view separator);

} // namespace dcw
