//===- Sums.cpp - Sums over ranges in spec clauses --------------------------===//
#include "verifier/analysis/SymExec.h"
#include "verifier/solver/Solver.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

z3::expr SymExec::sumOp(SumOp op) {
  z3::expr lo = get(op.getLo()).simplify(), hi = get(op.getHi()).simplify(),
           st = get(op.getStep()).simplify();
  int64_t s = 0;
  // A sum of integers is the exact (mathematical) sum in both modes, as
  // every integer in a contract is.
  bool integers = isa<IntegerType>(op.getType());
  // The number of terms where it is a numeral: constant bounds, or bounds
  // whose difference is one (`sum(j in b * 256..b * 256 + 256: ...)`, which
  // was left to a partly known sum_n and failed with counterexamples no run
  // reproduced). Such a sum is expanded, its terms at lo, lo + s, ...
  bool stepped = isConst(st, s) && s > 0;
  std::optional<int64_t> known;
  if (int64_t d; stepped && isConst((hi - lo).simplify(), d))
    known = d > 0 ? d / s + (d % s != 0) : 0;
  if (known && *known > 4096)
    known.reset();
  auto position = [&](int64_t i) { return (lo + z.int_val(i) * z.int_val(s)).simplify(); };
  if (integers && known) {
    z3::expr acc = z.int_val(0);
    for (int64_t i = 0; i < *known; ++i)
      acc = acc + evalRegion(op.getBody(), {position(i)});
    return acc;
  }
  // Bounds that are not numerals but differ by at most 64 steps over the
  // ranges of the thread and bound variables they use (`sum(j in 0..l + 1:
  // ...)` under `forall l in 0..32`): the sum written out, each term guarded
  // by the count; for floats in an exact clause the left-to-right fold, each
  // step taken or not. Exact, where an uninterpreted sum_n known one step
  // deep leaves a warp scan's postcondition with spurious counterexamples.
  if (!known && stepped) {
    // Integer and real terms are linear and cheap for the solver: up to 1024
    // of them (a block scan over 4 to 8 warps: a partly known sum_n needed
    // a round of instantiation per count and ran out of rounds; a block's
    // zero-padded chunk of 1024 elements: unknown after 41 s, now 0.4 s); a
    // float fold, whose steps are bit-precise additions, up to 64.
    int64_t limit = integers || mode == FloatMode::Real ? 1024 : 64;
    // (A tail block's `sum(j in 256 * b..min(256 * b + 256, n): ...)` spans at
    // most 256: written out, where a sum_n known one step deep left its
    // postcondition undecided.)
    std::optional<int64_t> span = spanBound(hi, lo);
    // Bounds the span only through a `requires` on a parameter (`sum(i in
    // 0..n: ...)` with `requires n <= 256`, a one-block sum of a small
    // array): written out where the parameters are in their required ranges,
    // any value elsewhere (no obligation that assumes the clause sees it;
    // undecided before).
    // Not where the kernel has a loop of symbolic bounds: its invariants
    // relate sums one step (or a tile) at a time, which the sums written
    // out only slow down (a tiled matmul with `requires k <= 64`: 0.7 ->
    // 47 s).
    std::optional<z3::expr> within;
    if (symbolicLoops < 0) {
      symbolicLoops = 0;
      kernel.walk([&](Operation *o) {
        int64_t c;
        if (auto loop = dyn_cast<ForOp>(o))
          symbolicLoops += !constantInt(loop.getLo(), c) || !constantInt(loop.getHi(), c);
        else if (isa<WhileOp>(o))
          ++symbolicLoops;
      });
    }
    if (!span && !requiredRanges.empty() && symbolicLoops == 0) {
      withRequiredRanges = true;
      span = spanBound(hi, lo);
      withRequiredRanges = false;
      if (span) {
        within = z.bool_val(true);
        for (auto &[v, rlo, rhi] : requiredRanges)
          within = *within && v >= z.int_val(rlo) && v < z.int_val(rhi);
      }
    }
    if (span && *span <= limit * s) {
      int64_t most = *span <= 0 ? 0 : (*span + s - 1) / s;
      auto term = [&](int64_t i) { return evalRegion(op.getBody(), {position(i)}); };
      // Term i is in the sum where its position is below `hi` (i < count),
      // and below both operands of a minimum: the tail block's `1024 * b + i
      // < n`, as its code guards its loads (`base + q < n ? x[base + q] :
      // 0.0`), where `i < count` left the solver to relate a minimum's
      // difference to each of 1024 guards.
      std::optional<std::pair<z3::expr, z3::expr>> bothBelow = minOperands(hi.simplify());
      auto taken = [&](int64_t i) {
        z3::expr at = position(i);
        if (bothBelow)
          return (at < bothBelow->first).simplify() && (at < bothBelow->second).simplify();
        return (at < hi).simplify();
      };
      auto inRange = [&](z3::expr acc) {
        return within ? z3::ite(*within, acc, fresh("sum_outside_requires", acc.get_sort())) : acc;
      };
      if (integers || mode == FloatMode::Real) {
        z3::expr zero = integers ? z.int_val(0) : z.real_val(0);
        z3::expr acc = zero;
        for (int64_t i = 0; i < most; ++i)
          acc = acc + z3::ite(taken(i), term(i), zero);
        return inRange(acc);
      }
      z3::expr acc = floatConst(FloatAttr::get(op.getType(), 0.0));
      for (int64_t i = 0; i < most; ++i) {
        z3::expr t = term(i);
        z3::expr next = i == 0 ? t : z3::expr(z, Z3_mk_fpa_add(z, Z3_mk_fpa_rne(z), acc, t));
        acc = z3::ite(taken(i), next, acc);
      }
      return inRange(acc);
    }
  }
  if (!known) {
    if ((mode == FloatMode::Real || integers) && stepped)
      return symbolicSum(op, lo, hi, s);
    unsupported(op, mode == FloatMode::Real
                        ? "sum with a step that is not a positive constant is not modelled yet"
                        : "sum with bounds that are not compile-time constants in an exact clause "
                          "is not modelled (use `approx`)");
    return fresh("unmodelled_sum", sortOf(op.getType()));
  }
  std::optional<z3::expr> acc, fromZero;
  for (int64_t i = 0; i < *known; ++i) {
    z3::expr t = evalRegion(op.getBody(), {position(i)});
    if (mode == FloatMode::Real) {
      acc = acc ? *acc + t : t;
      continue;
    }
    auto add = [&](z3::expr a, z3::expr b) {
      return z3::expr(z, Z3_mk_fpa_add(z, Z3_mk_fpa_rne(z), a, b));
    };
    fromZero = add(fromZero ? *fromZero : floatConst(FloatAttr::get(op.getType(), 0.0)), t);
    acc = acc ? add(*acc, t) : t;
  }
  if (!acc)
    return floatConst(FloatAttr::get(op.getType(), 0.0));
  // The same fold started from +0.0 (a kernel's `acc = 0.0; acc += ...`)
  // is this one, or both are zeros (the first term -0.0 becomes +0.0, and
  // the pair stays the same value or two zeros through every later
  // addition): equal as IEEE numbers. Stated for the solver, which
  // otherwise relates the two folds bit by bit (16 terms: over a minute).
  if (fromZero && *known <= 256)
    termFacts.push_back(
        {*acc, *fromZero == *acc || (z3::expr(z, Z3_mk_fpa_eq(z, *fromZero, *acc)) &&
                                     z3::expr(z, Z3_mk_fpa_eq(z, *acc, *fromZero)))});
  return *acc;
}

