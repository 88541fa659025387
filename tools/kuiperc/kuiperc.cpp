//===- kuiperc.cpp - The Kuiper compiler driver ---------------------------===//
//
// Thin over kuiper::Compiler: parses flags, compiles, prints the report and
// writes the requested output. Exit status (LANGUAGE.md §7): 0 all verified
// (and emitted), 1 a check failed or is unknown, 2 malformed input or command
// line, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "compiler/driver/Driver.h"

#include "llvm/Support/Error.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <unistd.h>
#include <sstream>
#include <string>
#include <vector>

using namespace kuiper;

namespace {

enum ExitCode { Verified = 0, CheckFailed = 1, Malformed = 2, Internal = 3 };

const char *const kUsage =
    "usage: kuiperc FILE.kp [options]\n"
    "\n"
    "Verifies the kernels of FILE.kp and, only if every check is proven, emits PTX.\n"
    "\n"
    "options:\n"
    "  -o OUT                 output file ('-' for stdout; default: FILE's basename\n"
    "                         with .ptx, in the current directory)\n"
    "  --verify-only          verify and report, emit nothing\n"
    "  --no-verify            emit without verifying (the output and report say so)\n"
    "  --arch ARCH            sm_75, sm_80, sm_86, sm_89 or sm_90 (default sm_80)\n"
    "  --emit KIND            ast, mlir (the source's kuiper IR, not verified),\n"
    "                         lowered-mlir (the verified kuiper IR that is lowered:\n"
    "                         after --kuiper-vectorize where it applies), llvm,\n"
    "                         ptx (default) or smt\n"
    "  --mlir-print-debuginfo with --emit mlir/lowered-mlir: print .kp locations\n"
    "  --no-vectorize         lower the kernels as written (no several-elements-per-\n"
    "                         thread rewrite with 128-bit accesses)\n"
    "  --report FORMAT        text (default, on stderr), json or sarif (on stdout)\n"
    "  -I DIR                 import path (searched before the built-in stdlib)\n"
    "  --timeout SECONDS      solver effort per obligation (default 10): a Z3 resource\n"
    "                         limit worth about that many seconds, never wall-clock time\n"
    "  --budget SECONDS       wall-clock budget per kernel (default 60, 0: none); past\n"
    "                         it the remaining obligations are unknown, never verified\n"
    "  --jobs N               solver threads (default: one per core)\n"
    "  --no-cache             do not use the obligation cache\n"
    "  --no-replay            do not replay counterexamples on the CPU executor\n"
    "  --help                 print this help\n"
    "  --version              print the version\n"
    "\n"
    "exit status: 0 verified (and emitted), 1 a check failed or is unknown,\n"
    "             2 malformed input or command line, 3 internal error\n";

struct Options {
  std::string input;
  std::string output;
  bool verifyOnly = false;
  bool noVerify = false;
  std::string arch = "sm_80";
  std::string emit = "ptx";
  std::string report = "text";
  std::vector<std::string> importPaths;
  unsigned timeoutSeconds = 10;
  unsigned budgetSeconds = 60;
  unsigned jobs = 0;
  bool noCache = false;
  bool noReplay = false;
  bool noVectorize = false;
  bool debugInfo = false;
};

int usageError(const std::string &message) {
  std::cerr << "kuiperc: error: " << message << "\n\n" << kUsage;
  return Malformed;
}

bool parseUnsigned(const std::string &s, unsigned &value) {
  if (s.empty() || s.size() > 9)
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  value = static_cast<unsigned>(std::stoul(s));
  return true;
}

bool oneOf(const std::string &s, std::initializer_list<const char *> choices) {
  for (const char *c : choices)
    if (s == c)
      return true;
  return false;
}

/// Parses the command line. Returns -1 to go on, or an exit status.
int parseArgs(int argc, char **argv, Options &o) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string value;
    bool hasInlineValue = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      hasInlineValue = true;
    } else if (a.size() > 2 && (a.rfind("-o", 0) == 0 || a.rfind("-I", 0) == 0)) {
      value = a.substr(2);
      a = a.substr(0, 2);
      hasInlineValue = true;
    }
    auto takeValue = [&](std::string &out) {
      if (hasInlineValue) {
        out = value;
        return true;
      }
      if (i + 1 >= args.size())
        return false;
      out = args[++i];
      return true;
    };
    auto needsValue = [&](const std::string &flag) {
      return usageError("option '" + flag + "' needs a value");
    };

    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    }
    if (a == "--version") {
      std::cout << "kuiperc " << version() << "\n";
      return 0;
    }
    if (a == "--mlir-print-debuginfo") {
      o.debugInfo = true;
      continue;
    }
    if (a == "--verify-only" || a == "--no-verify" || a == "--no-cache" ||
        a == "--no-replay" || a == "--no-vectorize") {
      if (hasInlineValue)
        return usageError("option '" + a + "' takes no value");
      (a == "--verify-only" ? o.verifyOnly
       : a == "--no-verify" ? o.noVerify
       : a == "--no-cache"  ? o.noCache
       : a == "--no-replay" ? o.noReplay
                            : o.noVectorize) = true;
    } else if (a == "-o") {
      if (!takeValue(o.output))
        return needsValue(a);
    } else if (a == "-I") {
      std::string dir;
      if (!takeValue(dir))
        return needsValue(a);
      o.importPaths.push_back(dir);
    } else if (a == "--arch") {
      if (!takeValue(o.arch))
        return needsValue(a);
      if (!oneOf(o.arch, {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90"}))
        return usageError("unsupported --arch '" + o.arch +
                          "' (expected sm_75, sm_80, sm_86, sm_89 or sm_90)");
    } else if (a == "--emit") {
      if (!takeValue(o.emit))
        return needsValue(a);
      if (!oneOf(o.emit, {"ast", "mlir", "lowered-mlir", "llvm", "ptx", "smt"}))
        return usageError("unknown --emit kind '" + o.emit +
                          "' (expected ast, mlir, lowered-mlir, llvm, ptx or smt)");
    } else if (a == "--report") {
      if (!takeValue(o.report))
        return needsValue(a);
      if (!oneOf(o.report, {"text", "json", "sarif"}))
        return usageError("unknown --report format '" + o.report +
                          "' (expected text, json or sarif)");
    } else if (a == "--timeout" || a == "--jobs" || a == "--budget") {
      std::string v;
      if (!takeValue(v))
        return needsValue(a);
      unsigned n = 0;
      if (!parseUnsigned(v, n) || (a == "--timeout" && n == 0))
        return usageError("option '" + a + "' needs a positive integer, got '" + v + "'");
      (a == "--timeout" ? o.timeoutSeconds : a == "--jobs" ? o.jobs : o.budgetSeconds) = n;
    } else if (a == "-") {
      return usageError("reading from stdin is not supported");
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + args[i] + "'");
    } else {
      if (!o.input.empty())
        return usageError("more than one input file ('" + o.input + "' and '" + a + "')");
      o.input = a;
    }
  }
  if (o.input.empty())
    return usageError("no input file");
  if (o.verifyOnly && o.noVerify)
    return usageError("--verify-only and --no-verify contradict each other");
  if (o.verifyOnly && !o.output.empty())
    return usageError("--verify-only emits nothing; -o makes no sense with it");
  return -1;
}

