// The command layer headless:
//   `dcw transforms --list`                               every registered transformation
//   `dcw transforms --markdown`                           the same as a Markdown reference (docs/transformations.md)
//   `dcw transforms MODEL [--at PATH] [--expand] [--all]` where transformations apply, as script lines
//   (PATH may be a module group, main/state0/module:encoder/layer.3: its whole-group lines come first)
//   `dcw apply MODEL --script S [-o OUT.dcw.json]`        replays a script (the GUI's exported history)
//   `dcw optimize MODEL [-o OUT.dcw.json] [--script-out S]` auto-optimize, recorded as a script
#include "app/cli/Cli.h"
#include "codegen/Target.h"
#include "core/support/AtomicFile.h"

#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/MapNodes.h"
#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/serialize/JsonFormat.h"
#include "core/support/Sha256.h"
#include "transforms/AutoOptimize.h"
#include "transforms/CatalogueMarkdown.h"
#include "transforms/Matcher.h"
#include "transforms/ModuleScope.h"
#include "transforms/Script.h"
#include "transforms/TransformationRegistry.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace dcw::cli {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

size_t countNodes(const ir::Sdfg& s) {
  size_t n = 0;
  s.forEachElement([&](const ir::Element& e) {
    if (dynamic_cast<const ir::Node*>(&e)) ++n;
  });
  return n;
}

} // namespace

void reportScriptWarnings(const Diagnostics& ds, const std::string& script) {
  for (auto& d : ds.items())
    if (d.severity != Severity::Error && d.location == script) std::cerr << severityName(d.severity) << ": " << d.str() << "\n";
}

std::function<int()> setupTransforms(CLI::App& sub) {
  struct Opts {
    std::string model, at;
    bool list = false, markdown = false, expand = false, all = false, timing = false;
    size_t limit = 10000;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)");
  auto* list = sub.add_flag("--list", o->list, "List every registered transformation: name, category, whether the result stays differentiable, description (tab-separated)");
  sub.add_flag("--markdown", o->markdown,
               "Print the transformation catalogue as Markdown (docs/transformations.md is this output): each transformation's "
               "category, description, pattern, script line and options with their types and defaults")
      ->excludes(list);
  sub.add_option("--at", o->at, "Only matches touching the element at this path (a node, or every match in a state, region or module group such as main/state0/module:block1)");
  sub.add_flag("--expand", o->expand, "Expand every library node (pure) first, so map-level transformations show");
  sub.add_flag("--all", o->all, "Also list the matches that do not apply, with the reason");
  sub.add_flag("--timing", o->timing, "Print the time taken to stderr");
  sub.add_option("--limit", o->limit, "At most this many structural matches per transformation")->check(CLI::Range(1, 100000000));
  return [o]() -> int {
    const auto& reg = transforms::TransformationRegistry::instance();
    if (o->markdown) {
      std::cout << transforms::catalogueMarkdown(reg);
      return kExitOk;
    }
    if (o->list) {
      for (auto& t : reg.all())
        std::cout << t->name() << "\t" << t->category() << "\t"
                  << (t->keepsDifferentiable() ? "differentiable" : "not-differentiable") << "\t" << t->description() << "\n";
      return kExitOk;
    }
    if (o->model.empty())
      return reportError(Diagnostic::error("dcw transforms", "no model given", "give a MODEL, or --list (--markdown) for every transformation"));
    auto t0 = Clock::now();
    auto m = io::loadModel(o->model);
    if (!m) return reportError(m.error());
    double loadMs = msSince(t0);
    double expandMs = 0;
    if (o->expand) {
      auto t1 = Clock::now();
      auto r = expansions::expandAll(*m->sdfg);
      if (!r) {
        Diagnostic d = r.error();
        d.location = o->model + ": " + d.location;
        return reportError(d);
      }
      expandMs = msSince(t1);
    }
    transforms::MatchQuery q;
    q.limitPerTransformation = o->limit;
    q.includeInapplicable = o->all;
    const bool module = ir::parseModuleAddress(o->at).has_value();
    if (module) { // a module group: every match at one of its ops
      auto members = ir::moduleMembers(*m->sdfg, o->at);
      if (!members) {
        Diagnostic d = members.error();
        d.location = "--at " + o->at;
        return reportError(d);
      }
      q.anchors.assign(members->begin(), members->end());
    } else if (!o->at.empty()) {
      auto e = ir::resolvePath(*m->sdfg, o->at);
      if (!e) {
        Diagnostic d = e.error();
        d.location = "--at " + o->at;
        if (d.hint.empty()) d.hint = "give the path of a node, state, region or module group (see `dcw inspect --modules`)";
        return reportError(d);
      }
      q.anchors.push_back(*e);
    }
    auto t2 = Clock::now();
    auto candidates = transforms::findCandidates(reg, *m->sdfg, q);
    double searchMs = msSince(t2);
    size_t applicable = 0;
    if (module) // first the lines that act on the whole group, then each place
      for (auto& g : transforms::moduleCandidates(candidates, o->at, *m->sdfg))
        std::cout << "apply " << g.match.str() << "   # " << g.places << (g.places == 1 ? " place" : " places") << " in the module\n";
    for (auto& c : candidates) {
      if (c.applicable) {
        ++applicable;
        std::cout << "apply " << c.match.str() << "\n";
      } else if (o->all) {
        std::cout << "# not applicable: apply " << c.match.str() << ": " << c.whyNot << "\n";
      }
    }
    if (applicable == 0) std::cerr << "no transformation applies" << (o->at.empty() ? "" : " at " + o->at) << "\n";
    if (o->timing)
      std::cerr << "timing: load " << fixed(loadMs, 1) << " ms" << (o->expand ? ", expand " + fixed(expandMs, 1) + " ms" : "")
                << ", search " << fixed(searchMs, 1) << " ms (" << candidates.size() << " matches, " << applicable
                << " applicable)\n";
    return kExitOk;
  };
}