/// Number of terms of `sum(i in lo..hi step s: ...)`.
z3::expr SymExec::sumCount(z3::expr lo, z3::expr hi, int64_t s) {
  // A strided loop's exit value as the bound, ite(c, lo, lo + s * q) (no
  // iteration, or q of them): the count is q itself where positive, not the
  // quotient of the quotient q, div(s * q + s - 1, s), which the solver works
  // out anew for every thread it meets (64 lanes' accumulators against a
  // row's sum: unknown after 40 s).
  if (hi.is_app() && hi.decl().decl_kind() == Z3_OP_ITE) {
    auto steps = [&](const z3::expr &bound) -> std::optional<z3::expr> {
      z3::expr span = (bound - lo).simplify();
      int64_t v;
      if (span.is_numeral_i64(v) && v == 0)
        return z.int_val(0);
      if (span.is_app() && span.decl().decl_kind() == Z3_OP_MUL && span.num_args() == 2)
        for (unsigned i = 0; i < 2; ++i)
          if (span.arg(i).is_numeral_i64(v) && v == s)
            return z3::ite(span.arg(1 - i) > 0, span.arg(1 - i), z.int_val(0));
      return std::nullopt;
    };
    std::optional<z3::expr> none = steps(hi.arg(1)), some = steps(hi.arg(2));
    // execFor's exit, ite(H <= lo, lo, lo + s * q) with q = div(H - lo + s
    // - 1, s): where the loop runs (H - lo >= 1), q >= 1, so the count is
    // ite(H <= lo, 0, q), as sumCount(lo, H, s) reads once simplified. In a
    // kernel whose lanes exchange values (shuffles), the lanes' strided sums
    // then meet a clause's partition term for term, where q's own guard left
    // the solver to show each pair of counts equal (a 1024-thread row sum
    // over 32 warps: undecided after 57 s -> 1.3 s; 256 threads 2.5 ->
    // 0.7 s). Not elsewhere: a shared-memory tree's barrier contract names
    // the same sums, and there the solver took longer with them (an L1
    // norm's postcondition 0.2 -> 1 s).
    if (useLanes && none && some && some->is_app() && some->decl().decl_kind() == Z3_OP_ITE) {
      z3::expr c = hi.arg(0), q = some->arg(1);
      int64_t v;
      if (none->is_numeral_i64(v) && v == 0 && c.is_app() && c.num_args() == 2 &&
          (c.decl().decl_kind() == Z3_OP_LE || c.decl().decl_kind() == Z3_OP_GE) && q.is_app() &&
          q.decl().decl_kind() == Z3_OP_IDIV && q.arg(1).is_numeral_i64(v) && v == s) {
        // c is d <= 0 for this d (H - lo, if the exit is execFor's).
        z3::expr d = c.decl().decl_kind() == Z3_OP_LE ? c.arg(0) - c.arg(1) : c.arg(1) - c.arg(0);
        if ((q.arg(0) - d).simplify().is_numeral_i64(v) && v == s - 1)
          return z3::ite(c, z.int_val(0), q);
      }
    }
    if (none && some)
      return z3::ite(hi.arg(0), *none, *some);
  }
  return z3::ite(hi > lo, (hi - lo + z.int_val(s - 1)) / z.int_val(s), z.int_val(0));
}

