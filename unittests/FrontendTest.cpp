//===- FrontendTest.cpp - Lexer, parser and Sema of the .kp language ------===//
#include "compiler/frontend/Frontend.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"

#include <gtest/gtest.h>
#include <sstream>

using namespace kuiper;
using namespace kuiper::ast;

namespace {

std::vector<Token> lexText(const std::string &text, unsigned *errors = nullptr) {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  auto file = sm.add("t.kp", text);
  std::vector<Token> toks = lex(file, text, diags);
  if (errors)
    *errors = diags.errorCount();
  return toks;
}

/// Fully parenthesized form of a parsed expression.
std::string sexpr(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit:
  case ExprKind::FloatLit:
  case ExprKind::BoolLit:
  case ExprKind::Name: return e.name;
  case ExprKind::Builtin: return e.member.empty() ? e.name : e.name + "." + e.member;
  case ExprKind::Unary: return "(" + e.op + sexpr(*e.args[0]) + ")";
  case ExprKind::Binary:
    return "(" + sexpr(*e.args[0]) + " " + e.op + " " + sexpr(*e.args[1]) + ")";
  case ExprKind::Ternary:
    return "(" + sexpr(*e.args[0]) + " ? " + sexpr(*e.args[1]) + " : " +
           sexpr(*e.args[2]) + ")";
  case ExprKind::Cast:
    return "(" + sexpr(*e.args[0]) + " as " + spelling(e.castType.scalar) + ")";
  case ExprKind::Index:
  case ExprKind::Call: {
    std::string s = e.name + (e.kind == ExprKind::Index ? "[" : "(");
    for (size_t i = 0; i < e.args.size(); ++i)
      s += (i ? ", " : "") + sexpr(*e.args[i]);
    if (e.mask)
      s += std::string(e.args.empty() ? "" : ", ") + "mask: " + sexpr(*e.mask);
    return s + (e.kind == ExprKind::Index ? "]" : ")");
  }
  case ExprKind::Quant:
    return "(" + e.name + " " + e.binder + " in " + sexpr(*e.args[0]) + ".." +
           sexpr(*e.args[1]) + ": " + sexpr(*e.args[2]) + ")";
  case ExprKind::Sum:
    return "sum(" + e.binder + " in " + sexpr(*e.args[0]) + ".." +
           sexpr(*e.args[1]) +
           (e.args.size() > 3 ? " step " + sexpr(*e.args[3]) : "") + ": " +
           sexpr(*e.args[2]) + ")";
  case ExprKind::Old: return "old(" + sexpr(*e.args[0]) + ")";
  case ExprKind::List: return "[...]";
  }
  return "?";
}

std::string parseExprText(const std::string &text) {
  SourceManager sm;
  DiagnosticEngine diags(sm);
  auto file = sm.add("e.kp", text);
  Parser p(lex(file, text, diags), file, diags);
  ExprPtr e = p.parseStandaloneExpr();
  if (!e || diags.errorCount())
    return "<error>";
  return sexpr(*e);
}

struct Checked {
  std::unique_ptr<Module> module;
  std::vector<std::string> errors; ///< "line:col: message"
  std::string printed;
};

Checked check(const std::string &text) {
  Checked c;
  SourceManager sm;
  DiagnosticEngine diags(sm);
  c.module = parseAndCheck("t.kp", text, nullptr, sm, diags);
  for (const Diagnostic &d : diags.all())
    if (d.severity == "error")
      c.errors.push_back(std::to_string(d.loc.line) + ":" +
                         std::to_string(d.loc.col) + ": " + d.message);
  std::ostringstream os;
  diags.print(os);
  c.printed = os.str();
  return c;
}

/// Wraps statements in a kernel with a few parameters.
std::string kernelWith(const std::string &body) {
  return "kernel k(in x: f32[n], out y: f32[n], inout z: i64[n], n: i32, "
         "m: i64, u: u32)\n"
         "  launch block(64, 2) grid(cdiv(n, 64))\n"
         "{\n" +
         body + "\n}\n";
}

