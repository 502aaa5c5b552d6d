#include "transforms/AutoOptimize.h"

#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/expansions/onednn/OneDnnOps.h"

#include "core/ir/AccessNode.h"
#include "core/ir/DeviceState.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/StateScopes.h"
#include "core/ir/Validate.h"
#include "transforms/ApplyTransformation.h"
#include "transforms/Matcher.h"
#include "transforms/ModelCommands.h"
#include "transforms/OptionList.h"
#include "transforms/TransformationRegistry.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/MapDimShuffle.h"
#include "transforms/catalogue/MapFlatten.h"
#include "transforms/catalogue/SqueezeExcitationFusion.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

const std::vector<std::string>& defaultPipeline() {
  static const std::vector<std::string> p = {
      // before expansion: graph-level rewrites of ONNX ops (besides every name of category "Graph")
      "ConstantFolding",
      "ConvBatchNormFolding",
      "MatMulAddToGemm",
      "GeluFusion",
      "LayerNormFusion",
      "SiluFusion",
      "HardSwishFusion",
      "SqueezeExcitationFusion",
      "MatMulScaleFusion",
      "AddFusion",
      "ActivationFusion",
      "ConcatBatchNormFusion",
      "ChannelShuffleFusion",
      "ElementwiseChainFusion",
      // after the implementations are chosen, before expansion
      "ChannelsLast",
      "InputChannelsLast",
      "TransposeToView",
      "ReshapeToView",
      // after expansion, in this order
      "InlineNestedSDFG",
      "StateFusion",
      "RedundantArray",
      "RedundantSecondArray",
      "DeadDataflowElimination",
      "CopyToView",
      "StridedView",
      "MapFusion",
      "MapReduceFusion",
      "TaskletFusion",
      "TrivialMapElimination",
      "MapCollapse",
      "MapDimShuffle",
      "MapFlatten",
      "Vectorization",
      "MapTiling",
  };
  return p;
}