/// SumN(f, lo, c, s) = f[lo] + f[lo + s] + ... (c terms), over the reals or
/// the integers (the body's sort).
z3::expr SymExec::sumTerm(z3::expr f, z3::expr lo, z3::expr count, int64_t s) {
  z3::sort_vector sorts(z);
  sorts.push_back(f.get_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  bool ints = f.get_sort().array_range().is_int();
  z3::expr zero = ints ? z.int_val(0) : z.real_val(0);
  z3::func_decl sumN = z.function(ints ? "sum_n_int" : "sum_n", sorts, f.get_sort().array_range());
  z3::expr_vector args(z);
  args.push_back(f);
  args.push_back(lo);
  args.push_back(count);
  args.push_back(z.int_val(s));
  z3::expr t = sumN(args);
  // The definition, one step deep (valid for every value of the arguments):
  // no terms is 0; c > 0 terms are c - 1 terms plus the last one.
  z3::expr_vector prev(z);
  prev.push_back(f);
  prev.push_back(lo);
  prev.push_back(count - 1);
  prev.push_back(z.int_val(s));
  termFacts.push_back({t, z3::implies(count <= 0, t == zero)});
  termFacts.push_back({t, z3::implies(count > 0, t == sumN(prev) +
                                                    z3::select(f, lo + (count - 1) * z.int_val(s)))});
  // And, where the kernel has a sum whose start a loop moves (a suffix sum,
  // whose loop adds its terms from the end; frontStepFolds), c > 0 terms are the
  // first one plus c - 1 terms from the next: `acc == sum(k in n - t..n: ...)`
  // is carried by `acc += x[n - 1 - t]` (before, unknown: the definition
  // above only takes terms off the end).
  if (!lo.is_numeral() && frontStepFolds()) {
    z3::expr_vector rest(z);
    rest.push_back(f);
    rest.push_back((lo + z.int_val(s)).simplify());
    rest.push_back(count - 1);
    rest.push_back(z.int_val(s));
    termFacts.push_back({t, z3::implies(count > 0, t == z3::select(f, lo) + sumN(rest))});
  }
  // Bounds of an integer sum by its terms' (valid, with Skolem functions for
  // the indices of a smallest and a largest term): c > 0 terms sum to at least
  // c times the smallest and at most c times the largest. With the terms'
  // bounds from a `requires`, an accumulator's `acc += x[i, j]` is proven not
  // to overflow from `invariant acc == sum(...)` alone (the one-step
  // definition leaves a symbolic sum unbounded).
  if (ints) {
    z3::func_decl smallest = z.function("sum_n_int!smallest", sorts, z.int_sort());
    z3::func_decl largest = z.function("sum_n_int!largest", sorts, z.int_sort());
    z3::expr jl = smallest(args), jh = largest(args);
    termFacts.push_back({t, z3::implies(count > 0, jl >= 0 && jl < count &&
                                                       t >= count * z3::select(f, lo + jl * z.int_val(s)))});
    termFacts.push_back({t, z3::implies(count > 0, jh >= 0 && jh < count &&
                                                       t <= count * z3::select(f, lo + jh * z.int_val(s)))});
  }
  // The definition j steps deep, for the j up to the constant step of a cut
  // loop of the kernel (a loop that consumes a tile of J terms per iteration):
  // c >= j terms are c - j terms plus the last j.
  if (sumWindow < 0) {
    sumWindow = 1;
    kernel.walk([&](ForOp loop) {
      int64_t lo, hi, st;
      if (constantInt(loop.getStep(), st) && st > sumWindow && st <= 32 &&
          !(constantInt(loop.getLo(), lo) && constantInt(loop.getHi(), hi)))
        sumWindow = st;
    });
  }
  // Two sums of one body from one start whose counts differ by at most J:
  // the longer is the shorter plus the terms in between (J terms, each
  // guarded). Stated between the two terms directly, so that the solver need
  // not find the difference of the counts itself.
  if (sumWindow > 1) {
    for (auto &[of, olo, os, ocount, ot] : sumTerms) {
      // Lambdas made from different fresh variables differ in their names
      // only: compare their bodies (de Bruijn indices).
      bool sameBody = z3::eq(of, f) || (of.is_lambda() && f.is_lambda() && z3::eq(of.body(), f.body()));
      if (os != s || !sameBody || !z3::eq(olo, lo))
        continue;
      auto window = [&](z3::expr shortC, z3::expr shortT, z3::expr longC, z3::expr longT) {
        z3::expr d = longC - shortC, tail = zero;
        for (int64_t i = 0; i < sumWindow; ++i)
          tail = tail + z3::ite(z.int_val(i) < d,
                                z3::select(f, lo + (shortC + z.int_val(i)) * z.int_val(s)), zero);
        return z3::implies(d >= 0 && d <= z.int_val(sumWindow) && shortC >= 0, longT == shortT + tail);
      };
      termFacts.push_back({t, window(ocount, ot, count, t)});
      termFacts.push_back({t, window(count, t, ocount, ot)});
    }
    sumTerms.push_back({f, lo, s, count, t});
  }
  return t;
}

/// The one term `k + e` (and e) of a body that uses `k` only there (e free of
/// k), as the body of a sum over k does when it reads `x[base + k]`.
std::optional<std::pair<z3::expr, z3::expr>> SymExec::offsetOf(const z3::expr &body,
                                                               const z3::expr &k) {
  std::optional<z3::expr> found;
  bool other = false; // k used elsewhere, or in two different sums
  std::set<unsigned> seen;
  std::function<void(const z3::expr &)> walk = [&](const z3::expr &e) {
    if (other || !e.is_app() || !seen.insert(Z3_get_ast_id(z, e)).second)
      return;
    if (z3::eq(e, k)) {
      other = true; // reached outside a `k + e`
      return;
    }
    if (e.decl().decl_kind() == Z3_OP_ADD) {
      unsigned ks = 0;
      for (unsigned i = 0; i < e.num_args(); ++i)
        ks += z3::eq(e.arg(i), k);
      if (ks == 1) {
        if (found && !z3::eq(*found, e))
          other = true;
        found = e;
        for (unsigned i = 0; i < e.num_args(); ++i)
          if (!z3::eq(e.arg(i), k))
            walk(e.arg(i));
        return;
      }
    }
    for (unsigned i = 0; i < e.num_args(); ++i)
      walk(e.arg(i));
  };
  walk(body);
  if (other || !found)
    return std::nullopt;
  // The offset: the sum's other operands (checked free of k above).
  z3::expr rest = z.int_val(0);
  bool first = true;
  for (unsigned i = 0; i < found->num_args(); ++i)
    if (!z3::eq(found->arg(i), k)) {
      rest = first ? found->arg(i) : rest + found->arg(i);
      first = false;
    }
  if (first)
    return std::nullopt;
  // (k does not occur in the offset: the walk above would have set `other`.)
  return std::make_pair(*found, rest);
}

/// A sum with symbolic bounds in an approx clause: an uninterpreted `sum_n`
/// over the body as an array (lambda), with its one-step definition and the
/// strided-partition identity for every constant step of the kernel's other
/// sums that is a multiple of its own.
z3::expr SymExec::symbolicSum(SumOp op, z3::expr lo, z3::expr hi, int64_t s) {
  z3::expr k = fresh("k", z.int_sort());
  specRanges.push_back(k >= lo && k < hi);
  z3::expr body = evalRegion(op.getBody(), {k});
  specRanges.pop_back();
  if (!body.is_real() && !body.is_int()) {
    unsupported(op, "symbolic sum of a term that is neither a number nor an integer");
    return fresh("unmodelled_sum", sortOf(op.getType()));
  }
  z3::expr_vector bound(z);
  bound.push_back(k);
  z3::expr f = z3::lambda(bound, body);
  z3::expr count = sumCount(lo, hi, s);
  z3::expr total = sumTerm(f, lo, count, s);
  // A body that uses k only as `k + e` (e free of k) is the body at k from
  // lo + e: `sum(q in 0..c: x[base + q])` is `sum(j in base..base + c: x[j])`
  // (a tail block's loop against its clause: a false failure).
  // Stated only where another sum reads the body as it is (a sum term more
  // per indexed sum cost KernelBench's 3-D transposed convolution a quarter
  // of its time).
  auto state = [&](ShiftedSum &sh) {
    sh.stated = true;
    termFacts.push_back({sh.total, sh.total == sumTerm(sh.moved, sh.lo, sh.count, sh.step)});
  };
  auto sameBody = [](const z3::expr &a, const z3::expr &b) {
    return z3::eq(a, b) || (a.is_lambda() && b.is_lambda() && z3::eq(a.body(), b.body()));
  };
  if (auto shift = offsetOf(body, k)) {
    z3::expr_vector from(z), to(z);
    from.push_back(shift->first);
    to.push_back(k);
    z3::expr moved = z3::lambda(bound, body.substitute(from, to));
    shiftedSums.push_back({total, moved, (lo + shift->second).simplify(), count, s});
    for (const z3::expr &plain : plainSumBodies)
      if (sameBody(plain, moved)) {
        state(shiftedSums.back());
        break;
      }
  } else {
    plainSumBodies.push_back(f);
    for (ShiftedSum &sh : shiftedSums)
      if (!sh.stated && sameBody(sh.moved, f))
        state(sh);
  }
  // Linearity: a sum of a body that is a sum of terms (an inner sum with
  // constant bounds, written out: `sum(c in 0..ci: sum(q in 0..3: ...))`)
  // is the sum of the sums of its terms, each over the same range: a kernel
  // that loops over q outside and c inside sums them so.
  // Only where the kernel has a top-level sum without an inner one beside
  // this one with an inner sum: 15 sums per term of a transposed
  // convolution's clause and invariant (both nested alike) made KernelBench
  // 65 and 75 unknown.
  auto hasInnerSum = [](SumOp s) {
    bool inner = false;
    s.getBody().walk([&](SumOp) { inner = true; });
    return inner;
  };
  bool flatElsewhere = false;
  if (hasInnerSum(op))
    kernel.walk([&](SumOp other) {
      flatElsewhere |= other != op && !other->getParentOfType<SumOp>() && !hasInnerSum(other);
    });
  std::vector<z3::expr> addends;
  std::function<void(const z3::expr &)> flatten = [&](const z3::expr &e) {
    if (e.is_app() && e.decl().decl_kind() == Z3_OP_ADD && addends.size() < 16)
      for (unsigned i = 0; i < e.num_args(); ++i)
        flatten(e.arg(i));
    else
      addends.push_back(e);
  };
  if (flatElsewhere)
    flatten(body);
  if (addends.size() > 1 && addends.size() <= 16) {
    z3::expr parts = body.is_int() ? z.int_val(0) : z.real_val(0);
    for (const z3::expr &a : addends)
      parts = parts + sumTerm(z3::lambda(bound, a), lo, count, s);
    termFacts.push_back({total, total == parts});
  }
  // The partition of the terms at step s into the m = S / s progressions
  // at step S, for every constant step S of the kernel's sums that is a
  // multiple of s: a thread's strided sum (step 32) against a row's (step
  // 1), or two accumulators at step 512 against a slot's sum at step 256.
  // (Step-s sums from constant starts, one per slot of a tree reduction in
  // an instantiated contract, keep only their definitions: 256 of them, each
  // partitioned, would add 512 sums to a query that needs none of them.)
  std::set<int64_t> strides;
  if (s == 1 || !lo.is_numeral())
    kernel.walk([&](SumOp other) {
      if (auto c = other.getStep().getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue());
            ia && ia.getInt() > s && ia.getInt() % s == 0 && ia.getInt() / s <= 1024)
          strides.insert(ia.getInt());
    });
  for (int64_t S : strides) {
    z3::expr parts = body.is_int() ? z.int_val(0) : z.real_val(0);
    for (int64_t u = 0; u < S / s; ++u) {
      z3::expr start = (lo + z.int_val(u * s)).simplify();
      parts = parts + sumTerm(f, start, sumCount(start, hi, S), S);
    }
    termFacts.push_back({total, total == parts});
  }
  return total;
}

