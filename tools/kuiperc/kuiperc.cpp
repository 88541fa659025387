//===- kuiperc.cpp - The Kuiper compiler driver ---------------------------===//
//
// Thin over kuiper::Compiler: parses flags, compiles, prints the report and
// writes the requested output. Exit status (LANGUAGE.md §7): 0 all verified
// (and emitted), 1 a check failed or is unknown, 2 malformed input or command
// line, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Executor.h"
#include "compiler/driver/Driver.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <fstream>
#include <iostream>
#include <unistd.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sstream>
#include <string>
#include <vector>

using namespace kuiper;

namespace {

enum ExitCode { Verified = 0, CheckFailed = 1, Malformed = 2, Internal = 3 };

const char *const kUsage =
    "usage: kuiperc FILE.kp... [options]\n"
    "\n"
    "Verifies the kernels of FILE.kp and, only if every check is proven, emits PTX.\n"
    "Several files are compiled one after the other, each on its own (with\n"
    "--verify-only, or each to its basename with .ptx); the exit status is the\n"
    "worst of theirs.\n"
    "\n"
    "options:\n"
    "  -o OUT                 output file ('-' for stdout; default: FILE's basename\n"
    "                         with .ptx, in the current directory); one input only\n"
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
    "  --jobs N               solver threads (default, or 0: one per core it may run on)\n"
    "  --fail-fast            once a check fails, leave the obligations the quick\n"
    "                         solver stages cannot decide (reported unknown, not\n"
    "                         attempted): a wrong kernel is rejected sooner\n"
    "  --no-cache             do not use the obligation cache\n"
    "  --no-replay            do not replay counterexamples on the CPU executor\n"
    "  --launch NAME=VALUE,...\n"
    "                         after compiling, print on stdout (JSON) the launch each\n"
    "                         kernel gets for these scalar arguments: grid, block and\n"
    "                         buffer shapes, evaluated on the compiled module\n"
    "  --help                 print this help\n"
    "  --version              print the version\n"
    "\n"
    "exit status: 0 verified (and emitted), 1 a check failed or is unknown,\n"
    "             2 malformed input or command line, 3 internal error\n";

/// What one input file of several came to, for the one JSON or SARIF document
/// printed at the end.
struct FileOutcome {
  std::string file;
  int status = 0;
  double timeMs = 0;
  std::optional<Report> report;
  std::string error; // the diagnostics when no report was produced
};

struct Options {
  std::vector<std::string> inputs;
  /// The input being compiled.
  std::string input;
  /// With several inputs and --report json/sarif: where the report goes
  /// instead of being printed.
  FileOutcome *collect = nullptr;
  /// Whether the process exits once this input is done (its solver memory
  /// need not be given back).
  bool lastInput = true;
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
  bool failFast = false;
  bool noVectorize = false;
  bool debugInfo = false;
  /// --launch: scalar arguments (name, text) whose launch shapes to print,
  /// from every --launch option (each name once).
  std::vector<std::pair<std::string, std::string>> launchArgs;
  bool launch = false;
};

int usageError(const std::string &message) {
  std::cerr << "kuiperc: error: " << message
            << "\nusage: kuiperc FILE.kp... [options] ('kuiperc --help' lists them)\n";
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
        a == "--no-replay" || a == "--no-vectorize" || a == "--fail-fast") {
      if (hasInlineValue)
        return usageError("option '" + a + "' takes no value");
      (a == "--verify-only" ? o.verifyOnly
       : a == "--no-verify" ? o.noVerify
       : a == "--no-cache"  ? o.noCache
       : a == "--no-replay" ? o.noReplay
       : a == "--fail-fast" ? o.failFast
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
        return usageError("option '" + a + "' needs " +
                          (a == "--timeout" ? "a positive integer"
                           : a == "--jobs"  ? "a whole number (0: one per core)"
                                            : "a whole number of seconds (0: none)") +
                          ", got '" + v + "'");
      (a == "--timeout" ? o.timeoutSeconds : a == "--jobs" ? o.jobs : o.budgetSeconds) = n;
    } else if (a == "--launch") {
      std::string list;
      if (!takeValue(list))
        return needsValue(a);
      o.launch = true;
      std::stringstream items(list);
      std::string item;
      while (std::getline(items, item, ',')) {
        size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
          return usageError("--launch takes NAME=VALUE[,NAME=VALUE...], got '" + item + "'");
        std::string name = item.substr(0, eq);
        for (const auto &[seen, value] : o.launchArgs)
          if (seen == name)
            return usageError("--launch gives '" + name +
                              "' twice (the --launch options' lists make one launch)");
        o.launchArgs.push_back({name, item.substr(eq + 1)});
      }
    } else if (a == "-") {
      return usageError("reading from stdin is not supported");
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + args[i] + "'");
    } else {
      o.inputs.push_back(a);
    }
  }
  if (o.inputs.empty())
    return usageError("no input file");
  o.input = o.inputs.front();
  if (o.verifyOnly && o.noVerify)
    return usageError("--verify-only and --no-verify contradict each other");
  if (o.noVerify && o.emit == "smt")
    return usageError("--emit smt writes the verifier's obligations: it cannot go with "
                      "--no-verify");
  if (o.verifyOnly && !o.output.empty())
    return usageError("--verify-only emits nothing; -o makes no sense with it");
  if (o.inputs.size() > 1) {
    if (!o.output.empty())
      return usageError("-o names one output, but there are " +
                        std::to_string(o.inputs.size()) +
                        " input files (without -o each goes to its basename with .ptx)");
    if (o.emit != "ptx")
      return usageError("--emit " + o.emit + " writes on stdout: give one input file");
    if (o.launch)
      return usageError("--launch prints on stdout: give one input file");
  }
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
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "kuiperc: error: cannot write '" << path
              << "': " << (errno ? std::strerror(errno) : "write failed") << "\n";
    return false;
  }
  return true;
}