const Decl *findLet(const std::vector<StmtPtr> &body, const std::string &name) {
  for (const auto &s : body)
    if ((s->kind == StmtKind::Let || s->kind == StmtKind::Var) &&
        s->decl->name == name)
      return s->decl.get();
  return nullptr;
}

bool hasError(const Checked &c, const std::string &needle) {
  for (const auto &e : c.errors)
    if (e.find(needle) != std::string::npos)
      return true;
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

TEST(FrontendLexer, NumbersAndRanges) {
  auto t = lexText("0..n 1.5 2.5f 1e-3 0xff 42");
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].kind, Tok::IntLit);
  EXPECT_EQ(t[0].intValue, 0u);
  EXPECT_EQ(t[1].kind, Tok::DotDot);
  EXPECT_EQ(t[2].kind, Tok::Ident);
  EXPECT_EQ(t[3].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(t[3].floatValue, 1.5);
  EXPECT_FALSE(t[3].f32Suffix);
  EXPECT_EQ(t[4].kind, Tok::FloatLit);
  EXPECT_TRUE(t[4].f32Suffix);
  EXPECT_EQ(t[5].kind, Tok::FloatLit);
  EXPECT_DOUBLE_EQ(t[5].floatValue, 1e-3);
  EXPECT_EQ(t[6].kind, Tok::IntLit);
  EXPECT_EQ(t[6].intValue, 255u);
  EXPECT_EQ(t[7].intValue, 42u);
  EXPECT_EQ(t[8].kind, Tok::Eof);
}

TEST(FrontendLexer, OperatorsKeywordsAndComments) {
  auto t = lexText("a ==> b <<= c >> d // comment\n /* block\n */ let forall as");
  std::vector<Tok> kinds;
  for (auto &k : t)
    kinds.push_back(k.kind);
  std::vector<Tok> want = {Tok::Ident, Tok::Implies, Tok::Ident, Tok::ShlEq,
                           Tok::Ident, Tok::Shr,     Tok::Ident, Tok::KwLet,
                           Tok::KwForall, Tok::Ident, Tok::Eof};
  EXPECT_EQ(kinds, want);
  // Positions are 1-based lines and columns.
  EXPECT_EQ(t[7].line, 3);
  EXPECT_EQ(t[7].col, 5);
}