/// Where the main output goes: "-" for stdout, a path, or "" for nothing.
std::string outputPath(const Options &o) {
  if (o.verifyOnly)
    return "";
  if (!o.output.empty())
    return o.output;
  if (o.emit != "ptx")
    return "-";
  std::string base = o.input.substr(o.input.find_last_of('/') + 1);
  size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0)
    base = base.substr(0, dot);
  return base + ".ptx";
}

/// Writes `text` to `path` ("-" = stdout). Returns false after printing why.
bool writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return true;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::cerr << path << ": error: cannot write output file\n";
    return false;
  }
  return true;
}

/// Prints the report: text on stderr, JSON and SARIF on stdout (on stderr if
/// the compiled output itself goes to stdout).
void printReport(const Options &o, const Report &report, bool outputOnStdout) {
  std::ostream &json = outputOnStdout ? std::cerr : std::cout;
  if (o.report == "json")
    json << report.toJSON();
  else if (o.report == "sarif")
    json << report.toSARIF();
  else
    std::cerr << report.toText();
}

int emitAST(const Options &o, const std::string &out) {
  std::string text, reason;
  if (!readSourceFile(o.input, text, reason)) {
    std::cerr << o.input << ": error: cannot read file: " << reason << "\n";
    return Malformed;
  }
  SourceManager sm;
  DiagnosticEngine diags(sm);
  auto ast = parseAndCheck(o.input, text, makeImportResolver(o.importPaths), sm, diags);
  diags.print(std::cerr);
  if (!ast || diags.errorCount())
    return Malformed;
  std::ostringstream os;
  dumpAST(*ast, os);
  return writeOutput(out, os.str()) ? Verified : Internal;
}

