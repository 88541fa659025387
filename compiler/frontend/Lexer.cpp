//===- Lexer.cpp - Tokenizer of the .kp language --------------------------===//
#include "compiler/frontend/Lexer.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kuiper {

const char *tokName(Tok t) {
  switch (t) {
  case Tok::Eof: return "end of file";
  case Tok::Ident: return "identifier";
  case Tok::IntLit: return "integer literal";
  case Tok::FloatLit: return "float literal";
  case Tok::KwImport: return "'import'";
  case Tok::KwFn: return "'fn'";
  case Tok::KwKernel: return "'kernel'";
  case Tok::KwIn: return "'in'";
  case Tok::KwOut: return "'out'";
  case Tok::KwInout: return "'inout'";
  case Tok::KwLet: return "'let'";
  case Tok::KwVar: return "'var'";
  case Tok::KwShared: return "'shared'";
  case Tok::KwConst: return "'const'";
  case Tok::KwIf: return "'if'";
  case Tok::KwElse: return "'else'";
  case Tok::KwFor: return "'for'";
  case Tok::KwWhile: return "'while'";
  case Tok::KwReturn: return "'return'";
  case Tok::KwBarrier: return "'barrier'";
  case Tok::KwAssert: return "'assert'";
  case Tok::KwAssume: return "'assume'";
  case Tok::KwRequires: return "'requires'";
  case Tok::KwEnsures: return "'ensures'";
  case Tok::KwForall: return "'forall'";
  case Tok::KwExists: return "'exists'";
  case Tok::KwTrue: return "'true'";
  case Tok::KwFalse: return "'false'";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::Comma: return "','";
  case Tok::Semi: return "';'";
  case Tok::Colon: return "':'";
  case Tok::Dot: return "'.'";
  case Tok::DotDot: return "'..'";
  case Tok::Arrow: return "'->'";
  case Tok::Question: return "'?'";
  case Tok::Plus: return "'+'";
  case Tok::Minus: return "'-'";
  case Tok::Star: return "'*'";
  case Tok::Slash: return "'/'";
  case Tok::Percent: return "'%'";
  case Tok::Shl: return "'<<'";
  case Tok::Shr: return "'>>'";
  case Tok::Amp: return "'&'";
  case Tok::Pipe: return "'|'";
  case Tok::Caret: return "'^'";
  case Tok::AmpAmp: return "'&&'";
  case Tok::PipePipe: return "'||'";
  case Tok::Bang: return "'!'";
  case Tok::Tilde: return "'~'";
  case Tok::EqEq: return "'=='";
  case Tok::NotEq: return "'!='";
  case Tok::Lt: return "'<'";
  case Tok::Le: return "'<='";
  case Tok::Gt: return "'>'";
  case Tok::Ge: return "'>='";
  case Tok::Implies: return "'==>'";
  case Tok::Assign: return "'='";
  case Tok::PlusEq: return "'+='";
  case Tok::MinusEq: return "'-='";
  case Tok::StarEq: return "'*='";
  case Tok::SlashEq: return "'/='";
  case Tok::PercentEq: return "'%='";
  case Tok::AmpEq: return "'&='";
  case Tok::PipeEq: return "'|='";
  case Tok::CaretEq: return "'^='";
  case Tok::ShlEq: return "'<<='";
  case Tok::ShrEq: return "'>>='";
  }
  return "token";
}