namespace {

// "1.23 s": the time since `t`, as the per-phase lines of the log (dcw optimize -v) give it.
std::string secondsSince(std::chrono::steady_clock::time_point t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  return buf;
}

// Rewrites of library nodes that are not of category "Graph" but must run before expansion.
constexpr const char* kBeforeExpansion[] = {"ConstantFolding", "ElementwiseChainFusion"};
// Fusions into a producer's epilogue (dcw fused ops): they pay only where an implementation other
// than pure runs the fused node as one kernel (its pure expansion is the unfused subgraph again).
constexpr const char* kEpilogueFusions[] = {"MatMulScaleFusion", "AddFusion", "ActivationFusion", "ConcatBatchNormFusion"};
// Layout choices that depend on the implementations chosen (ChannelsLast: where oneDNN runs), then
// the transposes those layouts leave in memory order (TransposeToView) and reshapes of what is
// row-major after them (ReshapeToView) as views.
constexpr const char* kAfterImplementations[] = {"ChannelsLast", "InputChannelsLast", "TransposeToView", "ReshapeToView"};
constexpr size_t kMaxPassesPerTransformation = 200;

// Whether a node lies inside some map: in its own state, or through the nodes (nested SDFGs,
// library nodes) that contain its SDFG. Unknown scopes (malformed) count as inside.
bool insideAnyMap(const Node& n) {
  const State* st = n.parent();
  if (!st) return false;
  auto tree = st->scopes();
  if (!tree) return true;
  auto it = (*tree)->scopes.find(n.id());
  if (it != (*tree)->scopes.end() && it->second) return true;
  const Sdfg* sdfg = owningSdfg(st);
  const Node* owner = sdfg ? sdfg->parentNode() : nullptr;
  return owner ? insideAnyMap(*owner) : false;
}

bool isParallel(Schedule s) {
  return s == Schedule::CpuMulticore || s == Schedule::GpuDevice || s == Schedule::GpuThreadBlock ||
         s == Schedule::FpgaPipeline;
}

bool endsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A command that keeps what its inner command did only when `keep` accepts the model afterwards;
// otherwise it fails, and the History (or AutoOptimizeCommand) rolls the whole step back. Its script
// line is the inner command's, so the exported script replays the step as it is.
class KeptIf : public edit::Command {
public:
  using Keep = std::function<Expected<void>(const Sdfg&)>;
  KeptIf(std::unique_ptr<edit::Command> inner, Keep keep) : inner_(std::move(inner)), keep_(std::move(keep)) {}
  std::string scriptLine() const override { return inner_->scriptLine(); }
  std::string title() const override { return inner_->title(); }
  bool keepsDifferentiable() const override { return inner_->keepsDifferentiable(); }
  Expected<void> execute(edit::Editor& editor) const override {
    DCW_CHECK(inner_->execute(editor));
    return keep_(editor.root());
  }

private:
  std::unique_ptr<edit::Command> inner_;
  Keep keep_;
};

// How the pipeline runs its steps: through a History (`dcw optimize`) or an Editor (the app's one-step
// AutoOptimizeCommand). A step is executed, validated when asked, and rolled back when it fails, element
// ids included, so that replaying the kept steps one by one gives the same model byte for byte;
// rollbackTo undoes every step after the first `kept` of the run again (a batch that left the model
// invalid, see Pipeline::saturate).
class StepRunner {
public:
  virtual ~StepRunner() = default;
  virtual Expected<void> run(std::unique_ptr<edit::Command> c, bool validate) = 0;
  virtual void rollbackTo(size_t kept) = 0;
  virtual size_t kept() const = 0;
  virtual bool validates() const = 0; // whether steps are validated at all
};

class HistoryRunner : public StepRunner {
public:
  explicit HistoryRunner(edit::History& h) : h_(h), base_(h.position()), validates_(h.validateEachStep) {}
  Expected<void> run(std::unique_ptr<edit::Command> c, bool validate) override {
    const ElementId next = h_.model().peekNextId();
    h_.validateEachStep = validates_ && validate;
    auto r = h_.execute(std::move(c));
    h_.validateEachStep = validates_;
    if (!r) {
      h_.model().resetNextId(next);
      return r;
    }
    before_.push_back(next);
    return {};
  }
  void rollbackTo(size_t kept) override {
    if (kept >= before_.size()) return;
    h_.jumpTo(base_ + kept);
    h_.truncate();
    h_.model().resetNextId(before_[kept]);
    before_.resize(kept);
  }
  size_t kept() const override { return before_.size(); }
  bool validates() const override { return validates_; }

private:
  edit::History& h_;
  size_t base_;
  bool validates_;
  std::vector<ElementId> before_; // the id counter before each kept step
};

class EditorRunner : public StepRunner {
public:
  EditorRunner(edit::Editor& editor, std::vector<std::string>& lines) : ed_(editor), root_(editor.root()), lines_(lines) {}
  Expected<void> run(std::unique_ptr<edit::Command> c, bool validate) override {
    const size_t mark = ed_.mark();
    const ElementId next = root_.peekNextId();
    auto r = c->execute(ed_);
    if (r && validate) {
      auto problems = ir::validate(root_);
      if (const Diagnostic* d = problems.firstError())
        r = fail(d->location, "'" + c->scriptLine() + "' would leave the model invalid (" + d->message + ")");
    }
    if (!r) {
      ed_.rollbackTo(mark);
      root_.resetNextId(next);
      return r;
    }
    marks_.push_back(mark);
    before_.push_back(next);
    differentiable_.push_back(c->keepsDifferentiable());
    lines_.push_back(c->scriptLine());
    return {};
  }
  void rollbackTo(size_t kept) override {
    if (kept >= marks_.size()) return;
    ed_.rollbackTo(marks_[kept]);
    root_.resetNextId(before_[kept]);
    marks_.resize(kept);
    before_.resize(kept);
    differentiable_.resize(kept);
    lines_.resize(kept);
  }
  size_t kept() const override { return marks_.size(); }
  bool validates() const override { return true; }
  bool differentiable() const {
    for (bool d : differentiable_)
      if (!d) return false;
    return true;
  }

private:
  edit::Editor& ed_;
  Sdfg& root_;
  std::vector<std::string>& lines_;
  std::vector<size_t> marks_;
  std::vector<ElementId> before_;
  std::vector<bool> differentiable_;
};

// Runs the pipeline through `runner`.
class Pipeline {
public:
  Pipeline(const Sdfg& root, const AutoOptimizeOptions& o, StepRunner& runner) : root_(root), o_(o), runner_(runner) {}

