//===- SymExec.cpp - Symbolic execution of one kuiper kernel --------------===//
#include "verifier/SymExec.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

SrcLoc kuiper::verifier::srcLoc(Location loc) {
  SrcLoc s;
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    s.file = f.getFilename().str();
    s.line = f.getLine();
    s.col = f.getColumn();
  } else if (auto n = dyn_cast<NameLoc>(loc)) {
    return srcLoc(n.getChildLoc());
  } else if (auto fu = dyn_cast<FusedLoc>(loc)) {
    for (Location l : fu.getLocations()) {
      SrcLoc r = srcLoc(l);
      if (r.line)
        return r;
    }
  }
  return s;
}

static const void *key(Value v) { return v.getAsOpaquePointer(); }

static std::string exprKey(const z3::expr &e) { return std::to_string(Z3_get_ast_id(e.ctx(), e)); }

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

SymExec::SymExec(z3::context &z, KernelOp kernel, FloatMode mode)
    : z(z), kernel(kernel), mode(mode), threadExists(z.bool_val(true)), pc(z.bool_val(true)),
      facts(z.bool_val(true)) {
  auto blk = kernel.getBlock();
  for (int i = 0; i < 3; ++i)
    block[i] = blk[i];
  // With blockDim.x a multiple of 32, threadIdx.x is split into (warp column,
  // lane): laneid and warpid are then linear in the thread variables, which is
  // what lets the verifier name the writer of `y[warpid]`.
  // Only for kernels that use warp-level ids: the split makes other index
  // maps (grid-stride, several elements per thread) harder for the solver.
  bool warpLevel = false;
  kernel.walk([&](Operation *op) {
    if (isa<LaneIdOp, WarpIdOp, ShuffleOp, VoteOp, SyncWarpOp>(op))
      warpLevel = true;
  });
  useLanes = block[0] % 32 == 0 && warpLevel;
  const char *names[] = {"lane", "threadIdx.y", "threadIdx.z",
                         "blockIdx.x", "blockIdx.y", "blockIdx.z", "warpcol"};
  if (!useLanes)
    names[0] = "threadIdx.x";
  for (const char *n : names)
    threadVars.push_back(z.int_const(n));
}

z3::sort SymExec::floatSort(Type t) {
  if (mode == FloatMode::Real)
    return z.real_sort();
  if (t.isF64())
    return z.fpa_sort<64>();
  if (t.isF16())
    return z.fpa_sort<16>();
  if (t.isBF16())
    return z.fpa_sort(8, 8);
  return z.fpa_sort<32>();
}

z3::sort SymExec::sortOf(Type t) {
  if (t.isInteger(1))
    return z.bool_sort();
  if (isa<IntegerType>(t))
    return z.int_sort();
  return floatSort(t);
}

z3::expr SymExec::fresh(const std::string &name, z3::sort s) {
  return z.constant((name + "!" + std::to_string(freshIds++)).c_str(), s);
}

/// An arbitrary value that may differ per thread and per loop iteration.
z3::expr SymExec::havoc(const std::string &name, z3::sort s) {
  z3::expr_vector args(z);
  z3::sort_vector sorts(z);
  for (auto &t : threadVars) {
    args.push_back(t);
    sorts.push_back(z.int_sort());
  }
  for (unsigned k : iterScope) {
    args.push_back(iterVars[k]);
    sorts.push_back(z.int_sort());
  }
  z3::func_decl f = z.function((name + "!" + std::to_string(freshIds++)).c_str(), sorts, s);
  return f(args);
}

z3::expr SymExec::tidX(const std::vector<z3::expr> &tv) const {
  return useLanes ? tv[6] * z.int_val(32) + tv[0] : tv[0];
}

z3::expr SymExec::linearOf(const std::vector<z3::expr> &tv) const {
  return tidX(tv) + tv[1] * z.int_val(block[0]) + tv[2] * z.int_val(block[0] * block[1]);
}

z3::expr SymExec::linear() const {
  return linearOf(threadVars);
}

z3::expr SymExec::threadRange(const std::vector<z3::expr> &tv) const {
  z3::expr r = z.bool_val(true);
  for (int i = 1; i < 3; ++i)
    r = r && tv[i] >= 0 && tv[i] < z.int_val(block[i]);
  r = r && tv[0] >= 0 && tv[0] < z.int_val(useLanes ? 32 : block[0]);
  r = r && tv[6] >= 0 && tv[6] < z.int_val(useLanes ? block[0] / 32 : 1);
  for (int i = 0; i < 3 && i < (int)grid.size(); ++i)
    r = r && tv[3 + i] >= 0 && tv[3 + i] < grid[i];
  return r;
}

z3::expr SymExec::inRangeAll() const { return threadRange(threadVars); }

/// A kernel-level fact must hold for every launch: proven once where some
/// thread runs (the symbolic thread then stands for one of them) and once
/// for a launch that runs no thread (the grid has a zero dimension).
void SymExec::splitKernelObligations() {
  size_t count = obligations.size();
  for (size_t i = 0; i < count; ++i) {
    if (obligations[i].scope != Obligation::Scope::Kernel)
      continue;
    obligations[i].scope = Obligation::Scope::Thread;
    Obligation empty = obligations[i];
    empty.scope = Obligation::Scope::EmptyLaunch;
    empty.message += " (also when the launch runs no thread)";
    empty.failMessage += " (the launch runs no thread)";
    obligations.push_back(empty);
  }
}

std::vector<z3::expr> SymExec::scopeAssumptions(Obligation::Scope scope) const {
  std::vector<z3::expr> all = globalAssumptions;
  if (scope == Obligation::Scope::Launch)
    return all;
  all.insert(all.end(), shapeFacts.begin(), shapeFacts.end());
  if (scope == Obligation::Scope::EmptyLaunch) {
    z3::expr someThread = z.bool_val(true);
    for (const z3::expr &g : grid)
      someThread = someThread && g >= 1;
    all.push_back(!someThread);
    return all;
  }
  all.push_back(threadExists);
  return all;
}

void SymExec::unsupported(Operation *op, const std::string &why) {
  if (!unsupportedReason.empty())
    return;
  std::string name = op ? op->getName().getStringRef().str() : "";
  unsupportedReason = why + (name.empty() ? "" : " ('" + name + "')");
  if (op)
    unsupportedLoc = srcLoc(op->getLoc());
}

void SymExec::addObligation(CheckId id, Location loc, const std::string &msg,
                            const std::string &failMsg, z3::expr goal,
                            std::vector<z3::expr> extra, std::vector<Observable> obs) {
  Obligation o;
  o.id = id;
  o.loc = srcLoc(loc);
  o.message = msg;
  o.failMessage = failMsg;
  o.assumptions.push_back(pc);
  o.assumptions.push_back(facts);
  for (auto &e : extra)
    o.assumptions.push_back(e);
  o.goal = goal;
  o.observables = std::move(obs);
  obligations.push_back(std::move(o));
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

z3::expr SymExec::get(Value v) {
  auto it = env.find(key(v));
  if (it != env.end())
    return it->second;
  unsupported(v.getDefiningOp(), "value not modelled");
  return fresh("unmodelled", sortOf(v.getType()));
}

void SymExec::set(Value v, z3::expr e) {
  env.erase(key(v));
  env.emplace(key(v), e);
}

void SymExec::run() {
  Block &body = kernel.getBody().front();
  for (BlockArgument a : body.getArguments()) {
    std::string name = cast<StringAttr>(kernel.getArgNames()[a.getArgNumber()]).str();
    Type t = a.getType();
    if (auto bt = dyn_cast<BufferType>(t)) {
      MemInfo mi;
      mi.name = name;
      mi.access = bt.getAccess();
      mi.elemType = bt.getElementType();
      mems.emplace(key(a), mi);
      auto node = std::make_shared<MemNode>();
      node->kind = MemNode::Base;
      node->id = nodeIds++;
      z3::sort_vector sorts(z);
      for (unsigned i = 0; i < bt.getRank(); ++i)
        sorts.push_back(z.int_sort());
      node->fn = z.function(name.c_str(), sorts, sortOf(bt.getElementType()));
      state[key(a)] = node;
      continue;
    }
    z3::expr c = z.constant(name.c_str(), sortOf(t));
    set(a, c);
    params.push_back({name, c});
    if (auto it = dyn_cast<IntegerType>(t); it && it.getWidth() > 1) {
      unsigned w = it.getWidth();
      globalAssumptions.push_back(c >= z.int_val(-(int64_t(1) << (w - 1))) &&
                                  c <= z.int_val((int64_t)((uint64_t(1) << (w - 1)) - 1)));
    }
  }
  entryState = state;
  intervalStart = state;
  execBlock(body);
  if (unsupportedReason.empty())
    finalChecks();
  splitKernelObligations();
  Obligation launchable;
  launchable.id = CheckId::Precondition;
  launchable.loc = srcLoc(kernel.getLoc());
  launchable.message = "some launch satisfies the requires clauses";
  launchable.failMessage = "no launch satisfies the requires clauses: every proof is vacuous";
  launchable.goal = z.bool_val(false);
  launchable.scope = Obligation::Scope::Launch;
  launchable.vacuityProbe = true;
  obligations.push_back(launchable);
}

void SymExec::execBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return;
    execOp(op);
    if (!unsupportedReason.empty())
      return;
  }
}

z3::expr SymExec::evalRegion(Region &r, const std::vector<z3::expr> &args) {
  Block &b = r.front();
  for (unsigned i = 0; i < args.size(); ++i)
    set(b.getArgument(i), args[i]);
  bool saved = inSpec;
  inSpec = true;
  execBlock(b);
  inSpec = saved;
  auto y = cast<YieldOp>(b.getTerminator());
  if (y.getValues().empty())
    return z.bool_val(true);
  return get(y.getValues()[0]);
}

z3::expr SymExec::evalYielded(Value v, std::vector<z3::expr> &extra,
                              std::vector<Observable> &obs) {
  if (auto fa = v.getDefiningOp<ForallOp>()) {
    std::string name = "i";
    if (auto a = fa->getAttrOfType<StringAttr>("binder"))
      name = a.str();
    z3::expr c = fresh(name, z.int_sort());
    z3::expr range = c >= get(fa.getLo()) && c < get(fa.getHi());
    extra.push_back(range);
    obs.push_back({name, c});
    // Obligations raised inside the clause (fn preconditions) hold only in range.
    z3::expr savedPc = pc;
    pc = pc && range;
    llvm::scope_exit restore([&] { pc = savedPc; });
    Block &b = fa.getBody().front();
    set(b.getArgument(0), c);
    bool saved = inSpec;
    inSpec = true;
    for (Operation &op : b) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        break;
      auto y = cast<YieldOp>(b.getTerminator());
      if (op.getNumResults() == 1 && op.getResult(0) == y.getValues()[0] && isa<ForallOp>(op))
        continue;
      execOp(op);
    }
    inSpec = saved;
    return evalYielded(cast<YieldOp>(b.getTerminator()).getValues()[0], extra, obs);
  }
  return get(v);
}

z3::expr SymExec::evalGoal(Region &r, std::vector<z3::expr> &extra, std::vector<Observable> &obs) {
  Block &b = r.front();
  auto y = cast<YieldOp>(b.getTerminator());
  Value v = y.getValues()[0];
  bool saved = inSpec;
  inSpec = true;
  for (Operation &op : b) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      break;
    if (isa<ForallOp>(op) && op.getResult(0) == v)
      continue;
    execOp(op);
  }
  inSpec = saved;
  return evalYielded(v, extra, obs);
}

static bool isConst(const z3::expr &e, int64_t &v) {
  if (e.is_numeral()) {
    return e.is_numeral_i64(v);
  }
  return false;
}