TEST(FrontendLexer, RejectsBinaryAndHugeLiterals) {
  unsigned errors = 0;
  lexText(std::string("let a\0\1 = 1;", 12), &errors);
  EXPECT_EQ(errors, 1u); // a run of bad bytes is one error
  auto t = lexText("123456789012345678901234567890", &errors);
  EXPECT_TRUE(t[0].intTooLarge);
  lexText("1abc", &errors);
  EXPECT_EQ(errors, 1u);
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

TEST(FrontendParser, CPrecedence) {
  EXPECT_EQ(parseExprText("a + b * c"), "(a + (b * c))");
  EXPECT_EQ(parseExprText("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(parseExprText("n <= 1 << 30"), "(n <= (1 << 30))");
  EXPECT_EQ(parseExprText("a & b == c"), "(a & (b == c))");
  EXPECT_EQ(parseExprText("a | b ^ c & d"), "(a | (b ^ (c & d)))");
  EXPECT_EQ(parseExprText("a || b && c"), "(a || (b && c))");
  EXPECT_EQ(parseExprText("-a * !b"), "((-a) * (!b))");
  EXPECT_EQ(parseExprText("x as f32 * 2.0"), "((x as f32) * 2.0)");
  EXPECT_EQ(parseExprText("c ? a : d ? e : f"), "(c ? a : (d ? e : f))");
}

TEST(FrontendParser, ImplicationAndQuantifiers) {
  EXPECT_EQ(parseExprText("a || b ==> c && d"), "((a || b) ==> (c && d))");
  EXPECT_EQ(parseExprText("a ==> b ==> c"), "(a ==> (b ==> c))");
  EXPECT_EQ(parseExprText("p ==> q ? a : b"), "((p ==> q) ? a : b)");
  // The body of a quantifier extends as far right as possible.
  EXPECT_EQ(parseExprText("forall i in 0..n: y[i] == x[i] && i < n"),
            "(forall i in 0..n: ((y[i] == x[i]) && (i < n)))");
  EXPECT_EQ(parseExprText("sum(j in t..n step 256: x[r, j])"),
            "sum(j in t..n step 256: x[r, j])");
  EXPECT_EQ(parseExprText("old(y[i]) + 1.0"), "(old(y[i]) + 1.0)");
  EXPECT_EQ(parseExprText("shfl_down(v, 1, mask: m)"), "shfl_down(v, 1, mask: m)");
  EXPECT_EQ(parseExprText("threadIdx.x + laneid"), "(threadIdx.x + laneid)");
  // `as` is a contextual keyword: a shared array may be called `as`.
  EXPECT_EQ(parseExprText("as[ty, q] * bs[q, tx]"), "(as[ty, q] * bs[q, tx])");
}

TEST(FrontendParser, SyntaxErrors) {
  EXPECT_EQ(parseExprText("a +"), "<error>");
  EXPECT_EQ(parseExprText("(a"), "<error>");
  EXPECT_EQ(parseExprText("f(a,)"), "<error>");
  Checked c = check(kernelWith("  let a = 1\n  let b = ;"));
  ASSERT_EQ(c.errors.size(), 2u) << c.printed;
  EXPECT_EQ(c.errors[0], "4:12: expected ';' after statement");
  EXPECT_EQ(c.errors[1], "5:11: expected expression, found ';'");
}

TEST(FrontendParser, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '(');
  Checked c = check("const X: i32 = " + deep + "1;");
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].find("expression nested too deeply"), std::string::npos);
  std::string chain = "const Y: i32 = 1";
  for (int i = 0; i < 50000; ++i)
    chain += " + 1";
  c = check(chain + ";");
  EXPECT_EQ(c.errors.size(), 1u);
}

TEST(FrontendParser, KernelClauses) {
  Checked c = check(
      "kernel k(in x: f32[n, 4], out y: f32[n], n: i32)\n"
      "  requires n >= 0\n"
      "  launch block(32, 4) grid(cdiv(n, 32))\n"
      "  reads x[0..n, 0..4]\n"
      "  writes y[0..n]\n"
      "  ensures approx forall i in 0..n: y[i] == x[i, 0]\n"
      "  deterministic\n"
      "{\n"
      "  let i = blockIdx.x * 32 + threadIdx.x;\n"
      "  if i < n { y[i] = x[i, threadIdx.y]; }\n"
      "}\n");
  ASSERT_TRUE(c.module) << c.printed;
  const KernelDecl &k = *c.module->kernels[0];
  EXPECT_EQ(k.block, (std::vector<int64_t>{32, 4, 1}));
  EXPECT_TRUE(k.deterministic);
  EXPECT_TRUE(k.hasReads);
  ASSERT_EQ(k.reads.size(), 1u);
  EXPECT_EQ(k.reads[0].ranges.size(), 2u);
  ASSERT_EQ(k.ensures.size(), 1u);
  EXPECT_TRUE(k.ensures[0].approx);
  EXPECT_EQ(k.params[1]->access, Access::Out);
  EXPECT_EQ(k.params[2]->index, 2);
}

//===----------------------------------------------------------------------===//
// Literal typing and constant folding
//===----------------------------------------------------------------------===//

