//===- Stdlib.h - The standard library embedded in the binary ---*- C++ -*-===//
//
// The text of every stdlib/std/*.kp, compiled into KuiperStdlib so that
// `import std.NAME;` resolves without files next to the binary.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_STDLIB_STDLIB_H
#define KUIPER_STDLIB_STDLIB_H

#include <string>
#include <vector>

namespace kuiper {

/// Looks up a stdlib module by its dotted name (`std.activation`). On success
/// fills `path` with a display path (`<stdlib>/std/activation.kp`) and `text`
/// with the source, and returns true.
bool lookupStdlib(const std::string &dotted, std::string &path, std::string &text);

/// The dotted names of every embedded module, sorted.
std::vector<std::string> stdlibModules();

namespace stdlib_detail {
/// One embedded module; the generated table ends with a null entry.
struct StdlibEntry {
  const char *dotted;
  const char *relPath;
  const char *text;
};
extern const StdlibEntry entries[];
} // namespace stdlib_detail

} // namespace kuiper

#endif
