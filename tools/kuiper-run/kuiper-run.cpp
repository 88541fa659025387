//===- kuiper-run.cpp - Run a Kuiper kernel on the CPU executor or a GPU ---===//
//
//   kuiper-run FILE [--kernel K] [--set n=1000 ...] [--seed S]
//              [--inputs random|edge|index|ramp] [--device cpu|cuda]
//              [--schedule inorder|reverse|random] [--check] [--json]
//
// FILE is `.kp` source (compiled with kuiper::Compiler, verification off) or
// kuiper IR (`.mlir`). Exit status: 0 ran (and, with --check, no violation),
// 1 a dynamic check failed, 2 bad input, 3 internal error.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Device.h"
#include "kuiper/Executor.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

using namespace kuiper;

namespace {

struct Options {
  std::string file, kernel, inputs = "random", device = "cpu";
  std::vector<std::pair<std::string, std::string>> sets;
  std::vector<std::string> importPaths; ///< -I DIR, as kuiperc's
  uint64_t seed = 1;
  /// The executor's operations at most (0: no limit): a kernel that does not
  /// end stops with a message instead of running forever.
  uint64_t maxSteps = 200'000'000;
  ExecOptions::Schedule schedule = ExecOptions::InOrder;
  bool check = false, json = false;
};

constexpr const char *kSynopsis =
    "usage: kuiper-run FILE [--kernel K] [--set NAME=VALUE ...] [--seed S]\n"
    "                  [--inputs random|edge|index|ramp] [--device cpu|cuda]\n"
    "                  [--schedule inorder|reverse|random] [--check] [--json]\n"
    "                  [--max-steps N] [-I DIR ...]\n";

/// `text` as a whole number (decimal, or 0x hexadecimal) that fits 64 bits.
bool wholeNumber(const std::string &text, uint64_t &out) {
  if (text.empty() || text[0] == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 0);
  return !*end && errno != ERANGE;
}

/// The synopsis on stderr (after a usage error), or with every option
/// described on stdout (--help).
void usage(bool full = false) {
  if (!full) {
    std::cerr << kSynopsis << "('kuiper-run --help' describes the options)\n";
    return;
  }
  std::cout
      << kSynopsis
      << "\nRuns one kernel of FILE (.kp, compiled without verifying, or kuiper IR .mlir)\n"
         "on the CPU executor, or on a GPU, with sizes and inputs it chooses, and prints\n"
         "the outputs.\n\n"
         "options:\n"
         "  --kernel K          the kernel to run (default: FILE's first)\n"
         "  --set NAME=VALUE    a scalar parameter's value (repeatable); the others are\n"
         "                      chosen small, satisfying the requires clauses\n"
         "  --seed S            seed of the random inputs (a whole number, default 1)\n"
         "  --inputs KIND       random (default), edge (NaN, inf, -0, extremes mixed in),\n"
         "                      index (indices below the smallest size), ramp\n"
         "  --device cpu|cuda   the CPU executor (default) or the first CUDA device\n"
         "  --schedule ORDER    the executor's thread order: inorder (default), reverse,\n"
         "                      random\n"
         "  --check             check bounds, races, coverage, overflow and the ensures\n"
         "                      clauses of the run (exit status 1 when one fails)\n"
         "  --json              print the run as JSON on stdout\n"
         "  --max-steps N       stop the CPU executor after N operations (default\n"
         "                      200000000, 0 for no limit): a loop that does not end\n"
         "                      stops with an error (exit status 3)\n"
         "  -I DIR              also look for imported modules in DIR (as kuiperc)\n"
         "  --help              print this help\n\n"
         "exit status: 0 ran (and every check passed), 1 a check failed, 2 bad input or\n"
         "options, 3 internal error\n";
}

/// --json: errors are also a document on stdout, `{"error", "exit_status"}`.
bool jsonErrors = false;

/// Prints an error (and, under --json, its document); returns `code`.
int fail(const std::string &msg, int code) {
  std::string text = msg;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  std::cerr << (text.rfind("kuiper-run: ", 0) == 0 || text.find(": error: ") != std::string::npos
                    ? ""
                    : "kuiper-run: error: ")
            << text << "\n";
  if (jsonErrors)
    std::cout << "{\"error\": " << jsonQuote(text) << ", \"exit_status\": " << code << "}\n";
  return code;
}

int bad(const std::string &msg) { return fail(msg, 2); }


bool isFloatType(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

} // namespace

/// Compiles the input (without verifying it) or parses it as kuiper IR.
static Result<Module> loadModule(const Options &o) {
  bool isIR = o.file.size() > 5 && o.file.substr(o.file.size() - 5) == ".mlir";
  if (!isIR) {
    CompileOptions co;
    co.verify = false;
    co.emitPTX = o.device == "cuda";
    co.importPaths = o.importPaths;
    return Compiler(co).compileFile(o.file);
  }
  std::ifstream in(o.file);
  if (!in)
    return Error{"kuiper-run: error: cannot read " + o.file + "\n", 2};
  std::stringstream ss;
  ss << in.rdbuf();
  return parseModuleIR(ss.str(), o.file);
}

/// Reads the command line into `o`; an exit status when the tool should stop
/// here (help, or a usage error), -1 to go on.
static int parseArguments(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      usage(/*full=*/true);
      return 0;
    } else if (a == "--kernel") {
      if (!value(o.kernel))
        return bad("--kernel needs a name");
    } else if (a == "--set") {
      if (!value(v) || v.find('=') == std::string::npos)
        return bad("--set needs NAME=VALUE");
      o.sets.push_back({v.substr(0, v.find('=')), v.substr(v.find('=') + 1)});
    } else if (a == "-I" || (a.size() > 2 && a.rfind("-I", 0) == 0)) {
      if (a.size() > 2)
        v = a.substr(2);
      else if (!value(v))
        return bad("-I needs a directory");
      o.importPaths.push_back(v);
    } else if (a == "--max-steps") {
      if (!value(v) || !wholeNumber(v, o.maxSteps))
        return bad("--max-steps needs a whole number, got '" + v + "'");
    } else if (a == "--seed") {
      if (!value(v) || !wholeNumber(v, o.seed))
        return bad("--seed needs a whole number, got '" + v + "'");
    } else if (a == "--inputs") {
      if (!value(o.inputs) || (o.inputs != "random" && o.inputs != "edge" && o.inputs != "index" &&
                                o.inputs != "ramp"))
        return bad("--inputs takes random, edge, index or ramp");
    } else if (a == "--device") {
      if (!value(o.device) || (o.device != "cpu" && o.device != "cuda"))
        return bad("--device takes cpu or cuda");
    } else if (a == "--schedule") {
      if (!value(v))
        return bad("--schedule needs a value");
      if (v == "inorder")
        o.schedule = ExecOptions::InOrder;
      else if (v == "reverse")
        o.schedule = ExecOptions::Reverse;
      else if (v == "random")
        o.schedule = ExecOptions::Random;
      else
        return bad("--schedule takes inorder, reverse or random");
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (!a.empty() && a[0] == '-') {
      usage();
      return bad("unknown option " + a);
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      return bad("more than one input file");
    }
  }
  if (o.file.empty()) {
    usage();
    return 2;
  }
  return -1;
}

