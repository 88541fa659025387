//===- Expansion.cpp - Size and nesting of kernels after expansion --------===//
//
// Code generation inlines every call of a user fn, unrolls every `for` over a
// list, substitutes non-integer constants by their initializers, and nests the
// statements that follow a possible `return` inside a region guarded by the
// thread's return flag. A short source can therefore expand exponentially
// (`fn f1(x) { return f0(x) + f0(x); }` doubled thirty times), and a long
// flat one into thousands of nested regions, which overflow the stack of
// every recursive pass downstream. This analysis bounds both, so that such
// inputs get a diagnostic instead of a hang or a crash.
//
// The figures are upper bounds that follow MLIRGen's rules: `ops` counts AST
// nodes after expansion (a proxy for emitted operations), `depth` the levels
// MLIRGen recurses through (AST nesting through inlined fns and substituted
// constants, plus one per return guard), which also bounds the nesting of
// the emitted regions. Both saturate instead of overflowing.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Sema.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace kuiper {

using namespace ast;

namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max() / 4;

uint64_t addSat(uint64_t a, uint64_t b) { return std::min(a + b, kSaturated); }
uint64_t mulSat(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > kSaturated / b)
    return kSaturated;
  return a * b;
}

/// Expanded size and region depth of a piece of code.
struct Cost {
  uint64_t ops = 0;
  uint64_t depth = 0;

  void seq(const Cost &o) {
    ops = addSat(ops, o.ops);
    depth = std::max(depth, o.depth);
  }
  /// `o` placed inside `levels` more regions.
  void nested(const Cost &o, uint64_t levels) {
    ops = addSat(ops, o.ops);
    depth = std::max(depth, addSat(o.depth, levels));
  }
};

/// Whether a statement may execute a `return` (MLIRGen's containsReturn).
bool mayReturn(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Return:
    return true;
  case StmtKind::If:
    for (const auto &t : s.elseBody)
      if (t && mayReturn(*t))
        return true;
    [[fallthrough]];
  case StmtKind::For:
  case StmtKind::While:
  case StmtKind::Block:
    for (const auto &t : s.body)
      if (t && mayReturn(*t))
        return true;
    return false;
  default:
    return false;
  }
}

bool mayReturn(const std::vector<StmtPtr> &body) {
  for (const auto &s : body)
    if (s && mayReturn(*s))
      return true;
  return false;
}

class ExpansionChecker {
public:
  ExpansionChecker(const Module &m, DiagnosticEngine &diags,
                   const ExpansionLimits &limits)
      : m(m), diags(diags), limits(limits) {}

  bool run() {
    // Constants first, in order (each uses only earlier ones, and no fn),
    // so that a long chain of them is measured without deep recursion.
    for (const auto &c : m.consts)
      if (c->init)
        constInit(*c);
    if (!measureFns())
      return true; // A call cycle: Sema has reported it.
    bool ok = true;
    for (const auto &k : m.kernels)
      ok &= checkKernel(*k);
    return ok;
  }

private:
  const Module &m;
  DiagnosticEngine &diags;
  const ExpansionLimits &limits;
  std::unordered_map<const FnDecl *, Cost> fnCost;
  std::unordered_map<const Decl *, Cost> constCost;

  /// Where the running total of the kernel being checked first went over
  /// a limit (only set while walking a kernel's own code).
  const Loc *tooLargeAt = nullptr;
  const Loc *tooDeepAt = nullptr;
  bool inKernel = false;

