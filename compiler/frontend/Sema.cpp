//===- Sema.cpp - Name resolution, typing and checks ----------------------===//
//
// One pass over the merged module. Expressions are typed bidirectionally: a
// "hint" (the type the context wants, or Error for none) flows down so that
// untyped literals take the type of their context. An expression whose type
// could not be computed gets type Error, and no further diagnostics are
// reported about expressions containing it.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/Sema.h"
#include "compiler/frontend/Lexer.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <map>
#include <set>
#include <unordered_map>

namespace kuiper {

using namespace ast;

namespace {

__extension__ typedef __int128 i128;

const Type kNone = Type::of(ScalarKind::Error);
const Type kI32 = Type::of(ScalarKind::I32);
const Type kU32 = Type::of(ScalarKind::U32);
const Type kBool = Type::of(ScalarKind::Bool);
const Type kF32 = Type::of(ScalarKind::F32);
const Type kVoid = Type::of(ScalarKind::Void);

/// Where an expression starts in the source (Binary/Ternary/Cast nodes are
/// located at their operator).
const Loc &startLoc(const Expr &e) {
  const Expr *p = &e;
  while ((p->kind == ExprKind::Binary || p->kind == ExprKind::Ternary ||
          p->kind == ExprKind::Cast) &&
         !p->args.empty() && p->args[0])
    p = p->args[0].get();
  return p->loc;
}

bool isErr(const Type &t) { return t.scalar == ScalarKind::Error; }
bool isNumeric(const Type &t) { return t.isInt() || t.isFloat(); }
std::string q(const std::string &s) { return "'" + s + "'"; }
std::string q(const Type &t) { return "'" + toString(t) + "'"; }

bool isBuiltinVarName(const std::string &n) {
  return n == "threadIdx" || n == "blockIdx" || n == "blockDim" ||
         n == "gridDim" || n == "laneid" || n == "warpid";
}

enum class BKind {
  None,
  MathF1,   // float -> float
  MathF2,   // fmin fmax
  MinMax,   // min max
  Clamp,
  Cdiv,
  Shfl,
  Ballot,
  AnyAll,
  Syncwarp,
  Atomic,   // add max min
  AtomicCas,
};

BKind builtinKind(const std::string &n) {
  static const std::map<std::string, BKind> table = {
      {"exp", BKind::MathF1},        {"log", BKind::MathF1},
      {"sqrt", BKind::MathF1},       {"rsqrt", BKind::MathF1},
      {"tanh", BKind::MathF1},       {"erf", BKind::MathF1},
      {"fabs", BKind::MathF1},       {"floor", BKind::MathF1},
      {"ceil", BKind::MathF1},       {"fmin", BKind::MathF2},
      {"fmax", BKind::MathF2},       {"fmaximum", BKind::MathF2},
      {"fminimum", BKind::MathF2},       {"min", BKind::MinMax},
      {"max", BKind::MinMax},        {"clamp", BKind::Clamp},
      {"cdiv", BKind::Cdiv},         {"shfl_down", BKind::Shfl},
      {"shfl_up", BKind::Shfl},      {"shfl_xor", BKind::Shfl},
      {"shfl_idx", BKind::Shfl},     {"ballot", BKind::Ballot},
      {"any", BKind::AnyAll},        {"all", BKind::AnyAll},
      {"syncwarp", BKind::Syncwarp}, {"atomic_add", BKind::Atomic},
      {"atomic_max", BKind::Atomic}, {"atomic_min", BKind::Atomic},
      {"atomic_cas", BKind::AtomicCas},
  };
  auto it = table.find(n);
  return it == table.end() ? BKind::None : it->second;
}

bool isCollective(BKind k) {
  return k == BKind::Shfl || k == BKind::Ballot || k == BKind::AnyAll ||
         k == BKind::Syncwarp;
}

//===----------------------------------------------------------------------===//
// Constant arithmetic with C semantics on the language's integer types.
//===----------------------------------------------------------------------===//

i128 widen(int64_t v, ScalarKind k) {
  if (k == ScalarKind::U64)
    return (i128)(uint64_t)v;
  if (k == ScalarKind::U32)
    return (i128)(uint32_t)v;
  return v;
}

bool fitsIn(i128 v, ScalarKind k) {
  switch (k) {
  case ScalarKind::I32: return v >= INT32_MIN && v <= INT32_MAX;
  case ScalarKind::I64: return v >= INT64_MIN && v <= INT64_MAX;
  case ScalarKind::U32: return v >= 0 && v <= (i128)UINT32_MAX;
  case ScalarKind::U64: return v >= 0 && v <= (i128)UINT64_MAX;
  default: return false;
  }
}

/// Wraps `v` modulo 2^width (unsigned types, conversions).
int64_t wrapTo(i128 v, ScalarKind k) {
  switch (k) {
  case ScalarKind::I32: return (int64_t)(int32_t)(uint32_t)(uint64_t)v;
  case ScalarKind::U32: return (int64_t)(uint32_t)(uint64_t)v;
  case ScalarKind::I64:
  case ScalarKind::U64: return (int64_t)(uint64_t)v;
  default: return (int64_t)v;
  }
}

struct Scope {
  std::unordered_map<std::string, Decl *> names;
};

enum class Restrict {
  None,
  Const,     ///< const initializer: literals and consts
  BlockDims, ///< launch block dims: literals and consts
  Params,    ///< buffer/grid dims, memory contracts: scalar params and consts
};

class Sema {
public:
  Sema(Module &m, DiagnosticEngine &diags) : m(m), diags(diags) {}
  bool run();

private:
  Module &m;
  DiagnosticEngine &diags;
  std::vector<Scope> scopes;
  std::map<std::string, FnDecl *> fns;
  std::map<std::string, KernelDecl *> kernels;
  /// Every const's line, to tell a use before the declaration from a typo.
  std::map<std::string, int> constLines;
  std::map<std::string, Loc> itemNames;
  unsigned startErrors = 0;

  // Context of the expression being checked.
  bool spec = false;
  bool allowOld = false;
  bool inOld = false;
  Restrict restrict = Restrict::None;
  const char *restrictWhat = "";
  KernelDecl *kernel = nullptr;
  /// Bytes of the shared arrays the kernel declared so far.
  int64_t sharedBytes = 0;
  FnDecl *fn = nullptr;
  bool negLiteral = false;

  struct CallSite {
    FnDecl *callee;
    Loc loc;
  };
  std::map<FnDecl *, std::vector<CallSite>> callGraph;
  /// While a kernel's requires or ensures is checked, which: those clauses
  /// are about the whole launch, so no thread's ids may occur in them.
  const char *launchClause = nullptr;
  /// Where each fn first uses a thread's ids (`threadIdx`, `blockIdx`,
  /// `laneid`, `warpid`), and where it first passes a barrier or uses a warp
  /// collective or atomic (in its body).
  std::map<FnDecl *, Loc> threadIdUse, collectiveUse;
  /// Calls of fns in specifications: a collective cannot run there, and a
  /// kernel's requires or ensures cannot read a thread's ids through an fn
  /// any more than directly (`requires threadIdx.x < 100` was assumed of
  /// every thread, checked of none, and hid threads 100..255 writing out of
  /// bounds).
  struct SpecCall {
    FnDecl *callee;
    Loc loc;
    const char *launchClause;
  };
  std::vector<SpecCall> specCalls;
  void checkSpecCalls();

  void error(const Loc &l, const std::string &msg) { diags.error(l, msg); }

  // Scopes.
  void push() { scopes.emplace_back(); }
  void pop() { scopes.pop_back(); }
  Decl *lookup(const std::string &n) {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
      auto f = it->names.find(n);
      if (f != it->names.end())
        return f->second;
    }
    return nullptr;
  }
  void declare(Decl *d) {
    if (isBuiltinVarName(d->name)) {
      error(d->loc, q(d->name) + " is a builtin name and cannot be redefined");
      return;
    }
    auto &names = scopes.back().names;
    auto it = names.find(d->name);
    if (it != names.end()) {
      error(d->loc, "redefinition of " + q(d->name));
      diags.note(it->second->loc, "previous definition is here");
      return;
    }
    names[d->name] = d;
  }