void SymExec::checkOverflow(Operation &op, z3::expr r, unsigned width, bool isSigned) {
  if (inSpec || width <= 1)
    return;
  z3::expr lo = z.int_val(isSigned ? -(int64_t(1) << (width - 1)) : 0);
  z3::expr hi = isSigned ? z.int_val((int64_t)((uint64_t(1) << (width - 1)) - 1))
                         : z.int_val((uint64_t)(width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1));
  addObligation(CheckId::Overflow, op.getLoc(),
                "the " + op.getName().getStringRef().str() + " result fits in i" + std::to_string(width),
                "integer overflow: the result leaves the range of i" + std::to_string(width),
                r >= lo && r <= hi);
}

z3::expr SymExec::intOp(Operation &op) {
  auto flagsOf = [&]() -> std::pair<bool, bool> {
    auto a = op.getAttrOfType<arith::IntegerOverflowFlagsAttr>("overflowFlags");
    if (!a)
      return {false, false};
    auto f = a.getValue();
    return {bitEnumContainsAll(f, arith::IntegerOverflowFlags::nsw),
            bitEnumContainsAll(f, arith::IntegerOverflowFlags::nuw)};
  };
  Type t = op.getResult(0).getType();
  unsigned w = t.getIntOrFloatBitWidth();
  // Integers are held in their signed (two's complement) reading; unsigned
  // operations convert with toUnsigned/toSigned.
  auto arith2 = [&](std::function<z3::expr(z3::expr, z3::expr)> f) {
    auto [nsw, nuw] = flagsOf();
    if (nuw && !nsw) {
      z3::expr r = f(toUnsigned(get(op.getOperand(0)), w), toUnsigned(get(op.getOperand(1)), w));
      checkOverflow(op, r, w, false);
      return toSigned(r, w);
    }
    z3::expr r = f(get(op.getOperand(0)), get(op.getOperand(1)));
    checkOverflow(op, r, w, true);
    return r;
  };
  if (isa<arith::AddIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a + b; });
  if (isa<arith::SubIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a - b; });
  if (isa<arith::MulIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a * b; });
  z3::expr a = get(op.getOperand(0));
  if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    int64_t bc;
    z3::expr minv = z.int_val(-(int64_t(1) << (w - 1)));
    if (!inSpec)
      addObligation(CheckId::Overflow, op.getLoc(), "the divisor is not zero",
                    "division by zero", b != 0);
    if (!inSpec && !(isConst(b.simplify(), bc) && bc != -1))
      addObligation(CheckId::Overflow, op.getLoc(), "the division does not overflow",
                    "integer overflow: INT_MIN / -1", !(a == minv && b == -1));
    if (isConst(b.simplify(), bc) && bc > 0) {
      z3::expr bn = z.int_val(bc);
      if (isa<arith::DivSIOp>(op))
        return z3::ite(a >= 0, a / bn, -((-a) / bn));
      return z3::ite(a >= 0, z3::mod(a, bn), -z3::mod(-a, bn));
    }
    z3::expr ab = z3::ite(b >= 0, b, -b);
    z3::expr q = z3::ite(a >= 0, a / ab, -((-a) / ab));
    q = z3::ite(b >= 0, q, -q);
    if (isa<arith::DivSIOp>(op))
      return q;
    return z3::ite(a >= 0, z3::mod(a, ab), -z3::mod(-a, ab));
  }
  if (isa<arith::ShLIOp, arith::ShRSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    int64_t c;
    if (!isConst(b, c) || c < 0 || c >= (int64_t)w) {
      unsupported(&op, "shift by a non-constant amount is not modelled yet");
      return a;
    }
    z3::expr p = z.int_val((int64_t)(uint64_t(1) << c));
    if (isa<arith::ShRSIOp>(op))
      return a / p;
    return arith2([&](z3::expr x, z3::expr) { return x * p; });
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    if (w == 1) {
      if (isa<arith::AndIOp>(op))
        return a && b;
      if (isa<arith::OrIOp>(op))
        return a || b;
      return a != b;
    }
    int64_t c;
    if (isa<arith::AndIOp>(op) && isConst(b, c) && c >= 0 && ((c + 1) & c) == 0)
      return z3::mod(a, z.int_val(c + 1));
    if (isa<arith::XOrIOp>(op) && isConst(b, c) && c == -1)
      return -a - 1;
    unsupported(&op, "bitwise operations on integers are not modelled yet");
    return a;
  }
  if (isa<arith::MinSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    return z3::ite(a <= b, a, b);
  }
  if (isa<arith::MaxSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    return z3::ite(a >= b, a, b);
  }
  unsupported(&op, "integer operation not modelled");
  return a;
}

z3::expr SymExec::floatConst(FloatAttr a) {
  APFloat v = a.getValue();
  if (mode == FloatMode::Real) {
    if (!v.isFinite()) {
      unsupported(nullptr, "non-finite constant in an approx clause");
      return z.real_val(0);
    }
    bool lost;
    APFloat d = v;
    d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    double x = d.convertToDouble();
    int exp = 0;
    double m = std::frexp(x, &exp); // x = m * 2^exp, 0.5 <= |m| < 1
    int64_t mant = (int64_t)std::ldexp(m, 53);
    exp -= 53;
    std::string num = std::to_string(mant), den = "1";
    APInt p(2048, 1);
    if (exp > 0)
      num = llvm::toString(APInt(2048, mant, true) * p.shl(exp), 10, true);
    else if (exp < 0)
      den = llvm::toString(p.shl(-exp), 10, false);
    return z.real_val((num + "/" + den).c_str());
  }
  Type t = a.getType();
  if (t.isF32())
    return z.fpa_val(v.convertToFloat());
  if (t.isF64())
    return z.fpa_val(v.convertToDouble());
  APInt bits = v.bitcastToAPInt();
  unsigned w = bits.getBitWidth();
  z3::sort s = floatSort(t);
  return z3::expr(z, Z3_mk_fpa_to_fp_bv(z, z.bv_val(bits.getZExtValue(), w), s));
}

z3::expr SymExec::mathFn(const std::string &name, Type t, std::vector<z3::expr> args) {
  std::string fname = name + (t.isF64() ? "_f64" : "_f32") + (mode == FloatMode::Real ? "_real" : "");
  trusted.insert(name + " (uninterpreted in proofs; libdevice in code)");
  z3::sort s = floatSort(t);
  z3::sort_vector sorts(z);
  z3::expr_vector av(z);
  for (auto &a : args) {
    sorts.push_back(s);
    av.push_back(a);
  }
  return z.function(fname.c_str(), sorts, s)(av);
}

z3::expr SymExec::floatOp(Operation &op) {
  bool real = mode == FloatMode::Real;
  z3::expr rne = z3::expr(z, Z3_mk_fpa_rne(z));
  auto bin = [&](auto fpFn, auto realFn) {
    z3::expr a = get(op.getOperand(0)), b = get(op.getOperand(1));
    if (real)
      return realFn(a, b);
    return z3::expr(z, fpFn(z, rne, a, b));
  };
  if (isa<arith::AddFOp>(op))
    return bin(Z3_mk_fpa_add, [](z3::expr a, z3::expr b) { return a + b; });
  if (isa<arith::SubFOp>(op))
    return bin(Z3_mk_fpa_sub, [](z3::expr a, z3::expr b) { return a - b; });
  if (isa<arith::MulFOp>(op))
    return bin(Z3_mk_fpa_mul, [](z3::expr a, z3::expr b) { return a * b; });
  if (isa<arith::DivFOp>(op))
    return bin(Z3_mk_fpa_div, [](z3::expr a, z3::expr b) { return a / b; });
  if (isa<arith::NegFOp>(op)) {
    z3::expr a = get(op.getOperand(0));
    return real ? -a : z3::expr(z, Z3_mk_fpa_neg(z, a));
  }
  if (isa<arith::MinNumFOp, arith::MaxNumFOp>(op)) {
    bool isMin = isa<arith::MinNumFOp>(op);
    z3::expr a = get(op.getOperand(0)), b = get(op.getOperand(1));
    if (real)
      return isMin ? z3::ite(a <= b, a, b) : z3::ite(a >= b, a, b);
    z3::expr lt = z3::expr(z, Z3_mk_fpa_lt(z, a, b)), gt = z3::expr(z, Z3_mk_fpa_gt(z, a, b));
    z3::expr an = z3::expr(z, Z3_mk_fpa_is_nan(z, a)), bn = z3::expr(z, Z3_mk_fpa_is_nan(z, b));
    z3::expr zeros = z3::expr(z, Z3_mk_fpa_is_zero(z, a)) && z3::expr(z, Z3_mk_fpa_is_zero(z, b));
    z3::sort s = a.get_sort();
    // minNum(+0, -0) may return either zero: one of the operands, unspecified.
    z3::func_decl tie = z.function(isMin ? "fmin_picks_first_zero" : "fmax_picks_first_zero", s, s,
                                   z.bool_sort());
    z3::expr either = z3::ite(tie(a, b), a, b);
    z3::expr pick = isMin ? z3::ite(lt, a, z3::ite(gt, b, z3::ite(zeros, either, a)))
                          : z3::ite(gt, a, z3::ite(lt, b, z3::ite(zeros, either, a)));
    return z3::ite(an, b, z3::ite(bn, a, pick));
  }
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    z3::expr a = get(c.getLhs()), b = get(c.getRhs());
    using P = arith::CmpFPredicate;
    if (real) {
      switch (c.getPredicate()) {
      case P::OEQ: case P::UEQ: return a == b;
      case P::ONE: case P::UNE: return a != b;
      case P::OLT: case P::ULT: return a < b;
      case P::OLE: case P::ULE: return a <= b;
      case P::OGT: case P::UGT: return a > b;
      case P::OGE: case P::UGE: return a >= b;
      case P::UNO: return z.bool_val(false);
      case P::ORD: return z.bool_val(true);
      default: break;
      }
    } else {
      z3::expr nan = z3::expr(z, Z3_mk_fpa_is_nan(z, a)) || z3::expr(z, Z3_mk_fpa_is_nan(z, b));
      z3::expr eq = z3::expr(z, Z3_mk_fpa_eq(z, a, b));
      switch (c.getPredicate()) {
      case P::OEQ: return inSpec ? (a == b || eq) : eq;
      case P::UEQ: return eq || nan;
      case P::ONE: return !eq && !nan;
      case P::UNE: return !eq;
      case P::OLT: return z3::expr(z, Z3_mk_fpa_lt(z, a, b));
      case P::OLE: return z3::expr(z, Z3_mk_fpa_leq(z, a, b));
      case P::OGT: return z3::expr(z, Z3_mk_fpa_gt(z, a, b));
      case P::OGE: return z3::expr(z, Z3_mk_fpa_geq(z, a, b));
      case P::ULT: return z3::expr(z, Z3_mk_fpa_lt(z, a, b)) || nan;
      case P::ULE: return z3::expr(z, Z3_mk_fpa_leq(z, a, b)) || nan;
      case P::UGT: return z3::expr(z, Z3_mk_fpa_gt(z, a, b)) || nan;
      case P::UGE: return z3::expr(z, Z3_mk_fpa_geq(z, a, b)) || nan;
      case P::UNO: return nan;
      case P::ORD: return !nan;
      default: break;
      }
    }
    unsupported(&op, "float comparison predicate not modelled");
    return z.bool_val(true);
  }
  unsupported(&op, "float operation not modelled");
  return z.bool_val(true);
}

