//===- Vectorize.cpp - several elements per thread, 128-bit accesses -------===//
//
// Rewrites a guarded elementwise kernel
//
//   i = blockIdx.x * B + threadIdx.x
//   if i < N { body(i) }        // every access of a vectorised buffer is at [i]
//
// so that each thread runs V consecutive logical threads (V = 16 bytes / the
// widest element) with the launch grid divided by V:
//
//   base = blockIdx.x * (B*V) + threadIdx.x * V,  last = base + V - 1
//   if last < G*B && last < N && aligned(every vectorised buffer, V * size) {
//     loads of body(base+0..V-1) first, the first one {align = V*size};
//     body(base+0) ... body(base+V-1);  stores last, the first one aligned
//   } else {
//     for k < V: if base+k < G*B { if base+k < N { body(base+k) } }
//   }
//
// LLVM's load/store vectorizer merges the aligned runs into 128-bit accesses.
// The rewrite preserves the meaning of a verified kernel (it is applied to
// race-free kernels without barriers, collectives, shared memory or atomics,
// whose threads may then run in any order, gives each logical thread its own
// locals, and only moves accesses of a buffer that is touched at [i] alone)
// wherever the ops it creates do not overflow and its alignment claims hold:
// docs/lowering.md gives the argument. Those ops are marked kuiper.rewrite and,
// where the argument applies (a body without loops), the kernel kuiper.refines;
// the driver proves those side conditions, or else the whole rewritten kernel,
// and lowers it only if every check is proven.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Transforms/Passes.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace kuiper {
#define GEN_PASS_DEF_KUIPERVECTORIZE
#include "kuiper/Transforms/Passes.h.inc"
} // namespace kuiper

using namespace mlir;

namespace kuiper {
namespace {

bool isHeaderOp(Operation *op) {
  return isa<ShapeOp, LaunchOp, RequiresOp, EnsuresOp, AccessOp>(op);
}

/// `v` is `kuiper.<DimOp> 0`.
template <typename DimOp> bool isDimX(Value v) {
  auto op = v.getDefiningOp<DimOp>();
  return op && op.getDim() == 0;
}

/// The constant value of `v`, if it is one.
std::optional<int64_t> constantOf(Value v) {
  auto op = v.getDefiningOp<arith::ConstantOp>();
  auto attr = op ? dyn_cast<IntegerAttr>(op.getValue()) : nullptr;
  return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
}

/// `v` is the constant `c`.
bool isConstant(Value v, int64_t c) { return constantOf(v) == c; }

/// `v` is `blockIdx.x * B + threadIdx.x` (either operand order).
bool isGlobalIndex(Value v, int64_t blockSize) {
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add || !add.getType().isInteger(32))
    return false;
  for (auto [mulValue, tid] : {std::pair(add.getLhs(), add.getRhs()),
                               std::pair(add.getRhs(), add.getLhs())}) {
    auto mul = mulValue.getDefiningOp<arith::MulIOp>();
    if (!mul || !isDimX<ThreadIdOp>(tid))
      continue;
    if ((isDimX<BlockIdOp>(mul.getLhs()) && isConstant(mul.getRhs(), blockSize)) ||
        (isDimX<BlockIdOp>(mul.getRhs()) && isConstant(mul.getLhs(), blockSize)))
      return true;
  }
  return false;
}

/// N where `g` is `cdiv(N, d)` as the front end writes it, `N / d + ext(N % d
/// > 0)` (signed); none otherwise.
Value cdivNumerator(Value g, int64_t d) {
  auto add = g.getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  for (auto [qv, ev] : {std::pair(add.getLhs(), add.getRhs()), std::pair(add.getRhs(), add.getLhs())}) {
    auto q = qv.getDefiningOp<arith::DivSIOp>();
    auto ext = ev.getDefiningOp<arith::ExtUIOp>();
    if (!q || !ext || !isConstant(q.getRhs(), d))
      continue;
    auto cmp = ext.getIn().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::sgt || !isConstant(cmp.getRhs(), 0))
      continue;
    auto rem = cmp.getLhs().getDefiningOp<arith::RemSIOp>();
    if (rem && rem.getLhs() == q.getLhs() && isConstant(rem.getRhs(), d))
      return q.getLhs();
  }
  return {};
}

