//===- Arithmetic.cpp - Integer and floating-point operations ---------------===//
#include "verifier/analysis/SymExec.h"
#include "verifier/solver/Solver.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

/// `e` as sum of k * atom + off with numeral k and off (atoms: the terms that
/// are not sums, differences, negations, numerals or products with numerals);
/// false where a numeral overflows int64.
bool kuiper::verifier::linearForm(const z3::expr &e, std::vector<std::pair<int64_t, z3::expr>> &terms,
                                  int64_t &off) {
  std::function<bool(const z3::expr &, int64_t)> go = [&](const z3::expr &t, int64_t k) -> bool {
    int64_t v;
    if (isConst(t, v)) {
      int64_t kv;
      return !__builtin_mul_overflow(k, v, &kv) && !__builtin_add_overflow(off, kv, &off);
    }
    if (t.is_app()) {
      switch (t.decl().decl_kind()) {
      case Z3_OP_ADD:
        for (unsigned i = 0; i < t.num_args(); ++i)
          if (!go(t.arg(i), k))
            return false;
        return true;
      case Z3_OP_SUB:
        for (unsigned i = 0; i < t.num_args(); ++i)
          if (!go(t.arg(i), i == 0 ? k : -k))
            return false;
        return true;
      case Z3_OP_UMINUS:
        return go(t.arg(0), -k);
      case Z3_OP_MUL: {
        int at = -1;
        int64_t f = k;
        for (unsigned i = 0; i < t.num_args(); ++i) {
          if (isConst(t.arg(i), v)) {
            if (__builtin_mul_overflow(f, v, &f))
              return false;
          } else if (at >= 0) {
            at = -2;
            break;
          } else {
            at = i;
          }
        }
        if (at == -1)
          return !__builtin_add_overflow(off, f, &off);
        if (at >= 0)
          return go(t.arg(at), f);
        break; // a product of several non-numerals: an atom
      }
      default:
        break;
      }
    }
    for (auto &[kk, atom] : terms)
      if (z3::eq(atom, t))
        return !__builtin_add_overflow(kk, k, &kk);
    terms.push_back({k, t});
    return true;
  };
  return go(e, 1);
}

/// The range [lo, hi) of a thread variable or of a bound variable of a
/// contract with constant bounds, if known (the grid's variables have none).
std::optional<std::pair<int64_t, int64_t>> SymExec::atomRange(const z3::expr &atom) const {
  for (size_t i = 0; i < threadVars.size(); ++i) {
    if (!z3::eq(atom, threadVars[i]))
      continue;
    switch (i) {
    case 0: return std::make_pair(int64_t(0), lowRange());
    case 1: return std::make_pair(int64_t(0), int64_t(block[1]));
    case 2: return std::make_pair(int64_t(0), int64_t(block[2]));
    case 6: return std::make_pair(int64_t(0), highRange());
    default: return std::nullopt;
    }
  }
  for (auto &[v, lo, hi] : boundedVars)
    if (z3::eq(atom, v))
      return std::make_pair(lo, hi);
  if (withRequiredRanges)
    for (auto &[v, lo, hi] : requiredRanges)
      if (z3::eq(atom, v))
        return std::make_pair(lo, hi);
  return std::nullopt;
}

/// Records the bounds of the conjuncts `p <= c`, `p < c`, `p >= c`, `p > c`
/// (either side) of a `requires` on an integer parameter `p` (a constant).
void SymExec::noteRequiredRanges(const z3::expr &cond) {
  std::function<void(const z3::expr &, bool)> go = [&](const z3::expr &e, bool negated) {
    if (!e.is_app())
      return;
    Z3_decl_kind k = e.decl().decl_kind();
    if (k == Z3_OP_AND && !negated) {
      for (unsigned i = 0; i < e.num_args(); ++i)
        go(e.arg(i), false);
      return;
    }
    if (k == Z3_OP_NOT) {
      go(e.arg(0), !negated);
      return;
    }
    if ((k != Z3_OP_LE && k != Z3_OP_LT && k != Z3_OP_GE && k != Z3_OP_GT) || e.num_args() != 2)
      return;
    // As `a < b` or `a <= b` (negation flips the comparison).
    bool strict = k == Z3_OP_LT || k == Z3_OP_GT;
    z3::expr a = e.arg(0), b = e.arg(1);
    if (k == Z3_OP_GE || k == Z3_OP_GT)
      std::swap(a, b);
    if (negated) { // !(a < b) is b <= a; !(a <= b) is b < a
      std::swap(a, b);
      strict = !strict;
    }
    int64_t c;
    auto isParam = [&](const z3::expr &v) {
      return v.is_const() && v.is_int() && v.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
             std::none_of(threadVars.begin(), threadVars.end(),
                          [&](const z3::expr &t) { return z3::eq(t, v); });
    };
    auto entry = [&](const z3::expr &v) -> std::tuple<z3::expr, int64_t, int64_t> & {
      for (auto &r : requiredRanges)
        if (z3::eq(std::get<0>(r), v))
          return r;
      requiredRanges.emplace_back(v, int64_t(INT32_MIN), int64_t(INT32_MAX) + 1);
      return requiredRanges.back();
    };
    if (isParam(a) && b.is_numeral_i64(c)) { // a < c or a <= c
      auto &r = entry(a);
      std::get<2>(r) = std::min(std::get<2>(r), strict ? c : c + 1);
    } else if (isParam(b) && a.is_numeral_i64(c)) { // c < b or c <= b
      auto &r = entry(b);
      std::get<1>(r) = std::max(std::get<1>(r), strict ? c + 1 : c);
    }
  };
  go(cond.simplify(), false);
}

/// The least and greatest value of `e` over the known ranges of its atoms.
std::optional<std::pair<int64_t, int64_t>> SymExec::rangeOf(const z3::expr &e) const {
  std::vector<std::pair<int64_t, z3::expr>> terms;
  int64_t lo = 0;
  if (!linearForm(e, terms, lo))
    return std::nullopt;
  int64_t hi = lo;
  for (auto &[k, atom] : terms) {
    auto r = atomRange(atom);
    if (!r || r->second <= r->first)
      return std::nullopt;
    int64_t a, b;
    if (__builtin_mul_overflow(k, r->first, &a) || __builtin_mul_overflow(k, r->second - 1, &b))
      return std::nullopt;
    if (__builtin_add_overflow(lo, std::min(a, b), &lo) || __builtin_add_overflow(hi, std::max(a, b), &hi))
      return std::nullopt;
  }
  return std::make_pair(lo, hi);
}