  size_t run() {
    const auto& reg = TransformationRegistry::instance();
    const auto& names = o_.pipeline.empty() ? defaultPipeline() : o_.pipeline;
    std::vector<const Transformation*> before, layouts, after;
    for (auto& name : names) {
      const Transformation* t = reg.find(name);
      if (!t) {
        log("skipped " + name + ": not registered");
        continue;
      }
      bool early = t->category() == "Graph", layout = false;
      for (auto* b : kBeforeExpansion) early = early || name == b;
      for (auto* l : kAfterImplementations) layout = layout || name == l;
      (layout ? layouts : early ? before : after).push_back(t);
    }
    const bool gpu = o_.target == "cuda";
    for (auto* t : before) {
      bool epilogue = false;
      for (auto* e : kEpilogueFusions) epilogue = epilogue || t->name() == e;
      if (epilogue)
        saturate(*t, {}, [this](Match& m) { return fusedRunsFaster(m); },
                 [this](const Match& m, const Sdfg& root) { return fusedNodeTaken(m, root); });
      else if (t->name() == std::string_view("SqueezeExcitationFusion"))
        saturate(*t, {}, [this](Match& m) { return SqueezeExcitationFusion::weightsSmallerThanActivation(m, root_); });
      else saturate(*t, {});
    }
    if (gpu) moveToGpu();
    chooseImplementations();
    // A step that gives up differentiability (ReshapeToView) only when more than pure is preferred:
    // a pure-only optimization keeps the model differentiable.
    const bool onlyPure = std::all_of(o_.prefer.begin(), o_.prefer.end(), [](const std::string& i) { return i == "pure"; });
    for (auto* t : layouts) {
      if (!t->keepsDifferentiable() && onlyPure) continue;
      if (t->name() == std::string_view("ChannelsLast")) {
        if (gpu || o_.layout == "none") continue;
        if (o_.layout == "blocked" || o_.layout == "blocked8")
          if (const Transformation* b = reg.find("BlockedLayout")) saturate(*b, {{"block", o_.layout == "blocked8" ? "8" : "16"}});
      }
      if (t->name() == std::string_view("InputChannelsLast")) {
        if (!gpu && o_.layout != "none") saturate(*t, {}, [this](Match& m) { return inputReorderPays(m); });
        continue;
      }
      saturate(*t, {});
    }
    // Library calls (oneDNN, cuBLAS, ..) describe their operands' layouts when expanded: with StridedView
    // in the pipeline they are expanded after it, so that the strided views it makes are what they
    // describe; the steps before it then run again over the expanded calls.
    const Transformation* expand = o_.expand ? reg.find("ExpandLibraryNode") : nullptr;
    auto strided = std::find_if(after.begin(), after.end(), [&](const Transformation* t) { return t->name() == "StridedView"; });
    const bool twoRounds = strided != after.end() && !onlyPure && !gpu; // StridedView feeds oneDNN alone
    if (expand)
      saturate(*expand, {}, [this, twoRounds](Match& m) { return computesValues(m) && ownImplementation(m) && (!twoRounds || !isLibraryCall(m)); });
    auto expandCalls = [&] {
      if (saturate(*expand, {}, [this](Match& m) { return computesValues(m) && ownImplementation(m); }) == 0) return;
      for (auto it = after.begin(); it != strided; ++it) saturate(**it, {});
    };
    for (size_t i = 0; i < after.size(); ++i) {
      const Transformation* t = after[i];
      if (twoRounds && expand && i == size_t(strided - after.begin()) + 1) expandCalls();
      if (!t->keepsDifferentiable() && onlyPure) continue; // CopyToView's views
      if (gpu && (t->name() == "MapTiling" || t->name() == "Vectorization" || t->name() == "MapDimShuffle" || t->name() == "MapFlatten"))
        continue; // CPU loop shapes
      if (t->name() == "MapDimShuffle") {
        // Only the order that puts the contiguous parameter innermost.
        saturate(*t, {}, [this](Match& m) {
          auto order = MapDimShuffle::contiguousOrder(m, root_);
          if (order) m.options["order"] = *order;
          return order.has_value();
        });
        continue;
      }
      if (t->name() == "MapFlatten") {
        // Only parameters whose merge leaves every memlet's offsets one contiguous range.
        saturate(*t, {}, [this](Match& m) {
          auto params = MapFlatten::contiguousParams(m, root_);
          if (!params) return false;
          m.options["params"] = *params;
          return MapFlatten::pays(m, root_);
        });
        continue;
      }
      if (t->name() == "MapTiling") {
        if (o_.tile) saturate(*t, {}, [this](Match& m) { return tileable(m); });
        continue;
      }
      saturate(*t, {});
    }
    if (twoRounds && expand && strided + 1 == after.end()) expandCalls();
    if (o_.parallelize) parallelize();
    if (steps_ >= o_.maxSteps) log("stopped: the step budget (" + std::to_string(o_.maxSteps) + ") is spent");
    return steps_;
  }

private:
  void log(const std::string& line) const {
    if (o_.log) o_.log(line);
  }
  bool budgetLeft() const { return steps_ < o_.maxSteps; }