/// The buffer a load or store accesses, if it is a global buffer.
Value bufferOf(Operation *op) {
  Value ref;
  if (auto load = dyn_cast<LoadOp>(op))
    ref = load.getRef();
  else if (auto store = dyn_cast<StoreOp>(op))
    ref = store.getRef();
  return ref && isa<BufferType>(ref.getType()) ? ref : Value();
}

/// The single index of a load or store.
Value indexOf(Operation *op) {
  ValueRange indices = isa<LoadOp>(op) ? cast<LoadOp>(op).getIndices()
                                       : cast<StoreOp>(op).getIndices();
  return indices.size() == 1 ? indices.front() : Value();
}

/// The matched shape of one kernel.
struct Plan {
  KernelOp kernel;
  LaunchOp launch;
  int64_t blockSize = 0;
  unsigned factor = 0;                  ///< V
  SmallVector<Operation *> prelude;     ///< pure ops before the code
  Operation *code = nullptr;            ///< the guard or the grid-stride loop
  scf::IfOp guard;                      ///< `if i < N { body }`, or
  ForOp loop;                           ///< `for i in gid..N step S { body }`, or
  ForOp threadLoop;                     ///< `for k in 0..T { i = base + k; if i < N { body } }`
  SmallVector<Operation *> loopPrelude; ///< pure ops of threadLoop before its guard
  Value base;                           ///< base, of threadLoop
  int64_t trip = 0;                     ///< T, of threadLoop
  Block *body = nullptr;
  Value index;                          ///< i, in `body`
  Value bound;                          ///< N
  SmallVector<Operation *> hoisted;     ///< loads at [i], run first
  SmallVector<Operation *> sunk;        ///< stores at [i], run last
  llvm::MapVector<Value, int64_t> alignment; ///< vectorised buffer -> bytes
};

/// Whether `v` is computed from an op of one of `Ops`.
template <typename... Ops> bool dependsOn(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  return isa<Ops...>(def) || llvm::any_of(def->getOperands(), dependsOn<Ops...>);
}

/// Whether `v` is computed from the thread's or block's id or from gridDim.
bool dependsOnThread(Value v) {
  return dependsOn<ThreadIdOp, BlockIdOp, GridDimOp, LaneIdOp, WarpIdOp>(v);
}

/// Whether `v` is computed from the thread's or block's id (gridDim aside).
bool dependsOnIds(Value v) { return dependsOn<ThreadIdOp, BlockIdOp, LaneIdOp, WarpIdOp>(v); }

/// Matches a thread's own loop over T consecutive elements:
/// `for k in 0..T { let i = base + k; if i < N { body } }`.
LogicalResult matchThreadLoop(Plan &plan, ForOp loop, std::string &why) {
  plan.threadLoop = loop;
  plan.trip = *constantOf(loop.getHi());
  Block &block = loop.getBody().front();
  Value k = block.getArgument(0);
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  auto guard = ops.empty() ? nullptr : dyn_cast<scf::IfOp>(ops.back());
  if (!guard || guard.getNumResults() || !guard.getElseRegion().empty()) {
    why = "the loop's body is not one `if i < n { ... }`";
    return failure();
  }
  ops.pop_back();
  plan.loopPrelude = ops;
  for (Operation *op : ops)
    if (!isPure(op) || op->getNumRegions() || op->getNumResults() != 1) {
      why = "code before the loop's guard has effects";
      return failure();
    }
  auto cmp = guard.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
      !llvm::is_contained(ops, cmp.getOperation())) {
    why = "the loop's guard is not `i < n`";
    return failure();
  }
  plan.index = cmp.getLhs();
  plan.bound = cmp.getRhs();
  auto add = plan.index.getDefiningOp<arith::AddIOp>();
  if (!add || (add.getLhs() != k && add.getRhs() != k)) {
    why = "the loop's index is not base + k";
    return failure();
  }
  plan.base = add.getLhs() == k ? add.getRhs() : add.getLhs();
  if (!plan.base.getType().isInteger(32) || !plan.bound.getType().isInteger(32)) {
    why = "the loop's index is not i32";
    return failure();
  }
  if (loop->isAncestor(plan.base.getParentRegion()->getParentOp()) ||
      (plan.bound.getDefiningOp() && loop->isAncestor(plan.bound.getDefiningOp()))) {
    why = "the loop's base or bound changes in the loop";
    return failure();
  }
  plan.body = &guard.getThenRegion().front();
  return success();
}