/// The operands x, y of `h` where it is their minimum, `ite(x <= y, x, y)`
/// (the condition as simplify writes it, or `x < y`).
std::optional<std::pair<z3::expr, z3::expr>> SymExec::minOperands(const z3::expr &h) {
  if (!h.is_app() || h.decl().decl_kind() != Z3_OP_ITE)
    return std::nullopt;
  z3::expr c = h.arg(0).simplify(), x = h.arg(1), y = h.arg(2);
  if (z3::eq(c, (x <= y).simplify()) || z3::eq(c, (x < y).simplify()))
    return std::make_pair(x, y);
  return std::nullopt;
}

std::optional<int64_t> SymExec::spanBound(const z3::expr &hi, const z3::expr &lo, int depth) const {
  if (auto r = rangeOf((hi - lo).simplify()))
    return r->second;
  z3::expr h = hi.simplify();
  if (depth >= 4 || !h.is_app() || h.decl().decl_kind() != Z3_OP_ITE)
    return std::nullopt;
  z3::expr x = h.arg(1), y = h.arg(2);
  std::optional<int64_t> bx = spanBound(x, lo, depth + 1), by = spanBound(y, lo, depth + 1);
  // The minimum is at most either operand: the smaller bound of the two.
  if (minOperands(h) && (bx || by))
    return bx && by ? std::min(*bx, *by) : bx ? *bx : *by;
  // Any other choice: at most the larger of the two.
  if (bx && by)
    return std::max(*bx, *by);
  return std::nullopt;
}

/// Integer division by a constant of a thread-id expression, done exactly:
/// with threadIdx.x = 32 * warpcol + lane (kernels that use warp-level ids),
/// `threadIdx.x / 32` is warpcol and `threadIdx.x % 32` is lane, so a warp
/// index computed by hand is as linear as `warpid`, and the writer of
/// `y[blockIdx.x * 8 + threadIdx.x / 32]` can be named. A term k * v goes to
/// the quotient when c divides k (k >= 0: every thread variable is >= 0) and
/// to the remainder otherwise (k > 0 and v bounded), the numeral offset is
/// split by floor division; when the remainder's largest value is below c the
/// split is Euclid's, and as q >= 0 truncating division agrees with it.
std::optional<std::pair<z3::expr, z3::expr>> SymExec::splitByConstant(const z3::expr &a,
                                                                       int64_t c) const {
  if (c <= 1)
    return std::nullopt;
  std::vector<std::pair<int64_t, z3::expr>> terms;
  int64_t off = 0;
  if (!linearForm(a, terms, off))
    return std::nullopt;
  int64_t q0 = off >= 0 ? off / c : -((-off + c - 1) / c), rmax = off - q0 * c;
  z3::expr q = z.int_val(q0), r = z.int_val(rmax);
  if (q0 < 0)
    return std::nullopt;
  for (auto &[k, atom] : terms) {
    if (k == 0)
      continue;
    bool threadVar = false;
    for (auto &t : threadVars)
      threadVar |= z3::eq(atom, t);
    if (!threadVar || k < 0)
      return std::nullopt;
    if (k % c == 0) {
      q = q + z.int_val(k / c) * atom;
      continue;
    }
    auto range = atomRange(atom);
    int64_t most;
    if (!range || __builtin_mul_overflow(k, range->second - 1, &most) ||
        __builtin_add_overflow(rmax, most, &rmax))
      return std::nullopt;
    r = r + z.int_val(k) * atom;
  }
  if (rmax >= c)
    return std::nullopt;
  return std::make_pair(q.simplify(), r.simplify());
}

void SymExec::solveIndex(const z3::expr &written, const z3::expr &named,
                         std::vector<z3::expr> &facts) const {
  std::vector<std::pair<int64_t, z3::expr>> terms;
  int64_t off = 0;
  if (!linearForm(named, terms, off) || terms.size() != 2)
    return;
  // q: a goal constant with coefficient 1 and bounds within [0, A); p: the
  // other atom, with coefficient A.
  for (int which = 0; which < 2; ++which) {
    auto &[kq, q] = terms[which];
    auto &[ka, p] = terms[1 - which];
    if (kq != 1 || ka < 2)
      continue;
    auto bound = std::find_if(goalBounds.begin(), goalBounds.end(),
                              [&](auto &g) { return z3::eq(std::get<0>(g), q); });
    if (bound == goalBounds.end() || std::get<1>(*bound) < 0 || std::get<2>(*bound) > ka)
      continue;
    // A * p + q = written - off, with 0 <= q < A and 0 <= Y < A: p == X, q == Y.
    if (auto xy = splitByConstant((written - z.int_val(off)).simplify(), ka)) {
      facts.push_back(p == xy->first);
      facts.push_back(q == xy->second);
    }
    return;
  }
}

