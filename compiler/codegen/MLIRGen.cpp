//===- MLIRGen.cpp - AST to kuiper dialect --------------------------------===//
//
// Emits one `kuiper.kernel` per kernel. Conventions: docs/dialect.md.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/MLIRGen.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"

#include <functional>
#include <optional>
#include <set>

using namespace mlir;
using namespace kuiper;
namespace A = kuiper::ast;

void kuiper::registerKuiperDialects(DialectRegistry &registry) {
  registry.insert<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
                  memref::MemRefDialect, math::MathDialect>();
}

void kuiper::loadKuiperDialects(MLIRContext &ctx) {
  ctx.loadDialect<KuiperDialect, arith::ArithDialect, scf::SCFDialect, memref::MemRefDialect,
                  math::MathDialect>();
}

namespace {

/// Whether a statement list may execute a `return`.
bool containsReturn(const std::vector<A::StmtPtr> &stmts);
bool containsReturn(const A::Stmt &s) {
  switch (s.kind) {
  case A::StmtKind::Return:
    return true;
  case A::StmtKind::If:
    return containsReturn(s.body) || containsReturn(s.elseBody);
  case A::StmtKind::For:
  case A::StmtKind::While:
  case A::StmtKind::Block:
    return containsReturn(s.body);
  default:
    return false;
  }
}
bool containsReturn(const std::vector<A::StmtPtr> &stmts) {
  for (const auto &s : stmts)
    if (containsReturn(*s))
      return true;
  return false;
}

/// Calls `f` on `e` and on every expression nested in it.
void forEachExpr(const A::Expr &e, const std::function<void(const A::Expr &)> &f) {
  f(e);
  for (const auto &a : e.args)
    forEachExpr(*a, f);
  if (e.mask)
    forEachExpr(*e.mask, f);
}

/// Calls `fs` on `s` and every statement nested in it, and `fe` on every
/// expression they hold (initialisers, targets, values, conditions, bounds,
/// invariants).
void forEachInStmt(const A::Stmt &s, const std::function<void(const A::Stmt &)> &fs,
                   const std::function<void(const A::Expr &)> &fe) {
  fs(s);
  if (s.decl && s.decl->init)
    forEachExpr(*s.decl->init, fe);
  for (const A::ExprPtr *e : {&s.target, &s.value, &s.cond, &s.lo, &s.hi, &s.step, &s.list})
    if (*e)
      forEachExpr(**e, fe);
  for (const auto &inv : s.invariants)
    forEachExpr(*inv.cond, fe);
  for (const auto *list : {&s.body, &s.elseBody})
    for (const auto &t : *list)
      forEachInStmt(*t, fs, fe);
}

/// A `while` loop that counts: `while i < hi { ...; i += step; }` (or
/// `i = i + step`, `i <= hi`), or down, `while i > lo { ...; i -= step; }` (or
/// `i = i - step`, `i >= lo`), the update the body's last statement or its
/// first, where `i` is a signed `var` declared earlier in the same block,
/// assigned nowhere else in the loop and not used after it, and the bound and
/// `step` read no `var`, no memory and nothing declared in the loop. Up, it
/// means exactly `for i in i..hi step step { ... }` (`hi + 1` for `<=`): the
/// same values of `i`, the condition and the step evaluated to the same
/// values at every iteration, the same overflow check on the last increment.
/// Down, it is the for loop over `-i`, `for v in -i..-lo step step` (`1 - lo`
/// for `>=`), with `i = -v` inside. MLIRGen emits it as that `kuiper.for`,
/// whose index map the verifier knows (a grid-stride `while` loop's writes, or
/// a reverse scan's `y[r, j]`, then have a writer); `step > 0` is then
/// checked, as for any `for` (a `while` loop stepping by 0 or less never
/// ends).
struct CountingLoop {
  const A::Decl *var;
  const A::Expr *bound; ///< hi (up) or lo (down)
  const A::Expr *step;
  bool down = false;        ///< `i > lo` or `i >= lo`, stepping by -step
  bool inclusive = false;   ///< `<=` or `>=`
  bool updateFirst = false; ///< the update is the body's first statement
};

bool namesDecl(const A::Expr &e, const A::Decl *d) {
  return e.kind == A::ExprKind::Name && e.decl == d;
}

/// Whether `e` has one value throughout a loop that declares `inner`.
bool loopInvariant(const A::Expr &e, const std::set<const A::Decl *> &inner) {
  bool invariant = true;
  forEachExpr(e, [&](const A::Expr &x) {
    switch (x.kind) {
    case A::ExprKind::IntLit:
    case A::ExprKind::BoolLit:
    case A::ExprKind::Builtin:
    case A::ExprKind::Unary:
    case A::ExprKind::Binary:
    case A::ExprKind::Ternary:
    case A::ExprKind::Cast:
      return;
    case A::ExprKind::Name:
      invariant &= x.decl && !inner.count(x.decl) &&
                   (x.decl->kind == A::DeclKind::ScalarParam ||
                    x.decl->kind == A::DeclKind::Let || x.decl->kind == A::DeclKind::Const ||
                    x.decl->kind == A::DeclKind::LoopVar);
      return;
    case A::ExprKind::Call:
      invariant &= !x.callee && !x.mask &&
                   (x.name == "min" || x.name == "max" || x.name == "cdiv" || x.name == "clamp");
      return;
    default:
      invariant = false;
    }
  });
  return invariant;
}

/// The step of `u` if it is `var += step` / `var = var + step` / `var = step
/// + var` (up) or `var -= step` / `var = var - step` (down).
const A::Expr *counterStep(const A::Stmt &u, const A::Decl *var, bool down) {
  if (u.kind != A::StmtKind::Assign || !namesDecl(*u.target, var))
    return nullptr;
  if (u.op == (down ? "-=" : "+="))
    return u.value.get();
  if (u.op != "=" || u.value->kind != A::ExprKind::Binary || u.value->op != (down ? "-" : "+"))
    return nullptr;
  const A::Expr &v = *u.value;
  if (namesDecl(*v.args[0], var))
    return v.args[1].get();
  if (!down && namesDecl(*v.args[1], var))
    return v.args[0].get();
  return nullptr;
}

std::optional<CountingLoop> countingLoop(const std::vector<A::StmtPtr> &stmts, size_t k) {
  const A::Stmt &s = *stmts[k];
  if (s.kind != A::StmtKind::While || s.body.empty() || !s.cond ||
      s.cond->kind != A::ExprKind::Binary ||
      (s.cond->op != "<" && s.cond->op != ">" && s.cond->op != "<=" && s.cond->op != ">="))
    return std::nullopt;
  // `i OP bound`, or `bound OP i` read as `i OP' bound` (`hi > i` is `i < hi`).
  auto isCounter = [](const A::Expr &e) {
    return e.kind == A::ExprKind::Name && e.decl && e.decl->kind == A::DeclKind::Var &&
           e.decl->type.isInt() && e.decl->type.isSigned();
  };
  bool left = isCounter(*s.cond->args[0]);
  if (!left && !isCounter(*s.cond->args[1]))
    return std::nullopt;
  std::string op = s.cond->op;
  if (!left)
    op = op == "<" ? ">" : op == ">" ? "<" : op == "<=" ? ">=" : "<=";
  CountingLoop c;
  c.var = s.cond->args[left ? 0 : 1]->decl;
  c.bound = s.cond->args[left ? 1 : 0].get();
  c.down = op[0] == '>';
  c.inclusive = op.size() == 2;
  // Signed counters only: kuiper.for compares signed (`i < hi` on u32 is an
  // unsigned comparison). A loop that may `return` stays a while loop (the
  // for loop would go on counting after the thread returned).
  if (!(c.bound->type == c.var->type) || containsReturn(s.body))
    return std::nullopt;
  c.step = counterStep(*s.body.back(), c.var, c.down);
  if (!c.step && s.body.size() > 1) {
    c.step = counterStep(*s.body.front(), c.var, c.down);
    c.updateFirst = true;
  }
  if (!c.step || !(c.step->type == c.var->type))
    return std::nullopt;
  std::set<const A::Decl *> inner;
  bool assignedInBody = false;
  size_t update = c.updateFirst ? 0 : s.body.size() - 1;
  for (size_t j = 0; j < s.body.size(); ++j)
    forEachInStmt(
        *s.body[j],
        [&](const A::Stmt &t) {
          if (t.decl)
            inner.insert(t.decl.get());
          if (j != update && t.kind == A::StmtKind::Assign && namesDecl(*t.target, c.var))
            assignedInBody = true;
        },
        [](const A::Expr &) {});
  if (assignedInBody || !loopInvariant(*c.bound, inner) || !loopInvariant(*c.step, inner))
    return std::nullopt;
  bool declaredHere = false;
  for (size_t j = 0; j < k; ++j)
    declaredHere |= stmts[j]->kind == A::StmtKind::Var && stmts[j]->decl.get() == c.var;
  bool usedAfter = false;
  for (size_t j = k + 1; j < stmts.size(); ++j)
    forEachInStmt(
        *stmts[j], [](const A::Stmt &) {},
        [&](const A::Expr &e) { usedAfter |= e.decl == c.var; });
  if (!declaredHere || usedAfter)
    return std::nullopt;
  return c;
}

/// A `while` loop with a compile-time trip count: `var s = C0; ... while s OP K
/// { ...; s = s / 2; }` (the last statement steps `s` by a constant with one
/// of `+ - * / << >>`, compound or not; `s` is a signed var declared in the
/// same block with a constant initialiser, assigned nowhere between its
/// declaration and the loop nor elsewhere in the loop; OP a comparison with a
/// constant K; the loop has no invariants). MLIRGen evaluates the sequence of
/// `s` (at most kMaxUnrolledWhile passes, no overflow, no division by 0, no
/// shift of a negative value) and emits one copy of the body per value, as
/// for `for s in [...]`: a CUDA-style tree reduction `while s > 0 { ...;
/// barrier; s /= 2; }` then has the barriers it executes, in order.
constexpr size_t kMaxUnrolledWhile = 64;

struct UnrolledWhile {
  const A::Decl *var;
  std::vector<int64_t> values; ///< `s` at the start of each pass
  int64_t exit;                ///< `s` after the loop
};

std::optional<int64_t> stepValue(const std::string &op, int64_t v, int64_t c, int bits) {
  __int128 r;
  if (op == "+")
    r = (__int128)v + c;
  else if (op == "-")
    r = (__int128)v - c;
  else if (op == "*")
    r = (__int128)v * c;
  else if (op == "/" && c != 0)
    r = v / c;
  else if (op == ">>" && v >= 0 && c >= 0 && c < bits)
    r = v >> c;
  else if (op == "<<" && v >= 0 && c >= 0 && c < bits)
    r = (__int128)v << c;
  else
    return std::nullopt;
  __int128 lo = -((__int128)1 << (bits - 1)), hi = ((__int128)1 << (bits - 1)) - 1;
  if (r < lo || r > hi)
    return std::nullopt;
  return (int64_t)r;
}

std::optional<UnrolledWhile> unrolledWhile(const std::vector<A::StmtPtr> &stmts, size_t k) {
  const A::Stmt &s = *stmts[k];
  if (s.kind != A::StmtKind::While || s.body.empty() || !s.invariants.empty() || !s.cond ||
      s.cond->kind != A::ExprKind::Binary)
    return std::nullopt;
  std::string cmp = s.cond->op;
  const A::Expr *lhs = s.cond->args[0].get(), *rhs = s.cond->args[1].get();
  if (rhs->kind == A::ExprKind::Name && rhs->decl && rhs->decl->kind == A::DeclKind::Var) {
    std::swap(lhs, rhs);
    cmp = cmp == "<" ? ">" : cmp == ">" ? "<" : cmp == "<=" ? ">=" : cmp == ">=" ? "<=" : cmp;
  }
  if (lhs->kind != A::ExprKind::Name || !lhs->decl || lhs->decl->kind != A::DeclKind::Var ||
      !lhs->decl->type.isInt() || !lhs->decl->type.isSigned() || !rhs->constValue ||
      (cmp != "<" && cmp != "<=" && cmp != ">" && cmp != ">=" && cmp != "!="))
    return std::nullopt;
  const A::Decl *var = lhs->decl;
  int bits = A::bitWidth(var->type.scalar);
  // The update: the body's last statement.
  const A::Stmt &last = *s.body.back();
  if (last.kind != A::StmtKind::Assign || !namesDecl(*last.target, var))
    return std::nullopt;
  std::string op;
  std::optional<int64_t> c;
  if (last.op != "=") {
    op = last.op.substr(0, last.op.size() - 1);
    c = last.value->constValue;
  } else if (last.value->kind == A::ExprKind::Binary && namesDecl(*last.value->args[0], var)) {
    op = last.value->op;
    c = last.value->args[1]->constValue;
  }
  if (!c)
    return std::nullopt;
  // Assigned nowhere else in the loop.
  bool assigned = false;
  auto assigns = [&](const A::Stmt &t) {
    assigned |= t.kind == A::StmtKind::Assign && namesDecl(*t.target, var);
  };
  for (size_t j = 0; j + 1 < s.body.size(); ++j)
    forEachInStmt(*s.body[j], assigns, [](const A::Expr &) {});
  if (assigned)
    return std::nullopt;
  // Declared in this block with a constant, not assigned before the loop.
  std::optional<int64_t> v;
  for (size_t j = 0; j < k; ++j) {
    if (stmts[j]->kind == A::StmtKind::Var && stmts[j]->decl.get() == var) {
      if (!var->init || !var->init->constValue)
        return std::nullopt;
      v = *var->init->constValue;
    } else if (v) {
      forEachInStmt(*stmts[j], assigns, [](const A::Expr &) {});
    }
  }
  if (!v || assigned)
    return std::nullopt;
  int64_t bound = *rhs->constValue;
  auto holds = [&](int64_t x) {
    return cmp == "<" ? x < bound : cmp == "<=" ? x <= bound : cmp == ">" ? x > bound
           : cmp == ">=" ? x >= bound : x != bound;
  };
  UnrolledWhile u{var, {}, 0};
  while (holds(*v)) {
    if (u.values.size() == kMaxUnrolledWhile)
      return std::nullopt;
    u.values.push_back(*v);
    v = stepValue(op, *v, *c, bits);
    if (!v)
      return std::nullopt;
  }
  u.exit = *v;
  return u;
}

/// Whether evaluating `e` may read memory or fault (then `&&`, `||` and `?:`
/// must not evaluate it eagerly).
bool needsShortCircuit(const A::Expr &e) {
  switch (e.kind) {
  case A::ExprKind::Index:
  case A::ExprKind::Call:
    return true;
  case A::ExprKind::Binary:
    if (e.op == "/" || e.op == "%" || e.op == "<<" || e.op == ">>")
      return true;
    // Integer arithmetic that may overflow: `n < 100 ? n + 1 : 0` must not
    // evaluate `n + 1` where n = 2^31 - 1 (an overflow the branch excludes).
    if ((e.op == "+" || e.op == "-" || e.op == "*") && e.type.isInt())
      return true;
    break;
  case A::ExprKind::Unary:
    if (e.op == "-" && e.type.isInt())
      return true;
    break;
  case A::ExprKind::Cast:
    if (e.type.isInt()) // float -> int and narrowing conversions may fault
      return true;
    break;
  default:
    break;
  }
  for (const auto &a : e.args)
    if (a && needsShortCircuit(*a))
      return true;
  return false;
}

class MLIRGenImpl {
public:
  MLIRGenImpl(MLIRContext &ctx, const A::Module &m) : ctx(ctx), b(&ctx), m(m) {}