void SymExec::execOp(Operation &op) {
  if (!unsupportedReason.empty())
    return;
  Location loc = op.getLoc();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute a = c.getValue();
    if (auto ia = dyn_cast<IntegerAttr>(a)) {
      if (ia.getType().isInteger(1))
        set(c, z.bool_val(ia.getValue().getBoolValue()));
      else
        set(c, z.int_val((int64_t)ia.getValue().getSExtValue()));
    } else if (auto fa = dyn_cast<FloatAttr>(a)) {
      set(c, floatConst(fa));
    } else {
      unsupported(&op, "constant not modelled");
    }
    return;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp, arith::RemSIOp,
          arith::ShLIOp, arith::ShRSIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
          arith::MinSIOp, arith::MaxSIOp>(op)) {
    set(op.getResult(0), intOp(op));
    return;
  }
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp, arith::MinUIOp, arith::MaxUIOp>(op)) {
    unsigned w = op.getResult(0).getType().getIntOrFloatBitWidth();
    z3::expr a = toUnsigned(get(op.getOperand(0)), w), b = toUnsigned(get(op.getOperand(1)), w);
    if (isa<arith::DivUIOp, arith::RemUIOp>(op) && !inSpec)
      addObligation(CheckId::Overflow, loc, "the divisor is not zero", "division by zero", b != 0);
    int64_t c;
    if (isa<arith::ShRUIOp>(op)) {
      if (!isConst(b.simplify(), c) || c < 0 || c >= (int64_t)w) {
        unsupported(&op, "shift by a non-constant amount is not modelled yet");
        return;
      }
      set(op.getResult(0), toSigned(a / z.int_val((int64_t)(uint64_t(1) << c)), w));
      return;
    }
    z3::expr r = isa<arith::DivUIOp>(op) ? a / b
                 : isa<arith::RemUIOp>(op) ? z3::mod(a, b)
                 : isa<arith::MinUIOp>(op) ? z3::ite(a <= b, a, b)
                                            : z3::ite(a >= b, a, b);
    set(op.getResult(0), toSigned(r, w));
    return;
  }
  if (isa<arith::FPToUIOp, arith::FPToSIOp>(op)) {
    unsupported(&op, "float to integer conversion is not modelled yet");
    return;
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    z3::expr a = get(c.getLhs()), b = get(c.getRhs());
    using P = arith::CmpIPredicate;
    bool isBool = c.getLhs().getType().isInteger(1);
    switch (c.getPredicate()) {
    case P::eq: set(c, a == b); return;
    case P::ne: set(c, a != b); return;
    case P::slt: set(c, a < b); return;
    case P::sle: set(c, a <= b); return;
    case P::sgt: set(c, a > b); return;
    case P::sge: set(c, a >= b); return;
    default:
      break;
    }
    if (isBool) {
      unsupported(&op, "ordered comparison of booleans is not modelled");
      return;
    }
    unsigned w = c.getLhs().getType().getIntOrFloatBitWidth();
    z3::expr ua = toUnsigned(a, w), ub = toUnsigned(b, w);
    switch (c.getPredicate()) {
    case P::ult: set(c, ua < ub); return;
    case P::ule: set(c, ua <= ub); return;
    case P::ugt: set(c, ua > ub); return;
    case P::uge: set(c, ua >= ub); return;
    default:
      unsupported(&op, "integer comparison not modelled");
      return;
    }
  }
  if (auto s = dyn_cast<arith::SelectOp>(op)) {
    set(s, z3::ite(get(s.getCondition()), get(s.getTrueValue()), get(s.getFalseValue())));
    return;
  }
  if (auto e = dyn_cast<arith::ExtSIOp>(op)) {
    set(e, get(e.getIn()));
    return;
  }
  if (auto e = dyn_cast<arith::ExtUIOp>(op)) {
    if (!e.getIn().getType().isInteger(1)) {
      set(e, toUnsigned(get(e.getIn()), e.getIn().getType().getIntOrFloatBitWidth()));
      return;
    }
    set(e, z3::ite(get(e.getIn()), z.int_val(1), z.int_val(0)));
    return;
  }
  if (auto t = dyn_cast<arith::TruncIOp>(op)) {
    z3::expr v = get(t.getIn());
    checkOverflow(op, v, t.getType().getIntOrFloatBitWidth(), true);
    set(t, v);
    return;
  }
  if (auto c = dyn_cast<arith::SIToFPOp>(op)) {
    z3::expr v = get(c.getIn());
    if (mode == FloatMode::Real)
      set(c, z3::to_real(v));
    else
      set(c, z3::expr(z, Z3_mk_fpa_to_fp_real(z, Z3_mk_fpa_rne(z), z3::to_real(v), floatSort(c.getType()))));
    return;
  }
  if (auto c = dyn_cast<arith::UIToFPOp>(op); c && !c.getIn().getType().isInteger(1)) {
    z3::expr v = toUnsigned(get(c.getIn()), c.getIn().getType().getIntOrFloatBitWidth());
    if (mode == FloatMode::Real)
      set(c, z3::to_real(v));
    else
      set(c, z3::expr(z, Z3_mk_fpa_to_fp_real(z, Z3_mk_fpa_rne(z), z3::to_real(v), floatSort(c.getType()))));
    return;
  }
  if (auto c = dyn_cast<arith::UIToFPOp>(op)) { // from i1
    z3::expr v = get(c.getIn());
    FloatAttr one = FloatAttr::get(c.getType(), 1.0), zero = FloatAttr::get(c.getType(), 0.0);
    set(c, z3::ite(v, floatConst(one), floatConst(zero)));
    return;
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    z3::expr v = get(op.getOperand(0));
    if (mode == FloatMode::Real)
      set(op.getResult(0), v);
    else
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_to_fp_float(z, Z3_mk_fpa_rne(z), v,
                                                              floatSort(op.getResult(0).getType()))));
    return;
  }
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
          arith::MinNumFOp, arith::MaxNumFOp, arith::CmpFOp>(op)) {
    set(op.getResult(0), floatOp(op));
    return;
  }
  if (isa<math::ExpOp, math::LogOp, math::TanhOp, math::ErfOp, math::RsqrtOp>(op)) {
    std::string n = op.getName().getStringRef().drop_front(5).str();
    set(op.getResult(0), mathFn(n, op.getResult(0).getType(), {get(op.getOperand(0))}));
    return;
  }
  if (isa<math::SqrtOp, math::AbsFOp, math::FloorOp, math::CeilOp>(op)) {
    z3::expr a = get(op.getOperand(0));
    if (mode == FloatMode::Real) {
      if (isa<math::AbsFOp>(op))
        set(op.getResult(0), z3::ite(a >= 0, a, -a));
      else
        set(op.getResult(0), mathFn(op.getName().getStringRef().drop_front(5).str(),
                                    op.getResult(0).getType(), {a}));
      return;
    }
    if (isa<math::SqrtOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_sqrt(z, Z3_mk_fpa_rne(z), a)));
    else if (isa<math::AbsFOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_abs(z, a)));
    else if (isa<math::FloorOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_rtn(z), a)));
    else
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_rtp(z), a)));
    return;
  }
  if (auto a = dyn_cast<memref::AllocaOp>(op)) {
    locals.erase(key(a));
    locals.emplace(key(a), havoc("uninit", sortOf(a.getType().getElementType())));
    return;
  }
  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    set(l, locals.at(key(l.getMemRef())));
    return;
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    locals.erase(key(s.getMemRef()));
    locals.emplace(key(s.getMemRef()), get(s.getValue()));
    return;
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    execIf(i);
    return;
  }
  if (auto f = dyn_cast<ForOp>(op)) {
    execFor(f);
    return;
  }
  if (auto w = dyn_cast<WhileOp>(op)) {
    execWhile(w);
    return;
  }
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
      shapeFacts.push_back(get(d) >= 0);
    }
    return;
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
    threadExists = inRangeAll();
    return;
  }
  if (auto r = dyn_cast<RequiresOp>(op)) {
    globalAssumptions.push_back(evalRegion(r.getCond()));
    return;
  }
  if (isa<EnsuresOp>(op))
    return; // checked at the end
  if (auto a = dyn_cast<AccessOp>(op)) {
    auto &mi = mems.at(key(a.getBuffer()));
    bool reads = a.getKind() == AccessKind::Reads;
    auto &boxes = reads ? mi.reads : mi.writes;
    (reads ? mi.hasReads : mi.hasWrites) = true;
    auto b = a.getBounds();
    for (unsigned i = 0; i + 1 < b.size(); i += 2)
      boxes.push_back({get(b[i]), get(b[i + 1])});
    return;
  }
  if (auto a = dyn_cast<AssertOp>(op)) {
    if (a.getApprox() != (mode == FloatMode::Real))
      return;
    std::vector<z3::expr> extra;
    std::vector<Observable> obs;
    z3::expr g = evalGoal(a.getCond(), extra, obs);
    std::string kind = stringifyAssertKind(a.getKind()).str();
    bool plain = a.getKind() == AssertKind::Assert;
    CheckId id = plain ? CheckId::Assert
                 : a.getKind() == AssertKind::Precondition ? CheckId::Precondition
                                                          : CheckId::Postcondition;
    addObligation(id, loc, plain ? "the assertion holds" : "the " + kind + " of the called fn holds",
                  plain ? "assertion may fail" : "the " + kind + " of the called fn may fail", g,
                  extra, obs);
    facts = facts && evalRegion(a.getCond());
    return;
  }
  if (auto a = dyn_cast<AssumeOp>(op)) {
    SrcLoc s = srcLoc(loc);
    trusted.insert("assume at " + s.file + ":" + std::to_string(s.line));
    z3::expr assumed = evalRegion(a.getCond());
    addObligation(CheckId::Assume, loc, "the assumption can hold here",
                  "the assumption never holds here: everything after it is vacuously verified",
                  !assumed);
    obligations.back().vacuityProbe = true;
    facts = facts && assumed;
    return;
  }
  if (auto t = dyn_cast<ThreadIdOp>(op)) {
    set(t, t.getDim() == 0 ? tidX(threadVars) : threadVars[t.getDim()]);
    return;
  }
  if (auto t = dyn_cast<BlockIdOp>(op)) {
    set(t, threadVars[3 + t.getDim()]);
    return;
  }
  if (auto t = dyn_cast<GridDimOp>(op)) {
    set(t, grid[t.getDim()]);
    return;
  }
  if (auto t = dyn_cast<LaneIdOp>(op)) {
    set(t, useLanes ? threadVars[0] : z3::mod(linear(), z.int_val(32)));
    return;
  }
  if (auto t = dyn_cast<WarpIdOp>(op)) {
    set(t, useLanes ? threadVars[6] + threadVars[1] * z.int_val(block[0] / 32) +
                          threadVars[2] * z.int_val(block[0] * block[1] / 32)
                    : linear() / z.int_val(32));
    return;
  }
  if (auto s = dyn_cast<SharedAllocOp>(op)) {
    MemInfo mi;
    mi.name = s.getName().str();
    mi.shared = true;
    mi.elemType = s.getType().getElementType();
    for (int64_t d : s.getType().getShape())
      mi.dims.push_back(z.int_val(d));
    mems.emplace(key(s), mi);
    auto node = std::make_shared<MemNode>();
    node->kind = MemNode::Base;
    node->id = nodeIds++;
    z3::sort_vector sorts(z);
    for (int i = 0; i < 3; ++i)
      sorts.push_back(z.int_sort());
    for (size_t i = 0; i < s.getType().getShape().size(); ++i)
      sorts.push_back(z.int_sort());
    node->fn = z.function((mi.name + "!init").c_str(), sorts, sortOf(mi.elemType));
    node->perBlock = true;
    state[key(s)] = node;
    intervalStart[key(s)] = node;
    entryState[key(s)] = node;
    return;
  }
  if (auto l = dyn_cast<LoadOp>(op)) {
    execAccess(&op, l.getRef(), l.getIndices(), Event::Read, std::nullopt, l.getResult());
    return;
  }
  if (auto s = dyn_cast<StoreOp>(op)) {
    execAccess(&op, s.getRef(), s.getIndices(), Event::Write, get(s.getValue()), Value());
    return;
  }
  if (auto a = dyn_cast<AtomicOp>(op)) {
    execAccess(&op, a.getRef(), a.getIndices(), Event::Atomic, get(a.getValues()[0]), a.getResult());
    return;
  }
  if (auto b = dyn_cast<BarrierOp>(op)) {
    execBarrier(b);
    return;
  }
  if (auto s = dyn_cast<ShuffleOp>(op)) {
    set(s, shuffle(s));
    return;
  }
  if (auto s = dyn_cast<SyncWarpOp>(op)) {
    collective(&op, s.getMask());
    return;
  }
  if (auto v = dyn_cast<VoteOp>(op)) {
    set(v, vote(v));
    return;
  }
  if (auto q = dyn_cast<ForallOp>(op)) {
    z3::expr c = fresh("q", z.int_sort());
    z3::expr body = evalRegion(q.getBody(), {c});
    set(q, z3::forall(c, z3::implies(c >= get(q.getLo()) && c < get(q.getHi()), body)));
    return;
  }
  if (auto q = dyn_cast<ExistsOp>(op)) {
    z3::expr c = fresh("q", z.int_sort());
    z3::expr body = evalRegion(q.getBody(), {c});
    set(q, z3::exists(c, c >= get(q.getLo()) && c < get(q.getHi()) && body));
    return;
  }
  if (auto s = dyn_cast<SumOp>(op)) {
    set(s, sumOp(s));
    return;
  }
  if (auto o = dyn_cast<OldOp>(op)) {
    auto saved = state;
    state = entryState;
    bool so = oldState;
    oldState = true;
    set(o, evalRegion(o.getBody()));
    oldState = so;
    state = saved;
    return;
  }
  if (isa<InvariantOp>(op))
    return;
  unsupported(&op, "operation not modelled by the verifier");
}