z3::expr SymExec::intOp(Operation &op) {
  auto flagsOf = [&]() -> std::pair<bool, bool> {
    auto a = op.getAttrOfType<arith::IntegerOverflowFlagsAttr>("overflowFlags");
    if (!a)
      return {false, false};
    auto f = a.getValue();
    return {bitEnumContainsAll(f, arith::IntegerOverflowFlags::nsw),
            bitEnumContainsAll(f, arith::IntegerOverflowFlags::nuw)};
  };
  Type t = op.getResult(0).getType();
  unsigned w = t.getIntOrFloatBitWidth();
  // Integers are held in their signed (two's complement) reading; unsigned
  // operations convert with toUnsigned/toSigned.
  // The op's flags give its meaning, as in the executor: `nsw` faults on
  // signed overflow, `nuw` on unsigned overflow, and without flags the result
  // wraps around (two's complement), which is no fault.
  auto arith2 = [&](std::function<z3::expr(z3::expr, z3::expr)> f) {
    auto [nsw, nuw] = flagsOf();
    if (!nsw && !nuw) {
      z3::expr full = w >= 64 ? z.int_val("18446744073709551616")
                              : z.int_val((int64_t)(uint64_t(1) << w));
      return toSigned(z3::mod(f(get(op.getOperand(0)), get(op.getOperand(1))), full), w);
    }
    if (nuw && !nsw) {
      z3::expr r = f(toUnsigned(get(op.getOperand(0)), w), toUnsigned(get(op.getOperand(1)), w));
      checkOverflow(op, r, w, false);
      return toSigned(r, w);
    }
    z3::expr r = f(get(op.getOperand(0)), get(op.getOperand(1)));
    checkOverflow(op, r, w, true);
    return r;
  };
  if (isa<arith::AddIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a + b; });
  if (isa<arith::SubIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a - b; });
  if (isa<arith::MulIOp>(op))
    return arith2([](z3::expr a, z3::expr b) { return a * b; });
  z3::expr a = get(op.getOperand(0));
  if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    int64_t bc;
    z3::expr minv = z.int_val(signedMin(w));
    if (!inSpec)
      addObligation(CheckId::Overflow, op.getLoc(), "the divisor is not zero",
                    "division by zero", b != 0);
    if (!inSpec && !(isConst(b.simplify(), bc) && bc != -1))
      addObligation(CheckId::Overflow, op.getLoc(), "the division does not overflow",
                    "integer overflow: INT_MIN / -1", !(a == minv && b == -1));
    // Remember which terms are truncating quotients and remainders, so that
    // the writer inference can recognise a 2-D index (e / n, e % n).
    auto noted = [&](z3::expr r) {
      divisions.push_back({isa<arith::DivSIOp>(op), r, a, b});
      return r;
    };
    if (isConst(b.simplify(), bc) && bc > 0) {
      if (auto qr = splitByConstant(a, bc))
        return isa<arith::DivSIOp>(op) ? qr->first : qr->second;
      z3::expr bn = z.int_val(bc);
      if (isa<arith::DivSIOp>(op))
        return noted(z3::ite(a >= 0, a / bn, -((-a) / bn)));
      return noted(z3::ite(a >= 0, z3::mod(a, bn), -z3::mod(-a, bn)));
    }
    z3::expr ab = z3::ite(b >= 0, b, -b);
    z3::expr q = z3::ite(a >= 0, a / ab, -((-a) / ab));
    q = z3::ite(b >= 0, q, -q);
    // Valid bounds of a quotient and remainder by a symbolic positive
    // divisor (given to the solver where the term occurs): with the
    // monotonicity facts about products they make `e < m * n` imply
    // `e / n < m` without nonlinear search.
    if (isa<arith::DivSIOp>(op)) {
      termFacts.push_back({q, z3::implies(a >= 0 && b > 0, q >= 0 && q * b <= a && a < q * b + b)});
      return noted(q);
    }
    z3::expr r = z3::ite(a >= 0, z3::mod(a, ab), -z3::mod(-a, ab));
    termFacts.push_back({r, z3::implies(a >= 0 && b > 0, r >= 0 && r < b)});
    return noted(r);
  }
  if (isa<arith::ShLIOp, arith::ShRSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    int64_t c;
    if (isConst(b.simplify(), c) && c >= 0 && c < (int64_t)w) {
      z3::expr p = z.int_val((int64_t)(uint64_t(1) << c));
      if (isa<arith::ShRSIOp>(op)) {
        if (auto qr = splitByConstant(a, int64_t(1) << c))
          return qr->first;
        return a / p;
      }
      return arith2([&](z3::expr x, z3::expr) { return x * p; });
    }
    // A shift by an amount that is not a constant in range: 2^b over the
    // amounts in range, and, as in the executor, 0 past them, where the
    // shift is a fault (an overflow obligation in code).
    auto [inRange, p] = shiftAmount(op, b, w);
    if (isa<arith::ShRSIOp>(op))
      return z3::ite(inRange, a / p, z.int_val(0)); // floor division: an arithmetic shift
    return z3::ite(inRange, arith2([&](z3::expr x, z3::expr) { return x * p; }), z.int_val(0));
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    if (w == 1) {
      if (isa<arith::AndIOp>(op))
        return a && b;
      if (isa<arith::OrIOp>(op))
        return a || b;
      return a != b;
    }
    int64_t c;
    if (isa<arith::AndIOp>(op) && isConst(b, c) && c >= 0 && c < INT64_MAX && ((c + 1) & c) == 0) {
      if (auto qr = splitByConstant(a, c + 1))
        return qr->second;
      return z3::mod(a, z.int_val(c + 1));
    }
    if (isa<arith::XOrIOp>(op) && isConst(b, c) && c == -1)
      return -a - 1;
    // One bit c = 2^m (below the sign bit): bit m of the two's complement of
    // any a is floor(a / c) mod 2, so `a & c`, `a ^ c` (a's partner in a
    // butterfly, `t ^ j`) and `a | c` stay arithmetic (the writer of
    // `s[t ^ j]` is then found like that of `s[t + j]`).
    if (isConst(b, c) && c > 0 && uint64_t(c) < (uint64_t(1) << (w - 1)) && (c & (c - 1)) == 0) {
      z3::expr bit = z3::mod(a / z.int_val(c), z.int_val(2));
      if (auto qr = splitByConstant(a, c))
        bit = z3::mod(qr->first, z.int_val(2));
      z3::expr masked = z.int_val(c) * bit;
      if (isa<arith::AndIOp>(op))
        return masked;
      if (isa<arith::OrIOp>(op))
        return a + z.int_val(c) - masked;
      z3::expr r = a + z.int_val(c) - 2 * masked;
      xorBits.push_back({r, a, c});
      keepAlive.push_back(r);
      return r;
    }
    // The general case on bit-vectors of the operands' two's complement
    // (int2bv takes the value modulo 2^w), read back as a signed integer.
    z3::expr ba = z3::expr(z, Z3_mk_int2bv(z, w, a)), bb = z3::expr(z, Z3_mk_int2bv(z, w, b));
    z3::expr r = isa<arith::AndIOp>(op) ? (ba & bb) : isa<arith::OrIOp>(op) ? (ba | bb) : (ba ^ bb);
    return toSigned(z3::expr(z, Z3_mk_bv2int(z, r, false)), w);
  }
  if (isa<arith::MinSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    return z3::ite(a <= b, a, b);
  }
  if (isa<arith::MaxSIOp>(op)) {
    z3::expr b = get(op.getOperand(1));
    return z3::ite(a >= b, a, b);
  }
  unsupported(&op, "integer operation not modelled");
  return a;
}

