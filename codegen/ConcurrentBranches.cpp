#include "codegen/ConcurrentBranches.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/View.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>

namespace dcw::codegen {

using namespace dcw::ir;

namespace {

// What one top-level unit touches.
struct Unit {
  std::optional<double> seconds; // nullopt: cannot run in a branch
  std::set<std::string> reads, writes;
  std::set<size_t> joined; // earlier units an edge joins it to directly
};

// Units [begin, ...) added one by one, grouped into branches: a union-find whose roots carry their
// branch's seconds.
class Partition {
public:
  Partition(const std::vector<Unit>& units, size_t begin) : units_(units), begin_(begin), parent_(units.size()), seconds_(units.size(), 0.0) {
    std::iota(parent_.begin(), parent_.end(), size_t(0));
  }
  void add(size_t j) {
    const Unit& u = units_[j];
    seconds_[j] = *u.seconds;
    total_ += *u.seconds;
    if (*u.seconds > 0) ++withWork_;
    for (size_t q : u.joined)
      if (q >= begin_) join(q, j);
    for (const std::string& s : u.reads) {
      if (auto w = writer_.find(s); w != writer_.end()) join(w->second, j);
      else readers_[s].push_back(j);
    }
    for (const std::string& s : u.writes) {
      if (auto w = writer_.find(s); w != writer_.end()) join(w->second, j);
      if (auto r = readers_.find(s); r != readers_.end()) {
        for (size_t q : r->second) join(q, j);
        readers_.erase(r);
      }
      writer_[s] = j;
    }
  }
  size_t root(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  // The branches with work among [begin, end): (seconds, root).
  std::vector<std::pair<double, size_t>> branches(size_t end) {
    std::vector<std::pair<double, size_t>> out;
    for (size_t k = begin_; k < end; ++k)
      if (root(k) == k && seconds_[k] > 0) out.push_back({seconds_[k], k});
    return out;
  }
  int withWork() const { return withWork_; }
  double total() const { return total_; }

private:
  void join(size_t a, size_t b) {
    a = root(a), b = root(b);
    if (a == b) return;
    if (seconds_[a] > 0 && seconds_[b] > 0) --withWork_;
    parent_[b] = a;
    seconds_[a] += seconds_[b];
  }
  const std::vector<Unit>& units_;
  size_t begin_;
  std::vector<size_t> parent_;
  std::vector<double> seconds_;
  std::map<std::string, size_t> writer_;              // storage -> a unit writing it (all its writers are one branch)
  std::map<std::string, std::vector<size_t>> readers_; // storage -> units reading it, not yet joined to a writer
  int withWork_ = 0;
  double total_ = 0;
};

// Longest processing time first: each branch, largest first, to the least loaded thread.
double shareOut(const std::vector<std::pair<double, size_t>>& branches, int threads, std::vector<int>* threadOf) {
  std::vector<std::pair<double, size_t>> order = branches;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> load(size_t(threads), 0.0);
  for (const auto& [seconds, root] : order) {
    const size_t t = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[t] += seconds;
    if (threadOf) (*threadOf)[root] = int(t);
  }
  return *std::max_element(load.begin(), load.end());
}

} // namespace

std::vector<BranchGroup> concurrentBranches(const Sdfg& sdfg, const StateScopes& si, const UnitCost& cost, int threads) {
  std::vector<BranchGroup> groups;
  if (threads < 2 || !si.state) return groups;
  auto top = si.children.find(nullptr);
  if (top == si.children.end() || top->second.size() < 2) return groups;
  const std::vector<const Node*>& order = top->second;
  const size_t n = order.size();

  std::map<const Node*, size_t> position;
  for (size_t k = 0; k < n; ++k) position[order[k]] = k;
  auto unitOf = [&](const Node* node) -> std::optional<size_t> {
    auto p = node ? position.find(si.topLevelOf(node)) : position.end();
    if (p == position.end()) return std::nullopt;
    return p->second;
  };
  ViewStorage storage(sdfg);
  auto storageOf = [&](const std::string& name) -> const std::string& { return storage.of(name); };
  auto isView = [&](const AccessNode& a) {
    const DataDescriptor* d = sdfg.findData(a.data());
    return d && d->dataKind == DataKind::View;
  };

  std::vector<Unit> units(n);
  for (size_t k = 0; k < n; ++k) units[k].seconds = cost(*order[k]);
  for (const auto& e : si.state->edges()) {
    const Node* src = si.state->node(e->src);
    const Node* dst = si.state->node(e->dst);
    auto us = src ? unitOf(src) : std::nullopt;
    auto ud = dst ? unitOf(dst) : std::nullopt;
    if (!us || !ud) return groups; // a node outside the scope tree: no groups rather than wrong ones
    if (*us == *ud) continue;
    auto* sa = dynamic_cast<const AccessNode*>(src);
    auto* da = dynamic_cast<const AccessNode*>(dst);
    if (e->memlet.isEmpty()) { // an ordering edge keeps its ends in one branch
      units[std::max(*us, *ud)].joined.insert(std::min(*us, *ud));
      continue;
    }
    if (sa && da) {
      // A view's edge moves nothing (its readers and writers touch the array it shows); any other edge
      // between two access nodes is a copy, run where the destination is.
      if (isView(*sa) || isView(*da)) continue;
      units[*ud].reads.insert(storageOf(sa->data()));
      units[*ud].writes.insert(storageOf(da->data()));
    } else if (da) {
      units[*us].writes.insert(storageOf(da->data()));
    } else if (sa) {
      units[*ud].reads.insert(storageOf(sa->data()));
    } else { // two operations joined without an access node
      units[std::max(*us, *ud)].joined.insert(std::min(*us, *ud));
    }
  }

  constexpr size_t kLongestGroup = 256; // positions looked ahead from a start
  size_t i = 0;
  while (i < n) {
    if (!units[i].seconds) {
      ++i;
      continue;
    }
    Partition p(units, i);
    size_t bestEnd = 0;
    double bestGain = 0;
    bool split = false;
    for (size_t j = i; j < n && j - i < kLongestGroup && units[j].seconds; ++j) {
      p.add(j);
      if (p.withWork() >= 2) {
        split = true;
        const double busiest = shareOut(p.branches(j + 1), threads, nullptr);
        const double gain = p.total() / (threads * kSequentialEfficiency) - busiest;
        if (p.total() >= kMinGroupSeconds && gain > 0 && gain >= bestGain) {
          bestGain = gain;
          bestEnd = j + 1;
        }
      } else if (split) {
        break; // the branches met again: a longer run is one branch
      }
    }
    if (!bestEnd) {
      ++i;
      continue;
    }
    // The group [i, bestEnd): its branches again, now shared out.
    Partition q(units, i);
    for (size_t j = i; j < bestEnd; ++j) q.add(j);
    const auto branches = q.branches(bestEnd);
    BranchGroup g;
    g.begin = i;
    g.end = bestEnd;
    g.total = q.total();
    std::vector<int> threadOf(n, 0); // a branch without work (access nodes that copy nothing) runs on thread 0
    g.branches = int(branches.size());
    g.busiest = shareOut(branches, threads, &threadOf);
    g.threads.assign(size_t(threads), {});
    for (size_t k = i; k < bestEnd; ++k) g.threads[size_t(threadOf[q.root(k)])].push_back(k);
    g.threads.erase(std::remove_if(g.threads.begin(), g.threads.end(), [](const auto& t) { return t.empty(); }), g.threads.end());
    groups.push_back(std::move(g));
    i = bestEnd;
  }
  return groups;
}

} // namespace dcw::codegen