  bool execute(std::unique_ptr<edit::Command> cmd, bool validate = true) {
    std::string line = cmd->scriptLine();
    if (failed_.count(line)) return false;
    auto r = runner_.run(std::move(cmd), validate);
    if (!r) {
      failed_.insert(line);
      log("skipped '" + line + "': " + r.error().str());
      return false;
    }
    ++steps_;
    return true;
  }

  // Applies `t` at every applicable match, again and again, until a pass applies nothing. A step
  // whose result `keep` refuses is rolled back (and not tried again). The model is validated once a
  // pass rather than after every step (a model of thousands of nodes folds thousands of constants, and
  // validation reads the whole model); a pass that leaves it invalid is rolled back and applied again
  // in halves (applyInHalves), so the steps at fault are rolled back alone, as they would have been.
  using Keep = std::function<Expected<void>(const Match&, const Sdfg&)>;
  size_t saturate(const Transformation& t, const std::map<std::string, std::string>& options,
                  const std::function<bool(Match&)>& filter = {}, const Keep& keep = {}) {
    MatchQuery q;
    q.limitPerTransformation = o_.limitPerTransformation;
    q.includeInapplicable = false;
    size_t total = 0;
    const auto began = std::chrono::steady_clock::now();
    auto command = [&](const Match& m) {
      std::unique_ptr<edit::Command> cmd = std::make_unique<ApplyTransformation>(m);
      if (keep) cmd = std::make_unique<KeptIf>(std::move(cmd), [keep, m](const Sdfg& root) { return keep(m, root); });
      return cmd;
    };
    for (size_t pass = 0; pass < kMaxPassesPerTransformation && budgetLeft(); ++pass) {
      size_t applied = 0;
      const size_t start = runner_.kept(), stepsBefore = steps_;
      std::vector<Match> batch;
      for (auto& m : enumerateMatches(t, root_, q)) {
        if (!budgetLeft()) break;
        for (auto& [k, v] : options) m.options[k] = v;
        if (filter && !filter(m)) continue;
        if (failed_.count("apply " + m.str())) continue;
        if (!t.canApply(m, root_, nullptr)) continue; // also drops matches an earlier step consumed
        if (execute(command(m), false)) {
          ++applied;
          batch.push_back(m);
        }
      }
      if (!batch.empty() && runner_.validates() && validate(root_).hasErrors()) {
        runner_.rollbackTo(start);
        steps_ = stepsBefore;
        applied = applyInHalves(t, batch, command);
      }
      total += applied;
      if (applied == 0) break;
    }
    if (total) log(std::string(t.name()) + ": " + std::to_string(total) + " steps in " + secondsSince(began));
    return total;
  }