z3::expr SymExec::sumOp(SumOp op) {
  z3::expr lo = get(op.getLo()).simplify(), hi = get(op.getHi()).simplify(),
           st = get(op.getStep()).simplify();
  int64_t l, h, s;
  if (!isConst(lo, l) || !isConst(hi, h) || !isConst(st, s) || s <= 0 || (h - l) / s > 4096) {
    if (mode == FloatMode::Real && isConst(st, s) && s > 0)
      return symbolicSum(op, lo, hi, s);
    unsupported(op, mode == FloatMode::Real
                        ? "sum with a step that is not a positive constant is not modelled yet"
                        : "sum with bounds that are not compile-time constants in an exact clause "
                          "is not modelled (use `approx`)");
    return fresh("unmodelled_sum", sortOf(op.getType()));
  }
  std::optional<z3::expr> acc;
  for (int64_t i = l; i < h; i += s) {
    z3::expr t = evalRegion(op.getBody(), {z.int_val(i)});
    if (!acc)
      acc = t;
    else if (mode == FloatMode::Real)
      acc = *acc + t;
    else
      acc = z3::expr(z, Z3_mk_fpa_add(z, Z3_mk_fpa_rne(z), *acc, t));
  }
  if (!acc)
    return floatConst(FloatAttr::get(op.getType(), 0.0));
  return *acc;
}

/// Number of terms of `sum(i in lo..hi step s: ...)`.
z3::expr SymExec::sumCount(z3::expr lo, z3::expr hi, int64_t s) {
  return z3::ite(hi > lo, (hi - lo + z.int_val(s - 1)) / z.int_val(s), z.int_val(0));
}

/// SumN(f, lo, c, s) = f[lo] + f[lo + s] + ... (c terms), over the reals.
z3::expr SymExec::sumTerm(z3::expr f, z3::expr lo, z3::expr count, int64_t s) {
  z3::sort_vector sorts(z);
  sorts.push_back(f.get_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  z3::func_decl sumN = z.function("sum_n", sorts, z.real_sort());
  z3::expr_vector args(z);
  args.push_back(f);
  args.push_back(lo);
  args.push_back(count);
  args.push_back(z.int_val(s));
  z3::expr t = sumN(args);
  // The definition, one step deep (valid for every value of the arguments):
  // no terms is 0; c > 0 terms are c - 1 terms plus the last one.
  z3::expr_vector prev(z);
  prev.push_back(f);
  prev.push_back(lo);
  prev.push_back(count - 1);
  prev.push_back(z.int_val(s));
  termFacts.push_back({t, z3::implies(count <= 0, t == z.real_val(0))});
  termFacts.push_back({t, z3::implies(count > 0, t == sumN(prev) +
                                                    z3::select(f, lo + (count - 1) * z.int_val(s)))});
  return t;
}

/// A sum with symbolic bounds in an approx clause: an uninterpreted `sum_n`
/// over the body as an array (lambda), with its one-step definition and, for a
/// step-1 sum, the strided-partition identity for every constant step the
/// kernel's other sums use.
z3::expr SymExec::symbolicSum(SumOp op, z3::expr lo, z3::expr hi, int64_t s) {
  z3::expr k = fresh("k", z.int_sort());
  z3::expr body = evalRegion(op.getBody(), {k});
  if (!body.is_real()) {
    unsupported(op, "symbolic sum of a non-float term");
    return fresh("unmodelled_sum", z.real_sort());
  }
  z3::expr_vector bound(z);
  bound.push_back(k);
  z3::expr f = z3::lambda(bound, body);
  z3::expr total = sumTerm(f, lo, sumCount(lo, hi, s), s);
  if (s == 1) {
    std::set<int64_t> strides;
    kernel.walk([&](SumOp other) {
      if (auto c = other.getStep().getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue()); ia && ia.getInt() > 1 && ia.getInt() <= 1024)
          strides.insert(ia.getInt());
    });
    for (int64_t S : strides) {
      z3::expr parts = z.real_val(0);
      for (int64_t u = 0; u < S; ++u) {
        z3::expr start = (lo + z.int_val(u)).simplify();
        parts = parts + sumTerm(f, start, sumCount(start, hi, S), S);
      }
      termFacts.push_back({total, total == parts});
    }
  }
  return total;
}

void SymExec::execIf(scf::IfOp op) {
  z3::expr c = get(op.getCondition());
  z3::expr savedPc = pc, savedFacts = facts;
  auto savedLocals = locals;
  unsigned i0 = interval;
  auto runBranch = [&](Region &r, z3::expr cond, std::vector<z3::expr> &ys) {
    pc = savedPc && cond;
    facts = savedFacts; // facts learnt in a branch hold only there
    if (r.empty())
      return;
    execBlock(r.front());
    auto y = cast<scf::YieldOp>(r.front().getTerminator());
    for (Value v : y.getResults())
      ys.push_back(get(v));
  };
  std::vector<z3::expr> thenYs, elseYs;
  runBranch(op.getThenRegion(), c, thenYs);
  auto thenLocals = locals;
  unsigned iThen = interval;
  locals = savedLocals;
  interval = i0;
  runBranch(op.getElseRegion(), !c, elseYs);
  unsigned iElse = interval;
  if (iThen != iElse) {
    // Only sound when the condition is not block-uniform, in which case the
    // barriers inside are reported as divergent. Never a silent pass.
    Obligation o;
    o.id = CheckId::BarrierDivergence;
    o.loc = srcLoc(op.getLoc());
    o.unsupported = "the branches of this conditional pass different numbers of barriers";
    obligations.push_back(o);
    interval = std::max(iThen, iElse) + 1;
  }
  pc = savedPc;
  facts = savedFacts;
  for (auto &[k, v] : thenLocals) {
    auto it = locals.find(k);
    if (it == locals.end())
      continue;
    if (!z3::eq(it->second, v)) {
      z3::expr m = z3::ite(c, v, it->second);
      locals.erase(k);
      locals.emplace(k, m);
    }
  }
  for (unsigned i = 0; i < op.getNumResults() && i < thenYs.size() && i < elseYs.size(); ++i)
    set(op.getResult(i), z3::ite(c, thenYs[i], elseYs[i]));
}

/// Forgets what a loop changes: locals it assigns and, since what earlier
/// iterations wrote is not tracked, the thread's view of every memory it
/// writes (both become functions of the thread and the iterations in scope).
void SymExec::havocLoop(const std::set<const void *> &modified,
                        const std::set<const void *> &written, const std::string &why) {
  for (const void *lv : modified) {
    z3::sort srt = locals.at(lv).get_sort();
    locals.erase(lv);
    locals.emplace(lv, havoc(why, srt));
  }
  for (const void *mem : written)
    state[mem] = havocMemory(mem);
}

/// Memories (buffers, shared arrays) written anywhere inside `r`.
static void storedMemories(Region &r, std::set<const void *> &out) {
  r.walk([&](Operation *op) {
    if (auto s = dyn_cast<StoreOp>(op))
      out.insert(key(s.getRef()));
    else if (auto a = dyn_cast<AtomicOp>(op))
      out.insert(key(a.getRef()));
  });
}

/// Checks (`check`) or assumes, as facts, the invariants of a loop's
/// invariant region that belong to this float mode; `iv` binds the region's
/// argument (the induction variable of a `for`).
void SymExec::loopInvariants(Region &region, std::optional<z3::expr> iv, bool check,
                             const std::string &when) {
  bool any = false;
  region.walk([&](InvariantOp inv) { any |= inv.getApprox() == (mode == FloatMode::Real); });
  if (!any)
    return;
  Block &ib = region.front();
  if (iv)
    set(ib.getArgument(0), *iv);
  bool saved = inSpec;
  inSpec = true;
  for (Operation &o : ib) {
    if (auto inv = dyn_cast<InvariantOp>(o)) {
      if (inv.getApprox() != (mode == FloatMode::Real))
        continue;
      if (check)
        addObligation(CheckId::Invariant, inv.getLoc(), "the loop invariant holds " + when,
                      "the loop invariant may not hold " + when, get(inv.getCond()));
      else
        facts = facts && get(inv.getCond());
    } else if (!o.hasTrait<OpTrait::IsTerminator>()) {
      execOp(o);
    }
  }
  inSpec = saved;
}

/// Locals (memref allocas) stored to anywhere inside `r`.
static void storedLocals(Region &r, std::set<const void *> &out) {
  r.walk([&](memref::StoreOp s) { out.insert(key(s.getMemRef())); });
}

