//===- Stdlib.cpp - Lookup in the embedded standard library ---------------===//
#include "stdlib/Stdlib.h"

namespace kuiper {

bool lookupStdlib(const std::string &dotted, std::string &path, std::string &text) {
  for (const auto *e = stdlib_detail::entries; e->dotted; ++e) {
    if (dotted != e->dotted)
      continue;
    path = std::string("<stdlib>/") + e->relPath;
    text = e->text;
    return true;
  }
  return false;
}

std::vector<std::string> stdlibModules() {
  std::vector<std::string> names;
  for (const auto *e = stdlib_detail::entries; e->dotted; ++e)
    names.push_back(e->dotted);
  return names;
}

} // namespace kuiper