  // The steps of a batch that left the model invalid, applied again in its two halves, each validated
  // as a whole; a half that leaves the model invalid is rolled back and split again, down to single
  // steps, each validated on its own: the steps at fault are rolled back alone, in a few validations.
  template <class Command>
  size_t applyInHalves(const Transformation& t, const std::vector<Match>& batch, const Command& command) {
    if (batch.size() <= 2) {
      size_t n = 0;
      for (auto& m : batch)
        if (budgetLeft() && t.canApply(m, root_, nullptr) && execute(command(m))) ++n;
      return n;
    }
    const size_t half = batch.size() / 2;
    size_t n = 0;
    for (auto part : {std::vector<Match>(batch.begin(), batch.begin() + long(half)), std::vector<Match>(batch.begin() + long(half), batch.end())}) {
      const size_t start = runner_.kept(), stepsBefore = steps_;
      size_t applied = 0;
      for (auto& m : part)
        if (budgetLeft() && t.canApply(m, root_, nullptr) && execute(command(m), false)) ++applied;
      if (applied && validate(root_).hasErrors()) {
        runner_.rollbackTo(start);
        steps_ = stepsBefore;
        applied = applyInHalves(t, part, command);
      }
      n += applied;
    }
    return n;
  }

  // Independent commands (a property of each of many nodes), the model validated once after all of
  // them; when it is invalid they are rolled back and executed again, each validated on its own, so
  // that only those at fault are left out (one validation of a whole model instead of one per node).
  size_t executeValidatedOnce(const std::vector<std::function<std::unique_ptr<edit::Command>()>>& cmds) {
    const size_t start = runner_.kept(), stepsBefore = steps_;
    size_t n = 0;
    for (auto& c : cmds)
      if (budgetLeft() && execute(c(), false)) ++n;
    if (n == 0 || !runner_.validates() || !validate(root_).hasErrors()) return n;
    runner_.rollbackTo(start);
    steps_ = stepsBefore;
    n = 0;
    for (auto& c : cmds)
      if (budgetLeft() && execute(c())) ++n;
    return n;
  }

  // The whole model onto the GPU, as GpuTransform does it (one step), unless a state is there already.
  void moveToGpu() {
    const Transformation* t = TransformationRegistry::instance().find("GpuTransform");
    if (!t) return;
    const State* first = nullptr;
    for (State* st : root_.allStates()) {
      if (st->sdfg() != &root_) continue;
      if (isGpuState(root_, *st)) return;
      if (!first && stateComputes(*st)) first = st;
    }
    if (!first) return;
    Match m{"GpuTransform", {{"state", pathOf(*first)}}, {}};
    if (!t->canApply(m, root_, nullptr)) {
      Diagnostics why;
      t->canApply(m, root_, &why);
      log("skipped GpuTransform: " + (why.firstError() ? why.firstError()->message : std::string("it does not apply")));
      return;
    }
    if (execute(std::make_unique<ApplyTransformation>(m))) log("GpuTransform: the model moved onto the GPU");
  }

  // Every library node without a choice gets the first preferred implementation that takes it.
  void chooseImplementations() {
    std::vector<std::pair<std::string, std::string>> choices; // path, implementation
    root_.forEachElement([&](const Element& e) {
      auto* lib = dynamic_cast<const LibraryNode*>(&e);
      if (!lib || !lib->implementation.empty() || !lib->parent()) return;
      for (auto& impl : o_.prefer) {
        if (impl == "pure") break;
        if (expansions::canExpand(*lib, impl, o_.target)) {
          choices.emplace_back(pathOf(*lib), impl);
          break;
        }
      }
    });
    std::vector<std::function<std::unique_ptr<edit::Command>()>> cmds;
    for (auto& choice : choices)
      cmds.push_back([path = choice.first, impl = choice.second] { return std::make_unique<SetProperty>(path, "implementation", impl); });
    const size_t n = executeValidatedOnce(cmds);
    if (n) log("implementations: " + std::to_string(n) + " library nodes set to " + (o_.prefer.empty() ? "" : o_.prefer.front()));
  }

