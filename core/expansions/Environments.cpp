// The one explicit list of environments (see Environment.h).
//
//   onednn  oneDNN 2.x (Debian's libdnnl-dev): one CPU engine and one in-order stream per loaded
//           program, created by dcw_init; primitives are created per call (oneDNN's primitive cache
//           makes the repeated creation a lookup).
#include "core/expansions/Environment.h"

namespace dcw::expansions {

const std::vector<Environment>& environments() {
  static const std::vector<Environment> list = [] {
    std::vector<Environment> v;
    v.push_back(Environment{
        "onednn", "cpu", "oneDNN CPU engine and stream (libdnnl)",
        {"dnnl.hpp"},
        {"-Wl,--no-as-needed", "-ldnnl"},
        "dnnl::engine engine;\ndnnl::stream stream;\n",
        "engine = dnnl::engine(dnnl::engine::kind::cpu, 0);\nstream = dnnl::stream(engine);\n",
        "stream = dnnl::stream();\nengine = dnnl::engine();\n"});
    return v;
  }();
  return list;
}

const Environment* findEnvironment(std::string_view name) {
  for (auto& e : environments())
    if (e.name == name) return &e;
  return nullptr;
}

} // namespace dcw::expansions
