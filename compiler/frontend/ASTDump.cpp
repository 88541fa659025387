//===- ASTDump.cpp - Readable indented dump of the AST --------------------===//
#include "compiler/frontend/Frontend.h"

namespace kuiper {

using namespace ast;

namespace {

const char *declKindName(DeclKind k) {
  switch (k) {
  case DeclKind::ScalarParam: return "param";
  case DeclKind::BufferParam: return "buffer";
  case DeclKind::Let: return "let";
  case DeclKind::Var: return "var";
  case DeclKind::Shared: return "shared";
  case DeclKind::Const: return "const";
  case DeclKind::LoopVar: return "loopvar";
  case DeclKind::Bound: return "bound";
  }
  return "?";
}

const char *accessName(Access a) {
  switch (a) {
  case Access::None: return "";
  case Access::In: return "in ";
  case Access::Out: return "out ";
  case Access::InOut: return "inout ";
  }
  return "";
}

class Dumper {
public:
  explicit Dumper(std::ostream &os) : os(os) {}

  void module(const Module &m) {
    os << "Module\n";
    for (const std::string &i : m.imports)
      line(1) << "Import " << i << "\n";
    for (const auto &c : m.consts)
      constDecl(*c, 1);
    for (const auto &f : m.fns)
      fnDecl(*f, 1);
    for (const auto &k : m.kernels)
      kernelDecl(*k, 1);
  }

private:
  std::ostream &os;

  std::ostream &line(int ind) {
    for (int i = 0; i < ind; ++i)
      os << "  ";
    return os;
  }

  void typeSuffix(const Type &t) { os << " : " << toString(t); }

  void constDecl(const Decl &d, int ind) {
    line(ind) << "Const " << d.name << " : " << toString(d.type);
    if (d.constValue)
      os << " = " << *d.constValue;
    os << "\n";
    if (d.init)
      expr(*d.init, ind + 1);
  }

  void param(const Decl &d, int ind) {
    line(ind) << "Param #" << d.index << " " << accessName(d.access) << d.name
              << " : " << spelling(d.type.scalar);
    if (d.type.rank)
      os << " rank " << d.type.rank;
    os << "\n";
    for (const auto &e : d.dims)
      expr(*e, ind + 1);
  }

  void specs(const char *what, const std::vector<SpecClause> &cs, int ind) {
    for (const SpecClause &c : cs) {
      line(ind) << what << (c.approx ? " approx" : "") << "\n";
      if (c.cond)
        expr(*c.cond, ind + 1);
    }
  }

  void fnDecl(const FnDecl &f, int ind) {
    line(ind) << "Fn " << f.name << " -> " << toString(f.result) << "\n";
    for (const auto &p : f.params)
      param(*p, ind + 1);
    specs("Requires", f.requires_, ind + 1);
    specs("Ensures", f.ensures, ind + 1);
    line(ind + 1) << "Body\n";
    stmts(f.body, ind + 2);
  }

  void ranges(const char *what, const std::vector<AccessRange> &rs, int ind) {
    for (const AccessRange &r : rs) {
      line(ind) << what << " " << r.buffer << "\n";
      for (const auto &pr : r.ranges) {
        line(ind + 1) << "Range\n";
        if (pr.first)
          expr(*pr.first, ind + 2);
        if (pr.second)
          expr(*pr.second, ind + 2);
      }
    }
  }

  void kernelDecl(const KernelDecl &k, int ind) {
    line(ind) << "Kernel " << k.name << " block(" << k.block[0] << ", "
              << k.block[1] << ", " << k.block[2] << ")"
              << (k.deterministic ? " deterministic" : "") << "\n";
    for (const auto &p : k.params)
      param(*p, ind + 1);
    line(ind + 1) << "Block\n";
    for (const auto &e : k.blockDims)
      expr(*e, ind + 2);
    line(ind + 1) << "Grid\n";
    for (const auto &e : k.gridDims)
      expr(*e, ind + 2);
    specs("Requires", k.requires_, ind + 1);
    ranges("Reads", k.reads, ind + 1);
    ranges("Writes", k.writes, ind + 1);
    specs("Ensures", k.ensures, ind + 1);
    line(ind + 1) << "Body\n";
    stmts(k.body, ind + 2);
  }

  void stmts(const std::vector<StmtPtr> &ss, int ind) {
    for (const auto &s : ss)
      if (s)
        stmt(*s, ind);
  }

  void declLine(const Decl &d) {
    os << d.name << " : " << toString(d.type);
    if (!d.constDims.empty()) {
      os << " dims(";
      for (size_t i = 0; i < d.constDims.size(); ++i)
        os << (i ? ", " : "") << d.constDims[i];
      os << ")";
    }
    if (d.constValue)
      os << " = " << *d.constValue;
    os << "\n";
  }