//===----------------------------------------------------------------------===//
// prod, max, min, argmax, argmin (kuiper.reduce)
//===----------------------------------------------------------------------===//

/// IEEE 754-2019 maximum/minimum (C23 fmaximum/fminimum): a NaN operand gives
/// NaN, -0 < +0. Over the reals, the larger/smaller operand. Associative and
/// commutative bit for bit (Z3 has one NaN), which the reduction facts use.
z3::expr SymExec::fextremum(z3::expr a, z3::expr b, bool isMin) {
  if (a.is_real() && mode == FloatMode::Real && !inSpec)
    if (std::optional<z3::expr> other = realIdentityPick(a, b, isMin))
      return *other;
  if (a.is_int() || a.is_real())
    return isMin ? z3::ite(b < a, b, a) : z3::ite(b > a, b, a);
  // The operation's identity (-inf for maximum, +inf for minimum) gives the
  // other operand bit for bit, NaN included. Folding it here keeps a kernel's
  // `m = -inf; m = fmaximum(m, v0); ...` the same term as the spec's
  // max(...) fold, which starts at its first term.
  // Only shallow terms are simplified (a constant such as `-1.0 / 0.0`), so
  // that a long fold does not simplify its accumulator at every step.
  std::function<bool(const z3::expr &, int)> shallow = [&](const z3::expr &e, int depth) {
    if (!e.is_app() || depth > 3)
      return false;
    for (unsigned i = 0; i < e.num_args(); ++i)
      if (!shallow(e.arg(i), depth + 1))
        return false;
    return true;
  };
  auto isIdentity = [&](const z3::expr &e) {
    if (!shallow(e, 0))
      return false;
    z3::expr v = e.simplify();
    return v.is_app() &&
           v.decl().decl_kind() == (isMin ? Z3_OP_FPA_PLUS_INF : Z3_OP_FPA_MINUS_INF);
  };
  if (isIdentity(a))
    return b;
  if (isIdentity(b))
    return a;
  return solver::ieeeExtremum(z, isMin, a, b);
}