  // Items.
  void declareItem(const std::string &name, const Loc &loc);
  void checkConst(Decl &d);
  void checkFn(FnDecl &f);
  void checkKernel(KernelDecl &k);
  void checkRecursion();
  void checkSpecClauses(std::vector<SpecClause> &cs, bool allowOldHere);
  void checkRestricted(Expr &e, Restrict r, const char *what, Type hint);
  void checkAccessRanges(KernelDecl &k, std::vector<AccessRange> &rs,
                         bool writes);

  // Statements.
  void checkBody(std::vector<StmtPtr> &body);
  void checkStmt(Stmt &s);
  void checkAssign(Stmt &s);
  void checkFor(Stmt &s);
  void checkCond(Expr &e, const char *what);
  void checkSpecExpr(Expr &e, bool allowOldHere);
  bool endsInReturn(const std::vector<StmtPtr> &body);

  // Expressions.
  Type check(Expr &e, Type hint);
  Type checkInner(Expr &e, Type hint);
  Type checkIntLit(Expr &e, Type hint);
  Type checkFloatLit(Expr &e, Type hint);
  Type checkName(Expr &e);
  Type checkBuiltinVar(Expr &e);
  Type checkUnary(Expr &e, Type hint);
  Type checkBinary(Expr &e, Type hint);
  Type checkTernary(Expr &e, Type hint);
  Type checkCast(Expr &e);
  Type checkIndex(Expr &e, bool write, bool alsoRead, const char *writeWhat);
  Type checkCall(Expr &e, Type hint);
  Type checkUserCall(Expr &e);
  Type checkQuantOrSum(Expr &e, Type hint);
  Type checkOld(Expr &e, Type hint);
  /// Types `a` and `b` so that an untyped literal takes the other's type;
  /// reports a mismatch at `loc`. Returns the common type or Error.
  Type unify(Expr &a, Expr &b, Type hint, const Loc &loc,
             const std::string &what);
  Type unifyArgs(Expr &call, size_t first, size_t count, Type hint);
  bool expectType(const Type &want, const Type &got, const Loc &loc,
                  const std::string &ctx);
  bool argCount(Expr &e, size_t n);
  void fold(Expr &e);
  bool specOnly(Expr &e, const char *what);
};

/// An expression whose type comes only from its context (a literal, or
/// arithmetic over literals).
bool isUntyped(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit: return true;
  case ExprKind::FloatLit: return isErr(e.castType);
  case ExprKind::Unary:
    return (e.op == "-" || e.op == "~") && isUntyped(*e.args[0]);
  case ExprKind::Binary:
    if (e.op == "+" || e.op == "-" || e.op == "*" || e.op == "/" ||
        e.op == "%" || e.op == "<<" || e.op == ">>" || e.op == "&" ||
        e.op == "|" || e.op == "^")
      return isUntyped(*e.args[0]) && isUntyped(*e.args[1]);
    return false;
  case ExprKind::Ternary:
    return isUntyped(*e.args[1]) && isUntyped(*e.args[2]);
  default: return false;
  }
}

//===----------------------------------------------------------------------===//
// Module and items
//===----------------------------------------------------------------------===//

void Sema::declareItem(const std::string &name, const Loc &loc) {
  auto it = itemNames.find(name);
  if (it != itemNames.end()) {
    error(loc, "redefinition of " + q(name));
    diags.note(it->second, "previous definition is here");
    return;
  }
  itemNames[name] = loc;
}

bool Sema::run() {
  startErrors = diags.errorCount();
  push(); // globals
  for (auto &f : m.fns) {
    // (`old(...)` is read as the spec form wherever it is called: a fn of
    // that name could never be called. `sum(x)` can: a fold is `sum(j in`.)
    if (builtinKind(f->name) != BKind::None || isBuiltinVarName(f->name) || f->name == "old") {
      error(f->loc, q(f->name) + " is a builtin function and cannot be redefined");
      continue;
    }
    declareItem(f->name, f->loc);
    if (!fns.count(f->name))
      fns[f->name] = f.get();
  }
  for (auto &k : m.kernels) {
    declareItem(k->name, k->loc);
    if (!kernels.count(k->name))
      kernels[k->name] = k.get();
  }
  for (auto &c : m.consts)
    constLines.emplace(c->name, c->loc.line);
  for (auto &c : m.consts) {
    checkConst(*c);
    if (diags.errorCount() >= kMaxErrors)
      return false;
  }
  for (auto &f : m.fns) {
    checkFn(*f);
    if (diags.errorCount() >= kMaxErrors)
      return false;
  }
  checkRecursion();
  for (auto &k : m.kernels) {
    checkKernel(*k);
    if (diags.errorCount() >= kMaxErrors)
      return false;
  }
  checkSpecCalls();
  pop();
  return diags.errorCount() == startErrors;
}

void Sema::checkRestricted(Expr &e, Restrict r, const char *what, Type hint) {
  Restrict savedR = restrict;
  const char *savedW = restrictWhat;
  bool savedSpec = spec;
  restrict = r;
  restrictWhat = what;
  spec = false;
  check(e, hint);
  restrict = savedR;
  restrictWhat = savedW;
  spec = savedSpec;
}

void Sema::checkConst(Decl &d) {
  if (itemNames.count(d.name)) {
    error(d.loc, "redefinition of " + q(d.name));
    diags.note(itemNames[d.name], "previous definition is here");
  } else {
    itemNames[d.name] = d.loc;
  }
  if (d.init) {
    unsigned before = diags.errorCount();
    checkRestricted(*d.init, Restrict::Const, "constant initializer", d.type);
    Type t = d.init->type;
    if (!isErr(t) && expectType(d.type, t, startLoc(*d.init), "")) {
      if (d.type.isInt()) {
        if (d.init->constValue)
          d.constValue = d.init->constValue;
        else if (diags.errorCount() == before)
          error(startLoc(*d.init), "initializer of constant " + q(d.name) +
                                 " is not a compile-time constant");
      }
    }
  }
  if (!isBuiltinVarName(d.name) && !scopes.front().names.count(d.name))
    scopes.front().names[d.name] = &d;
  else if (isBuiltinVarName(d.name))
    error(d.loc, q(d.name) + " is a builtin name and cannot be redefined");
}

void Sema::checkSpecExpr(Expr &e, bool allowOldHere) {
  bool savedSpec = spec, savedOld = allowOld;
  spec = true;
  allowOld = allowOldHere;
  checkCond(e, "specification");
  spec = savedSpec;
  allowOld = savedOld;
}

void Sema::checkSpecClauses(std::vector<SpecClause> &cs, bool allowOldHere) {
  for (SpecClause &c : cs)
    if (c.cond)
      checkSpecExpr(*c.cond, allowOldHere);
}

void Sema::checkFn(FnDecl &f) {
  fn = &f;
  kernel = nullptr;
  push();
  for (size_t i = 0; i < f.params.size(); ++i) {
    Decl &p = *f.params[i];
    p.index = int(i);
    declare(&p);
  }
  checkSpecClauses(f.requires_, false);
  if (f.result.scalar != ScalarKind::Void && !isErr(f.result)) {
    f.resultDecl = std::make_unique<Decl>();
    f.resultDecl->kind = DeclKind::Let;
    f.resultDecl->name = "result";
    f.resultDecl->loc = f.loc;
    f.resultDecl->type = f.result;
  }
  push();
  if (f.resultDecl)
    scopes.back().names["result"] = f.resultDecl.get();
  checkSpecClauses(f.ensures, false);
  pop();
  checkBody(f.body);
  if (f.result.scalar != ScalarKind::Void && !endsInReturn(f.body))
    error(f.loc, "fn " + q(f.name) + " returns " + q(f.result) +
                     " but does not end with 'return <value>;' on every path");
  pop();
  fn = nullptr;
}

