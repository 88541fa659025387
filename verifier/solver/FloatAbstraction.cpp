//===- FloatAbstraction.cpp - Floating point as uninterpreted functions ---===//
#include "verifier/solver/Solver.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>

/// Replaces floating-point operations and predicates by uninterpreted
/// functions of the same sorts (rounding modes dropped), inside quantifier
/// and lambda bodies too; with `commute`, the operands of fp.add, fp.mul and
/// fp.eq in one order (`reordered` tells whether any were swapped). Returns
/// nothing when the formula has no float operations, or when `stop` said
/// so; `quantified` tells whether it had quantifiers.
std::optional<z3::expr_vector> kuiper::solver::abstractFloats(z3::context &c,
                                                             const z3::expr_vector &in,
                                                             const std::function<bool()> &stop,
                                                             bool *stopped,
                                                             bool *quantified, bool commute,
                                                             bool *reordered) {
  size_t visits = 0;
  bool halted = false;
  std::map<unsigned, z3::expr> memo;
  std::map<std::vector<unsigned>, z3::func_decl> functions;
  bool any = false, quant = false, swaps = false;
  // The shape of a term to depth 8, integer subterms left out, as a hash:
  // memoized per (term, depth), so that its cost is linear in the DAG. (A
  // key string per term grew with the term's unfolding: an unrolled argmax
  // whose accumulator is in each step's condition and both branches took
  // 8 GB and minutes here, out of reach of the solver's limits.)
  std::unordered_map<uint64_t, uint64_t> shapes; // (AST id, depth) -> hash
  std::unordered_map<uint64_t, uint64_t> names;  // function or leaf -> its name's hash
  auto mix = [](uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  };
  auto textHash = [](const std::string &text) {
    uint64_t h = 1469598103934665603ULL; // FNV-1a: the same from run to run
    for (unsigned char ch : text)
      h = (h ^ ch) * 1099511628211ULL;
    return h;
  };
  std::function<uint64_t(const z3::expr &, int)> shapeKey = [&](const z3::expr &e,
                                                               int depth) -> uint64_t {
    uint64_t key = uint64_t(Z3_get_ast_id(c, e)) << 4 | uint64_t(std::min(depth, 9));
    auto it = shapes.find(key);
    if (it != shapes.end())
      return it->second;
    Z3_sort_kind kind = Z3_get_sort_kind(c, Z3_get_sort(c, e));
    uint64_t h = kind == Z3_INT_SORT || kind == Z3_REAL_SORT ? 1
                 : depth > 8 || !e.is_app()                  ? 2
                                                             : 0;
    if (h) {
      shapes.emplace(key, h);
      return h;
    }
    // The name's hash, once per function (per constant for leaves).
    uint64_t nameKey = e.num_args() == 0 ? uint64_t(Z3_get_ast_id(c, e)) << 1
                                         : uint64_t(Z3_get_func_decl_id(c, e.decl())) << 1 | 1;
    auto nit = names.find(nameKey);
    if (nit == names.end())
      nit = names.emplace(nameKey, textHash(e.num_args() == 0 ? e.to_string()
                                                              : e.decl().name().str())).first;
    h = nit->second;
    for (unsigned i = 0; i < e.num_args(); ++i)
      h = mix(h, shapeKey(e.arg(i), depth + 1));
    shapes.emplace(key, h);
    return h;
  };
  std::function<z3::expr(const z3::expr &)> go = [&](const z3::expr &e) -> z3::expr {
    if (!e.is_quantifier() && (!e.is_app() || e.num_args() == 0))
      return e; // bound variables and constants stay
    unsigned id = Z3_get_ast_id(c, e);
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    if (e.is_quantifier()) {
      // A forall over the input data (`requires forall r: 0 <= tg[r] < nc`)
      // or a lambda (a row as an array) is abstracted in its body: its bound
      // variables are de Bruijn indices, left as they are, so the body's
      // float terms are those of the free formula, by congruence. (Without
      // it, a query with one quantifier bit-blasted every float operation of
      // the code: a cross-entropy postcondition 6 s instead of 0.1.)
      quant = true;
      z3::expr body = go(e.body());
      Z3_ast arg = body;
      z3::expr r(c, Z3_update_term(c, e, 1, &arg));
      memo.emplace(id, r);
      return r;
    }
    if (halted || (stop && ++visits % 4096 == 0 && stop())) {
      halted = true;
      return e;
    }
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
      // fp.add, fp.mul and fp.eq are commutative (IEEE, and SMT-LIB's one
      // NaN): their abstractions take the operands in one order, so that
      // `b[i] * a[i]` in code and `a[j] * b[j]` in a clause (i == j) are one
      // term by congruence. The order compares shapes with the integer
      // subterms (indices, which may be equal without being the same term)
      // left out, then AST ids.
      auto before = [&](const z3::expr &x, const z3::expr &y) {
        uint64_t kx = shapeKey(x, 0), ky = shapeKey(y, 0);
        return kx != ky ? kx < ky : Z3_get_ast_id(c, x) < Z3_get_ast_id(c, y);
      };
      if (commute && (k == Z3_OP_FPA_ADD || k == Z3_OP_FPA_MUL || k == Z3_OP_FPA_EQ) &&
          kept.size() == 2 && before(kept[1], kept[0])) {
        swaps = true;
        z3::expr_vector swapped(c);
        swapped.push_back(kept[1]);
        swapped.push_back(kept[0]);
        kept = swapped;
      }
      // One function per operation and sorts, its name built once (the
      // name printed each time cost more than the rest of the abstraction).
      std::vector<unsigned> signature = {unsigned(k), Z3_get_sort_id(c, e.get_sort())};
      for (unsigned i = 0; i < sorts.size(); ++i)
        signature.push_back(Z3_get_sort_id(c, sorts[i]));
      auto fit = functions.find(signature);
      if (fit == functions.end()) {
        std::string name = "fp_abs_" + std::to_string((int)k);
        for (unsigned i = 0; i < sorts.size(); ++i)
          name += "_" + sorts[i].to_string();
        name += "_" + e.get_sort().to_string();
        for (char &ch : name)
          if (ch == ' ' || ch == '(' || ch == ')')
            ch = '_';
        fit = functions.emplace(signature, c.function(name.c_str(), sorts, e.get_sort())).first;
      }
      r = fit->second(kept);
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
  if (stopped)
    *stopped = halted;
  if (quantified)
    *quantified = quant;
  if (reordered)
    *reordered = swaps;
  if (!any || halted)
    return std::nullopt;
  return out;
}

