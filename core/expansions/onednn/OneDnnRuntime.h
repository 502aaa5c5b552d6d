// The text of the `onednn` environment (see OneDnnRuntime.cpp for what it holds and why): its globals
// (engine, stream, and the per-tasklet Call with cached primitives and reordered constants), init and
// teardown, as Environments.cpp registers them.
#pragma once

namespace dcw::expansions::onednn {

const char* runtimeGlobals();
const char* runtimeInit();
const char* runtimeTeardown();

} // namespace dcw::expansions::onednn
