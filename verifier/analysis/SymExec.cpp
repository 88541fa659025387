//===- SymExec.cpp - Symbolic execution of one thread -----------------------===//
#include "verifier/analysis/SymExec.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/ScopeExit.h"
#include <functional>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

SrcLoc kuiper::verifier::srcLoc(Location loc) {
  SrcLoc s;
  if (auto f = dyn_cast<FileLineColLoc>(loc)) {
    s.file = f.getFilename().str();
    s.line = f.getLine();
    s.col = f.getColumn();
  } else if (auto n = dyn_cast<NameLoc>(loc)) {
    return srcLoc(n.getChildLoc());
  } else if (auto fu = dyn_cast<FusedLoc>(loc)) {
    for (Location l : fu.getLocations()) {
      SrcLoc r = srcLoc(l);
      if (r.line)
        return r;
    }
  }
  return s;
}

SymExec::SymExec(z3::context &z, KernelOp kernel, FloatMode mode)
    : z(z), kernel(kernel), mode(mode), pc(z.bool_val(true)),
      facts(z.bool_val(true)), dynInterval(z.int_val(0)),
      warpPhase(z.int_val(0)) {
  auto blk = kernel.getBlock();
  for (int i = 0; i < 3; ++i)
    block[i] = blk[i];
  // With blockDim.x a multiple of 32, threadIdx.x is split into (warp column,
  // lane): laneid and warpid are then linear in the thread variables, which is
  // what lets the verifier name the writer of `y[warpid]`.
  // Only for kernels that use warp-level ids: the split makes other index
  // maps (grid-stride, several elements per thread) harder for the solver.
  // A warp index or lane computed by hand (`threadIdx.x / 32`, `% 32`, `>> 5`,
  // `& 31` of an expression of threadIdx.x) counts as warp-level too: with
  // the split, splitByConstant makes them the thread variables themselves.
  auto ofThreadIdX = [](Value v) {
    SmallVector<Value> todo{v};
    for (unsigned n = 0; !todo.empty() && n < 64; ++n) {
      Operation *d = todo.pop_back_val().getDefiningOp();
      if (!d)
        continue;
      if (auto t = dyn_cast<ThreadIdOp>(d); t && t.getDim() == 0)
        return true;
      if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ExtSIOp, arith::ExtUIOp>(d))
        todo.append(d->operand_begin(), d->operand_end());
    }
    return false;
  };
  // The constant c a thread-id expression is divided by (`/ c`, `% c`,
  // `>> k`, `& (c - 1)`), or 0.
  auto divisorOf = [&](Operation *op) -> int64_t {
    APInt c;
    if (op->getNumOperands() != 2 || !matchPattern(op->getOperand(1), m_ConstantInt(&c)) ||
        !ofThreadIdX(op->getOperand(0)) || c.getActiveBits() > 62)
      return 0;
    int64_t v = c.getSExtValue();
    if (isa<arith::DivSIOp, arith::RemSIOp>(op))
      return v;
    if (isa<arith::ShRSIOp>(op))
      return v >= 0 && v < 62 ? int64_t(1) << v : 0;
    if (isa<arith::AndIOp>(op) && v > 0 && ((v + 1) & v) == 0)
      return v + 1;
    return 0;
  };
  bool warpLevel = false;
  kernel.walk([&](Operation *op) {
    if (isa<LaneIdOp, WarpIdOp, ShuffleOp, VoteOp, SyncWarpOp>(op) || divisorOf(op) == 32)
      warpLevel = true;
  });
  // The divisions of threadIdx.x that a write's index is computed from (only
  // those: splitting threadIdx.x changes the terms the solver sees, and a
  // postcondition that repeats `i & 7` on its own index is then harder).
  std::set<int64_t> divisors;
  kernel.walk([&](Operation *op) {
    if (!isa<StoreOp, AtomicOp>(op))
      return;
    SmallVector<Value> todo(isa<StoreOp>(op) ? cast<StoreOp>(op).getIndices()
                                             : cast<AtomicOp>(op).getIndices());
    for (unsigned n = 0; !todo.empty() && n < 256; ++n) {
      Operation *d = todo.pop_back_val().getDefiningOp();
      if (!d)
        continue;
      int64_t c = divisorOf(d);
      if (c > 1 && c < block[0] && block[0] % c == 0)
        divisors.insert(c);
      if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::ExtSIOp, arith::ExtUIOp,
              arith::DivSIOp, arith::RemSIOp, arith::ShRSIOp, arith::ShLIOp, arith::AndIOp>(d))
        todo.append(d->operand_begin(), d->operand_end());
    }
  });
  useLanes = block[0] % 32 == 0 && warpLevel;
  rowsPerWarp = warpLevel && block[0] < 32 && 32 % block[0] == 0 &&
                block[0] * block[1] * block[2] % 32 == 0 && block[0] * block[1] * block[2] <= 512;
  kernel.walk([&](memref::AllocaOp a) {
    if (a->hasAttr("kuiper.thread_running"))
      runningFlag = key(a.getResult());
  });
  // Without warp-level ids, one constant c that threadIdx.x is divided by
  // (`t / 2` for pairs of threads, `t % 4`) splits it the same way,
  // threadIdx.x = c * hi + lo: the writer of `y[t / 2]` under `t % 2 == 0`
  // is then named.
  split = useLanes ? 32 : !warpLevel && divisors.size() == 1 ? *divisors.begin() : 1;
  const char *names[] = {"lane", "threadIdx.y", "threadIdx.z",
                         "blockIdx.x", "blockIdx.y", "blockIdx.z", "warpcol"};
  if (!useLanes) {
    names[0] = split > 1 ? "threadIdx.x.lo" : "threadIdx.x";
    if (split > 1)
      names[6] = "threadIdx.x.hi";
  }
  for (const char *n : names)
    threadVars.push_back(z.int_const(n));
}