  // An epilogue fusion at `m` only when a preferred implementation other than pure (the first that
  // does, as chooseImplementations picks) takes the producer as it is (a base op: its fused op then
  // takes it too, every fused activation and Z being one it runs; a fused op: exactly that). With only
  // pure preferred, no epilogue fusion.
  bool fusedRunsFaster(const Match& m) const {
    auto it = m.elements.find("producer");
    if (it == m.elements.end()) return false;
    auto e = resolvePath(root_, it->second);
    auto* lib = e ? dynamic_cast<const LibraryNode*>(*e) : nullptr;
    if (!lib || !lib->parent()) return false;
    for (auto& impl : o_.prefer) {
      if (impl == "pure") return false;
      if (!lib->implementation.empty() && lib->implementation != impl) continue;
      if (!expansions::registry().find(lib->domain, lib->opType, impl)) continue; // cublas has no Conv: cudnn's turn
      if (expansions::canExpand(*lib, impl, o_.target)) return true; // else the next (onednn_winograd: a 1x1 goes to onednn)
    }
    return false;
  }

  // InputChannelsLast at `m` only where every reader is a convolution whose oneDNN call would reorder
  // the row-major input itself on every run: not one DCW's few-channel kernel takes (it reads the input
  // where it lies; MobileNets' and EfficientNets' 3x3 stems), so the copy replaces a reorder and adds
  // none (ResNet-50's, GoogLeNet's, DenseNet's 7x7 stems).
  bool inputReorderPays(const Match& m) const {
    auto e = resolvePath(root_, m.elements.at("array"));
    auto* an = e ? dynamic_cast<const AccessNode*>(*e) : nullptr;
    const State* st = an ? an->parent() : nullptr;
    if (!st) return false;
    const Sdfg* sdfg = owningSdfg(st);
    const DataDescriptor* x = sdfg ? sdfg->findData(an->data()) : nullptr;
    if (!x || x->shape.size() < 2) return false;
    for (const DataflowEdge* r : st->outEdges(an->id())) {
      auto* lib = dynamic_cast<const LibraryNode*>(st->node(r->dst));
      if (!lib || (lib->opType != "Conv" && lib->opType != "FusedConv") || r->dstConnector != "X") return false;
      const DataDescriptor* w = nullptr;
      for (const DataflowEdge* in : st->inEdges(lib->id()))
        if (in->dstConnector == "W") w = sdfg->findData(in->memlet.data);
      if (!w || w->shape.size() != 4) return false;
      const auto c = x->shape[1].constantValue(), kh = w->shape[2].constantValue(), kw = w->shape[3].constantValue();
      if (!c || !kh || !kw) return false;
      const Attribute* g = lib->attribute("group");
      const int64_t* group = g ? std::get_if<int64_t>(&g->value) : nullptr;
      const bool fewChannel = (!group || *group == 1) && *c <= expansions::onednn::kFewChannelMaxChannels &&
                              *kh * *kw <= expansions::onednn::kFewChannelMaxTaps;
      if (fewChannel) return false;
    }
    return true;
  }

  // After an epilogue fusion: the fused node (the producer, same path) must still be taken by the
  // implementation that took the producer (a Z it cannot add, for one, is not), else the step goes.
  Expected<void> fusedNodeTaken(const Match& m, const Sdfg& root) const {
    auto it = m.elements.find("producer");
    if (it == m.elements.end()) return fail("auto-optimize", "the match has no producer");
    auto e = resolvePath(root, it->second);
    auto* lib = e ? dynamic_cast<const LibraryNode*>(*e) : nullptr;
    if (!lib) return fail(it->second, "the fused node is gone");
    Expected<void> last = {};
    for (auto& impl : o_.prefer) {
      if (impl == "pure") break;
      if (!lib->implementation.empty() && lib->implementation != impl) continue;
      if (!expansions::registry().find(lib->domain, lib->opType, impl)) continue;
      auto taken = expansions::canExpand(*lib, impl, o_.target);
      if (taken || !lib->implementation.empty()) return taken;
      last = taken;
    }
    if (!last) return last;
    return fail(pathOf(*lib), "no implementation other than pure is preferred");
  }

  // ExpandLibraryNode with the node's own implementation (pure where it has none).
  bool ownImplementation(Match& m) const {
    auto it = m.elements.find("node");
    if (it == m.elements.end()) return true;
    auto e = resolvePath(root_, it->second);
    auto* lib = e ? dynamic_cast<const LibraryNode*>(*e) : nullptr;
    m.options["implementation"] = lib && !lib->implementation.empty() ? lib->implementation : "pure";
    return true;
  }

