// Pure expansions of assorted ops (see Ops.h):
//
//   HannWindow / HammingWindow / BlackmanWindow   size (int scalar) -> y [size] (output_datatype)
//       with N = size (periodic, default) or size - 1 (periodic = 0), computed in float64:
//       Hann      y[i] = 0.5 - 0.5 cos(2 pi i / N)
//       Hamming   y[i] = 25/46 - 21/46 cos(2 pi i / N)
//       Blackman  y[i] = 0.42 - 0.5 cos(2 pi i / N) + 0.08 cos(4 pi i / N)
//       The extent of y comes from the output descriptor (shape inference / the model's declared output);
//       `size` is read as data.
//
// Preconditions: ranks known.
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/expansions/ops/ElementwiseHelpers.h"
#include "core/expansions/ops/Ops.h"
#include "core/expansions/ops/TensorHelpers.h"

namespace dcw::expansions {

namespace {

using ir::DType;
using sym::Expr;
using Result = Expected<std::unique_ptr<ir::Sdfg>>;
using th::join;
using th::Shape;

constexpr const char* kPi = "3.141592653589793";

// ---------------------------------------------------------------------------------------------
// Windows

enum class Window { Hann, Hamming, Blackman };

Result expandWindow(const ExpansionContext& ctx, Window kind) {
  auto S = th::needIn(ctx, "size");
  if (!S) return S.takeError();
  auto Y = th::needOut(ctx, "output");
  if (!Y) return Y.takeError();
  if ((*Y)->shape.size() != 1) return ctx.error("the output must be 1-D");
  DType yt = (*Y)->dtype;
  bool periodic = ctx.attrInt("periodic", 1) != 0;
  std::string n = periodic ? "float64(sz)" : "(float64(sz) - 1.0)";
  std::string ph = "(2.0 * " + std::string(kPi) + " * float64(i0) / " + n + ")";
  std::string v;
  switch (kind) {
  case Window::Hann: v = "0.5 - 0.5 * cos" + ph; break;
  case Window::Hamming: v = "(25.0 / 46.0) - (21.0 / 46.0) * cos" + ph; break;
  case Window::Blackman: v = "0.42 - 0.5 * cos" + ph + " + 0.08 * cos(2.0 * " + ph + ")"; break;
  }
  SdfgBuilder b(ctx);
  b.mappedTasklet("window", fullRangeParams((*Y)->shape), {{"sz", "size", ""}}, "y = " + ew::castTo(yt, v),
                  {{"y", "output", "i0", ""}});
  return b.finish();
}

} // namespace

void registerMisc(ExpansionRegistry& r) {
  r.add("", "HannWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Hann); },
        "y[i] = 0.5 - 0.5 cos(2 pi i / N)");
  r.add("", "HammingWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Hamming); },
        "y[i] = 25/46 - 21/46 cos(2 pi i / N)");
  r.add("", "BlackmanWindow", "pure", [](const ExpansionContext& c) { return expandWindow(c, Window::Blackman); },
        "y[i] = 0.42 - 0.5 cos(2 pi i / N) + 0.08 cos(4 pi i / N)");
}

} // namespace dcw::expansions