const void *SymExec::key(Value v) {
  auto [it, added] = keyOfValue.try_emplace(
      v.getAsOpaquePointer(), reinterpret_cast<const void *>(uintptr_t(keyedValues.size() + 1)));
  if (added)
    keyedValues.push_back(v);
  return it->second;
}

Value SymExec::valueOf(const void *k) const {
  return keyedValues.at(reinterpret_cast<uintptr_t>(k) - 1);
}

z3::sort SymExec::floatSort(Type t) {
  if (mode == FloatMode::Real)
    return z.real_sort();
  if (t.isF64())
    return z.fpa_sort<64>();
  if (t.isF16())
    return z.fpa_sort<16>();
  if (t.isBF16())
    return z.fpa_sort(8, 8);
  return z.fpa_sort<32>();
}

z3::sort SymExec::sortOf(Type t) {
  if (t.isInteger(1))
    return z.bool_sort();
  if (isa<IntegerType>(t))
    return z.int_sort();
  return floatSort(t);
}

z3::expr SymExec::fresh(const std::string &name, z3::sort s) {
  return z.constant((name + "!" + std::to_string(freshIds++)).c_str(), s);
}

/// An arbitrary value that may differ per thread and per loop iteration.
z3::expr SymExec::havoc(const std::string &name, z3::sort s) {
  z3::expr_vector args(z);
  z3::sort_vector sorts(z);
  for (auto &t : threadVars) {
    args.push_back(t);
    sorts.push_back(z.int_sort());
  }
  for (unsigned k : iterScope) {
    args.push_back(iterVars[k]);
    sorts.push_back(z.int_sort());
  }
  z3::func_decl f = z.function((name + "!" + std::to_string(freshIds++)).c_str(), sorts, s);
  return f(args);
}

bool SymExec::pastDeadline(Operation *op) {
  if (!deadline || std::chrono::steady_clock::now() <= *deadline)
    return false;
  // After a barrier without a contract a read is a choice among every
  // write before it, whose values are earlier reads: through many phases
  // (a bitonic sort's 36) the terms double with each. Say what bounds them.
  bool plainBarriers = false;
  kernel.walk([&](BarrierOp b) { plainBarriers |= b.getContract().empty(); });
  unsupported(op, std::string("the budget (--budget) ran out during the symbolic execution, "
                              "before any obligation was solved") +
                      (plainBarriers ? " (after a barrier without a contract every value written "
                                       "before it is carried on; `barrier ensures P;` keeps only "
                                       "P, `barrier ensures true;` nothing: see docs/language.md)"
                                     : ""));
  return true;
}

void SymExec::unsupportedAt(const SrcLoc &at, const std::string &why) {
  if (!unsupportedReason.empty())
    return;
  unsupportedReason = why;
  unsupportedLoc = at;
}