std::pair<z3::expr, z3::expr> SymExec::shiftAmount(Operation &op, const z3::expr &amount,
                                                    unsigned w) {
  z3::expr inRange = amount >= 0 && amount < z.int_val((int64_t)w);
  if (!inSpec)
    addObligation(CheckId::Overflow, op.getLoc(),
                  "the shift amount is in 0.." + std::to_string(w - 1),
                  "shift amount out of range (not in 0.." + std::to_string(w - 1) + ")", inRange);
  z3::expr p = z.int_val(1);
  for (int64_t k = (int64_t)w - 1; k >= 1; --k) {
    z3::expr pk = k == 63 ? z.int_val("9223372036854775808") // 2^63, past int64_t
                          : z.int_val((int64_t)(uint64_t(1) << k));
    p = z3::ite(amount == z.int_val(k), pk, p);
  }
  return {inRange, p};
}

z3::expr SymExec::typeRange(const z3::expr &v, Type t) const {
  auto it = dyn_cast<IntegerType>(t);
  if (!it || it.getWidth() <= 1 || it.getWidth() > 64 || !v.is_int())
    return z.bool_val(true);
  unsigned w = it.getWidth();
  return v >= z.int_val(signedMin(w)) && v <= z.int_val(signedMax(w));
}

z3::func_decl SymExec::contentsFn(z3::func_decl fn, const MemInfo &mi) {
  // (Unsigned buffers only, whose reading depends on the sign of the
  // encoding: for signed ones the ranges slowed two i32 block scans past
  // their limits, 0.4 s -> unknown, and gave nothing a proof needed.)
  if (mi.isUnsigned && !typeRange(z.int_val(0), mi.elemType).is_true())
    contentsFns.emplace(Z3_get_func_decl_id(z, fn), mi.elemType);
  return fn;
}

std::vector<z3::expr> SymExec::contentsRanges(const std::vector<z3::expr> &asserts) const {
  std::vector<z3::expr> out;
  if (contentsFns.empty())
    return out;
  // (Not inside a quantifier: a read at a bound variable is no term of its
  // own; the ground instances taken of it are.)
  std::set<unsigned> seen;
  solver::forEachGroundApp(asserts, seen, [&](const z3::expr &e) {
    if (e.num_args() == 0)
      return;
    auto fn = contentsFns.find(Z3_get_func_decl_id(z, e.decl()));
    if (fn != contentsFns.end())
      out.push_back(typeRange(e, fn->second));
  });
  return out;
}

z3::expr SymExec::xorBit(const z3::expr &a, int64_t bit) const {
  z3::expr masked = z.int_val(bit) * z3::mod(a / z.int_val(bit), z.int_val(2));
  return a + z.int_val(bit) - 2 * masked;
}

z3::expr SymExec::floatConst(FloatAttr a) {
  APFloat v = a.getValue();
  if (mode == FloatMode::Real) {
    if (!v.isFinite()) {
      unsupported(nullptr, "non-finite constant in an approx clause");
      return z.real_val(0);
    }
    bool lost;
    APFloat d = v;
    d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    double x = d.convertToDouble();
    int exp = 0;
    double m = std::frexp(x, &exp); // x = m * 2^exp, 0.5 <= |m| < 1
    int64_t mant = (int64_t)std::ldexp(m, 53);
    exp -= 53;
    std::string num = std::to_string(mant), den = "1";
    APInt p(2048, 1);
    if (exp > 0)
      num = llvm::toString(APInt(2048, mant, true) * p.shl(exp), 10, true);
    else if (exp < 0)
      den = llvm::toString(p.shl(-exp), 10, false);
    return z.real_val((num + "/" + den).c_str());
  }
  Type t = a.getType();
  if (t.isF32())
    return z.fpa_val(v.convertToFloat());
  if (t.isF64())
    return z.fpa_val(v.convertToDouble());
  APInt bits = v.bitcastToAPInt();
  unsigned w = bits.getBitWidth();
  z3::sort s = floatSort(t);
  return z3::expr(z, Z3_mk_fpa_to_fp_bv(z, z.bv_val(bits.getZExtValue(), w), s));
}

z3::expr SymExec::mathFn(const std::string &name, Type t, std::vector<z3::expr> args) {
  std::string fname = name + (t.isF64() ? "_f64" : "_f32") + (mode == FloatMode::Real ? "_real" : "");
  trusted.insert(name + " (uninterpreted in proofs; libdevice in code)");
  z3::sort s = floatSort(t);
  z3::sort_vector sorts(z);
  z3::expr_vector av(z);
  for (auto &a : args) {
    sorts.push_back(s);
    av.push_back(a);
  }
  return z.function(fname.c_str(), sorts, s)(av);
}

/// 2^1024, past every finite float (f64 included).
static z3::expr pastEveryFloat(z3::context &z) {
  return z.real_val(llvm::toString(APInt(2048, 1).shl(1024), 10, false).c_str());
}

z3::expr SymExec::realSpecial(int sign) {
  z3::expr c = z.real_const(sign > 0 ? "real!posinf" : sign < 0 ? "real!neginf" : "real!nan");
  if (!realSpecialsMade) {
    realSpecialsMade = true;
    // Beyond every finite value (finiteReal): a comparison with one comes
    // out as with the infinity.
    z3::expr big = 2 * pastEveryFloat(z);
    z3::expr pos = z.real_const("real!posinf"), neg = z.real_const("real!neginf"),
             nan = z.real_const("real!nan");
    termFacts.push_back({pos, pos > big});
    termFacts.push_back({neg, neg < -big});
    termFacts.push_back({nan, nan > pos && pos > big});
  }
  return c;
}

z3::expr SymExec::finiteReal(const z3::expr &v) {
  // Below the infinities of realSpecial.
  z3::expr big = pastEveryFloat(z);
  return v >= -big && v <= big;
}

std::optional<z3::expr> SymExec::realIdentityPick(const z3::expr &a, const z3::expr &b,
                                                  bool isMin) {
  z3::expr identity = realSpecial(isMin ? 1 : -1);
  if (z3::eq(a, identity))
    return b;
  if (z3::eq(b, identity))
    return a;
  return std::nullopt;
}