TEST(FrontendSema, LiteralsTakeTheirContextType) {
  Checked c = check(kernelWith(
      "  let a = 1;\n"
      "  let b = m + 1;\n"
      "  let c = 1 << 40 as i64;\n"
      "  let d: f64 = 2.0;\n"
      "  let e = 1.5;\n"
      "  let f = 2.5f;\n"
      "  let g = u & 0xffffffff;\n"
      "  let h = z[0] + 7;\n"
      "  let i = blockDim.x * blockDim.y;\n"
      "  let j = -2147483648;"));
  ASSERT_TRUE(c.module) << c.printed;
  const auto &body = c.module->kernels[0]->body;
  EXPECT_EQ(findLet(body, "a")->type, Type::of(ScalarKind::I32));
  EXPECT_EQ(findLet(body, "b")->type, Type::of(ScalarKind::I64));
  EXPECT_EQ(findLet(body, "d")->type, Type::of(ScalarKind::F64));
  EXPECT_EQ(findLet(body, "d")->init->type, Type::of(ScalarKind::F64));
  EXPECT_EQ(findLet(body, "e")->type, Type::of(ScalarKind::F32));
  EXPECT_EQ(findLet(body, "f")->type, Type::of(ScalarKind::F32));
  EXPECT_EQ(findLet(body, "g")->type, Type::of(ScalarKind::U32));
  EXPECT_EQ(findLet(body, "h")->type, Type::of(ScalarKind::I64));
  const Decl *i = findLet(body, "i");
  ASSERT_TRUE(i->init->constValue.has_value());
  EXPECT_EQ(*i->init->constValue, 128);
  EXPECT_EQ(*findLet(body, "j")->init->constValue, -2147483648LL);
}

TEST(FrontendSema, ConstantsFold) {
  Checked c = check("const A: i32 = 1 << 30;\n"
                    "const B: i32 = (A >> 20) * 3 + -7 / 2 % 5;\n"
                    "const C: i64 = (1 as i64) << 40;\n"
                    "const D: u32 = ~(0 as u32);\n"
                    "const E: i32 = cdiv(1000, 256) + min(3, 4) + max(3, 4);\n"
                    "const F: i64 = -9223372036854775808;\n");
  ASSERT_TRUE(c.module) << c.printed;
  const auto &cs = c.module->consts;
  EXPECT_EQ(*cs[0]->constValue, 1 << 30);
  EXPECT_EQ(*cs[1]->constValue, 1024 * 3 + (-7 / 2) % 5);
  EXPECT_EQ(*cs[2]->constValue, int64_t(1) << 40);
  EXPECT_EQ(*cs[3]->constValue, int64_t(0xffffffffu));
  EXPECT_EQ(*cs[4]->constValue, 4 + 3 + 4);
  EXPECT_EQ(*cs[5]->constValue, INT64_MIN);
}

TEST(FrontendSema, LiteralRangesAndOverflow) {
  Checked c = check("const A: i32 = 2147483648;\n"
                    "const B: u32 = 4294967295;\n"
                    "const C: i32 = 1 << 31;\n"
                    "const D: i32 = 7 / 0;\n"
                    "const E: u32 = 0 - 1 as u32;\n"
                    "const F: u32 = -1;\n");
  EXPECT_FALSE(c.module);
  ASSERT_EQ(c.errors.size(), 5u) << c.printed;
  EXPECT_EQ(c.errors[0], "1:16: integer literal '2147483648' is out of range for 'i32'");
  EXPECT_EQ(c.errors[1], "3:18: constant expression overflows 'i32'");
  EXPECT_EQ(c.errors[2], "4:18: division by zero in constant expression");
  // Unsigned arithmetic must not wrap either, as in code.
  EXPECT_EQ(c.errors[3], "5:18: constant expression overflows 'u32'");
  EXPECT_EQ(c.errors[4], "6:16: constant expression overflows 'u32'");
}

//===----------------------------------------------------------------------===//
// Semantic errors
//===----------------------------------------------------------------------===//

TEST(FrontendSema, TypeMismatchNamesBothTypes) {
  Checked c = check(kernelWith("  let a = n + m;"));
  ASSERT_EQ(c.errors.size(), 1u) << c.printed;
  EXPECT_EQ(c.errors[0], "4:13: type mismatch: 'i32' and 'i64' (use 'as' to convert)");
  c = check(kernelWith("  let a = x[0] * 2;"));
  EXPECT_TRUE(hasError(c, "type mismatch: 'f32' and 'i32'")) << c.printed;
}

TEST(FrontendSema, UnknownNameDoesNotCascade) {
  Checked c = check(kernelWith("  let a = foo * x[0] + 1;\n  let b = a + 2.0 * x[1];"));
  ASSERT_EQ(c.errors.size(), 1u) << c.printed;
  EXPECT_EQ(c.errors[0], "4:11: unknown name 'foo'");
}