  // Whether the node ExpandLibraryNode would expand (after ownImplementation) gets an implementation
  // other than pure: a call of a library.
  static bool isLibraryCall(const Match& m) {
    auto it = m.options.find("implementation");
    return it != m.options.end() && it->second != "pure";
  }

  // Shape arithmetic (library nodes whose outputs are all integer tensors: Shape, Gather on shapes,
  // Concat of dims, ...) is left to the run preparation, which folds it once the model is specialized
  // to the input shapes; expanding it here would turn what could be a folded constant into run-time
  // code when a dynamic dim keeps it from folding now.
  bool computesValues(Match& m) const {
    auto it = m.elements.find("node");
    if (it == m.elements.end()) return true;
    auto e = resolvePath(root_, it->second);
    auto* lib = e ? dynamic_cast<const LibraryNode*>(*e) : nullptr;
    if (!lib || !lib->parent()) return true;
    bool anyFloat = false, anyOut = false;
    for (auto* edge : lib->parent()->outEdges(lib->id())) {
      const Sdfg* s = owningSdfg(lib);
      const DataDescriptor* d = s ? s->findData(edge->memlet.data) : nullptr;
      if (!d) continue;
      anyOut = true;
      if (!isInteger(d->dtype) && d->dtype != DType::Bool) anyFloat = true;
    }
    return !anyOut || anyFloat;
  }

  // MapTiling once per map: only outermost maps that are no tile maps and whose schedule was not
  // chosen as vectorized or unrolled (tiling inner maps or tile maps again would not end). Only
  // dimensions of constant extent larger than the tile are tiled (a symbolic batch dim is not), and
  // only maps with at least two such dimensions (blocking in one dimension buys no reuse); the match
  // gets the per-dimension tile_sizes.
  // Whether every memlet of the map's body names every parameter, and its element offset is the
  // innermost parameter plus terms without it (unit stride): each element is touched by one iteration and
  // the innermost loop walks memory in order, so tiles would reuse nothing (a copy, an elementwise map,
  // ShuffleNet's channel shuffle with its 28x28 planes merged: tiled 32x32 it ran 5-10% slower).
  bool streams(const MapEntry& me) const {
    const State& st = *me.parent();
    const Sdfg* sdfg = owningSdfg(&me);
    const MapExit* exit = scope::exitOf(st, me);
    if (!sdfg || !exit || me.params.empty()) return false;
    const auto memlets = scope::bodyMemlets(st, me).boundary();
    if (memlets.empty()) return false;
    const std::string& inner = me.params.back();
    for (const Memlet* m : memlets) {
      const DataDescriptor* d = sdfg->findData(m->data);
      if (!d || d->shape.empty() || m->subset.rank() != d->shape.size() || d->channelBlock > 0) return false;
      const auto names = m->subset.freeSymbols();
      for (const auto& p : me.params)
        if (!names.count(p)) return false;
      // The element offset, in which MapFlatten's digits recombine (7*(p // 7) + p % 7 is p).
      const auto strides = d->elementStrides();
      sym::Expr offset(0);
      for (size_t k = 0; k < m->subset.rank(); ++k) {
        if (!m->subset[k].isIndex()) return false;
        offset = offset + m->subset[k].begin * strides[k];
      }
      if ((offset - sym::Expr::symbol(inner)).freeSymbols().count(inner)) return false;
    }
    return true;
  }