bool Sema::endsInReturn(const std::vector<StmtPtr> &body) {
  if (body.empty())
    return false;
  const Stmt &s = *body.back();
  switch (s.kind) {
  case StmtKind::Return: return true;
  case StmtKind::Block: return endsInReturn(s.body);
  case StmtKind::If:
    return s.hasElse && endsInReturn(s.body) && endsInReturn(s.elseBody);
  default: return false;
  }
}

void Sema::checkSpecCalls() {
  // The first use in `f` or in what it calls, transitively (recursion was
  // reported already; `seen` keeps a cycle from looping).
  std::function<std::optional<Loc>(FnDecl *, std::map<FnDecl *, Loc> &, std::set<FnDecl *> &)>
      find = [&](FnDecl *f, std::map<FnDecl *, Loc> &uses,
                 std::set<FnDecl *> &seen) -> std::optional<Loc> {
    if (!seen.insert(f).second)
      return std::nullopt;
    if (auto it = uses.find(f); it != uses.end())
      return it->second;
    for (const CallSite &c : callGraph[f])
      if (auto l = find(c.callee, uses, seen))
        return l;
    return std::nullopt;
  };
  for (const SpecCall &c : specCalls) {
    std::set<FnDecl *> seen;
    if (auto l = find(c.callee, collectiveUse, seen)) {
      error(c.loc, "fn " + q(c.callee->name) +
                       " cannot be used in a specification: it passes a barrier or uses a "
                       "warp collective or an atomic (line " + std::to_string(l->line) + ")");
      continue;
    }
    seen.clear();
    if (c.launchClause)
      if (auto l = find(c.callee, threadIdUse, seen))
        error(c.loc, "a kernel's '" + std::string(c.launchClause) +
                         "' is about the whole launch, not one thread: fn " +
                         q(c.callee->name) + " reads a thread's ids (line " +
                         std::to_string(l->line) + ")");
  }
}

void Sema::checkRecursion() {
  // Colors: 0 white, 1 on stack, 2 done.
  std::map<FnDecl *, int> color;
  std::vector<FnDecl *> stack;
  std::set<FnDecl *> reported;
  struct Frame {
    FnDecl *f;
    size_t next;
  };
  for (auto &root : m.fns) {
    if (color[root.get()] != 0)
      continue;
    std::vector<Frame> work{{root.get(), 0}};
    color[root.get()] = 1;
    stack.push_back(root.get());
    while (!work.empty()) {
      Frame &fr = work.back();
      auto &edges = callGraph[fr.f];
      if (fr.next >= edges.size()) {
        color[fr.f] = 2;
        stack.pop_back();
        work.pop_back();
        continue;
      }
      CallSite cs = edges[fr.next++];
      int c = color[cs.callee];
      if (c == 0) {
        color[cs.callee] = 1;
        stack.push_back(cs.callee);
        work.push_back({cs.callee, 0});
      } else if (c == 1) {
        if (reported.count(cs.callee))
          continue;
        reported.insert(cs.callee);
        std::string path;
        bool on = false;
        for (FnDecl *s : stack) {
          if (s == cs.callee)
            on = true;
          if (on)
            path += s->name + " -> ";
        }
        path += cs.callee->name;
        if (fr.f == cs.callee)
          error(cs.loc, "fn " + q(cs.callee->name) +
                            " calls itself; recursion is not supported");
        else
          error(cs.loc, "fn " + q(cs.callee->name) +
                            " is recursive (" + path +
                            "); recursion is not supported");
      }
    }
  }
}

void Sema::checkAccessRanges(KernelDecl &k, std::vector<AccessRange> &rs,
                             bool writes) {
  for (AccessRange &r : rs) {
    Decl *d = lookup(r.buffer);
    if (!d) {
      error(r.loc, "unknown name " + q(r.buffer));
    } else if (d->kind != DeclKind::BufferParam) {
      error(r.loc, q(r.buffer) + " is not a buffer parameter");
      d = nullptr;
    } else if (writes && d->access == Access::In) {
      error(r.loc, "'in' buffer " + q(r.buffer) +
                       " cannot appear in a 'writes' clause");
    } else if (!writes && d->access == Access::Out) {
      error(r.loc, "'out' buffer " + q(r.buffer) +
                       " cannot appear in a 'reads' clause");
    }
    r.decl = d;
    if (d && int(r.ranges.size()) != d->type.rank)
      error(r.loc, "wrong number of ranges for " + q(r.buffer) + ": expected " +
                       std::to_string(d->type.rank) + ", found " +
                       std::to_string(r.ranges.size()));
    for (auto &pr : r.ranges) {
      if (!pr.first || !pr.second)
        continue;
      Restrict savedR = restrict;
      const char *savedW = restrictWhat;
      restrict = Restrict::Params;
      restrictWhat = "memory contract range";
      Type t = unify(*pr.first, *pr.second, kI32, pr.first->loc,
                     "memory contract range");
      restrict = savedR;
      restrictWhat = savedW;
      if (!isErr(t) && !t.isInt())
        error(startLoc(*pr.first), "memory contract range must be an integer, found " +
                                 q(t));
    }
  }
  (void)k;
}