/// Why `path` cannot be written (a directory, a folder that is missing or
/// not writable), before any work is done; empty if it looks writable.
std::string unwritable(const std::string &path) {
  if (path.empty() || path == "-")
    return "";
  struct stat st;
  if (stat(path.c_str(), &st) == 0)
    return S_ISDIR(st.st_mode) ? "it is a directory"
           : access(path.c_str(), W_OK) != 0 ? std::strerror(errno)
                                              : "";
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (access(dir.c_str(), W_OK) != 0)
    return "its folder '" + dir + "': " + std::strerror(errno);
  return "";
}

/// Prints the report: text on stderr, JSON and SARIF on stdout (on stderr if
/// the compiled output itself goes to stdout).
void printReport(const Options &o, const Report &report, bool outputOnStdout) {
  if (o.collect && o.report != "text") {
    o.collect->report = report;
    return;
  }
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

/// One kernel's launch for the --launch arguments as a JSON object: grid and
/// block from its launch clause, the buffers' shapes, whether requires holds.
std::string launchJSON(const Module &module, const KernelInfo &kernel,
                       const Options &o) {
  std::ostringstream js;
  js << "{\"kernel\": " << jsonQuote(kernel.name);
  Args args;
  for (const ParamInfo &p : kernel.params) {
    if (p.kind != ParamInfo::Scalar)
      continue;
    const std::string *text = nullptr;
    for (const auto &[name, value] : o.launchArgs)
      if (name == p.name)
        text = &value;
    ScalarValue v;
    if (!text)
      return js.str() + ", \"error\": " +
             jsonQuote("no value for scalar parameter '" + p.name + "'") + "}";
    if (!parseScalar(p.type, *text, v))
      return js.str() + ", \"error\": " +
             jsonQuote("bad value '" + *text + "' for " + p.name + ": " + p.type) + "}";
    args.set(p.name, v);
  }
  Result<LaunchInfo> info = Executor().describe(module, kernel.name, args);
  if (!info)
    return js.str() + ", \"error\": " + jsonQuote(info.error().message) + "}";
  js << ", \"grid\": [" << info->grid[0] << ", " << info->grid[1] << ", " << info->grid[2]
     << "], \"block\": [" << info->block[0] << ", " << info->block[1] << ", "
     << info->block[2] << "], \"requires_hold\": " << (info->requiresHold ? "true" : "false");
  if (!info->requiresHold)
    js << ", \"failed_requires\": " << jsonQuote(info->failedRequires);
  js << ", \"params\": [";
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ParamInfo &p = kernel.params[i];
    js << (i ? ", " : "") << "{\"name\": " << jsonQuote(p.name) << ", \"type\": "
       << jsonQuote(p.type);
    if (p.kind == ParamInfo::Scalar) {
      js << ", \"kind\": \"scalar\", \"value\": "
         << jsonQuote(toString(*args.scalar(p.name))) << "}";
      continue;
    }
    js << ", \"kind\": \"buffer\", \"access\": " << jsonQuote(p.access) << ", \"dims\": [";
    const std::vector<int64_t> &dims = info->bufferDims[p.name];
    for (size_t d = 0; d < dims.size(); ++d)
      js << (d ? ", " : "") << dims[d];
    js << "]}";
  }
  return js.str() + "]}";
}