  /// Measures every fn, callees first, without recursing along call chains
  /// (a chain of ten thousand fns must not overflow the stack here either).
  bool measureFns() {
    std::unordered_map<const FnDecl *, std::vector<const FnDecl *>> callees;
    for (const auto &f : m.fns) {
      std::vector<const FnDecl *> &out = callees[f.get()];
      for (const auto &s : f->body)
        collectCallees(*s, out);
      for (const auto &c : f->requires_)
        collectCallees(*c.cond, out);
      for (const auto &c : f->ensures)
        collectCallees(*c.cond, out);
    }
    enum class State { New, Open, Done };
    std::unordered_map<const FnDecl *, State> state;
    for (const auto &root : m.fns) {
      if (state[root.get()] != State::New)
        continue;
      std::vector<std::pair<const FnDecl *, size_t>> work{{root.get(), 0}};
      state[root.get()] = State::Open;
      while (!work.empty()) {
        auto &[f, next] = work.back();
        const std::vector<const FnDecl *> &out = callees[f];
        if (next < out.size()) {
          const FnDecl *c = out[next++];
          State &st = state[c];
          if (st == State::Open)
            return false;
          if (st == State::New) {
            st = State::Open;
            work.push_back({c, 0});
          }
          continue;
        }
        fnCost[f] = callableCost(*f);
        state[f] = State::Done;
        work.pop_back();
      }
    }
    return true;
  }

  void collectCallees(const Expr &e, std::vector<const FnDecl *> &out) {
    if (e.kind == ExprKind::Call && e.callee)
      out.push_back(e.callee);
    for (const auto &a : e.args)
      if (a)
        collectCallees(*a, out);
    if (e.mask)
      collectCallees(*e.mask, out);
  }

  void collectCallees(const Stmt &s, std::vector<const FnDecl *> &out) {
    for (const Expr *e : {s.target.get(), s.value.get(), s.cond.get(),
                          s.lo.get(), s.hi.get(), s.step.get(), s.list.get()})
      if (e)
        collectCallees(*e, out);
    if (s.decl && s.decl->init)
      collectCallees(*s.decl->init, out);
    for (const auto &inv : s.invariants)
      collectCallees(*inv.cond, out);
    for (const auto &t : s.body)
      collectCallees(*t, out);
    for (const auto &t : s.elseBody)
      collectCallees(*t, out);
  }

  Cost callableCost(const Callable &c) {
    Cost total;
    for (const auto &r : c.requires_)
      total.nested(expr(*r.cond), 1);
    for (const auto &e : c.ensures)
      total.nested(expr(*e.cond), 1);
    total.seq(block(c.body, 0));
    return total;
  }

  bool checkKernel(const KernelDecl &k) {
    tooLargeAt = tooDeepAt = nullptr;
    inKernel = true;
    Cost c;
    for (const auto &p : k.params)
      for (const auto &d : p->dims)
        c.seq(expr(*d));
    for (const auto &g : k.gridDims)
      c.seq(expr(*g));
    for (const auto &r : k.reads)
      for (const auto &[lo, hi] : r.ranges)
        c.seq(expr(*lo)), c.seq(expr(*hi));
    for (const auto &r : k.writes)
      for (const auto &[lo, hi] : r.ranges)
        c.seq(expr(*lo)), c.seq(expr(*hi));
    c.seq(callableCost(k));
    inKernel = false;
    bool ok = true;
    if (c.ops > limits.maxOps) {
      diags.error(tooLargeAt ? *tooLargeAt : k.loc,
                  "kernel '" + k.name +
                      "' is too large: with fn calls inlined, constants "
                      "substituted and 'for' lists unrolled, it has more than " +
                      std::to_string(limits.maxOps) + " operations");
      ok = false;
    }
    if (c.depth > limits.maxDepth) {
      diags.error(tooDeepAt ? *tooDeepAt : k.loc,
                  "kernel '" + k.name +
                      "' nests too deeply: with fn calls inlined, constants "
                      "substituted and the code after each 'return' guarded, "
                      "it is more than " +
                      std::to_string(limits.maxDepth) + " levels deep");
      ok = false;
    }
    return ok;
  }

  /// Notes `at` as the culprit when `c`, `levels` regions deep and after
  /// `before` operations, first crosses a limit of the kernel being checked.
  void noteLimits(const Cost &c, uint64_t levels, uint64_t before,
                  const Loc &at) {
    if (!inKernel)
      return;
    if (!tooLargeAt && addSat(before, c.ops) > limits.maxOps)
      tooLargeAt = &at;
    if (!tooDeepAt && addSat(c.depth, levels) > limits.maxDepth)
      tooDeepAt = &at;
  }