void Sema::checkKernel(KernelDecl &k) {
  kernel = &k;
  sharedBytes = 0;
  fn = nullptr;
  push();
  for (size_t i = 0; i < k.params.size(); ++i) {
    Decl &p = *k.params[i];
    p.index = int(i);
    declare(&p);
  }
  // Launch block: compile-time constants.
  if (!k.blockDims.empty()) {
    if (k.blockDims.size() > 3)
      error(k.blockDims[3]->loc, "at most 3 block dimensions are allowed");
    bool ok = true;
    std::vector<int64_t> dims;
    for (auto &d : k.blockDims) {
      checkRestricted(*d, Restrict::BlockDims, "block dimension", kI32);
      if (isErr(d->type)) {
        ok = false;
        continue;
      }
      if (!d->type.isInt()) {
        error(startLoc(*d), "block dimension must be an integer, found " + q(d->type));
        ok = false;
      } else if (!d->constValue) {
        error(startLoc(*d), "block dimension must be a compile-time constant");
        ok = false;
      } else if (*d->constValue <= 0 ||
                 (d->type.isUnsigned() && *d->constValue < 0)) {
        error(startLoc(*d), "block dimension must be positive, found " +
                          std::to_string(*d->constValue));
        ok = false;
      } else {
        dims.push_back(*d->constValue);
      }
    }
    if (ok && k.blockDims.size() <= 3) {
      i128 prod = 1;
      for (size_t i = 0; i < dims.size(); ++i) {
        k.block[i] = dims[i];
        prod *= dims[i];
        if (prod > (i128)1 << 62)
          prod = (i128)1 << 62;
      }
      if (prod > 1024)
        error(k.blockDims[0]->loc,
              "block has " + std::to_string((long long)prod) +
                  " threads; at most 1024 threads per block are allowed");
      else if (dims.size() == 3 && dims[2] > 64)
        error(k.blockDims[2]->loc, "block dimension z is " + std::to_string(dims[2]) +
                                       "; a GPU allows at most 64 (x and y: 1024)");
    }
  }
  if (k.gridDims.size() > 3)
    error(k.gridDims[3]->loc, "at most 3 grid dimensions are allowed");
  for (auto &g : k.gridDims) {
    checkRestricted(*g, Restrict::Params, "grid dimension", kI32);
    if (!isErr(g->type) && !g->type.isInt())
      error(startLoc(*g), "grid dimension must be an integer, found " + q(g->type));
  }
  for (auto &p : k.params) {
    for (auto &d : p->dims) {
      checkRestricted(*d, Restrict::Params, "buffer dimension", kI32);
      if (!isErr(d->type) && !d->type.isInt())
        error(startLoc(*d), "buffer dimension must be an integer, found " +
                          q(d->type));
    }
  }
  launchClause = "requires";
  checkSpecClauses(k.requires_, false);
  launchClause = nullptr;
  checkAccessRanges(k, k.reads, false);
  checkAccessRanges(k, k.writes, true);
  launchClause = "ensures";
  checkSpecClauses(k.ensures, true);
  launchClause = nullptr;
  checkBody(k.body);
  pop();
  kernel = nullptr;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Sema::checkBody(std::vector<StmtPtr> &body) {
  push();
  for (auto &s : body) {
    if (diags.errorCount() >= kMaxErrors)
      break;
    if (s)
      checkStmt(*s);
  }
  pop();
}

void Sema::checkCond(Expr &e, const char *what) {
  Type t = check(e, kBool);
  if (!isErr(t) && !t.isBool())
    error(startLoc(e), std::string(what) + " must be 'bool', found " + q(t));
}

bool Sema::expectType(const Type &want, const Type &got, const Loc &loc,
                      const std::string &ctx) {
  if (isErr(want) || isErr(got))
    return false;
  if (want == got)
    return true;
  if (got.scalar == ScalarKind::Void) {
    error(loc, "expression has no value (it is 'void')");
    return false;
  }
  error(loc, "type mismatch" + ctx + ": expected " + q(want) + ", found " +
                 q(got) + " (use 'as' to convert)");
  return false;
}

void Sema::checkStmt(Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let:
  case StmtKind::Var: {
    Decl &d = *s.decl;
    bool hasType = !isErr(d.type);
    if (d.init) {
      Type t = check(*d.init, hasType ? d.type : kNone);
      if (hasType) {
        expectType(d.type, t, startLoc(*d.init), " in initializer of " + q(d.name));
      } else if (t.scalar == ScalarKind::Void) {
        error(startLoc(*d.init), "expression has no value (it is 'void')");
        d.type = kNone;
      } else {
        d.type = t;
      }
      if (d.kind == DeclKind::Let && d.type.isInt() && d.init->constValue &&
          d.init->type == d.type)
        d.constValue = d.init->constValue;
    }
    declare(&d);
    return;
  }
  case StmtKind::Shared: {
    Decl &d = *s.decl;
    if (!kernel)
      error(s.loc, "shared arrays can only be declared in kernels");
    for (auto &dim : d.dims) {
      Type t = check(*dim, kI32);
      if (isErr(t))
        continue;
      if (!t.isInt() || !dim->constValue || *dim->constValue <= 0 ||
          (t.isUnsigned() && *dim->constValue < 0))
        error(startLoc(*dim),
              "shared array dimension must be a positive compile-time constant");
      else
        d.constDims.push_back(*dim->constValue);
    }
    if (d.constDims.size() != d.dims.size())
      d.constDims.clear();
    // A block's static shared memory is at most 48 KiB on every target
    // (more needs dynamic shared memory, which kernels do not declare): PTX
    // with more is emitted but cannot be launched.
    constexpr int64_t kMaxStaticShared = 48 * 1024;
    if (kernel && !d.constDims.empty() && sharedBytes <= kMaxStaticShared) {
      int64_t bytes = std::max(1, bitWidth(d.type.scalar) / 8);
      for (int64_t n : d.constDims)
        bytes = n > (int64_t(1) << 40) / bytes ? (int64_t(1) << 40) : bytes * n;
      sharedBytes += bytes;
      if (sharedBytes > kMaxStaticShared)
        error(s.loc, "shared memory of kernel " + q(kernel->name) + " reaches " +
                         std::to_string(sharedBytes) + " bytes with " + q(d.name) +
                         ": a block may allocate at most " + std::to_string(kMaxStaticShared) +
                         " bytes statically");
    }
    declare(&d);
    return;
  }
  case StmtKind::Assign:
    checkAssign(s);
    return;
  case StmtKind::ExprStmt: {
    Expr &e = *s.value;
    if (e.kind == ExprKind::Binary && e.op == "==") {
      // `y[i] == x[i];`: an assignment mistyped (before any other error
      // about the operands, such as reading an 'out' buffer).
      error(e.loc, "the result of '==' is unused (did you mean '=' to assign?)");
      return;
    }
    if (e.kind != ExprKind::Call) {
      if (isErr(check(e, kNone)))
        return;
      error(e.loc, "expression result is unused; only calls of atomics, "
                   "'syncwarp' and fns can be statements");
      return;
    }
    check(e, kNone);
    BKind bk = builtinKind(e.name);
    if (bk != BKind::None && bk != BKind::Atomic && bk != BKind::AtomicCas &&
        bk != BKind::Syncwarp)
      error(e.loc, "result of " + q(e.name) + " is unused");
    return;
  }
  case StmtKind::If:
    checkCond(*s.cond, "condition");
    checkBody(s.body);
    if (s.hasElse)
      checkBody(s.elseBody);
    return;
  case StmtKind::For:
    checkFor(s);
    return;
  case StmtKind::While:
    checkCond(*s.cond, "condition");
    for (auto &inv : s.invariants)
      checkSpecExpr(*inv.cond, false);
    checkBody(s.body);
    return;
  case StmtKind::Barrier:
    if (fn)
      collectiveUse.emplace(fn, s.loc);
    if (s.cond)
      checkSpecExpr(*s.cond, false);
    return;
  case StmtKind::Assert:
  case StmtKind::Assume:
    checkSpecExpr(*s.cond, false);
    return;
  case StmtKind::Return:
    if (kernel) {
      if (s.value) {
        check(*s.value, kNone);
        error(startLoc(*s.value), "a kernel cannot return a value; use 'return;'");
      }
    } else if (fn) {
      if (!s.value) {
        error(s.loc, "'return;' without a value is only allowed in kernels");
      } else if (fn->result.scalar == ScalarKind::Void) {
        check(*s.value, kNone);
        error(startLoc(*s.value), "fn " + q(fn->name) +
                                " has no result type; it cannot return a value");
      } else {
        Type t = check(*s.value, fn->result);
        expectType(fn->result, t, startLoc(*s.value), " in return");
      }
    }
    return;
  case StmtKind::Block:
    checkBody(s.body);
    return;
  }
}

void Sema::checkAssign(Stmt &s) {
  Expr &t = *s.target;
  const std::string &op = s.op;
  bool compound = op != "=";
  Type tt = kNone;
  if (t.kind == ExprKind::Name) {
    Decl *d = lookup(t.name);
    t.decl = d;
    if (!d) {
      if (t.name == "result" && fn)
        error(t.loc, "'result' can only be used in fn 'ensures' clauses");
      else
        error(t.loc, "unknown name " + q(t.name));
    } else {
      switch (d->kind) {
      case DeclKind::Var: tt = d->type; break;
      case DeclKind::Let:
        error(t.loc, "cannot assign to 'let' variable " + q(t.name) +
                         " (declare it with 'var')");
        break;
      case DeclKind::LoopVar:
        error(t.loc, "cannot assign to loop variable " + q(t.name));
        break;
      case DeclKind::ScalarParam:
        error(t.loc, "cannot assign to parameter " + q(t.name));
        break;
      case DeclKind::Const:
        error(t.loc, "cannot assign to constant " + q(t.name));
        break;
      case DeclKind::Bound:
        error(t.loc, "cannot assign to bound variable " + q(t.name));
        break;
      case DeclKind::BufferParam:
      case DeclKind::Shared:
        error(t.loc, q(t.name) + " is an array; assign to an element such as '" +
                         t.name + "[i]'");
        break;
      }
    }
    t.type = tt;
  } else if (t.kind == ExprKind::Index) {
    tt = checkIndex(t, true, compound, "assign to");
    t.type = tt;
  } else {
    check(t, kNone);
    error(t.loc, "invalid assignment target; expected a variable or an "
                 "array element");
  }
  Type vt = check(*s.value, tt);
  if (isErr(tt) || isErr(vt))
    return;
  if (!expectType(tt, vt, startLoc(*s.value), " in assignment"))
    return;
  if (!compound)
    return;
  std::string bop = op.substr(0, op.size() - 1);
  bool ok;
  if (bop == "+" || bop == "-" || bop == "*" || bop == "/")
    ok = isNumeric(tt);
  else if (bop == "%" || bop == "<<" || bop == ">>")
    ok = tt.isInt();
  else
    ok = tt.isInt() || tt.isBool();
  if (!ok)
    error(t.loc, "operator " + q(op) + " cannot be applied to " + q(tt));
}