void SymExec::execFor(ForOp op) {
  z3::expr lo = get(op.getLo()), hi = get(op.getHi()), st = get(op.getStep());
  Location loc = op.getLoc();
  addObligation(CheckId::Precondition, loc, "the loop step is positive", "the loop step may be <= 0", st > 0);
  int64_t l, h, s;
  z3::expr los = lo.simplify(), his = hi.simplify(), sts = st.simplify();
  auto checkInvariants = [&](z3::expr iv, const std::string &when) {
    loopInvariants(op.getInvariants(), iv, true, when);
  };
  auto assumeInvariants = [&](z3::expr iv) { loopInvariants(op.getInvariants(), iv, false, ""); };
  if (isConst(los, l) && isConst(his, h) && isConst(sts, s) && s > 0 && (h - l) / s <= 256) {
    for (int64_t i = l; i < h; i += s) {
      checkInvariants(z.int_val(i), "at the start of an iteration");
      set(op.getBody().front().getArgument(0), z.int_val(i));
      execBlock(op.getBody().front());
      if (!unsupportedReason.empty())
        return;
    }
    int64_t exit = h <= l ? l : l + ((h - l + s - 1) / s) * s;
    checkInvariants(z.int_val(exit), "when the loop exits");
    return;
  }
  bool hasBarrier = false;
  op.getBody().walk([&](BarrierOp) { hasBarrier = true; });
  if (hasBarrier) {
    unsupported(op, "a barrier inside a loop whose trip count is not a compile-time constant is not modelled yet");
    return;
  }
  checkInvariants(lo, "on entry");
  std::set<const void *> modified;
  storedLocals(op.getBody(), modified);
  std::set<const void *> written;
  storedMemories(op.getBody(), written);
  z3::expr savedPc = pc, savedFacts = facts;
  unsigned m = iterVars.size();
  iterVars.push_back(z.int_const(("iter!" + std::to_string(freshIds++)).c_str()));
  z3::expr k = lo + iterVars[m] * st;
  iterRange.push_back(iterVars[m] >= 0 && k < hi);
  iterStep.resize(m + 1, z.int_val(0));
  iterStep[m] = st;
  iterScope.push_back(m);
  havocLoop(modified, written, "loop");
  pc = pc && iterRange[m];
  assumeInvariants(k);
  set(op.getBody().front().getArgument(0), k);
  execBlock(op.getBody().front());
  checkInvariants(k + st, "after an iteration");
  // The counter's increment after the last iteration must not wrap either.
  checkOverflow(*op.getOperation(), k + st, cast<IntegerType>(op.getLo().getType()).getWidth(), true);
  iterScope.pop_back();
  pc = savedPc;
  facts = savedFacts;
  havocLoop(modified, written, "after_loop");
  z3::expr span = hi - lo;
  z3::expr exitIv = z3::ite(hi <= lo, lo, lo + ((span + st - 1) / st) * st);
  assumeInvariants(exitIv);
}

void SymExec::execWhile(WhileOp op) {
  bool hasBarrier = false;
  op.getBody().walk([&](BarrierOp) { hasBarrier = true; });
  if (hasBarrier) {
    unsupported(op, "a barrier inside a while loop is not modelled yet");
    return;
  }
  auto invariants = [&](bool check, const std::string &when) {
    loopInvariants(op.getInvariants(), std::nullopt, check, when);
  };
  invariants(true, "on entry");
  std::set<const void *> modified;
  storedLocals(op.getBody(), modified);
  storedLocals(op.getCond(), modified);
  std::set<const void *> written;
  storedMemories(op.getBody(), written);
  storedMemories(op.getCond(), written);
  z3::expr savedPc = pc, savedFacts = facts;
  unsigned m = iterVars.size();
  iterVars.push_back(z.int_const(("iter!" + std::to_string(freshIds++)).c_str()));
  iterRange.push_back(iterVars[m] >= 0);
  iterScope.push_back(m);
  havocLoop(modified, written, "loop");
  pc = pc && iterRange[m];
  invariants(false, "");
  execBlock(op.getCond().front());
  z3::expr c = get(cast<YieldOp>(op.getCond().front().getTerminator()).getValues()[0]);
  pc = pc && c;
  execBlock(op.getBody().front());
  invariants(true, "after an iteration");
  iterScope.pop_back();
  pc = savedPc;
  facts = savedFacts;
  havocLoop(modified, written, "after_loop");
  invariants(false, "");
  execBlock(op.getCond().front());
  pc = pc && !get(cast<YieldOp>(op.getCond().front().getTerminator()).getValues()[0]);
}

void SymExec::execAccess(Operation *op, Value ref, ValueRange indices, Event::Kind kind,
                         std::optional<z3::expr> value, Value result) {
  const void *mem = key(ref);
  MemInfo &mi = mems.at(mem);
  std::vector<z3::expr> idx;
  for (Value i : indices)
    idx.push_back(get(i));
  if (inSpec) {
    if (kind == Event::Read) {
      auto ov = overrideLoad.find(op);
      set(result, ov != overrideLoad.end() ? ov->second : read(state.at(mem), idx));
    }
    return;
  }
  std::string what = mi.name + "[";
  for (size_t i = 0; i < idx.size(); ++i)
    what += (i ? ", " : "") + std::string("...");
  what += "]";
  z3::expr inBounds = z.bool_val(true);
  for (size_t d = 0; d < idx.size(); ++d)
    inBounds = inBounds && idx[d] >= 0 && idx[d] < mi.dims[d];
  std::vector<Observable> obs;
  for (size_t d = 0; d < idx.size(); ++d)
    obs.push_back({mi.name + " index " + std::to_string(d), idx[d]});
  for (size_t d = 0; d < mi.dims.size(); ++d)
    obs.push_back({mi.name + " dim " + std::to_string(d), mi.dims[d]});
  addObligation(CheckId::Bounds, op->getLoc(),
                std::string(kind == Event::Read ? "read of " : "write of ") + mi.name + " is in bounds",
                "out-of-bounds " + std::string(kind == Event::Read ? "read of '" : "write of '") + mi.name + "'",
                inBounds, {}, obs);
  bool writes = kind != Event::Read;
  auto &boxes = writes ? mi.writes : mi.reads;
  if ((writes ? mi.hasWrites : mi.hasReads) && !mi.shared) {
    z3::expr inBox = z.bool_val(false);
    for (size_t b = 0; b + idx.size() <= boxes.size(); b += idx.size()) {
      z3::expr in = z.bool_val(true);
      for (size_t d = 0; d < idx.size(); ++d)
        in = in && idx[d] >= boxes[b + d].first && idx[d] < boxes[b + d].second;
      inBox = inBox || in;
    }
    addObligation(CheckId::Contract, op->getLoc(),
                  std::string("the access of ") + mi.name + " is inside its '" + (writes ? "writes" : "reads") + "' clause",
                  std::string("access of '") + mi.name + "' outside its '" + (writes ? "writes" : "reads") + "' clause",
                  inBox, {}, obs);
  }
  if (!mi.shared && mi.access == BufferAccess::In && kind != Event::Read)
    unsupported(op, "write to an 'in' buffer");
  if (kind != Event::Read || mi.shared || mi.access != BufferAccess::In) {
    auto e = std::make_unique<Event>(Event{kind, mem, idx, value, pc, facts, interval, iterScope,
                                           srcLoc(op->getLoc()), (unsigned)events.size()});
    events.push_back(std::move(e));
  }
  if (kind == Event::Read) {
    set(result, read(state.at(mem), idx));
    return;
  }
  if (kind == Event::Atomic) {
    set(result, havoc("atomic_old", sortOf(mi.elemType)));
    auto node = std::make_shared<MemNode>();
    node->kind = MemNode::Base;
    node->id = nodeIds++;
    z3::sort_vector sorts(z);
    for (size_t i = 0; i < idx.size(); ++i)
      sorts.push_back(z.int_sort());
    node->fn = z.function((mi.name + "!atomic" + std::to_string(freshIds++)).c_str(), sorts,
                          sortOf(mi.elemType));
    state[mem] = node;
    return;
  }
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Store;
  node->id = nodeIds++;
  node->prev = state.at(mem);
  node->cond = pc;
  node->value = *value;
  node->idx = idx;
  state[mem] = node;
}

z3::expr SymExec::read(const MemRef &m, const std::vector<z3::expr> &idx) {
  std::string k = std::to_string(m->id);
  for (auto &i : idx) {
    k += "," + exprKey(i);
    keepAlive.push_back(i); // AST ids are reused once an AST is freed
  }
  auto it = readMemo.find(k);
  if (it != readMemo.end())
    return it->second;
  std::optional<z3::expr> r;
  switch (m->kind) {
  case MemNode::Base: {
    z3::expr_vector args(z);
    if (m->perBlock)
      for (int i = 3; i < 6; ++i)
        args.push_back(threadVars[i]);
    for (auto &p : m->prefix)
      args.push_back(p);
    for (auto &i : idx)
      args.push_back(i);
    r = (*m->fn)(args);
    break;
  }
  case MemNode::Store: {
    z3::expr same = *m->cond;
    for (size_t d = 0; d < idx.size(); ++d)
      same = same && idx[d] == m->idx[d];
    r = z3::ite(same, *m->value, read(m->prev, idx));
    break;
  }
  case MemNode::Merge: {
    z3::expr acc = read(m->prev, idx);
    for (size_t i = 0; i < m->events.size(); ++i) {
      const Event &e = *m->events[i];
      std::vector<z3::expr> from, to;
      if (!witness(e, m->freeThreadVars, idx, from, to)) {
        unsupported(nullptr, "cannot tell which thread writes '" + mems.at(e.mem).name +
                                 "' (index not affine in the thread ids)");
        break;
      }
      z3::expr_vector f(z), t(z);
      for (auto &x : from)
        f.push_back(x);
      for (auto &x : to)
        t.push_back(x);
      z3::expr v = z3::expr(*e.value).substitute(f, t);
      z3::expr cov = covered(e, from, to, idx);
      // What held for the writer when it wrote (its invariants, asserts) holds
      // for the inferred writer: a valid fact wherever that writer exists.
      if (!z3::eq(e.facts.simplify(), z.bool_val(true)))
        termFacts.push_back({cov, z3::implies(cov, z3::expr(e.facts).substitute(f, t))});
      acc = z3::ite(cov, v, acc);
    }
    r = acc;
    break;
  }
  }
  readMemo.emplace(k, *r);
  return *r;
}

namespace {
/// An affine form sum(coeff_v * v) + off over a set of variables.
struct Affine {
  std::vector<std::pair<unsigned, z3::expr>> coeffs;
  std::optional<z3::expr> off;
};
} // namespace

static bool mentions(const z3::expr &e, const std::vector<z3::expr> &vars) {
  if (e.is_const()) {
    for (auto &v : vars)
      if (z3::eq(e, v))
        return true;
    return false;
  }
  if (!e.is_app())
    return false;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (mentions(e.arg(i), vars))
      return true;
  return false;
}

static bool linearize(const z3::expr &e, const std::vector<z3::expr> &vars, Affine &out,
                      z3::context &z) {
  auto addCoeff = [&](unsigned v, z3::expr c) {
    for (auto &p : out.coeffs)
      if (p.first == v) {
        p.second = p.second + c;
        return;
      }
    out.coeffs.push_back({v, c});
  };
  std::function<bool(const z3::expr &, z3::expr)> go = [&](const z3::expr &t, z3::expr scale) -> bool {
    if (!mentions(t, vars)) {
      out.off = out.off ? *out.off + scale * t : scale * t;
      return true;
    }
    if (t.is_const()) {
      for (unsigned i = 0; i < vars.size(); ++i)
        if (z3::eq(t, vars[i])) {
          addCoeff(i, scale);
          return true;
        }
      return false;
    }
    Z3_decl_kind k = t.decl().decl_kind();
    if (k == Z3_OP_ADD) {
      for (unsigned i = 0; i < t.num_args(); ++i)
        if (!go(t.arg(i), scale))
          return false;
      return true;
    }
    if (k == Z3_OP_SUB) {
      if (!go(t.arg(0), scale))
        return false;
      for (unsigned i = 1; i < t.num_args(); ++i)
        if (!go(t.arg(i), -scale))
          return false;
      return true;
    }
    if (k == Z3_OP_UMINUS)
      return go(t.arg(0), -scale);
    // Signed/unsigned reinterpretations `ite(v < 0, v + 2^w, v)`: guess v.
    // (A witness is only a candidate: the solver checks every use of it.)
    if (k == Z3_OP_ITE)
      return go(t.arg(2), scale);
    if (k == Z3_OP_MUL) {
      int varArg = -1;
      z3::expr c = z.int_val(1);
      for (unsigned i = 0; i < t.num_args(); ++i) {
        if (mentions(t.arg(i), vars)) {
          if (varArg >= 0)
            return false;
          varArg = i;
        } else {
          c = c * t.arg(i);
        }
      }
      return go(t.arg(varArg), scale * c);
    }
    return false;
  };
  return go(e, z.int_val(1));
}

