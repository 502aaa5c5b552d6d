#include "core/support/LineDiff.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dcw {

namespace {

std::vector<std::string_view> linesOf(std::string_view t) {
  std::vector<std::string_view> out;
  size_t s = 0;
  while (s < t.size()) {
    size_t e = t.find('\n', s);
    if (e == std::string_view::npos) e = t.size();
    out.push_back(t.substr(s, e - s));
    s = e + 1;
  }
  return out;
}

enum class Op : uint8_t { Keep, Del, Add };
struct Line {
  Op op;
  size_t a, b; // indices in before / after (the one that applies)
};

} // namespace

std::string unifiedDiff(std::string_view before, std::string_view after, const std::string& beforeName,
                        const std::string& afterName, int context, DiffStats* stats, size_t maxCells) {
  auto A = linesOf(before), B = linesOf(after);
  size_t pre = 0;
  while (pre < A.size() && pre < B.size() && A[pre] == B[pre]) ++pre;
  size_t suf = 0;
  while (suf < A.size() - pre && suf < B.size() - pre && A[A.size() - 1 - suf] == B[B.size() - 1 - suf]) ++suf;
  const size_t n = A.size() - pre - suf, m = B.size() - pre - suf;

  std::vector<Line> script;
  for (size_t i = 0; i < pre; ++i) script.push_back({Op::Keep, i, i});
  if (n * m <= maxCells && n > 0 && m > 0) {
    // LCS lengths from the end: L[i][j] for A[pre+i..], B[pre+j..], one row of uint32 per i.
    std::vector<uint32_t> L((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return L[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = A[pre + i] == B[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && A[pre + i] == B[pre + j]) {
        script.push_back({Op::Keep, pre + i++, pre + j++});
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        script.push_back({Op::Del, pre + i++, pre + j}); // deletions first, as diff -u prints them
      } else {
        script.push_back({Op::Add, pre + i, pre + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) script.push_back({Op::Del, pre + i, pre});
    for (size_t j = 0; j < m; ++j) script.push_back({Op::Add, pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) script.push_back({Op::Keep, pre + n + k, pre + m + k});

  DiffStats st;
  std::string out;
  if (std::all_of(script.begin(), script.end(), [](const Line& l) { return l.op == Op::Keep; })) {
    if (stats) *stats = st;
    return out;
  }
  out += "--- " + beforeName + "\n+++ " + afterName + "\n";
  const size_t total = script.size();
  size_t k = 0;
  while (k < total) {
    while (k < total && script[k].op == Op::Keep) ++k;
    if (k == total) break;
    size_t start = k >= size_t(context) ? k - size_t(context) : 0;
    // Extend the hunk while changes are separated by at most 2*context kept lines.
    size_t end = k;
    while (end < total) {
      if (script[end].op != Op::Keep) {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < total && script[run].op == Op::Keep) ++run;
      if (run == total || run - end > size_t(2 * context)) {
        end = std::min(total, end + size_t(context));
        break;
      }
      end = run;
    }
    size_t aStart = 0, bStart = 0, aLen = 0, bLen = 0;
    bool first = true;
    std::string body;
    for (size_t x = start; x < end; ++x) {
      const Line& l = script[x];
      if (first) {
        aStart = l.a;
        bStart = l.b;
        first = false;
      }
      std::string_view text = l.op == Op::Add ? B[l.b] : A[l.a];
      char mark = l.op == Op::Keep ? ' ' : l.op == Op::Add ? '+' : '-';
      if (l.op != Op::Add) ++aLen;
      if (l.op != Op::Del) ++bLen;
      if (l.op == Op::Add) ++st.added;
      if (l.op == Op::Del) ++st.removed;
      body += mark;
      body += text;
      body += '\n';
    }
    out += "@@ -" + std::to_string(aLen ? aStart + 1 : aStart) + "," + std::to_string(aLen) + " +" +
           std::to_string(bLen ? bStart + 1 : bStart) + "," + std::to_string(bLen) + " @@\n" + body;
    k = end;
  }
  if (stats) *stats = st;
  return out;
}

} // namespace dcw