  OwningOpRef<ModuleOp> gen() {
    module = ModuleOp::create(b.getUnknownLoc());
    for (const auto &k : m.kernels)
      genKernel(*k);
    if (failed(mlir::verify(*module)))
      return nullptr;
    return std::move(module);
  }

private:
  MLIRContext &ctx;
  OpBuilder b;
  const A::Module &m;
  OwningOpRef<ModuleOp> module;

  llvm::DenseMap<const A::Decl *, Value> values; ///< SSA values of names
  llvm::DenseMap<const A::Decl *, Value> slots;  ///< memref<T> of vars
  const A::KernelDecl *kernel = nullptr;
  Block *entry = nullptr;
  Value flag;   ///< memref<i1>: false once the thread (or inlined fn) returned
  Value result; ///< memref<T>: result of the fn being inlined
  bool spec = false;
  unsigned inlineDepth = 0;

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  Location loc(const A::Loc &l) {
    if (!l.file)
      return b.getUnknownLoc();
    return FileLineColLoc::get(&ctx, *l.file, l.line, l.col);
  }

  Type type(A::ScalarKind k) {
    switch (k) {
    case A::ScalarKind::Bool:
      return b.getI1Type();
    case A::ScalarKind::I32:
    case A::ScalarKind::U32:
      return b.getI32Type();
    case A::ScalarKind::I64:
    case A::ScalarKind::U64:
      return b.getI64Type();
    case A::ScalarKind::F16:
      return b.getF16Type();
    case A::ScalarKind::BF16:
      return b.getBF16Type();
    case A::ScalarKind::F32:
      return b.getF32Type();
    case A::ScalarKind::F64:
      return b.getF64Type();
    default:
      return b.getNoneType();
    }
  }
  Type type(const A::Type &t) { return type(t.scalar); }