LogicalResult matchCode(Plan &plan, std::string &why) {
  if (auto loop = dyn_cast<ForOp>(plan.code)) {
    std::optional<int64_t> lo = constantOf(loop.getLo()), hi = constantOf(loop.getHi()),
                           step = constantOf(loop.getStep());
    if (lo == 0 && step == 1 && hi && *hi >= 2 && *hi <= 16 &&
        loop.getLo().getType().isInteger(32) &&
        llvm::hasSingleElement(loop.getInvariants().front()))
      return matchThreadLoop(plan, loop, why);
    plan.loop = loop;
    if (!loop.getLo().getType().isInteger(32) || !isGlobalIndex(loop.getLo(), plan.blockSize)) {
      why = "the loop does not start at blockIdx.x * blockDim.x + threadIdx.x";
      return failure();
    }
    if (dependsOnThread(loop.getHi()) || dependsOnIds(loop.getStep())) {
      why = "the loop's bound or step depends on the thread";
      return failure();
    }
    Block &invariants = loop.getInvariants().front();
    if (!llvm::hasSingleElement(invariants)) {
      why = "the loop has invariants";
      return failure();
    }
    plan.body = &loop.getBody().front();
    plan.index = plan.body->getArgument(0);
    plan.bound = loop.getHi();
    return success();
  }
  auto guard = dyn_cast<scf::IfOp>(plan.code);
  if (!guard) {
    why = "the code does not end in `if i < n { ... }` or a grid-stride loop";
    return failure();
  }
  plan.guard = guard;
  if (guard.getNumResults() || !guard.getElseRegion().empty()) {
    why = "the guard has an else branch";
    return failure();
  }
  auto cmp = guard.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp || !llvm::is_contained(plan.prelude, cmp.getOperation())) {
    why = "the guard is not a comparison";
    return failure();
  }
  if (cmp.getPredicate() == arith::CmpIPredicate::slt) {
    plan.index = cmp.getLhs();
    plan.bound = cmp.getRhs();
  } else if (cmp.getPredicate() == arith::CmpIPredicate::sgt) {
    plan.index = cmp.getRhs();
    plan.bound = cmp.getLhs();
  } else {
    why = "the guard is not `i < n`";
    return failure();
  }
  if (!isGlobalIndex(plan.index, plan.blockSize)) {
    why = "the guarded index is not blockIdx.x * blockDim.x + threadIdx.x";
    return failure();
  }
  if (dependsOnThread(plan.bound)) {
    why = "the bound depends on the thread";
    return failure();
  }
  plan.body = &guard.getThenRegion().front();
  return success();
}

