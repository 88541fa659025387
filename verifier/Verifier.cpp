//===- Verifier.cpp - Obligations of every kernel, discharged by Z3 -------===//
#include "verifier/Verifier.h"
#include "verifier/SymExec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string cacheDirectory(const VerifyOptions &opts) {
  if (!opts.cacheDir.empty())
    return opts.cacheDir;
  if (const char *x = std::getenv("KUIPER_CACHE_DIR"))
    return x;
  if (const char *x = std::getenv("XDG_CACHE_HOME"))
    return std::string(x) + "/kuiper";
  if (const char *h = std::getenv("HOME"))
    return std::string(h) + "/.cache/kuiper";
  return "";
}

std::string hexHash(const std::string &text) {
  auto h = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  std::string out;
  for (uint8_t b : h) {
    static const char *d = "0123456789abcdef";
    out += d[b >> 4];
    out += d[b & 15];
  }
  return out;
}

/// Collects applications of uninterpreted functions of arity >= 1 whose
/// name is a memory (the input values involved in a counterexample).
void collectReads(const z3::expr &e, std::set<unsigned> &seen, std::vector<z3::expr> &out,
                  const std::set<std::string> &memNames) {
  if (!e.is_app())
    return;
  unsigned id = Z3_get_ast_id(e.ctx(), e);
  if (!seen.insert(id).second)
    return;
  if (e.num_args() > 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
      memNames.count(e.decl().name().str()))
    out.push_back(e);
  for (unsigned i = 0; i < e.num_args(); ++i)
    collectReads(e.arg(i), seen, out, memNames);
}

std::string valueText(const z3::expr &v) {
  if (v.is_fpa()) {
    // Render as a decimal via the real value where finite.
    z3::context &c = v.ctx();
    z3::expr isNan(c, Z3_mk_fpa_is_nan(c, v)), isInf(c, Z3_mk_fpa_is_infinite(c, v)),
        isNeg(c, Z3_mk_fpa_is_negative(c, v)), isZero(c, Z3_mk_fpa_is_zero(c, v));
    if (isNan.simplify().is_true())
      return "NaN";
    if (isInf.simplify().is_true())
      return isNeg.simplify().is_true() ? "-inf" : "inf";
    if (isZero.simplify().is_true())
      return isNeg.simplify().is_true() ? "-0.0" : "0.0";
    z3::expr r = z3::expr(c, Z3_mk_fpa_to_real(c, v)).simplify();
    // %.9g round-trips an f32 (and shows tiny values, which a fixed number of
    // decimals would print as 0); f64 values get 17 digits.
    char buf[64];
    unsigned ebits = v.get_sort().fpa_ebits();
    std::snprintf(buf, sizeof buf, ebits > 8 ? "%.17g" : "%.9g", Z3_get_numeral_double(c, r));
    return buf;
  }
  if (v.is_real()) {
    std::string s = v.get_decimal_string(9);
    if (!s.empty() && s.back() == '?')
      s.pop_back();
    return s;
  }
  return v.to_string();
}

std::string readName(const z3::expr &app, const z3::model &m) {
  std::string s = app.decl().name().str() + "[";
  for (unsigned i = 0; i < app.num_args(); ++i)
    s += (i ? ", " : "") + m.eval(app.arg(i), true).to_string();
  return s + "]";
}

