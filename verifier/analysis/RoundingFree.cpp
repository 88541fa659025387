//===- RoundingFree.cpp - Values computed without rounding ------------------===//
//
// A value is rounding-free when every float operation on the way to it is
// exact on finite operands: inputs, constants, maxima and minima, negation,
// absolute value, selects, comparisons, shuffles, widening, the spec's max,
// min, argmax and argmin, and memory (locals, shared arrays) whose every store
// is rounding-free and made under rounding-free conditions (a branch on a
// rounded value may go one way in IEEE arithmetic and the other over the
// reals). Its IEEE value and its value over the reals are then one
// number (the reals' model reads an input x as x; fmaximum of finite values is
// the real maximum), so a fact proven of such values in the IEEE proof holds
// in the proof over the reals too (SymExec::loopInvariants, barrier
// contracts). An infinity (`-1.0 / 0.0`, an empty maximum) is some real there,
// which the facts may take to be beyond every float: what maxima, minima,
// negation and comparisons do with it, they do with the infinity; no other
// arithmetic on one is taken.
//
//===----------------------------------------------------------------------===//
#include "verifier/analysis/RoundingFree.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

#include <functional>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

RoundingFree::RoundingFree(KernelOp kernel) : kernel(kernel) {
  kernel.walk([&](Operation *op) {
    if (isa<memref::AllocaOp, SharedAllocOp>(op))
      memories.insert(op->getResult(0));
  });
  // The greatest fixpoint: a memory stays while every store into it is
  // rounding-free, assuming the same of the memories still in the set (a
  // running maximum `m = fmaximum(m, x[j])` reads its own memory).
  for (bool changed = true; changed;) {
    changed = false;
    memo.clear();
    kernel.walk([&](Operation *op) {
      Value mem, stored;
      if (auto s = dyn_cast<memref::StoreOp>(op)) {
        mem = s.getMemRef();
        stored = s.getValue();
      } else if (auto s = dyn_cast<StoreOp>(op)) {
        mem = s.getRef();
        stored = s.getValue();
      } else if (auto a = dyn_cast<AtomicOp>(op)) {
        mem = a.getRef(); // what atomics leave is not modelled
      } else {
        return;
      }
      if (!memories.count(mem) || (stored && value(stored) && control(op)))
        return;
      memories.erase(mem);
      changed = true;
    });
  }
  memo.clear();
}

static bool isFloatLike(Type t) { return isa<FloatType>(t); }

bool RoundingFree::control(Operation *op) {
  for (Operation *p = op->getParentOp(); p && p != kernel.getOperation(); p = p->getParentOp()) {
    if (auto i = dyn_cast<scf::IfOp>(p)) {
      if (!value(i.getCondition()))
        return false;
    } else if (auto f = dyn_cast<ForOp>(p)) {
      if (!value(f.getLo()) || !value(f.getHi()) || !value(f.getStep()))
        return false;
    } else if (auto w = dyn_cast<WhileOp>(p)) {
      if (!region(w.getCond()))
        return false;
    } else if (!isa<ForallOp, ExistsOp, SumOp, ReduceOp, EnsuresOp, AssertOp, AssumeOp,
                    InvariantOp>(p) &&
               p->getNumRegions() > 0 && !isa<scf::ExecuteRegionOp>(p)) {
      return false; // a construct not known here
    }
  }
  return true;
}

/// The value of `v` where it is a float constant, or negations and
/// arithmetic of constants each exact in IEEE arithmetic.
static std::optional<APFloat> exactConstant(Value v) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  if (auto c = dyn_cast<arith::ConstantOp>(d)) {
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      return f.getValue();
    return std::nullopt;
  }
  if (isa<arith::NegFOp>(d)) {
    std::optional<APFloat> a = exactConstant(d->getOperand(0));
    if (a)
      a->changeSign();
    return a;
  }
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(d))
    return std::nullopt;
  // (Over the reals an infinity is some real standing for it, below or
  // above every finite value: what maxima, minima and comparisons do with it
  // they do with -inf and +inf, but `1.0 / 0.0 + 1.0` is another number.)
  std::optional<APFloat> a = exactConstant(d->getOperand(0)), b = exactConstant(d->getOperand(1));
  if (!a || !b || !a->isFinite() || !b->isFinite())
    return std::nullopt;
  APFloat::opStatus st;
  if (isa<arith::AddFOp>(d))
    st = a->add(*b, APFloat::rmNearestTiesToEven);
  else if (isa<arith::SubFOp>(d))
    st = a->subtract(*b, APFloat::rmNearestTiesToEven);
  else if (isa<arith::MulFOp>(d))
    st = a->multiply(*b, APFloat::rmNearestTiesToEven);
  else
    st = a->divide(*b, APFloat::rmNearestTiesToEven);
  if (st & (APFloat::opInexact | APFloat::opInvalidOp | APFloat::opOverflow |
            APFloat::opUnderflow))
    return std::nullopt;
  return a;
}