z3::expr SymExec::mayBeSpecial(const z3::expr &t) {
  if (!t.is_app() || !t.is_real())
    return z.bool_val(false);
  Z3_decl_kind k = t.decl().decl_kind();
  if (k == Z3_OP_UNINTERPRETED && t.num_args() == 0) {
    std::string n = t.decl().name().str();
    return z.bool_val(n == "real!posinf" || n == "real!neginf" || n == "real!nan");
  }
  if (k == Z3_OP_ITE) {
    // (Not simplified: that would rewrite the terms the condition holds, and
    // the facts about them, keyed by term, would no longer apply.)
    z3::expr a = mayBeSpecial(t.arg(1)), b = mayBeSpecial(t.arg(2));
    if (a.is_false() && b.is_false())
      return a;
    return z3::ite(t.arg(0), a, b);
  }
  if (k == Z3_OP_UMINUS)
    return mayBeSpecial(t.arg(0));
  return z.bool_val(false);
}

void SymExec::checkFiniteOperands(Operation &op) {
  if (mode != FloatMode::Real || inSpec)
    return;
  for (Value v : op.getOperands()) {
    if (!isa<FloatType>(v.getType()))
      continue;
    z3::expr special = mayBeSpecial(get(v));
    if (special.is_false())
      continue;
    addObligation(CheckId::Postcondition, op.getLoc(),
                  "no infinity or NaN of a division by zero is an operand of this arithmetic "
                  "(the proof over the reals treats it as a number)",
                  "an infinity or NaN (a division by zero) may be an operand of this arithmetic: "
                  "the approx clauses' proof over the reals, where it is a number, does not "
                  "apply",
                  !special);
  }
}

z3::expr SymExec::floatOp(Operation &op) {
  bool real = mode == FloatMode::Real;
  z3::expr rne = z3::expr(z, Z3_mk_fpa_rne(z));
  auto bin = [&](auto fpFn, auto realFn) {
    z3::expr a = get(op.getOperand(0)), b = get(op.getOperand(1));
    if (real)
      return realFn(a, b);
    return z3::expr(z, fpFn(z, rne, a, b));
  };
  if (isa<arith::AddFOp>(op))
    return bin(Z3_mk_fpa_add, [](z3::expr a, z3::expr b) { return a + b; });
  if (isa<arith::SubFOp>(op))
    return bin(Z3_mk_fpa_sub, [](z3::expr a, z3::expr b) { return a - b; });
  if (isa<arith::MulFOp>(op))
    return bin(Z3_mk_fpa_mul, [](z3::expr a, z3::expr b) { return a * b; });
  if (isa<arith::DivFOp>(op)) {
    // x / c for a constant c whose inverse is exact (a power of two): the
    // exact quotient equals the exact product x * (1/c), so IEEE rounds both
    // to the same value (also for zeros, infinities and NaN). Modelled as the
    // product, so that `x / 2.0` and `x * 0.5` are one term and the
    // floating-point abstraction proves them equal at once.
    if (auto c = op.getOperand(1).getDefiningOp<arith::ConstantOp>())
      if (auto fa = dyn_cast<FloatAttr>(c.getValue())) {
        // Over the reals, x / 0 is any number: the infinity (or NaN) IEEE
        // computes is a distinguished real instead (realSpecial).
        if (real && fa.getValue().isZero()) {
          z3::expr a = get(op.getOperand(0));
          bool negZero = fa.getValue().isNegative();
          int64_t num = 0, den = 1;
          if (a.is_numeral() && Z3_get_numeral_rational_int64(z, a, &num, &den))
            return realSpecial(num == 0 ? 0 : (num > 0) != negZero ? 1 : -1);
          return z3::ite(a > 0, realSpecial(negZero ? -1 : 1),
                         z3::ite(a < 0, realSpecial(negZero ? 1 : -1), realSpecial(0)));
        }
        APFloat inv(0.0);
        if (fa.getValue().getExactInverse(&inv)) {
          z3::expr a = get(op.getOperand(0));
          z3::expr r = floatConst(FloatAttr::get(fa.getType(), inv));
          return real ? a * r : z3::expr(z, Z3_mk_fpa_mul(z, rne, a, r));
        }
      }
    return bin(Z3_mk_fpa_div, [](z3::expr a, z3::expr b) { return a / b; });
  }
  if (isa<arith::NegFOp>(op)) {
    z3::expr a = get(op.getOperand(0));
    return real ? -a : z3::expr(z, Z3_mk_fpa_neg(z, a));
  }
  if (isa<arith::MinNumFOp, arith::MaxNumFOp>(op)) {
    bool isMin = isa<arith::MinNumFOp>(op);
    z3::expr a = get(op.getOperand(0)), b = get(op.getOperand(1));
    if (real) {
      if (std::optional<z3::expr> other = realIdentityPick(a, b, isMin))
        return *other;
      return isMin ? z3::ite(a <= b, a, b) : z3::ite(a >= b, a, b);
    }
    z3::expr lt = z3::expr(z, Z3_mk_fpa_lt(z, a, b)), gt = z3::expr(z, Z3_mk_fpa_gt(z, a, b));
    z3::expr an = z3::expr(z, Z3_mk_fpa_is_nan(z, a)), bn = z3::expr(z, Z3_mk_fpa_is_nan(z, b));
    z3::expr zeros = z3::expr(z, Z3_mk_fpa_is_zero(z, a)) && z3::expr(z, Z3_mk_fpa_is_zero(z, b));
    z3::sort s = a.get_sort();
    // minNum(+0, -0) may return either zero: one of the operands, unspecified.
    z3::func_decl tie = z.function(isMin ? "fmin_picks_first_zero" : "fmax_picks_first_zero", s, s,
                                   z.bool_sort());
    z3::expr either = z3::ite(tie(a, b), a, b);
    z3::expr pick = isMin ? z3::ite(lt, a, z3::ite(gt, b, z3::ite(zeros, either, a)))
                          : z3::ite(gt, a, z3::ite(lt, b, z3::ite(zeros, either, a)));
    return z3::ite(an, b, z3::ite(bn, a, pick));
  }
  if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    z3::expr a = get(c.getLhs()), b = get(c.getRhs());
    using P = arith::CmpFPredicate;
    if (real) {
      switch (c.getPredicate()) {
      case P::OEQ: case P::UEQ: return a == b;
      case P::ONE: case P::UNE: return a != b;
      case P::OLT: case P::ULT: return a < b;
      case P::OLE: case P::ULE: return a <= b;
      case P::OGT: case P::UGT: return a > b;
      case P::OGE: case P::UGE: return a >= b;
      case P::UNO: return z.bool_val(false);
      case P::ORD: return z.bool_val(true);
      default: break;
      }
    } else {
      z3::expr nan = z3::expr(z, Z3_mk_fpa_is_nan(z, a)) || z3::expr(z, Z3_mk_fpa_is_nan(z, b));
      z3::expr eq = z3::expr(z, Z3_mk_fpa_eq(z, a, b));
      // A value compared with itself (`v != v`, C's isnan idiom) is a NaN
      // test: the same term as the spec's NaN cases (argmax/argmin, min/max
      // folds), so that a kernel written that way matches them as a term.
      if (z3::eq(a, b))
        eq = !z3::expr(z, Z3_mk_fpa_is_nan(z, a));
      switch (c.getPredicate()) {
      // A clause's `==` (marked by MLIRGen): NaN equals NaN. Any other
      // (an `fn` body inlined into a clause) is IEEE's.
      case P::OEQ: return inSpec && op.hasAttr("kuiper.nan_equal") ? (a == b || eq) : eq;
      case P::UEQ: return eq || nan;
      case P::ONE: return !eq && !nan;
      case P::UNE: return !eq;
      case P::OLT: return z3::expr(z, Z3_mk_fpa_lt(z, a, b));
      case P::OLE: return z3::expr(z, Z3_mk_fpa_leq(z, a, b));
      case P::OGT: return z3::expr(z, Z3_mk_fpa_gt(z, a, b));
      case P::OGE: return z3::expr(z, Z3_mk_fpa_geq(z, a, b));
      case P::ULT: return z3::expr(z, Z3_mk_fpa_lt(z, a, b)) || nan;
      case P::ULE: return z3::expr(z, Z3_mk_fpa_leq(z, a, b)) || nan;
      case P::UGT: return z3::expr(z, Z3_mk_fpa_gt(z, a, b)) || nan;
      case P::UGE: return z3::expr(z, Z3_mk_fpa_geq(z, a, b)) || nan;
      case P::UNO: return nan;
      case P::ORD: return !nan;
      default: break;
      }
    }
    unsupported(&op, "float comparison predicate not modelled");
    return z.bool_val(true);
  }
  unsupported(&op, "float operation not modelled");
  return z.bool_val(true);
}