/// Sets the scalars given with `--set name=value` in `args`.
/// Returns an exit status on a bad name or value, -1 when all were set.
int setScalars(const Options &o, const KernelInfo &k, Args &args) {
  for (auto &[name, text] : o.sets) {
    const ParamInfo *p = nullptr;
    for (const ParamInfo &q : k.params)
      if (q.name == name)
        p = &q;
    if (!p || p->kind != ParamInfo::Scalar)
      return bad("kernel '" + k.name + "' has no scalar parameter '" + name + "'");
    ScalarValue sv;
    if (!parseScalar(p->type, text, sv))
      return bad("bad value '" + text + "' for " + name + ": " + p->type);
    args.set(name, sv);
  }
  return -1;
}

/// What one run of the kernel gave.
struct RunOutcome {
  ExecResult result;
  double ms = -1;              ///< device time, when run on the GPU
  std::string deviceName = "cpu";
};

/// Runs kernel `k` on the CPU executor (with `--check` or `--device cpu`)
/// and/or on the GPU. Returns an exit status on failure, -1 on success.
int runKernel(const Options &o, const Module &mod, const KernelInfo &k,
              Args &args, RunOutcome &out) {
  ExecOptions eo;
  eo.schedule = o.schedule;
  eo.seed = o.seed;
  eo.maxSteps = o.maxSteps;
  eo.checks = o.check;
  if (o.device == "cpu" || o.check) {
    Args cpuArgs = args;
    Result<ExecResult> r = Executor(eo).run(mod, k.name, cpuArgs);
    if (!r) {
      std::string why = r.error().message;
      if (why.rfind("step limit of ", 0) == 0)
        why += " (a loop that does not end? --max-steps N raises the limit, 0 removes it)";
      return fail(why, r.error().code == 3 ? 3 : 2);
    }
    out.result = *r;
    if (o.device == "cpu")
      args = std::move(cpuArgs);
  }
  if (o.device == "cuda") {
    Result<Device> dev = Device::open();
    if (!dev)
      return fail(dev.error().message, dev.error().code == 3 ? 3 : 2);
    out.deviceName = dev->name();
    Result<DeviceRun> run = dev->launch(mod, k.name, args);
    if (!run)
      return fail(run.error().message, run.error().code == 3 ? 3 : 2);
    out.ms = run->elapsedMs;
    out.result.launch = run->launch;
  }
  return -1;
}

