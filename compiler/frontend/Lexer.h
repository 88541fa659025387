//===- Lexer.h - Tokens of the .kp language ---------------------*- C++ -*-===//
#ifndef KUIPER_FRONTEND_LEXER_H
#define KUIPER_FRONTEND_LEXER_H

#include "compiler/frontend/Frontend.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kuiper {

enum class Tok {
  Eof,
  Ident,
  IntLit,
  FloatLit,
  // Hard keywords. Soft keywords (as step approx reads writes launch block
  // grid invariant sum deterministic old mask) are lexed as identifiers and
  // recognised by the parser from context.
  KwImport, KwFn, KwKernel, KwIn, KwOut, KwInout, KwLet, KwVar, KwShared,
  KwConst, KwIf, KwElse, KwFor, KwWhile, KwReturn, KwBarrier, KwAssert,
  KwAssume, KwRequires, KwEnsures, KwForall, KwExists, KwTrue, KwFalse,
  // Punctuation.
  LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Semi, Colon,
  Dot, DotDot, Arrow, Question,
  Plus, Minus, Star, Slash, Percent, Shl, Shr, Amp, Pipe, Caret, AmpAmp,
  PipePipe, Bang, Tilde, EqEq, NotEq, Lt, Le, Gt, Ge, Implies,
  Assign, PlusEq, MinusEq, StarEq, SlashEq, PercentEq, AmpEq, PipeEq,
  CaretEq, ShlEq, ShrEq,
};

/// Spelling of a token kind for diagnostics ("';'", "identifier", ...).
const char *tokName(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  std::string text;  ///< source spelling
  int line = 0, col = 0;
  int endCol = 0;    ///< column just past the token (same line)
  uint64_t intValue = 0;
  bool intTooLarge = false; ///< literal does not fit in 64 bits
  double floatValue = 0;
  bool f32Suffix = false;   ///< `2.5f`
};

/// Splits `text` into tokens, reporting lexical errors to `diags`. The last
/// token is always Eof.
std::vector<Token> lex(const std::shared_ptr<std::string> &file,
                       const std::string &text, DiagnosticEngine &diags);

/// Maximum number of errors reported before giving up.
constexpr unsigned kMaxErrors = 20;

} // namespace kuiper

#endif