void Sema::checkFor(Stmt &s) {
  Decl &d = *s.decl;
  d.kind = DeclKind::LoopVar;
  Type t = kNone;
  if (s.list) {
    Expr &l = *s.list;
    Type elem = kNone;
    bool bad = false;
    for (auto &v : l.args) {
      Type vt = check(*v, isErr(elem) ? kI32 : elem);
      if (isErr(vt)) {
        bad = true;
        continue;
      }
      if (!vt.isInt() || !v->constValue) {
        error(startLoc(*v), "values of a 'for' list must be compile-time integer "
                      "constants");
        bad = true;
        continue;
      }
      if (isErr(elem))
        elem = vt;
      else if (!expectType(elem, vt, v->loc, " in 'for' list"))
        bad = true;
    }
    l.type = bad ? kNone : elem;
    t = l.type;
  } else {
    t = unify(*s.lo, *s.hi, kNone, s.lo->loc, "'for' range");
    if (!isErr(t) && !t.isInt()) {
      error(startLoc(*s.lo), "'for' range must be integer, found " + q(t));
      t = kNone;
    } else if (!isErr(t) && !t.isSigned()) {
      // kuiper.for compares and steps its counter as a signed integer.
      error(startLoc(*s.lo), "'for' range must be a signed integer (i32 or i64), found " +
                                 q(t) + "; convert the bounds with 'as i64'");
      t = kNone;
    }
    if (s.step) {
      Type st = check(*s.step, isErr(t) ? kI32 : t);
      if (!isErr(t) && !isErr(st))
        expectType(t, st, s.step->loc, " in 'for' step");
      if (s.step->constValue && *s.step->constValue <= 0)
        error(startLoc(*s.step), "'for' step must be positive, found " +
                                     std::to_string(*s.step->constValue));
    }
  }
  d.type = t;
  push();
  declare(&d);
  for (auto &inv : s.invariants)
    checkSpecExpr(*inv.cond, false);
  checkBody(s.body);
  pop();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Type Sema::check(Expr &e, Type hint) {
  Type t = checkInner(e, hint);
  e.type = t;
  if (t.isInt() && !e.constValue)
    fold(e);
  if (!t.isInt())
    e.constValue.reset();
  return t;
}

bool Sema::specOnly(Expr &e, const char *what) {
  if (spec)
    return true;
  error(e.loc, q(what) + " is only allowed in specifications (requires, "
                         "ensures, invariant, assert, assume, barrier "
                         "contracts)");
  return false;
}

Type Sema::checkInner(Expr &e, Type hint) {
  switch (e.kind) {
  case ExprKind::IntLit: return checkIntLit(e, hint);
  case ExprKind::FloatLit: return checkFloatLit(e, hint);
  case ExprKind::BoolLit: return kBool;
  case ExprKind::Name: return checkName(e);
  case ExprKind::Builtin: return checkBuiltinVar(e);
  case ExprKind::Unary: return checkUnary(e, hint);
  case ExprKind::Binary: return checkBinary(e, hint);
  case ExprKind::Ternary: return checkTernary(e, hint);
  case ExprKind::Cast: return checkCast(e);
  case ExprKind::Index: return checkIndex(e, false, true, nullptr);
  case ExprKind::Call: return checkCall(e, hint);
  case ExprKind::Quant:
  case ExprKind::Sum: return checkQuantOrSum(e, hint);
  case ExprKind::Old: return checkOld(e, hint);
  case ExprKind::List:
    error(e.loc, "a list is only allowed as the range of a 'for' loop");
    return kNone;
  }
  return kNone;
}

Type Sema::checkIntLit(Expr &e, Type hint) {
  bool neg = negLiteral;
  negLiteral = false;
  Type t = hint.isInt() ? hint : kI32;
  uint64_t v = (uint64_t)e.intValue;
  uint64_t max;
  switch (t.scalar) {
  case ScalarKind::I32: max = neg ? (1ull << 31) : (1ull << 31) - 1; break;
  case ScalarKind::U32: max = 0xffffffffull; break;
  case ScalarKind::I64: max = neg ? (1ull << 63) : (1ull << 63) - 1; break;
  default: max = ~0ull; break;
  }
  if (v > max) {
    error(e.loc, "integer literal '" + e.name + "' is out of range for " +
                     q(t));
    return kNone;
  }
  (void)neg;
  e.constValue = e.intValue; // -2^31: the negation folds it back in range
  return t;
}

Type Sema::checkFloatLit(Expr &e, Type hint) {
  Type t = !isErr(e.castType) ? e.castType : hint.isFloat() ? hint : kF32;
  // A literal is its nearest value of the type (round to nearest, ties to
  // even): out of range only where that is infinite, from the largest finite
  // value plus half its ulp on (C's FLT_MAX spelled 3.40282347e38 is a little
  // above FLT_MAX and rounds to it).
  double overflowsAt;
  switch (t.scalar) {
  case ScalarKind::F16: overflowsAt = 65520.0; break;                // 65504 + 16
  case ScalarKind::BF16: overflowsAt = std::ldexp(0x1.ffp0, 127); break; // (2 - 2^-8) 2^127
  case ScalarKind::F32: overflowsAt = std::ldexp(0x1.ffffffp0, 127); break; // (2 - 2^-24) 2^127
  default: overflowsAt = HUGE_VAL; break; // (f64: past its range, the parse gave infinity)
  }
  if (!std::isfinite(e.floatValue) || std::fabs(e.floatValue) >= overflowsAt) {
    error(e.loc, "float literal '" + e.name + "' is out of range for " + q(t));
    return kNone;
  }
  return t;
}

Type Sema::checkName(Expr &e) {
  Decl *d = lookup(e.name);
  if (!d) {
    if (e.name == "result" && fn)
      error(e.loc, "'result' can only be used in fn 'ensures' clauses");
    else if (auto c = constLines.find(e.name); c != constLines.end())
      error(e.loc, "constant " + q(e.name) + " is used before its declaration (line " +
                       std::to_string(c->second) + "): a const is used after it is declared");
    else if (e.name == "break" || e.name == "continue")
      error(e.loc, q(e.name) + " is not part of the language: a loop runs to its bound (use "
                               "a 'while' loop's condition, or 'if' around the body)");
    else
      error(e.loc, "unknown name " + q(e.name));
    return kNone;
  }
  e.decl = d;
  if (d->kind == DeclKind::BufferParam || d->kind == DeclKind::Shared) {
    error(e.loc, q(e.name) + " is an array; index it like '" + e.name + "[i]'");
    return kNone;
  }
  switch (restrict) {
  case Restrict::None: break;
  case Restrict::Const:
  case Restrict::BlockDims:
    if (d->kind != DeclKind::Const) {
      error(e.loc, std::string(restrictWhat) +
                       " must be a compile-time constant; " + q(e.name) +
                       " is not a constant");
      return kNone;
    }
    break;
  case Restrict::Params:
    if (d->kind != DeclKind::Const && d->kind != DeclKind::ScalarParam) {
      error(e.loc, std::string(restrictWhat) +
                       " must be an expression over scalar parameters and "
                       "constants; " + q(e.name) + " is neither");
      return kNone;
    }
    break;
  }
  if (d->constValue && d->type.isInt())
    e.constValue = d->constValue;
  return d->type;
}

Type Sema::checkBuiltinVar(Expr &e) {
  std::string full = e.member.empty() ? e.name : e.name + "." + e.member;
  bool threadId = e.name == "threadIdx" || e.name == "blockIdx" || e.name == "laneid" ||
                  e.name == "warpid";
  if (threadId && launchClause) {
    error(e.loc, "a kernel's '" + std::string(launchClause) +
                     "' is about the whole launch, not one thread: " + q(full) +
                     " cannot be used there (quantify over the elements instead, e.g. "
                     "'forall i in 0..n: ...')");
    return kNone;
  }
  if (threadId && fn)
    threadIdUse.emplace(fn, e.loc);
  if (restrict != Restrict::None &&
      !(restrict == Restrict::Params && e.name == "blockDim" && kernel)) {
    if (restrict == Restrict::Params)
      error(e.loc, std::string(restrictWhat) +
                       " must be an expression over scalar parameters and "
                       "constants; " + q(full) + " is neither");
    else
      error(e.loc, std::string(restrictWhat) +
                       " must be a compile-time constant; " + q(full) +
                       " is not a constant");
    return kNone;
  }
  if (e.name == "blockDim" && kernel) {
    int i = e.member == "x" ? 0 : e.member == "y" ? 1 : 2;
    e.constValue = kernel->block[size_t(i)];
  }
  return kI32;
}

Type Sema::checkUnary(Expr &e, Type hint) {
  Expr &a = *e.args[0];
  if (e.op == "!") {
    Type t = check(a, kBool);
    if (isErr(t))
      return kNone;
    if (!t.isBool()) {
      error(e.loc, "operator '!' requires a 'bool' operand, found " + q(t));
      return kNone;
    }
    return kBool;
  }
  if (e.op == "-" && a.kind == ExprKind::IntLit)
    negLiteral = true;
  Type t = check(a, hint);
  negLiteral = false;
  if (isErr(t))
    return kNone;
  if (e.op == "-" && !isNumeric(t)) {
    error(e.loc, "operator '-' cannot be applied to " + q(t));
    return kNone;
  }
  if (e.op == "~" && !t.isInt()) {
    error(e.loc, "operator '~' requires an integer operand, found " + q(t));
    return kNone;
  }
  return t;
}

Type Sema::unify(Expr &a, Expr &b, Type hint, const Loc &loc,
                 const std::string &what) {
  Type ta, tb;
  if (isUntyped(a) && !isUntyped(b)) {
    tb = check(b, hint);
    ta = check(a, isErr(tb) ? hint : tb);
  } else {
    ta = check(a, hint);
    tb = check(b, isErr(ta) ? hint : ta);
  }
  if (isErr(ta) || isErr(tb))
    return kNone;
  if (ta != tb) {
    error(loc, "type mismatch" + what + ": " + q(ta) + " and " + q(tb) +
                   " (use 'as' to convert)");
    return kNone;
  }
  return ta;
}

Type Sema::checkBinary(Expr &e, Type hint) {
  const std::string &op = e.op;
  Expr &a = *e.args[0];
  Expr &b = *e.args[1];
  if (op == "&&" || op == "||" || op == "==>") {
    if (op == "==>" && !specOnly(e, "==>"))
      return kNone;
    Type ta = check(a, kBool);
    Type tb = check(b, kBool);
    if (isErr(ta) || isErr(tb))
      return kNone;
    if (!ta.isBool() || !tb.isBool()) {
      error(e.loc, "operands of " + q(op) + " must be 'bool', found " +
                       q(ta) + " and " + q(tb));
      return kNone;
    }
    return kBool;
  }
  bool cmp = op == "==" || op == "!=" || op == "<" || op == "<=" ||
             op == ">" || op == ">=";
  Type t = unify(a, b, cmp ? kNone : hint, e.loc, "");
  if (isErr(t))
    return kNone;
  bool ok;
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "<" ||
      op == "<=" || op == ">" || op == ">=")
    ok = isNumeric(t);
  else if (op == "%" || op == "<<" || op == ">>")
    ok = t.isInt();
  else if (op == "&" || op == "|" || op == "^")
    ok = t.isInt() || t.isBool();
  else // == !=
    ok = isNumeric(t) || t.isBool();
  if (!ok) {
    error(e.loc, "operator " + q(op) + " cannot be applied to " + q(t) +
                     " operands");
    return kNone;
  }
  return cmp ? kBool : t;
}

