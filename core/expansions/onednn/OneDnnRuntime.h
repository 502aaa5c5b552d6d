// The text of the `onednn` environment (see OneDnnRuntime.cpp for what it holds and why): its globals
// (engine, stream, and the per-tasklet Call with cached primitives and reordered constants), init and
// teardown, as Environments.cpp registers them.
#pragma once

namespace dcw::expansions::onednn {

const char* runtimeGlobals();
const char* runtimeInit();
const char* runtimeTeardown();
// Every dcw_init: a new program binds its constants (see "Constant inputs" in OneDnnRuntime.cpp).
const char* runtimeAttach();

} // namespace dcw::expansions::onednn