z3::expr SymExec::toUnsigned(z3::expr v, unsigned w) {
  // The unsigned reading of a code value that toSigned(r, w) made of an
  // unsigned op's result r (in [0, 2^w): its operands are values of their
  // type) is r, on any lane's copy of it: a u32 warp maximum's five rounds
  // nested both conversions 31 times (28 s; now 1 s). Not in a clause, where
  // an integer may be past its type.
  if (!inSpec && v.is_app() && v.decl().decl_kind() == Z3_OP_ITE) {
    z3::expr cond = v.arg(0), wrapped = v.arg(1), r = v.arg(2);
    int64_t half = 0, full = 0;
    if (cond.is_app() && cond.decl().decl_kind() == Z3_OP_GE && z3::eq(cond.arg(0), r) &&
        wrapped.is_app() && wrapped.decl().decl_kind() == Z3_OP_SUB && wrapped.num_args() == 2 &&
        z3::eq(wrapped.arg(0), r) && w < 63 && cond.arg(1).is_numeral_i64(half) &&
        wrapped.arg(1).is_numeral_i64(full) && half == (int64_t(1) << (w - 1)) &&
        full == (int64_t(1) << w))
      return r;
  }
  if (w >= 64)
    return z3::ite(v < 0, v + z.int_val("18446744073709551616"), v);
  return z3::ite(v < 0, v + z.int_val((int64_t)(uint64_t(1) << w)), v);
}

z3::expr SymExec::toSigned(z3::expr v, unsigned w) {
  z3::expr half = w >= 64 ? z.int_val("9223372036854775808") : z.int_val((int64_t)(uint64_t(1) << (w - 1)));
  z3::expr full = w >= 64 ? z.int_val("18446744073709551616") : z.int_val((int64_t)(uint64_t(1) << w));
  return z3::ite(v >= half, v - full, v);
}

