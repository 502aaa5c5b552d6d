// ChromeTrace: one profiled run as a Chrome trace-event file ({"traceEvents": [...]}), which Perfetto
// and chrome://tracing open. Each timed element call is a complete event ("ph": "X") with ts/dur in
// microseconds from the start of the run, pid = this process, tid = the OpenMP thread that recorded it,
// name = the element's label, cat = its kind and args.path = its element path (plus counter deltas);
// metadata events name the process (the model) and threads.
#pragma once

#include "codegen/run/ProfileReport.h"

#include <string>

namespace dcw::codegen {

std::string chromeTraceJson(const ProfileReport& report);

} // namespace dcw::codegen
