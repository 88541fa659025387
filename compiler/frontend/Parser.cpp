//===- Parser.cpp - Recursive-descent parser of the .kp language ---------===//
#include "compiler/frontend/Parser.h"

namespace kuiper {

using namespace ast;

bool scalarKindFromName(const std::string &n, ScalarKind &k) {
  static const struct {
    const char *name;
    ScalarKind kind;
  } table[] = {{"bool", ScalarKind::Bool}, {"i32", ScalarKind::I32},
               {"u32", ScalarKind::U32},   {"i64", ScalarKind::I64},
               {"u64", ScalarKind::U64},   {"f16", ScalarKind::F16},
               {"bf16", ScalarKind::BF16}, {"f32", ScalarKind::F32},
               {"f64", ScalarKind::F64}};
  for (const auto &e : table)
    if (n == e.name) {
      k = e.kind;
      return true;
    }
  return false;
}

Parser::Parser(std::vector<Token> tokens, std::shared_ptr<std::string> file,
               DiagnosticEngine &diags)
    : toks(std::move(tokens)), file(std::move(file)), diags(diags) {
  if (toks.empty() || toks.back().kind != Tok::Eof) {
    Token eof;
    eof.kind = Tok::Eof;
    toks.push_back(eof);
  }
}

Loc Parser::locOf(const Token &t) const {
  Loc l;
  l.file = file;
  l.line = t.line;
  l.col = t.col;
  return l;
}

Loc Parser::afterPrev() const {
  if (pos == 0)
    return loc();
  Loc l = locOf(prevTok());
  l.col = prevTok().endCol;
  return l;
}

void Parser::setFatal() {
  fatal = true;
  pos = toks.size() - 1;
}

void Parser::error(const Loc &l, const std::string &msg) {
  if (fatal || panic)
    return;
  diags.error(l, msg);
  panic = true;
  if (diags.errorCount() >= kMaxErrors)
    setFatal();
}

static std::string describe(const Token &t) {
  switch (t.kind) {
  case Tok::Eof: return "end of file";
  case Tok::Ident: return "identifier '" + t.text + "'";
  case Tok::IntLit:
  case Tok::FloatLit: return "'" + t.text + "'";
  default: return tokName(t.kind);
  }
}

bool Parser::expect(Tok k, const std::string &context) {
  if (accept(k))
    return true;
  std::string msg = std::string("expected ") + tokName(k);
  if (!context.empty())
    msg += " " + context;
  msg += ", found " + describe(tok());
  error(loc(), msg);
  return false;
}

bool Parser::expectSemi(const char *after) {
  if (accept(Tok::Semi))
    return true;
  std::string msg = std::string("expected ';' after ") + after;
  if (panic || fatal)
    return false;
  bool newLine = tok().kind == Tok::Eof || tok().line != prevTok().line ||
                 tok().kind == Tok::RBrace;
  error(afterPrev(), msg);
  if (newLine) {
    // Behave as if the ';' was there: the next line starts a new statement.
    panic = false;
    return true;
  }
  return false;
}

bool Parser::enter(const char *what) {
  if (++depth > kMaxNesting) {
    error(loc(), std::string(what) + " nested too deeply (more than " +
                     std::to_string(kMaxNesting) +
                     " levels of blocks, statements and operators)");
    setFatal();
    return false;
  }
  return true;
}

void Parser::syncStmt() {
  int braces = 0;
  while (!is(Tok::Eof)) {
    if (is(Tok::Semi) && braces == 0) {
      next();
      break;
    }
    if (is(Tok::LBrace)) {
      ++braces;
    } else if (is(Tok::RBrace)) {
      if (braces == 0)
        break;
      if (--braces == 0) {
        next();
        break;
      }
    }
    next();
  }
  if (!fatal)
    panic = false;
}

void Parser::syncItem() {
  int braces = 0;
  while (!is(Tok::Eof)) {
    if (braces == 0 && (is(Tok::KwImport) || is(Tok::KwFn) ||
                        is(Tok::KwKernel) || is(Tok::KwConst)))
      break;
    if (is(Tok::LBrace))
      ++braces;
    else if (is(Tok::RBrace) && braces > 0)
      --braces;
    next();
  }
  if (!fatal)
    panic = false;
}

//===----------------------------------------------------------------------===//
// Items
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto m = std::make_unique<Module>();
  while (!is(Tok::Eof) && !fatal) {
    size_t start = pos;
    bool ok;
    switch (tok().kind) {
    case Tok::KwImport: ok = parseImport(*m); break;
    case Tok::KwConst: ok = parseConst(*m); break;
    case Tok::KwFn: ok = parseFn(*m); break;
    case Tok::KwKernel: ok = parseKernel(*m); break;
    default:
      error(loc(), "expected 'import', 'const', 'fn' or 'kernel', found " +
                       describe(tok()));
      ok = false;
      break;
    }
    if (!ok) {
      if (pos == start)
        next();
      syncItem();
    }
  }
  return m;
}

