// The conformance harness shared by the expansion suites (tst_Expansions{Tensor,Elementwise,Losses,
// Recurrent}), and the helpers their detailed checks use (finding nodes and maps through nested SDFGs).
//
// A suite describes its family of ops (an ExpansionFamily: which ONNX backend test cases, which
// library nodes to expand, which cases are refused and with what message, its own extra check); the
// harness makes one row per case and checks each the same way:
//  - the case imports (or its import refusal is listed, with its exact message);
//  - the family's nodes expand with `pure`, round by round (or the refusal is listed, with its exact
//    message; a listed case that now expands fails too, so the list stays true);
//  - at least one node expanded, the result validates, no node of the family is left as a library
//    node, and the suite's own check passes.
// A case is a row only when its model holds a node of the family (decided by importing it), so no
// row can pass by expanding nothing; a case that no longer imports is a row, and fails unless listed.
// Each prefix a family names must still yield a row (checkCoverage), so rows cannot vanish silently.
#pragma once

#include "core/expansions/ExpandPass.h"
#include "core/expansions/Expansion.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "tests/support/Prerequisites.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dcw::testsupport {

// ---- Finding nodes ---------------------------------------------------------------------------------

// Every node of kind T with its state, through nested SDFGs, in state and node order.
template <class T>
std::vector<std::pair<ir::State*, T*>> nodesOf(const ir::Sdfg& s) {
  std::vector<std::pair<ir::State*, T*>> out;
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* t = dynamic_cast<T*>(n.get())) out.push_back({st, t});
      if (auto* ns = dynamic_cast<ir::NestedSdfgNode*>(n.get())) {
        auto inner = nodesOf<T>(ns->sdfg());
        out.insert(out.end(), inner.begin(), inner.end());
      }
    }
  return out;
}

// A map found by label: its entry, the WCR of the memlets leaving its exit (`wcr`) and entering it
// (`innerWcr`), the memlets from its entry as "data[subset]", and the code of the tasklet they feed.
struct MapInfo {
  ir::MapEntry* entry = nullptr;
  std::set<std::string> wcr;
  std::set<std::string> innerWcr;
  std::vector<std::string> inMemlets;
  std::string code;
};

// The map whose label starts with `label` (the `skip`-th such map, counting from 0), through nested
// SDFGs; entry is null when there is none.
inline MapInfo findMap(const ir::Sdfg& s, const std::string& label, int skip = 0) {
  MapInfo info;
  for (auto [st, me] : nodesOf<ir::MapEntry>(s)) {
    if (me->label().rfind(label, 0) != 0) continue;
    if (skip-- > 0) continue;
    info.entry = me;
    for (auto* e : st->outEdges(me->exitId)) info.wcr.insert(e->memlet.wcr);
    for (auto* e : st->inEdges(me->exitId)) info.innerWcr.insert(e->memlet.wcr);
    for (auto* e : st->outEdges(me->id())) {
      if (!e->memlet.isEmpty()) info.inMemlets.push_back(e->memlet.data + "[" + e->memlet.subset.str() + "]");
      if (auto* t = dynamic_cast<ir::Tasklet*>(st->node(e->dst))) info.code = t->code;
    }
    return info;
  }
  return info;
}

// ---- Expanding -------------------------------------------------------------------------------------

using NodeFilter = std::function<bool(const ir::LibraryNode&)>;

inline int countSelected(const ir::Sdfg& s, const NodeFilter& select) {
  int n = 0;
  for (auto& [st, node] : nodesOf<ir::LibraryNode>(s)) n += select(*node) ? 1 : 0;
  return n;
}

// Expands, round by round, every library node `select` picks (an expansion may contain further
// library nodes); counts the expansions in `expanded` and returns the first refusal, if any.
inline std::optional<Diagnostic> expandWhere(ir::Sdfg& root, const NodeFilter& select, int& expanded) {
  for (int round = 0; round < 8; ++round) {
    bool any = false;
    for (auto& [st, node] : nodesOf<ir::LibraryNode>(root)) {
      if (!select(*node)) continue;
      auto r = expansions::expandNode(root, node->id(), "pure");
      if (!r) return r.error();
      ++expanded;
      any = true;
    }
    if (!any) break;
  }
  return std::nullopt;
}

// ---- The family of a suite -------------------------------------------------------------------------

