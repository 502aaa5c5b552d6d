// The commands that edit a model directly rather than through a transformation:
//   set PATH name=value     a property (map schedule, library-node implementation, data storage or
//                           lifetime, tasklet code); see editableProperties()
//   rename PATH NEW_LABEL   a node, a state or region, or a transient data container
//   delete PATH             a node (with its edges), a state, or unused transient data
// Each checks its element and value first and fails naming the path and what is accepted.
#pragma once

#include "core/edit/Command.h"
#include "core/ir/Sdfg.h"

#include <string>
#include <vector>

namespace dcw::transforms {

struct PropertyInfo {
  std::string name;
  std::string value;                // current value as text
  std::vector<std::string> choices; // empty: free text
  std::string description;
};

// The properties of the element that `set` can change, with their current values.
std::vector<PropertyInfo> editableProperties(const ir::Element& e);

class SetProperty : public edit::Command {
public:
  SetProperty(std::string path, std::string name, std::string value)
      : path_(std::move(path)), name_(std::move(name)), value_(std::move(value)) {}
  std::string scriptLine() const override;
  std::string title() const override;
  Expected<void> execute(edit::Editor& editor) const override;

private:
  std::string path_, name_, value_;
};

class Rename : public edit::Command {
public:
  Rename(std::string path, std::string label) : path_(std::move(path)), label_(std::move(label)) {}
  std::string scriptLine() const override;
  std::string title() const override;
  Expected<void> execute(edit::Editor& editor) const override;

private:
  std::string path_, label_;
};

class Delete : public edit::Command {
public:
  explicit Delete(std::string path) : path_(std::move(path)) {}
  std::string scriptLine() const override;
  std::string title() const override;
  Expected<void> execute(edit::Editor& editor) const override;

private:
  std::string path_;
};

} // namespace dcw::transforms