Type Sema::checkTernary(Expr &e, Type hint) {
  checkCond(*e.args[0], "condition of '?:'");
  Type t = unify(*e.args[1], *e.args[2], hint, e.loc, " between '?:' branches");
  if (isErr(t) || !e.args[0]->type.isBool())
    return kNone;
  if (t.scalar == ScalarKind::Void) {
    error(e.loc, "'?:' branches have no value");
    return kNone;
  }
  return t;
}

Type Sema::checkCast(Expr &e) {
  Expr &a = *e.args[0];
  Type target = e.castType;
  Type t = check(a, target.isInt() && isUntyped(a) ? target : kNone);
  if (isErr(t))
    return kNone;
  if (!isNumeric(t) && !t.isBool()) {
    error(e.loc, "cannot convert " + q(t) + " to " + q(target));
    return kNone;
  }
  if (target.isInt() && t.isInt() && a.constValue)
    e.constValue = wrapTo(widen(*a.constValue, t.scalar), target.scalar);
  return target;
}

Type Sema::checkIndex(Expr &e, bool write, bool alsoRead,
                      const char *writeWhat) {
  Decl *d = lookup(e.name);
  if (!d) {
    error(e.loc, "unknown name " + q(e.name));
    for (auto &a : e.args)
      check(*a, kI32);
    return kNone;
  }
  e.decl = d;
  if (d->kind != DeclKind::BufferParam && d->kind != DeclKind::Shared) {
    error(e.loc, q(e.name) + " is not an array and cannot be indexed");
    return kNone;
  }
  if (restrict != Restrict::None) {
    error(e.loc, std::string(restrictWhat) + " cannot read array " +
                     q(e.name));
    return kNone;
  }
  // An `out` buffer's elements have no value when the kernel starts.
  if (inOld && d->kind == DeclKind::BufferParam && d->access == Access::Out) {
    error(e.loc, "'old' of 'out' buffer " + q(e.name) +
                     ": its elements have no value at kernel entry ('old' is for 'inout' "
                     "buffers)");
    return kNone;
  }
  bool bad = false;
  if (int(e.args.size()) != d->type.rank) {
    error(e.loc, "wrong number of indices for " + q(e.name) + ": expected " +
                     std::to_string(d->type.rank) + ", found " +
                     std::to_string(e.args.size()));
    bad = true;
  }
  for (auto &a : e.args) {
    Type t = check(*a, kI32);
    if (isErr(t)) {
      bad = true;
      continue;
    }
    if (!t.isInt()) {
      error(startLoc(*a), "index must be an integer, found " + q(t));
      bad = true;
    }
  }
  if (d->kind == DeclKind::BufferParam && !spec) {
    if (write && d->access == Access::In) {
      error(e.loc, std::string("cannot ") + writeWhat + " 'in' buffer " +
                       q(e.name));
      bad = true;
    } else if (alsoRead && d->access == Access::Out) {
      if (write && std::string(writeWhat) != "assign to")
        error(e.loc, "cannot " + std::string(writeWhat) + " 'out' buffer " + q(e.name) +
                         " (an atomic reads the element's old value; declare it "
                         "'inout')");
      else if (write)
        error(e.loc, "cannot read 'out' buffer " + q(e.name) +
                         " (a compound assignment reads it; declare it "
                         "'inout')");
      else
        error(e.loc, "cannot read 'out' buffer " + q(e.name) +
                         " (declare it 'inout' to read it)");
      bad = true;
    }
  }
  if (bad)
    return kNone;
  return Type::of(d->type.scalar);
}