/// Executes one op of constants and integer arith ops; false if `op` is not one.
bool SymExec::execIntegerOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    Attribute a = c.getValue();
    if (auto ia = dyn_cast<IntegerAttr>(a)) {
      if (ia.getType().isInteger(1))
        set(c, z.bool_val(ia.getValue().getBoolValue()));
      else
        set(c, z.int_val((int64_t)ia.getValue().getSExtValue()));
    } else if (auto fa = dyn_cast<FloatAttr>(a)) {
      set(c, floatConst(fa));
    } else {
      unsupported(&op, "constant not modelled");
    }
    return true;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp, arith::RemSIOp,
          arith::ShLIOp, arith::ShRSIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp,
          arith::MinSIOp, arith::MaxSIOp>(op)) {
    set(op.getResult(0), intOp(op));
    return true;
  }
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp, arith::MinUIOp, arith::MaxUIOp>(op)) {
    unsigned w = op.getResult(0).getType().getIntOrFloatBitWidth();
    // An element loaded from memory is in its type's range (otherwise any
    // integer, and toUnsigned of 2^31 is no u32: a u32 max "failed" with a
    // result of 16 no run shows), as for unsigned comparisons below; only
    // loads: in a clause an integer may be past its type.
    for (Value operand : op.getOperands())
      if (isa_and_nonnull<LoadOp>(operand.getDefiningOp()))
        facts = facts && typeRange(get(operand), operand.getType());
    z3::expr a = toUnsigned(get(op.getOperand(0)), w), b = toUnsigned(get(op.getOperand(1)), w);
    if (isa<arith::DivUIOp, arith::RemUIOp>(op) && !inSpec)
      addObligation(CheckId::Overflow, loc, "the divisor is not zero", "division by zero", b != 0);
    int64_t c;
    if (isa<arith::ShRUIOp>(op)) {
      z3::expr amount = get(op.getOperand(1));
      if (isConst(amount.simplify(), c) && c >= 0 && c < (int64_t)w) {
        set(op.getResult(0), toSigned(a / z.int_val((int64_t)(uint64_t(1) << c)), w));
        return true;
      }
      auto [inRange, p] = shiftAmount(op, amount, w);
      set(op.getResult(0), z3::ite(inRange, toSigned(a / p, w), z.int_val(0)));
      return true;
    }
    z3::expr r = isa<arith::DivUIOp>(op) ? a / b
                 : isa<arith::RemUIOp>(op) ? z3::mod(a, b)
                 : isa<arith::MinUIOp>(op) ? z3::ite(a <= b, a, b)
                                            : z3::ite(a >= b, a, b);
    set(op.getResult(0), toSigned(r, w));
    return true;
  }
  if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    z3::expr a = get(c.getLhs()), b = get(c.getRhs());
    using P = arith::CmpIPredicate;
    bool isBool = c.getLhs().getType().isInteger(1);
    switch (c.getPredicate()) {
    case P::eq: set(c, a == b); return true;
    case P::ne: set(c, a != b); return true;
    case P::slt: set(c, a < b); return true;
    case P::sle: set(c, a <= b); return true;
    case P::sgt: set(c, a > b); return true;
    case P::sge: set(c, a >= b); return true;
    default:
      break;
    }
    if (isBool) {
      unsupported(&op, "ordered comparison of booleans is not modelled");
      return true;
    }
    unsigned w = c.getLhs().getType().getIntOrFloatBitWidth();
    // An element loaded from memory is in its type's range (said here, where
    // the unsigned reading depends on it: `x[i] | 2^31 >= x[i]` for a u32
    // element failed with x[i] = 5100273663). Not of every operand: in a
    // clause an integer may be past its type (integers there never wrap).
    for (Value operand : {c.getLhs(), c.getRhs()})
      if (isa_and_nonnull<LoadOp>(operand.getDefiningOp()))
        facts = facts && typeRange(get(operand), operand.getType());
    z3::expr ua = toUnsigned(a, w), ub = toUnsigned(b, w);
    switch (c.getPredicate()) {
    case P::ult: set(c, ua < ub); return true;
    case P::ule: set(c, ua <= ub); return true;
    case P::ugt: set(c, ua > ub); return true;
    case P::uge: set(c, ua >= ub); return true;
    default:
      unsupported(&op, "integer comparison not modelled");
      return true;
    }
  }
  if (auto s = dyn_cast<arith::SelectOp>(op)) {
    set(s, z3::ite(get(s.getCondition()), get(s.getTrueValue()), get(s.getFalseValue())));
    return true;
  }
  // A value of iN is in iN's (signed) range; said where it is widened, since
  // a loaded element is otherwise any integer: `(a[i] as i64) + 1` for an
  // i32 element cannot overflow i64 (the counterexample was a[i] = 2^63 - 1).
  auto inItsRange = [&](Value in) {
    unsigned w = in.getType().getIntOrFloatBitWidth();
    z3::expr v = get(in);
    facts = facts && v >= z.int_val(signedMin(w)) && v <= z.int_val(signedMax(w));
  };
  if (auto e = dyn_cast<arith::ExtSIOp>(op)) {
    inItsRange(e.getIn());
    set(e, get(e.getIn()));
    return true;
  }
  if (auto e = dyn_cast<arith::ExtUIOp>(op)) {
    if (!e.getIn().getType().isInteger(1)) {
      inItsRange(e.getIn());
      set(e, toUnsigned(get(e.getIn()), e.getIn().getType().getIntOrFloatBitWidth()));
      return true;
    }
    set(e, z3::ite(get(e.getIn()), z.int_val(1), z.int_val(0)));
    return true;
  }
  if (auto t = dyn_cast<arith::TruncIOp>(op)) {
    z3::expr v = get(t.getIn());
    checkOverflow(op, v, t.getType().getIntOrFloatBitWidth(), true);
    set(t, v);
    return true;
  }
  return false;
}

