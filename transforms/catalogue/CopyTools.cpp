#include "transforms/catalogue/CopyTools.h"

#include "core/ir/DeviceState.h"
#include "core/ir/Sdfg.h"

namespace dcw::transforms::copy {

using namespace dcw::ir;

bool sameExpr(const sym::Expr& a, const sym::Expr& b) {
  if (a == b) return true;
  auto d = (a - b).constantValue();
  return d && *d == 0;
}

bool coversAll(const Subset& s, const DataDescriptor& d) {
  if (d.shape.empty()) return s.empty() || (s.rank() == 1 && s[0] == Range::index(0));
  if (s.rank() != d.shape.size()) return false;
  for (size_t k = 0; k < s.rank(); ++k)
    if (!sameExpr(s[k].begin, 0) || !sameExpr(s[k].end, d.shape[k]) || s[k].step != sym::Expr(1)) return false;
  return true;
}

Subset shifted(const Subset& s, const std::vector<sym::Expr>& off) {
  if (off.empty()) return s;
  Subset r = s;
  for (size_t k = 0; k < r.rank() && k < off.size(); ++k) {
    r.ranges()[k].begin = s[k].begin + off[k];
    r.ranges()[k].end = s[k].end + off[k];
  }
  return r;
}

void dropZeroOffset(std::vector<sym::Expr>& off) {
  bool zero = true;
  for (auto& o : off)
    if (!sameExpr(o, 0)) zero = false;
  if (zero) off.clear();
}

const char* memoryOf(const DataDescriptor& d) { return isGpuStorage(d.storage) ? "GPU" : isFpgaStorage(d.storage) ? "FPGA" : "host"; }

CopySides copySides(const Memlet& m, const DataDescriptor& src, const DataDescriptor& dst) {
  CopySides c;
  if (m.data == src.name()) {
    c.src = m.subset;
    c.dst = m.otherSubset ? *m.otherSubset : Subset::fullOf(dst.shape);
  } else {
    c.dst = m.subset;
    c.src = m.otherSubset ? *m.otherSubset : Subset::fullOf(src.shape);
  }
  if (c.src.empty()) c.src = Subset::fullOf(src.shape);
  if (c.dst.empty()) c.dst = Subset::fullOf(dst.shape);
  return c;
}

Memlet retarget(const Memlet& m, const std::string& from, const std::string& to, const std::vector<sym::Expr>& off) {
  Memlet r = m;
  if (m.data == from) {
    r.data = to;
    r.subset = shifted(m.subset, off);
  }
  return r;
}

Expected<CopyEnds> resolveCopyEnds(const Binding& b, const std::string& path, Removed removed) {
  CopyEnds c;
  c.in = b.get<AccessNode>("in");
  c.out = b.get<AccessNode>("out");
  c.st = b.stateOf("in");
  if (!c.in || !c.out || !c.st || b.stateOf("out") != c.st) return fail(path, "`in` and `out` must be access nodes of one state");
  c.sdfg = owningSdfg(c.in);
  c.a = c.sdfg->findData(c.in->data());
  c.b = c.sdfg->findData(c.out->data());
  if (!c.a || !c.b) return fail(path, "accesses unknown data");
  const std::string A = c.a->name(), B = c.b->name();
  if (A == B) return fail(path, "both access nodes name '" + A + "'");
  const DataDescriptor* gone = removed == Removed::In ? c.a : c.b;
  if (!gone->transient) return fail(path, "'" + gone->name() + "' is not transient: it is an argument of its SDFG", "only internal arrays can be removed");
  if (gone->constant) return fail(path, "'" + gone->name() + "' is a constant");
  // The edge into a view (ReshapeToView's, CopyToView's, StridedView's) copies nothing: the view shows
  // the array's elements where they are, in its own shape and order.
  if (c.a->dataKind == DataKind::View || c.b->dataKind == DataKind::View)
    return fail(path, "'" + (c.b->dataKind == DataKind::View ? B : A) + "' is a view: its edge copies nothing");
  if (c.a->dtype != c.b->dtype) return fail(path, "'" + A + "' and '" + B + "' have different element types");
  if (!c.a->wrappers.empty() || !c.b->wrappers.empty() || !c.a->rankKnown || !c.b->rankKnown)
    return fail(path, "only plain tensors of known rank are handled");
  return c;
}

} // namespace dcw::transforms::copy