/// Whether term `v` beats the current extreme `w` of an argmax (argmin):
/// strictly greater (smaller), a NaN beating every number. Ties keep the
/// earlier index, so the fold finds the first extreme index as torch does.
z3::expr SymExec::argBeats(z3::expr v, z3::expr w, bool isMin) {
  if (v.is_int() || v.is_real())
    return isMin ? v < w : v > w;
  z3::expr vn = z3::expr(z, Z3_mk_fpa_is_nan(z, v)), wn = z3::expr(z, Z3_mk_fpa_is_nan(z, w));
  z3::expr strict = isMin ? z3::expr(z, Z3_mk_fpa_lt(z, v, w)) : z3::expr(z, Z3_mk_fpa_gt(z, v, w));
  return (vn && !wn) || strict;
}

/// Whether the pair (v, i) comes before (w, j) in the order argmax picks
/// from: beats it, or ties (equal values or both NaN) with a smaller index.
z3::expr SymExec::argBefore(z3::expr v, z3::expr i, z3::expr w, z3::expr j, bool isMin) {
  z3::expr tie = z.bool_val(false);
  if (v.is_int() || v.is_real())
    tie = v == w;
  else
    tie = z3::expr(z, Z3_mk_fpa_eq(z, v, w)) ||
          (z3::expr(z, Z3_mk_fpa_is_nan(z, v)) && z3::expr(z, Z3_mk_fpa_is_nan(z, w)));
  return argBeats(v, w, isMin) || (tie && i < j);
}

