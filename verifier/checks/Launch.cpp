//===- Launch.cpp - The kernel header: shapes, launch, requires, ensures, memory contracts ---===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;


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
    for (Value g : l.getGrid())
      grid.push_back(get(g));
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
