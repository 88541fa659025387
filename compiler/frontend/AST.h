//===- AST.h - Abstract syntax tree of the .kp language ---------*- C++ -*-===//
//
// The AST produced by the Parser and annotated by Sema. Nodes are uniform
// (one Expr, one Stmt struct with a kind tag) so that passes over them stay
// short. After Sema every Expr has a resolved Type and every name use points
// at its declaration.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_FRONTEND_AST_H
#define KUIPER_FRONTEND_AST_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kuiper::ast {

/// A position in a source file (1-based line and column).
struct Loc {
  std::shared_ptr<std::string> file;
  int line = 0;
  int col = 0;
};

/// Scalar types of the language. `Void` is the result of statements-like
/// calls, `Error` marks an expression whose type could not be computed.
enum class ScalarKind { Error, Void, Bool, I32, U32, I64, U64, F16, BF16, F32, F64 };

/// The type of an expression or a declaration: a scalar, or (for buffer and
/// shared-array names) an element type plus a rank.
struct Type {
  ScalarKind scalar = ScalarKind::Error;
  int rank = 0; ///< 0 for scalars; >0 for buffers and shared arrays.
  bool isInt() const {
    return rank == 0 && (scalar == ScalarKind::I32 || scalar == ScalarKind::U32 ||
                         scalar == ScalarKind::I64 || scalar == ScalarKind::U64);
  }
  bool isSigned() const {
    return scalar == ScalarKind::I32 || scalar == ScalarKind::I64;
  }
  bool isUnsigned() const {
    return scalar == ScalarKind::U32 || scalar == ScalarKind::U64;
  }
  bool isFloat() const {
    return rank == 0 && (scalar == ScalarKind::F16 || scalar == ScalarKind::BF16 ||
                         scalar == ScalarKind::F32 || scalar == ScalarKind::F64);
  }
  bool isBool() const { return rank == 0 && scalar == ScalarKind::Bool; }
  bool operator==(const Type &o) const { return scalar == o.scalar && rank == o.rank; }
  bool operator!=(const Type &o) const { return !(*this == o); }
  static Type of(ScalarKind k) { return Type{k, 0}; }
};

/// Bit width of an integer or float scalar kind (bool is 1).
int bitWidth(ScalarKind k);
/// Spelling of a scalar kind as in source (`f32`, `i64`, ...).
const char *spelling(ScalarKind k);
std::string toString(const Type &t);

struct Decl;
struct FnDecl;
struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

enum class ExprKind {
  IntLit,    ///< intValue
  FloatLit,  ///< floatValue (text kept in `name`)
  BoolLit,   ///< intValue 0/1
  Name,      ///< `name`; decl resolved by Sema
  Builtin,   ///< threadIdx.x etc.: name = "threadIdx", member = "x"; laneid, warpid
  Unary,     ///< op in {"-","!","~"}; args[0]
  Binary,    ///< op in {"+","-","*","/","%","<<",">>","&","|","^","&&","||",
             ///<        "==","!=","<","<=",">",">=","==>"}; args[0], args[1]
  Ternary,   ///< args[0] ? args[1] : args[2]
  Cast,      ///< args[0] as castType
  Index,     ///< name[args...]; decl resolved to a buffer param or shared array
  Call,      ///< name(args...); math builtin, collective, atomic, or user fn.
             ///< `mask:` argument stored in `mask`. For atomics args[0] is an
             ///< Index expression naming the location.
  Quant,     ///< name in {"forall","exists"}; binder = bound variable;
             ///< args = {lo, hi, body}
  Sum,       ///< sum(binder in lo..hi [step s]: body); args = {lo, hi, body}
             ///< or {lo, hi, body, step}
  Old,       ///< old(args[0])
  List,      ///< compile-time list [a, b, c] (only as a `for` range)
};

/// An expression. Which fields matter depends on `kind` (see ExprKind).
struct Expr {
  ExprKind kind;
  Loc loc;
  std::string op;       ///< operator spelling for Unary/Binary
  std::string name;     ///< identifier, builtin base, callee, quantifier, literal text
  std::string member;   ///< builtin member (x/y/z)
  std::string binder;   ///< bound variable of Quant/Sum
  int64_t intValue = 0; ///< for IntLit/BoolLit (IntLit may hold up to 2^64-1 as uint64 bits)
  double floatValue = 0;
  Type castType;        ///< target of Cast; explicit literal type if any
  std::vector<ExprPtr> args;
  ExprPtr mask;         ///< optional `mask: e` of collectives

  // Filled by Sema.
  Type type;                 ///< type of the value
  Decl *decl = nullptr;      ///< for Name/Index/Quant/Sum binder uses: what it names
  FnDecl *callee = nullptr;  ///< for calls of user fns
  Decl *binderDecl = nullptr;///< for Quant/Sum: the bound variable's declaration
  std::optional<int64_t> constValue; ///< folded integer value when compile-time constant
  std::shared_ptr<Decl> ownedBinder; ///< owns *binderDecl (Quant/Sum)