bool Parser::parseImport(Module &m) {
  Loc l = loc();
  next();
  std::string name;
  if (!is(Tok::Ident)) {
    error(loc(), "expected module name after 'import'");
    return false;
  }
  name = tok().text;
  next();
  while (accept(Tok::Dot)) {
    if (!is(Tok::Ident)) {
      error(loc(), "expected identifier after '.' in module name");
      return false;
    }
    name += "." + tok().text;
    next();
  }
  if (!expectSemi("import"))
    return false;
  m.imports.push_back(name);
  importLocs.push_back({name, l});
  return true;
}

bool Parser::parseType(Type &t) {
  ScalarKind k;
  if (is(Tok::Ident) && scalarKindFromName(tok().text, k)) {
    t = Type::of(k);
    next();
    return true;
  }
  error(loc(), "expected type (bool, i32, u32, i64, u64, f16, bf16, f32, f64), found " +
                   describe(tok()));
  return false;
}

bool Parser::parseConst(Module &m) {
  auto d = std::make_unique<Decl>();
  d->kind = DeclKind::Const;
  next();
  if (!is(Tok::Ident)) {
    error(loc(), "expected constant name after 'const'");
    return false;
  }
  d->loc = loc();
  d->name = tok().text;
  next();
  if (!expect(Tok::Colon, "after constant name") || !parseType(d->type))
    return false;
  if (!expect(Tok::Assign, "in constant definition"))
    return false;
  d->init = parseExpr();
  if (!d->init || !expectSemi("constant definition"))
    return false;
  m.consts.push_back(std::move(d));
  return true;
}

bool Parser::parseDims(std::vector<ExprPtr> &dims) {
  // at '['
  next();
  if (is(Tok::RBracket)) {
    error(loc(), "expected at least one dimension");
    return false;
  }
  while (true) {
    ExprPtr e = parseExpr();
    if (!e)
      return false;
    dims.push_back(std::move(e));
    if (accept(Tok::Comma))
      continue;
    return expect(Tok::RBracket, "after dimensions");
  }
}

bool Parser::parseParams(Callable &c, bool kernel) {
  if (!expect(Tok::LParen, kernel ? "after kernel name" : "after fn name"))
    return false;
  if (accept(Tok::RParen))
    return true;
  while (true) {
    auto d = std::make_unique<Decl>();
    Access acc = Access::None;
    Loc accLoc = loc();
    if (accept(Tok::KwIn))
      acc = Access::In;
    else if (accept(Tok::KwOut))
      acc = Access::Out;
    else if (accept(Tok::KwInout))
      acc = Access::InOut;
    if (!is(Tok::Ident)) {
      error(loc(), "expected parameter name, found " + describe(tok()));
      return false;
    }
    d->loc = loc();
    d->name = tok().text;
    next();
    if (!expect(Tok::Colon, "after parameter name") || !parseType(d->type))
      return false;
    if (is(Tok::LBracket)) {
      if (!parseDims(d->dims))
        return false;
      d->type.rank = int(d->dims.size());
      d->kind = DeclKind::BufferParam;
      d->access = acc;
      if (!kernel) {
        error(d->loc, "fn parameter '" + d->name + "' must be a scalar");
      } else if (acc == Access::None) {
        error(d->loc, "buffer parameter '" + d->name +
                          "' needs 'in', 'out' or 'inout'");
      }
    } else {
      d->kind = DeclKind::ScalarParam;
      if (acc != Access::None) {
        error(accLoc, "scalar parameter '" + d->name +
                          "' cannot be 'in', 'out' or 'inout' (only buffers can)");
      }
    }
    d->index = int(c.params.size());
    c.params.push_back(std::move(d));
    if (panic)
      return false;
    if (accept(Tok::Comma))
      continue;
    if (is(Tok::RParen))
      return expect(Tok::RParen, "");
    error(loc(), "expected ',' or ')' after parameter '" + c.params.back()->name + "', found " +
                     describe(tok()));
    return false;
  }
}

bool Parser::parseSpec(std::vector<SpecClause> &out, bool allowApprox) {
  SpecClause c;
  c.loc = loc();
  next(); // requires / ensures / invariant
  if (isIdent("approx")) {
    if (!allowApprox) {
      error(loc(), "'approx' is not allowed here");
      return false;
    }
    c.approx = true;
    next();
  }
  c.cond = parseExpr();
  if (!c.cond)
    return false;
  out.push_back(std::move(c));
  return true;
}