// A listed refusal: at which stage, and the refusal's Diagnostic::message, exactly.
struct ExpectedRefusal {
  enum class Stage { Import, Expansion };
  Stage stage = Stage::Expansion;
  std::string message;
};
inline ExpectedRefusal refusedOnImport(std::string message) { return {ExpectedRefusal::Stage::Import, std::move(message)}; }
inline ExpectedRefusal refusedOnExpansion(std::string message) { return {ExpectedRefusal::Stage::Expansion, std::move(message)}; }

struct ExpansionFamily {
  // Candidate cases: node/ folders starting with one of these prefixes (the `*_expanded` variants
  // only when withExpandedVariants), and every case of the suites in wholeSuites (pytorch-converted…).
  std::vector<std::string> nodePrefixes;
  bool withExpandedVariants = false;
  std::vector<std::string> wholeSuites;
  // The library nodes of the family: they make a case a row, and are what is expanded.
  NodeFilter select;
  // Expand every library node, bodies of control flow included (expandAll), and require that none is
  // left at all; otherwise only the family's nodes are expanded.
  bool expandEverything = false;
  // When set, every case is also a second row "<case>/folded", prepared by this (constant folding).
  std::function<void(ir::Sdfg&)> fold;
  // Refusals by row name (the case folder's name, "/folded" appended for the folded row).
  std::map<std::string, ExpectedRefusal> refusals;
  // The suite's own check of an expanded case: empty when it holds, else what is wrong.
  std::function<std::string(ir::Sdfg&)> check;
};

// One row of a family: its name, the case folder, whether folded first.
struct ConformanceRow {
  std::string name;
  std::string path;
  bool folded = false;
};

inline std::string nodeFolder(const std::string& name) { return kOnnxTestDataRoot.toStdString() + "/node/" + name; }

// The rows of a family, in name order (importing each candidate once).
inline std::vector<ConformanceRow> conformanceRows(const ExpansionFamily& f) {
  namespace fs = std::filesystem;
  const fs::path root = kOnnxTestDataRoot.toStdString();
  std::vector<std::string> paths;
  if (fs::is_directory(root / "node"))
    for (auto& d : fs::directory_iterator(root / "node")) {
      const std::string name = d.path().filename().string();
      if (!f.withExpandedVariants && name.find("_expanded") != std::string::npos) continue;
      for (auto& p : f.nodePrefixes)
        if (name.rfind(p, 0) == 0) {
          paths.push_back(d.path().string());
          break;
        }
    }
  for (auto& suite : f.wholeSuites)
    if (fs::is_directory(root / suite))
      for (auto& d : fs::directory_iterator(root / suite)) paths.push_back(d.path().string());
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());

  std::vector<ConformanceRow> rows;
  for (auto& p : paths) {
    const std::string name = fs::path(p).filename().string();
    auto m = io::loadModel(p + "/model.onnx");
    if (!m) { // a row, so that the import refusal fails the test unless it is listed
      rows.push_back({name, p, false});
      continue;
    }
    if (countSelected(*m->sdfg, f.select) > 0) rows.push_back({name, p, false});
    if (f.fold) {
      f.fold(*m->sdfg);
      if (countSelected(*m->sdfg, f.select) > 0) rows.push_back({name + "/folded", p, true});
    }
  }
  return rows;
}

// The rows of a family, computed once per family object (the data function and checkCoverage share them).
inline const std::vector<ConformanceRow>& rowsOf(const ExpansionFamily& f) {
  static std::map<const ExpansionFamily*, std::vector<ConformanceRow>> cache;
  auto it = cache.find(&f);
  if (it == cache.end()) it = cache.emplace(&f, conformanceRows(f)).first;
  return it->second;
}

// The QtTest data of a conformance test function: columns path and folded, one row per case.
inline void addConformanceRows(const ExpansionFamily& f) {
  QTest::addColumn<QString>("path");
  QTest::addColumn<bool>("folded");
  for (auto& r : rowsOf(f)) QTest::newRow(r.name.c_str()) << QString::fromStdString(r.path) << r.folded;
}