  Expr(ExprKind k, Loc l) : kind(k), loc(std::move(l)) {}
};

/// What a name declares.
enum class DeclKind {
  ScalarParam, ///< kernel/fn scalar parameter
  BufferParam, ///< kernel global buffer parameter
  Let,         ///< immutable local
  Var,         ///< mutable local
  Shared,      ///< block-shared array
  Const,       ///< top-level compile-time constant
  LoopVar,     ///< `for` induction variable (immutable in body)
  Bound,       ///< variable bound by forall/exists/sum
};

enum class Access { None, In, Out, InOut };

/// A named entity. Owned by the item or statement that introduces it.
struct Decl {
  DeclKind kind;
  std::string name;
  Loc loc;
  Type type;                 ///< element type + rank for buffers/shared arrays
  Access access = Access::None;
  std::vector<ExprPtr> dims; ///< buffer dims (exprs over scalar params) or shared dims (constants)
  std::vector<int64_t> constDims; ///< shared arrays: folded dims
  ExprPtr init;              ///< Const/Let/Var initial value (may be null for Var)
  std::optional<int64_t> constValue; ///< Const (and folded lets): integer value
  int index = -1;            ///< parameter position for params
};

enum class StmtKind {
  Let,      ///< decl (Let) with init
  Var,      ///< decl (Var) with optional init
  Shared,   ///< decl (Shared)
  Assign,   ///< target (Name or Index) op value; op in {"=","+=","-=","*=","/=",...}
  ExprStmt, ///< a call evaluated for effect (atomics, syncwarp)
  If,       ///< cond, thenBody, elseBody (else-if is an If inside elseBody)
  For,      ///< decl (LoopVar), lo, hi, step (optional), invariants, body;
            ///< or list (ExprKind::List) for compile-time lists
  While,    ///< cond, invariants, body
  Barrier,  ///< optional contract (cond) with approx flag
  Assert,   ///< cond
  Assume,   ///< cond
  Return,   ///< optional value
  Block,    ///< nested { ... }
};

/// An invariant or contract clause that may be `approx`.
struct SpecClause {
  ExprPtr cond;
  bool approx = false;
  Loc loc;
};

struct Stmt {
  StmtKind kind;
  Loc loc;
  std::unique_ptr<Decl> decl; ///< Let/Var/Shared/For
  ExprPtr target;             ///< Assign
  std::string op;             ///< Assign operator
  ExprPtr value;              ///< Assign value, ExprStmt, Return value
  ExprPtr cond;               ///< If/While/Assert/Assume; Barrier contract
  bool approx = false;        ///< Barrier contract is approx
  ExprPtr lo, hi, step;       ///< For ranges
  ExprPtr list;               ///< For over a compile-time list
  std::vector<SpecClause> invariants;
  std::vector<StmtPtr> body;     ///< then-branch / loop body / block
  std::vector<StmtPtr> elseBody; ///< else-branch
  bool hasElse = false;

  Stmt(StmtKind k, Loc l) : kind(k), loc(std::move(l)) {}
};

/// A memory-contract range `x[lo..hi, lo2..hi2]` (a single index `e` is e..e+1).
struct AccessRange {
  std::string buffer;
  Decl *decl = nullptr;
  std::vector<std::pair<ExprPtr, ExprPtr>> ranges;
  Loc loc;
};

/// Things common to fns and kernels.
struct Callable {
  std::string name;
  Loc loc;
  std::vector<std::unique_ptr<Decl>> params;
  std::vector<SpecClause> requires_;
  std::vector<SpecClause> ensures;
  std::vector<StmtPtr> body;
};

/// `fn name(params) -> T requires ... ensures ... { body }`. In fn ensures
/// the name `result` denotes the return value.
struct FnDecl : Callable {
  Type result;
  std::unique_ptr<Decl> resultDecl; ///< the `result` binding used in ensures
};

/// `kernel name(params) clauses { body }`.
struct KernelDecl : Callable {
  std::vector<ExprPtr> blockDims; ///< 1..3 constant exprs
  std::vector<ExprPtr> gridDims;  ///< 1..3 exprs over scalar params
  std::vector<int64_t> block = {1, 1, 1}; ///< folded block dims (Sema)
  std::vector<AccessRange> reads, writes;
  bool hasReads = false, hasWrites = false;
  bool deterministic = false; ///< kernel asked for `deterministic`
};

/// A parsed file (with its imports resolved and merged by the driver).
struct Module {
  std::vector<std::unique_ptr<Decl>> consts;
  std::vector<std::unique_ptr<FnDecl>> fns;
  std::vector<std::unique_ptr<KernelDecl>> kernels;
  std::vector<std::string> imports; ///< "std.activation" etc.
};

} // namespace kuiper::ast

#endif // KUIPER_FRONTEND_AST_H
