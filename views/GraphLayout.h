// GraphLayout: positions for a VisualGraph, one container at a time, with Graphviz's `dot` (layered,
// top to bottom, spline edges). Containers are laid out bottom-up: a container's children are boxes
// of known size (a collapsed node's text, an expanded child's finished layout), so each container is
// one small, independent Graphviz graph.
//
// Why per container, with a cache: expanding one node changes the size of that node and therefore
// the layouts of its ancestors, but nothing else. LayoutCache keys each container's layout by its
// content (element, child sizes, edges), so a re-layout recomputes the opened scope and its ancestor
// chain only, and collapsing back is free. Everything here is safe to run on a worker thread
// (QtConcurrent): Graphviz itself is not re-entrant, so calls into it are serialised by one mutex.
// When Graphviz is unavailable or fails, a simple layered layout (longest-path ranks, barycentre
// ordering) is used instead, so the canvas always shows something.
#pragma once

#include "views/VisualGraph.h"

#include <QPainterPath>
#include <QPointF>
#include <QSizeF>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dcw::views {

struct LayoutRequest {
  std::vector<QSizeF> sizes;                 // node boxes, in scene units (1 unit = 1 point)
  std::vector<std::pair<int, int>> edges;    // node indexes
};

struct ContainerLayout {
  std::vector<QPointF> centers;              // per node, relative to the content's top-left
  std::vector<QPainterPath> edges;           // per edge, same coordinates; ends at the target's border
  QSizeF size;                               // of the content
  bool usedGraphviz = false;
};

// Containers with more nodes than this use layoutLayered (Graphviz would take seconds to minutes).
// dot's work grows with its ranked graph: the nodes plus one virtual node per rank an edge crosses, so
// a container whose ranked graph exceeds kMaxGraphvizRanked (DenseNet's concatenations, each read by
// every later layer of its block: 1,400 nodes, tens of thousands of virtual ones, minutes in dot) uses
// layoutLayered as well.
constexpr int kMaxGraphvizNodes = 1500;
constexpr long kMaxGraphvizRanked = 6000;

// The nodes plus the virtual nodes of a layered layout with longest-path ranks (edges of a cycle
// count as spanning one rank).
long rankedGraphSize(const LayoutRequest& request);

// Lays out one graph. Thread-safe.
ContainerLayout layoutGraph(const LayoutRequest& request);
// The fallback (no Graphviz): layered ranks by longest path, order by barycentre, straight edges.
ContainerLayout layoutLayered(const LayoutRequest& request);

class LayoutCache {
public:
  std::shared_ptr<const ContainerLayout> find(const std::string& key) const;
  void insert(const std::string& key, std::shared_ptr<const ContainerLayout> layout);
  size_t size() const;
  void clear();

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const ContainerLayout>> entries_;
};

struct LayoutStats {
  int containers = 0;   // expanded containers in the graph
  int computed = 0;     // laid out now
  int cached = 0;       // taken from the cache
  double ms = 0;        // wall time of layoutVisualGraph
};

// Lays out every expanded container of g (children first) and sets sizes, centers and edge paths.
LayoutStats layoutVisualGraph(VisualGraph& g, LayoutCache& cache);

} // namespace dcw::views