/// Why `kernel` is left as it is, or the plan to rewrite it.
FailureOr<Plan> match(KernelOp kernel, unsigned vectorBytes, std::string &why) {
  Plan plan;
  plan.kernel = kernel;
  ArrayRef<int64_t> block = kernel.getBlock();
  if (block.size() != 3 || block[1] != 1 || block[2] != 1) {
    why = "the block is not one-dimensional";
    return failure();
  }
  plan.blockSize = block[0];
  Block &top = kernel.getBody().front();
  Operation *lastHeader = nullptr;
  for (Operation &op : top) {
    if (isHeaderOp(&op))
      lastHeader = &op;
    if (auto launch = dyn_cast<LaunchOp>(op))
      plan.launch = launch;
  }
  if (!plan.launch || plan.launch.getGrid().size() != 3 ||
      !isConstant(plan.launch.getGrid()[1], 1) ||
      !isConstant(plan.launch.getGrid()[2], 1) ||
      !plan.launch.getGrid()[0].getType().isInteger(32)) {
    why = "the grid is not one-dimensional";
    return failure();
  }
  // The code after the header: a pure prelude, then the guard or the loop.
  SmallVector<Operation *> code;
  for (Operation *op = lastHeader ? lastHeader->getNextNode() : &top.front();
       op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode())
    code.push_back(op);
  if (code.empty()) {
    why = "the kernel has no code";
    return failure();
  }
  plan.code = code.pop_back_val();
  plan.prelude = code;
  for (Operation *op : plan.prelude)
    if (!isPure(op) || op->getNumRegions() || op->getNumResults() != 1) {
      why = "code before the guard or loop has effects";
      return failure();
    }
  if (failed(matchCode(plan, why)))
    return failure();

  // Threads must be independent: nothing that synchronises, shares or
  // observes the grid, and in the body the thread is `i` alone.
  Operation *blocker = nullptr;
  kernel.walk([&](Operation *op) {
    if (isa<BarrierOp, ShuffleOp, VoteOp, SyncWarpOp, LaneIdOp, WarpIdOp,
            SharedAllocOp, AtomicOp, AlignedOp>(op))
      blocker = op;
    if (isa<ThreadIdOp, BlockIdOp, GridDimOp>(op) &&
        (op->getBlock() != &top || op->getAttrOfType<IntegerAttr>("dim").getInt() != 0))
      blocker = op;
    if (auto load = dyn_cast<LoadOp>(op); load && load.getAlign())
      blocker = op;
    if (auto store = dyn_cast<StoreOp>(op); store && store.getAlign())
      blocker = op;
  });
  if (blocker) {
    why = "it uses " + blocker->getName().getStringRef().str() +
          (blocker->getBlock() != &top ? " in its body" : "");
    return failure();
  }

  // Buffers touched at [i] only, and no other way, may have their accesses
  // moved across the V bodies: each body touches only its own element.
  llvm::DenseMap<Value, bool> onlyAtIndex;
  plan.body->walk([&](Operation *op) {
    if (Value buffer = bufferOf(op)) {
      bool atIndex = indexOf(op) == plan.index;
      auto [it, inserted] = onlyAtIndex.try_emplace(buffer, atIndex);
      if (!inserted)
        it->second = it->second && atIndex;
    }
  });
  // A body that reads back what it wrote is left alone: the rewrite would
  // keep that order, but its proof gets hard (and the source's is enough).
  {
    llvm::DenseSet<Value> stored;
    bool readBack = false;
    plan.body->walk([&](Operation *op) {
      if (auto store = dyn_cast<StoreOp>(op))
        stored.insert(store.getRef());
      else if (auto load = dyn_cast<LoadOp>(op); load && stored.contains(load.getRef()))
        readBack = true;
    });
    if (readBack) {
      why = "the body reads a buffer after writing it";
      return failure();
    }
  }
  // A load is hoisted when nothing before it writes its buffer.
  llvm::DenseSet<Value> written;
  for (Operation &op : *plan.body) {
    Value buffer = bufferOf(&op);
    if (isa<LoadOp>(op) && buffer && onlyAtIndex.lookup(buffer) &&
        !written.contains(buffer))
      plan.hoisted.push_back(&op);
    op.walk([&](StoreOp store) { written.insert(store.getRef()); });
  }
  // A store is sunk when nothing after it touches its buffer.
  llvm::DenseSet<Value> touchedAfter;
  for (Operation &op : llvm::reverse(*plan.body)) {
    Value buffer = bufferOf(&op);
    if (isa<StoreOp>(op) && buffer && onlyAtIndex.lookup(buffer) &&
        !touchedAfter.contains(buffer))
      plan.sunk.insert(plan.sunk.begin(), &op);
    op.walk([&](Operation *inner) {
      if (Value b = bufferOf(inner))
        touchedAfter.insert(b);
    });
  }
  if (plan.hoisted.empty() && plan.sunk.empty()) {
    why = "no access is at [i] alone";
    return failure();
  }
  unsigned widest = 1;
  for (Operation *op : llvm::concat<Operation *const>(plan.hoisted, plan.sunk)) {
    Type element = cast<BufferType>(bufferOf(op).getType()).getElementType();
    if (element.getIntOrFloatBitWidth() < 8) {
      why = "bool elements are not vectorised";
      return failure();
    }
    widest = std::max(widest, element.getIntOrFloatBitWidth() / 8);
  }
  plan.factor = vectorBytes / widest;
  if (plan.factor < 2) {
    why = "elements are too wide to vectorise";
    return failure();
  }
  if (plan.threadLoop && plan.trip != plan.factor) {
    why = "the loop runs " + std::to_string(plan.trip) + " elements, not " +
          std::to_string(plan.factor) + " (one vector)";
    return failure();
  }
  for (Operation *op : llvm::concat<Operation *const>(plan.hoisted, plan.sunk)) {
    Value buffer = bufferOf(op);
    Type element = cast<BufferType>(buffer.getType()).getElementType();
    plan.alignment[buffer] = plan.factor * (element.getIntOrFloatBitWidth() / 8);
  }
  return plan;
}