/// --launch: the launch of every kernel of the module, on stdout. Exit status 2
/// when an argument names no scalar parameter of any kernel.
int printLaunches(const Module &module, const Options &o) {
  for (const auto &[name, value] : o.launchArgs) {
    bool known = false;
    for (const KernelInfo &k : module.kernels())
      for (const ParamInfo &p : k.params)
        known |= p.kind == ParamInfo::Scalar && p.name == name;
    if (!known) {
      std::cerr << "kuiperc: error: --launch: no kernel of " << o.input
                << " has a scalar parameter '" << name << "'\n";
      return Malformed;
    }
  }
  std::cout << "{\"launches\": [";
  for (size_t i = 0; i < module.kernels().size(); ++i)
    std::cout << (i ? ", " : "") << launchJSON(module, module.kernels()[i], o);
  std::cout << "]}\n";
  return Verified;
}

/// Writes the requested output of a compiled module and prints its report.
int emit(const Options &o, const CompileOptions &copts, Module &module,
         const std::string &out) {
  if (o.emit == "mlir") {
    if (o.report != "text")
      printReport(o, module.report(), out == "-");
    return writeOutput(out, module.mlir(o.debugInfo)) ? Verified : Internal;
  }

  if (o.emit == "smt") {
    // Each obligation stands alone: `(reset)` between them, so that the file
    // as a whole is one script for `z3 -smt2` or cvc5.
    std::ostringstream os;
    bool first = true;
    for (const auto &k : module.report().kernels)
      for (const auto &c : k.checks) {
        os << (first ? "" : "(reset)\n") << "; ---- " << checkName(c.id) << " "
           << c.location() << " (kernel " << k.name << ", " << statusName(c.status) << ")\n"
           << c.smt << (c.smt.empty() || c.smt.back() == '\n' ? "" : "\n");
        first = false;
      }
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

int run(const Options &o) {
  std::string out = outputPath(o);
  if (o.launch && (o.report != "text" || out == "-" || o.emit == "ast"))
    return usageError("--launch prints on stdout: it needs the text report, an output "
                      "file or --verify-only, and a compiled module (not --emit ast)");
  if (std::string why = unwritable(out); !why.empty()) {
    std::cerr << "kuiperc: error: cannot write '" << out << "': " << why << "\n";
    return Malformed;
  }
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
  copts.failFast = o.failFast;
  copts.releaseSolverMemory = !o.lastInput;
  copts.keepSMT = o.emit == "smt";
  copts.verify = !o.noVerify && o.emit != "mlir";
  copts.emitPTX = o.emit == "ptx" && !o.verifyOnly;
  // The rewrite's proof costs time: worth it only for what is lowered.
  copts.vectorize = !o.noVectorize && !o.verifyOnly &&
                    oneOf(o.emit, {"ptx", "llvm", "lowered-mlir"});

  // A file that produced no report: its diagnostics on stderr, and, for a
  // machine-read report of one file, a document that says so.
  auto noReport = [&](std::string message, int code) {
    if (!message.empty() && message.back() != '\n')
      message += "\n";
    std::cerr << message;
    if (o.collect)
      o.collect->error = message;
    else if (o.report == "json")
      std::cout << "{\n  \"file\": " << jsonQuote(o.input)
                << ",\n  \"verified\": false,\n  \"exit_status\": " << code
                << ",\n  \"error\": " << jsonQuote(message) << "\n}\n";
    else if (o.report == "sarif")
      std::cout << Report::toSARIF({}, {{o.input, message}});
    return code;
  };
  Compiler compiler(copts);
  Result<Module> result = compiler.compileFile(o.input);
  if (!result)
    return noReport(result.error().message, result.error().code == CheckFailed ? CheckFailed
                                            : result.error().code == Malformed ? Malformed
                                                                                : Internal);
  Module &module = *result;
  int status = emit(o, copts, module, out);
  if (status == Verified && o.launch)
    return printLaunches(module, o);
  return status;
}

/// `text`, a JSON value, indented by `indent` more spaces after its first line.
std::string indented(std::string text, const std::string &indent) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n')
      out += indent;
  }
  return out;
}

