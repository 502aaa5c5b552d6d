// ProfileReport: JSON form and comparison (see the header). The JSON is an object keyed by element path
// under "elements" (paths are unique), each with its kind, label, parent, calls, time_ms {median, min,
// max, q1, q3}, flops, bytes, achieved gflop_per_s and gb_per_s, and counters; "format": "dcw-profile"
// with "version": 1 marks the file so --compare can reject anything else with a clear message.
#include "codegen/run/ProfileReport.h"

#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace dcw::codegen {

using json = nlohmann::ordered_json;

Spread Spread::of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    double pos = q * static_cast<double>(v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  s.min = v.front();
  s.max = v.back();
  s.median = at(0.5);
  s.q1 = at(0.25);
  s.q3 = at(0.75);
  return s;
}

const ElementProfile* ProfileReport::find(const std::string& path) const {
  for (auto& e : elements)
    if (e.path == path) return &e;
  return nullptr;
}

namespace {

json spreadJson(const Spread& s) { return json{{"median", s.median}, {"min", s.min}, {"max", s.max}, {"q1", s.q1}, {"q3", s.q3}}; }

Spread spreadFrom(const json& j) {
  Spread s;
  if (!j.is_object()) return s;
  s.median = j.value("median", 0.0);
  s.min = j.value("min", 0.0);
  s.max = j.value("max", 0.0);
  s.q1 = j.value("q1", 0.0);
  s.q3 = j.value("q3", 0.0);
  return s;
}

template <class T> json opt(const std::optional<T>& v) { return v ? json(*v) : json(nullptr); }
std::optional<double> optFrom(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

json resourcesJson(const FpgaResources& r) {
  return json{{"dsp", r.dsp}, {"lut", r.lut}, {"ff", r.ff}, {"bram18k", r.bram18k}, {"uram", r.uram}};
}

FpgaResources resourcesFrom(const json& j) {
  FpgaResources r;
  if (!j.is_object()) return r;
  r.dsp = j.value("dsp", int64_t(0));
  r.lut = j.value("lut", int64_t(0));
  r.ff = j.value("ff", int64_t(0));
  r.bram18k = j.value("bram18k", int64_t(0));
  r.uram = j.value("uram", int64_t(0));
  return r;
}

json fpgaJson(const FpgaEstimate& e) {
  json kernels = json::array();
  for (auto& k : e.kernels) {
    json loops = json::array();
    for (auto& l : k.loops) {
      json x{{"path", l.path}, {"trips", l.trips}, {"pipelined", l.pipelined}, {"unrolled", l.unrolled}, {"depth", l.depth},
             {"ii", l.ii}, {"target_ii", 1}, {"cycles", l.cycles}, {"executions", l.executions}};
      if (!l.iiReason.empty()) x["ii_reason"] = l.iiReason;
      loops.push_back(std::move(x));
    }
    json kj{{"state", k.statePath}, {"cycles", k.cycles}, {"launches", k.launches}, {"seconds", k.seconds},
            {"resources", resourcesJson(k.resources)}, {"loops", std::move(loops)}};
    if (k.measuredCycles > 0) kj["measured_cycles"] = k.measuredCycles; // evidence: RTL simulation
    if (!k.unmeasuredWhy.empty()) kj["unmeasured_why"] = k.unmeasuredWhy;
    kernels.push_back(std::move(kj));
  }
  json j{{"evidence", "estimate"}, {"device", e.device ? e.device->name : std::string()},
         {"part", e.device ? e.device->part : std::string()}, {"clock_mhz", e.device ? e.device->clockMHz : 0.0},
         {"cycles", e.cycles}, {"seconds", e.seconds}, {"resources", resourcesJson(e.resources)},
         {"available", e.device ? resourcesJson(e.device->available) : json()}, {"kernels", std::move(kernels)}};
  if (!e.notes.empty()) j["notes"] = e.notes;
  if (!e.measurement.empty()) j["measurement"] = e.measurement;
  if (!e.streams.empty()) {
    json streams = json::array();
    for (auto& s : e.streams)
      streams.push_back(json{{"name", s.name}, {"depth", s.depth}, {"writes", s.writes}, {"reads", s.reads}, {"max_occupancy", s.maxOccupancy},
                             {"full_waits", s.fullWaits}, {"empty_waits", s.emptyWaits}, {"evidence", "c-simulation"}});
    j["streams"] = std::move(streams);
  }
  return j;
}

FpgaEstimate fpgaFrom(const json& j) {
  FpgaEstimate e;
  e.device = findFpgaDevice(j.value("device", std::string()));
  e.cycles = j.value("cycles", int64_t(0));
  e.seconds = j.value("seconds", 0.0);
  e.resources = resourcesFrom(j.value("resources", json()));
  e.measurement = j.value("measurement", std::string());
  if (auto ss = j.value("streams", json()); ss.is_array())
    for (auto& sj : ss) {
      if (!sj.is_object()) continue;
      StreamObservation s;
      s.name = sj.value("name", std::string());
      s.depth = sj.value("depth", int64_t(0));
      s.writes = sj.value("writes", int64_t(0));
      s.reads = sj.value("reads", int64_t(0));
      s.maxOccupancy = sj.value("max_occupancy", int64_t(0));
      s.fullWaits = sj.value("full_waits", int64_t(0));
      s.emptyWaits = sj.value("empty_waits", int64_t(0));
      e.streams.push_back(std::move(s));
    }
  if (auto n = j.value("notes", json()); n.is_array())
    for (auto& t : n)
      if (t.is_string()) e.notes.push_back(t.get<std::string>());
  if (auto ks = j.value("kernels", json()); ks.is_array())
    for (auto& kj : ks) {
      if (!kj.is_object()) continue;
      KernelEstimate k;
      k.statePath = kj.value("state", std::string());
      k.cycles = kj.value("cycles", int64_t(0));
      k.launches = kj.value("launches", int64_t(1));
      k.seconds = kj.value("seconds", 0.0);
      k.resources = resourcesFrom(kj.value("resources", json()));
      k.measuredCycles = kj.value("measured_cycles", int64_t(0));
      k.unmeasuredWhy = kj.value("unmeasured_why", std::string());
      if (auto ls = kj.value("loops", json()); ls.is_array())
        for (auto& lj : ls) {
          if (!lj.is_object()) continue;
          LoopEstimate l;
          l.path = lj.value("path", std::string());
          l.trips = lj.value("trips", int64_t(0));
          l.pipelined = lj.value("pipelined", false);
          l.unrolled = lj.value("unrolled", false);
          l.depth = lj.value("depth", int64_t(0));
          l.ii = lj.value("ii", int64_t(1));
          l.iiReason = lj.value("ii_reason", std::string());
          l.cycles = lj.value("cycles", int64_t(0));
          l.executions = lj.value("executions", int64_t(1));
          k.loops.push_back(std::move(l));
        }
      e.kernels.push_back(std::move(k));
    }
  return e;
}

} // namespace

void addModuleTimes(ProfileReport& r, const ir::Sdfg& model) {
  r.modules.clear();
  for (ir::State* st : model.allStates())
    for (const ir::ModuleGroup& g : ir::moduleGroups(*st)) {
      ModuleProfile m{g.info.address, g.info.module, g.info.depth, g.info.ops, 0, 0};
      for (ir::Node* n : g.members)
        if (const ElementProfile* e = r.find(ir::pathOf(*n))) {
          m.ms += e->timeMs.median;
          ++m.timedOps;
        }
      if (m.timedOps > 0) r.modules.push_back(std::move(m));
    }
}

std::string reportJson(const ProfileReport& r) {
  json j;
  j["format"] = "dcw-profile";
  j["version"] = 1;
  j["model"] = r.model;
  if (!r.script.empty()) j["script"] = r.script;
  j["target"] = r.target;
  j["instrument"] = r.instrument;
  j["repeat"] = r.repeat;
  j["warmup"] = r.warmup;
  j["threads"] = r.threads;
  j["symbols"] = r.symbols;
  j["wall_ms"] = spreadJson(r.wallMs);
  j["program_ms"] = spreadJson(r.programMs);
  j["peak_memory"] = json{{"peak_rss_bytes", r.memory.peakRssBytes}, {"baseline_rss_bytes", r.memory.baselineRssBytes},
                          {"peak_delta_bytes", r.memory.peakDeltaBytes}, {"method", r.memory.method}};
  if (r.memory.gpuPeakBytes >= 0) {
    j["peak_memory"]["gpu_peak_bytes"] = r.memory.gpuPeakBytes;
    j["peak_memory"]["gpu_held_bytes"] = r.memory.gpuHeldBytes;
    if (r.memory.gpuDeviceTotalBytes > 0) {
      j["peak_memory"]["gpu_device_used_bytes"] = r.memory.gpuDeviceUsedBytes;
      j["peak_memory"]["gpu_device_total_bytes"] = r.memory.gpuDeviceTotalBytes;
    }
  }
  json c{{"kind", r.counters.kind}, {"names", r.counters.names}, {"perf_event_paranoid", r.counters.perfEventParanoid}};
  if (!r.counters.unavailable.empty()) c["unavailable"] = r.counters.unavailable;
  j["counters"] = c;
  j["dropped_events"] = r.droppedEvents;
  j["other_busy_cores"] = r.otherBusyCores ? json(*r.otherBusyCores) : json();
  if (!r.messages.empty()) j["messages"] = r.messages;
  if (r.peaks) {
    const MachinePeaks& p = *r.peaks;
    j["machine"] = json{{"cpu", p.cpuModel}, {"cores", p.cores}, {"threads", p.threads}, {"compiler", p.compiler},
                        {"peak_gflop_per_s_float32", p.gflopsFloat32}, {"peak_float32_method", p.float32Method},
                        {"peak_gflop_per_s_float32_fma", p.gflopsFloat32Fma}, {"peak_gflop_per_s_float32_sgemm", p.gflopsFloat32Sgemm},
                        {"peak_gflop_per_s_float64", p.gflopsFloat64},
                        {"peak_gb_per_s", p.bandwidthGBs}, {"triad_array_mib", p.arrayMiB}, {"cached", p.cached}};
    if (p.gflopsFloat32SgemmNow > 0) j["machine"]["gflop_per_s_float32_sgemm_this_run"] = p.gflopsFloat32SgemmNow;
  }
  json els = json::object();
  for (auto& e : r.elements) {
    json x{{"kind", e.kind}, {"label", e.label}, {"parent", e.parent}, {"calls", e.callsPerRun}, {"time_ms", spreadJson(e.timeMs)},
           {"flops", opt(e.flops)}, {"bytes", opt(e.bytes)}, {"cost_estimated", e.estimated},
           {"gflop_per_s", opt(e.gflopsPerSecond)}, {"gb_per_s", opt(e.gbPerSecond)}};
    if (e.flops && e.bytes && *e.bytes > 0) x["arithmetic_intensity"] = *e.flops / *e.bytes;
    if (e.masterOnly) x["master_thread_only"] = true;
    if (!e.counters.empty()) x["counters"] = e.counters;
    els[e.path] = std::move(x);
  }
  j["elements"] = std::move(els);
  if (!r.modules.empty()) {
    json mods = json::object();
    for (auto& m : r.modules)
      mods[m.address] = json{{"module", m.module}, {"depth", m.depth}, {"ops", m.ops}, {"timed_ops", m.timedOps}, {"time_ms", m.ms}};
    j["modules"] = std::move(mods);
  }
  if (r.fpga) j["fpga"] = fpgaJson(*r.fpga);
  return j.dump(2) + "\n";
}

Expected<ProfileReport> parseReport(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(where, "is not a JSON object", "give a report written by `dcw profile --report`");
  if (j.value("format", std::string()) != "dcw-profile")
    return fail(where, "is not a DCW profile report (no \"format\": \"dcw-profile\")", "give a report written by `dcw profile --report`");
  if (j.value("version", 0) != 1)
    return fail(where, "has profile report version " + std::to_string(j.value("version", 0)) + ", this DCW reads version 1",
                "profile the model again with this DCW");
  ProfileReport r;
  try {
    r.model = j.value("model", std::string());
    r.script = j.value("script", std::string());
    r.target = j.value("target", std::string("cpu"));
    r.instrument = j.value("instrument", std::string());
    r.repeat = j.value("repeat", 0);
    r.warmup = j.value("warmup", 0);
    r.threads = j.value("threads", 0);
    if (j.contains("symbols") && j["symbols"].is_object())
      for (auto& [k, v] : j["symbols"].items())
        if (v.is_number_integer()) r.symbols[k] = v.get<int64_t>();
    r.wallMs = spreadFrom(j.value("wall_ms", json()));
    r.programMs = spreadFrom(j.value("program_ms", json()));
    if (auto m = j.value("peak_memory", json()); m.is_object()) {
      r.memory.peakRssBytes = m.value("peak_rss_bytes", int64_t(0));
      r.memory.baselineRssBytes = m.value("baseline_rss_bytes", int64_t(0));
      r.memory.gpuPeakBytes = m.value("gpu_peak_bytes", int64_t(-1));
      r.memory.gpuHeldBytes = m.value("gpu_held_bytes", int64_t(-1));
      r.memory.gpuDeviceUsedBytes = m.value("gpu_device_used_bytes", int64_t(-1));
      r.memory.gpuDeviceTotalBytes = m.value("gpu_device_total_bytes", int64_t(-1));
      r.memory.peakDeltaBytes = m.value("peak_delta_bytes", int64_t(0));
      r.memory.method = m.value("method", std::string());
    }
    if (auto c = j.value("counters", json()); c.is_object()) {
      r.counters.kind = c.value("kind", std::string("none"));
      r.counters.unavailable = c.value("unavailable", std::string());
      r.counters.perfEventParanoid = c.value("perf_event_paranoid", -99);
      if (c.contains("names") && c["names"].is_array())
        for (auto& n : c["names"])
          if (n.is_string()) r.counters.names.push_back(n.get<std::string>());
    }
    r.droppedEvents = j.value("dropped_events", size_t(0));
    if (auto o = j.find("other_busy_cores"); o != j.end() && o->is_number()) r.otherBusyCores = o->get<double>();
    if (auto m = j.value("messages", json()); m.is_array())
      for (auto& line : m)
        if (line.is_string()) r.messages.push_back(line.get<std::string>());
    if (auto m = j.value("machine", json()); m.is_object()) {
      MachinePeaks p;
      p.cpuModel = m.value("cpu", std::string());
      p.cores = m.value("cores", 0);
      p.threads = m.value("threads", 0);
      p.compiler = m.value("compiler", std::string());
      p.gflopsFloat32 = m.value("peak_gflop_per_s_float32", 0.0);
      p.float32Method = m.value("peak_float32_method", std::string());
      p.gflopsFloat32Fma = m.value("peak_gflop_per_s_float32_fma", 0.0);
      p.gflopsFloat32Sgemm = m.value("peak_gflop_per_s_float32_sgemm", 0.0);
      p.gflopsFloat32SgemmNow = m.value("gflop_per_s_float32_sgemm_this_run", 0.0);
      p.gflopsFloat64 = m.value("peak_gflop_per_s_float64", 0.0);
      p.bandwidthGBs = m.value("peak_gb_per_s", 0.0);
      p.arrayMiB = m.value("triad_array_mib", 0.0);
      p.cached = m.value("cached", false);
      r.peaks = p;
    }
    if (auto f = j.value("fpga", json()); f.is_object()) r.fpga = fpgaFrom(f);
    auto els = j.value("elements", json());
    if (!els.is_object()) return fail(where, "has no \"elements\" object", "give a report written by `dcw profile --report`");
    for (auto& [path, x] : els.items()) {
      if (!x.is_object()) return fail(where, "element '" + path + "' is not an object");
      ElementProfile e;
      e.path = path;
      e.kind = x.value("kind", std::string());
      e.label = x.value("label", std::string());
      e.parent = x.value("parent", std::string());
      e.masterOnly = x.value("master_thread_only", false);
      e.callsPerRun = x.value("calls", 0.0);
      e.timeMs = spreadFrom(x.value("time_ms", json()));
      e.flops = optFrom(x, "flops");
      e.bytes = optFrom(x, "bytes");
      e.estimated = x.value("cost_estimated", false);
      e.gflopsPerSecond = optFrom(x, "gflop_per_s");
      e.gbPerSecond = optFrom(x, "gb_per_s");
      if (x.contains("counters") && x["counters"].is_object())
        for (auto& [k, v] : x["counters"].items())
          if (v.is_number()) e.counters[k] = v.get<double>();
      r.elements.push_back(std::move(e));
    }
    if (auto mods = j.value("modules", json()); mods.is_object())
      for (auto& [address, x] : mods.items()) {
        if (!x.is_object()) return fail(where, "module '" + address + "' is not an object");
        r.modules.push_back({address, x.value("module", std::string()), x.value("depth", 0), x.value("ops", 0), x.value("timed_ops", 0),
                             x.value("time_ms", 0.0)});
      }
  } catch (const std::exception& ex) {
    return fail(where, std::string("has a malformed field: ") + ex.what(), "give a report written by `dcw profile --report`");
  }
  return r;
}

Expected<ProfileReport> readReport(const std::string& file) {
  std::ifstream f(file, std::ios::binary);
  if (!f) return fail(file, "cannot be read", "check the path");
  std::stringstream ss;
  ss << f.rdbuf();
  return parseReport(ss.str(), file);
}

Comparison compareReports(const ProfileReport& a, const ProfileReport& b) {
  Comparison c;
  c.wallAMs = a.wallMs.median;
  c.wallBMs = b.wallMs.median;
  // Leaves: common elements that contain no other common element (walking A's parent chains).
  std::set<std::string> common, parentsA;
  for (auto& ea : a.elements)
    if (b.find(ea.path)) common.insert(ea.path);
  for (auto& ea : a.elements) {
    if (!common.count(ea.path)) continue;
    for (const ElementProfile* p = a.find(ea.parent); p; p = a.find(p->parent))
      if (common.count(p->path)) {
        parentsA.insert(p->path);
        break;
      }
  }
  for (auto& ea : a.elements) {
    const ElementProfile* eb = b.find(ea.path);
    if (!eb) {
      ++c.onlyA;
      continue;
    }
    ComparisonRow row{ea.path, ea.kind, ea.timeMs.median, eb->timeMs.median, 0};
    row.ratio = row.aMs > 0 ? row.bMs / row.aMs : 0;
    if (!parentsA.count(ea.path)) {
      c.leafAMs += row.aMs;
      c.leafBMs += row.bMs;
    }
    c.rows.push_back(std::move(row));
  }
  for (auto& eb : b.elements)
    if (!a.find(eb.path)) ++c.onlyB;
  for (auto& ma : a.modules)
    for (auto& mb : b.modules)
      if (ma.address == mb.address) c.modules.push_back({ma.address, "module", ma.ms, mb.ms, ma.ms > 0 ? mb.ms / ma.ms : 0});
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const ComparisonRow& x, const ComparisonRow& y) {
    return std::fabs(x.bMs - x.aMs) > std::fabs(y.bMs - y.aMs);
  });
  return c;
}

