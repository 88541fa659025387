//===- Intervals.cpp - Refutation by integer bounds alone -----------------===//
//
// Most obligations of a map-shaped kernel (an index fits in i32, a grid
// dimension is in range, a read is in bounds) follow from the bounds of the
// thread ids and of the sizes alone. Z3 decides each in about half a
// millisecond after its SMT text is printed, hashed and parsed; bounds decide
// it in microseconds, before any text exists.
//
// The conjuncts of the assertions give bounds to the integer terms they
// compare (`blockIdx.x < cdiv(n, 256)`, `n <= 2^30`), narrowed to a fixpoint
// in a few rounds; integer terms are evaluated over intervals (+, -, *,
// division and remainder by a numeral, ite). The assertions are refuted when
// one of them evaluates to false, or a term's bounds cross. Every bound is a
// consequence of the assertions and every evaluation over-approximates, so a
// refutation is a proof; anything else (reals, floats, bit-vectors,
// quantifiers, division by a term) is left to Z3 as before.
//
//===----------------------------------------------------------------------===//
#include "verifier/solver/Solver.h"

#include <optional>
#include <tuple>
#include <unordered_map>

using namespace kuiper::solver;

namespace {

using Wide = __int128;
/// Finite bounds stay within +-2^62, so that sums and products of two of them
/// never overflow an __int128; past that a bound is clamped in the direction
/// that keeps it sound: a lower bound above 2^62 becomes 2^62 (the value is
/// at least that), one below -2^62 becomes -infinity; an upper bound above
/// 2^62 becomes +infinity, one below -2^62 becomes -2^62. (A lower bound
/// turned into +infinity made (a + b) / 2^40 look larger than every number
/// for a, b near 2^61, and a guard that holds look impossible.)
constexpr Wide kLimit = Wide(1) << 62;
constexpr Wide kInf = Wide(1) << 100;

Wide lowerBound(Wide v) { return v < -kLimit ? -kInf : std::min(v, kLimit); }
Wide upperBound(Wide v) { return v > kLimit ? kInf : std::max(v, -kLimit); }

struct Interval {
  Wide lo = -kInf, hi = kInf; ///< lo is -kInf or within +-2^62, hi +kInf or within
  bool empty() const { return lo > hi; }
  bool point() const { return lo == hi && lo != kInf && lo != -kInf; }
};

Interval meet(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)}; }
Interval join(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

/// Sums of two lower (upper) bounds: an infinite one stays infinite.
Wide addLower(Wide a, Wide b) { return a == -kInf || b == -kInf ? -kInf : lowerBound(a + b); }
Wide addUpper(Wide a, Wide b) { return a == kInf || b == kInf ? kInf : upperBound(a + b); }
Interval add(Interval a, Interval b) { return {addLower(a.lo, b.lo), addUpper(a.hi, b.hi)}; }
Interval negate(Interval a) { return {a.hi == kInf ? -kInf : -a.hi, a.lo == -kInf ? kInf : -a.lo}; }

/// Product of two bounds, either possibly infinite (0 times infinity is 0:
/// the values themselves are finite), exact otherwise (at most 2^124).
Wide mulBound(Wide a, Wide b) {
  if (a == 0 || b == 0)
    return 0;
  bool negative = (a < 0) != (b < 0);
  if (a == kInf || a == -kInf || b == kInf || b == -kInf)
    return negative ? -kInf : kInf;
  return a * b;
}
Interval mul(Interval a, Interval b) {
  Wide c[4] = {mulBound(a.lo, b.lo), mulBound(a.lo, b.hi), mulBound(a.hi, b.lo),
               mulBound(a.hi, b.hi)};
  // Every corner beyond 2^62 (an exact product or an infinity) is clamped
  // the sound way for the side it ends up on.
  return {lowerBound(*std::min_element(c, c + 4)), upperBound(*std::max_element(c, c + 4))};
}

Wide floorDiv(Wide a, Wide d) { // d > 0
  if (a == kInf || a == -kInf)
    return a;
  Wide q = a / d;
  return (a % d != 0 && a < 0) ? q - 1 : q;
}

enum class Truth { False, True, Unknown };
Truth notOf(Truth t) { return t == Truth::Unknown ? t : t == Truth::True ? Truth::False : Truth::True; }

class Refuter {
public:
  explicit Refuter(const std::vector<z3::expr> &asserts) {
    for (const z3::expr &a : asserts)
      conjuncts(a, true);
  }

  bool refuted() {
    if (unsupported)
      return false;
    for (unsigned round = 0; round < 8; ++round) {
      cache.clear();
      truths.clear();
      changed = false;
      for (auto &[atom, positive] : atoms) {
        if (narrow(atom, positive) || contradiction)
          return true; // a bound crossed
      }
      if (!changed)
        break;
    }
    cache.clear();
    truths.clear();
    for (auto &[atom, positive] : atoms)
      if (formula(atom) == (positive ? Truth::False : Truth::True) || contradiction)
        return true;
    return false;
  }

private:
  std::vector<std::pair<z3::expr, bool>> atoms; ///< conjuncts, with their polarity
  std::unordered_map<unsigned, Interval> bounds; ///< by term id
  std::unordered_map<unsigned, Interval> cache;  ///< evaluations of this round
  std::unordered_map<unsigned, Truth> truths;    ///< the same for formulas
  std::unordered_map<unsigned, bool> asserted;   ///< conjuncts, by id: their polarity
  unsigned depth = 0;                            ///< of the evaluation's recursion
  bool changed = false;
  bool contradiction = false; ///< a term was left without a value
  bool unsupported = false;

  void conjuncts(const z3::expr &e, bool positive, unsigned nesting = 0) {
    if (!e.is_bool()) {
      unsupported = true;
      return;
    }
    if (e.is_app() && nesting < kMaxDepth) {
      Z3_decl_kind k = e.decl().decl_kind();
      if ((k == Z3_OP_AND && positive) || (k == Z3_OP_OR && !positive)) {
        for (unsigned i = 0; i < e.num_args(); ++i)
          conjuncts(e.arg(i), positive, nesting + 1);
        return;
      }
      if (k == Z3_OP_NOT) {
        conjuncts(e.arg(0), !positive, nesting + 1);
        return;
      }
    }
    atoms.emplace_back(e, positive);
    auto [it, fresh] = asserted.emplace(e.id(), positive);
    contradiction |= !fresh && it->second != positive; // p and not p
  }

  static bool isIntTerm(const z3::expr &e) { return e.is_int(); }

  /// An integer comparison that holds (`holds`) or fails, as
  /// `lhs <= rhs + slack` (slack 0 or -1); nothing for any other formula.
  struct Le {
    z3::expr lhs, rhs;
    Wide slack;
  };
  static std::optional<Le> asLe(const z3::expr &cmp, bool holds) {
    if (!cmp.is_app() || cmp.num_args() != 2 || !isIntTerm(cmp.arg(0)) ||
        !isIntTerm(cmp.arg(1)))
      return std::nullopt;
    z3::expr a = cmp.arg(0), b = cmp.arg(1);
    switch (cmp.decl().decl_kind()) {
    case Z3_OP_LE: // a <= b, or a > b: b <= a - 1
      return holds ? Le{a, b, 0} : Le{b, a, -1};
    case Z3_OP_LT:
      return holds ? Le{a, b, -1} : Le{b, a, 0};
    case Z3_OP_GE:
      return holds ? Le{b, a, 0} : Le{a, b, -1};
    case Z3_OP_GT:
      return holds ? Le{b, a, -1} : Le{a, b, 0};
    default:
      return std::nullopt;
    }
  }

  /// Narrows the bounds of the sides of a comparison that holds (`positive`)
  /// or fails. Returns true when a bound crossed.
  bool narrow(const z3::expr &atom, bool positive) {
    if (auto le = asLe(atom, positive))
      return below(le->lhs, le->rhs, le->slack);
    // An equation that holds: both sides in each other's bounds.
    if (!positive || !atom.is_app() || atom.decl().decl_kind() != Z3_OP_EQ ||
        atom.num_args() != 2 || !isIntTerm(atom.arg(0)) || !isIntTerm(atom.arg(1)))
      return false;
    return below(atom.arg(0), atom.arg(1), 0) || below(atom.arg(1), atom.arg(0), 0);
  }

  /// lhs <= rhs + slack.
  bool below(const z3::expr &lhs, const z3::expr &rhs, Wide slack) {
    Interval l = value(lhs), r = value(rhs);
    bool crossed = tighten(lhs, {-kInf, addUpper(r.hi, slack)});
    crossed |= tighten(rhs, {addLower(l.lo, -slack), kInf});
    return crossed;
  }

  /// Records `term` in `by`; true when no value is left to it.
  bool tighten(const z3::expr &term, Interval by) {
    Interval known = value(term);
    Interval now = meet(known, by);
    if (now.lo != known.lo || now.hi != known.hi) {
      bounds[term.id()] = now;
      cache[term.id()] = now;
      changed = true;
    }
    return now.empty();
  }

  /// Evaluations (from earlier in a round, or of deeper terms than the
  /// guard allows) may be wider than the bounds known now: never narrower.
  static constexpr unsigned kMaxDepth = 1000;

  Interval value(const z3::expr &e) {
    unsigned id = e.id();
    if (auto it = cache.find(id); it != cache.end())
      return it->second;
    if (depth >= kMaxDepth)
      return {};
    ++depth;
    Interval v = structural(e);
    --depth;
    if (auto it = bounds.find(id); it != bounds.end())
      v = meet(v, it->second);
    contradiction |= v.empty(); // no value: the assertions are unsatisfiable
    cache[id] = v;
    return v;
  }

  Interval structural(const z3::expr &e) {
    if (!e.is_int())
      return {};
    int64_t n;
    if (e.is_numeral()) {
      if (e.is_numeral_i64(n) && Wide(n) <= kLimit && Wide(n) >= -kLimit)
        return {n, n};
      return {};
    }
    if (!e.is_app())
      return {}; // a bound variable
    unsigned args = e.num_args();
    switch (e.decl().decl_kind()) {
    case Z3_OP_ADD: {
      Interval s{0, 0};
      for (unsigned i = 0; i < args; ++i)
        s = add(s, value(e.arg(i)));
      return s;
    }
    case Z3_OP_SUB: {
      Interval s = value(e.arg(0));
      for (unsigned i = 1; i < args; ++i)
        s = add(s, negate(value(e.arg(i))));
      return s;
    }
    case Z3_OP_UMINUS:
      return negate(value(e.arg(0)));
    case Z3_OP_MUL: {
      Interval p{1, 1};
      for (unsigned i = 0; i < args; ++i)
        p = mul(p, value(e.arg(i)));
      return p;
    }
    case Z3_OP_IDIV: {
      Interval d = value(e.arg(1));
      if (!d.point() || d.lo <= 0)
        return {}; // by zero (uninterpreted), by a negative number or a term
      Interval x = value(e.arg(0));
      return {floorDiv(x.lo, d.lo), floorDiv(x.hi, d.lo)}; // floor for d > 0
    }
    case Z3_OP_MOD: {
      Interval d = value(e.arg(1));
      if (!d.point() || d.lo == 0)
        return {};
      Wide m = d.lo < 0 ? -d.lo : d.lo;
      Interval x = value(e.arg(0));
      if (x.lo >= 0 && x.hi < m)
        return x; // the dividend itself
      return {0, x.lo >= 0 ? std::min(x.hi, m - 1) : m - 1};
    }
    case Z3_OP_ITE: {
      Truth c = truth(e.arg(0));
      if (c == Truth::True)
        return value(e.arg(1));
      if (c == Truth::False)
        return value(e.arg(2));
      return join(under(e.arg(0), true, e.arg(1)), under(e.arg(0), false, e.arg(2)));
    }
    default:
      return {}; // an opaque term: only what comparisons said of it
    }
  }

  /// The value of `branch` where `cond` is `holds`: a comparison between
  /// the branch and another term bounds it there (min/max written as ite:
  /// `ite(a <= 1024, a, 1024)` is at most 1024).
  Interval under(const z3::expr &cond, bool holds, const z3::expr &branch) {
    Interval v = value(branch);
    std::optional<Le> le = asLe(cond, holds);
    if (!le)
      return v;
    if (z3::eq(branch, le->lhs))
      v = meet(v, {-kInf, addUpper(value(le->rhs).hi, le->slack)});
    if (z3::eq(branch, le->rhs))
      v = meet(v, {addLower(value(le->lhs).lo, -le->slack), kInf});
    return v;
  }

  Truth truth(const z3::expr &e) {
    unsigned id = e.id();
    if (auto it = truths.find(id); it != truths.end())
      return it->second;
    if (auto it = asserted.find(id); it != asserted.end())
      return it->second ? Truth::True : Truth::False; // a conjunct (the guard of an access)
    if (depth >= kMaxDepth)
      return Truth::Unknown;
    ++depth;
    Truth t = formula(e);
    --depth;
    truths[id] = t;
    return t;
  }

  /// A conjunction (`absorbing` false) or disjunction (true).
  Truth junction(const z3::expr &e, Truth absorbing) {
    Truth result = notOf(absorbing);
    for (unsigned i = 0; i < e.num_args(); ++i) {
      Truth t = truth(e.arg(i));
      if (t == absorbing)
        return t;
      if (t == Truth::Unknown)
        result = t;
    }
    return result;
  }

  Truth formula(const z3::expr &e) {
    if (e.is_true())
      return Truth::True;
    if (e.is_false())
      return Truth::False;
    if (!e.is_app())
      return Truth::Unknown;
    switch (e.decl().decl_kind()) {
    case Z3_OP_NOT:
      return notOf(truth(e.arg(0)));
    case Z3_OP_AND: // false as soon as one is false
      return junction(e, Truth::False);
    case Z3_OP_OR: // true as soon as one is true
      return junction(e, Truth::True);
    case Z3_OP_IMPLIES: {
      Truth p = truth(e.arg(0)), q = truth(e.arg(1));
      if (p == Truth::False || q == Truth::True)
        return Truth::True;
      if (p == Truth::True && q == Truth::False)
        return Truth::False;
      return Truth::Unknown;
    }
    case Z3_OP_ITE: {
      Truth c = truth(e.arg(0));
      if (c == Truth::True)
        return truth(e.arg(1));
      if (c == Truth::False)
        return truth(e.arg(2));
      Truth t = truth(e.arg(1));
      return t == truth(e.arg(2)) ? t : Truth::Unknown;
    }
    case Z3_OP_LE:
    case Z3_OP_LT:
    case Z3_OP_GE:
    case Z3_OP_GT:
    case Z3_OP_EQ:
    case Z3_OP_DISTINCT:
      return compare(e);
    default:
      return Truth::Unknown;
    }
  }

  Truth compare(const z3::expr &e) {
    if (std::optional<Le> le = asLe(e, true)) {
      Interval x = value(le->lhs), y = value(le->rhs);
      if (x.hi != kInf && y.lo != -kInf && x.hi <= y.lo + le->slack)
        return Truth::True;
      if (x.lo != -kInf && y.hi != kInf && x.lo > y.hi + le->slack)
        return Truth::False;
      return Truth::Unknown;
    }
    // An equation or disequation of two integers.
    if (e.num_args() != 2 || !isIntTerm(e.arg(0)) || !isIntTerm(e.arg(1)))
      return Truth::Unknown;
    Interval a = value(e.arg(0)), b = value(e.arg(1));
    Truth eq = Truth::Unknown;
    if (a.point() && b.point() && a.lo == b.lo)
      eq = Truth::True;
    else if (meet(a, b).empty())
      eq = Truth::False;
    return e.decl().decl_kind() == Z3_OP_EQ ? eq : notOf(eq);
  }

};

} // namespace

bool kuiper::solver::refutedByIntervals(const std::vector<z3::expr> &asserts) {
  try {
    return Refuter(asserts).refuted();
  } catch (z3::exception &) {
    return false;
  }
}