/// The run as one JSON object on stdout (`--json`).
void printJson(const Options &o, const KernelInfo &k, const Args &args,
               const LaunchInfo &L, const RunOutcome &run, bool failed) {
  std::ostringstream js;
  js << "{\"file\": " << jsonQuote(o.file) << ", \"kernel\": " << jsonQuote(k.name)
     << ", \"device\": " << jsonQuote(run.deviceName) << ", \"scalars\": {";
  bool first = true;
  for (auto &[name, v] : args.allScalars()) {
    js << (first ? "" : ", ") << jsonQuote(name) << ": " << jsonQuote(toString(v));
    first = false;
  }
  js << "}, \"grid\": [" << L.grid[0] << ", " << L.grid[1] << ", " << L.grid[2]
     << "], \"block\": [" << L.block[0] << ", " << L.block[1] << ", "
     << L.block[2] << "]";
  if (run.ms >= 0)
    js << ", \"time_ms\": " << run.ms;
  js << ", \"checked\": " << (o.check ? "true" : "false") << ", \"violations\": [";
  const std::vector<Violation> &violations = run.result.violations;
  for (size_t i = 0; i < violations.size(); ++i) {
    const Violation &v = violations[i];
    js << (i ? ", " : "") << "{\"kind\": " << jsonQuote(checkName(v.kind))
       << ", \"message\": " << jsonQuote(v.message)
       << ", \"location\": " << jsonQuote(v.location) << ", \"count\": " << v.count
       << ", \"details\": {";
    for (size_t j = 0; j < v.details.size(); ++j)
      js << (j ? ", " : "") << jsonQuote(v.details[j].first) << ": "
         << jsonQuote(v.details[j].second);
    js << "}}";
  }
  js << "], \"outputs\": {";
  first = true;
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Buffer || p.access == "in")
      continue;
    const HostBuffer *b = args.buffer(p.name);
    js << (first ? "" : ", ") << jsonQuote(p.name) << ": [";
    first = false;
    int64_t n = std::min<int64_t>(b->numElements(), 16);
    for (int64_t i = 0; i < n; ++i)
      js << (i ? ", " : "") << jsonQuote(b->str(i));
    js << "]";
  }
  js << "}, \"ok\": " << (failed ? "false" : "true") << "}\n";
  std::cout << js.str();
}

