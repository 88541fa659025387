//===- Frontend.cpp - Lex, parse, resolve imports, check ------------------===//
#include "compiler/frontend/Frontend.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"

#include <set>

namespace kuiper {

using namespace ast;

namespace {

constexpr int kMaxImportDepth = 64;

struct Loader {
  const ImportResolver &resolver;
  SourceManager &sm;
  DiagnosticEngine &diags;
  Module &merged;
  std::set<std::string> seenModules;
  std::set<std::string> seenPaths;

  void load(const std::string &path, const std::string &text, int depth) {
    seenPaths.insert(path);
    std::shared_ptr<std::string> file = sm.add(path, text);
    unsigned before = diags.errorCount();
    std::vector<Token> toks = lex(file, text, diags);
    // Lexical errors (binary data, stray characters) would only cause a
    // cascade of parse errors: report them alone.
    if (diags.errorCount() != before)
      return;
    Parser p(std::move(toks), file, diags);
    std::unique_ptr<Module> m = p.parseModule();
    // Imported items come before the items of the importing file, so that
    // constants are defined before they are used.
    for (auto &imp : p.importLocs) {
      if (seenModules.count(imp.first))
        continue;
      seenModules.insert(imp.first);
      merged.imports.push_back(imp.first);
      std::string ipath, itext;
      if (!resolver || !resolver(imp.first, ipath, itext)) {
        diags.error(imp.second, "cannot find module '" + imp.first + "'");
        continue;
      }
      if (seenPaths.count(ipath))
        continue;
      if (depth + 1 > kMaxImportDepth) {
        diags.error(imp.second, "imports nested too deeply");
        continue;
      }
      diags.importedAt(ipath, imp.second, imp.first);
      load(ipath, itext, depth + 1);
      if (diags.errorCount() >= kMaxErrors)
        return;
    }
    for (auto &c : m->consts)
      merged.consts.push_back(std::move(c));
    for (auto &f : m->fns)
      merged.fns.push_back(std::move(f));
    for (auto &k : m->kernels)
      merged.kernels.push_back(std::move(k));
  }
};

} // namespace

std::unique_ptr<Module> parseAndCheck(const std::string &path,
                                      const std::string &text,
                                      const ImportResolver &resolver,
                                      SourceManager &sm,
                                      DiagnosticEngine &diags) {
  unsigned start = diags.errorCount();
  auto merged = std::make_unique<Module>();
  Loader loader{resolver, sm, diags, *merged, {}, {}};
  loader.load(path, text, 0);
  // Semantic checks run only on a module that parsed cleanly: items dropped
  // by parse errors would otherwise cause cascades of unknown names.
  if (diags.errorCount() != start)
    return nullptr;
  if (!checkModule(*merged, diags) || diags.errorCount() != start)
    return nullptr;
  return merged;
}

} // namespace kuiper