  Value intConst(Location l, Type t, int64_t v) {
    return arith::ConstantOp::create(b, l, t, b.getIntegerAttr(t, v));
  }
  Value boolConst(Location l, bool v) {
    return arith::ConstantOp::create(b, l, b.getI1Type(), b.getBoolAttr(v));
  }

  arith::IntegerOverflowFlags ovf(const A::Type &t) {
    return t.isSigned() ? arith::IntegerOverflowFlags::nsw
                        : arith::IntegerOverflowFlags::nuw;
  }

  /// A rank-0 memref local, allocated at the top of the kernel body.
  Value newLocal(Location l, Type t) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(entry);
    return memref::AllocaOp::create(b, l, MemRefType::get({}, t));
  }
  Value loadLocal(Location l, Value slot) {
    return memref::LoadOp::create(b, l, slot, ValueRange{});
  }
  void storeLocal(Location l, Value v, Value slot) {
    memref::StoreOp::create(b, l, v, slot, ValueRange{});
  }

  /// Emits `body` into a fresh single-block region whose block takes `args`
  /// and ends with what `body` yields.
  template <typename F>
  void fillRegion(Region &r, Location l, TypeRange args, F body) {
    Block *blk = new Block();
    r.push_back(blk);
    for (Type t : args)
      blk->addArgument(t, l);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(blk);
    SmallVector<Value> ys = body(blk);
    YieldOp::create(b, l, ys);
  }

  /// Emits a spec condition into a clause region.
  void specRegion(Region &r, const A::Expr &e) {
    bool saved = spec;
    spec = true;
    fillRegion(r, loc(e.loc), {}, [&](Block *) { return SmallVector<Value>{expr(e)}; });
    spec = saved;
  }

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  void genKernel(const A::KernelDecl &k) {
    kernel = &k;
    Location l = loc(k.loc);
    SmallVector<Type> argTypes;
    SmallVector<StringRef> names;
    SmallVector<bool> isUnsigned;
    for (const auto &p : k.params) {
      names.push_back(p->name);
      isUnsigned.push_back(p->type.isUnsigned());
      if (p->kind == A::DeclKind::BufferParam) {
        BufferAccess acc = p->access == A::Access::In    ? BufferAccess::In
                           : p->access == A::Access::Out ? BufferAccess::Out
                                                         : BufferAccess::InOut;
        argTypes.push_back(BufferType::get(&ctx, type(p->type), p->type.rank, acc));
      } else {
        argTypes.push_back(type(p->type));
      }
    }
    b.setInsertionPointToEnd(module->getBody());
    auto op = KernelOp::create(b, l, k.name, b.getDenseI64ArrayAttr(k.block),
                               b.getStrArrayAttr(names), k.deterministic,
                               llvm::is_contained(isUnsigned, true)
                                   ? b.getDenseBoolArrayAttr(isUnsigned)
                                   : DenseBoolArrayAttr());
    entry = new Block();
    op.getBody().push_back(entry);
    for (auto [t, p] : llvm::zip(argTypes, k.params))
      values[p.get()] = entry->addArgument(t, loc(p->loc));
    b.setInsertionPointToEnd(entry);

    for (const auto &p : k.params) {
      if (p->kind != A::DeclKind::BufferParam)
        continue;
      SmallVector<Value> dims;
      for (const auto &d : p->dims)
        dims.push_back(expr(*d));
      ShapeOp::create(b, loc(p->loc), values[p.get()], dims);
    }
    SmallVector<Value> grid;
    for (const auto &g : k.gridDims)
      grid.push_back(expr(*g));
    while (grid.size() < 3)
      grid.push_back(intConst(l, b.getI32Type(), 1));
    LaunchOp::create(b, k.gridDims.empty() ? l : loc(k.gridDims.front()->loc), grid);
    for (const auto &r : k.requires_) {
      auto req = RequiresOp::create(b, loc(r.loc));
      specRegion(req.getCond(), *r.cond);
    }
    for (const auto &e : k.ensures) {
      auto ens = EnsuresOp::create(b, loc(e.loc), e.approx);
      specRegion(ens.getCond(), *e.cond);
    }
    genAccess(k.reads, AccessKind::Reads);
    genAccess(k.writes, AccessKind::Writes);

    flag = Value();
    if (containsReturn(k.body)) {
      flag = newLocal(l, b.getI1Type());
      // The thread's own flag (not an inlined fn's): once it is false the
      // thread has ended, which the verifier's loop invariants rely on.
      flag.getDefiningOp()->setAttr("kuiper.thread_running", b.getUnitAttr());
      storeLocal(l, boolConst(l, true), flag);
    }
    block(k.body);
    ReturnOp::create(b, l);
    values.clear();
    slots.clear();
  }