  bool tileable(Match& m) const {
    auto it = m.elements.find("entry");
    if (it == m.elements.end()) return false;
    auto e = resolvePath(root_, it->second);
    if (!e) return false;
    auto* me = dynamic_cast<const MapEntry*>(*e);
    if (!me || endsWith(me->label(), "_tiles")) return false;
    if (me->schedule == Schedule::Vectorized || me->schedule == Schedule::Unrolled) return false;
    if (insideAnyMap(*me)) return false;
    // Write-conflict resolution inside (a reduction): with the tile map parallel, the generated code
    // would need atomics for it, which costs more than tiling gains.
    const State& st = *me->parent();
    std::vector<const Node*> scope;
    for (Node* n : scope::nodesInside(st, *me)) scope.push_back(n);
    if (const MapExit* x = scope::exitOf(st, *me)) scope.push_back(x);
    for (const Node* n : scope)
      for (const DataflowEdge* edge : st.outEdges(n->id()))
        if (!edge->memlet.wcr.empty()) return false;
    if (streams(*me)) return false;
    const auto items = intListItems(o_.tileSizes);
    if (!items) return false;
    const std::vector<int64_t>& wanted = *items;
    size_t dims = me->params.size();
    if (wanted.size() != 1 && wanted.size() != dims) return false;
    std::string sizes;
    int tiled = 0;
    for (size_t d = 0; d < dims; ++d) {
      int64_t t = wanted.size() == 1 ? wanted[0] : wanted[d];
      auto n = me->range[d].size().evaluate({});
      if (t <= 1 || !n || *n <= t) t = 1;
      else ++tiled;
      sizes += (d ? "," : "") + std::to_string(t);
    }
    if (tiled < 2) return false;
    m.options["tile_sizes"] = sizes;
    return true;
  }

  // Outermost maps: cpu_multicore; for the GPU, those of the model's GPU states gpu_device (a kernel
  // each; maps in nested SDFGs are placed when the program is generated).
  void parallelize() {
    const bool gpu = o_.target == "cuda";
    const Schedule to = gpu ? Schedule::GpuDevice : Schedule::CpuMulticore;
    std::vector<std::string> paths;
    root_.forEachElement([&](const Element& e) {
      auto* me = dynamic_cast<const MapEntry*>(&e);
      if (!me || me->params.empty() || isParallel(me->schedule)) return;
      if (me->schedule != Schedule::Default && me->schedule != Schedule::Sequential) return; // a deliberate choice
      if (insideAnyMap(*me)) return;
      if (gpu) {
        const State* st = me->parent();
        if (!st || st->sdfg() != &root_ || !isGpuState(root_, *st)) return;
      }
      paths.push_back(pathOf(*me));
    });
    std::vector<std::function<std::unique_ptr<edit::Command>()>> cmds;
    for (auto& p : paths)
      cmds.push_back([p, to] { return std::make_unique<SetProperty>(p, "schedule", std::string(scheduleName(to))); });
    const size_t n = executeValidatedOnce(cmds);
    if (n) log("schedules: " + std::to_string(n) + " outermost maps set to " + std::string(scheduleName(to)));
  }

  const Sdfg& root_;
  const AutoOptimizeOptions& o_;
  StepRunner& runner_;
  size_t steps_ = 0;
  std::set<std::string> failed_; // script lines that failed once are not tried again
};

Expected<void> checkValid(const Sdfg& root) {
  auto problems = validate(root);
  if (const Diagnostic* d = problems.firstError())
    return fail(d->location, "auto-optimize needs a valid model: " + d->message, "fix the model first");
  return {};
}

} // namespace

Expected<size_t> autoOptimize(edit::History& history, const AutoOptimizeOptions& options) {
  DCW_CHECK(checkValid(history.model()));
  HistoryRunner runner(history);
  Pipeline p(history.model(), options, runner);
  return p.run();
}

std::string AutoOptimizeCommand::scriptLine() const {
  std::string s = "# auto-optimize (" + std::to_string(lines_.size()) + " steps)";
  for (auto& l : lines_) s += "\n" + l;
  return s;
}

std::string AutoOptimizeCommand::title() const {
  return "Auto-optimize (" + std::to_string(lines_.size()) + " steps)";
}

Expected<void> AutoOptimizeCommand::execute(edit::Editor& editor) const {
  lines_.clear();
  differentiable_ = true;
  Sdfg& root = editor.root();
  DCW_CHECK(checkValid(root));
  // Each sub-step as the History would run it: executed, validated, rolled back (ids included) when
  // it fails, so replaying the exported lines one by one gives the same model byte for byte.
  EditorRunner runner(editor, lines_);
  Pipeline p(root, options_, runner);
  p.run();
  differentiable_ = runner.differentiable();
  return {};
}

} // namespace dcw::transforms