TEST(FrontendSema, BufferAccessRules) {
  Checked c = check(kernelWith("  x[0] = 1.0;"));
  EXPECT_TRUE(hasError(c, "cannot assign to 'in' buffer 'x'")) << c.printed;
  c = check(kernelWith("  let v = y[0];"));
  EXPECT_TRUE(hasError(c, "cannot read 'out' buffer 'y'")) << c.printed;
  // An atomic reads the element's old value: not on an `out` buffer.
  c = check(kernelWith("  let v = atomic_add(y[0], 1.0);\n  y[1] = v;"));
  EXPECT_TRUE(hasError(c, "cannot apply 'atomic_add' to 'out' buffer 'y'")) << c.printed;
  c = check(kernelWith("  atomic_max(x[0], 1.0);"));
  EXPECT_TRUE(hasError(c, "'in' buffer 'x'")) << c.printed;
  c = check(kernelWith("  let v = x[0, 1];"));
  EXPECT_TRUE(hasError(c, "wrong number of indices for 'x': expected 1, found 2"))
      << c.printed;
}

TEST(FrontendSema, ImmutableNames) {
  Checked c = check(kernelWith("  let a = 1;\n  a = 2;\n  n = 3;\n"
                               "  for i in 0..4 { i += 1; }\n  var v: i32;\n  v = 4;"));
  ASSERT_EQ(c.errors.size(), 3u) << c.printed;
  EXPECT_TRUE(hasError(c, "cannot assign to 'let' variable 'a'"));
  EXPECT_TRUE(hasError(c, "cannot assign to parameter 'n'"));
  EXPECT_TRUE(hasError(c, "cannot assign to loop variable 'i'"));
}

TEST(FrontendSema, SpecOnlyConstructs) {
  Checked c = check(kernelWith("  let a = forall i in 0..n: x[i] > 0.0;"));
  EXPECT_TRUE(hasError(c, "'forall' is only allowed in specifications")) << c.printed;
  c = check(kernelWith("  assert old(z[0]) == 0;"));
  EXPECT_TRUE(hasError(c, "'old' is only allowed in kernel 'ensures' clauses"));
  c = check(kernelWith("  assert forall i in 0..n: i >= 0 ==> y[i] == y[i];"));
  EXPECT_TRUE(c.module) << c.printed;
}

TEST(FrontendSema, LaunchChecks) {
  Checked c = check("kernel k(out y: f32[n], n: i32) launch block(64, 32) grid(n) { y[0] = 1.0; }");
  EXPECT_TRUE(hasError(c, "at most 1024 threads per block")) << c.printed;
  c = check("kernel k(out y: f32[n], n: i32) launch block(n) grid(n) { y[0] = 1.0; }");
  EXPECT_TRUE(hasError(c, "block dimension must be a compile-time constant")) << c.printed;
  c = check("kernel k(out y: f32[n], n: i32) { y[0] = 1.0; }");
  EXPECT_TRUE(hasError(c, "has no 'launch")) << c.printed;
}

TEST(FrontendSema, FunctionsAndRecursion) {
  Checked c = check("fn f(a: i32) -> i32 { return g(a); }\n"
                    "fn g(a: i32) -> i32 { return f(a); }\n");
  EXPECT_TRUE(hasError(c, "is recursive")) << c.printed;
  c = check("fn f(a: i32) -> i32 { let b = a; }\n");
  EXPECT_TRUE(hasError(c, "does not end with 'return")) << c.printed;
  c = check("fn sq(x: f32) -> f32 ensures result >= 0.0 { return x * x; }\n"
            "kernel k(in x: f32[n], out y: f32[n], n: i32) launch block(32) grid(n)\n"
            "  ensures forall i in 0..n: y[i] == sq(x[i])\n"
            "{ let i = threadIdx.x; if i < n { y[i] = sq(x[i]); } }\n");
  ASSERT_TRUE(c.module) << c.printed;
  const FnDecl &f = *c.module->fns[0];
  ASSERT_TRUE(f.resultDecl);
  EXPECT_EQ(f.ensures[0].cond->args[0]->decl, f.resultDecl.get());
  c = check("fn f(a: f32) -> f32 { return a; }\n"
            "kernel k(out y: f32[1]) launch block(1) grid(1) { y[0] = f(1); }");
  EXPECT_TRUE(hasError(c, "type mismatch in argument 1 of 'f'")) << c.printed;
}

