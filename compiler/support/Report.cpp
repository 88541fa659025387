//===- Report.cpp - JSON, SARIF and text forms of a verification report ---===//
//
// Plain C++ (no LLVM): the report is what embedders and CI read, so its
// printers depend on nothing but the standard library.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Report.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace kuiper {

const char *version() { return "0.1.0"; }

bool refutes(const CheckResult &run, const CheckResult &check) {
  auto baseName = [](const std::string &path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
  };
  if (run.id != check.id || run.line <= 0 || run.emptyLaunch != check.emptyLaunch ||
      (!run.file.empty() && !check.file.empty() && baseName(run.file) != baseName(check.file)))
    return false;
  // A race is between two places: the run caught it at either of them
  // (whichever thread came second), the check is of the pair.
  if (run.id == CheckId::Race && run.otherLine > 0) {
    auto at = [](int line, int col, int l, int c) { return line == l && col == c; };
    return check.otherLine > 0 &&
           ((at(run.line, run.col, check.line, check.col) &&
             at(run.otherLine, run.otherCol, check.otherLine, check.otherCol)) ||
            (at(run.line, run.col, check.otherLine, check.otherCol) &&
             at(run.otherLine, run.otherCol, check.line, check.col)));
  }
  if (run.line != check.line || run.col != check.col)
    return false;
  // A loop invariant has two obligations at its line: the run says which
  // of them it shows failing.
  if (run.id == CheckId::Invariant)
    for (const char *when : {"on entry", "after an iteration"})
      if (run.observed.find(std::string("does not hold ") + when) != std::string::npos)
        return check.message.find(when) != std::string::npos;
  return run.id != CheckId::Postcondition ||
         (run.observed.find("never written") != std::string::npos) ==
             (check.message.find(" is written") != std::string::npos);
}

Verdict verdictOf(const std::vector<CheckResult> &checks) {
  // Nothing proven is no proof: never "verified" for an empty list.
  bool failed = false, unknown = checks.empty();
  for (const CheckResult &c : checks) {
    failed |= c.status == CheckStatus::Failed;
    unknown |= c.status == CheckStatus::Unknown;
  }
  return failed ? Verdict::Failed : unknown ? Verdict::Unknown : Verdict::Verified;
}

const char *verdictName(Verdict verdict) {
  switch (verdict) {
  case Verdict::Verified:
    return "verified";
  case Verdict::Failed:
    return "failed";
  case Verdict::Unknown:
    return "unknown";
  case Verdict::NotVerified:
    return "not-verified";
  }
  return "unknown";
}

namespace {

//===----------------------------------------------------------------------===//
// JSON writing
//===----------------------------------------------------------------------===//

std::string quote(const std::string &s) { return jsonQuote(s); }

} // namespace

/// `s` as a JSON string literal (RFC 8259 escaping; UTF-8 passed through).
std::string jsonQuote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

