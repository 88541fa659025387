//===- Parser.h - Recursive-descent parser of the .kp language --*- C++ -*-===//
#ifndef KUIPER_FRONTEND_PARSER_H
#define KUIPER_FRONTEND_PARSER_H

#include "compiler/frontend/AST.h"
#include "compiler/frontend/Frontend.h"
#include "compiler/frontend/Lexer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kuiper {

/// Maximum nesting of expressions/statements accepted by the parser.
constexpr int kMaxNesting = 256;

class Parser {
public:
  Parser(std::vector<Token> tokens, std::shared_ptr<std::string> file,
         DiagnosticEngine &diags);

  /// Parses a whole file. Never returns null; items that failed to parse
  /// are left out (their errors are reported).
  std::unique_ptr<ast::Module> parseModule();

  /// Parses a single expression up to end of input (for tests).
  ast::ExprPtr parseStandaloneExpr();

  /// `import a.b;` items seen, with their locations, in order.
  std::vector<std::pair<std::string, ast::Loc>> importLocs;

private:
  std::vector<Token> toks;
  std::shared_ptr<std::string> file;
  DiagnosticEngine &diags;
  size_t pos = 0;
  bool panic = false; ///< an error was reported; suppress until resync
  bool fatal = false; ///< stop parsing altogether
  int depth = 0;

  // Token helpers.
  const Token &tok() const { return toks[pos]; }
  const Token &peekTok(size_t k = 1) const {
    return toks[pos + k < toks.size() ? pos + k : toks.size() - 1];
  }
  const Token &prevTok() const { return toks[pos ? pos - 1 : 0]; }
  bool is(Tok k) const { return tok().kind == k; }
  bool isIdent(const char *text) const {
    return tok().kind == Tok::Ident && tok().text == text;
  }
  void next() {
    if (pos + 1 < toks.size())
      ++pos;
  }
  bool accept(Tok k) {
    if (!is(k))
      return false;
    next();
    return true;
  }
  ast::Loc locOf(const Token &t) const;
  ast::Loc loc() const { return locOf(tok()); }
  ast::Loc afterPrev() const;

  void error(const ast::Loc &l, const std::string &msg);
  bool expect(Tok k, const std::string &context);
  bool expectSemi(const char *after);
  /// Counts one more level of nesting (a block, a statement, an operator);
  /// past kMaxNesting reports that `what` is nested too deeply and stops
  /// parsing, so that no later recursive walk over the AST can overflow.
  bool enter(const char *what = "expression");
  void leave() { --depth; }
  void syncStmt();
  void syncItem();
  void setFatal();

  // Items.
  bool parseImport(ast::Module &m);
  bool parseConst(ast::Module &m);
  bool parseFn(ast::Module &m);
  bool parseKernel(ast::Module &m);
  bool parseType(ast::Type &t);
  bool parseHeader(ast::Callable &c, bool kernel);
  bool parseParams(ast::Callable &c, bool kernel);
  bool parseDims(std::vector<ast::ExprPtr> &dims);
  bool parseExprList(std::vector<ast::ExprPtr> &out, const char *what);
  bool parseAccessList(std::vector<ast::AccessRange> &out);
  bool parseSpec(std::vector<ast::SpecClause> &out, bool allowApprox);

  // Statements.
  bool parseBlock(std::vector<ast::StmtPtr> &body);
  ast::StmtPtr parseStmt();
  ast::StmtPtr parseStmtInner();
  ast::StmtPtr parseIf();
  ast::StmtPtr parseFor();
  ast::StmtPtr parseWhile();
  bool parseInvariants(std::vector<ast::SpecClause> &out);

  // Expressions.
  ast::ExprPtr parseExpr();
  ast::ExprPtr parseTernary();
  ast::ExprPtr parseBinary(int minPrec);
  ast::ExprPtr parseUnary();
  ast::ExprPtr parsePostfix();
  ast::ExprPtr parsePrimary();
  ast::ExprPtr parseIdentExpr();
  ast::ExprPtr parseQuant();
  ast::ExprPtr parseSum();
  bool parseRange(ast::ExprPtr &lo, ast::ExprPtr &hi);
};

/// Deep copy of the parsed fields of `e` (not the Sema annotations).
ast::ExprPtr cloneExpr(const ast::Expr &e);

/// True when `name` spells a scalar type; sets `k`.
bool scalarKindFromName(const std::string &name, ast::ScalarKind &k);

} // namespace kuiper

#endif
