//===- Diagnostics.cpp - Source manager and diagnostic printing ----------===//
#include "compiler/frontend/Frontend.h"
#include "compiler/frontend/Lexer.h"

namespace kuiper {

std::shared_ptr<std::string> SourceManager::add(const std::string &path,
                                                std::string text) {
  auto it = files.find(path);
  if (it != files.end()) {
    it->second.second = std::move(text);
    return it->second.first;
  }
  auto name = std::make_shared<std::string>(path);
  files.emplace(path, std::make_pair(name, std::move(text)));
  return name;
}

std::string SourceManager::line(const std::string &path, int line) const {
  auto it = files.find(path);
  if (it == files.end() || line < 1)
    return "";
  const std::string &t = it->second.second;
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string::npos)
      return "";
    pos = nl + 1;
  }
  size_t end = t.find('\n', pos);
  std::string s = t.substr(pos, end == std::string::npos ? std::string::npos
                                                         : end - pos);
  if (!s.empty() && s.back() == '\r')
    s.pop_back();
  return s;
}

void DiagnosticEngine::error(const ast::Loc &loc, const std::string &msg) {
  if (errors >= kMaxErrors)
    return;
  diags.push_back({loc, "error", msg});
  ++errors;
  if (errors == kMaxErrors)
    diags.push_back({ast::Loc(), "error", "too many errors emitted, stopping now"});
}

void DiagnosticEngine::warning(const ast::Loc &loc, const std::string &msg) {
  diags.push_back({loc, "warning", msg});
}

void DiagnosticEngine::note(const ast::Loc &loc, const std::string &msg) {
  diags.push_back({loc, "note", msg});
}

void DiagnosticEngine::print(std::ostream &os, const Diagnostic &d) const {
  if (!d.loc.file) {
    os << d.severity << ": " << d.message << "\n";
    return;
  }
  os << *d.loc.file << ":" << d.loc.line << ":" << d.loc.col << ": "
     << d.severity << ": " << d.message << "\n";
  if (d.loc.line <= 0)
    return;
  std::string text = sm.line(*d.loc.file, d.loc.line);
  std::string caret;
  int col = d.loc.col;
  // Show a window of very long lines around the column.
  const int kWidth = 160;
  if ((int)text.size() > kWidth) {
    int start = col - 1 - kWidth / 2;
    if (start < 0)
      start = 0;
    std::string pre = start > 0 ? "..." : "";
    std::string mid = text.substr(size_t(start), size_t(kWidth));
    std::string post = size_t(start + kWidth) < text.size() ? "..." : "";
    text = pre + mid + post;
    col = col - start + int(pre.size());
  }
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = text[i];
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      text[i] = ' ';
  }
  // Columns count bytes; the caret goes under the character: one space per
  // character before it (a UTF-8 sequence's continuation bytes add none).
  for (int i = 1; i < col; ++i) {
    size_t k = size_t(i - 1);
    if (k < text.size() && (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80)
      continue;
    caret += (k < text.size() && text[k] == '\t') ? '\t' : ' ';
  }
  caret += '^';
  os << text << "\n" << caret << "\n";
  if (d.severity == "error")
    if (auto it = imports.find(*d.loc.file); it != imports.end())
      print(os, {it->second.first, "note", "in module '" + it->second.second + "', imported here"});
}

void DiagnosticEngine::print(std::ostream &os) const {
  for (const Diagnostic &d : diags)
    print(os, d);
}

} // namespace kuiper