z3::expr SymExec::reduceCombine(ReduceKind k, z3::expr acc, z3::expr t) {
  switch (k) {
  case ReduceKind::Prod:
    if (acc.is_real() || acc.is_int())
      return acc * t;
    return z3::expr(z, Z3_mk_fpa_mul(z, Z3_mk_fpa_rne(z), acc, t));
  case ReduceKind::Max:
    return fextremum(acc, t, false);
  case ReduceKind::Min:
    return fextremum(acc, t, true);
  case ReduceKind::ArgMax:
  case ReduceKind::ArgMin:
    break;
  }
  return acc;
}

/// The value of a value reduction over an empty range (exact mode; for
/// integers the type's extreme value), or nothing where it has none (reals).
std::optional<z3::expr> SymExec::reduceIdentity(ReduceKind k, Type t) {
  if (auto it = dyn_cast<IntegerType>(t)) {
    if (k == ReduceKind::Prod)
      return z.int_val(1);
    unsigned w = it.getWidth();
    APInt v = k == ReduceKind::Max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
    return z.int_val(llvm::toString(v, 10, true).c_str());
  }
  if (k == ReduceKind::Prod)
    return floatConst(FloatAttr::get(t, 1.0));
  if (mode == FloatMode::Real)
    return std::nullopt;
  const llvm::fltSemantics &sem = cast<FloatType>(t).getFloatSemantics();
  return floatConst(FloatAttr::get(t, APFloat::getInf(sem, k == ReduceKind::Max)));
}

z3::expr SymExec::reduceOp(ReduceOp op) {
  z3::expr lo = get(op.getLo()).simplify(), hi = get(op.getHi()).simplify(),
           st = get(op.getStep()).simplify();
  ReduceKind k = op.getKind();
  bool arg = k == ReduceKind::ArgMax || k == ReduceKind::ArgMin;
  bool isMin = k == ReduceKind::ArgMin;
  Type termType = cast<YieldOp>(op.getBody().front().getTerminator()).getValues()[0].getType();
  int64_t l, h, s;
  if (isConst(lo, l) && isConst(hi, h) && isConst(st, s) && s > 0 && (h - l) / s <= 4096) {
    if (h <= l) {
      if (arg)
        return lo;
      if (auto id = reduceIdentity(k, termType))
        return *id;
      return fresh("empty_reduction", sortOf(op.getType()));
    }
    z3::expr acc = evalRegion(op.getBody(), {z.int_val(l)});
    z3::expr idx = z.int_val(l);
    for (int64_t i = l + s; i < h; i += s) {
      z3::expr t = evalRegion(op.getBody(), {z.int_val(i)});
      if (arg) {
        z3::expr beats = argBeats(t, acc, isMin);
        idx = z3::ite(beats, z.int_val(i), idx);
        acc = z3::ite(beats, t, acc);
      } else {
        acc = reduceCombine(k, acc, t);
      }
    }
    return arg ? idx : acc;
  }
  if (!isConst(st, s) || s <= 0) {
    unsupported(op, "reduction with a step that is not a positive constant is not modelled yet");
    return fresh("unmodelled_reduce", sortOf(op.getType()));
  }
  if (k == ReduceKind::Prod && mode != FloatMode::Real && !isa<IntegerType>(termType)) {
    unsupported(op, "prod with bounds that are not compile-time constants in an exact clause is not "
                    "modelled (float products are not associative: use `approx`)");
    return fresh("unmodelled_reduce", sortOf(op.getType()));
  }
  z3::expr kv = fresh("k", z.int_sort());
  specRanges.push_back(kv >= lo && kv < hi);
  z3::expr body = evalRegion(op.getBody(), {kv});
  specRanges.pop_back();
  z3::expr_vector bound(z);
  bound.push_back(kv);
  z3::expr f = z3::lambda(bound, body);
  // The largest constant step of the kernel's reductions of this kind: the
  // interleaving facts below go down to it.
  int64_t maxStep = s;
  kernel.walk([&](ReduceOp other) {
    if (other.getKind() != k)
      return;
    if (auto c = other.getStep().getDefiningOp<arith::ConstantOp>())
      if (auto ia = dyn_cast<IntegerAttr>(c.getValue()); ia && ia.getInt() > maxStep && ia.getInt() <= 1024)
        maxStep = ia.getInt();
  });
  return reduceTerm(k, f, termType, lo, hi, s, maxStep);
}

