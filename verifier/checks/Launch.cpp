//===- Launch.cpp - The kernel header: shapes, launch, requires, ensures, memory contracts ---===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

/// `(x, c)` where `v` is `cdiv(x, c)` as the front end spells it,
/// `x / c + (x % c > 0 ? 1 : 0)`.
static std::optional<std::pair<Value, Value>> ceilDivision(Value v) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  auto div = add.getLhs().getDefiningOp<arith::DivSIOp>();
  auto ext = add.getRhs().getDefiningOp<arith::ExtUIOp>();
  auto cmp = ext ? ext.getIn().getDefiningOp<arith::CmpIOp>() : arith::CmpIOp();
  auto rem = cmp ? cmp.getLhs().getDefiningOp<arith::RemSIOp>() : arith::RemSIOp();
  APInt zero;
  if (!div || !rem || cmp.getPredicate() != arith::CmpIPredicate::sgt ||
      !matchPattern(cmp.getRhs(), m_ConstantInt(&zero)) || !zero.isZero() ||
      div.getLhs() != rem.getLhs() || div.getRhs() != rem.getRhs())
    return std::nullopt;
  return std::make_pair(div.getLhs(), div.getRhs());
}

/// Executes one op of the kernel header: shapes, launch, requires, ensures, memory contracts; false if `op` is not one.
bool SymExec::execHeaderOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto s = dyn_cast<ShapeOp>(op)) {
    auto &mi = mems.at(key(s.getBuffer()));
    for (auto [i, d] : llvm::enumerate(s.getDims())) {
      mi.dims.push_back(get(d));
      addObligation(CheckId::Launch, loc,
                    "dimension " + std::to_string(i) + " of '" + mi.name + "' is not negative",
                    "dimension " + std::to_string(i) + " of buffer '" + mi.name +
                        "' is negative for an allowed launch",
                    get(d) >= 0);
      obligations.back().scope = Obligation::Scope::Launch;
      assumeFact(FactKind::Shape, get(d) >= 0);
    }
    return true;
  }
  if (auto l = dyn_cast<LaunchOp>(op)) {
    // A grid dimension computed from the parameters (`cdiv(n, 256)`, capped
    // by a `min`) is a constant of its own, defined where it occurs: its
    // divisions and remainders are then one term, where every query held two
    // spellings of them (as written, and as Z3's simplifier rewrote them in
    // witnesses) and the products of each with the thread's ids.
    // A ceiling division by a positive constant is defined by linear bounds
    // (c * q >= x > c * q - c), exact for every x, where its definition by
    // division and remainder takes the solver through nonlinear lemmas. By a
    // symbolic divisor (`cdiv(n, 256 * gy * gz)`), the same bounds where it
    // is positive are a valid fact beside the definition: products the
    // flattened-grid digits need (`n <= gridDim.x * 256 * gy * gz`).
    for (auto [i, g] : llvm::enumerate(l.getGrid())) {
      z3::expr dim = get(g);
      if (dim.is_app() && dim.num_args() > 0) {
        std::string name = std::string("gridDim.") + "xyz"[i];
        z3::expr named = z.int_const(name.c_str());
        auto ceilDef = [&](Value v, const z3::expr &q) -> std::optional<z3::expr> {
          auto cd = ceilDivision(v);
          if (!cd)
            return std::nullopt;
          z3::expr x = get(cd->first), c = get(cd->second);
          APInt k;
          if (matchPattern(cd->second, m_ConstantInt(&k)) && k.isStrictlyPositive())
            return c * q >= x && c * q < x + c;
          return q == get(v) && z3::implies(c > 0, c * q >= x && c * q < x + c);
        };
        std::optional<z3::expr> def = ceilDef(g, named);
        // min(cdiv(x, c), cap): the quotient named too.
        if (auto cap = g.getDefiningOp<arith::MinSIOp>(); !def && cap) {
          z3::expr q = fresh(name + "_uncapped", z.int_sort());
          if (auto inner = ceilDef(cap.getLhs(), q)) {
            z3::expr bound = get(cap.getRhs());
            termFacts.push_back({q, *inner});
            def = named == z3::ite(q <= bound, q, bound);
          }
        }
        termFacts.push_back({named, def ? *def : named == dim});
        dim = named;
      }
      grid.push_back(dim);
    }
    int64_t limits[] = {(int64_t(1) << 31) - 1, 65535, 65535};
    for (int i = 0; i < 3; ++i) {
      addObligation(CheckId::Launch, loc,
                    std::string("grid dimension ") + "xyz"[i] + " is within the launch limits",
                    std::string("the launch clause computes an invalid grid dimension ") +
                        "xyz"[i] + " (allowed: 0 to " + std::to_string(limits[i]) + ")",
                    grid[i] >= 0 && grid[i] <= z.int_val(limits[i]), {},
                    {{std::string("gridDim.") + "xyz"[i], grid[i]}});
      obligations.back().scope = Obligation::Scope::Launch;
    }
    assumeFact(FactKind::ThreadExists, inRangeAll());
    return true;
  }
  if (auto r = dyn_cast<RequiresOp>(op)) {
    z3::expr cond = evalRegion(r.getCond());
    assumeFact(FactKind::Always, cond);
    noteRequiredRanges(cond);
    return true;
  }
  if (isa<EnsuresOp>(op))
    return true; // checked at the end
  if (auto a = dyn_cast<AccessOp>(op)) {
    auto &mi = mems.at(key(a.getBuffer()));
    bool reads = a.getKind() == AccessKind::Reads;
    auto &boxes = reads ? mi.reads : mi.writes;
    (reads ? mi.hasReads : mi.hasWrites) = true;
    auto b = a.getBounds();
    for (unsigned i = 0; i + 1 < b.size(); i += 2)
      boxes.push_back({get(b[i]), get(b[i + 1])});
    return true;
  }
  return false;
}