bool RoundingFree::value(Value v) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = false; // (no cycles among SSA values; a guard all the same)
  bool ok = compute(v);
  memo[v] = ok;
  return ok;
}

bool RoundingFree::region(Region &r) {
  for (Block &b : r) {
    auto y = dyn_cast<YieldOp>(b.getTerminator());
    if (!y)
      return false;
    for (Value v : y.getOperands())
      if (!value(v))
        return false;
  }
  return true;
}

bool RoundingFree::compute(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg) {
    // Integer block arguments are loop counters and binders; a float one is a
    // kernel's scalar parameter (the same number in both proofs).
    return !isFloatLike(v.getType()) ||
           arg.getOwner()->getParentOp() == kernel.getOperation();
  }
  Operation *d = v.getDefiningOp();
  auto operands = [&] {
    for (Value o : d->getOperands())
      if (!value(o))
        return false;
    return true;
  };
  if (isa<arith::ConstantOp>(d))
    return true;
  // Constant arithmetic whose IEEE result is exact (`-1.0 / 0.0`, `0.5 * 4.0`).
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(d))
    return exactConstant(v).has_value();
  if (isa<arith::NegFOp, math::AbsFOp, arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp, arith::SelectOp, arith::CmpFOp, arith::ExtFOp, ShuffleOp>(d))
    return operands();
  auto indices = [&](ValueRange is) {
    return llvm::all_of(is, [&](Value i) { return value(i); });
  };
  if (auto l = dyn_cast<memref::LoadOp>(d))
    return memories.count(l.getMemRef()) && indices(l.getIndices());
  // (Integers too: one stored from a rounded float, `(a + b) as i32`, is
  // another number over the reals.)
  if (auto l = dyn_cast<LoadOp>(d)) {
    if (!indices(l.getIndices()))
      return false;
    if (memories.count(l.getRef()))
      return true;
    auto bt = dyn_cast<BufferType>(l.getRef().getType());
    return bt && bt.getAccess() == BufferAccess::In;
  }
  if (auto r = dyn_cast<ReduceOp>(d)) {
    if (!operands())
      return false;
    ReduceKind k = r.getKind();
    if (k == ReduceKind::Prod && isFloatLike(v.getType()))
      return false;
    return region(r.getBody());
  }
  if (auto s = dyn_cast<SumOp>(d))
    return !isFloatLike(v.getType()) && operands() && region(s.getBody());
  if (isa<ForallOp, ExistsOp>(d))
    return operands() && region(d->getRegion(0));
  // Integer arithmetic is the same in both proofs; what converts a float to
  // an integer is not taken.
  if (d->getNumRegions() == 0 && d->getDialect() &&
      d->getDialect()->getNamespace() == "arith" && !isFloatLike(v.getType()) &&
      !isa<arith::FPToSIOp, arith::FPToUIOp, arith::BitcastOp>(d))
    return operands();
  if (isa<ThreadIdOp, BlockIdOp, GridDimOp, LaneIdOp, WarpIdOp>(d))
    return true;
  return false;
}

//===----------------------------------------------------------------------===//
// LoopRounding
//===----------------------------------------------------------------------===//
//
// What a cut loop hides of a value's rounding depth, counted on the IR: for
// each value of one iteration, the roundings on its way from a memory the
// loop carries (a local or shared array it stores into, holding at the start
// of the iteration what the previous ones left) and those of the part
// computed within the iteration. An unrolled loop inside (a constant trip
// count up to 256, as SymExec unrolls) is walked that many times; a cut loop
// inside a cut loop has no constant bound. Shared and buffer memories hold
// the most of what any store into them put there (another thread's store is
// the same code).

