// Environment: what generated code needs around an opaque implementation — headers to include,
// libraries to link, global state, and code run once when the program is loaded (init) and when it is
// unloaded (teardown). A C++ tasklet names the environments it uses (ir::Tasklet::environments); the
// code generator of the environment's target emits each used environment once per program:
//   includes ahead of the runtime (CPU) or after it; `globals` inside `namespace <ns>` (Environment::ns(): "dcw_env_<name>");
//   `init` and `teardown` in the program's dcw_init / dcw_teardown entry points (codegen/cpu/CppGenerator.h);
//   `attach` in every dcw_init, also when the library was loaded and set up already: a program loaded
//   from the same library shares the environment's state but binds buffers of its own;
//   `linkFlags` on GeneratedCode::linkFlags, which the build appends to the compiler flags.
// Why per program and not per run: a oneDNN engine or a cuBLAS handle costs milliseconds to create
// and is meant to be shared by every call.
// Init code may throw (oneDNN's C++ API does): the generator catches it and dcw_init reports the
// message. Environments.cpp is the one explicit list.
#pragma once

#include <string>
#include <vector>

namespace dcw::expansions {

struct Environment {
  std::string name;                     // "onednn"; the name C++ tasklets use
  std::string target;                   // "cpu", "cuda", "fpga"
  std::string description;
  std::vector<std::string> headers;     // "dnnl.hpp" -> #include <dnnl.hpp>
  std::vector<std::string> linkFlags;   // "-ldnnl"
  std::string globals;                  // C++ declarations, placed in namespace ns()
  std::string init;                     // statements; may use the globals unqualified (inside ns())
  std::string teardown;                 // statements, run in reverse order of init across environments
  std::string attach = {};              // statements run by every dcw_init, after init
  std::string ns() const { return "dcw_env_" + name; }
};

// Every environment, in registration order (Environments.cpp).
const std::vector<Environment>& environments();
// nullptr when no environment has this name.
const Environment* findEnvironment(std::string_view name);

} // namespace dcw::expansions