/// Replaces floating-point operations and predicates by uninterpreted
/// functions of the same sorts (rounding modes dropped). Returns nothing when
/// the formula has quantifiers or no float operations.
std::optional<z3::expr_vector> abstractFloats(z3::context &c, const z3::expr_vector &in) {
  std::map<unsigned, z3::expr> memo;
  bool any = false, quant = false;
  std::function<z3::expr(const z3::expr &)> go = [&](const z3::expr &e) -> z3::expr {
    if (e.is_quantifier()) {
      quant = true;
      return e;
    }
    if (!e.is_app() || e.num_args() == 0)
      return e;
    unsigned id = Z3_get_ast_id(c, e);
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    z3::expr_vector args(c);
    for (unsigned i = 0; i < e.num_args(); ++i)
      args.push_back(go(e.arg(i)));
    Z3_decl_kind k = e.decl().decl_kind();
    std::optional<z3::expr> r;
    if (k >= Z3_OP_FPA_RM_NEAREST_TIES_TO_EVEN && k <= Z3_OP_FPA_BV2RM &&
        k != Z3_OP_FPA_NUM && k != Z3_OP_FPA_PLUS_INF && k != Z3_OP_FPA_MINUS_INF &&
        k != Z3_OP_FPA_NAN && k != Z3_OP_FPA_PLUS_ZERO && k != Z3_OP_FPA_MINUS_ZERO &&
        !(k >= Z3_OP_FPA_RM_NEAREST_TIES_TO_EVEN && k <= Z3_OP_FPA_RM_TOWARD_ZERO)) {
      z3::expr_vector kept(c);
      z3::sort_vector sorts(c);
      for (unsigned i = 0; i < args.size(); ++i) {
        if (args[i].get_sort().sort_kind() == Z3_ROUNDING_MODE_SORT)
          continue;
        kept.push_back(args[i]);
        sorts.push_back(args[i].get_sort());
      }
      std::string name = "fp_abs_" + std::to_string((int)k);
      for (unsigned i = 0; i < sorts.size(); ++i)
        name += "_" + sorts[i].to_string();
      name += "_" + e.get_sort().to_string();
      for (char &ch : name)
        if (ch == ' ' || ch == '(' || ch == ')')
          ch = '_';
      r = c.function(name.c_str(), sorts, e.get_sort())(kept);
      any = true;
    } else {
      r = e.decl()(args);
    }
    memo.emplace(id, *r);
    return *r;
  };
  z3::expr_vector out(c);
  for (auto a : in)
    out.push_back(go(a));
  if (quant || !any)
    return std::nullopt;
  return out;
}

struct KernelRun {
  std::unique_ptr<SymExec> exec;
  FloatMode mode;
};

} // namespace

namespace kuiper::verifier {
/// Verifies one kernel: builds obligations in both float modes and solves them.
class KernelVerifier {
public:
  KernelVerifier(ModuleOp module, KernelOp kernel, const VerifyOptions &opts)
      : module(module), kernel(kernel), opts(opts) {}