namespace {

struct Depth {
  int chain = -1; ///< roundings since a carried value (-1: none reaches it)
  int fresh = 0;  ///< roundings of the part computed within the iteration
};

Depth maxOf(Depth a, Depth b) { return {std::max(a.chain, b.chain), std::max(a.fresh, b.fresh)}; }

bool rounds(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp,
             arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp>(op) ||
         (op->getDialect() && op->getDialect()->getNamespace() == "math");
}

std::optional<int64_t> constantTrips(ForOp f) {
  llvm::APInt lo, hi, st;
  if (!matchPattern(f.getLo(), m_ConstantInt(&lo)) || !matchPattern(f.getHi(), m_ConstantInt(&hi)) ||
      !matchPattern(f.getStep(), m_ConstantInt(&st)) || st.getSExtValue() <= 0)
    return std::nullopt;
  int64_t n = std::max<int64_t>(0, (hi.getSExtValue() - lo.getSExtValue() + st.getSExtValue() - 1) /
                                       st.getSExtValue());
  if (n > 256)
    return std::nullopt;
  return n;
}

class IterationWalk {
public:
  explicit IterationWalk(llvm::DenseSet<Value> carried) {
    for (Value m : carried)
      memory[m] = {0, 0};
  }
  void block(Block &b) {
    for (Operation &op : b)
      visit(&op);
  }
  /// The most roundings one iteration adds to a carried memory.
  int perIteration() const {
    int p = 0;
    for (auto &[m, d] : memory)
      p = std::max(p, d.chain);
    return p;
  }
  bool unbounded = false;
  int entry = 0;

private:
  Depth of(Value v) const { return values.lookup(v); }
  Depth yielded(Region &r, unsigned i) {
    Operation *t = r.empty() ? nullptr : r.front().getTerminator();
    return t && i < t->getNumOperands() ? of(t->getOperand(i)) : Depth{};
  }
  void visit(Operation *op) {
    if (isa<EnsuresOp, InvariantOp, AssertOp, AssumeOp, RequiresOp, ForallOp, ExistsOp, SumOp,
            ReduceOp>(op))
      return; // specs: no code
    if (auto f = dyn_cast<ForOp>(op)) {
      std::optional<int64_t> trips = constantTrips(f);
      if (!trips) {
        unbounded = true;
        return;
      }
      for (int64_t i = 0; i < *trips && !unbounded; ++i)
        block(f.getBody().front());
      return;
    }
    if (isa<WhileOp>(op)) {
      unbounded = true;
      return;
    }
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      auto saved = memory;
      block(i.getThenRegion().front());
      auto afterThen = memory;
      memory = saved;
      if (!i.getElseRegion().empty())
        block(i.getElseRegion().front());
      for (auto &[m, d] : afterThen)
        memory[m] = maxOf(memory.lookup(m), d);
      for (unsigned k = 0; k < op->getNumResults(); ++k)
        values[op->getResult(k)] = maxOf(yielded(i.getThenRegion(), k), yielded(i.getElseRegion(), k));
      return;
    }
    if (auto l = dyn_cast<memref::LoadOp>(op)) {
      values[l.getResult()] = memory.lookup(l.getMemRef());
      return;
    }
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      memory[s.getMemRef()] = of(s.getValue());
      return;
    }
    if (auto l = dyn_cast<LoadOp>(op)) {
      values[l.getResult()] = memory.lookup(l.getRef());
      return;
    }
    if (auto s = dyn_cast<StoreOp>(op)) {
      memory[s.getRef()] = maxOf(memory.lookup(s.getRef()), of(s.getValue()));
      return;
    }
    if (isa<BarrierOp>(op))
      return; // its body is a contract: a spec
    if (op->getNumRegions() > 0) {
      // Any other op with a body: rounding code in it is not counted here.
      op->walk([&](Operation *inner) { unbounded |= inner != op && rounds(inner); });
      return;
    }
    Depth d;
    bool anyChain = false;
    for (Value v : op->getOperands())
      anyChain |= of(v).chain >= 0;
    for (Value v : op->getOperands()) {
      Depth o = of(v);
      d = maxOf(d, o);
      if (anyChain && o.chain < 0 && rounds(op))
        entry = std::max(entry, o.fresh); // a value joins a carried one
    }
    if (rounds(op)) {
      if (d.chain >= 0)
        ++d.chain;
      ++d.fresh;
    }
    for (Value r : op->getResults())
      values[r] = d;
  }

  llvm::DenseMap<Value, Depth> values;
  llvm::DenseMap<Value, Depth> memory;
};

/// The memories a loop body stores into.
llvm::DenseSet<Value> storedInto(Region &body) {
  llvm::DenseSet<Value> out;
  body.walk([&](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op))
      out.insert(s.getMemRef());
    else if (auto s = dyn_cast<StoreOp>(op))
      out.insert(s.getRef());
  });
  return out;
}

} // namespace

LoopRounding kuiper::verifier::loopRounding(KernelOp kernel) {
  LoopRounding out;
  std::function<void(Region &)> scan = [&](Region &r) {
    for (Block &b : r)
      for (Operation &op : b) {
        if (isa<EnsuresOp, InvariantOp, AssertOp, AssumeOp, RequiresOp>(op))
          continue;
        Region *body = nullptr;
        if (auto f = dyn_cast<ForOp>(op); f && !constantTrips(f))
          body = &f.getBody();
        else if (auto w = dyn_cast<WhileOp>(op))
          body = &w.getBody();
        if (!body) {
          for (Region &inner : op.getRegions())
            scan(inner);
          continue;
        }
        out.anyCutLoop = true;
        IterationWalk walk(storedInto(*body));
        walk.block(body->front());
        if (walk.unbounded || !out.perIteration)
          out.perIteration.reset();
        else
          out.perIteration = std::max(*out.perIteration, walk.perIteration());
        out.entry += walk.entry;
      }
  };
  scan(kernel.getBody());
  return out;
}