void SymExec::unsupported(Operation *op, const std::string &why) {
  if (!unsupportedReason.empty())
    return;
  std::string name = op ? op->getName().getStringRef().str() : "";
  unsupportedReason = why + (name.empty() ? "" : " ('" + name + "')");
  if (op)
    unsupportedLoc = srcLoc(op->getLoc());
}

void SymExec::addObligation(CheckId id, Location loc, const std::string &msg,
                            const std::string &failMsg, z3::expr goal,
                            std::vector<z3::expr> extra, std::vector<Observable> obs) {
  Obligation o;
  o.id = id;
  o.loc = srcLoc(loc);
  o.message = msg;
  o.failMessage = failMsg;
  o.assumptions.push_back(pc);
  o.assumptions.push_back(facts);
  for (auto &e : extra)
    o.assumptions.push_back(e);
  o.goal = goal;
  o.observables = std::move(obs);
  o.visibleFacts = orderedFacts.size();
  o.sideCondition = id == CheckId::Alignment || (currentOp && currentOp->hasAttr(kRewriteAttr));
  obligations.push_back(std::move(o));
}

std::vector<z3::expr> SymExec::scopeAssumptions(const Obligation &o) const {
  Obligation::Scope scope = o.scope;
  std::vector<z3::expr> all;
  for (size_t i = 0; i < orderedFacts.size(); ++i) {
    const auto &[kind, fact] = orderedFacts[i];
    if (kind == FactKind::Contract && i >= o.visibleFacts)
      continue; // a barrier contract the program has not reached yet
    if (!factDescribes[i].empty())
      continue; // taken by relevantFacts() where the goal needs it
    bool wanted = kind == FactKind::Always ||
                  ((kind == FactKind::Shape || kind == FactKind::Contract) &&
                   scope != Obligation::Scope::Launch) ||
                  (kind == FactKind::ThreadExists && scope == Obligation::Scope::Thread);
    if (wanted)
      all.push_back(fact);
  }
  if (scope == Obligation::Scope::EmptyLaunch) {
    z3::expr someThread = z.bool_val(true);
    for (const z3::expr &g : grid)
      someThread = someThread && g >= 1;
    all.push_back(!someThread);
  }
  return all;
}

/// A kernel-level fact must hold for every launch: proven once where some
/// thread runs (the symbolic thread then stands for one of them) and once
/// for a launch that runs no thread (the grid has a zero dimension).
void SymExec::splitKernelObligations() {
  size_t count = obligations.size();
  std::map<size_t, size_t> emptyCopy; // index of each split obligation's copy
  for (size_t i = 0; i < count; ++i) {
    if (obligations[i].scope != Obligation::Scope::Kernel)
      continue;
    obligations[i].scope = Obligation::Scope::Thread;
    Obligation empty = obligations[i];
    empty.scope = Obligation::Scope::EmptyLaunch;
    empty.message += " (also when the launch runs no thread)";
    empty.failMessage += " (the launch runs no thread)";
    emptyCopy[i] = obligations.size();
    obligations.push_back(empty);
  }
  // A copy is implied by the copy of the obligation that implied the
  // original (the same scope's assumptions), or by none.
  for (auto [original, copy] : emptyCopy) {
    std::optional<size_t> &by = obligations[copy].impliedBy;
    if (by)
      by = emptyCopy.count(*by) ? std::optional<size_t>(emptyCopy[*by]) : std::nullopt;
    std::optional<size_t> &byOriginal = obligations[original].impliedBy;
    if (byOriginal && !emptyCopy.count(*byOriginal))
      byOriginal.reset(); // (scopes differ: not the same assumptions)
  }
}

z3::expr SymExec::get(Value v) {
  auto it = env.find(key(v));
  if (it != env.end())
    return it->second;
  unsupported(v.getDefiningOp(), "value not modelled");
  return fresh("unmodelled", sortOf(v.getType()));
}

void SymExec::set(Value v, z3::expr e) {
  env.erase(key(v));
  env.emplace(key(v), e);
}