/// The run for people: launch shape, chosen scalars, outputs, violations.
void printText(const Options &o, const KernelInfo &k, const Args &args,
               const LaunchInfo &L, const RunOutcome &run,
               const std::vector<std::string> &chosen, bool failed) {
  std::cout << "kernel " << k.name << " on " << run.deviceName << ": grid ("
            << L.grid[0] << ", " << L.grid[1] << ", " << L.grid[2] << "), block ("
            << L.block[0] << ", " << L.block[1] << ", " << L.block[2] << ")\n";
  if (!chosen.empty()) {
    std::cout << "chose";
    for (auto &c : chosen)
      std::cout << " " << c;
    std::cout << " (satisfying requires)\n";
  }
  if (run.ms >= 0)
    std::cout << "time: " << run.ms << " ms\n";
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Buffer || p.access == "in")
      continue;
    const HostBuffer *b = args.buffer(p.name);
    int64_t n = std::min<int64_t>(b->numElements(), 8);
    std::cout << p.name << " =";
    for (int64_t i = 0; i < n; ++i)
      std::cout << " " << b->str(i);
    if (b->numElements() > n)
      std::cout << " ... (" << b->numElements() << " elements)";
    std::cout << "\n";
  }
  for (const Violation &v : run.result.violations) {
    std::cout << (v.location.empty() ? o.file : v.location) << ": error: " << v.message;
    if (v.count > 1)
      std::cout << " (" << v.count << " times)";
    std::cout << " [" << v.kind << "]\n";
  }
  if (o.check && !failed)
    std::cout << "all dynamic checks passed\n";
}

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i)
    jsonErrors |= std::string(argv[i]) == "--json";
  if (int status = parseArguments(argc, argv, o); status >= 0)
    return status;

  Result<Module> mod = loadModule(o);
  if (!mod)
    return fail(mod.error().message, mod.error().code == 3 ? 3 : 2);
  if (mod->kernels().empty())
    return bad(o.file + " holds no kernel");
  if (o.kernel.empty() && mod->kernels().size() > 1) {
    std::string names;
    for (const KernelInfo &ki : mod->kernels())
      names += (names.empty() ? "" : ", ") + ki.name;
    std::cerr << "kuiper-run: note: " << o.file << " has " << mod->kernels().size()
              << " kernels (" << names << "); running the first, '"
              << mod->kernels()[0].name << "' (--kernel picks another)\n";
  }
  const KernelInfo *k = o.kernel.empty() ? &mod->kernels()[0] : mod->kernel(o.kernel);
  if (!k)
    return bad("no kernel '" + o.kernel + "' in " + o.file);

  Args args;
  if (int status = setScalars(o, *k, args); status >= 0)
    return status;
  Result<std::vector<std::string>> chosen = chooseScalars(*mod, k->name, args);
  if (!chosen)
    return bad(chosen.error().message);

  Executor probe;
  Result<LaunchInfo> info = probe.allocateBuffers(*mod, k->name, args);
  if (!info)
    return fail(info.error().message, info.error().code == 3 ? 3 : 2);
  if (!info->requiresHold)
    return bad("precondition failed: " + info->failedRequires);
  if (o.inputs == "random") {
    // Random data that breaks a `requires` over it: zeroed accumulators or
    // the values `--inputs index` gives.
    InputFill fill = fillInputsMeetingRequires(*mod, k->name, args, o.seed);
    if (fill.fellBack)
      std::cerr << "kuiper-run: note: random inputs break the requires clause (" << fill.broken
                << "); using " << fill.fallback << "\n";
  } else {
    fillInputs(*mod, k->name, args, o.seed,
               o.inputs == "edge"    ? InputValues::Edge
               : o.inputs == "index" ? InputValues::Index
                                     : InputValues::Ramp);
  }

  RunOutcome run;
  if (int status = runKernel(o, *mod, *k, args, run); status >= 0)
    return status;

  const LaunchInfo &L =
      run.result.launch.numBlocks() || o.device == "cpu" ? run.result.launch : *info;
  bool failed = o.check && !run.result.violations.empty();
  if (o.json)
    printJson(o, *k, args, L, run, failed);
  else
    printText(o, *k, args, L, run, *chosen, failed);
  return failed ? 1 : 0;
}
