// Tasklet: a scalar computation over its connectors (DaCe's octagon). The code is kept as text in a
// stated language; the tasklet language (parsed, printed to C++/CUDA/HLS) arrives with lowering.
#pragma once

#include "core/ir/Node.h"

namespace dcw::ir {

enum class TaskletLanguage { Dcw, Cpp };
std::string_view taskletLanguageName(TaskletLanguage l);

class Tasklet : public Node {
public:
  explicit Tasklet(std::string label, std::string code = {}, TaskletLanguage lang = TaskletLanguage::Dcw)
      : Node(ElementKind::Tasklet, std::move(label)), code(std::move(code)), language(lang) {}
  std::string code;
  TaskletLanguage language;
};

} // namespace dcw::ir