void SymExec::run() {
  Block &body = kernel.getBody().front();
  for (BlockArgument a : body.getArguments()) {
    std::string name = cast<StringAttr>(kernel.getArgNames()[a.getArgNumber()]).str();
    Type t = a.getType();
    if (auto bt = dyn_cast<BufferType>(t)) {
      MemInfo mi;
      mi.name = name;
      mi.access = bt.getAccess();
      mi.elemType = bt.getElementType();
      mi.isUnsigned = kernel.isUnsignedArg(a.getArgNumber());
      mems.emplace(key(a), mi);
      auto node = std::make_shared<MemNode>();
      node->kind = MemNode::Base;
      node->id = nodeIds++;
      z3::sort_vector sorts(z);
      for (unsigned i = 0; i < bt.getRank(); ++i)
        sorts.push_back(z.int_sort());
      node->fn = contentsFn(z.function(name.c_str(), sorts, sortOf(bt.getElementType())), mi);
      state[key(a)] = node;
      continue;
    }
    z3::expr c = z.constant(name.c_str(), sortOf(t));
    set(a, c);
    params.push_back({name, c,
                      kernel.isUnsignedArg(a.getArgNumber()) ? t.getIntOrFloatBitWidth() : 0});
    if (auto it = dyn_cast<IntegerType>(t); it && it.getWidth() > 1) {
      unsigned w = it.getWidth();
      assumeFact(FactKind::Always,
                 c >= z.int_val(signedMin(w)) && c <= z.int_val(signedMax(w)));
    }
    if (c.is_real())
      termFacts.push_back({c, finiteReal(c)});
  }
  entryState = state;
  intervalStart = state;
  execBlock(body);
  if (sideConditionsOnly) {
    // What the rewrite's own ops and claims need; the rest follows from the
    // proof of the kernel it refines.
    std::vector<Obligation> kept;
    for (Obligation &o : obligations)
      if (o.sideCondition || o.lemma || !o.unsupported.empty())
        kept.push_back(std::move(o));
    obligations = std::move(kept);
    splitKernelObligations();
    return;
  }
  if (unsupportedReason.empty())
    finalChecks();
  splitKernelObligations();
  Obligation launchable;
  launchable.id = CheckId::Precondition;
  launchable.loc = srcLoc(kernel.getLoc());
  launchable.message = "some launch satisfies the requires clauses";
  launchable.failMessage = "no launch satisfies the requires clauses: every proof is vacuous";
  launchable.goal = z.bool_val(false);
  launchable.scope = Obligation::Scope::Launch;
  launchable.vacuityProbe = true;
  launchable.vacuityIsError = true;
  obligations.push_back(launchable);
  // Requires clauses that only an empty launch meets (a condition on the
  // inputs that holds only for empty buffers) prove as little: a warning.
  // (No grid when the budget stopped the execution before the launch.)
  if (grid.size() == 3) {
    Obligation running = launchable;
    running.message = "some launch the requires clauses allow runs a thread";
    running.failMessage = "every launch the requires clauses allow runs no thread (an empty "
                          "grid): every proof is vacuous";
    running.vacuityIsError = false;
    running.assumptions = {grid[0] >= 1 && grid[1] >= 1 && grid[2] >= 1};
    obligations.push_back(running);
  }
}

void SymExec::execBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return;
    execOp(op);
    if (!unsupportedReason.empty())
      return;
  }
}

z3::expr SymExec::evalRegion(Region &r, const std::vector<z3::expr> &args) {
  Block &b = r.front();
  for (unsigned i = 0; i < args.size(); ++i)
    set(b.getArgument(i), args[i]);
  bool saved = inSpec;
  inSpec = true;
  execBlock(b);
  inSpec = saved;
  auto y = cast<YieldOp>(b.getTerminator());
  if (y.getValues().empty())
    return z.bool_val(true);
  return get(y.getValues()[0]);
}

z3::expr SymExec::evalYielded(Value v, std::vector<z3::expr> &extra,
                              std::vector<Observable> &obs) {
  if (auto fa = v.getDefiningOp<ForallOp>()) {
    std::string name = "i";
    if (auto a = fa->getAttrOfType<StringAttr>("binder"))
      name = a.str();
    z3::expr c = fresh(name, z.int_sort());
    z3::expr range = c >= get(fa.getLo()) && c < get(fa.getHi());
    extra.push_back(range);
    obs.push_back({name, c});
    // Obligations raised inside the clause (fn preconditions) hold only in range.
    z3::expr savedPc = pc;
    pc = pc && range;
    size_t bounded = boundedVars.size();
    int64_t lo, hi;
    if (isConst(get(fa.getLo()).simplify(), lo) && isConst(get(fa.getHi()).simplify(), hi)) {
      boundedVars.push_back({c, lo, hi});
      goalBounds.push_back({c, lo, hi});
    }
    llvm::scope_exit restore([&] {
      pc = savedPc;
      boundedVars.resize(bounded, {c, 0, 0});
    });
    Block &b = fa.getBody().front();
    set(b.getArgument(0), c);
    bool saved = inSpec;
    inSpec = true;
    for (Operation &op : b) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        break;
      auto y = cast<YieldOp>(b.getTerminator());
      if (op.getNumResults() == 1 && op.getResult(0) == y.getValues()[0] && isa<ForallOp>(op))
        continue;
      execOp(op);
    }
    inSpec = saved;
    return evalYielded(cast<YieldOp>(b.getTerminator()).getValues()[0], extra, obs);
  }
  return get(v);
}

