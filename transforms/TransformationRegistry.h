// TransformationRegistry: every transformation DCW knows, in one explicit list (Registry.cpp).
// Menus, the transformation browser, `dcw transforms --list`, scripts and auto-optimize all read it.
#pragma once

#include "transforms/Transformation.h"

#include <memory>
#include <string_view>
#include <vector>

namespace dcw::transforms {

class TransformationRegistry {
public:
  static const TransformationRegistry& instance(); // the one filled by Registry.cpp

  const Transformation* find(std::string_view name) const;
  const std::vector<std::unique_ptr<Transformation>>& all() const { return all_; }
  void add(std::unique_ptr<Transformation> t) { all_.push_back(std::move(t)); }

private:
  std::vector<std::unique_ptr<Transformation>> all_;
};

} // namespace dcw::transforms