  /// A statement list emitted `levels` regions below its callable's body.
  Cost block(const std::vector<StmtPtr> &body, uint64_t levels) {
    Cost total;
    uint64_t guards = 0;
    for (const auto &s : body) {
      if (!s)
        continue;
      Cost c = stmt(*s, addSat(levels, guards));
      noteLimits(c, addSat(levels, guards), total.ops, s->loc);
      total.nested(c, guards);
      if (s->kind == StmtKind::Return)
        break; // MLIRGen emits nothing after an unconditional return.
      if (mayReturn(*s))
        ++guards;
    }
    return total;
  }

  Cost stmt(const Stmt &s, uint64_t levels) {
    Cost c = stmtInner(s, levels);
    c.depth = addSat(c.depth, 1);
    return c;
  }

  Cost stmtInner(const Stmt &s, uint64_t levels) {
    Cost c;
    c.ops = 1;
    switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Var:
      if (s.decl->init)
        c.seq(expr(*s.decl->init));
      return c;
    case StmtKind::Shared:
      return c;
    case StmtKind::Assign:
      c.seq(expr(*s.target));
      c.seq(expr(*s.value));
      return c;
    case StmtKind::ExprStmt:
    case StmtKind::Return:
      if (s.value)
        c.seq(expr(*s.value));
      return c;
    case StmtKind::Barrier:
    case StmtKind::Assert:
    case StmtKind::Assume:
      if (s.cond)
        c.nested(expr(*s.cond), 1);
      return c;
    case StmtKind::Block:
      c.seq(block(s.body, levels));
      return c;
    case StmtKind::If:
      c.seq(expr(*s.cond));
      c.nested(block(s.body, addSat(levels, 1)), 1);
      c.nested(block(s.elseBody, addSat(levels, 1)), 1);
      return c;
    case StmtKind::While: {
      c.nested(expr(*s.cond), 1);
      for (const auto &inv : s.invariants)
        c.nested(expr(*inv.cond), 1);
      uint64_t inner = mayReturn(s.body) ? 2 : 1;
      c.nested(block(s.body, addSat(levels, inner)), inner);
      return c;
    }
    case StmtKind::For: {
      uint64_t copies = 1, inner = mayReturn(s.body) ? 1 : 0;
      if (s.list) {
        copies = s.list->args.size();
        for (const auto &v : s.list->args)
          c.seq(expr(*v));
      } else {
        c.seq(expr(*s.lo));
        c.seq(expr(*s.hi));
        if (s.step)
          c.seq(expr(*s.step));
        ++inner;
      }
      for (const auto &inv : s.invariants)
        c.nested(expr(*inv.cond), 1);
      Cost body = block(s.body, addSat(levels, inner));
      body.ops = mulSat(body.ops, copies);
      c.nested(body, inner);
      return c;
    }
    }
    return c;
  }

  Cost expr(const Expr &e) {
    Cost c;
    c.ops = 1;
    for (const auto &a : e.args)
      if (a)
        c.seq(expr(*a));
    if (e.mask)
      c.seq(expr(*e.mask));
    if (e.kind == ExprKind::Name && e.decl &&
        e.decl->kind == DeclKind::Const && e.decl->init &&
        !(e.decl->constValue &&
          (e.decl->type.isInt() || e.decl->type.isBool())))
      c.seq(constInit(*e.decl));
    if (e.kind == ExprKind::Call && e.callee) {
      auto it = fnCost.find(e.callee);
      if (it != fnCost.end())
        c.seq(it->second);
    }
    c.depth = addSat(c.depth, 1);
    return c;
  }

  /// A constant's initializer is re-emitted at every use, and may itself
  /// use constants: memoized so that a chain of them is measured once.
  Cost constInit(const Decl &d) {
    auto it = constCost.find(&d);
    if (it != constCost.end())
      return it->second;
    constCost[&d] = Cost{kSaturated, 0}; // Guards a (reported) cycle.
    Cost c = expr(*d.init);
    constCost[&d] = c;
    return c;
  }
};

} // namespace

bool checkExpansion(const Module &m, DiagnosticEngine &diags,
                    const ExpansionLimits &limits) {
  return ExpansionChecker(m, diags, limits).run();
}

} // namespace kuiper