/// `fn NAME(params)` / `kernel NAME(params)`, the keyword being current.
bool Parser::parseHeader(Callable &c, bool kernel) {
  next();
  if (!is(Tok::Ident)) {
    error(loc(), kernel ? "expected kernel name after 'kernel'" : "expected fn name after 'fn'");
    return false;
  }
  c.loc = loc();
  c.name = tok().text;
  next();
  return parseParams(c, kernel);
}

bool Parser::parseFn(Module &m) {
  auto f = std::make_unique<FnDecl>();
  if (!parseHeader(*f, false))
    return false;
  f->result = Type::of(ScalarKind::Void);
  if (accept(Tok::Arrow)) {
    if (!parseType(f->result))
      return false;
  }
  while (!is(Tok::LBrace)) {
    if (is(Tok::KwRequires)) {
      if (!parseSpec(f->requires_, false))
        return false;
    } else if (is(Tok::KwEnsures)) {
      if (!parseSpec(f->ensures, true))
        return false;
    } else {
      error(loc(), "expected 'requires', 'ensures' or '{' in fn definition, found " +
                       describe(tok()));
      return false;
    }
  }
  if (!parseBlock(f->body))
    return false;
  m.fns.push_back(std::move(f));
  return true;
}

bool Parser::parseExprList(std::vector<ExprPtr> &out, const char *what) {
  if (!expect(Tok::LParen, std::string("after '") + what + "'"))
    return false;
  if (is(Tok::RParen)) {
    error(loc(), std::string("expected at least one dimension in '") + what +
                     "'");
    return false;
  }
  while (true) {
    ExprPtr e = parseExpr();
    if (!e)
      return false;
    out.push_back(std::move(e));
    if (accept(Tok::Comma))
      continue;
    return expect(Tok::RParen, std::string("after '") + what + "' dimensions");
  }
}

ExprPtr cloneExpr(const Expr &e) {
  auto c = std::make_unique<Expr>(e.kind, e.loc);
  c->op = e.op;
  c->name = e.name;
  c->member = e.member;
  c->binder = e.binder;
  c->intValue = e.intValue;
  c->floatValue = e.floatValue;
  c->castType = e.castType;
  for (const ExprPtr &a : e.args)
    c->args.push_back(a ? cloneExpr(*a) : nullptr);
  if (e.mask)
    c->mask = cloneExpr(*e.mask);
  return c;
}

bool Parser::parseAccessList(std::vector<AccessRange> &out) {
  next(); // reads / writes
  while (true) {
    AccessRange r;
    r.loc = loc();
    if (!is(Tok::Ident)) {
      error(loc(), "expected buffer name, found " + describe(tok()));
      return false;
    }
    r.buffer = tok().text;
    next();
    if (!expect(Tok::LBracket, "after buffer name in memory contract"))
      return false;
    while (true) {
      ExprPtr lo = parseExpr();
      if (!lo)
        return false;
      ExprPtr hi;
      if (accept(Tok::DotDot)) {
        hi = parseExpr();
        if (!hi)
          return false;
      } else {
        // A single index `e` means e..e+1.
        auto one = std::make_unique<Expr>(ExprKind::IntLit, lo->loc);
        one->intValue = 1;
        one->name = "1";
        auto sum = std::make_unique<Expr>(ExprKind::Binary, lo->loc);
        sum->op = "+";
        sum->args.push_back(cloneExpr(*lo));
        sum->args.push_back(std::move(one));
        hi = std::move(sum);
      }
      r.ranges.push_back({std::move(lo), std::move(hi)});
      if (accept(Tok::Comma))
        continue;
      if (!expect(Tok::RBracket, "after memory contract ranges"))
        return false;
      break;
    }
    out.push_back(std::move(r));
    if (is(Tok::Comma) && peekTok().kind == Tok::Ident &&
        peekTok(2).kind == Tok::LBracket) {
      next();
      continue;
    }
    return true;
  }
}