Expected<io::LoadOptions> specialization(const std::string& model, const std::vector<std::string>& dims);

std::function<int()> setupApply(CLI::App& sub) {
  struct Opts {
    std::string model, script, out;
    std::vector<std::string> dims;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json) the script was recorded on")->required();
  sub.add_option("--script", o->script, "DCW script (exported from the GUI or `dcw optimize --script-out`)")->required();
  sub.add_option("-o,--output", o->out, "Write the transformed model here (.dcw.json); without it, print a summary");
  sub.add_option("--dim", o->dims, "Specialize a dynamic dim first, NAME=VALUE (as the script was recorded with `dcw optimize --dim`)");
  return [o]() -> int {
    auto load = specialization(o->model, o->dims);
    if (!load) return reportError(load.error());
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    pipeline::Options po;
    po.fixedDims = load->fixedDims;
    po.fixedValues = load->fixedValues;
    po.specializedStepsMustFit = true; // what was asked for is what is written
    size_t applied = 0;
    auto m = pipeline::loadWithSteps(o->model, steps, po, &applied);
    if (!m) return reportError(m.error());
    reportWarnings(m->warnings);
    if (!o->out.empty()) {
      if (auto r = serialize::saveFile(*m->sdfg, o->out); !r) return reportError(r.error());
      std::cerr << "applied " << applied << " steps; wrote " << o->out << "\n";
    } else {
      std::cout << "applied " << applied << " steps; the model has " << countNodes(*m->sdfg) << " nodes in "
                << m->sdfg->allStates().size() << " top-level states\n";
    }
    return kExitOk;
  };
}

// --dim NAME=VALUE... into load options that specialize the model's dynamic dims (as run/bench do),
// so steps recorded here fit the model those commands compile.
Expected<io::LoadOptions> specialization(const std::string& model, const std::vector<std::string>& dims) {
  io::LoadOptions load;
  if (dims.empty()) return load;
  auto fixed = fixedDimsFromOptions(model, dims);
  if (!fixed) return fixed.takeError();
  load.fixedDims = fixed->dims;
  load.fixedValues = fixed->values;
  return load;
}