z3::expr SymExec::evalGoal(Region &r, std::vector<z3::expr> &extra, std::vector<Observable> &obs) {
  Block &b = r.front();
  auto y = cast<YieldOp>(b.getTerminator());
  Value v = y.getValues()[0];
  goalBounds.clear();
  bool saved = inSpec;
  inSpec = true;
  for (Operation &op : b) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      break;
    if (isa<ForallOp>(op) && op.getResult(0) == v)
      continue;
    execOp(op);
  }
  inSpec = saved;
  return evalYielded(v, extra, obs);
}

/// The facts about terms (`termFacts`) that an obligation over `roots` needs:
/// those whose term occurs in the roots or, transitively, in facts already
/// taken. Leaving the others out is sound (fewer assumptions) and keeps
/// queries small.
std::vector<z3::expr> SymExec::relevantFacts(const std::vector<z3::expr> &roots,
                                             const Obligation &o) const {
  std::set<unsigned> seen, seenDecls;
  auto walk = [&](const z3::expr &root) { collectTerms(root, seen, seenDecls); };
  for (auto &r : roots)
    walk(r);
  std::vector<z3::expr> out;
  std::vector<bool> taken(termFacts.size(), false);
  // The describing facts this obligation may assume (scopeAssumptions()
  // left them out), taken in their order once a function they describe
  // occurs.
  std::vector<size_t> describing;
  if (o.scope != Obligation::Scope::Launch)
    for (size_t i = 0; i < orderedFacts.size() && i < o.visibleFacts; ++i)
      if (!factDescribes[i].empty())
        describing.push_back(i);
  std::vector<bool> describingTaken(describing.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < describing.size(); ++k) {
      if (describingTaken[k])
        continue;
      const std::vector<unsigned> &fns = factDescribes[describing[k]];
      if (std::none_of(fns.begin(), fns.end(), [&](unsigned d) { return seenDecls.count(d); }))
        continue;
      describingTaken[k] = true;
      changed = true;
      out.push_back(orderedFacts[describing[k]].second);
      walk(orderedFacts[describing[k]].second);
    }
    for (size_t i = 0; i < termFacts.size(); ++i) {
      if (taken[i] || !seen.count(Z3_get_ast_id(z, termFacts[i].first)))
        continue;
      taken[i] = true;
      changed = true;
      out.push_back(termFacts[i].second);
      walk(termFacts[i].second);
    }
  }
  return out;
}

void SymExec::copyTermFacts(const z3::expr &v,
                            const std::function<z3::expr(const z3::expr &)> &map,
                            const z3::expr &guard, bool laneWritersOnly, const void *memo) {
  auto known = memo ? termFactsOf.find(memo) : termFactsOf.end();
  std::vector<size_t> needed;
  if (known != termFactsOf.end()) {
    needed = known->second;
  } else {
    std::set<unsigned> seen, decls;
    collectTerms(v, seen, decls);
    std::vector<bool> taken(termFacts.size(), false);
    for (bool changed = true; changed && !(laneWritersOnly && !needed.empty());) {
      changed = false;
      for (size_t i = 0; i < taken.size(); ++i) {
        if (taken[i] || !seen.count(termFacts[i].first.id()) ||
            (laneWritersOnly && !laneWriterFacts.count(i)))
          continue;
        taken[i] = changed = true;
        needed.push_back(i);
        if (!laneWritersOnly)
          collectTerms(termFacts[i].second, seen, decls);
      }
    }
    if (memo)
      termFactsOf.emplace(memo, needed);
  }
  for (size_t i : needed) {
    // (The image of a term the map leaves alone has the fact already.)
    z3::expr key = map(termFacts[i].first);
    if (z3::eq(key, termFacts[i].first))
      continue;
    if (writerFacts.count(i) || laneWriterFacts.count(i))
      laneWriterFacts.insert(termFacts.size());
    termFacts.push_back({key, z3::implies(guard, map(termFacts[i].second))});
  }
}