  void genAccess(const std::vector<A::AccessRange> &ranges, AccessKind kind) {
    for (const auto &r : ranges) {
      SmallVector<Value> bounds;
      for (const auto &[lo, hi] : r.ranges) {
        bounds.push_back(expr(*lo));
        bounds.push_back(expr(*hi));
      }
      AccessOp::create(b, loc(r.loc), kind, values[r.decl], bounds);
    }
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  /// Emits a statement list; statements after one that may return run only
  /// while the return flag is still true, and those after an unconditional
  /// return are dead. Each guard nests the rest of the list one level
  /// deeper: Sema's checkExpansion bounds how deep that goes.
  /// (Only stmts[from, end) are emitted.)
  void block(const std::vector<A::StmtPtr> &stmts, size_t from = 0, size_t end = SIZE_MAX) {
    end = std::min(end, stmts.size());
    for (size_t i = from; i < end; ++i) {
      // (A loop that counts down, or up to an inclusive bound, or steps
      // first, is unrolled where its trip count is a constant, as before
      // such loops were counting ones.)
      auto counting = countingLoop(stmts, i);
      std::optional<UnrolledWhile> unrolled;
      if (counting && !counting->down && !counting->inclusive && !counting->updateFirst)
        countingWhile(*stmts[i], *counting);
      else if ((unrolled = unrolledWhile(stmts, i)))
        unrollWhile(*stmts[i], *unrolled);
      else if (counting)
        countingWhile(*stmts[i], *counting);
      else
        stmt(*stmts[i]);
      if (stmts[i]->kind == A::StmtKind::Return)
        return;
      if (flag && containsReturn(*stmts[i]) && i + 1 < end) {
        Location l = loc(stmts[i + 1]->loc);
        auto ifOp = scf::IfOp::create(b, l, TypeRange{}, loadLocal(l, flag), false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(ifOp.getThenRegion().front().getTerminator());
        block(stmts, i + 1, end);
        return;
      }
    }
  }

  /// Emits a loop body (its first `end` statements), skipped entirely once
  /// the thread returned.
  void loopBody(const std::vector<A::StmtPtr> &body, Location l, size_t end = SIZE_MAX) {
    if (flag && containsReturn(body)) {
      auto ifOp = scf::IfOp::create(b, l, TypeRange{}, loadLocal(l, flag), false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(ifOp.getThenRegion().front().getTerminator());
      block(body, 0, end);
      return;
    }
    block(body, 0, end);
  }

  void stmt(const A::Stmt &s) {
    Location l = loc(s.loc);
    switch (s.kind) {
    case A::StmtKind::Let:
      values[s.decl.get()] = expr(*s.decl->init);
      return;
    case A::StmtKind::Var: {
      Value slot = newLocal(l, type(s.decl->type));
      slots[s.decl.get()] = slot;
      if (s.decl->init)
        storeLocal(l, expr(*s.decl->init), slot);
      return;
    }
    case A::StmtKind::Shared: {
      auto t = SharedType::get(&ctx, type(s.decl->type), s.decl->constDims);
      values[s.decl.get()] = SharedAllocOp::create(b, l, t, s.decl->name);
      return;
    }
    case A::StmtKind::Assign:
      assign(s);
      return;
    case A::StmtKind::ExprStmt:
      expr(*s.value);
      return;
    case A::StmtKind::If: {
      Value c = expr(*s.cond);
      auto ifOp = scf::IfOp::create(b, l, TypeRange{}, c, s.hasElse);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(ifOp.getThenRegion().front().getTerminator());
        block(s.body);
      }
      if (s.hasElse) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(ifOp.getElseRegion().front().getTerminator());
        block(s.elseBody);
      }
      return;
    }
    case A::StmtKind::For:
      if (s.list)
        unrolledFor(s);
      else
        rangeFor(s);
      return;
    case A::StmtKind::While:
      whileLoop(s);
      return;
    case A::StmtKind::Barrier: {
      auto bar = BarrierOp::create(b, l, s.approx);
      if (s.cond)
        specRegion(bar.getContract(), *s.cond);
      return;
    }
    case A::StmtKind::Assert: {
      auto op = AssertOp::create(b, l, AssertKind::Assert, false);
      specRegion(op.getCond(), *s.cond);
      return;
    }
    case A::StmtKind::Assume: {
      auto op = AssumeOp::create(b, l);
      specRegion(op.getCond(), *s.cond);
      return;
    }
    case A::StmtKind::Return:
      if (s.value && result)
        storeLocal(l, expr(*s.value), result);
      if (flag)
        storeLocal(l, boolConst(l, false), flag);
      return;
    case A::StmtKind::Block:
      block(s.body);
      return;
    }
  }

  void unrolledFor(const A::Stmt &s) {
    for (const auto &item : s.list->args) {
      Value v = expr(*item);
      values[s.decl.get()] = v;
      loopBody(s.body, loc(s.loc));
    }
  }

  /// The invariants of loop `s`, whose index (if any) is `iv`.
  void invariants(Region &r, Location l, TypeRange args, const A::Stmt &s,
                  const A::Decl *iv, llvm::function_ref<Value(Value)> counter = {}) {
    bool saved = spec;
    spec = true;
    fillRegion(r, l, args, [&](Block *blk) {
      if (!args.empty())
        values[iv] = counter ? counter(blk->getArgument(0)) : blk->getArgument(0);
      // In an inlined fn that may return early, an invariant speaks of the
      // fn while it runs: `(fn returned) || P`, checked and assumed so (a
      // for loop goes on counting with its body skipped after the return,
      // and a linear search's `invariant j <= t` failed there). The
      // kernel's own `return` is the verifier's and executor's to guard.
      bool fnMayReturn = flag && !flag.getDefiningOp()->hasAttr("kuiper.thread_running");
      for (const auto &inv : s.invariants) {
        Location il = loc(inv.loc);
        Value cond = expr(*inv.cond);
        if (fnMayReturn)
          cond = arith::OrIOp::create(
              b, il, arith::XOrIOp::create(b, il, loadLocal(il, flag), boolConst(il, true)), cond);
        InvariantOp::create(b, il, cond, inv.approx);
      }
      return SmallVector<Value>{};
    });
    spec = saved;
  }

  void rangeFor(const A::Stmt &s) {
    Location l = loc(s.loc);
    Type t = type(s.decl->type);
    Value lo = expr(*s.lo), hi = expr(*s.hi);
    Value step = s.step ? expr(*s.step) : intConst(l, t, 1);
    auto op = ForOp::create(b, l, lo, hi, step);
    invariants(op.getInvariants(), l, {t}, s, s.decl.get());
    fillRegion(op.getBody(), l, {t}, [&](Block *blk) {
      values[s.decl.get()] = blk->getArgument(0);
      loopBody(s.body, l);
      return SmallVector<Value>{};
    });
  }

  /// A `while` loop with a compile-time trip count (see unrolledWhile): one
  /// copy of the body (less the update) per value of its counter, which then
  /// holds its value after the loop.
  void unrollWhile(const A::Stmt &s, const UnrolledWhile &u) {
    Location l = loc(s.loc);
    Type t = type(u.var->type);
    for (int64_t v : u.values) {
      values[u.var] = intConst(l, t, v);
      loopBody(s.body, l, s.body.size() - 1);
    }
    values.erase(u.var);
    storeLocal(l, intConst(l, t, u.exit), slots.lookup(u.var));
  }

  /// A counting `while` loop (see countingLoop) as the `for` loop it is: its
  /// counter is the loop's index inside, or its negation for a loop that
  /// counts down (the `var` itself is dead after it).
  void countingWhile(const A::Stmt &s, const CountingLoop &c) {
    Location l = loc(s.loc);
    const A::Type &at = c.var->type;
    Type t = type(at);
    Value init = loadLocal(l, slots.lookup(c.var));
    Value bound = expr(*c.bound), step = expr(*c.step);
    Value zero = intConst(l, t, 0), one = intConst(l, t, 1);
    Value lo = init, hi = c.inclusive ? binary(l, "+", bound, one, at) : bound;
    if (c.down) {
      lo = binary(l, "-", zero, init, at);
      hi = binary(l, "-", c.inclusive ? one : zero, bound, at);
    }
    auto counter = [&](Value v) { return c.down ? binary(l, "-", zero, v, at) : v; };
    auto op = ForOp::create(b, l, lo, hi, step);
    invariants(op.getInvariants(), l, {t}, s, c.var, counter);
    fillRegion(op.getBody(), l, {t}, [&](Block *blk) {
      Value i = counter(blk->getArgument(0));
      if (c.updateFirst) {
        values[c.var] = binary(l, c.down ? "-" : "+", i, step, at);
        block(s.body, 1);
      } else {
        values[c.var] = i;
        block(s.body, 0, s.body.size() - 1);
      }
      return SmallVector<Value>{};
    });
    values.erase(c.var);
  }

  void whileLoop(const A::Stmt &s) {
    Location l = loc(s.loc);
    auto op = WhileOp::create(b, l);
    // A thread that returned in the body leaves the loop: the condition is
    // `alive && cond` (cond not evaluated once the thread returned).
    bool mayReturn = flag && containsReturn(s.body);
    fillRegion(op.getCond(), l, {}, [&](Block *) {
      if (!mayReturn)
        return SmallVector<Value>{expr(*s.cond)};
      auto alive = scf::IfOp::create(b, l, TypeRange{b.getI1Type()}, loadLocal(l, flag), true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&alive.getThenRegion().front());
      scf::YieldOp::create(b, l, expr(*s.cond));
      b.setInsertionPointToStart(&alive.getElseRegion().front());
      scf::YieldOp::create(b, l, boolConst(l, false));
      return SmallVector<Value>{alive.getResult(0)};
    });
    invariants(op.getInvariants(), l, {}, s, nullptr);
    fillRegion(op.getBody(), l, {}, [&](Block *) {
      loopBody(s.body, l);
      return SmallVector<Value>{};
    });
  }

  void assign(const A::Stmt &s) {
    Location l = loc(s.loc);
    const A::Expr &tgt = *s.target;
    std::string op = s.op.substr(0, s.op.size() - 1); // "+=" -> "+", "=" -> ""
    if (tgt.kind == A::ExprKind::Name) {
      Value slot = slots.lookup(tgt.decl);
      Value v = expr(*s.value);
      if (!op.empty())
        v = binary(l, op, loadLocal(l, slot), v, tgt.type);
      storeLocal(l, v, slot);
      return;
    }
    Value mem = values.lookup(tgt.decl);
    SmallVector<Value> idx;
    for (const auto &a : tgt.args)
      idx.push_back(expr(*a));
    Value v;
    if (op.empty()) {
      v = expr(*s.value);
    } else {
      Value cur = LoadOp::create(b, l, type(tgt.type), mem, idx);
      v = binary(l, op, cur, expr(*s.value), tgt.type);
    }
    StoreOp::create(b, l, v, mem, idx);
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  Value expr(const A::Expr &e) {
    Location l = loc(e.loc);
    if (e.constValue && e.type.isInt())
      return intConst(l, type(e.type), *e.constValue);
    switch (e.kind) {
    case A::ExprKind::IntLit:
      return intConst(l, type(e.type), e.intValue);
    case A::ExprKind::BoolLit:
      return boolConst(l, e.intValue != 0);
    case A::ExprKind::FloatLit: {
      auto ft = cast<FloatType>(type(e.type));
      APFloat f(e.floatValue);
      bool lost;
      f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      return arith::ConstantOp::create(b, l, ft, b.getFloatAttr(ft, f));
    }
    case A::ExprKind::Name:
      return name(e, l);
    case A::ExprKind::Builtin:
      return builtin(e, l);
    case A::ExprKind::Unary:
      return unary(e, l);
    case A::ExprKind::Binary:
      return binaryExpr(e, l);
    case A::ExprKind::Ternary:
      return ternary(e, l);
    case A::ExprKind::Cast:
      return castTo(l, expr(*e.args[0]), e.args[0]->type, e.type);
    case A::ExprKind::Index: {
      SmallVector<Value> idx;
      for (const auto &a : e.args)
        idx.push_back(expr(*a));
      return LoadOp::create(b, l, type(e.type), values.lookup(e.decl), idx);
    }
    case A::ExprKind::Call:
      return call(e, l);
    case A::ExprKind::Quant:
      return quant(e, l);
    case A::ExprKind::Sum:
      return sum(e, l);
    case A::ExprKind::Old: {
      auto op = OldOp::create(b, l, type(e.type));
      fillRegion(op.getBody(), l, {}, [&](Block *) { return SmallVector<Value>{expr(*e.args[0])}; });
      return op;
    }
    case A::ExprKind::List:
      break;
    }
    emitError(l, "internal: unexpected expression");
    return intConst(l, b.getI32Type(), 0);
  }

  Value name(const A::Expr &e, Location l) {
    const A::Decl *d = e.decl;
    if (d->kind == A::DeclKind::Var) {
      if (Value counter = values.lookup(d)) // in a counting while loop
        return counter;
      return loadLocal(l, slots.lookup(d));
    }
    if (d->kind == A::DeclKind::Const) {
      if (d->constValue && d->type.isInt())
        return intConst(l, type(d->type), *d->constValue);
      if (d->constValue && d->type.isBool())
        return boolConst(l, *d->constValue != 0);
      return expr(*d->init);
    }
    return values.lookup(d);
  }

  Value builtin(const A::Expr &e, Location l) {
    if (e.name == "laneid")
      return LaneIdOp::create(b, l, b.getI32Type());
    if (e.name == "warpid")
      return WarpIdOp::create(b, l, b.getI32Type());
    int64_t dim = e.member == "x" ? 0 : e.member == "y" ? 1 : 2;
    if (e.name == "threadIdx")
      return ThreadIdOp::create(b, l, b.getI32Type(), dim);
    if (e.name == "blockIdx")
      return BlockIdOp::create(b, l, b.getI32Type(), dim);
    if (e.name == "gridDim")
      return GridDimOp::create(b, l, b.getI32Type(), dim);
    return intConst(l, b.getI32Type(), kernel->block[dim]);
  }

  Value unary(const A::Expr &e, Location l) {
    Value v = expr(*e.args[0]);
    const A::Type &t = e.args[0]->type;
    if (e.op == "-") {
      if (t.isFloat())
        return arith::NegFOp::create(b, l, v);
      return arith::SubIOp::create(b, l, intConst(l, v.getType(), 0), v, ovf(t));
    }
    if (e.op == "!")
      return arith::XOrIOp::create(b, l, v, boolConst(l, true));
    return arith::XOrIOp::create(b, l, v, intConst(l, v.getType(), -1));
  }

  Value binaryExpr(const A::Expr &e, Location l) {
    const std::string &op = e.op;
    if (op == "&&" || op == "||") {
      Value lhs = expr(*e.args[0]);
      if (spec || !needsShortCircuit(*e.args[1])) {
        Value rhs = expr(*e.args[1]);
        return op == "&&" ? Value(arith::AndIOp::create(b, l, lhs, rhs))
                          : Value(arith::OrIOp::create(b, l, lhs, rhs));
      }
      auto ifOp = scf::IfOp::create(b, l, TypeRange{b.getI1Type()}, lhs, true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(b, l, op == "&&" ? expr(*e.args[1]) : boolConst(l, true));
      b.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(b, l, op == "&&" ? boolConst(l, false) : expr(*e.args[1]));
      return ifOp.getResult(0);
    }
    Value lhs = expr(*e.args[0]);
    Value rhs = expr(*e.args[1]);
    if (op == "==>")
      return arith::OrIOp::create(b, l, arith::XOrIOp::create(b, l, lhs, boolConst(l, true)), rhs);
    return binary(l, op, lhs, rhs, e.args[0]->type);
  }

  /// A binary operator on two values of AST type `t`.
  Value binary(Location l, StringRef op, Value x, Value y, const A::Type &t) {
    if (t.isFloat()) {
      if (op == "+") return arith::AddFOp::create(b, l, x, y);
      if (op == "-") return arith::SubFOp::create(b, l, x, y);
      if (op == "*") return arith::MulFOp::create(b, l, x, y);
      if (op == "/") return arith::DivFOp::create(b, l, x, y);
      if (op == "%") return arith::RemFOp::create(b, l, x, y);
      if (op == "==" && spec) {
        // In specs NaN equals NaN (docs/language.md §5). The comparison is
        // marked as a spec's equality: an `fn` body inlined into a clause is
        // code, and its `==` stays IEEE's (a NaN equals nothing).
        auto eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, x, y);
        eq->setAttr("kuiper.nan_equal", b.getUnitAttr());
        Value xn = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
        Value yn = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, y, y);
        return arith::OrIOp::create(b, l, eq, arith::AndIOp::create(b, l, xn, yn));
      }
      if (op == "!=" && spec) {
        Value eq = binary(l, "==", x, y, t);
        return arith::XOrIOp::create(b, l, eq, boolConst(l, true));
      }
      auto p = llvm::StringSwitch<arith::CmpFPredicate>(op)
                   .Case("==", arith::CmpFPredicate::OEQ)
                   .Case("!=", arith::CmpFPredicate::UNE)
                   .Case("<", arith::CmpFPredicate::OLT)
                   .Case("<=", arith::CmpFPredicate::OLE)
                   .Case(">", arith::CmpFPredicate::OGT)
                   .Default(arith::CmpFPredicate::OGE);
      return arith::CmpFOp::create(b, l, p, x, y);
    }
    bool sgn = t.isSigned();
    if (op == "+") return arith::AddIOp::create(b, l, x, y, ovf(t));
    if (op == "-") return arith::SubIOp::create(b, l, x, y, ovf(t));
    if (op == "*") return arith::MulIOp::create(b, l, x, y, ovf(t));
    if (op == "/") return sgn ? Value(arith::DivSIOp::create(b, l, x, y)) : Value(arith::DivUIOp::create(b, l, x, y));
    if (op == "%") return sgn ? Value(arith::RemSIOp::create(b, l, x, y)) : Value(arith::RemUIOp::create(b, l, x, y));
    if (op == "<<") return arith::ShLIOp::create(b, l, x, y, ovf(t));
    if (op == ">>") return sgn ? Value(arith::ShRSIOp::create(b, l, x, y)) : Value(arith::ShRUIOp::create(b, l, x, y));
    if (op == "&") return arith::AndIOp::create(b, l, x, y);
    if (op == "|") return arith::OrIOp::create(b, l, x, y);
    if (op == "^") return arith::XOrIOp::create(b, l, x, y);
    using P = arith::CmpIPredicate;
    P p = llvm::StringSwitch<P>(op)
              .Case("==", P::eq)
              .Case("!=", P::ne)
              .Case("<", sgn ? P::slt : P::ult)
              .Case("<=", sgn ? P::sle : P::ule)
              .Case(">", sgn ? P::sgt : P::ugt)
              .Default(sgn ? P::sge : P::uge);
    return arith::CmpIOp::create(b, l, p, x, y);
  }

  Value ternary(const A::Expr &e, Location l) {
    Value c = expr(*e.args[0]);
    if (spec || (!needsShortCircuit(*e.args[1]) && !needsShortCircuit(*e.args[2])))
      return arith::SelectOp::create(b, l, c, expr(*e.args[1]), expr(*e.args[2]));
    auto ifOp = scf::IfOp::create(b, l, TypeRange{type(e.type)}, c, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(b, l, expr(*e.args[1]));
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    scf::YieldOp::create(b, l, expr(*e.args[2]));
    return ifOp.getResult(0);
  }

  Value castTo(Location l, Value v, const A::Type &from, const A::Type &to) {
    Type t = type(to);
    if (from == to)
      return v;
    if (from.isBool()) {
      if (to.isFloat())
        return arith::UIToFPOp::create(b, l, t, v);
      return arith::ExtUIOp::create(b, l, t, v);
    }
    if (to.isBool()) {
      if (from.isFloat())
        return arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNE, v,
                                     arith::ConstantOp::create(b, l, v.getType(), b.getFloatAttr(v.getType(), 0.0)));
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v, intConst(l, v.getType(), 0));
    }
    // To bf16 from an integer or an f64: through f32, two roundings, as the
    // GPU does before sm_90 (no cvt from an integer to bf16: cvt.rn.f32.s32,
    // then cvt.rn.bf16.f32; and LLVM turns an exact int -> f64 -> bf16 into
    // that). One meaning on every target, in the proof, the executor and PTX.
    if (to.scalar == A::ScalarKind::BF16 &&
        (from.isInt() || from.scalar == A::ScalarKind::F64)) {
      A::Type f32 = to;
      f32.scalar = A::ScalarKind::F32;
      // (The rounding mode named: arith's canonicalizer folds a truncf of a
      // sitofp without one into one sitofp, a single rounding again.)
      return arith::TruncFOp::create(
          b, l, t, castTo(l, v, from, f32),
          arith::RoundingModeAttr::get(&ctx, arith::RoundingMode::to_nearest_even),
          arith::FastMathFlagsAttr());
    }
    unsigned fw = v.getType().getIntOrFloatBitWidth(), tw = t.getIntOrFloatBitWidth();
    if (from.isInt() && to.isInt()) {
      if (fw == tw)
        return v;
      if (tw < fw)
        return arith::TruncIOp::create(b, l, t, v);
      return from.isSigned() ? Value(arith::ExtSIOp::create(b, l, t, v))
                             : Value(arith::ExtUIOp::create(b, l, t, v));
    }
    if (from.isInt())
      return from.isSigned() ? Value(arith::SIToFPOp::create(b, l, t, v))
                             : Value(arith::UIToFPOp::create(b, l, t, v));
    if (to.isInt())
      return to.isSigned() ? Value(arith::FPToSIOp::create(b, l, t, v))
                           : Value(arith::FPToUIOp::create(b, l, t, v));
    if (v.getType() == t)
      return v;
    if (tw == fw) // f16 <-> bf16: exact in f32, then rounded once
      return arith::TruncFOp::create(b, l, t, arith::ExtFOp::create(b, l, b.getF32Type(), v));
    if (tw > fw)
      return arith::ExtFOp::create(b, l, t, v);
    return arith::TruncFOp::create(b, l, t, v);
  }