bool Sema::argCount(Expr &e, size_t n) {
  if (e.args.size() == n)
    return true;
  error(e.loc, q(e.name) + " expects " + std::to_string(n) + " argument" +
                   (n == 1 ? "" : "s") + ", found " +
                   std::to_string(e.args.size()));
  for (auto &a : e.args)
    if (a->kind != ExprKind::Index)
      check(*a, kNone);
  return false;
}

Type Sema::unifyArgs(Expr &call, size_t first, size_t count, Type hint) {
  // Type the first argument that is not an untyped literal first.
  size_t lead = first;
  for (size_t i = first; i < first + count; ++i)
    if (!isUntyped(*call.args[i])) {
      lead = i;
      break;
    }
  Type t = check(*call.args[lead], hint);
  bool bad = isErr(t);
  for (size_t i = first; i < first + count; ++i) {
    if (i == lead)
      continue;
    Type ti = check(*call.args[i], bad ? hint : t);
    if (isErr(ti)) {
      bad = true;
      continue;
    }
    if (!bad && ti != t) {
      error(call.args[i]->loc, "type mismatch in arguments of " +
                                   q(call.name) + ": " + q(t) + " and " +
                                   q(ti) + " (use 'as' to convert)");
      bad = true;
    }
  }
  return bad ? kNone : t;
}

Type Sema::checkCall(Expr &e, Type hint) {
  BKind k = builtinKind(e.name);
  if (k == BKind::None)
    return checkUserCall(e);
  if (e.mask) {
    if (!isCollective(k)) {
      error(startLoc(*e.mask), "'mask:' is only allowed on warp collectives");
    } else {
      Type mt = check(*e.mask, kU32);
      if (!isErr(mt) && mt != kU32 && mt != kI32)
        error(startLoc(*e.mask), "mask must be 'u32' or 'i32', found " + q(mt));
    }
  }
  if ((isCollective(k) || k == BKind::Atomic || k == BKind::AtomicCas) && fn && !spec)
    collectiveUse.emplace(fn, e.loc);
  if ((isCollective(k) || k == BKind::Atomic || k == BKind::AtomicCas) &&
      (spec || restrict != Restrict::None)) {
    error(e.loc, q(e.name) + " cannot be used in " +
                     (spec ? std::string("a specification")
                           : std::string("a ") + restrictWhat));
    return kNone;
  }
  Type fhint = hint.isFloat() ? hint : kNone;
  switch (k) {
  case BKind::None: return kNone;
  case BKind::MathF1:
  case BKind::MathF2: {
    size_t n = k == BKind::MathF1 ? 1 : 2;
    if (!argCount(e, n))
      return kNone;
    Type t = unifyArgs(e, 0, n, fhint);
    if (isErr(t))
      return kNone;
    if (!t.isFloat()) {
      error(startLoc(*e.args[0]), q(e.name) + " expects float arguments, found " +
                                q(t));
      return kNone;
    }
    return t;
  }
  case BKind::MinMax:
  case BKind::Clamp:
  case BKind::Cdiv: {
    size_t n = k == BKind::Clamp ? 3 : 2;
    if (!argCount(e, n))
      return kNone;
    Type t = unifyArgs(e, 0, n, hint);
    if (isErr(t))
      return kNone;
    if (k == BKind::Cdiv ? !t.isInt() : !isNumeric(t)) {
      error(startLoc(*e.args[0]), q(e.name) + " expects " +
                                (k == BKind::Cdiv ? "integer" : "numeric") +
                                " arguments, found " + q(t));
      return kNone;
    }
    return t;
  }
  case BKind::Shfl: {
    if (!argCount(e, 2))
      return kNone;
    Type t = check(*e.args[0], hint);
    Type d = check(*e.args[1], kI32);
    if (isErr(t) || isErr(d))
      return kNone;
    if (!isNumeric(t)) {
      error(startLoc(*e.args[0]), q(e.name) + " expects a numeric value, found " +
                                q(t));
      return kNone;
    }
    if (d != kI32) {
      error(startLoc(*e.args[1]), "lane offset of " + q(e.name) +
                                " must be 'i32', found " + q(d));
      return kNone;
    }
    return t;
  }
  case BKind::Ballot:
  case BKind::AnyAll: {
    if (!argCount(e, 1))
      return kNone;
    Type t = check(*e.args[0], kBool);
    if (isErr(t))
      return kNone;
    if (!t.isBool()) {
      error(startLoc(*e.args[0]), q(e.name) + " expects a 'bool' argument, found " +
                                q(t));
      return kNone;
    }
    return k == BKind::Ballot ? kU32 : kBool;
  }
  case BKind::Syncwarp:
    if (!argCount(e, 0))
      return kNone;
    return kVoid;
  case BKind::Atomic:
  case BKind::AtomicCas: {
    size_t n = k == BKind::Atomic ? 2 : 3;
    if (!argCount(e, n))
      return kNone;
    Expr &loc = *e.args[0];
    Type et = kNone;
    if (loc.kind != ExprKind::Index) {
      check(loc, kNone);
      error(loc.loc, "first argument of " + q(e.name) +
                         " must be an array element such as 'y[i]'");
    } else {
      std::string what = "apply " + q(e.name) + " to";
      // An atomic reads the element (its old value) as it writes it.
      et = checkIndex(loc, true, true, what.c_str());
      loc.type = et;
    }
    bool bad = isErr(et);
    for (size_t i = 1; i < n; ++i) {
      Type vt = check(*e.args[i], et);
      if (!bad && !isErr(vt) &&
          !expectType(et, vt, startLoc(*e.args[i]), " in " + q(e.name)))
        bad = true;
      if (isErr(vt))
        bad = true;
    }
    if (bad)
      return kNone;
    bool ok = e.name == "atomic_add" ? isNumeric(et) : et.isInt();
    if (!ok) {
      error(e.loc, q(e.name) + " cannot be applied to " + q(et) +
                       " elements");
      return kNone;
    }
    return et;
  }
  }
  return kNone;
}

Type Sema::checkUserCall(Expr &e) {
  auto it = fns.find(e.name);
  if (it == fns.end()) {
    if (kernels.count(e.name))
      error(e.loc, "cannot call kernel " + q(e.name));
    else if (lookup(e.name))
      error(e.loc, q(e.name) + " is not a function");
    else
      error(e.loc, "unknown function " + q(e.name));
    for (auto &a : e.args)
      if (a->kind != ExprKind::Index || lookup(a->name))
        check(*a, kNone);
    return kNone;
  }
  FnDecl *f = it->second;
  if (restrict != Restrict::None) {
    error(e.loc, std::string(restrictWhat) + " cannot call fn " + q(e.name));
    return kNone;
  }
  if (e.mask)
    error(e.mask->loc, "'mask:' is only allowed on warp collectives");
  e.callee = f;
  if (fn)
    callGraph[fn].push_back({f, e.loc});
  if (spec)
    specCalls.push_back({f, e.loc, launchClause});
  bool bad = false;
  if (e.args.size() != f->params.size()) {
    error(e.loc, q(e.name) + " expects " + std::to_string(f->params.size()) +
                     " argument" + (f->params.size() == 1 ? "" : "s") +
                     ", found " + std::to_string(e.args.size()));
    bad = true;
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    Type want = i < f->params.size() ? f->params[i]->type : kNone;
    Type t = check(*e.args[i], want);
    if (isErr(t)) {
      bad = true;
      continue;
    }
    if (!bad && !isErr(want) &&
        !expectType(want, t, startLoc(*e.args[i]),
                    " in argument " + std::to_string(i + 1) + " of " +
                        q(e.name)))
      bad = true;
  }
  if (bad)
    return kNone;
  return f->result;
}