/// Executes one op of floating-point arith and math ops; false if `op` is not one.
bool SymExec::execFloatOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp, math::ExpOp,
          math::LogOp, math::TanhOp, math::ErfOp, math::RsqrtOp, math::SqrtOp, math::FloorOp,
          math::CeilOp>(op))
    checkFiniteOperands(op);
  if (isa<arith::FPToUIOp, arith::FPToSIOp>(op)) {
    // C's conversion: truncation toward zero; a value whose truncation does
    // not fit the type (or NaN, or an infinity) is a fault (`overflow`).
    bool isSigned = isa<arith::FPToSIOp>(op);
    unsigned w = op.getResult(0).getType().getIntOrFloatBitWidth();
    z3::expr x = get(op.getOperand(0));
    z3::expr lo = isSigned ? z.int_val(signedMin(w)) : z.int_val(0);
    z3::expr hi = isSigned ? z.int_val(signedMax(w))
                           : (w >= 64 ? z.int_val("18446744073709551615")
                                      : z.int_val((int64_t)((uint64_t(1) << w) - 1)));
    z3::expr truncated = z.int_val(0);
    z3::expr fits = z.bool_val(true);
    if (mode == FloatMode::Real) {
      auto toInt = [&](z3::expr e) { return z3::expr(z, Z3_mk_real2int(z, e)); };
      truncated = z3::ite(x >= 0, toInt(x), -toInt(-x));
      fits = truncated >= lo && truncated <= hi;
    } else {
      // bf16 is widened to f32 first (exactly): Z3 4.8 fails on roundToIntegral
      // of an 8-bit significand ("invalid zero_extend application").
      if (Z3_fpa_get_sbits(z, x.get_sort()) < 11)
        x = z3::expr(z, Z3_mk_fpa_to_fp_float(z, Z3_mk_fpa_rne(z), x, z.fpa_sort<32>()));
      z3::expr r = z3::expr(z, Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_rtz(z), x));
      // The value through the bit-vector conversion (exact where it fits,
      // which is where it is used): Z3 decides fp.to_real feeding integer
      // arithmetic only incompletely (`(x * 16.0) as i32 < 16` was unknown).
      z3::expr bits(z, isSigned ? Z3_mk_fpa_to_sbv(z, Z3_mk_fpa_rtz(z), x, w)
                                : Z3_mk_fpa_to_ubv(z, Z3_mk_fpa_rtz(z), x, w));
      truncated = z3::expr(z, Z3_mk_bv2int(z, bits, false));
      if (isSigned)
        truncated = toSigned(truncated, w);
      // The range test among floats, for the same reason: the truncation r is integral, so
      // lo <= r <= hi is L <= r < U with L = lo and U = hi + 1, both powers of
      // two (or 0), exact in the format or beyond its finite range, where the
      // infinity of that sign compares the same way with every finite r.
      z3::sort fs = x.get_sort();
      unsigned ebits = Z3_fpa_get_ebits(z, fs);
      auto powerOfTwo = [&](unsigned k, bool negative) {
        if (ebits < 32 && k >= (1u << (ebits - 1)))
          return z3::expr(z, Z3_mk_fpa_inf(z, fs, negative));
        return z3::expr(z, Z3_mk_fpa_numeral_double(z, negative ? -std::ldexp(1.0, k) : std::ldexp(1.0, k), fs));
      };
      z3::expr lower = isSigned ? powerOfTwo(w - 1, true) : z3::expr(z, Z3_mk_fpa_zero(z, fs, false));
      z3::expr upper = powerOfTwo(isSigned ? w - 1 : w, false);
      fits = !z3::expr(z, Z3_mk_fpa_is_nan(z, x)) && !z3::expr(z, Z3_mk_fpa_is_infinite(z, x)) &&
             z3::expr(z, Z3_mk_fpa_geq(z, r, lower)) && z3::expr(z, Z3_mk_fpa_lt(z, r, upper));
    }
    if (!inSpec)
      addObligation(CheckId::Overflow, loc, "the float value converted to an integer fits its type",
                    "the float value converted to an integer is NaN, infinite or out of range", fits);
    // Where it does not fit the conversion is a fault (the obligation above);
    // in floats the value is then the bit-vector conversion's unspecified
    // one, the same term in the code and in a contract that names it (a
    // fresh value for each would make `y[i] == lut[(x[i] * 16.0) as i32]`
    // depend on proving `fits` again inside the postcondition: seconds).
    z3::expr v = mode == FloatMode::Real ? z3::ite(fits, truncated, havoc("bad_conversion", z.int_sort()))
                                         : truncated;
    // The result is in its type's range (told to the integer side directly).
    facts = facts && v >= lo && v <= hi;
    set(op.getResult(0), isSigned ? v : toSigned(v, w));
    return true;
  }
  if (auto c = dyn_cast<arith::SIToFPOp>(op)) {
    z3::expr v = get(c.getIn());
    if (mode == FloatMode::Real)
      set(c, z3::to_real(v));
    else
      set(c, z3::expr(z, Z3_mk_fpa_to_fp_real(z, Z3_mk_fpa_rne(z), z3::to_real(v), floatSort(c.getType()))));
    return true;
  }
  if (auto c = dyn_cast<arith::UIToFPOp>(op); c && !c.getIn().getType().isInteger(1)) {
    z3::expr v = toUnsigned(get(c.getIn()), c.getIn().getType().getIntOrFloatBitWidth());
    if (mode == FloatMode::Real)
      set(c, z3::to_real(v));
    else
      set(c, z3::expr(z, Z3_mk_fpa_to_fp_real(z, Z3_mk_fpa_rne(z), z3::to_real(v), floatSort(c.getType()))));
    return true;
  }
  if (auto c = dyn_cast<arith::UIToFPOp>(op)) { // from i1
    z3::expr v = get(c.getIn());
    FloatAttr one = FloatAttr::get(c.getType(), 1.0), zero = FloatAttr::get(c.getType(), 0.0);
    set(c, z3::ite(v, floatConst(one), floatConst(zero)));
    return true;
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    z3::expr v = get(op.getOperand(0));
    if (mode == FloatMode::Real)
      set(op.getResult(0), v);
    else
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_to_fp_float(z, Z3_mk_fpa_rne(z), v,
                                                              floatSort(op.getResult(0).getType()))));
    return true;
  }
  if (isa<arith::MinimumFOp, arith::MaximumFOp>(op)) {
    z3::expr a = get(op.getOperand(0)), b = get(op.getOperand(1));
    set(op.getResult(0), butterflyStep(a, b, fextremum(a, b, isa<arith::MinimumFOp>(op))));
    return true;
  }
  if (isa<arith::AddFOp, arith::MulFOp>(op)) {
    set(op.getResult(0), butterflyStep(get(op.getOperand(0)), get(op.getOperand(1)), floatOp(op)));
    return true;
  }
  if (isa<arith::SubFOp, arith::DivFOp, arith::NegFOp, arith::MinNumFOp, arith::MaxNumFOp,
          arith::CmpFOp>(op)) {
    set(op.getResult(0), floatOp(op));
    return true;
  }
  if (isa<arith::RemFOp>(op)) {
    // C's fmod (truncating), which no SMT theory has: uninterpreted, as the
    // math functions are.
    set(op.getResult(0), mathFn("fmod", op.getResult(0).getType(),
                                {get(op.getOperand(0)), get(op.getOperand(1))}));
    return true;
  }
  if (isa<math::ExpOp, math::LogOp, math::TanhOp, math::ErfOp, math::RsqrtOp>(op)) {
    std::string n = op.getName().getStringRef().drop_front(5).str();
    set(op.getResult(0), mathFn(n, op.getResult(0).getType(), {get(op.getOperand(0))}));
    return true;
  }
  if (isa<math::SqrtOp, math::AbsFOp, math::FloorOp, math::CeilOp>(op)) {
    z3::expr a = get(op.getOperand(0));
    if (mode == FloatMode::Real) {
      if (isa<math::AbsFOp>(op))
        set(op.getResult(0), z3::ite(a >= 0, a, -a));
      else
        set(op.getResult(0), mathFn(op.getName().getStringRef().drop_front(5).str(),
                                    op.getResult(0).getType(), {a}));
      return true;
    }
    if (isa<math::SqrtOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_sqrt(z, Z3_mk_fpa_rne(z), a)));
    else if (isa<math::AbsFOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_abs(z, a)));
    else if (isa<math::FloorOp>(op))
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_rtn(z), a)));
    else
      set(op.getResult(0), z3::expr(z, Z3_mk_fpa_round_to_integral(z, Z3_mk_fpa_rtp(z), a)));
    return true;
  }
  return false;
}