  KernelReport run() {
    auto t0 = std::chrono::steady_clock::now();
    KernelReport rep;
    rep.name = kernel.getSymName().str();
    // Tearing a large context down takes long; a tool about to exit may skip it.
    auto *ctx = new z3::context;
    struct Release {
      z3::context *c;
      bool free;
      ~Release() {
        if (free)
          delete c;
      }
    } release{ctx, opts.releaseMemory};
    z3::context &z = *ctx;
    try {
      bool approx = false;
      kernel.walk([&](Operation *op) {
        if (auto e = dyn_cast<EnsuresOp>(op); e && e.getApprox())
          approx = true;
        if (auto b = dyn_cast<BarrierOp>(op); b && b.getApprox())
          approx = true;
        if (auto i = dyn_cast<InvariantOp>(op); i && i.getApprox())
          approx = true;
        if (auto a = dyn_cast<AssertOp>(op); a && a.getApprox())
          approx = true;
      });
      std::vector<FloatMode> modes = {FloatMode::Exact};
      if (approx)
        modes.push_back(FloatMode::Real);
      std::set<std::string> trusted;
      for (FloatMode m : modes) {
        auto te = std::chrono::steady_clock::now();
        SymExec ex(z, module, kernel, m);
        ex.run();
        if (std::getenv("KUIPER_DEBUG_TIME"))
          llvm::errs() << "symbolic execution: " << msSince(te) << " ms, "
                       << ex.obligations.size() << " obligations\n";
        for (auto &t : ex.trusted)
          trusted.insert(t);
        if (!ex.unsupportedReason.empty()) {
          CheckResult c;
          c.id = "unsupported";
          c.status = "unknown";
          c.file = ex.unsupportedLoc.file;
          c.line = ex.unsupportedLoc.line;
          c.col = ex.unsupportedLoc.col;
          if (c.file.empty()) {
            SrcLoc k = srcLoc(kernel.getLoc());
            c.file = k.file;
            c.line = k.line;
            c.col = k.col;
          }
          c.message = "not verified: " + ex.unsupportedReason;
          rep.checks.push_back(c);
          continue;
        }
        for (auto &[clause, depth] : ex.tolerances) {
          Tolerance t;
          t.clause = clause;
          double u = std::ldexp(1.0, -24);
          char buf[256];
          if (depth < 0) {
            // Part of the value comes through a cut loop or a barrier
            // contract: its depth grows with the trip count.
            t.depth = -depth - 1;
            t.relative = -1;
            snprintf(buf, sizeof buf,
                     "no constant bound: rounding depth %d in the code after the last loop or "
                     "barrier contract, plus one per iteration of the loop before it: "
                     "|y - exact| <= gamma(d) * sum|terms| with d = %d + iterations",
                     t.depth, t.depth);
          } else {
            t.depth = depth;
            t.relative = depth * u / (1 - depth * u);
            snprintf(buf, sizeof buf, "|y - exact| <= %.3g * sum|terms| (f32, rounding depth %d)",
                     t.relative, depth);
          }
          t.bound = buf;
          rep.tolerances.push_back(t);
        }
        if (m == FloatMode::Real)
          trusted.insert("approx clauses: proven over the reals assuming finite inputs; "
                         "rounding bound reported per clause");
        solveAll(z, ex, rep);
      }
      rep.trusted.assign(trusted.begin(), trusted.end());
    } catch (z3::exception &e) {
      CheckResult c;
      c.id = "internal";
      c.status = "unknown";
      c.message = std::string("solver error: ") + e.msg();
      rep.checks.push_back(c);
    }
    bool failed = false, unknown = false;
    for (auto &c : rep.checks) {
      failed |= c.status == "failed";
      unknown |= c.status == "unknown";
    }
    rep.verdict = failed ? "failed" : unknown ? "unknown" : "verified";
    rep.timeMs = msSince(t0);
    return rep;
  }

private:
  ModuleOp module;
  KernelOp kernel;
  const VerifyOptions &opts;