  Value maskOf(const A::Expr &e) {
    if (!e.mask)
      return Value();
    return expr(*e.mask);
  }

  Value call(const A::Expr &e, Location l) {
    if (e.callee)
      return inlineCall(e, l);
    const std::string &f = e.name;
    auto arg = [&](unsigned i) { return expr(*e.args[i]); };
    const A::Type &t0 = e.args.empty() ? e.type : e.args[0]->type;
    if (f == "exp") return math::ExpOp::create(b, l, arg(0));
    if (f == "log") return math::LogOp::create(b, l, arg(0));
    if (f == "sqrt") return math::SqrtOp::create(b, l, arg(0));
    if (f == "rsqrt") return math::RsqrtOp::create(b, l, arg(0));
    if (f == "tanh") return math::TanhOp::create(b, l, arg(0));
    if (f == "erf") return math::ErfOp::create(b, l, arg(0));
    if (f == "fabs") return math::AbsFOp::create(b, l, arg(0));
    if (f == "floor") return math::FloorOp::create(b, l, arg(0));
    if (f == "ceil") return math::CeilOp::create(b, l, arg(0));
    if (f == "fmaximum")
      return arith::MaximumFOp::create(b, l, arg(0), arg(1));
    if (f == "fminimum")
      return arith::MinimumFOp::create(b, l, arg(0), arg(1));
    if (f == "fmin" || (f == "min" && t0.isFloat()))
      return arith::MinNumFOp::create(b, l, arg(0), arg(1));
    if (f == "fmax" || (f == "max" && t0.isFloat()))
      return arith::MaxNumFOp::create(b, l, arg(0), arg(1));
    if (f == "min")
      return t0.isSigned() ? Value(arith::MinSIOp::create(b, l, arg(0), arg(1)))
                           : Value(arith::MinUIOp::create(b, l, arg(0), arg(1)));
    if (f == "max")
      return t0.isSigned() ? Value(arith::MaxSIOp::create(b, l, arg(0), arg(1)))
                           : Value(arith::MaxUIOp::create(b, l, arg(0), arg(1)));
    if (f == "clamp") {
      Value x = arg(0), lo = arg(1), hi = arg(2);
      if (t0.isFloat())
        return arith::MinNumFOp::create(b, l, arith::MaxNumFOp::create(b, l, x, lo), hi);
      if (t0.isSigned())
        return arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, x, lo), hi);
      return arith::MinUIOp::create(b, l, arith::MaxUIOp::create(b, l, x, lo), hi);
    }
    if (f == "cdiv") {
      Value x = arg(0), y = arg(1);
      Value q = binary(l, "/", x, y, t0), r = binary(l, "%", x, y, t0);
      Value pos = binary(l, ">", r, intConst(l, x.getType(), 0), t0);
      Value one = arith::ExtUIOp::create(b, l, x.getType(), pos);
      return binary(l, "+", q, one, t0);
    }
    if (f == "shfl_down" || f == "shfl_up" || f == "shfl_xor" || f == "shfl_idx") {
      Value v = arg(0), d = arg(1);
      ShuffleMode mode = *symbolizeShuffleMode(f.substr(5));
      return ShuffleOp::create(b, l, v.getType(), mode, v, d, maskOf(e));
    }
    if (f == "ballot" || f == "any" || f == "all") {
      Type rt = f == "ballot" ? b.getI32Type() : b.getI1Type();
      return VoteOp::create(b, l, rt, *symbolizeVoteMode(f), arg(0), maskOf(e));
    }
    if (f == "syncwarp") {
      SyncWarpOp::create(b, l, maskOf(e));
      return Value();
    }
    if (f.rfind("atomic_", 0) == 0) {
      const A::Expr &ref = *e.args[0];
      SmallVector<Value> idx, vals;
      for (const auto &a : ref.args)
        idx.push_back(expr(*a));
      for (size_t i = 1; i < e.args.size(); ++i)
        vals.push_back(arg(i));
      std::optional<AtomicKind> kind = symbolizeAtomicKind(f.substr(7));
      // u32/u64 elements compare unsigned (atom.max.u32, CUDA's atomicMax).
      if (kind && ref.decl && ref.decl->type.isUnsigned() &&
          (*kind == AtomicKind::Max || *kind == AtomicKind::Min))
        kind = *kind == AtomicKind::Max ? AtomicKind::UMax : AtomicKind::UMin;
      if (!kind) {
        emitError(l, "internal: unknown atomic '" + f + "'");
        return intConst(l, b.getI32Type(), 0);
      }
      return AtomicOp::create(b, l, type(e.type), *kind,
                              values.lookup(ref.decl), idx, vals);
    }
    emitError(l, "internal: unknown builtin '" + f + "'");
    return intConst(l, b.getI32Type(), 0);
  }

  /// Inlines a call of a user fn: its requires become precondition asserts,
  /// its ensures postcondition asserts.
  Value inlineCall(const A::Expr &e, Location l) {
    const A::FnDecl &fn = *e.callee;
    SmallVector<Value> args;
    for (const auto &a : e.args)
      args.push_back(expr(*a));
    for (auto [p, v] : llvm::zip(fn.params, args))
      values[p.get()] = v;
    for (const auto &r : fn.requires_) {
      auto op = AssertOp::create(b, loc(e.loc), AssertKind::Precondition, false);
      specRegion(op.getCond(), *r.cond);
    }
    Value savedFlag = flag, savedResult = result;
    llvm::scope_exit restore([&] {
      flag = savedFlag;
      result = savedResult;
    });
    // The body is code wherever it is called: its comparisons mean what
    // they mean in a kernel, in a clause too (`a == a` is false for a NaN).
    bool savedSpec = spec;
    llvm::scope_exit restoreSpec([&] { spec = savedSpec; });
    spec = false;
    bool returns = fn.result.scalar != A::ScalarKind::Void;
    result = returns ? newLocal(l, type(fn.result)) : Value();
    flag = Value();
    bool early = false;
    for (size_t i = 0; i + 1 < fn.body.size(); ++i)
      early |= containsReturn(*fn.body[i]);
    if (!fn.body.empty() && fn.body.back()->kind != A::StmtKind::Return &&
        containsReturn(*fn.body.back()))
      early = true;
    if (early) {
      flag = newLocal(l, b.getI1Type());
      storeLocal(l, boolConst(l, true), flag);
    }
    block(fn.body);
    Value r = returns ? loadLocal(l, result) : Value();
    if (fn.resultDecl && r)
      values[fn.resultDecl.get()] = r;
    for (const auto &en : fn.ensures) {
      auto op = AssertOp::create(b, loc(en.loc), AssertKind::Postcondition, en.approx);
      specRegion(op.getCond(), *en.cond);
    }
    return r;
  }

  Value quant(const A::Expr &e, Location l) {
    Value lo = expr(*e.args[0]), hi = expr(*e.args[1]);
    // A u32 range is unsigned: the quantifier runs over its bounds
    // zero-extended to i64, and the body reads the bound variable in u32's
    // encoding (its bits read signed: from 2^31 on, the value - 2^32), as
    // select and compare so that every layer reads it alike.
    bool unsignedRange = e.binderDecl->type.scalar == A::ScalarKind::U32;
    Type rangeType = lo.getType();
    if (unsignedRange) {
      lo = arith::ExtUIOp::create(b, l, b.getI64Type(), lo);
      hi = arith::ExtUIOp::create(b, l, b.getI64Type(), hi);
    }
    auto fill = [&](Region &r) {
      fillRegion(r, l, {lo.getType()}, [&](Block *blk) {
        Value i = blk->getArgument(0);
        if (unsignedRange) {
          Value high = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                             intConst(l, b.getI64Type(), 1LL << 31));
          Value encoded = arith::SelectOp::create(
              b, l, high, arith::SubIOp::create(b, l, i, intConst(l, b.getI64Type(), 1LL << 32)),
              i);
          i = arith::TruncIOp::create(b, l, rangeType, encoded);
        }
        values[e.binderDecl] = i;
        return SmallVector<Value>{expr(*e.args[2])};
      });
    };
    Operation *op;
    if (e.name == "forall") {
      auto q = ForallOp::create(b, l, b.getI1Type(), lo, hi);
      fill(q.getBody());
      op = q;
    } else {
      auto q = ExistsOp::create(b, l, b.getI1Type(), lo, hi);
      fill(q.getBody());
      op = q;
    }
    op->setAttr("binder", b.getStringAttr(e.binder));
    return op->getResult(0);
  }

  Value sum(const A::Expr &e, Location l) {
    Value lo = expr(*e.args[0]), hi = expr(*e.args[1]);
    Value step = e.args.size() > 3 ? expr(*e.args[3]) : intConst(l, lo.getType(), 1);
    if (e.name != "sum") {
      ReduceKind kind = *symbolizeReduceKind(e.name);
      // u32 terms compare unsigned: the fold runs over them zero-extended to
      // i64, where the signed order is theirs (and an empty max/min, i64's
      // smallest/largest, truncates to 0 / 2^32 - 1, u32's).
      bool unsignedTerms = e.args[2]->type.scalar == A::ScalarKind::U32 && e.name != "prod";
      bool arg = e.name == "argmax" || e.name == "argmin";
      Type resultType = unsignedTerms && !arg ? Type(b.getI64Type()) : type(e.type);
      auto op = ReduceOp::create(b, l, resultType, kind, lo, hi, step);
      op->setAttr("binder", b.getStringAttr(e.binder));
      fillRegion(op.getBody(), l, {lo.getType()}, [&](Block *blk) {
        values[e.binderDecl] = blk->getArgument(0);
        Value term = expr(*e.args[2]);
        if (unsignedTerms)
          term = arith::ExtUIOp::create(b, l, b.getI64Type(), term);
        return SmallVector<Value>{term};
      });
      if (unsignedTerms && !arg) {
        // Back to u32's encoding (its bits read signed), as select and
        // compare so that every layer reads it alike: an empty max is 0, an
        // empty min 2^32 - 1; a value from 2^31 on is the value - 2^32.
        auto i64 = [&](int64_t v) { return intConst(l, b.getI64Type(), v); };
        Value m = op.getResult();
        Value inRange =
            kind == ReduceKind::Max
                ? arith::SelectOp::create(
                      b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, m, i64(0)),
                      i64(0), m)
                : arith::SelectOp::create(
                      b, l,
                      arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, m, i64(0xffffffffLL)),
                      i64(0xffffffffLL), m);
        Value high =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, inRange, i64(1LL << 31));
        Value encoded = arith::SelectOp::create(
            b, l, high, arith::SubIOp::create(b, l, inRange, i64(1LL << 32)), inRange);
        return arith::TruncIOp::create(b, l, type(e.type), encoded);
      }
      return op;
    }
    auto op = SumOp::create(b, l, type(e.type), lo, hi, step);
    op->setAttr("binder", b.getStringAttr(e.binder));
    fillRegion(op.getBody(), l, {lo.getType()}, [&](Block *blk) {
      values[e.binderDecl] = blk->getArgument(0);
      return SmallVector<Value>{expr(*e.args[2])};
    });
    return op;
  }
};

} // namespace

OwningOpRef<ModuleOp> kuiper::mlirGen(MLIRContext &ctx, const A::Module &m) {
  ctx.loadDialect<KuiperDialect, arith::ArithDialect, scf::SCFDialect,
                  memref::MemRefDialect, math::MathDialect>();
  return MLIRGenImpl(ctx, m).gen();
}