  void stmt(const Stmt &s, int ind) {
    switch (s.kind) {
    case StmtKind::Let:
    case StmtKind::Var:
      line(ind) << (s.kind == StmtKind::Let ? "Let " : "Var ");
      declLine(*s.decl);
      if (s.decl->init)
        expr(*s.decl->init, ind + 1);
      return;
    case StmtKind::Shared:
      line(ind) << "Shared ";
      declLine(*s.decl);
      for (const auto &d : s.decl->dims)
        expr(*d, ind + 1);
      return;
    case StmtKind::Assign:
      line(ind) << "Assign '" << s.op << "'\n";
      expr(*s.target, ind + 1);
      expr(*s.value, ind + 1);
      return;
    case StmtKind::ExprStmt:
      line(ind) << "ExprStmt\n";
      expr(*s.value, ind + 1);
      return;
    case StmtKind::If:
      line(ind) << "If\n";
      expr(*s.cond, ind + 1);
      line(ind) << "Then\n";
      stmts(s.body, ind + 1);
      if (s.hasElse) {
        line(ind) << "Else\n";
        stmts(s.elseBody, ind + 1);
      }
      return;
    case StmtKind::For:
      line(ind) << "For ";
      declLine(*s.decl);
      if (s.list) {
        expr(*s.list, ind + 1);
      } else {
        expr(*s.lo, ind + 1);
        expr(*s.hi, ind + 1);
        if (s.step) {
          line(ind + 1) << "Step\n";
          expr(*s.step, ind + 2);
        }
      }
      specs("Invariant", s.invariants, ind + 1);
      line(ind) << "Do\n";
      stmts(s.body, ind + 1);
      return;
    case StmtKind::While:
      line(ind) << "While\n";
      expr(*s.cond, ind + 1);
      specs("Invariant", s.invariants, ind + 1);
      line(ind) << "Do\n";
      stmts(s.body, ind + 1);
      return;
    case StmtKind::Barrier:
      line(ind) << "Barrier" << (s.cond ? " ensures" : "")
                << (s.approx ? " approx" : "") << "\n";
      if (s.cond)
        expr(*s.cond, ind + 1);
      return;
    case StmtKind::Assert:
    case StmtKind::Assume:
      line(ind) << (s.kind == StmtKind::Assert ? "Assert\n" : "Assume\n");
      expr(*s.cond, ind + 1);
      return;
    case StmtKind::Return:
      line(ind) << "Return\n";
      if (s.value)
        expr(*s.value, ind + 1);
      return;
    case StmtKind::Block:
      line(ind) << "Block\n";
      stmts(s.body, ind + 1);
      return;
    }
  }

  void expr(const Expr &e, int ind) {
    line(ind);
    switch (e.kind) {
    case ExprKind::IntLit: os << "IntLit " << e.name; break;
    case ExprKind::FloatLit: os << "FloatLit " << e.name; break;
    case ExprKind::BoolLit: os << "BoolLit " << (e.intValue ? "true" : "false"); break;
    case ExprKind::Name:
      os << "Name " << e.name;
      if (e.decl)
        os << " (" << declKindName(e.decl->kind) << ")";
      break;
    case ExprKind::Builtin:
      os << "Builtin " << e.name << (e.member.empty() ? "" : ".") << e.member;
      break;
    case ExprKind::Unary: os << "Unary '" << e.op << "'"; break;
    case ExprKind::Binary: os << "Binary '" << e.op << "'"; break;
    case ExprKind::Ternary: os << "Ternary"; break;
    case ExprKind::Cast: os << "Cast " << toString(e.castType); break;
    case ExprKind::Index:
      os << "Index " << e.name;
      if (e.decl)
        os << " (" << accessName(e.decl->access) << declKindName(e.decl->kind)
           << ")";
      break;
    case ExprKind::Call:
      os << "Call " << e.name << (e.callee ? " (fn)" : "");
      break;
    case ExprKind::Quant: os << "Quant " << e.name << " " << e.binder; break;
    case ExprKind::Sum:
      if (e.name == "sum")
        os << "Sum " << e.binder;
      else
        os << "Reduce " << e.name << " " << e.binder;
      break;
    case ExprKind::Old: os << "Old"; break;
    case ExprKind::List: os << "List"; break;
    }
    typeSuffix(e.type);
    if (e.constValue)
      os << " = " << *e.constValue;
    os << "\n";
    for (const auto &a : e.args)
      if (a)
        expr(*a, ind + 1);
    if (e.mask) {
      line(ind + 1) << "Mask\n";
      expr(*e.mask, ind + 2);
    }
  }
};

} // namespace

void dumpAST(const Module &m, std::ostream &os) {
  Dumper d(os);
  d.module(m);
}

} // namespace kuiper
