// ChromeTrace: see the header. Events are written sorted by start time, outer before inner on ties, so
// viewers nest them correctly.
#include "codegen/run/ChromeTrace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <unistd.h>

namespace dcw::codegen {

std::string chromeTraceJson(const ProfileReport& r) {
  using json = nlohmann::ordered_json;
  const int pid = static_cast<int>(getpid());
  json events = json::array();
  events.push_back(json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                        {"args", {{"name", "dcw profile " + r.model}}}});
  std::set<uint32_t> threads;
  for (auto& e : r.trace) threads.insert(e.thread);
  for (uint32_t t : threads)
    events.push_back(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", t},
                          {"args", {{"name", t >= (1u << 16) ? "GPU stream " + std::to_string(t - (1u << 16))
                                                             : "OpenMP thread " + std::to_string(t)}}}});
  std::vector<const TraceEvent*> order;
  for (auto& e : r.trace) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const TraceEvent* a, const TraceEvent* b) {
    if (a->startUs != b->startUs) return a->startUs < b->startUs;
    return a->durationUs > b->durationUs;
  });
  for (const TraceEvent* e : order) {
    if (e->element < 0 || static_cast<size_t>(e->element) >= r.elements.size()) continue;
    const ElementProfile& el = r.elements[static_cast<size_t>(e->element)];
    json args{{"path", el.path}};
    for (size_t k = 0; k < e->counters.size() && k < r.counters.names.size(); ++k) args[r.counters.names[k]] = e->counters[k];
    events.push_back(json{{"name", el.label.empty() ? el.path : el.label}, {"cat", el.kind}, {"ph", "X"}, {"ts", e->startUs},
                          {"dur", e->durationUs}, {"pid", pid}, {"tid", e->thread}, {"args", std::move(args)}});
  }
  json j{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"},
         {"otherData", {{"model", r.model}, {"run_wall_us", r.traceRunWallUs}, {"generator", "dcw profile"}}}};
  return j.dump() + "\n";
}

} // namespace dcw::codegen