/// Whether the rewrite of `plan` refines the kernel as written wherever the
/// obligations of its own ops hold (docs/lowering.md, "a proven refinement"). The
/// argument needs, beyond what match() checks, that the body always runs to
/// its end once entered: a load moved before a loop that never ends would run
/// where the source never reaches it. A body with a loop is verified again in
/// full instead.
bool refinesWithSideConditions(const Plan &plan) {
  bool loop = false;
  plan.body->walk([&](Operation *op) { loop = loop || isa<ForOp, WhileOp>(op); });
  return !loop;
}

/// Builds the rewritten kernel code in place of the guard or loop.
class Rewriter {
public:
  Rewriter(Plan &plan) : plan(plan), b(plan.code), loc(plan.code->getLoc()) {}

  void run() {
    if (plan.threadLoop)
      return vectorizeThreadLoop();
    Type i32 = b.getI32Type();
    int64_t factor = plan.factor;
    // The logical grid G (the source's launch clause) and the new one.
    logicalGrid = plan.launch.getGrid()[0];
    {
      // cdiv(G, V); for the usual G = cdiv(N, B), cdiv(N, B * V), the same
      // number (nested truncating divisions are one by the product, and so
      // are nested ceilings), which the solver handles far more easily (the
      // coverage of a map: 22 -> 4 ms).
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(plan.launch);
      Value dividend = logicalGrid, divisor = constant(factor);
      if (Value n = cdivNumerator(logicalGrid, plan.blockSize)) {
        dividend = n;
        divisor = constant(plan.blockSize * factor);
      }
      Value quotient = arith::DivSIOp::create(b, loc, dividend, divisor);
      Value rest = arith::RemSIOp::create(b, loc, dividend, divisor);
      Value partial = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, rest, constant(0));
      Value extra = arith::ExtUIOp::create(b, loc, i32, partial);
      plan.launch->setOperand(0, add(quotient, extra));
    }
    // Logical threads base .. base+V-1 of the G*B the source launched.
    Value bid = BlockIdOp::create(b, loc, i32, 0);
    Value tid = ThreadIdOp::create(b, loc, i32, 0);
    Value base = add(mul(bid, constant(plan.blockSize * factor)), mul(tid, constant(factor)));
    threads = mul(logicalGrid, constant(plan.blockSize));
    for (int64_t k = 0; k < factor; ++k)
      logical.push_back(k ? add(base, constant(k)) : base);
    Value aligned = andAligned(less(logical.back(), threads));

    if (plan.guard) {
      // `if i < N`: logical thread k's i is its id.
      buildBranches(aligned, logical, [&](unsigned k) {
        Value exists = less(logical[k], threads);
        auto thread = scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&thread.getThenRegion().front());
        IRMapping map = mappingFor(k);
        b.clone(*plan.guard, map);
      });
    } else {
      // `for i in gid..N step S`: one loop from base, each iteration the V
      // logical threads' iterations at j .. j+V-1 (all step by S).
      IRMapping uniform = mappingFor(0);
      Value step = uniform.lookupOrDefault(plan.loop.getStep());
      auto loop = ForOp::create(b, loc, base, plan.bound, step);
      b.createBlock(&loop.getInvariants(), {}, {i32}, {loc});
      YieldOp::create(b, loc);
      Block *body = b.createBlock(&loop.getBody(), {}, {i32}, {loc});
      Value j = body->getArgument(0);
      SmallVector<Value> at;
      for (int64_t k = 0; k < factor; ++k)
        at.push_back(k ? add(j, constant(k)) : j);
      buildBranches(aligned, at, [&](unsigned k) {
        auto exists = scf::IfOp::create(b, loc, less(logical[k], threads), false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&exists.getThenRegion().front());
        auto inRange = scf::IfOp::create(b, loc, less(at[k], plan.bound), false);
        b.setInsertionPointToStart(&inRange.getThenRegion().front());
        IRMapping map = mappingFor(k);
        map.map(plan.index, at[k]);
        for (Operation &op : plan.body->without_terminator())
          b.clone(op, map);
      });
      YieldOp::create(b, loc);
      b.setInsertionPointAfter(loop);
    }
    Block *top = plan.code->getBlock();
    plan.code->erase();
    // The source's ids and gridDim must not survive: unused now, they go.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*top)))
      if (isPure(&op) && op.getNumRegions() == 0 && op.use_empty() &&
          !op.hasTrait<OpTrait::IsTerminator>())
        op.erase();
    plan.kernel->setAttr("kuiper.elements_per_thread", b.getI64IntegerAttr(factor));
  }