namespace {

struct Keyword {
  const char *text;
  Tok kind;
};
const Keyword kKeywords[] = {
    {"import", Tok::KwImport},   {"fn", Tok::KwFn},
    {"kernel", Tok::KwKernel},   {"in", Tok::KwIn},
    {"out", Tok::KwOut},         {"inout", Tok::KwInout},
    {"let", Tok::KwLet},         {"var", Tok::KwVar},
    {"shared", Tok::KwShared},   {"const", Tok::KwConst},
    {"if", Tok::KwIf},           {"else", Tok::KwElse},
    {"for", Tok::KwFor},         {"while", Tok::KwWhile},
    {"return", Tok::KwReturn},   {"barrier", Tok::KwBarrier},
    {"assert", Tok::KwAssert},   {"assume", Tok::KwAssume},
    {"requires", Tok::KwRequires}, {"ensures", Tok::KwEnsures},
    {"forall", Tok::KwForall},   {"exists", Tok::KwExists},
    {"true", Tok::KwTrue},       {"false", Tok::KwFalse},
};

bool isIdentStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(unsigned char c) { return isIdentStart(c) || isDigit(c); }
bool isHex(unsigned char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// The length of the well-formed UTF-8 sequence of 2 to 4 bytes at `s[pos]`
/// and its code point, or 0.
size_t utf8Sequence(const std::string &s, size_t pos, uint32_t &cp) {
  unsigned char c = s[pos];
  size_t n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (n == 0 || pos + n > s.size())
    return 0;
  cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char d = s[pos + k];
    if ((d & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  return n;
}

/// The character at `s[pos]` as a message shows it: 'x', 'é' (U+00E9), or
/// (byte 0x..) for a byte that starts no UTF-8 character.
std::string describeChar(const std::string &s, size_t pos) {
  unsigned char c = s[pos];
  char buf[48];
  uint32_t cp = 0;
  if (c >= 0x21 && c < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else if (size_t n = utf8Sequence(s, pos, cp))
    return "'" + s.substr(pos, n) + "' " +
           (std::snprintf(buf, sizeof buf, "(U+%04X)", unsigned(cp)), std::string(buf));
  else
    std::snprintf(buf, sizeof buf, "(byte 0x%02x)", c);
  return buf;
}

class Lexer {
public:
  Lexer(const std::shared_ptr<std::string> &file, const std::string &text,
        DiagnosticEngine &diags)
      : file(file), src(text), diags(diags) {}

  std::vector<Token> run() {
    std::vector<Token> toks;
    // A UTF-8 byte order mark starts the file but no token.
    if (src.compare(0, 3, "\xEF\xBB\xBF") == 0)
      for (int k = 0; k < 3; ++k)
        advance();
    bool lastInvalid = false; // collapse runs of invalid characters
    while (true) {
      if (diags.errorCount() >= kMaxErrors)
        break;
      bool invalidHere = false;
      skipTrivia();
      if (pos >= src.size())
        break;
      Token t;
      t.line = line;
      t.col = col;
      size_t start = pos;
      unsigned char c = src[pos];
      if (isIdentStart(c)) {
        while (pos < src.size() && isIdentChar(src[pos]))
          advance();
        t.text = src.substr(start, pos - start);
        t.kind = Tok::Ident;
        for (const Keyword &k : kKeywords)
          if (t.text == k.text) {
            t.kind = k.kind;
            break;
          }
      } else if (isDigit(c)) {
        lexNumber(t);
        t.text = src.substr(start, pos - start);
      } else if (c == '"' || c == '\'') {
        // A string or character literal: one error for the whole literal.
        error(line, col, std::string(c == '"' ? "string" : "character") +
                             " literals are not part of the language");
        advance();
        while (pos < src.size() && src[pos] != c && src[pos] != '\n')
          advance();
        if (pos < src.size() && src[pos] == c)
          advance();
        lastInvalid = false;
        continue;
      } else if (!lexPunct(t)) {
        invalidHere = true;
        if (!lastInvalid)
          error(line, col, "invalid character " + describeChar(src, pos));
        uint32_t cp;
        for (size_t n = std::max<size_t>(1, utf8Sequence(src, pos, cp)); n > 0; --n)
          advance();
        lastInvalid = true;
        continue;
      } else {
        t.text = src.substr(start, pos - start);
      }
      lastInvalid = invalidHere;
      t.endCol = t.col + int(pos - start);
      toks.push_back(std::move(t));
    }
    Token eof;
    eof.kind = Tok::Eof;
    eof.line = line;
    eof.col = col;
    eof.endCol = col;
    toks.push_back(eof);
    return toks;
  }

private:
  std::shared_ptr<std::string> file;
  const std::string &src;
  DiagnosticEngine &diags;
  size_t pos = 0;
  int line = 1, col = 1;

  void error(int l, int c, const std::string &msg) {
    ast::Loc loc;
    loc.file = file;
    loc.line = l;
    loc.col = c;
    diags.error(loc, msg);
  }

  void advance() {
    if (src[pos] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    ++pos;
  }
  char peek(size_t k = 0) const {
    return pos + k < src.size() ? src[pos + k] : '\0';
  }
  bool atEnd(size_t k = 0) const { return pos + k >= src.size(); }

  /// Characters allowed inside comments: printable text, tabs and UTF-8.
  bool commentCharOk(unsigned char c) {
    return c == '\t' || c == '\n' || c == '\r' || c >= 0x20;
  }

  void skipTrivia() {
    while (pos < src.size()) {
      unsigned char c = src[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
          c == '\v') {
        advance();
      } else if (c == '/' && peek(1) == '/') {
        while (pos < src.size() && src[pos] != '\n') {
          if (!commentCharOk(src[pos])) {
            error(line, col, "invalid character " +
                                 describeChar(src, pos) + " in comment");
            if (diags.errorCount() >= kMaxErrors) {
              pos = src.size();
              return;
            }
          }
          advance();
        }
      } else if (c == '/' && peek(1) == '*') {
        int l = line, cl = col;
        advance();
        advance();
        bool closed = false;
        while (pos < src.size()) {
          if (src[pos] == '*' && peek(1) == '/') {
            advance();
            advance();
            closed = true;
            break;
          }
          if (!commentCharOk(src[pos])) {
            error(line, col, "invalid character " +
                                 describeChar(src, pos) + " in comment");
            if (diags.errorCount() >= kMaxErrors) {
              pos = src.size();
              return;
            }
          }
          advance();
        }
        if (!closed)
          error(l, cl, "unterminated '/*' comment");
      } else {
        return;
      }
    }
  }

  void lexNumber(Token &t) {
    int l = line, c = col;
    size_t start = pos;
    if (src[pos] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      advance();
      advance();
      size_t digits = pos;
      uint64_t v = 0;
      bool over = false;
      while (!atEnd() && isHex(src[pos])) {
        unsigned char d = src[pos];
        unsigned dv = isDigit(d) ? d - '0' : (d | 0x20) - 'a' + 10;
        if (v >> 60)
          over = true;
        v = (v << 4) | dv;
        advance();
      }
      t.kind = Tok::IntLit;
      t.intValue = v;
      t.intTooLarge = over;
      if (pos == digits) {
        // One error for `0xZZ`, not a second one for its "suffix".
        error(l, c, "expected hexadecimal digits after '0x'");
        while (!atEnd() && isIdentChar(src[pos]))
          advance();
        return;
      }
      checkSuffix(l, c);
      return;
    }
    bool isFloat = false;
    while (!atEnd() && isDigit(src[pos]))
      advance();
    if (peek() == '.' && isDigit(peek(1))) {
      isFloat = true;
      advance();
      while (!atEnd() && isDigit(src[pos]))
        advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) ||
         ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
      isFloat = true;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      while (!atEnd() && isDigit(src[pos]))
        advance();
    }
    std::string digits = src.substr(start, pos - start);
    if (isFloat) {
      t.kind = Tok::FloatLit;
      t.floatValue = std::strtod(digits.c_str(), nullptr);
      if (peek() == 'f' || peek() == 'F') {
        if (!isIdentChar(peek(1))) {
          advance();
          t.f32Suffix = true;
        }
      }
      checkSuffix(l, c);
      return;
    }
    t.kind = Tok::IntLit;
    uint64_t v = 0;
    bool over = false;
    for (char ch : digits) {
      uint64_t d = uint64_t(ch - '0');
      if (v > (UINT64_MAX - d) / 10)
        over = true;
      v = v * 10 + d;
    }
    t.intValue = over ? 0 : v;
    t.intTooLarge = over;
    checkSuffix(l, c);
  }

  void checkSuffix(int l, int c) {
    if (!atEnd() && isIdentChar(src[pos])) {
      size_t s = pos;
      while (!atEnd() && isIdentChar(src[pos]))
        advance();
      error(l, c, "invalid suffix '" + src.substr(s, pos - s) +
                      "' on numeric literal");
    }
  }

  bool lexPunct(Token &t) {
    char c = src[pos];
    char n1 = peek(1), n2 = peek(2);
    auto take = [&](Tok k, int len) {
      t.kind = k;
      for (int i = 0; i < len; ++i)
        advance();
      return true;
    };
    switch (c) {
    case '(': return take(Tok::LParen, 1);
    case ')': return take(Tok::RParen, 1);
    case '[': return take(Tok::LBracket, 1);
    case ']': return take(Tok::RBracket, 1);
    case '{': return take(Tok::LBrace, 1);
    case '}': return take(Tok::RBrace, 1);
    case ',': return take(Tok::Comma, 1);
    case ';': return take(Tok::Semi, 1);
    case ':': return take(Tok::Colon, 1);
    case '?': return take(Tok::Question, 1);
    case '~': return take(Tok::Tilde, 1);
    case '.':
      if (n1 == '.')
        return take(Tok::DotDot, 2);
      return take(Tok::Dot, 1);
    case '+':
      return n1 == '=' ? take(Tok::PlusEq, 2) : take(Tok::Plus, 1);
    case '-':
      if (n1 == '>')
        return take(Tok::Arrow, 2);
      return n1 == '=' ? take(Tok::MinusEq, 2) : take(Tok::Minus, 1);
    case '*':
      return n1 == '=' ? take(Tok::StarEq, 2) : take(Tok::Star, 1);
    case '/':
      return n1 == '=' ? take(Tok::SlashEq, 2) : take(Tok::Slash, 1);
    case '%':
      return n1 == '=' ? take(Tok::PercentEq, 2) : take(Tok::Percent, 1);
    case '^':
      return n1 == '=' ? take(Tok::CaretEq, 2) : take(Tok::Caret, 1);
    case '&':
      if (n1 == '&')
        return take(Tok::AmpAmp, 2);
      return n1 == '=' ? take(Tok::AmpEq, 2) : take(Tok::Amp, 1);
    case '|':
      if (n1 == '|')
        return take(Tok::PipePipe, 2);
      return n1 == '=' ? take(Tok::PipeEq, 2) : take(Tok::Pipe, 1);
    case '!':
      return n1 == '=' ? take(Tok::NotEq, 2) : take(Tok::Bang, 1);
    case '=':
      if (n1 == '=' && n2 == '>')
        return take(Tok::Implies, 3);
      return n1 == '=' ? take(Tok::EqEq, 2) : take(Tok::Assign, 1);
    case '<':
      if (n1 == '<')
        return n2 == '=' ? take(Tok::ShlEq, 3) : take(Tok::Shl, 2);
      return n1 == '=' ? take(Tok::Le, 2) : take(Tok::Lt, 1);
    case '>':
      if (n1 == '>')
        return n2 == '=' ? take(Tok::ShrEq, 3) : take(Tok::Shr, 2);
      return n1 == '=' ? take(Tok::Ge, 2) : take(Tok::Gt, 1);
    default:
      return false;
    }
  }
};

} // namespace

std::vector<Token> lex(const std::shared_ptr<std::string> &file,
                       const std::string &text, DiagnosticEngine &diags) {
  Lexer l(file, text, diags);
  return l.run();
}

} // namespace kuiper