  void solveAll(z3::context &z, SymExec &ex, KernelReport &rep) {
    std::set<std::string> memNames;
    for (auto &[k, mi] : ex.mems)
      memNames.insert(mi.name);
    std::string dir = opts.useCache ? cacheDirectory(opts) : "";
    if (!dir.empty())
      llvm::sys::fs::create_directories(dir);
    // Build every query first, then solve them on worker threads, each with
    // its own context (Z3 contexts are not thread-safe).
    struct Job {
      std::string smt, hash, fallbackSmt;
      std::string status = "unknown";
      double ms = 0;
    };
    std::vector<Job> jobs(ex.obligations.size());
    // A job's SMT text may be replaced by the abstraction that proved it.
    auto tq = std::chrono::steady_clock::now();
    for (size_t i = 0; i < ex.obligations.size(); ++i) {
      Obligation &o = ex.obligations[i];
      rep.obligations++;
      if (!o.unsupported.empty()) {
        jobs[i].status = "skip";
        continue;
      }
      bool trivial = o.goal->simplify().is_true();
      if (trivial && !opts.keepSMT) {
        jobs[i].status = "trivial";
        continue;
      }
      if (trivial)
        jobs[i].status = "trivial";
      z3::solver s(z);
      std::vector<z3::expr> roots = ex.globalAssumptions;
      roots.insert(roots.end(), o.assumptions.begin(), o.assumptions.end());
      for (auto &a : roots)
        s.add(a);
      roots.push_back(*o.goal); // for the relevance walk only
      s.add(!*o.goal);
      for (auto &a : ex.relevantFacts(roots))
        s.add(a);
      jobs[i].smt = s.to_smt2();
      if (!o.fallback.empty()) {
        for (auto &a : o.fallback)
          s.add(a);
        jobs[i].fallbackSmt = s.to_smt2();
      }
      jobs[i].hash = hexHash(jobs[i].smt);
    }
    if (std::getenv("KUIPER_DEBUG_TIME"))
      llvm::errs() << "queries built: " << msSince(tq) << " ms\n";
    unsigned n = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
    // Worker w solves jobs w, w + n, ... in one context (creating a context
    // costs milliseconds); the static split keeps each context's history, and
    // so the solver's behaviour, the same from run to run.
    auto worker = [&](size_t first) {
      z3::context c;
      for (size_t i = first; i < jobs.size(); i += n) {
        Job &j = jobs[i];
        if (j.status == "skip")
          continue;
        if (j.status == "trivial") {
          j.status = "proved";
          continue;
        }
        auto t0 = std::chrono::steady_clock::now();
        std::string cacheFile = dir.empty() ? "" : dir + "/" + j.hash;
        if (!cacheFile.empty() && llvm::sys::fs::exists(cacheFile)) {
          j.status = "proved";
          j.ms = msSince(t0);
          continue;
        }
        try {
          z3::solver s(c);
          z3::params p(c);
          p.set("timeout", opts.timeoutMs);
          s.set(p);
          z3::expr_vector asserts = c.parse_string(j.smt.c_str());
          // A small portfolio, cheapest first. Unsat from any stage is a proof
          // and sat a counterexample (the abstraction's sat is not).
          //  1. floating-point operations as uninterpreted functions: a proof
          //     there holds for IEEE too, and is fast when both sides compute
          //     the same term;
          //  2. the simplex arithmetic solver (better on div/mod-by-constant
          //     witness queries);
          //  3. Z3's default configuration with the full time limit.
          z3::check_result r = z3::unknown;
          // Stages 1 and 2 are bounded by Z3's resource counter, not by the
          // clock, so that what they prove does not depend on the machine's
          // load (about 2-3 s of work on this machine each); the wall-clock
          // limit only guards against a stuck stage.
          const unsigned quickRlimit = 40'000'000;
          unsigned guard = std::max(opts.timeoutMs, 20000u);
          if (std::optional<z3::expr_vector> abs = abstractFloats(c, asserts)) {
            z3::solver s1(c);
            z3::params p1(c);
            p1.set("rlimit", quickRlimit);
            p1.set("timeout", guard);
            s1.set(p1);
            for (auto a : *abs)
              s1.add(a);
            if (s1.check() == z3::unsat) {
              r = z3::unsat;
              // The abstraction is itself a certificate: keep it for --emit smt.
              if (opts.keepSMT)
                j.smt = "; floating-point operations abstracted as uninterpreted functions\n" + s1.to_smt2();
            }
          }
          if (r == z3::unknown) {
            z3::params p2(c);
            p2.set("arith.solver", 2u);
            // try_for: a tactic-built solver does not honour the timeout parameter.
            z3::solver s2 = z3::try_for(z3::tactic(c, "simplify") & z3::with(z3::tactic(c, "smt"), p2),
                                        guard).mk_solver();
            z3::params pt(c);
            pt.set("rlimit", quickRlimit);
            s2.set(pt);
            for (auto a : asserts)
              s2.add(a);
            r = s2.check();
          }
          if (r == z3::unknown) {
            for (auto a : asserts)
              s.add(a);
            r = s.check();
          }
          if (r == z3::unknown && !j.fallbackSmt.empty()) {
            z3::solver s4(c);
            s4.set(p);
            for (auto a : c.parse_string(j.fallbackSmt.c_str()))
              s4.add(a);
            if (s4.check() == z3::unsat)
              r = z3::unsat;
          }
          j.status = r == z3::unsat ? "proved" : r == z3::sat ? "failed" : "unknown";
        } catch (z3::exception &) {
          j.status = "unknown";
        }
        j.ms = msSince(t0);
        if (j.status == "proved" && !cacheFile.empty()) {
          std::ofstream f(cacheFile);
          f << "unsat\n";
        }
      }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < n && t < jobs.size(); ++t)
      threads.emplace_back(worker, t);
    worker(0);
    for (auto &t : threads)
      t.join();

    if (std::getenv("KUIPER_DEBUG_TIME"))
      for (size_t i = 0; i < jobs.size(); ++i)
        llvm::errs() << "obligation " << ex.obligations[i].id << " "
                     << ex.obligations[i].loc.line << ":" << ex.obligations[i].loc.col << " "
                     << jobs[i].status << " " << jobs[i].ms << " ms, " << jobs[i].smt.size()
                     << " bytes: " << ex.obligations[i].message << "\n";
    std::set<std::string> seen;
    for (size_t i = 0; i < ex.obligations.size(); ++i) {
      Obligation &o = ex.obligations[i];
      CheckResult c;
      c.id = o.id;
      c.file = o.loc.file;
      c.line = o.loc.line;
      c.col = o.loc.col;
      c.timeMs = jobs[i].ms;
      c.status = jobs[i].status;
      c.message = o.message;
      if (opts.keepSMT)
        c.smt = jobs[i].smt;
      if (c.status == "failed" && o.lemma)
        c.status = "unknown";
      if (c.status == "failed" && o.finding) {
        c.status = "warning";
        c.message = o.failMessage + " (a finding; add the 'deterministic' clause to make it an error)";
      }
      if (c.status != "proved" && std::getenv("KUIPER_DEBUG_SMT"))
        llvm::errs() << jobs[i].smt << "\n";
      if (c.status == "failed") {
        c.message = o.failMessage;
        counterexample(z, ex, o, c, memNames);
      } else if (c.status == "unknown") {
        c.message = (o.lemma ? o.failMessage : "could not decide: " + o.message) +
                    " (solver gave up or timed out)";
      }
      if (!o.unsupported.empty())
        c.message = "not verified: " + o.unsupported;
      std::string k = c.id + "|" + c.location() + "|" + c.status + "|" + c.message + "|" + c.explanation;
      if (!seen.insert(k).second && !opts.keepSMT)
        continue; // one line per distinct finding; --emit smt keeps every obligation
      rep.checks.push_back(c);
    }
  }

