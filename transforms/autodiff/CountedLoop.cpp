// CountedLoop: see CountedLoop.h.
#include "transforms/autodiff/CountedLoop.h"

#include <vector>

namespace dcw::autodiff::detail {

using sym::Expr;
using sym::Op;

namespace {

void conjuncts(const Expr& e, std::vector<Expr>& out) {
  if (e.op() == Op::And) {
    for (auto& o : e.operands()) conjuncts(o, out);
    return;
  }
  out.push_back(e);
}

Op flip(Op op) {
  switch (op) {
  case Op::Lt: return Op::Gt;
  case Op::Le: return Op::Ge;
  case Op::Gt: return Op::Lt;
  case Op::Ge: return Op::Le;
  default: return op;
  }
}

} // namespace

std::unique_ptr<ir::LoopRegion> CountedLoop::reversed(const std::string& label) const {
  auto l = std::make_unique<ir::LoopRegion>(label);
  Expr v = Expr::symbol(var);
  l->loopVariable = var;
  l->init = last;
  l->condition = step > 0 ? sym::ge(v, first) : sym::le(v, first);
  l->update = step > 0 ? v - Expr(1) : v + Expr(1);
  return l;
}

Expected<CountedLoop> countedLoop(const ir::LoopRegion& loop, const std::string& where) {
  const std::string what = "loop '" + loop.label() + "'";
  if (loop.loopVariable.empty())
    return fail(where, what + " has no loop variable (a while-loop): its iterations cannot be run backwards",
                "give the loop a counted trip count");
  CountedLoop c;
  c.var = loop.loopVariable;
  Expr v = Expr::symbol(c.var);
  auto step = (loop.update - v).constantValue();
  if (!step || (*step != 1 && *step != -1))
    return fail(where, what + " updates " + c.var + " to " + loop.update.str() + "; only unit steps are reversed");
  c.step = int(*step);
  c.first = loop.init;
  if (c.first.freeSymbols().count(c.var)) return fail(where, what + " starts from an expression of its own variable");
  std::vector<Expr> parts;
  conjuncts(loop.condition, parts);
  std::optional<Expr> last;
  for (auto& p : parts) {
    Op op = p.op();
    if ((op != Op::Lt && op != Op::Le && op != Op::Gt && op != Op::Ge) || p.operands().size() != 2)
      return fail(where, what + " runs while " + p.str() + ", which is not a bound on " + c.var,
                  "only loops with a trip count known before they start are differentiable");
    Expr a = p.operands()[0], b = p.operands()[1];
    if (b == v) {
      std::swap(a, b);
      op = flip(op);
    }
    if (a != v || b.freeSymbols().count(c.var))
      return fail(where, what + " runs while " + p.str() + ", which is not a bound on " + c.var,
                  "only loops with a trip count known before they start are differentiable");
    Expr bound;
    if (c.step > 0 && op == Op::Lt) bound = b - Expr(1);
    else if (c.step > 0 && op == Op::Le) bound = b;
    else if (c.step < 0 && op == Op::Gt) bound = b + Expr(1);
    else if (c.step < 0 && op == Op::Ge) bound = b;
    else return fail(where, what + " runs while " + p.str() + ", a bound in the direction it does not move");
    last = !last ? bound : (c.step > 0 ? sym::min(*last, bound) : sym::max(*last, bound));
  }
  if (!last) return fail(where, what + " has no bound on " + c.var, "only loops with a known trip count are differentiable");
  c.last = *last;
  c.trip = sym::max((c.last - c.first) * Expr(c.step) + Expr(1), Expr(0));
  c.index = (v - c.first) * Expr(c.step);
  return c;
}

} // namespace dcw::autodiff::detail