bool SymExec::witness(const Event &e, const std::vector<unsigned> &freeThreadVars,
                      const std::vector<z3::expr> &target, std::vector<z3::expr> &from,
                      std::vector<z3::expr> &to, bool iterFirst) {
  size_t nThread = freeThreadVars.size();
  std::vector<z3::expr> vars;
  for (unsigned i : freeThreadVars)
    vars.push_back(threadVars[i]);
  for (unsigned k : e.iters)
    vars.push_back(iterVars[k]);
  std::vector<std::optional<z3::expr>> w(vars.size());
  for (size_t d = 0; d < e.idx.size(); ++d) {
    Affine a;
    if (!linearize(e.idx[d], vars, a, z))
      return false;
    z3::expr rem = target[d] - (a.off ? *a.off : z.int_val(0));
    std::vector<std::pair<unsigned, z3::expr>> todo;
    for (auto &[v, c] : a.coeffs) {
      z3::expr cs = c.simplify();
      if (w[v]) {
        rem = rem - cs * *w[v];
        continue;
      }
      int64_t n;
      if (isConst(cs, n) && n == 0)
        continue;
      todo.push_back({v, cs});
    }
    // Mixed radix, largest coefficient first: symbolic coefficients (loop
    // strides, row lengths) before numerals, and among products with the same
    // symbolic part the larger numeral factor first (16*cols before cols).
    auto split = [](const z3::expr &c, int64_t &factor) -> std::string {
      factor = 1;
      if (isConst(c, factor))
        return "";
      if (c.is_app() && c.decl().decl_kind() == Z3_OP_MUL) {
        std::string rest;
        for (unsigned i = 0; i < c.num_args(); ++i) {
          int64_t f;
          if (isConst(c.arg(i), f))
            factor *= f;
          else
            rest += c.arg(i).to_string() + "*";
        }
        return rest;
      }
      return c.to_string();
    };
    std::stable_sort(todo.begin(), todo.end(), [&](auto &x, auto &y) {
      int64_t fa, fb;
      std::string sa = split(x.second, fa), sb = split(y.second, fb);
      if (sa.empty() != sb.empty())
        return !sa.empty();
      if (sa != sb)
        return false;
      if (std::llabs(fa) != std::llabs(fb))
        return std::llabs(fa) > std::llabs(fb);
      // Equal coefficients: loop iterations (unbounded) before thread ids
      // (bounded), or the other way round for the second candidate.
      bool ia = x.first >= nThread, ib = y.first >= nThread;
      return ia != ib && (iterFirst ? ia : ib);
    });
    for (size_t i = 0; i < todo.size(); ++i) {
      auto &[v, c] = todo[i];
      int64_t n;
      bool known = isConst(c, n);
      if (known && n < 0 && i + 1 != todo.size())
        return false; // a negative coefficient only as the last digit
      if (!known) {
        // Division by a symbolic stride: state Euclid's identity outright
        // (valid for any positive c), which spares the solver nonlinear search.
        witnessFacts.push_back(c <= 0 || (rem == c * (rem / c) + z3::mod(rem, c) &&
                                          z3::mod(rem, c) >= 0 && z3::mod(rem, c) < c));
        // And that two multiples of c differ by at least c (true of all integers).
        z3::expr d = rem / c - vars[v];
        witnessFacts.push_back(d == 0 || d * c >= c || d * c <= -c);
      }
      if (i + 1 == todo.size()) {
        w[v] = known && n == 1 ? rem : known && n == -1 ? -rem : rem / c;
      } else {
        w[v] = rem / c;
        rem = z3::mod(rem, c);
      }
    }
  }
  // Variables the index does not mention: take them from an equality in the
  // path condition (`if threadIdx.x == 0`), else 0.
  std::function<void(const z3::expr &)> scan = [&](const z3::expr &c) {
    if (!c.is_app())
      return;
    if (c.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = 0; i < c.num_args(); ++i)
        scan(c.arg(i));
      return;
    }
    if (c.decl().decl_kind() == Z3_OP_EQ) {
      for (unsigned i = 0; i < vars.size(); ++i) {
        if (w[i])
          continue;
        if (z3::eq(c.arg(0), vars[i]) && !mentions(c.arg(1), vars))
          w[i] = c.arg(1);
        else if (z3::eq(c.arg(1), vars[i]) && !mentions(c.arg(0), vars))
          w[i] = c.arg(0);
      }
    }
  };
  scan(e.pc);
  for (size_t i = 0; i < vars.size(); ++i) {
    from.push_back(vars[i]);
    to.push_back(w[i] ? *w[i] : z.int_val(0));
  }
  return true;
}

z3::expr SymExec::covered(const Event &e, const std::vector<z3::expr> &from,
                          const std::vector<z3::expr> &to, const std::vector<z3::expr> &target) {
  // Substitute the witness into the event's side only: the target may
  // mention the reading thread's own ids.
  z3::expr c = e.pc;
  for (size_t i = 0; i < from.size(); ++i) {
    for (int t = 0; t < 7; ++t) {
      if (!z3::eq(from[i], threadVars[t]))
        continue;
      z3::expr bound = t == 0 ? z.int_val(useLanes ? 32 : block[0])
                       : t == 6 ? z.int_val(useLanes ? block[0] / 32 : 1)
                       : t < 3  ? z.int_val(block[t])
                                : grid[t - 3];
      c = c && from[i] >= 0 && from[i] < bound;
    }
  }
  for (unsigned k : e.iters)
    c = c && iterRange[k];
  z3::expr_vector f(z), tt(z);
  for (auto &x : from)
    f.push_back(x);
  for (auto &x : to)
    tt.push_back(x);
  c = c.substitute(f, tt);
  for (size_t d = 0; d < target.size(); ++d)
    c = c && z3::expr(e.idx[d]).substitute(f, tt) == target[d];
  return c;
}

MemRef SymExec::mergeNode(const void *mem, MemRef prev, const std::vector<const Event *> &evs,
                          const std::vector<unsigned> &freeThreadVars) {
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Merge;
  node->id = nodeIds++;
  node->prev = prev;
  node->events = evs;
  node->freeThreadVars = freeThreadVars;
  // Lemma: every write of an event is found by its witness.
  for (const Event *e : evs) {
    std::vector<z3::expr> from, to;
    if (!witness(*e, freeThreadVars, e->idx, from, to)) {
      unsupported(nullptr, "cannot tell which thread writes '" + mems.at(mem).name + "'");
      return node;
    }
    Obligation o;
    o.id = mems.at(mem).shared ? CheckId::Race : CheckId::Coverage;
    o.loc = e->loc;
    o.message = "each element of '" + mems.at(mem).name + "' written here has one writer the verifier can name";
    o.failMessage = "could not determine which thread writes this element of '" + mems.at(mem).name + "'";
    o.assumptions.push_back(e->pc);
    o.assumptions.push_back(e->facts);
    for (unsigned k : e->iters)
      o.assumptions.push_back(iterRange[k]);
    o.assumptions.insert(o.assumptions.end(), witnessFacts.begin(), witnessFacts.end());
    witnessFacts.clear();
    // The inferred writer of the element written here is this very (thread,
    // iteration): the writer is unique and the merge takes its value.
    z3::expr same = z.bool_val(true);
    for (size_t i = 0; i < from.size(); ++i)
      same = same && from[i] == to[i];
    o.goal = covered(*e, from, to, e->idx) && same;
    o.lemma = true;
    obligations.push_back(std::move(o));
  }
  return node;
}

void SymExec::execBarrier(BarrierOp op) {
  if (!iterScope.empty()) {
    unsupported(op, "a barrier inside a loop whose trip count is not a compile-time constant is not modelled yet");
    return;
  }
  barriers.push_back({pc, srcLoc(op.getLoc())});
  std::map<const void *, std::vector<const Event *>> writes;
  for (auto &e : events)
    if (e->interval == interval && e->kind != Event::Read)
      writes[e->mem].push_back(e.get());
  for (auto &[mem, evs] : writes) {
    if (mems.at(mem).shared || mems.at(mem).access != BufferAccess::In)
      state[mem] = mergeNode(mem, intervalStart.at(mem), evs, {0, 1, 2, 6});
  }
  if (!op.getContract().empty()) {
    bool applies = op.getApprox() == (mode == FloatMode::Real);
    if (applies) {
      std::vector<z3::expr> extra;
      std::vector<Observable> obs;
      z3::expr g = evalGoal(op.getContract(), extra, obs);
      addObligation(CheckId::BarrierContract, op.getLoc(), "the barrier contract holds when the block arrives",
                    "the barrier contract may not hold when the block arrives", g, extra, obs);
    }
    for (auto &[mem, mi] : mems) {
      if (!mi.shared)
        continue;
      auto node = std::make_shared<MemNode>();
      node->kind = MemNode::Base;
      node->id = nodeIds++;
      node->perBlock = true;
      z3::sort_vector sorts(z);
      for (int i = 0; i < 3; ++i)
        sorts.push_back(z.int_sort());
      for (size_t i = 0; i < mi.dims.size(); ++i)
        sorts.push_back(z.int_sort());
      node->fn = z.function((mi.name + "!after_barrier" + std::to_string(freshIds++)).c_str(), sorts,
                            sortOf(mi.elemType));
      state[mem] = node;
    }
    if (applies) {
      // The contract holds in every block: one flat quantifier over the block
      // ids and the contract's own bound variables, so that Z3 can instantiate
      // it from the shared-array reads (pattern: the array's function).
      std::vector<z3::expr> ranges;
      std::vector<Observable> binders;
      z3::expr body = evalGoal(op.getContract(), ranges, binders);
      z3::expr_vector f(z), t(z), bound(z);
      z3::expr blockRange = z.bool_val(true);
      for (int i = 3; i < 6; ++i) {
        z3::expr c = z.int_const((threadVars[i].decl().name().str() + "!contract" + std::to_string(freshIds++)).c_str());
        f.push_back(threadVars[i]);
        t.push_back(c);
        bound.push_back(c);
        blockRange = blockRange && c >= 0 && c < grid[i - 3];
      }
      for (auto &b : binders)
        bound.push_back(b.term);
      z3::expr hyp = blockRange;
      for (auto &r : ranges)
        hyp = hyp && r.substitute(f, t);
      globalAssumptions.push_back(z3::forall(bound, z3::implies(hyp, body.substitute(f, t))));
    }
  }
  interval++;
  intervalStart = state;
}

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
  f.push_back(threadVars[0]);
  f.push_back(threadVars[1]);
  f.push_back(threadVars[2]);
  t.push_back(z3::mod(lin, z.int_val(block[0])));
  t.push_back(z3::mod(lin / z.int_val(block[0]), z.int_val(block[1])));
  t.push_back(lin / z.int_val(block[0] * block[1]));
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

void SymExec::collective(Operation *op, Value maskValue) {
  std::optional<z3::expr> mask;
  if (maskValue)
    mask = get(maskValue);
  collectives.push_back({pc, srcLoc(op->getLoc()), mask});
}

