#include "views/GraphLayout.h"

#include <graphviz/gvc.h>

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

namespace dcw::views {

namespace {

std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

// One Graphviz context for the process (plugins are loaded once); guarded by graphvizMutex().
GVC_t* graphvizContext() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

char* cs(const char* s) { return const_cast<char*>(s); }

QPainterPath straight(QPointF a, QSizeF as, QPointF b, QSizeF bs) {
  QPainterPath p(QPointF(a.x(), a.y() + as.height() / 2));
  QPointF end(b.x(), b.y() - bs.height() / 2);
  QPointF mid1(p.currentPosition().x(), (p.currentPosition().y() + end.y()) / 2);
  QPointF mid2(end.x(), mid1.y());
  p.cubicTo(mid1, mid2, end);
  return p;
}

} // namespace

ContainerLayout layoutLayered(const LayoutRequest& r) {
  const int n = int(r.sizes.size());
  ContainerLayout out;
  out.centers.assign(size_t(n), QPointF());
  out.edges.resize(r.edges.size());
  if (n == 0) {
    out.size = QSizeF(40, 20);
    return out;
  }
  // Longest-path ranks over a DFS order that ignores back edges.
  const size_t count = static_cast<size_t>(n);
  std::vector<std::vector<int>> succ(count), pred(count);
  for (auto [s, d] : r.edges)
    if (s != d) succ[size_t(s)].push_back(d);
  std::vector<int> order, state(size_t(n), 0);
  std::vector<std::pair<int, size_t>> stack;
  for (int s = 0; s < n; ++s) {
    if (state[size_t(s)]) continue;
    stack.push_back({s, 0});
    state[size_t(s)] = 1;
    while (!stack.empty()) {
      auto& [v, k] = stack.back();
      if (k < succ[size_t(v)].size()) {
        int w = succ[size_t(v)][k++];
        if (state[size_t(w)] == 0) {
          state[size_t(w)] = 1;
          stack.push_back({w, 0});
        } else if (state[size_t(w)] == 2) {
          pred[size_t(w)].push_back(v);
        }
        // state 1: a back edge, ignored
      } else {
        state[size_t(v)] = 2;
        order.push_back(v);
        for (int w : succ[size_t(v)])
          if (state[size_t(w)] == 2 && std::find(pred[size_t(w)].begin(), pred[size_t(w)].end(), v) == pred[size_t(w)].end())
            pred[size_t(w)].push_back(v);
        stack.pop_back();
      }
    }
  }
  std::reverse(order.begin(), order.end()); // topological
  std::vector<int> rank(size_t(n), 0);
  int maxRank = 0;
  for (int v : order)
    for (int w : succ[size_t(v)])
      if (std::find(pred[size_t(w)].begin(), pred[size_t(w)].end(), v) != pred[size_t(w)].end()) {
        rank[size_t(w)] = std::max(rank[size_t(w)], rank[size_t(v)] + 1);
        maxRank = std::max(maxRank, rank[size_t(w)]);
      }
  // Every node as late as its readers allow (sources such as weights, and whole chains hanging off
  // them such as a constant's Identity and its result, sit right above their first reader, not all
  // in the top rows); the longest path keeps its ranks.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int v = *it;
    int first = maxRank + 1;
    for (int w : succ[size_t(v)])
      if (std::find(pred[size_t(w)].begin(), pred[size_t(w)].end(), v) != pred[size_t(w)].end())
        first = std::min(first, rank[size_t(w)]);
    if (first <= maxRank && first - 1 > rank[size_t(v)]) rank[size_t(v)] = first - 1;
  }
  std::vector<std::vector<int>> ranks(size_t(maxRank + 1));
  for (int v : order) ranks[size_t(rank[size_t(v)])].push_back(v);
  std::vector<double> pos(size_t(n), 0);
  for (auto& rk : ranks)
    for (size_t i = 0; i < rk.size(); ++i) pos[size_t(rk[i])] = double(i);
  for (int pass = 0; pass < 4; ++pass)
    for (auto& rk : ranks) {
      std::vector<double> bary(rk.size());
      for (size_t i = 0; i < rk.size(); ++i) {
        auto& ps = pred[size_t(rk[i])];
        double sum = 0;
        for (int p : ps) sum += pos[size_t(p)];
        bary[i] = ps.empty() ? pos[size_t(rk[i])] : sum / double(ps.size());
      }
      std::vector<size_t> idx(rk.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return bary[a] < bary[b]; });
      std::vector<int> sorted;
      for (size_t i : idx) sorted.push_back(rk[i]);
      rk = sorted;
      for (size_t i = 0; i < rk.size(); ++i) pos[size_t(rk[i])] = double(i);
    }
  const double gapX = 24, gapY = 36;
  double y = 0, width = 0;
  std::vector<double> rowWidth(ranks.size(), 0);
  for (size_t k = 0; k < ranks.size(); ++k) {
    for (int v : ranks[k]) rowWidth[k] += r.sizes[size_t(v)].width() + gapX;
    width = std::max(width, rowWidth[k] - gapX);
  }
  for (size_t k = 0; k < ranks.size(); ++k) {
    double h = 0;
    for (int v : ranks[k]) h = std::max(h, r.sizes[size_t(v)].height());
    double x = (width - (rowWidth[k] - gapX)) / 2;
    for (int v : ranks[k]) {
      out.centers[size_t(v)] = QPointF(x + r.sizes[size_t(v)].width() / 2, y + h / 2);
      x += r.sizes[size_t(v)].width() + gapX;
    }
    y += h + gapY;
  }
  out.size = QSizeF(std::max(width, 40.0), std::max(y - gapY, 20.0));
  for (size_t e = 0; e < r.edges.size(); ++e) {
    auto [s, d] = r.edges[e];
    out.edges[e] = straight(out.centers[size_t(s)], r.sizes[size_t(s)], out.centers[size_t(d)], r.sizes[size_t(d)]);
  }
  return out;
}