std::function<int()> setupOptimize(CLI::App& sub) {
  struct Opts {
    std::string model, out, scriptOut, tileSizes = "32";
    bool noTiling = false, noParallel = false, verbose = false;
    size_t maxSteps = 20000;
    std::vector<std::string> dims, prefer;
    std::string target = "cpu", layout = "channels-last";
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("-o,--output", o->out, "Write the optimized model here (.dcw.json)");
  sub.add_option("--layout", o->layout,
                 "Activation layout between oneDNN nodes: channels-last (default; ChannelsLast), blocked or blocked8 (BlockedLayout: "
                 "channels in blocks of 16 or 8, channels-last where they do not fill blocks), none")
      ->check(CLI::IsMember({"channels-last", "blocked", "blocked8", "none"}));
  addTargetOption(sub, o->target)->description(
      "Target to optimize for: cpu (default), or cuda / cuda-sim (the model moves onto the GPU, cuBLAS and cuDNN where they take a "
      "node, whole kernels); the FPGA targets are not auto-optimized");
  sub.add_option("--script-out", o->scriptOut, "Write the steps as a DCW script (replay with `dcw apply`)");
  sub.add_option("--tile-sizes", o->tileSizes, "MapTiling's tile sizes (one for every dimension, or one per dimension)");
  sub.add_flag("--no-tiling", o->noTiling, "Do not tile maps");
  sub.add_flag("--no-parallel", o->noParallel, "Do not set outermost maps to cpu_multicore (gpu_device for the GPU)");
  addPreferOption(sub, o->prefer)->description(
      "Implementations to choose for library nodes that take them, first match wins (default: onednn; for the GPU cublas, cudnn; "
      "`pure` keeps the model differentiable)");
  sub.add_option("--max-steps", o->maxSteps, "Step budget")->check(CLI::Range(1, 100000000));
  sub.add_flag("-v,--verbose", o->verbose, "Print each phase and every skipped step to stderr");
  sub.add_option("--dim", o->dims,
                 "Specialize a dynamic dim first, NAME=VALUE (`dcw run`/`bench` specialize to the inputs, 1 by default): "
                 "shape arithmetic then folds and the steps fit the model they compile");
  return [o]() -> int {
    auto t0 = Clock::now();
    auto load = specialization(o->model, o->dims);
    if (!load) return reportError(load.error());
    auto m = io::loadModel(o->model, *load);
    if (!m) return reportError(m.error());
    reportWarnings(m->warnings);
    edit::History h(*m->sdfg);
    transforms::AutoOptimizeOptions opts;
    opts.tileSizes = o->tileSizes;
    opts.layout = o->layout;
    opts.tile = !o->noTiling;
    opts.parallelize = !o->noParallel;
    const codegen::Target* target = codegen::findTarget(o->target);
    if (!target) return reportError(codegen::requireTarget(o->target).error());
    std::string why;
    auto profile = target->autoOptimizeProfile(&why);
    if (!profile) return reportError(Diagnostic::error("dcw optimize", "--target " + o->target + " is not auto-optimized", why));
    opts.target = profile->device;
    if (!profile->prefer.empty()) opts.prefer = profile->prefer;
    if (!o->prefer.empty()) opts.prefer = o->prefer;
    opts.maxSteps = o->maxSteps;
    if (o->verbose) opts.log = [](const std::string& line) { std::cerr << "auto-optimize: " << line << "\n"; };
    auto n = transforms::autoOptimize(h, opts);
    if (!n) return reportError(n.error());
    std::map<std::string, size_t> kinds;
    for (size_t i = 0; i < h.position(); ++i) {
      std::istringstream line(h.command(i).scriptLine());
      std::string verb, what;
      line >> verb >> what;
      kinds[verb == "apply" ? what : verb == "set" ? "set schedule" : verb]++;
    }
    std::string summary;
    for (auto& [k, c] : kinds) summary += (summary.empty() ? "" : ", ") + std::to_string(c) + " " + k;
    std::cerr << "auto-optimize: " << *n << " steps" << (summary.empty() ? "" : " (" + summary + ")") << " in "
              << fixed(msSince(t0) / 1000.0, 2) << " s\n";
    std::string scriptText;
    if (!o->scriptOut.empty() || o->out.empty()) {
      auto sha = sha256File(o->model);
      scriptText = transforms::writeScript(h, o->model, sha ? *sha : std::string());
    }
    if (!o->scriptOut.empty()) {
      if (auto r = writeFileAtomically(o->scriptOut, scriptText); !r) return reportError(r.error());
      std::cerr << "wrote " << o->scriptOut << "\n";
    }
    if (!o->out.empty()) {
      if (auto r = serialize::saveFile(*m->sdfg, o->out); !r) return reportError(r.error());
      std::cerr << "wrote " << o->out << "\n";
    } else if (o->scriptOut.empty()) {
      std::cout << scriptText; // nothing to write: show the steps
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