/// Several input files: each is compiled on its own, in order (a fresh
/// compiler, context and solver state per file, as separate runs would have;
/// only the process start-up is shared). Text reports and diagnostics go to
/// stderr as each file finishes; JSON and SARIF are one document at the end.
/// The exit status is the worst file's (3 > 2 > 1 > 0).
int runMany(const Options &o) {
  if (!o.verifyOnly) {
    std::map<std::string, std::string> outputs;
    for (const std::string &f : o.inputs) {
      Options fo = o;
      fo.input = f;
      auto [it, fresh] = outputs.emplace(outputPath(fo), f);
      if (!fresh)
        return usageError("'" + it->second + "' and '" + f + "' would both be written to '" +
                          it->first + "': compile them in separate runs");
    }
  }
  std::vector<FileOutcome> outcomes(o.inputs.size());
  int worst = Verified;
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    Options fo = o;
    fo.input = o.inputs[i];
    fo.collect = &outcomes[i];
    fo.lastInput = i + 1 == o.inputs.size();
    if (o.report == "text")
      std::cerr << "== " << fo.input << "\n";
    outcomes[i].file = fo.input;
    auto start = std::chrono::steady_clock::now();
    outcomes[i].status = run(fo);
    outcomes[i].timeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    worst = std::max(worst, outcomes[i].status);
  }
  if (o.report == "json") {
    std::ostringstream js;
    js << "{\n  \"files\": [";
    for (size_t i = 0; i < outcomes.size(); ++i) {
      const FileOutcome &f = outcomes[i];
      char ms[32];
      std::snprintf(ms, sizeof(ms), "%.1f", f.timeMs);
      js << (i ? ",\n" : "\n") << "    {\"file\": " << jsonQuote(f.file)
         << ", \"exit_status\": " << f.status << ", \"time_ms\": " << ms;
      if (f.report)
        js << ",\n      \"report\": " << indented(f.report->toJSON(), "      ");
      else
        js << ", \"error\": " << jsonQuote(f.error);
      js << "}";
    }
    js << "\n  ],\n  \"verified\": " << (worst == Verified ? "true" : "false") << "\n}\n";
    std::cout << js.str();
  } else if (o.report == "sarif") {
    std::vector<Report> reports;
    std::vector<std::pair<std::string, std::string>> errors;
    for (const FileOutcome &f : outcomes)
      if (f.report)
        reports.push_back(*f.report);
      else
        errors.push_back({f.file, f.error});
    std::cout << Report::toSARIF(reports, errors);
  }
  return worst;
}

} // namespace

/// A Z3 context touches about 17 MB when it is created, which is a third of
/// verifying a map-shaped kernel when each 4 KiB page faults on its own. The
/// main heap is grown once by 62 MB (untouched, so no memory is used yet) and
/// that range is marked for transparent huge pages: the kernel then maps it in
/// 2 MiB pages, a Z3 context is created in about half the time (8.5 -> 4.4 ms
/// on the 2-core machine) and so is the rest of a short run's memory. Large
/// blocks come from that heap (not from mmap) up to glibc's highest mmap
/// threshold, 32 MB. Where the kernel does not do THP, only the advice is lost.
static void reserveHeapInHugePages() {
  constexpr uintptr_t huge = uintptr_t(2) << 20;
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20); // keep the range once freed
  auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  void *a = malloc(31 << 20), *b = malloc(31 << 20);
  asm volatile("" : : "r"(a), "r"(b) : "memory"); // not elided as unused
  free(b);
  free(a);
  auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  uintptr_t lo = (before + huge - 1) & ~(huge - 1), hi = after & ~(huge - 1);
  if (hi > lo)
    madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE);
}

/// The front end and code generation recurse as deep as the input nests (up
/// to the front end's bound of 1000 levels): 8 MB of stack is enough for that
/// in an optimized build but not with sanitizers' larger frames (a chain of
/// 200 inlined fns overflowed it under ASan). As GCC does, the main thread's
/// stack limit is raised to 64 MB (or the hard limit) at start; Linux grows the
/// main stack up to the limit in force when it faults.
static void raiseStackLimit() {
  constexpr rlim_t wanted = rlim_t(64) << 20;
  struct rlimit r;
  if (getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= wanted)
    return;
  r.rlim_cur = r.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, r.rlim_max);
  setrlimit(RLIMIT_STACK, &r);
}

int main(int argc, char **argv) {
  raiseStackLimit();
  reserveHeapInHugePages();
  Options o;
  int status = parseArgs(argc, argv, o);
  if (status >= 0)
    return status;
  if (o.noVerify)
    std::cerr << "warning: verification skipped (--no-verify): nothing was verified\n";
  return o.inputs.size() == 1 ? run(o) : runMany(o);
}