void SymExec::collectTerms(const z3::expr &root, std::set<unsigned> &terms,
                           std::set<unsigned> &decls, bool *quantified) {
  std::vector<z3::expr> stack{root};
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!terms.insert(e.id()).second)
      continue;
    if (e.is_app()) {
      if (e.num_args() > 0)
        decls.insert(Z3_get_func_decl_id(e.ctx(), e.decl()));
      for (unsigned i = 0; i < e.num_args(); ++i)
        stack.push_back(e.arg(i));
    } else if (e.is_quantifier() || e.is_lambda()) {
      if (quantified)
        *quantified = true;
      stack.push_back(e.body());
    }
  }
}

/// Monotonicity of integer multiplication, instantiated for the products of
/// two non-numeral terms that occur in `roots` (outside quantifiers): for
/// P = X*Y, and for two products P1 = X1*Y, P2 = X2*Y with a common factor,
///   X >= 0 && Y >= 0 ==> P >= 0,
///   X1 < X2 && Y >= 0 ==> P1 + Y <= P2,   X1 <= X2 && Y >= 0 ==> P1 <= P2
/// (and the same with 1 and 2 swapped). Each is a theorem of integer
/// arithmetic, so adding it is sound; it turns bounds of flattened indices
/// (`r * cols + c < rows * cols` from r < rows, c < cols) into linear
/// reasoning over the product terms. A product with numerals among its
/// factors (`w * 64 * nb`) also stands for its core, the product of its two
/// other factors (`w * nb`, with P = 64 * core): the fact a bound needs is
/// about the core (`by < w ==> by*nb + nb <= w*nb`), whatever order the
/// factors were written in (`w * 64 * nb` took 0.7 s a bounds check, `64 *
/// nb * w` 0.5 s; both milliseconds with the cores).
std::vector<z3::expr> SymExec::productFacts(const std::vector<z3::expr> &roots) const {
  std::set<unsigned> seen;
  std::vector<z3::expr> products, cores, coreFacts;
  std::map<unsigned, std::set<int64_t>> coefs; // core -> the numerals it occurs scaled by
  std::map<unsigned, std::set<unsigned>> sources; // core -> the products it was read from
  std::vector<z3::expr> stack(roots.begin(), roots.end());
  // The numeral coefficient and the non-numeral factors of a product.
  std::function<void(const z3::expr &, int64_t &, std::vector<z3::expr> &, bool &)> flatten =
      [&](const z3::expr &e, int64_t &coef, std::vector<z3::expr> &factors, bool &ok) {
        int64_t n;
        if (e.is_numeral_i64(n)) {
          if (__builtin_mul_overflow(coef, n, &coef))
            ok = false;
        } else if (e.is_numeral()) {
          ok = false;
        } else if (e.is_app() && e.decl().decl_kind() == Z3_OP_MUL) {
          for (unsigned i = 0; i < e.num_args(); ++i)
            flatten(e.arg(i), coef, factors, ok);
        } else {
          factors.push_back(e);
        }
      };
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!e.is_app() || !seen.insert(Z3_get_ast_id(z, e)).second)
      continue;
    for (unsigned i = 0; i < e.num_args(); ++i)
      stack.push_back(e.arg(i));
    if (!e.is_int() || e.decl().decl_kind() != Z3_OP_MUL)
      continue;
    int64_t n;
    if (e.num_args() == 2 && !e.arg(0).is_numeral_i64(n) && !e.arg(1).is_numeral_i64(n) &&
        !e.arg(0).is_numeral() && !e.arg(1).is_numeral())
      products.push_back(e);
    int64_t coef = 1;
    std::vector<z3::expr> factors;
    bool ok = true;
    flatten(e, coef, factors, ok);
    if (!ok || coef == 1 || coef <= 0 || factors.size() != 2)
      continue;
    if (Z3_get_ast_id(z, factors[1]) < Z3_get_ast_id(z, factors[0]))
      std::swap(factors[0], factors[1]);
    z3::expr core = factors[0] * factors[1];
    unsigned coreId = Z3_get_ast_id(z, core);
    bool fresh = !coefs.count(coreId);
    coefs[coreId].insert(coef);
    sources[coreId].insert(Z3_get_ast_id(z, e));
    if (!fresh)
      continue;
    cores.push_back(core);
    coreFacts.push_back(e == z.int_val(coef) * core);
  }
  if (products.size() > 12) // the facts are quadratic in their number
    return {};
  // The cores join the products where that bound allows. A core that
  // shares no factor with another product (than those it was read from) has
  // no pair fact worth having, and its facts only weigh on the solver (a
  // counterexample search of a grid-stride kernel 3 -> 5 s): it is left out.
  auto sharesFactor = [&](const z3::expr &c, size_t self, const std::vector<z3::expr> &with) {
    const std::set<unsigned> &from = sources[Z3_get_ast_id(z, c)];
    for (size_t i = 0; i < with.size(); ++i)
      if (i != self && !z3::eq(with[i], c) && !from.count(Z3_get_ast_id(z, with[i])))
        for (unsigned a = 0; a < 2; ++a)
          for (unsigned b = 0; b < 2; ++b)
            if (z3::eq(c.arg(a), with[i].arg(b)))
              return true;
    return false;
  };
  size_t written = products.size();
  std::vector<z3::expr> kept;
  for (size_t i = 0; i < cores.size(); ++i)
    if (sharesFactor(cores[i], i, cores) || sharesFactor(cores[i], SIZE_MAX, products)) {
      kept.push_back(coreFacts[i]);
      if (!seen.count(Z3_get_ast_id(z, cores[i])))
        products.push_back(cores[i]);
    }
  if (products.size() > 12) {
    products.erase(products.begin() + written, products.end());
    kept.clear();
  }
  std::vector<z3::expr> out = kept;
  for (auto &p : products)
    out.push_back(z3::implies(p.arg(0) >= 0 && p.arg(1) >= 0, p >= 0));
  // Monotonicity, and where two products occur scaled (cores of c1*X1*Y
  // and c2*X2*Y with c1 | c2, k = c2 / c1), monotonicity against the scaled
  // other: X1 < k*X2 && Y >= 0 ==> P1 + Y <= k*P2. A flattened index
  // `y * (16 * gx) + x` below `128 * gx * gy` needs it with k = 8 (y < 8 * gy).
  auto factorsOf = [&](const z3::expr &p) {
    std::set<int64_t> ks{1};
    auto it = coefs.find(Z3_get_ast_id(z, p));
    if (it != coefs.end())
      ks.insert(it->second.begin(), it->second.end());
    return ks;
  };
  for (size_t i = 0; i < products.size(); ++i)
    for (size_t j = i + 1; j < products.size(); ++j)
      for (unsigned a = 0; a < 2; ++a)
        for (unsigned b = 0; b < 2; ++b) {
          const z3::expr &p1 = products[i], &p2 = products[j];
          if (!z3::eq(p1.arg(a), p2.arg(b)))
            continue;
          z3::expr y = p1.arg(a), x1 = p1.arg(1 - a), x2 = p2.arg(1 - b);
          out.push_back(z3::implies(x1 < x2 && y >= 0, p1 + y <= p2));
          out.push_back(z3::implies(x2 < x1 && y >= 0, p2 + y <= p1));
          out.push_back(z3::implies(x1 <= x2 && y >= 0, p1 <= p2));
          out.push_back(z3::implies(x2 <= x1 && y >= 0, p2 <= p1));
          std::set<int64_t> c1 = factorsOf(p1), c2 = factorsOf(p2), ratios1, ratios2;
          for (int64_t u : c1)
            for (int64_t v : c2) {
              if (v > u && v % u == 0)
                ratios2.insert(v / u); // P1 against k * P2
              if (u > v && u % v == 0)
                ratios1.insert(u / v); // k * P1 against P2
            }
          auto scaled = [&](const std::set<int64_t> &ratios, const z3::expr &xa, const z3::expr &pa,
                            const z3::expr &xb, const z3::expr &pb) {
            size_t taken = 0;
            for (int64_t k : ratios) {
              if (++taken > 3)
                break;
              z3::expr kk = z.int_val(k);
              out.push_back(z3::implies(xa < kk * xb && y >= 0, pa + y <= kk * pb));
              out.push_back(z3::implies(xa <= kk * xb && y >= 0, pa <= kk * pb));
            }
          };
          scaled(ratios2, x1, p1, x2, p2);
          scaled(ratios1, x2, p2, x1, p1);
        }
  return out;
}
