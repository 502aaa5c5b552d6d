#include "transforms/OptionList.h"

#include <charconv>

namespace dcw::transforms {

std::vector<std::string> listItems(std::string_view text) {
  std::vector<std::string> items;
  size_t s = 0;
  for (;;) {
    const size_t c = text.find(',', s);
    std::string_view item = text.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s);
    const size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    items.emplace_back(a == std::string_view::npos ? std::string_view() : item.substr(a, b - a + 1));
    if (c == std::string_view::npos) break;
    s = c + 1;
  }
  return items;
}

std::optional<std::vector<int64_t>> intListItems(std::string_view text) {
  std::vector<int64_t> values;
  for (const std::string& item : listItems(text)) {
    int64_t v = 0;
    const char* end = item.data() + item.size();
    auto [p, ec] = std::from_chars(item.data(), end, v);
    if (item.empty() || ec != std::errc() || p != end) return std::nullopt;
    values.push_back(v);
  }
  return values;
}

std::vector<int64_t> perDimension(std::string_view text, size_t rank) {
  std::vector<int64_t> v = intListItems(text).value_or(std::vector<int64_t>{});
  if (v.size() == 1) v.assign(rank, v[0]);
  return v;
}

std::string joinListItems(const std::vector<std::string>& items) {
  std::string s;
  for (size_t k = 0; k < items.size(); ++k) s += (k ? "," : "") + items[k];
  return s;
}

} // namespace dcw::transforms