// Checks the current row of a conformance test function (see the top of this file).
inline void checkConformanceRow(const ExpansionFamily& f) {
  QFETCH(QString, path);
  QFETCH(bool, folded);
  const std::string row = QTest::currentDataTag();
  const std::string file = path.toStdString() + "/model.onnx";
  auto listed = f.refusals.find(row);
  const ExpectedRefusal* expect = listed == f.refusals.end() ? nullptr : &listed->second;

  auto m = io::loadModel(file);
  if (!m) {
    QVERIFY2(expect && expect->stage == ExpectedRefusal::Stage::Import,
             qPrintable(QString::fromStdString(file + " no longer imports: " + m.error().str())));
    QCOMPARE(QString::fromStdString(m.error().message), QString::fromStdString(expect->message));
    return;
  }
  QVERIFY2(!expect || expect->stage != ExpectedRefusal::Stage::Import,
           qPrintable(QString::fromStdString(file + " imports now, but is listed as refused on import: update the list")));

  if (folded) f.fold(*m->sdfg);
  int expanded = 0;
  std::optional<Diagnostic> refusal;
  if (f.expandEverything) {
    auto r = expansions::expandAll(*m->sdfg);
    if (r) expanded = r->expanded;
    else refusal = r.error();
  } else {
    refusal = expandWhere(*m->sdfg, f.select, expanded);
  }

  if (expect) {
    QVERIFY2(refusal, qPrintable(QString::fromStdString(
                          file + " expands now, but is listed as refused (\"" + expect->message + "\"): update the list")));
    QCOMPARE(QString::fromStdString(refusal->message), QString::fromStdString(expect->message));
    return;
  }
  QVERIFY2(!refusal, qPrintable(QString::fromStdString(file + ": " + (refusal ? refusal->str() : std::string()))));
  QVERIFY2(expanded > 0, qPrintable(QString::fromStdString(file + ": no node of the family expanded")));
  Diagnostics v = validate(*m->sdfg);
  QVERIFY2(!v.hasErrors(), qPrintable(QString::fromStdString(file + ": " + (v.hasErrors() ? v.firstError()->str() : ""))));
  for (auto& [st, node] : nodesOf<ir::LibraryNode>(*m->sdfg))
    QVERIFY2(!(f.expandEverything || f.select(*node)),
             qPrintable(QString::fromStdString(file + ": library node left: " + node->label() + " (" + node->opType + ")")));
  if (f.check) {
    const std::string bad = f.check(*m->sdfg);
    QVERIFY2(bad.empty(), qPrintable(QString::fromStdString(file + ": " + bad)));
  }
}

// Fails when a node prefix of the family yields no row (a renamed or vanished case, or an importer
// that no longer produces the op), or when a listed refusal names no row.
inline void checkCoverage(const ExpansionFamily& f) {
  const std::vector<ConformanceRow>& rows = rowsOf(f);
  QStringList problems;
  for (auto& p : f.nodePrefixes)
    if (std::none_of(rows.begin(), rows.end(), [&](const ConformanceRow& r) { return r.name.rfind(p, 0) == 0; }))
      problems << QString::fromStdString("no case of " + nodeFolder(p) + "* holds a node of the family");
  for (auto& [name, refusal] : f.refusals)
    if (std::none_of(rows.begin(), rows.end(), [&](const ConformanceRow& r) { return r.name == name; }))
      problems << QString::fromStdString("the listed refusal " + name + " is no case of the family");
  QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n"))));
}

// A model of the node/ suite with the family's nodes expanded (after `fold` when given), or why not.
struct ExpandedCase {
  std::unique_ptr<ir::Sdfg> sdfg;
  std::string error;
  explicit operator bool() const { return bool(sdfg); }
  ir::Sdfg& operator*() const { return *sdfg; }
};
inline ExpandedCase expandCase(const ExpansionFamily& f, const std::string& folder, bool fold = false) {
  ExpandedCase c;
  auto m = io::loadModel(nodeFolder(folder) + "/model.onnx");
  if (!m) {
    c.error = m.error().str();
    return c;
  }
  if (fold && f.fold) f.fold(*m->sdfg);
  int expanded = 0;
  if (auto refusal = expandWhere(*m->sdfg, f.select, expanded)) {
    c.error = refusal->str();
    return c;
  }
  if (expanded == 0) {
    c.error = folder + ": no node of the family expanded";
    return c;
  }
  c.sdfg = std::move(m->sdfg);
  return c;
}

} // namespace dcw::testsupport