z3::expr SymExec::shuffle(ShuffleOp op) {
  collective(op, op.getMask());
  z3::expr v = get(op.getValue()), d = get(op.getDelta());
  z3::expr lane = laneId();
  z3::expr src = lane;
  z3::expr valid = z.bool_val(true);
  ShuffleMode mode = op.getMode();
  int64_t dc;
  if (mode == ShuffleMode::Down) {
    src = lane + d;
    valid = src < 32;
  } else if (mode == ShuffleMode::Up) {
    src = lane - d;
    valid = src >= 0;
  } else if (mode == ShuffleMode::Idx) {
    src = z3::mod(d, z.int_val(32));
  } else {
    if (!isConst(d.simplify(), dc) || dc <= 0 || (dc & (dc - 1)) != 0 || dc >= 32) {
      unsupported(op, "shfl_xor with a distance that is not a constant power of two is not modelled yet");
      return v;
    }
    z3::expr bit = z3::mod(lane / z.int_val(dc), z.int_val(2));
    src = z3::ite(bit == 0, lane + z.int_val(dc), lane - z.int_val(dc));
  }
  z3::expr other = atLane(v, src);
  if (op.getMask()) {
    // Reading a lane outside the mask (or not there) gives an undefined value.
    other = z3::ite(laneActive(src, get(op.getMask())), other, havoc("shfl_undefined", v.get_sort()));
  }
  return z3::ite(valid, other, v);
}

z3::expr SymExec::vote(VoteOp op) {
  collective(op, op.getMask());
  std::optional<z3::expr> mask;
  if (op.getMask())
    mask = get(op.getMask());
  z3::expr c = get(op.getPred());
  VoteMode mode = op.getMode();
  z3::expr any = z.bool_val(false), all = z.bool_val(true), ballot = z.int_val(0);
  for (int64_t l = 0; l < 32; ++l) {
    z3::expr L = z.int_val(l);
    z3::expr active = laneActive(L, mask);
    z3::expr cl = atLane(c, L);
    any = any || (active && cl);
    all = all && z3::implies(active, cl);
    ballot = ballot + z3::ite(active && cl, z.int_val((int64_t)(uint64_t(1) << l)), z.int_val(0));
  }
  if (mode == VoteMode::Any)
    return any;
  if (mode == VoteMode::All)
    return all;
  return toSigned(ballot, 32);
}

//===----------------------------------------------------------------------===//
// Kernel-level checks
//===----------------------------------------------------------------------===//

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

void SymExec::checkUniformity() {
  auto A = renamedThread("@A"), B = renamedThread("@B");
  z3::expr sameBlock = A[3] == B[3] && A[4] == B[4] && A[5] == B[5];
  auto lin = [&](const std::vector<z3::expr> &t) { return linearOf(t); };
  std::vector<Observable> obs = pairObservables(A, B);
  // Both threads are taken at the same loop iterations: a barrier or a
  // collective in a loop is reached in lockstep, iteration by iteration.
  z3::expr savedPc = pc;
  pc = z.bool_val(true);
  for (auto &[bpc, loc] : barriers) {
    Obligation o;
    o.id = CheckId::BarrierDivergence;
    o.loc = loc;
    o.message = "every thread of the block reaches this barrier, or none does";
    o.failMessage = "barrier reached by thread A but not by thread B of the same block";
    o.assumptions = {threadRange(A), threadRange(B), sameBlock, renamed(bpc, {}, "@A", false)};
    o.goal = renamed(bpc, {}, "@B", false);
    o.observables = obs;
    obligations.push_back(o);
  }
  int64_t size = block[0] * block[1] * block[2];
  for (auto &[cpc, loc, mask] : collectives) {
    Obligation o;
    o.id = CheckId::WarpConvergence;
    o.loc = loc;
    z3::expr sameWarp = sameBlock && lin(A) / z.int_val(32) == lin(B) / z.int_val(32);
    o.assumptions = {threadRange(A), threadRange(B), sameWarp, renamed(cpc, {}, "@A", false)};
    o.observables = obs;
    if (mask) {
      // The lanes that arrive are exactly the lanes the mask names.
      o.message = "the mask names exactly the lanes that take part in this collective";
      o.failMessage = "the mask of this warp collective differs from the set of active lanes "
                      "(lane B is active but not named, or named but not active)";
      z3::expr maskA = renamed(*mask, {}, "@A", false);
      z3::expr laneB = lin(B) - (lin(B) / z.int_val(32)) * z.int_val(32);
      o.goal = renamed(cpc, {}, "@B", false) == maskBit(maskA, laneB);
      obligations.push_back(o);
      continue;
    }
    o.message = "all 32 lanes of the warp take part in this collective";
    o.failMessage = "warp collective without a mask reached by lane A but not by lane B of the same warp";
    o.goal = renamed(cpc, {}, "@B", false);
    if (size % 32 != 0)
      o.goal = *o.goal && lin(A) / z.int_val(32) < z.int_val(size / 32);
    obligations.push_back(o);
  }
  pc = savedPc;
}

void SymExec::raceChecks() {
  auto A = renamedThread("@A"), B = renamedThread("@B");
  z3::expr sameBlock = A[3] == B[3] && A[4] == B[4] && A[5] == B[5];
  z3::expr sameThread = sameBlock && A[0] == B[0] && A[1] == B[1] && A[2] == B[2] && A[6] == B[6];
  std::vector<Observable> obsBase = pairObservables(A, B);
  for (size_t i = 0; i < events.size(); ++i) {
    for (size_t j = i; j < events.size(); ++j) {
      const Event &a = *events[i], &b = *events[j];
      if (a.mem != b.mem)
        continue;
      if (a.kind == Event::Read && b.kind == Event::Read)
        continue;
      if (a.kind == Event::Atomic && b.kind == Event::Atomic)
        continue;
      const MemInfo &mi = mems.at(a.mem);
      // Shared memory is per block: accesses in different barrier intervals
      // are ordered by the barrier between them.
      if (mi.shared && a.interval != b.interval)
        continue;
      z3::expr pa = renamed(a.pc && a.facts, a.iters, "@A"), pb = renamed(b.pc && b.facts, b.iters, "@B");
      z3::expr same = z.bool_val(true);
      std::vector<Observable> obs = obsBase;
      for (size_t d = 0; d < a.idx.size(); ++d) {
        z3::expr ia = renamed(a.idx[d], a.iters, "@A");
        same = same && ia == renamed(b.idx[d], b.iters, "@B");
        obs.push_back({mi.name + " index " + std::to_string(d), ia});
      }
      z3::expr ranges = threadRange(A) && threadRange(B);
      for (unsigned k : a.iters)
        ranges = ranges && renamed(iterRange[k], {}, "@A");
      for (unsigned k : b.iters)
        ranges = ranges && renamed(iterRange[k], {}, "@B");
      // Two iterations of one loop are a whole step apart: a valid lemma that
      // spares the solver nonlinear search on symbolic (grid-stride) steps.
      for (unsigned k : a.iters) {
        if (std::find(b.iters.begin(), b.iters.end(), k) == b.iters.end() || k >= iterStep.size())
          continue;
        z3::expr d = renamed(iterVars[k], {}, "@A") - renamed(iterVars[k], {}, "@B");
        z3::expr st = renamed(iterStep[k], {}, "@A");
        ranges = ranges && (d == 0 || d * st >= st || d * st <= -st);
      }
      z3::expr concurrent = (sameBlock && z.bool_val(a.interval == b.interval));
      if (!mi.shared)
        concurrent = concurrent || !sameBlock;
      Obligation o;
      o.id = CheckId::Race;
      o.loc = b.loc;
      bool ww = a.kind != Event::Read && b.kind != Event::Read;
      o.message = "no two threads access the same element of '" + mi.name + "' concurrently";
      o.failMessage = std::string("data race on ") + (mi.shared ? "shared '" : "global '") + mi.name + "': " +
                      (ww ? "two threads write" : "one thread writes and another reads") +
                      " the same element without a barrier between them (other access at line " +
                      std::to_string(a.loc.line) + ")";
      o.assumptions = {ranges, pa, pb, same, concurrent, !sameThread};
      o.goal = z.bool_val(false);
      o.observables = obs;
      // Second attempt for two plain writes of an out/inout buffer: the final
      // merge's lemma (checked on its own) says each write's inferred writer is
      // the writing thread; with it, equal indices mean equal threads. This
      // settles nonlinear index maps such as `r * cols + c`.
      if (ww && !mi.shared && a.kind == Event::Write && b.kind == Event::Write) {
        auto writerIs = [&](const Event &e, const std::string &suffix) -> std::optional<z3::expr> {
          std::vector<z3::expr> from, to;
          if (!witness(e, {0, 1, 2, 3, 4, 5, 6}, e.idx, from, to))
            return std::nullopt;
          z3::expr eq = z.bool_val(true);
          for (size_t v = 0; v < from.size(); ++v)
            eq = eq && from[v] == to[v];
          witnessFacts.clear();
          return renamed(eq, e.iters, suffix);
        };
        auto wa = writerIs(a, "@A"), wb = writerIs(b, "@B");
        if (wa && wb)
          o.fallback = {*wa, *wb};
      }
      obligations.push_back(o);
      // Out buffers: every element written exactly once, also by one thread.
      if (ww && !mi.shared && mi.access == BufferAccess::Out && (i != j || !a.iters.empty())) {
        Obligation u;
        u.id = CheckId::Coverage;
        u.loc = b.loc;
        u.message = "each element of '" + mi.name + "' is written at most once";
        u.failMessage = "an element of out buffer '" + mi.name + "' is written more than once by one thread";
        z3::expr differentIter = z.bool_val(i != j);
        for (unsigned k : a.iters)
          differentIter = differentIter || renamed(iterVars[k], {}, "@A") != renamed(iterVars[k], {}, "@B");
        u.assumptions = {ranges, pa, pb, same, sameThread, differentIter};
        u.goal = z.bool_val(false);
        u.observables = obs;
        obligations.push_back(u);
      }
    }
  }
}

void SymExec::finalState() {
  std::map<const void *, std::vector<const Event *>> writes;
  std::set<const void *> atomic;
  for (auto &e : events) {
    if (e->kind == Event::Write)
      writes[e->mem].push_back(e.get());
    if (e->kind == Event::Atomic)
      atomic.insert(e->mem);
  }
  for (auto &[mem, mi] : mems) {
    if (mi.shared || mi.access == BufferAccess::In)
      continue;
    if (atomic.count(mem)) {
      // Atomic updates: the final contents are not modelled (the state after
      // the last atomic is arbitrary).
      continue;
    }
    auto it = writes.find(mem);
    state[mem] = it == writes.end() ? entryState.at(mem)
                                    : mergeNode(mem, entryState.at(mem), it->second, {0, 1, 2, 3, 4, 5, 6});
  }
}