namespace {

/// A JSON number; non-finite values (not representable in JSON) become null.
std::string number(double v, const char *fmt = "%.3f") {
  if (!std::isfinite(v))
    return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string boolean(bool b) { return b ? "true" : "false"; }

/// Writes a JSON object or array with comma handling and indentation.
class Writer {
public:
  explicit Writer(std::ostringstream &os) : os(os) {}
  void open(char bracket) {
    os << bracket;
    first.push_back(true);
  }
  void close(char bracket) {
    bool empty = first.back();
    first.pop_back();
    if (!empty)
      newline();
    os << bracket;
  }
  /// Starts the next member `"key": ` (key empty for array elements).
  void key(const std::string &k) {
    if (!first.back())
      os << ',';
    first.back() = false;
    newline();
    if (!k.empty())
      os << quote(k) << ": ";
  }
  void field(const std::string &k, const std::string &rawValue) {
    key(k);
    os << rawValue;
  }

private:
  void newline() {
    os << '\n' << std::string(2 * first.size(), ' ');
  }
  std::ostringstream &os;
  std::vector<bool> first;
};

bool isFailure(const CheckResult &c) { return c.status != CheckStatus::Proved; }

/// `file:line:col` of a check; the report's file and no position when unknown.
std::string locationOf(const CheckResult &c, const std::string &reportFile) {
  std::string f = c.file.empty() ? reportFile : c.file;
  if (c.line <= 0)
    return f;
  return f + ":" + std::to_string(c.line) + ":" + std::to_string(c.col);
}

} // namespace

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

std::string Report::toJSON() const {
  std::ostringstream os;
  Writer w(os);
  w.open('{');
  w.field("file", quote(file));
  w.field("verified", boolean(verified()));
  w.key("kernels");
  w.open('[');
  for (const auto &k : kernels) {
    w.key("");
    w.open('{');
    w.field("name", quote(k.name));
    w.field("verdict", quote(verdictName(k.verdict)));
    w.field("time_ms", number(k.timeMs));
    w.field("obligations", std::to_string(k.obligations));
    w.field("lowered", quote(k.lowered.empty() ? "as written" : k.lowered));
    w.key("trusted");
    w.open('[');
    for (const auto &t : k.trusted)
      w.field("", quote(t));
    w.close(']');
    w.key("tolerances");
    w.open('[');
    for (const auto &t : k.tolerances) {
      w.key("");
      w.open('{');
      w.field("clause", quote(t.clause));
      w.field("bound", quote(t.bound));
      w.field("relative", number(t.relative, "%.9g"));
      w.field("depth", std::to_string(t.depth));
      w.close('}');
    }
    w.close(']');
    w.key("checks");
    w.open('[');
    for (const auto &c : k.checks) {
      w.key("");
      w.open('{');
      w.field("id", quote(checkName(c.id)));
      w.field("status", quote(statusName(c.status)));
      w.field("location", quote(locationOf(c, file)));
      w.field("message", quote(c.message));
      w.key("counterexample");
      w.open('{');
      std::set<std::string> seen;
      for (const auto &[name, value] : c.counterexample)
        if (seen.insert(name).second)
          w.field(name, quote(value));
      w.close('}');
      w.field("explanation", quote(c.explanation));
      w.field("confirmed", c.confirmed ? boolean(*c.confirmed) : "null");
      w.field("observed", quote(c.observed));
      w.field("time_ms", number(c.timeMs));
      w.field("attempted", boolean(c.attempted));
      w.close('}');
    }
    w.close(']');
    w.close('}');
  }
  w.close(']');
  w.close('}');
  os << '\n';
  return os.str();
}

//===----------------------------------------------------------------------===//
// SARIF 2.1.0
//===----------------------------------------------------------------------===//

std::string Report::toSARIF() const { return toSARIF({*this}); }

std::string Report::toSARIF(const std::vector<Report> &reports,
                            const std::vector<std::pair<std::string, std::string>> &fileErrors) {
  const std::vector<CheckId> &rules = allChecks(); // in enum order
  auto ruleIndex = [](CheckId id) { return static_cast<size_t>(id); };

  std::ostringstream os;
  Writer w(os);
  // The "level", "message" and "locations" of a result or a notification
  // (line 0: the file only).
  auto located = [&](const char *level, const std::string &text, const std::string &uri,
                     int line, int col) {
    w.field("level", quote(level));
    w.key("message");
    w.open('{');
    w.field("text", quote(text));
    w.close('}');
    w.key("locations");
    w.open('[');
    w.key("");
    w.open('{');
    w.key("physicalLocation");
    w.open('{');
    w.key("artifactLocation");
    w.open('{');
    w.field("uri", quote(uri));
    w.close('}');
    if (line > 0) {
      w.key("region");
      w.open('{');
      w.field("startLine", std::to_string(line));
      if (col > 0)
        w.field("startColumn", std::to_string(col));
      w.close('}');
    }
    w.close('}');
    w.close('}');
    w.close(']');
  };
  w.open('{');
  w.field("version", quote("2.1.0"));
  w.field("$schema", quote("https://json.schemastore.org/sarif-2.1.0.json"));
  w.key("runs");
  w.open('[');
  w.key("");
  w.open('{');
  w.key("tool");
  w.open('{');
  w.key("driver");
  w.open('{');
  w.field("name", quote("kuiperc"));
  w.field("version", quote(version()));
  w.key("rules");
  w.open('[');
  for (CheckId id : rules) {
    w.key("");
    w.open('{');
    w.field("id", quote(checkName(id)));
    w.key("shortDescription");
    w.open('{');
    w.field("text", quote(checkSummary(id)));
    w.close('}');
    w.close('}');
  }
  w.close(']');
  w.close('}');
  w.close('}');
  w.key("results");
  w.open('[');
  for (const Report &report : reports) {
    for (const auto &k : report.kernels)
      for (const auto &c : k.checks) {
        if (!isFailure(c))
          continue;
        std::string text = "kernel " + k.name + ": " + c.message;
        if (c.status != CheckStatus::Failed)
          text += std::string(" (not proven: ") + statusName(c.status) + ")";
        if (!c.counterexample.empty()) {
          text += "; counterexample:";
          for (const auto &[name, value] : c.counterexample)
            text += " " + name + " = " + value;
        }
        if (!c.explanation.empty())
          text += "; " + c.explanation;
        if (c.confirmed)
          text += (*c.confirmed ? "; confirmed by replay" : "; replay") +
                  (c.observed.empty() ? std::string() : ": " + c.observed);
        w.key("");
        w.open('{');
        w.field("ruleId", quote(checkName(c.id)));
        w.field("ruleIndex", std::to_string(ruleIndex(c.id)));
        located(c.status == CheckStatus::Failed ? "error" : "warning", text,
                c.file.empty() ? report.file : c.file, c.line, c.col);
        w.close('}');
      }
  }
  w.close(']');
  w.key("invocations");
  w.open('[');
  w.key("");
  w.open('{');
  w.field("executionSuccessful", fileErrors.empty() ? "true" : "false");
  w.key("toolExecutionNotifications");
  w.open('[');
  for (const auto &[file, message] : fileErrors) {
    w.key("");
    w.open('{');
    located("error", message, file, 0, 0);
    w.close('}');
  }
  w.close(']');
  w.close('}');
  w.close(']');
  w.close('}');
  w.close(']');
  w.close('}');
  os << '\n';
  return os.str();
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

std::string Report::toObligationList() const {
  std::ostringstream os;
  for (const auto &k : kernels)
    for (const auto &c : k.checks)
      os << "kernel " << k.name << ": " << statusName(c.status) << " ["
         << checkName(c.id) << "] " << locationOf(c, file) << ": " << c.message << "\n";
  return os.str();
}

std::string Report::toText() const {
  std::ostringstream os;
  char buf[64];
  auto ms = [&](double v) {
    std::snprintf(buf, sizeof(buf), "%.0f ms", v);
    return std::string(buf);
  };
  for (const auto &k : kernels) {
    for (const auto &c : k.checks) {
      if (!isFailure(c))
        continue;
      std::string where = locationOf(c, file) + ": ";
      os << where << (c.status == CheckStatus::Warning ? "warning: " : "error: ") << c.message
         << " [" << checkName(c.id) << "]\n";
      if (c.status == CheckStatus::Unknown && c.attempted)
        os << where << "note: not proven after " << ms(c.timeMs) << " of solving\n";
      if (!c.counterexample.empty()) {
        os << where << "note: counterexample:";
        for (const auto &[name, value] : c.counterexample)
          os << "\n" << where << "note:   " << name << " = " << value;
        os << "\n";
      }
      if (!c.explanation.empty())
        os << where << "note: " << c.explanation << "\n";
      if (c.confirmed) {
        if (*c.confirmed)
          os << where << "note: confirmed by replay: "
             << (c.observed.empty() ? "the CPU executor shows the failure" : c.observed)
             << "\n";
        else
          os << where << "note: replay on the CPU executor: "
             << (c.observed.empty() ? "possible: not reproduced" : c.observed) << "\n";
      }
    }
  }
  for (const auto &k : kernels) {
    unsigned proved = 0, failed = 0, unknown = 0, warnings = 0;
    for (const auto &c : k.checks) {
      if (c.status == CheckStatus::Proved)
        ++proved;
      else if (c.status == CheckStatus::Warning)
        ++warnings;
      else if (c.status == CheckStatus::Failed)
        ++failed;
      else
        ++unknown;
    }
    os << "kernel " << k.name << ": ";
    if (k.verdict == Verdict::NotVerified) {
      os << "NOT VERIFIED (verification skipped)\n";
      continue;
    }
    if (k.verdict == Verdict::Verified)
      os << "verified";
    else if (k.verdict == Verdict::Failed)
      os << "FAILED";
    else
      os << "NOT PROVEN (" << verdictName(k.verdict) << ")";
    os << " \xE2\x80\x94 " << proved << " checks proved";
    if (failed)
      os << ", " << failed << " failed";
    if (unknown)
      os << ", " << unknown << " unknown";
    if (warnings)
      os << ", " << warnings << (warnings == 1 ? " finding" : " findings");
    os << ", " << k.obligations << " obligations, " << ms(k.timeMs) << "\n";
    if (!k.lowered.empty())
      os << "  lowered: " << k.lowered << "\n";
    for (const auto &t : k.trusted)
      os << "  trusted: " << t << "\n";
    for (const auto &t : k.tolerances) {
      std::snprintf(buf, sizeof(buf), "%.3g", t.relative);
      os << "  tolerance at " << t.clause << ": " << t.bound;
      if (t.relative >= 0)
        os << " (gamma(" << t.depth << ") = " << buf << ")";
      os << "\n";
    }
  }
  return os.str();
}

} // namespace kuiper