/// red_n(f, lo, count, step): the reduction of f[lo], f[lo + step], ...
/// (count terms), uninterpreted, with its one-step definition and, for max,
/// min, argmax and argmin (associative and commutative), the interleaving
/// identity red(lo..hi step s) = combine(red(lo..hi step 2s), red(lo+s..hi
/// step 2s)) when 2s <= `maxStep`: one level of a tree reduction.
z3::expr SymExec::reduceTerm(ReduceKind k, z3::expr f, Type termType, z3::expr lo, z3::expr hi,
                             int64_t s, int64_t maxStep) {
  bool arg = k == ReduceKind::ArgMax || k == ReduceKind::ArgMin;
  bool isMin = k == ReduceKind::ArgMin || k == ReduceKind::Min;
  z3::sort valueSort = f.get_sort().array_range();
  z3::sort_vector sorts(z);
  sorts.push_back(f.get_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  std::string name = "reduce_" + stringifyReduceKind(k).str() + "_n";
  z3::func_decl redN = z.function(name.c_str(), sorts, arg ? z.int_sort() : valueSort);
  auto app = [&](z3::expr from, z3::expr count) {
    z3::expr_vector a(z);
    a.push_back(f);
    a.push_back(from);
    a.push_back(count);
    a.push_back(z.int_val(s));
    return redN(a);
  };
  z3::expr count = sumCount(lo, hi, s);
  z3::expr t = app(lo, count);
  z3::expr prev = app(lo, count - 1);
  z3::expr last = lo + (count - 1) * z.int_val(s);
  z3::expr fl = z3::select(f, last);
  if (arg) {
    termFacts.push_back({t, z3::implies(count <= 1, t == lo)});
    termFacts.push_back({t, z3::implies(count > 1, t == z3::ite(argBeats(fl, z3::select(f, prev), isMin),
                                                                  last, prev))});
  } else {
    if (auto id = reduceIdentity(k, termType))
      termFacts.push_back({t, z3::implies(count <= 0, t == *id)});
    termFacts.push_back({t, z3::implies(count == 1, t == z3::select(f, lo))});
    termFacts.push_back({t, z3::implies(count > 1, t == reduceCombine(k, prev, fl))});
  }
  // The first-term definition (see sumTerm): the first term combined with
  // the reduction of the rest; an argmax keeps the first index unless the
  // rest's beats it. (Not for a product of floats: not associative.)
  if (!lo.is_numeral() && frontStepFolds() &&
      (k != ReduceKind::Prod || valueSort.is_int() || valueSort.is_real())) {
    z3::expr rest = app((lo + z.int_val(s)).simplify(), count - 1), first = z3::select(f, lo);
    termFacts.push_back({t, z3::implies(count > 1, arg ? t == z3::ite(argBeats(z3::select(f, rest), first, isMin),
                                                                      rest, lo)
                                                       : t == reduceCombine(k, first, rest))});
  }
  // A maximum and an argmax of the same terms (a loop's `best` and `bi`
  // invariants): the term at the argmax is the maximum, as a value (== in a
  // clause: -0 and +0 are equal, NaN equals NaN). Valid: a NaN term makes the
  // maximum NaN and the argmax the first NaN; otherwise the argmax is the
  // first of the largest terms, which the maximum equals (fmaximum prefers +0
  // to -0, a value-equal term).
  if (!extremumPairsPossible) {
    // (Only where the kernel has both kinds: the key costs two printed terms.)
    std::set<ReduceKind> kinds;
    kernel.walk([&](ReduceOp r) { kinds.insert(r.getKind()); });
    auto has = [&](ReduceKind rk) { return kinds.count(rk) > 0; };
    extremumPairsPossible = (has(ReduceKind::Max) && has(ReduceKind::ArgMax)) ||
                            (has(ReduceKind::Min) && has(ReduceKind::ArgMin));
  }
  if (k != ReduceKind::Prod && *extremumPairsPossible) {
    auto id = [&](const z3::expr &e) { return std::to_string(Z3_get_ast_id(z, e)); };
    // (Keyed by the lambda's body, whose bound variable is a de Bruijn index:
    // two reductions of the same terms have lambdas with different names; and
    // by the bounds as text: equal simplified bounds had different ids.)
    std::string key = id(f.is_lambda() ? f.body() : f) + "|" + lo.simplify().to_string() + "|" +
                      count.simplify().to_string() + "|" +
                      std::to_string(s) + (isMin ? "|min" : "|max");
    auto &[value, index] = extremumPairs[key];
    bool complete = value && index;
    (arg ? index : value) = t;
    if (!complete && value && index) {
      z3::expr v = *value, at = z3::select(f, *index);
      z3::expr same = v == at;
      if (!v.is_int() && !v.is_real())
        same = z3::expr(z, Z3_mk_fpa_eq(z, v, at)) ||
               (z3::expr(z, Z3_mk_fpa_is_nan(z, v)) && z3::expr(z, Z3_mk_fpa_is_nan(z, at)));
      termFacts.push_back({*index, z3::implies(count >= 1, same)});
    }
  }
  if (k == ReduceKind::Prod || s >= maxStep || maxStep / s > 1024)
    return t;
  z3::expr lo2 = (lo + z.int_val(s)).simplify();
  // One level only (the terms at step 2s get no facts of their own): a
  // tree reduction states each level in a barrier contract, and the facts of
  // a whole tree would be assumed by every obligation that mentions it.
  z3::expr evens = reduceTerm(k, f, termType, lo, hi, 2 * s, 2 * s);
  z3::expr odds = reduceTerm(k, f, termType, lo2, hi, 2 * s, 2 * s);
  z3::expr oddsCount = sumCount(lo2, hi, 2 * s);
  z3::expr both = z.bool_val(true);
  if (arg) {
    z3::expr fe = z3::select(f, evens), fo = z3::select(f, odds);
    both = t == z3::ite(argBefore(fo, odds, fe, evens, isMin), odds, evens);
  } else {
    both = t == reduceCombine(k, evens, odds);
  }
  termFacts.push_back({t, z3::ite(oddsCount > 0, both, t == evens)});
  return t;
}

bool SymExec::frontStepFolds() {
  if (!frontSteps) {
    // A start computed from a loop's index or from a `var` (a while loop's
    // state), as a loop invariant's is; not one from thread ids alone (a
    // tree's contracts `sum(k in t..n step s: ...)`, where the facts cost a
    // block L1 norm 1.4 -> 16 s).
    auto fromLoop = [](Value lo) {
      SmallVector<Value> work{lo};
      DenseSet<Value> seen;
      while (!work.empty()) {
        Value v = work.pop_back_val();
        if (!seen.insert(v).second)
          continue;
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          if (isa<ForOp>(arg.getOwner()->getParentOp()))
            return true;
          continue;
        }
        Operation *d = v.getDefiningOp();
        if (isa<memref::LoadOp>(d))
          return true;
        work.append(d->operand_begin(), d->operand_end());
      }
      return false;
    };
    bool any = false;
    kernel.walk([&](SumOp op) { any |= fromLoop(op.getLo()); });
    kernel.walk([&](ReduceOp op) { any |= fromLoop(op.getLo()); });
    frontSteps = any;
  }
  return *frontSteps;
}