private:
  /// `for k in 0..V { i = base + k; if i < N { body } }` becomes
  /// `if base + V - 1 < N && aligned { V bodies, accesses merged } else { the loop }`.
  void vectorizeThreadLoop() {
    Value aligned = andAligned(less(add(plan.base, constant(plan.factor - 1)), plan.bound));
    auto branch = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      SmallVector<IRMapping> maps;
      Value k = plan.threadLoop.getBody().front().getArgument(0);
      for (unsigned j = 0; j < plan.factor; ++j) {
        IRMapping map;
        map.map(k, constant(j));
        map.map(plan.index, add(plan.base, constant(j)));
        for (Operation *op : plan.loopPrelude)
          if (op->getResult(0) != plan.index)
            b.clone(*op, map);
        maps.push_back(std::move(map));
      }
      buildMovedAccesses(maps);
      b.setInsertionPointToStart(&branch.getElseRegion().front());
      b.clone(*plan.threadLoop);
    }
    eraseDeadCode(branch);
    plan.threadLoop->erase();
    plan.kernel->setAttr("kuiper.vector_loop", b.getI64IntegerAttr(plan.factor));
  }

  /// `condition` and `kuiper.aligned` of every vectorised buffer.
  Value andAligned(Value condition) {
    for (auto [buffer, bytes] : plan.alignment)
      condition = arith::AndIOp::create(
          b, loc, condition,
          AlignedOp::create(b, loc, b.getI1Type(), buffer, b.getI64IntegerAttr(bytes)));
    return condition;
  }

  Value constant(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y, arith::IntegerOverflowFlags::nsw);
  }
  Value mul(Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y, arith::IntegerOverflowFlags::nsw);
  }
  Value less(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }

  /// `if fast { V bodies at at[k], accesses merged } else { scalar(k) ... }`
  /// where fast = `aligned` and the last element is below the bound.
  void buildBranches(Value aligned, ArrayRef<Value> at,
                     llvm::function_ref<void(unsigned)> scalar) {
    Value fast = arith::AndIOp::create(b, loc, aligned, less(at.back(), plan.bound));
    auto branch = scf::IfOp::create(b, loc, fast, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      buildFastPath(at);
      b.setInsertionPointToStart(&branch.getElseRegion().front());
      for (unsigned k = 0; k < plan.factor; ++k)
        scalar(k);
    }
    eraseDeadCode(branch);
  }

  /// Erases the pure ops without uses that the copies left (the index
  /// computations of the fast path), innermost first, until none is left.
  static void eraseDeadCode(Operation *root) {
    bool changed = true;
    while (changed) {
      changed = false;
      root->walk<WalkOrder::PostOrder>([&](Operation *op) {
        if (op != root && isPure(op) && op->getNumRegions() == 0 && op->use_empty() &&
            !op->hasTrait<OpTrait::IsTerminator>()) {
          op->erase();
          changed = true;
        }
      });
    }
  }

  /// The values of the prelude for logical thread `k`: blockIdx.x and
  /// threadIdx.x of its id, gridDim.x of the source's grid; what does not
  /// depend on them is used as it is.
  IRMapping mappingFor(unsigned k) {
    IRMapping map;
    if (plan.guard)
      map.map(plan.index, logical[k]);
    for (auto [local, copy] : localsOf(k))
      map.map(local, copy);
    Value blockSize;
    for (Operation *op : plan.prelude) {
      Value result = op->getResult(0);
      if (map.contains(result) || !dependsOnThread(result))
        continue;
      if (isa<GridDimOp>(op)) {
        map.map(result, logicalGrid);
        continue;
      }
      if (isa<BlockIdOp, ThreadIdOp>(op)) {
        if (!blockSize)
          blockSize = constant(plan.blockSize);
        Value v = isa<BlockIdOp>(op)
                      ? arith::DivSIOp::create(b, loc, logical[k], blockSize).getResult()
                      : arith::RemSIOp::create(b, loc, logical[k], blockSize).getResult();
        map.map(result, v);
        continue;
      }
      b.clone(*op, map);
    }
    return map;
  }

  /// The function-local variables (memref.alloca at the kernel's top) that
  /// the code uses, each with logical thread `k`'s own copy: the V logical
  /// threads of one thread are V threads of the source, which share no
  /// locals. (The copies stay at the top, in LLVM's entry block.)
  const llvm::SmallVector<std::pair<Value, Value>> &localsOf(unsigned k) {
    if (locals.empty()) {
      llvm::SetVector<Value> used;
      plan.code->walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (auto alloca = v.getDefiningOp<memref::AllocaOp>();
              alloca && !plan.code->isAncestor(alloca))
            used.insert(v);
      });
      locals.resize(plan.factor);
      for (Value v : used) {
        Operation *alloca = v.getDefiningOp();
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointAfter(alloca);
        for (unsigned j = 0; j < plan.factor; ++j)
          locals[j].push_back({v, b.clone(*alloca)->getResult(0)});
      }
    }
    return locals[k];
  }

  /// The fast path: all V logical threads run, loads first, stores last.
  void buildFastPath(ArrayRef<Value> at) {
    SmallVector<IRMapping> maps;
    for (unsigned k = 0; k < plan.factor; ++k) {
      maps.push_back(mappingFor(k));
      maps.back().map(plan.index, at[k]);
    }
    buildMovedAccesses(maps);
  }

  /// The V bodies under `maps`: hoisted loads first, sunk stores last.
  void buildMovedAccesses(SmallVectorImpl<IRMapping> &maps) {
    llvm::DenseSet<Operation *> moved(plan.hoisted.begin(), plan.hoisted.end());
    moved.insert(plan.sunk.begin(), plan.sunk.end());
    for (Operation *op : plan.hoisted)
      for (unsigned k = 0; k < plan.factor; ++k)
        cloneAccess(op, maps[k], k);
    for (unsigned k = 0; k < plan.factor; ++k)
      for (Operation &op : plan.body->without_terminator())
        if (!moved.contains(&op))
          b.clone(op, maps[k]);
    for (Operation *op : plan.sunk)
      for (unsigned k = 0; k < plan.factor; ++k)
        cloneAccess(op, maps[k], k);
  }

  /// The access `op` of logical thread `k`; the first of a run is aligned.
  void cloneAccess(Operation *op, IRMapping &map, unsigned k) {
    Operation *copy = b.clone(*op, map);
    if (k == 0)
      copy->setAttr("align", b.getI64IntegerAttr(plan.alignment.lookup(bufferOf(op))));
  }

  Plan &plan;
  OpBuilder b;
  Location loc;
  Value logicalGrid, threads;
  SmallVector<Value> logical; ///< the ids of the V logical threads
  /// Per logical thread: (local of the source, its copy); see localsOf.
  SmallVector<llvm::SmallVector<std::pair<Value, Value>>> locals;
};

struct KuiperVectorizePass : impl::KuiperVectorizeBase<KuiperVectorizePass> {
  using KuiperVectorizeBase::KuiperVectorizeBase;

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      std::string why;
      FailureOr<Plan> plan = match(kernel, vectorBytes, why);
      if (failed(plan)) {
        kernel->setAttr("kuiper.not_vectorized", StringAttr::get(&getContext(), why));
        return;
      }
      // The ops the rewrite creates are those without this mark afterwards.
      auto source = StringAttr::get(&getContext(), "kuiper.source_op");
      auto unit = UnitAttr::get(&getContext());
      kernel.getBody().walk([&](Operation *op) { op->setAttr(source, unit); });
      bool refines = refinesWithSideConditions(*plan);
      LaunchOp launch = plan->launch;
      Rewriter(*plan).run();
      kernel.getBody().walk([&](Operation *op) {
        if (!op->removeAttr(source))
          op->setAttr(kRewriteAttr, unit);
      });
      launch->setAttr(kRewriteAttr, unit);
      if (refines)
        kernel->setAttr(kRefinesAttr, unit);
    });
  }
};

} // namespace
} // namespace kuiper