void SymExec::finalChecks() {
  if (mode == FloatMode::Exact) {
    checkUniformity();
    raceChecks();
    // Float atomics make the result depend on the order the threads run in.
    for (auto &e : events) {
      if (e->kind != Event::Atomic || !isa<FloatType>(mems.at(e->mem).elemType))
        continue;
      Obligation o;
      o.id = CheckId::Determinism;
      o.loc = e->loc;
      o.message = "the floating-point atomic on '" + mems.at(e->mem).name + "' is never executed";
      o.failMessage = "floating-point atomic on '" + mems.at(e->mem).name +
                      "': the result depends on the order the threads run in";
      o.assumptions = {e->pc};
      for (unsigned k : e->iters)
        o.assumptions.push_back(iterRange[k]);
      o.goal = z.bool_val(false);
      o.finding = !kernel.getDeterministic();
      obligations.push_back(o);
    }
  }
  finalState();
  z3::expr savedPc = pc;
  pc = z.bool_val(true);
  // Coverage: every element of every out region is written.
  if (mode == FloatMode::Exact) {
    for (auto &[mem, mi] : mems) {
      if (mi.shared || mi.access != BufferAccess::Out)
        continue;
      std::vector<z3::expr> j;
      z3::expr region = z.bool_val(true);
      std::vector<Observable> obs;
      for (size_t d = 0; d < mi.dims.size(); ++d) {
        j.push_back(fresh(mi.name + "_index", z.int_sort()));
        z3::expr lo = mi.hasWrites ? mi.writes[d].first : z.int_val(0);
        z3::expr hi = mi.hasWrites ? mi.writes[d].second : mi.dims[d];
        region = region && j[d] >= lo && j[d] < hi;
        obs.push_back({"index " + std::to_string(d) + " of " + mi.name, j[d]});
      }
      z3::expr cov = z.bool_val(false);
      for (auto &e : events) {
        if (e->mem != mem || e->kind == Event::Read)
          continue;
        for (bool iterFirst : {true, false}) {
          std::vector<z3::expr> from, to;
          if (!witness(*e, {0, 1, 2, 3, 4, 5, 6}, j, from, to, iterFirst)) {
            unsupported(nullptr, "cannot tell which thread writes '" + mi.name + "'");
            return;
          }
          cov = cov || covered(*e, from, to, j);
        }
      }
      Obligation o;
      o.id = CheckId::Coverage;
      o.memoryName = mi.name;
      o.loc = srcLoc(kernel.getLoc());
      o.assumptions = witnessFacts;
      witnessFacts.clear();
      o.message = "every element of out buffer '" + mi.name + "' is written";
      o.failMessage = "no thread writes this element of out buffer '" + mi.name + "'";
      o.assumptions.push_back(region);
      o.goal = cov;
      o.observables = obs;
      o.scope = Obligation::Scope::Kernel;
      obligations.push_back(o);
    }
  }
  // Postconditions.
  for (Operation &op : kernel.getBody().front()) {
    auto ens = dyn_cast<EnsuresOp>(op);
    if (!ens || ens.getApprox() != (mode == FloatMode::Real))
      continue;
    if (!writerPostcondition(ens)) {
      std::vector<z3::expr> extra;
      std::vector<Observable> obs;
      z3::expr g = evalGoal(ens.getCond(), extra, obs);
      addObligation(CheckId::Postcondition, ens.getLoc(), "the postcondition holds",
                    "the postcondition may not hold", g, extra, obs);
      obligations.back().scope = Obligation::Scope::Kernel;
    }
    if (ens.getApprox()) {
      // Rounding depth of the values the code wrote: the depth of the
      // deepest chain of float operations in the final state read here.
      std::function<int(const z3::expr &, std::map<unsigned, int> &)> depth =
          [&](const z3::expr &t, std::map<unsigned, int> &memo) -> int {
        if (!t.is_app())
          return 0;
        unsigned id = Z3_get_ast_id(z, t);
        auto it = memo.find(id);
        if (it != memo.end())
          return it->second;
        int d = 0;
        for (unsigned i = 0; i < t.num_args(); ++i)
          d = std::max(d, depth(t.arg(i), memo));
        Z3_decl_kind k = t.decl().decl_kind();
        if (t.is_real() && (k == Z3_OP_ADD || k == Z3_OP_SUB || k == Z3_OP_MUL || k == Z3_OP_DIV))
          d += 1;
        // A value carried by a cut loop, or known only through a barrier
        // contract, hides how many roundings produced it.
        std::string name = t.decl().name().str();
        if (t.is_real() && k == Z3_OP_UNINTERPRETED &&
            (name.find("loop!") != std::string::npos || name.find("!after_barrier") != std::string::npos ||
             name.find("!havoc") != std::string::npos))
          opaqueDepth = true;
        memo[id] = d;
        return d;
      };
      opaqueDepth = false;
      int d = 0;
      std::map<unsigned, int> memo;
      for (auto &e : events)
        if (e->kind == Event::Write && e->value && !mems.at(e->mem).shared)
          d = std::max(d, depth(*e->value, memo));
      SrcLoc s = srcLoc(ens.getLoc());
      tolerances.push_back({s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col),
                            opaqueDepth ? -d - 1 : d});
    }
  }
  pc = savedPc;
}

/// `ensures forall i...: P(y[t(i)])` where `y[t(i)]` is the clause's only read
/// of a written buffer: proven per write event from the writer's side (the
/// thread T that writes y[t] last computes a value v with P(v)), plus "every
/// y[t(i)] is written". No writer inversion is needed for the values, which
/// keeps the queries small; the final-state merge remains the general path.
bool SymExec::writerPostcondition(EnsuresOp ens) {
  Block *b = &ens.getCond().front();
  Value v = cast<YieldOp>(b->getTerminator()).getValues()[0];
  bool chained = false;
  while (auto fa = v.getDefiningOp<ForallOp>()) {
    if (fa->getBlock() != b)
      return false;
    chained = true;
    b = &fa.getBody().front();
    v = cast<YieldOp>(b->getTerminator()).getValues()[0];
  }
  if (!chained)
    return false;
  LoadOp target;
  bool ok = true;
  ens.getCond().walk([&](Operation *op) {
    auto l = dyn_cast<LoadOp>(op);
    if (!l)
      return;
    for (Operation *p = op->getParentOp(); p && p != ens; p = p->getParentOp())
      if (isa<OldOp>(p))
        return;
    auto bt = dyn_cast<BufferType>(l.getRef().getType());
    if (!bt || bt.getAccess() == BufferAccess::In)
      return;
    if (target || l->getBlock() != b)
      ok = false;
    target = l;
  });
  if (!ok || !target)
    return false;
  const void *mem = key(target.getRef());
  std::vector<const Event *> writes;
  for (auto &e : events) {
    if (e->mem != mem || e->kind == Event::Read)
      continue;
    if (e->kind == Event::Atomic || (!e->iters.empty() && mems.at(mem).access != BufferAccess::Out))
      return false;
    writes.push_back(e.get());
  }
  const MemInfo &mi = mems.at(mem);
  auto indices = [&]() {
    std::vector<z3::expr> t;
    for (Value i : target.getIndices())
      t.push_back(get(i));
    return t;
  };
  for (size_t w = 0; w < writes.size(); ++w) {
    const Event &e = *writes[w];
    overrideLoad.erase(target);
    overrideLoad.emplace(target, *e.value);
    std::vector<z3::expr> extra;
    std::vector<Observable> obs;
    z3::expr g = evalGoal(ens.getCond(), extra, obs);
    std::vector<z3::expr> t = indices();
    extra.push_back(e.pc);
    extra.push_back(e.facts);
    for (unsigned k : e.iters)
      extra.push_back(iterRange[k]);
    for (size_t d = 0; d < t.size(); ++d)
      extra.push_back(e.idx[d] == t[d]);
    for (size_t l = w + 1; l < writes.size(); ++l) {
      z3::expr same = writes[l]->pc;
      for (size_t d = 0; d < t.size(); ++d)
        same = same && writes[l]->idx[d] == t[d];
      extra.push_back(!same);
    }
    std::vector<Observable> all = pairObservables(threadVars, threadVars);
    std::vector<Observable> o2;
    for (size_t i = 0; i < all.size(); i += 2)
      o2.push_back({all[i].name.substr(9), all[i].term});
    obs.insert(obs.end(), o2.begin(), o2.end());
    obs.push_back({mi.name + " written", *e.value});
    addObligation(CheckId::Postcondition, ens.getLoc(),
                  "the value written at line " + std::to_string(e.loc.line) + " satisfies the postcondition",
                  "the value written at line " + std::to_string(e.loc.line) + " may violate the postcondition",
                  g, extra, obs);
  }
  // Every element the clause names is written.
  overrideLoad.erase(target);
  overrideLoad.emplace(target, fresh("unused", sortOf(mi.elemType)));
  std::vector<z3::expr> extra;
  std::vector<Observable> obs;
  evalGoal(ens.getCond(), extra, obs);
  std::vector<z3::expr> t = indices();
  overrideLoad.erase(target);
  z3::expr cov = z.bool_val(false);
  for (const Event *e : writes) {
    for (bool iterFirst : {true, false}) {
      std::vector<z3::expr> from, to;
      if (!witness(*e, {0, 1, 2, 3, 4, 5, 6}, t, from, to, iterFirst))
        return false;
      cov = cov || covered(*e, from, to, t);
    }
  }
  for (size_t d = 0; d < t.size(); ++d)
    obs.push_back({mi.name + " index " + std::to_string(d), t[d]});
  extra.insert(extra.end(), witnessFacts.begin(), witnessFacts.end());
  witnessFacts.clear();
  addObligation(CheckId::Postcondition, ens.getLoc(),
                "every element of '" + mi.name + "' the postcondition names is written",
                "no thread writes the element of out buffer '" + mi.name + "' the postcondition names", cov,
                extra, obs);
  obligations.back().scope = Obligation::Scope::Kernel;
  return true;
}

/// A memory state about which nothing is known: a fresh function of the
/// thread, the iterations in scope and the index.
MemRef SymExec::havocMemory(const void *mem) {
  const MemInfo &mi = mems.at(mem);
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Base;
  node->id = nodeIds++;
  z3::sort_vector sorts(z);
  for (size_t i = 0; i < threadVars.size() + iterScope.size(); ++i)
    sorts.push_back(z.int_sort());
  for (size_t i = 0; i < mi.dims.size(); ++i)
    sorts.push_back(z.int_sort());
  node->fn = z.function((mi.name + "!havoc" + std::to_string(freshIds++)).c_str(), sorts,
                        sortOf(mi.elemType));
  for (auto &t : threadVars)
    node->prefix.push_back(t);
  for (unsigned k : iterScope)
    node->prefix.push_back(iterVars[k]);
  return node;
}

z3::expr SymExec::toUnsigned(z3::expr v, unsigned w) {
  if (w >= 64)
    return z3::ite(v < 0, v + z.int_val("18446744073709551616"), v);
  return z3::ite(v < 0, v + z.int_val((int64_t)(uint64_t(1) << w)), v);
}

z3::expr SymExec::toSigned(z3::expr v, unsigned w) {
  z3::expr half = w >= 64 ? z.int_val("9223372036854775808") : z.int_val((int64_t)(uint64_t(1) << (w - 1)));
  z3::expr full = w >= 64 ? z.int_val("18446744073709551616") : z.int_val((int64_t)(uint64_t(1) << w));
  return z3::ite(v >= half, v - full, v);
}

/// The facts about terms (`termFacts`) that an obligation over `roots` needs:
/// those whose term occurs in the roots or, transitively, in facts already
/// taken. Leaving the others out is sound (fewer assumptions) and keeps
/// queries small.
std::vector<z3::expr> SymExec::relevantFacts(const std::vector<z3::expr> &roots) const {
  std::set<unsigned> seen;
  std::vector<z3::expr> todo(roots.begin(), roots.end());
  auto walk = [&](const z3::expr &root) {
    std::vector<z3::expr> stack{root};
    while (!stack.empty()) {
      z3::expr e = stack.back();
      stack.pop_back();
      if (!seen.insert(Z3_get_ast_id(z, e)).second)
        continue;
      if (e.is_app())
        for (unsigned i = 0; i < e.num_args(); ++i)
          stack.push_back(e.arg(i));
      else if (e.is_quantifier() || e.is_lambda())
        stack.push_back(e.body());
    }
  };
  for (auto &r : todo)
    walk(r);
  std::vector<z3::expr> out;
  std::vector<bool> taken(termFacts.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < termFacts.size(); ++i) {
      if (taken[i] || !seen.count(Z3_get_ast_id(z, termFacts[i].first)))
        continue;
      taken[i] = true;
      changed = true;
      out.push_back(termFacts[i].second);
      walk(termFacts[i].second);
    }
  }
  return out;
}