std::string formatComparison(const Comparison& c, const std::string& nameA, const std::string& nameB, size_t maxRows) {
  // At least as wide as the totals' labels, which are never cut.
  size_t width = std::string_view("total (innermost timed elements)").size();
  size_t n = maxRows ? std::min(maxRows, c.rows.size()) : c.rows.size();
  for (size_t i = 0; i < n; ++i) width = std::max(width, c.rows[i].path.size());
  width = std::min<size_t>(width, 100);
  std::string out;
  char buf[512];
  auto row = [&](const std::string& path, const std::string& a, const std::string& b, const std::string& ratio) {
    std::string p = path.size() > width ? "..." + path.substr(path.size() - width + 3) : path;
    std::snprintf(buf, sizeof buf, "%-*s  %12s  %12s  %8s\n", static_cast<int>(width), p.c_str(), a.c_str(), b.c_str(), ratio.c_str());
    out += buf;
  };
  auto ms = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.4f", v);
    return std::string(b);
  };
  auto ratio = [](double a, double b) {
    if (a <= 0) return std::string("-");
    char r[64];
    std::snprintf(r, sizeof r, "%.3f", b / a);
    return std::string(r);
  };
  out += "A: " + nameA + "\nB: " + nameB + "\n";
  row("element", "A ms", "B ms", "B/A");
  for (size_t i = 0; i < n; ++i) row(c.rows[i].path, ms(c.rows[i].aMs), ms(c.rows[i].bMs), ratio(c.rows[i].aMs, c.rows[i].bMs));
  if (n < c.rows.size()) out += "... " + std::to_string(c.rows.size() - n) + " more elements in both\n";
  row("total (wall, median)", ms(c.wallAMs), ms(c.wallBMs), ratio(c.wallAMs, c.wallBMs));
  row("total (innermost timed elements)", ms(c.leafAMs), ms(c.leafBMs), ratio(c.leafAMs, c.leafBMs));
  out += std::to_string(c.rows.size()) + " elements in both, " + std::to_string(c.onlyA) + " only in A, " + std::to_string(c.onlyB) +
         " only in B\n";
  if (!c.modules.empty()) { // module groups: the sums of their top-level ops
    out += "\n";
    row("module group", "A ms", "B ms", "B/A");
    for (auto& m : c.modules) row(m.path, ms(m.aMs), ms(m.bMs), ratio(m.aMs, m.bMs));
  }
  return out;
}

} // namespace dcw::codegen