bool Parser::parseKernel(Module &m) {
  auto k = std::make_unique<KernelDecl>();
  if (!parseHeader(*k, true))
    return false;
  bool hasLaunch = false;
  while (!is(Tok::LBrace)) {
    if (isIdent("launch")) {
      Loc l = loc();
      next();
      if (hasLaunch) {
        error(l, "duplicate 'launch' clause");
        return false;
      }
      hasLaunch = true;
      bool seenBlock = false, seenGrid = false;
      while (isIdent("block") || isIdent("grid")) {
        bool isBlock = tok().text == "block";
        if ((isBlock && seenBlock) || (!isBlock && seenGrid)) {
          error(loc(), std::string("duplicate '") + tok().text +
                           "' in launch clause");
          return false;
        }
        next();
        if (!parseExprList(isBlock ? k->blockDims : k->gridDims,
                           isBlock ? "block" : "grid"))
          return false;
        (isBlock ? seenBlock : seenGrid) = true;
      }
      if (!seenBlock || !seenGrid) {
        error(loc(), std::string("expected '") + (seenBlock ? "grid" : "block") +
                         "(...)' in launch clause, found " + describe(tok()));
        return false;
      }
    } else if (is(Tok::KwRequires)) {
      if (!parseSpec(k->requires_, false))
        return false;
    } else if (is(Tok::KwEnsures)) {
      if (!parseSpec(k->ensures, true))
        return false;
    } else if (isIdent("reads")) {
      k->hasReads = true;
      if (!parseAccessList(k->reads))
        return false;
    } else if (isIdent("writes")) {
      k->hasWrites = true;
      if (!parseAccessList(k->writes))
        return false;
    } else if (isIdent("deterministic")) {
      k->deterministic = true;
      next();
    } else {
      error(loc(), "expected kernel clause ('launch', 'requires', 'ensures', "
                   "'reads', 'writes', 'deterministic') or '{', found " +
                       describe(tok()) +
                       (is(Tok::Assign) ? " (a clause compares with '==')" : ""));
      return false;
    }
  }
  if (!hasLaunch)
    error(k->loc, "kernel '" + k->name +
                      "' has no 'launch block(...) grid(...)' clause");
  if (panic) {
    // Keep going with the body so its errors are reported too.
    panic = false;
  }
  if (!parseBlock(k->body))
    return false;
  m.kernels.push_back(std::move(k));
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseBlock(std::vector<StmtPtr> &body) {
  Loc open = loc();
  if (!expect(Tok::LBrace, ""))
    return false;
  if (!enter("statements"))
    return false;
  // The block's '}' is missing: one error, with a note at its '{'.
  auto unclosed = [&](const std::string &found) {
    if (fatal || panic)
      return;
    diags.error(loc(), "expected '}' at end of block, found " + found);
    diags.note(open, "to match this '{'");
    setFatal();
  };
  while (!is(Tok::RBrace) && !is(Tok::Eof) && !fatal) {
    if (is(Tok::KwKernel) || is(Tok::KwFn) || is(Tok::KwImport)) {
      unclosed(describe(tok()) + " (a new item starts here)");
      break;
    }
    size_t start = pos;
    StmtPtr s = parseStmt();
    if (s) {
      body.push_back(std::move(s));
    } else {
      if (fatal)
        break;
      if (pos == start && !is(Tok::RBrace) && !is(Tok::Eof))
        next();
      syncStmt();
    }
  }
  leave();
  if (fatal)
    return false;
  if (!is(Tok::RBrace)) {
    unclosed(describe(tok()));
    return false;
  }
  next();
  return true;
}

ast::StmtPtr Parser::parseStmt() {
  if (!enter("statements"))
    return nullptr;
  StmtPtr s = parseStmtInner();
  leave();
  return s;
}

static bool isAssignOp(Tok k, std::string &op) {
  switch (k) {
  case Tok::Assign: op = "="; return true;
  case Tok::PlusEq: op = "+="; return true;
  case Tok::MinusEq: op = "-="; return true;
  case Tok::StarEq: op = "*="; return true;
  case Tok::SlashEq: op = "/="; return true;
  case Tok::PercentEq: op = "%="; return true;
  case Tok::AmpEq: op = "&="; return true;
  case Tok::PipeEq: op = "|="; return true;
  case Tok::CaretEq: op = "^="; return true;
  case Tok::ShlEq: op = "<<="; return true;
  case Tok::ShrEq: op = ">>="; return true;
  default: return false;
  }
}

ast::StmtPtr Parser::parseStmtInner() {
  Loc l = loc();
  switch (tok().kind) {
  case Tok::KwLet:
  case Tok::KwVar: {
    bool isLet = is(Tok::KwLet);
    auto s = std::make_unique<Stmt>(isLet ? StmtKind::Let : StmtKind::Var, l);
    next();
    auto d = std::make_unique<Decl>();
    d->kind = isLet ? DeclKind::Let : DeclKind::Var;
    if (!is(Tok::Ident)) {
      error(loc(), std::string("expected variable name after '") +
                       (isLet ? "let" : "var") + "', found " + describe(tok()));
      return nullptr;
    }
    d->loc = loc();
    d->name = tok().text;
    next();
    bool hasType = false;
    if (accept(Tok::Colon)) {
      if (!parseType(d->type))
        return nullptr;
      hasType = true;
    }
    if (accept(Tok::Assign)) {
      d->init = parseExpr();
      if (!d->init)
        return nullptr;
    } else if (isLet) {
      error(loc(), "expected '=' and an initial value in 'let', found " +
                       describe(tok()));
      return nullptr;
    } else if (!hasType) {
      error(d->loc, "'var " + d->name + "' needs a type or an initial value");
      return nullptr;
    }
    if (!expectSemi("statement"))
      return nullptr;
    s->decl = std::move(d);
    return s;
  }
  case Tok::KwShared: {
    auto s = std::make_unique<Stmt>(StmtKind::Shared, l);
    next();
    auto d = std::make_unique<Decl>();
    d->kind = DeclKind::Shared;
    if (!is(Tok::Ident)) {
      error(loc(), "expected name after 'shared', found " + describe(tok()));
      return nullptr;
    }
    d->loc = loc();
    d->name = tok().text;
    next();
    if (!expect(Tok::Colon, "after shared array name") || !parseType(d->type))
      return nullptr;
    if (!is(Tok::LBracket)) {
      error(loc(), "expected '[' and dimensions of shared array, found " +
                       describe(tok()));
      return nullptr;
    }
    if (!parseDims(d->dims))
      return nullptr;
    d->type.rank = int(d->dims.size());
    if (!expectSemi("statement"))
      return nullptr;
    s->decl = std::move(d);
    return s;
  }
  case Tok::KwIf:
    return parseIf();
  case Tok::KwFor:
    return parseFor();
  case Tok::KwWhile:
    return parseWhile();
  case Tok::KwBarrier: {
    auto s = std::make_unique<Stmt>(StmtKind::Barrier, l);
    next();
    if (accept(Tok::KwEnsures)) {
      if (isIdent("approx")) {
        s->approx = true;
        next();
      }
      s->cond = parseExpr();
      if (!s->cond)
        return nullptr;
    }
    if (!expectSemi("statement"))
      return nullptr;
    return s;
  }
  case Tok::KwAssert:
  case Tok::KwAssume: {
    auto s = std::make_unique<Stmt>(
        is(Tok::KwAssert) ? StmtKind::Assert : StmtKind::Assume, l);
    next();
    s->cond = parseExpr();
    if (!s->cond || !expectSemi("statement"))
      return nullptr;
    return s;
  }
  case Tok::KwReturn: {
    auto s = std::make_unique<Stmt>(StmtKind::Return, l);
    next();
    if (!is(Tok::Semi) && !is(Tok::RBrace)) {
      s->value = parseExpr();
      if (!s->value)
        return nullptr;
    }
    if (!expectSemi("statement"))
      return nullptr;
    return s;
  }
  case Tok::LBrace: {
    auto s = std::make_unique<Stmt>(StmtKind::Block, l);
    if (!parseBlock(s->body))
      return nullptr;
    return s;
  }
  case Tok::Semi:
    error(l, "expected statement, found ';'");
    return nullptr;
  case Tok::KwElse:
    error(l, "'else' without a matching 'if'");
    return nullptr;
  default:
    break;
  }
  ExprPtr e = parseExpr();
  if (!e)
    return nullptr;
  std::string op;
  if (isAssignOp(tok().kind, op)) {
    auto s = std::make_unique<Stmt>(StmtKind::Assign, l);
    next();
    s->target = std::move(e);
    s->op = op;
    s->value = parseExpr();
    if (!s->value || !expectSemi("statement"))
      return nullptr;
    return s;
  }
  auto s = std::make_unique<Stmt>(StmtKind::ExprStmt, l);
  s->value = std::move(e);
  if (!expectSemi("statement"))
    return nullptr;
  return s;
}

ast::StmtPtr Parser::parseIf() {
  auto s = std::make_unique<Stmt>(StmtKind::If, loc());
  next();
  s->cond = parseExpr();
  if (!s->cond)
    return nullptr;
  if (!is(Tok::LBrace)) {
    error(loc(), "expected '{' after 'if' condition, found " + describe(tok()));
    return nullptr;
  }
  if (!parseBlock(s->body))
    return nullptr;
  if (accept(Tok::KwElse)) {
    s->hasElse = true;
    if (is(Tok::KwIf)) {
      if (!enter("statements"))
        return nullptr;
      StmtPtr inner = parseIf();
      leave();
      if (!inner)
        return nullptr;
      s->elseBody.push_back(std::move(inner));
    } else {
      if (!is(Tok::LBrace)) {
        error(loc(), "expected '{' or 'if' after 'else', found " +
                         describe(tok()));
        return nullptr;
      }
      if (!parseBlock(s->elseBody))
        return nullptr;
    }
  }
  return s;
}

bool Parser::parseInvariants(std::vector<SpecClause> &out) {
  while (isIdent("invariant")) {
    if (!parseSpec(out, true))
      return false;
  }
  return true;
}

ast::StmtPtr Parser::parseFor() {
  auto s = std::make_unique<Stmt>(StmtKind::For, loc());
  next();
  auto d = std::make_unique<Decl>();
  d->kind = DeclKind::LoopVar;
  if (!is(Tok::Ident)) {
    error(loc(), "expected loop variable after 'for', found " + describe(tok()));
    return nullptr;
  }
  d->loc = loc();
  d->name = tok().text;
  next();
  if (!expect(Tok::KwIn, "after loop variable"))
    return nullptr;
  if (is(Tok::LBracket)) {
    auto list = std::make_unique<Expr>(ExprKind::List, loc());
    next();
    if (is(Tok::RBracket)) {
      error(loc(), "expected at least one value in the list");
      return nullptr;
    }
    while (true) {
      ExprPtr e = parseExpr();
      if (!e)
        return nullptr;
      list->args.push_back(std::move(e));
      if (accept(Tok::Comma))
        continue;
      if (!expect(Tok::RBracket, "after list values"))
        return nullptr;
      break;
    }
    s->list = std::move(list);
  } else {
    s->lo = parseExpr();
    if (!s->lo)
      return nullptr;
    if (!expect(Tok::DotDot, "in 'for' range"))
      return nullptr;
    s->hi = parseExpr();
    if (!s->hi)
      return nullptr;
    if (isIdent("step")) {
      next();
      s->step = parseExpr();
      if (!s->step)
        return nullptr;
    }
  }
  s->decl = std::move(d);
  if (!parseInvariants(s->invariants))
    return nullptr;
  if (!is(Tok::LBrace)) {
    error(loc(), "expected '{' after 'for' header, found " + describe(tok()));
    return nullptr;
  }
  if (!parseBlock(s->body))
    return nullptr;
  return s;
}

ast::StmtPtr Parser::parseWhile() {
  auto s = std::make_unique<Stmt>(StmtKind::While, loc());
  next();
  s->cond = parseExpr();
  if (!s->cond)
    return nullptr;
  if (!parseInvariants(s->invariants))
    return nullptr;
  if (!is(Tok::LBrace)) {
    error(loc(), "expected '{' after 'while' condition, found " +
                     describe(tok()));
    return nullptr;
  }
  if (!parseBlock(s->body))
    return nullptr;
  return s;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ast::ExprPtr Parser::parseStandaloneExpr() {
  ExprPtr e = parseExpr();
  if (e && !is(Tok::Eof)) {
    error(loc(), "expected end of expression, found " + describe(tok()));
    return nullptr;
  }
  return e;
}

ast::ExprPtr Parser::parseExpr() {
  if (!enter())
    return nullptr;
  ExprPtr e = parseTernary();
  leave();
  return e;
}

ast::ExprPtr Parser::parseTernary() {
  ExprPtr c = parseBinary(1);
  if (!c || !is(Tok::Question))
    return c;
  auto t = std::make_unique<Expr>(ExprKind::Ternary, loc());
  next();
  ExprPtr a = parseExpr();
  if (!a)
    return nullptr;
  if (!expect(Tok::Colon, "in conditional expression"))
    return nullptr;
  if (!enter())
    return nullptr;
  ExprPtr b = parseTernary();
  leave();
  if (!b)
    return nullptr;
  t->args.push_back(std::move(c));
  t->args.push_back(std::move(a));
  t->args.push_back(std::move(b));
  return t;
}

static int binaryPrec(Tok k, const char *&op) {
  switch (k) {
  case Tok::Implies: op = "==>"; return 1;
  case Tok::PipePipe: op = "||"; return 2;
  case Tok::AmpAmp: op = "&&"; return 3;
  case Tok::Pipe: op = "|"; return 4;
  case Tok::Caret: op = "^"; return 5;
  case Tok::Amp: op = "&"; return 6;
  case Tok::EqEq: op = "=="; return 7;
  case Tok::NotEq: op = "!="; return 7;
  case Tok::Lt: op = "<"; return 8;
  case Tok::Le: op = "<="; return 8;
  case Tok::Gt: op = ">"; return 8;
  case Tok::Ge: op = ">="; return 8;
  case Tok::Shl: op = "<<"; return 9;
  case Tok::Shr: op = ">>"; return 9;
  case Tok::Plus: op = "+"; return 10;
  case Tok::Minus: op = "-"; return 10;
  case Tok::Star: op = "*"; return 11;
  case Tok::Slash: op = "/"; return 11;
  case Tok::Percent: op = "%"; return 11;
  default: return 0;
  }
}

ast::ExprPtr Parser::parseBinary(int minPrec) {
  ExprPtr lhs = parseUnary();
  if (!lhs)
    return nullptr;
  int saved = depth;
  while (true) {
    const char *op = nullptr;
    int prec = binaryPrec(tok().kind, op);
    if (prec == 0 || prec < minPrec)
      break;
    if (!enter()) {
      depth = saved;
      return nullptr;
    }
    auto b = std::make_unique<Expr>(ExprKind::Binary, loc());
    b->op = op;
    next();
    bool rightAssoc = prec == 1;
    ExprPtr rhs = parseBinary(rightAssoc ? prec : prec + 1);
    if (!rhs) {
      depth = saved;
      return nullptr;
    }
    b->args.push_back(std::move(lhs));
    b->args.push_back(std::move(rhs));
    lhs = std::move(b);
  }
  depth = saved;
  return lhs;
}

ast::ExprPtr Parser::parseUnary() {
  if (is(Tok::Minus) || is(Tok::Bang) || is(Tok::Tilde)) {
    auto u = std::make_unique<Expr>(ExprKind::Unary, loc());
    u->op = is(Tok::Minus) ? "-" : is(Tok::Bang) ? "!" : "~";
    next();
    if (!enter())
      return nullptr;
    ExprPtr a = parseUnary();
    leave();
    if (!a)
      return nullptr;
    u->args.push_back(std::move(a));
    return u;
  }
  return parsePostfix();
}

ast::ExprPtr Parser::parsePostfix() {
  ExprPtr e = parsePrimary();
  if (!e)
    return nullptr;
  int saved = depth;
  ScalarKind k;
  while (isIdent("as") && peekTok().kind == Tok::Ident &&
         scalarKindFromName(peekTok().text, k)) {
    if (!enter()) {
      depth = saved;
      return nullptr;
    }
    auto c = std::make_unique<Expr>(ExprKind::Cast, loc());
    next();
    next();
    c->castType = Type::of(k);
    c->args.push_back(std::move(e));
    e = std::move(c);
  }
  if (isIdent("as")) {
    next();
    error(loc(), "expected type after 'as', found " + describe(tok()));
    depth = saved;
    return nullptr;
  }
  depth = saved;
  return e;
}

bool Parser::parseRange(ExprPtr &lo, ExprPtr &hi) {
  lo = parseExpr();
  if (!lo)
    return false;
  if (!expect(Tok::DotDot, "in range"))
    return false;
  hi = parseExpr();
  return hi != nullptr;
}

ast::ExprPtr Parser::parseQuant() {
  auto q = std::make_unique<Expr>(ExprKind::Quant, loc());
  q->name = is(Tok::KwForall) ? "forall" : "exists";
  next();
  if (!is(Tok::Ident)) {
    error(loc(), "expected bound variable after '" + q->name + "', found " +
                     describe(tok()));
    return nullptr;
  }
  q->binder = tok().text;
  next();
  if (!expect(Tok::KwIn, "after bound variable"))
    return nullptr;
  ExprPtr lo, hi;
  if (!parseRange(lo, hi))
    return nullptr;
  if (!expect(Tok::Colon, "after quantifier range"))
    return nullptr;
  ExprPtr body = parseExpr();
  if (!body)
    return nullptr;
  q->args.push_back(std::move(lo));
  q->args.push_back(std::move(hi));
  q->args.push_back(std::move(body));
  return q;
}

ast::ExprPtr Parser::parseSum() {
  auto s = std::make_unique<Expr>(ExprKind::Sum, loc());
  s->name = tok().text; // sum, prod, max, min, argmax, argmin
  next(); // sum
  next(); // (
  s->binder = tok().text;
  next(); // ident
  next(); // in
  ExprPtr lo, hi, step;
  if (!parseRange(lo, hi))
    return nullptr;
  if (isIdent("step")) {
    next();
    step = parseExpr();
    if (!step)
      return nullptr;
  }
  if (!expect(Tok::Colon, ("after '" + s->name + "' range").c_str()))
    return nullptr;
  ExprPtr body = parseExpr();
  if (!body)
    return nullptr;
  if (!expect(Tok::RParen, ("at end of '" + s->name + "'").c_str()))
    return nullptr;
  s->args.push_back(std::move(lo));
  s->args.push_back(std::move(hi));
  s->args.push_back(std::move(body));
  if (step)
    s->args.push_back(std::move(step));
  return s;
}

ast::ExprPtr Parser::parseIdentExpr() {
  const Token &t = tok();
  Loc l = loc();
  const std::string name = t.text;
  if (name == "threadIdx" || name == "blockIdx" || name == "blockDim" ||
      name == "gridDim") {
    next();
    if (!accept(Tok::Dot)) {
      error(loc(), "expected '.x', '.y' or '.z' after '" + name + "'");
      return nullptr;
    }
    if (!is(Tok::Ident) ||
        (tok().text != "x" && tok().text != "y" && tok().text != "z")) {
      error(loc(), "expected 'x', 'y' or 'z' after '" + name + ".'");
      return nullptr;
    }
    auto e = std::make_unique<Expr>(ExprKind::Builtin, l);
    e->name = name;
    e->member = tok().text;
    next();
    return e;
  }
  if (name == "laneid" || name == "warpid") {
    auto e = std::make_unique<Expr>(ExprKind::Builtin, l);
    e->name = name;
    next();
    return e;
  }
  if ((name == "sum" || name == "prod" || name == "max" || name == "min" || name == "argmax" ||
       name == "argmin") &&
      peekTok().kind == Tok::LParen &&
      peekTok(2).kind == Tok::Ident && peekTok(3).kind == Tok::KwIn)
    return parseSum();
  if (name == "old" && peekTok().kind == Tok::LParen) {
    auto e = std::make_unique<Expr>(ExprKind::Old, l);
    e->name = "old";
    next();
    next();
    ExprPtr a = parseExpr();
    if (!a || !expect(Tok::RParen, "after 'old' argument"))
      return nullptr;
    e->args.push_back(std::move(a));
    return e;
  }
  next();
  if (is(Tok::LParen)) {
    auto e = std::make_unique<Expr>(ExprKind::Call, l);
    e->name = name;
    next();
    if (accept(Tok::RParen))
      return e;
    while (true) {
      if (isIdent("mask") && peekTok().kind == Tok::Colon) {
        next();
        next();
        e->mask = parseExpr();
        if (!e->mask)
          return nullptr;
        if (!expect(Tok::RParen, "after 'mask:' argument (it must be last)"))
          return nullptr;
        return e;
      }
      ExprPtr a = parseExpr();
      if (!a)
        return nullptr;
      e->args.push_back(std::move(a));
      if (accept(Tok::Comma))
        continue;
      if (!expect(Tok::RParen, "after call arguments"))
        return nullptr;
      return e;
    }
  }
  if (is(Tok::LBracket)) {
    auto e = std::make_unique<Expr>(ExprKind::Index, l);
    e->name = name;
    next();
    if (is(Tok::RBracket)) {
      error(loc(), "expected index expression");
      return nullptr;
    }
    while (true) {
      ExprPtr a = parseExpr();
      if (!a)
        return nullptr;
      e->args.push_back(std::move(a));
      if (accept(Tok::Comma))
        continue;
      if (!expect(Tok::RBracket, "after indices"))
        return nullptr;
      return e;
    }
  }
  auto e = std::make_unique<Expr>(ExprKind::Name, l);
  e->name = name;
  return e;
}

ast::ExprPtr Parser::parsePrimary() {
  Loc l = loc();
  switch (tok().kind) {
  case Tok::IntLit: {
    auto e = std::make_unique<Expr>(ExprKind::IntLit, l);
    e->name = tok().text;
    e->intValue = int64_t(tok().intValue);
    if (tok().intTooLarge) {
      error(l, "integer literal '" + tok().text + "' is too large");
      return nullptr;
    }
    next();
    return e;
  }
  case Tok::FloatLit: {
    auto e = std::make_unique<Expr>(ExprKind::FloatLit, l);
    e->name = tok().text;
    e->floatValue = tok().floatValue;
    if (tok().f32Suffix)
      e->castType = Type::of(ScalarKind::F32);
    next();
    return e;
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    auto e = std::make_unique<Expr>(ExprKind::BoolLit, l);
    e->intValue = is(Tok::KwTrue) ? 1 : 0;
    e->name = tok().text;
    next();
    return e;
  }
  case Tok::LParen: {
    next();
    ExprPtr e = parseExpr();
    if (!e)
      return nullptr;
    if (!expect(Tok::RParen, "to close '('"))
      return nullptr;
    return e;
  }
  case Tok::KwForall:
  case Tok::KwExists:
    return parseQuant();
  case Tok::Ident:
    return parseIdentExpr();
  default:
    error(l, "expected expression, found " + describe(tok()));
    return nullptr;
  }
}

} // namespace kuiper
