//===- Frontend.h - Lexing, parsing and semantic analysis -------*- C++ -*-===//
#ifndef KUIPER_FRONTEND_FRONTEND_H
#define KUIPER_FRONTEND_FRONTEND_H

#include "compiler/frontend/AST.h"

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kuiper {

/// Keeps the text of every file seen, so diagnostics can show source lines.
class SourceManager {
public:
  /// Registers `text` under `path` and returns the shared path string that
  /// ast::Loc values point at.
  std::shared_ptr<std::string> add(const std::string &path, std::string text);
  /// The text of line `line` (1-based) of `path`, without its newline.
  std::string line(const std::string &path, int line) const;

private:
  std::map<std::string, std::pair<std::shared_ptr<std::string>, std::string>> files;
};

/// One diagnostic: `severity` is "error", "warning" or "note".
struct Diagnostic {
  ast::Loc loc;
  std::string severity;
  std::string message;
};

/// Collects diagnostics and prints them clang-style:
///   file:line:col: error: message
///     source line
///         ^
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sm) : sm(sm) {}
  void error(const ast::Loc &loc, const std::string &msg);
  void warning(const ast::Loc &loc, const std::string &msg);
  void note(const ast::Loc &loc, const std::string &msg);
  unsigned errorCount() const { return errors; }
  const std::vector<Diagnostic> &all() const { return diags; }
  /// Prints every diagnostic collected so far.
  void print(std::ostream &os) const;
  /// Prints one diagnostic (an error in an imported file with a note at the
  /// import that brought the file in).
  void print(std::ostream &os, const Diagnostic &d) const;
  /// Records that `file` was imported at `loc` (`import name;` in another file).
  void importedAt(const std::string &file, const ast::Loc &loc, const std::string &name) {
    imports.emplace(file, std::make_pair(loc, name));
  }

private:
  const SourceManager &sm;
  std::vector<Diagnostic> diags;
  std::map<std::string, std::pair<ast::Loc, std::string>> imports; ///< file -> (import, name)
  unsigned errors = 0;
};

/// Finds the text of `import std.NAME;` style modules: given the dotted name,
/// returns true and fills path/text when found.
using ImportResolver =
    std::function<bool(const std::string &dotted, std::string &path, std::string &text)>;

/// Lexes, parses, resolves imports (recursively, each once) and checks a
/// file. Returns null when any error was reported to `diags`.
std::unique_ptr<ast::Module> parseAndCheck(const std::string &path,
                                           const std::string &text,
                                           const ImportResolver &resolver,
                                           SourceManager &sm,
                                           DiagnosticEngine &diags);

/// Prints the AST in a readable indented form (for `--emit ast`).
void dumpAST(const ast::Module &m, std::ostream &os);

} // namespace kuiper

#endif