int run(const Options &o) {
  std::string out = outputPath(o);
  if (o.emit == "ast")
    return emitAST(o, out);

  CompileOptions copts;
  copts.arch = o.arch;
  copts.importPaths = o.importPaths;
  copts.solverTimeoutMs = o.timeoutSeconds * 1000;
  copts.budgetSeconds = o.budgetSeconds;
  // Progress for slow kernels, as ninja shows it: only on a terminal and
  // only with the text report.
  if (o.report == "text" && isatty(2))
    copts.progress = [](const std::string &line) {
      std::cerr << "kuiperc: " << line << "\n";
    };
  copts.jobs = o.jobs;
  copts.useCache = !o.noCache;
  copts.replay = !o.noReplay;
  copts.releaseSolverMemory = false; // the process exits right after
  copts.keepSMT = o.emit == "smt";
  copts.verify = !o.noVerify && o.emit != "mlir";
  copts.emitPTX = o.emit == "ptx" && !o.verifyOnly;
  // The rewrite is verified again: worth it only for what is lowered.
  copts.vectorize = !o.noVectorize && !o.verifyOnly &&
                    oneOf(o.emit, {"ptx", "llvm", "lowered-mlir"});

  if (o.noVerify)
    std::cerr << "warning: verification skipped (--no-verify): nothing was verified\n";

  Compiler compiler(copts);
  Result<Module> result = compiler.compileFile(o.input);
  if (!result) {
    std::cerr << result.error().message;
    if (!result.error().message.empty() && result.error().message.back() != '\n')
      std::cerr << "\n";
    return result.error().code == CheckFailed ? CheckFailed
           : result.error().code == Malformed ? Malformed
                                               : Internal;
  }
  Module &module = *result;

  if (o.emit == "mlir") {
    if (o.report != "text")
      printReport(o, module.report(), out == "-");
    return writeOutput(out, module.mlir(o.debugInfo)) ? Verified : Internal;
  }

  if (o.emit == "smt") {
    std::ostringstream os;
    for (const auto &k : module.report().kernels)
      for (const auto &c : k.checks)
        os << "; ---- " << checkName(c.id) << " " << c.location() << " (kernel " << k.name
           << ", " << statusName(c.status) << ")\n"
           << c.smt << (c.smt.empty() || c.smt.back() == '\n' ? "" : "\n");
    if (!writeOutput(out, os.str()))
      return Internal;
    printReport(o, module.report(), out == "-");
    return module.report().verified() ? Verified : CheckFailed;
  }

  bool verified = module.report().verified();
  printReport(o, module.report(), out == "-");
  if (copts.verify && !verified) {
    if (!out.empty())
      std::cerr << "kuiperc: error: " << o.input
                << ": not every check was proven; nothing was emitted\n";
    return CheckFailed;
  }
  if (out.empty())
    return copts.verify ? Verified : CheckFailed;

  if (o.emit == "lowered-mlir")
    return writeOutput(out, module.mlir(o.debugInfo)) ? Verified : Internal;

  if (o.emit == "llvm") {
    LoweringOptions lopts;
    lopts.arch = o.arch;
    auto ir = emitLLVMIR(module, lopts);
    if (!ir) {
      std::cerr << o.input << ": error: lowering to LLVM IR failed: "
                << llvm::toString(ir.takeError()) << "\n";
      return Internal;
    }
    return writeOutput(out, *ir) ? Verified : Internal;
  }

  if (module.ptx().empty()) {
    std::cerr << o.input << ": error: internal error: no PTX was produced\n";
    return Internal;
  }
  return writeOutput(out, module.ptx()) ? Verified : Internal;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  int status = parseArgs(argc, argv, o);
  if (status >= 0)
    return status;
  return run(o);
}