bool SymExec::isFoldTerm(const z3::expr &e) {
  if (!e.is_app() || e.num_args() != 4 || !e.arg(0).is_array())
    return false;
  std::string name = e.decl().name().str();
  return name == "sum_n" || name == "sum_n_int" ||
         (name.size() > 9 && name.rfind("reduce_", 0) == 0 && name.substr(name.size() - 2) == "_n" &&
          symbolizeReduceKind(llvm::StringRef(name).substr(7, name.size() - 9)).has_value());
}

std::optional<z3::expr> SymExec::foldValue(const z3::expr &app, int64_t count) {
  z3::expr f = app.arg(0), lo = app.arg(1);
  int64_t s = 0;
  if (!app.arg(3).is_numeral_i64(s))
    return std::nullopt;
  auto term = [&](int64_t j) { return z3::select(f, lo + z.int_val(j * s)).simplify(); };
  std::string name = app.decl().name().str();
  if (name == "sum_n" || name == "sum_n_int") { // real (integer) terms, as with constant bounds
    z3::expr acc = name == "sum_n" ? z.real_val(0) : z.int_val(0);
    for (int64_t j = 0; j < count; ++j)
      acc = j == 0 ? term(0) : acc + term(j);
    return acc;
  }
  ReduceKind k = *symbolizeReduceKind(llvm::StringRef(name).substr(7, name.size() - 9));
  bool arg = k == ReduceKind::ArgMax || k == ReduceKind::ArgMin;
  if (count <= 0)
    return arg ? std::optional<z3::expr>(lo) : std::nullopt;
  z3::expr acc = term(0), idx = lo;
  for (int64_t j = 1; j < count; ++j) {
    z3::expr t = term(j);
    if (arg) {
      z3::expr beats = argBeats(t, acc, k == ReduceKind::ArgMin);
      idx = z3::ite(beats, lo + z.int_val(j * s), idx);
      acc = z3::ite(beats, t, acc);
    } else {
      acc = reduceCombine(k, acc, t);
    }
  }
  return arg ? idx : acc;
}