long rankedGraphSize(const LayoutRequest& r) {
  const size_t n = r.sizes.size();
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indegree(n, 0), rank(n, 0);
  for (auto [s, d] : r.edges)
    if (s != d && s >= 0 && d >= 0 && size_t(s) < n && size_t(d) < n) {
      succ[size_t(s)].push_back(d);
      ++indegree[size_t(d)];
    }
  // Kahn's order; nodes on a cycle are never freed and keep rank 0.
  std::vector<int> ready;
  for (size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.push_back(int(v));
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    for (int w : succ[size_t(v)]) {
      rank[size_t(w)] = std::max(rank[size_t(w)], rank[size_t(v)] + 1);
      if (--indegree[size_t(w)] == 0) ready.push_back(w);
    }
  }
  long total = long(n);
  for (size_t v = 0; v < n; ++v)
    for (int w : succ[v]) total += std::max(0, rank[size_t(w)] - rank[v] - 1);
  return total;
}

ContainerLayout layoutGraph(const LayoutRequest& r) {
  const int n = int(r.sizes.size());
  // dot's crossing minimisation and spline routing grow much faster than linearly: ~70 ms at 600
  // nodes, ~54 s at 5,300 in one container. Past kMaxGraphvizNodes the layered layout keeps a flat
  // graph interactive (open scopes are separate containers and stay on Graphviz).
  if (n == 0 || n > kMaxGraphvizNodes || rankedGraphSize(r) > kMaxGraphvizRanked) return layoutLayered(r);
  std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t* gvc = graphvizContext();
  if (!gvc) return layoutLayered(r);

  Agraph_t* g = agopen(cs("g"), Agdirected, nullptr);
  agattr(g, AGRAPH, cs("rankdir"), cs("TB"));
  agattr(g, AGRAPH, cs("nodesep"), cs("0.22"));
  agattr(g, AGRAPH, cs("ranksep"), cs("0.42"));
  agattr(g, AGRAPH, cs("splines"), cs("true"));
  if (n > 300) agattr(g, AGRAPH, cs("mclimit"), cs("0.3")); // fewer crossing-minimisation rounds on big graphs
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  Agsym_t* wsym = agattr(g, AGNODE, cs("width"), cs("1"));
  Agsym_t* hsym = agattr(g, AGNODE, cs("height"), cs("0.5"));
  agattr(g, AGEDGE, cs("arrowhead"), cs("none"));

  std::vector<Agnode_t*> nodes(static_cast<size_t>(n));
  char buf[64];
  for (int i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "n%d", i);
    Agnode_t* v = agnode(g, buf, 1);
    std::snprintf(buf, sizeof buf, "%.4f", r.sizes[size_t(i)].width() / 72.0);
    agxset(v, wsym, buf);
    std::snprintf(buf, sizeof buf, "%.4f", r.sizes[size_t(i)].height() / 72.0);
    agxset(v, hsym, buf);
    nodes[size_t(i)] = v;
  }
  std::vector<Agedge_t*> edges(r.edges.size(), nullptr);
  for (size_t e = 0; e < r.edges.size(); ++e) {
    auto [s, d] = r.edges[e];
    if (s < 0 || d < 0 || s >= n || d >= n || s == d) continue;
    std::snprintf(buf, sizeof buf, "e%zu", e);
    edges[e] = agedge(g, nodes[size_t(s)], nodes[size_t(d)], buf, 1);
  }

  ContainerLayout out;
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    return layoutLayered(r);
  }
  boxf bb = GD_bb(g);
  auto map = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
  out.centers.resize(size_t(n));
  for (int i = 0; i < n; ++i) out.centers[size_t(i)] = map(ND_coord(nodes[size_t(i)]));
  out.edges.resize(r.edges.size());
  for (size_t e = 0; e < r.edges.size(); ++e) {
    auto [s, d] = r.edges[e];
    splines* spl = edges[e] ? ED_spl(edges[e]) : nullptr;
    if (!spl || spl->size < 1 || spl->list[0].size < 4) {
      if (s >= 0 && d >= 0 && s < n && d < n)
        out.edges[e] = straight(out.centers[size_t(s)], r.sizes[size_t(s)], out.centers[size_t(d)], r.sizes[size_t(d)]);
      continue;
    }
    const bezier& bz = spl->list[0];
    QPainterPath p(map(bz.list[0]));
    for (int k = 1; k + 2 < bz.size; k += 3) p.cubicTo(map(bz.list[k]), map(bz.list[k + 1]), map(bz.list[k + 2]));
    if (bz.eflag) p.lineTo(map(bz.ep));
    out.edges[e] = p;
  }
  out.size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
  out.usedGraphviz = true;
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}