TEST(FrontendSema, ResolvesDeclarations) {
  Checked c = check(kernelWith(
      "  shared s: f32[64, 65];\n"
      "  let t = threadIdx.x;\n"
      "  s[t, t] = x[t];\n"
      "  barrier ensures forall v in 0..64: s[v, v] == s[v, v];"));
  ASSERT_TRUE(c.module) << c.printed;
  const auto &body = c.module->kernels[0]->body;
  EXPECT_EQ(body[0]->decl->constDims, (std::vector<int64_t>{64, 65}));
  const Stmt &assign = *body[2];
  EXPECT_EQ(assign.target->decl, body[0]->decl.get());
  EXPECT_EQ(assign.target->args[0]->decl, body[1]->decl.get());
  EXPECT_EQ(assign.value->decl, c.module->kernels[0]->params[0].get());
  const Expr &q = *body[3]->cond;
  ASSERT_EQ(q.kind, ExprKind::Quant);
  ASSERT_TRUE(q.binderDecl);
  EXPECT_EQ(q.binderDecl->kind, DeclKind::Bound);
  EXPECT_EQ(q.args[2]->args[0]->args[0]->decl, q.binderDecl);
}

TEST(FrontendSema, ReportsSeveralErrorsAndStops) {
  std::string body;
  for (int i = 0; i < 40; ++i)
    body += "  let v" + std::to_string(i) + " = nope" + std::to_string(i) + ";\n";
  Checked c = check(kernelWith(body));
  EXPECT_EQ(c.errors.back(), "0:0: too many errors emitted, stopping now");
  EXPECT_EQ(c.errors.size(), 21u);
}

TEST(FrontendDiagnostics, ClangStyle) {
  Checked c = check(kernelWith("  let a = nope;"));
  EXPECT_EQ(c.printed, "t.kp:4:11: error: unknown name 'nope'\n"
                       "  let a = nope;\n"
                       "          ^\n");
}

TEST(FrontendImports, ResolvedOnceAndMerged) {
  int calls = 0;
  ImportResolver resolver = [&](const std::string &dotted, std::string &path,
                                std::string &text) {
    ++calls;
    if (dotted == "std.a") {
      path = "a.kp";
      text = "import std.b;\nfn twice(x: f32) -> f32 { return x * TWO; }\n";
      return true;
    }
    if (dotted == "std.b") {
      path = "b.kp";
      text = "import std.a;\nconst TWO_I: i32 = 2;\nfn two() -> f32 { return 2.0; }\n"
             "const TWO: f32 = 2.0;\n";
      return true;
    }
    return false;
  };
  SourceManager sm;
  DiagnosticEngine diags(sm);
  auto m = parseAndCheck("main.kp",
                         "import std.a;\nimport std.b;\n"
                         "kernel k(out y: f32[1]) launch block(1) grid(1) { y[0] = twice(1.0); }\n",
                         resolver, sm, diags);
  std::ostringstream os;
  diags.print(os);
  ASSERT_TRUE(m) << os.str();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(m->fns.size(), 2u);
  EXPECT_EQ(m->consts.size(), 2u);
  EXPECT_EQ(m->kernels.size(), 1u);

  SourceManager sm2;
  DiagnosticEngine diags2(sm2);
  auto m2 = parseAndCheck("main.kp", "import std.nope;\n", resolver, sm2, diags2);
  EXPECT_FALSE(m2);
  ASSERT_EQ(diags2.errorCount(), 1u);
  EXPECT_EQ(diags2.all()[0].message, "cannot find module 'std.nope'");
}
