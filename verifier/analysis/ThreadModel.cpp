//===- ThreadModel.cpp - Thread ids, lanes and pairs of threads -------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

z3::expr SymExec::tidX(const std::vector<z3::expr> &tv) const {
  return split > 1 ? tv[6] * z.int_val(split) + tv[0] : tv[0];
}

z3::expr SymExec::linearOf(const std::vector<z3::expr> &tv) const {
  return tidX(tv) + tv[1] * z.int_val(block[0]) + tv[2] * z.int_val(block[0] * block[1]);
}

z3::expr SymExec::linear() const {
  return linearOf(threadVars);
}

z3::expr SymExec::threadVarBound(unsigned t) const {
  return t == 0 ? z.int_val(lowRange())
         : t == 6 ? z.int_val(highRange())
         : t < 3  ? z.int_val(block[t])
                  : grid[t - 3];
}

z3::expr SymExec::threadRange(const std::vector<z3::expr> &tv) const {
  z3::expr r = z.bool_val(true);
  for (unsigned i : {1u, 2u, 0u, 6u, 3u, 4u, 5u})
    if (i < 3 || i == 6 || i - 3 < grid.size())
      r = r && tv[i] >= 0 && tv[i] < threadVarBound(i);
  return r;
}

z3::expr SymExec::inRangeAll() const { return threadRange(threadVars); }

z3::expr SymExec::laneId() const {
  return useLanes ? threadVars[0] : z3::mod(linear(), z.int_val(32));
}

/// `e` as computed by lane `lane` of this thread's warp (valid when that lane
/// is at the same point: convergence is checked separately).
z3::expr SymExec::atLane(z3::expr e, z3::expr lane) const {
  z3::expr_vector f(z), t(z);
  if (useLanes) {
    f.push_back(threadVars[0]);
    t.push_back(lane);
    return e.substitute(f, t);
  }
  z3::expr lin = linear() - laneId() + lane;
  z3::expr x = z3::mod(lin, z.int_val(block[0]));
  f.push_back(threadVars[1]);
  t.push_back(z3::mod(lin / z.int_val(block[0]), z.int_val(block[1])));
  f.push_back(threadVars[2]);
  t.push_back(lin / z.int_val(block[0] * block[1]));
  f.push_back(threadVars[0]);
  t.push_back(split > 1 ? z3::mod(x, z.int_val(split)) : x);
  if (split > 1) {
    f.push_back(threadVars[6]);
    t.push_back(x / z.int_val(split));
  }
  return e.substitute(f, t);
}

/// Bit `lane` of a 32-bit mask held in its signed reading.
z3::expr SymExec::maskBit(z3::expr mask, z3::expr lane) const {
  z3::expr bits = z3::int2bv(32, mask);
  return (z3::lshr(bits, z3::int2bv(32, lane)) & z.bv_val(1, 32)) == z.bv_val(1, 32);
}

/// Whether lane `lane` of this warp exists and takes part here: it reaches
/// this point (and, with a mask, is named by it).
z3::expr SymExec::laneActive(z3::expr lane, std::optional<z3::expr> mask) const {
  int64_t size = block[0] * block[1] * block[2];
  z3::expr exists = linear() - laneId() + lane < z.int_val(size);
  z3::expr active = exists && atLane(pc, lane);
  if (mask)
    active = active && maskBit(*mask, lane);
  return active;
}

std::vector<Observable> SymExec::pairObservables(const std::vector<z3::expr> &A,
                                                 const std::vector<z3::expr> &B) const {
  std::vector<Observable> obs;
  const char *names[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z"};
  for (int i = 0; i < 6; ++i) {
    int64_t g;
    if (i < 3 && block[i] == 1)
      continue;
    if (i >= 3 && i - 3 < (int)grid.size() && isConst(grid[i - 3].simplify(), g) && g == 1)
      continue;
    obs.push_back({std::string("thread A ") + names[i], i == 0 ? tidX(A) : A[i]});
    obs.push_back({std::string("thread B ") + names[i], i == 0 ? tidX(B) : B[i]});
  }
  return obs;
}

std::vector<z3::expr> SymExec::renamedThread(const std::string &suffix) const {
  std::vector<z3::expr> r;
  for (auto &t : threadVars)
    r.push_back(z.int_const((t.decl().name().str() + suffix).c_str()));
  return r;
}

z3::expr SymExec::renamed(z3::expr e, const std::vector<unsigned> &, const std::string &suffix,
                          bool iterations) {
  z3::expr_vector f(z), t(z);
  for (auto &v : threadVars) {
    f.push_back(v);
    t.push_back(z.int_const((v.decl().name().str() + suffix).c_str()));
  }
  for (auto &v : iterVars) {
    if (!iterations)
      break;
    f.push_back(v);
    t.push_back(z.int_const((v.decl().name().str() + suffix).c_str()));
  }
  return e.substitute(f, t);
}

/// Executes one op of thread, block, lane and warp ids; false if `op` is not one.
bool SymExec::execThreadOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto t = dyn_cast<ThreadIdOp>(op)) {
    set(t, t.getDim() == 0 ? tidX(threadVars) : threadVars[t.getDim()]);
    return true;
  }
  if (auto t = dyn_cast<BlockIdOp>(op)) {
    set(t, threadVars[3 + t.getDim()]);
    return true;
  }
  if (auto t = dyn_cast<GridDimOp>(op)) {
    set(t, grid[t.getDim()]);
    return true;
  }
  if (auto t = dyn_cast<LaneIdOp>(op)) {
    set(t, useLanes ? threadVars[0] : z3::mod(linear(), z.int_val(32)));
    return true;
  }
  if (auto t = dyn_cast<WarpIdOp>(op)) {
    set(t, useLanes ? threadVars[6] + threadVars[1] * z.int_val(block[0] / 32) +
                          threadVars[2] * z.int_val(block[0] * block[1] / 32)
                    : linear() / z.int_val(32));
    return true;
  }
  return false;
}