std::shared_ptr<const ContainerLayout> LayoutCache::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}

void LayoutCache::insert(const std::string& key, std::shared_ptr<const ContainerLayout> layout) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = std::move(layout);
}

size_t LayoutCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void LayoutCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

namespace {

template <class T>
void put(std::string& key, T v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

} // namespace

LayoutStats layoutVisualGraph(VisualGraph& g, LayoutCache& cache) {
  QElapsedTimer timer;
  timer.start();
  LayoutStats stats;
  // Nodes are stored in pre-order (a parent before its children): walking backwards lays out every
  // container after all of its children.
  for (int i = int(g.nodes.size()) - 1; i >= 0; --i) {
    VisualNode& c = g.nodes[size_t(i)];
    if (!c.expanded) continue;
    ++stats.containers;
    LayoutRequest req;
    std::unordered_map<int, int> local;
    for (int ch : c.children) {
      local[ch] = int(req.sizes.size());
      req.sizes.push_back(g.nodes[size_t(ch)].size);
    }
    for (int e : c.edges) req.edges.push_back({local[g.edges[size_t(e)].src], local[g.edges[size_t(e)].dst]});

    std::string key;
    key.reserve(16 + req.sizes.size() * 8 + req.edges.size() * 8);
    put(key, c.element);
    put(key, int(c.kind));
    for (auto& s : req.sizes) {
      put(key, float(s.width()));
      put(key, float(s.height()));
    }
    for (auto& [s, d] : req.edges) {
      put(key, s);
      put(key, d);
    }
    std::shared_ptr<const ContainerLayout> layout = cache.find(key);
    if (layout) {
      ++stats.cached;
    } else {
      layout = std::make_shared<const ContainerLayout>(layoutGraph(req));
      cache.insert(key, layout);
      ++stats.computed;
    }
    for (size_t k = 0; k < c.children.size(); ++k) g.nodes[size_t(c.children[k])].center = layout->centers[k];
    for (size_t k = 0; k < c.edges.size(); ++k) g.edges[size_t(c.edges[k])].path = layout->edges[k];
    double titleWidth = c.size.width(); // the builder leaves the title's width here
    c.size = QSizeF(std::max(layout->size.width() + 2 * VisualGraph::kPad, titleWidth),
                    layout->size.height() + VisualGraph::kHeader + VisualGraph::kPad);
    // Centre the content when the title is wider than it.
    double shift = (c.size.width() - 2 * VisualGraph::kPad - layout->size.width()) / 2;
    if (shift > 0.5) {
      for (int ch : c.children) g.nodes[size_t(ch)].center.rx() += shift;
      for (int e : c.edges) g.edges[size_t(e)].path.translate(shift, 0);
    }
  }
  if (!g.nodes.empty()) g.nodes[0].center = QPointF(g.nodes[0].size.width() / 2, g.nodes[0].size.height() / 2);
  // The points the canvas draws with, measured along each path once here (off the UI thread) rather
  // than on every item construction and frame.
  // From the path's points (no measuring of curves): the middle is the on-curve point halfway through
  // the segments, the arrow comes in along the direction from the last control point.
  for (auto& e : g.edges) {
    const int n = e.path.elementCount();
    if (n == 0) continue;
    e.start = e.path.elementAt(0);
    int onCurve = 0, segments = 0;
    for (int k = 1; k < n; ++k) segments += e.path.elementAt(k).type != QPainterPath::CurveToDataElement;
    for (int k = 1, seen = 0; k < n && seen <= segments / 2; ++k)
      if (e.path.elementAt(k).type != QPainterPath::CurveToDataElement) {
        ++seen;
        onCurve = k + (e.path.elementAt(k).type == QPainterPath::CurveToElement ? 2 : 0);
      }
    e.middle = segments ? QPointF(e.path.elementAt(std::min(onCurve, n - 1))) : e.start;
    const QPointF tip = e.path.elementAt(n - 1);
    QPointF towards = tip;
    for (int k = n - 2; k >= 0 && towards == tip; --k) towards = e.path.elementAt(k);
    const QPointF d = tip - towards;
    const double len = std::hypot(d.x(), d.y());
    e.arrowFrom = len > 1e-9 ? tip - d * (8.0 / len) : tip;
  }
  stats.ms = double(timer.nsecsElapsed()) / 1e6;
  return stats;
}

} // namespace dcw::views