  void counterexample(z3::context &z, SymExec &ex, Obligation &o, CheckResult &c,
                      const std::set<std::string> &memNames) {
    z3::solver s(z);
    z3::params p(z);
    p.set("timeout", opts.timeoutMs);
    s.set(p);
    std::vector<z3::expr> roots = ex.globalAssumptions;
    roots.insert(roots.end(), o.assumptions.begin(), o.assumptions.end());
    for (auto &a : roots)
      s.add(a);
    roots.push_back(*o.goal); // for the relevance walk only
    for (auto &a : ex.relevantFacts(roots))
      s.add(a);
    z3::expr neg = !*o.goal;
    s.add(neg);
    if (s.check() != z3::sat)
      return;
    z3::model m = s.get_model();
    for (auto &pr : ex.params)
      c.counterexample.push_back({pr.name, valueText(m.eval(pr.term, true))});
    for (auto &ob : o.observables)
      c.counterexample.push_back({ob.name, valueText(m.eval(ob.term, true))});
    std::set<unsigned> seen;
    std::vector<z3::expr> reads;
    for (auto &a : o.assumptions)
      collectReads(a, seen, reads, memNames);
    collectReads(*o.goal, seen, reads, memNames);
    std::set<std::string> shown;
    for (auto &r : reads) {
      if (shown.size() >= 8)
        break;
      std::string name = readName(r, m);
      if (!shown.insert(name).second)
        continue;
      c.counterexample.push_back({name, valueText(m.eval(r, true))});
    }
    if (o.id == "coverage" && !o.observables.empty()) {
      std::string el;
      for (auto &ob : o.observables)
        el += (el.empty() ? "" : ", ") + valueText(m.eval(ob.term, true));
      std::string mem = o.failMessage.substr(o.failMessage.find('\'') + 1);
      mem = mem.substr(0, mem.find('\''));
      c.explanation = "no thread writes " + mem + "[" + el + "]: its value is whatever the buffer held before the launch";
    }
  }
};
} // namespace kuiper::verifier

Report kuiper::verifyModule(ModuleOp module, const VerifyOptions &opts) {
  Report r;
  module.walk([&](KernelOp k) {
    auto t0 = std::chrono::steady_clock::now();
    KernelVerifier v(module, k, opts);
    r.kernels.push_back(v.run());
    if (std::getenv("KUIPER_DEBUG_TIME"))
      llvm::errs() << "kernel " << k.getSymName() << ": " << msSince(t0) << " ms with teardown\n";
  });
  return r;
}