Type Sema::checkQuantOrSum(Expr &e, Type hint) {
  const char *what = e.name.c_str();
  if (!specOnly(e, what))
    return kNone;
  Type t = unify(*e.args[0], *e.args[1], kNone, e.args[0]->loc,
                 " in range of " + q(what));
  if (!isErr(t) && !t.isInt()) {
    error(startLoc(*e.args[0]), "range of " + q(what) + " must be integer, found " +
                              q(t));
    t = kNone;
  }
  // A u32 range is read unsigned by a quantifier (over it zero-extended to
  // i64): `forall i in 0..m` for m = 4000000000 was empty, read signed.
  // Sums and folds over such ranges, and u64 ranges, are not modelled yet.
  if (!isErr(t) && t.isUnsigned() && (t.scalar == ScalarKind::U64 || e.kind == ExprKind::Sum)) {
    error(startLoc(*e.args[0]), "a range of " + q(t) + " in " + q(what) +
                                    " is not supported yet; convert the bounds, e.g. '0..(m "
                                    "as i64)'");
    t = kNone;
  }
  bool bad = isErr(t);
  if (e.kind == ExprKind::Sum && e.args.size() > 3) {
    Type st = check(*e.args[3], isErr(t) ? kI32 : t);
    if (isErr(st) || (!isErr(t) && !expectType(t, st, e.args[3]->loc,
                                                " in " + q(what) + " step")))
      bad = true;
  }
  if (Decl *outer = lookup(e.binder);
      outer && (outer->kind == DeclKind::ScalarParam || outer->kind == DeclKind::BufferParam)) {
    // `forall n in 0..n: ...` reads as the parameter and is the bound
    // variable: a report could not tell the two apart.
    error(e.loc, "bound variable " + q(e.binder) + " of " + q(what) +
                     " shadows the parameter " + q(e.binder) + "; give it another name");
    bad = true;
  }
  auto d = std::make_shared<Decl>();
  d->kind = DeclKind::Bound;
  d->name = e.binder;
  d->loc = e.loc;
  d->type = t;
  e.ownedBinder = d;
  e.binderDecl = d.get();
  push();
  declare(d.get());
  Type bt;
  if (e.kind == ExprKind::Quant) {
    checkCond(*e.args[2], ("body of '" + e.name + "'").c_str());
    bt = e.args[2]->type.isBool() ? kBool : kNone;
  } else {
    bool arg = e.name == "argmax" || e.name == "argmin";
    bt = check(*e.args[2], arg ? kNone : hint);
    if (!isErr(bt) && !isNumeric(bt)) {
      error(startLoc(*e.args[2]), "body of " + q(what) + " must be numeric, found " + q(bt));
      bt = kNone;
    } else if (!isErr(bt) && e.name == "prod" && !bt.isFloat()) {
      error(startLoc(*e.args[2]), "body of 'prod' must be a float, found " + q(bt));
      bt = kNone;
    } else if (!isErr(bt) && e.name != "sum" && bt.scalar == ScalarKind::U64) {
      // u32 folds compare unsigned (through i64); u64 would need i128.
      error(startLoc(*e.args[2]), q(what) + " over 'u64' terms is not supported (over 'u32' "
                                  "it is; convert the terms, e.g. to 'f64')");
      bt = kNone;
    } else if (!isErr(bt) && e.name == "sum" && bt.isUnsigned()) {
      // The exact sum would add the terms' signed readings (two terms of
      // 2^31 summed to -2^32, which a u32 comparison reads as 0).
      error(startLoc(*e.args[2]), "'sum' over " + q(bt) + " terms is not supported yet; "
                                  "convert them, e.g. 'x[j] as i64'");
      bt = kNone;
    }
    if (arg && !isErr(bt))
      bt = t; // the index of the extreme term, in the range's type
  }
  pop();
  if (bad)
    return kNone;
  return bt;
}

Type Sema::checkOld(Expr &e, Type hint) {
  if (!allowOld || !spec) {
    error(e.loc, "'old' is only allowed in kernel 'ensures' clauses");
    return kNone;
  }
  if (inOld) {
    error(e.loc, "'old' cannot be nested");
    return kNone;
  }
  inOld = true;
  Type t = check(*e.args[0], hint);
  inOld = false;
  return t;
}

void Sema::fold(Expr &e) {
  ScalarKind k = e.type.scalar;
  auto cv = [](const ExprPtr &p) -> std::optional<int64_t> {
    return p ? p->constValue : std::nullopt;
  };
  switch (e.kind) {
  case ExprKind::Unary: {
    auto a = cv(e.args[0]);
    if (!a || !e.args[0]->type.isInt())
      return;
    // A literal's value is its digits' (`-9223372036854775808` negates 2^63).
    i128 v = e.args[0]->kind == ExprKind::IntLit ? (i128)(uint64_t)e.args[0]->intValue
                                                  : widen(*a, k);
    if (e.op == "-") {
      // Negation must not overflow, unsigned too (`-1` is no u32), as in code.
      i128 r = -v;
      if (fitsIn(r, k))
        e.constValue = wrapTo(r, k);
      else
        error(e.loc, "constant expression overflows " + q(e.type));
    } else if (e.op == "~") {
      e.constValue = wrapTo(~v, k);
    }
    return;
  }
  case ExprKind::Binary: {
    auto a = cv(e.args[0]), b = cv(e.args[1]);
    if (!a || !b || !e.args[0]->type.isInt())
      return;
    i128 x = widen(*a, k), y = widen(*b, k);
    i128 r = 0;
    const std::string &op = e.op;
    int w = bitWidth(k);
    if (op == "+")
      r = x + y;
    else if (op == "-")
      r = x - y;
    else if (op == "*")
      r = x * y;
    else if (op == "/" || op == "%") {
      if (y == 0) {
        error(e.loc, "division by zero in constant expression");
        return;
      }
      r = op == "/" ? x / y : x % y;
    } else if (op == "<<" || op == ">>") {
      if (y < 0 || y >= w) {
        error(e.loc, "shift amount " + std::to_string((long long)y) +
                         " is out of range for " + q(e.type));
        return;
      }
      if (op == "<<") {
        if (x < 0 && !e.type.isUnsigned()) {
          error(e.loc, "left shift of a negative value in constant expression");
          return;
        }
        r = x << int(y);
      } else {
        r = x >> int(y);
      }
    } else if (op == "&")
      r = x & y;
    else if (op == "|")
      r = x | y;
    else if (op == "^")
      r = x ^ y;
    else
      return;
    // Every operation must fit its type, unsigned ones too (as in code).
    if (fitsIn(r, k))
      e.constValue = wrapTo(r, k);
    else
      error(e.loc, "constant expression overflows " + q(e.type));
    return;
  }
  case ExprKind::Call: {
    if (e.callee)
      return;
    for (auto &a : e.args)
      if (!a->constValue || a->type != e.type)
        return;
    if (e.args.empty())
      return;
    auto v = [&](size_t i) { return widen(*e.args[i]->constValue, k); };
    if (e.name == "min" && e.args.size() == 2)
      e.constValue = wrapTo(v(0) < v(1) ? v(0) : v(1), k);
    else if (e.name == "max" && e.args.size() == 2)
      e.constValue = wrapTo(v(0) > v(1) ? v(0) : v(1), k);
    else if (e.name == "clamp" && e.args.size() == 3) {
      i128 x = v(0), lo = v(1), hi = v(2);
      x = x < lo ? lo : x;
      x = x > hi ? hi : x;
      e.constValue = wrapTo(x, k);
    } else if (e.name == "cdiv" && e.args.size() == 2) {
      i128 a = v(0), b = v(1);
      if (b > 0 && a >= 0)
        e.constValue = wrapTo((a + b - 1) / b, k);
    }
    return;
  }
  case ExprKind::Ternary:
    // `c ? a : b` is folded only when the condition is a literal.
    if (e.args[0]->kind == ExprKind::BoolLit) {
      const ExprPtr &pick = e.args[0]->intValue ? e.args[1] : e.args[2];
      if (pick->constValue)
        e.constValue = pick->constValue;
    }
    return;
  default:
    return;
  }
}

} // namespace

bool checkModule(Module &m, DiagnosticEngine &diags) {
  Sema s(m, diags);
  return s.run() && checkExpansion(m, diags);
}

} // namespace kuiper
