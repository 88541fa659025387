//===- Access.cpp - Bounds and memory-contract checks of every access -------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::execAccess(Operation *op, Value ref, ValueRange indices, Event::Kind kind,
                         std::optional<z3::expr> value, Value result) {
  const void *mem = key(ref);
  MemInfo &mi = mems.at(mem);
  std::vector<z3::expr> idx;
  for (Value i : indices)
    idx.push_back(get(i));
  if (inSpec) {
    if (kind == Event::Read) {
      auto ov = overrideLoad.find(op);
      set(result, ov != overrideLoad.end() ? ov->second : read(state.at(mem), idx));
      if (((specReadsRace && (mi.shared || mi.access != BufferAccess::In)) ||
           (contractReadsRace && !mi.shared && mi.access != BufferAccess::In)) &&
          !oldState) {
        z3::expr where = pc;
        for (const z3::expr &r : specRanges)
          where = where && r;
        auto e = std::make_unique<Event>(Event{Event::Read, mem, idx, std::nullopt, where, facts,
                                               interval, iterScope, srcLoc(op->getLoc()),
                                               (unsigned)events.size(), dynInterval, warpPhase});
        e->spec = true;
        e->otherBlocksOnly = contractReadsRace;
        events.push_back(std::move(e));
      }
    }
    return;
  }
  std::string what = mi.name + "[";
  for (size_t i = 0; i < idx.size(); ++i)
    what += (i ? ", " : "") + std::string("...");
  what += "]";
  z3::expr inBounds = z.bool_val(true);
  for (size_t d = 0; d < idx.size(); ++d)
    inBounds = inBounds && idx[d] >= 0 && idx[d] < mi.dims[d];
  std::vector<Observable> obs;
  for (size_t d = 0; d < idx.size(); ++d)
    obs.push_back({mi.name + " index " + std::to_string(d), idx[d]});
  for (size_t d = 0; d < mi.dims.size(); ++d)
    obs.push_back({mi.name + " dim " + std::to_string(d), mi.dims[d]});
  addObligation(CheckId::Bounds, op->getLoc(),
                std::string(kind == Event::Read ? "read of " : "write of ") + mi.name + " is in bounds",
                "out-of-bounds " + std::string(kind == Event::Read ? "read of '" : "write of '") + mi.name + "'",
                inBounds, {}, obs);
  if (auto align = op->getAttrOfType<IntegerAttr>("align"))
    checkAlignment(op, mem, idx, align.getInt(), obs);
  // An atomic reads the element as it writes it: both clauses apply.
  for (bool writes : {false, true}) {
    if (writes ? kind == Event::Read : kind == Event::Write)
      continue;
    auto &boxes = writes ? mi.writes : mi.reads;
    if (!(writes ? mi.hasWrites : mi.hasReads) || mi.shared)
      continue;
    z3::expr inBox = z.bool_val(false);
    for (size_t b = 0; b + idx.size() <= boxes.size(); b += idx.size()) {
      z3::expr in = z.bool_val(true);
      for (size_t d = 0; d < idx.size(); ++d)
        in = in && idx[d] >= boxes[b + d].first && idx[d] < boxes[b + d].second;
      inBox = inBox || in;
    }
    addObligation(CheckId::Contract, op->getLoc(),
                  std::string("the access of ") + mi.name + " is inside its '" + (writes ? "writes" : "reads") + "' clause",
                  std::string("access of '") + mi.name + "' outside its '" + (writes ? "writes" : "reads") + "' clause",
                  inBox, {}, obs);
  }
  if (!mi.shared && mi.access == BufferAccess::In && kind != Event::Read)
    unsupported(op, "write to an 'in' buffer");
  if (kind != Event::Read || mi.shared || mi.access != BufferAccess::In) {
    auto e = std::make_unique<Event>(Event{kind, mem, idx, value, pc, facts, interval, iterScope,
                                           srcLoc(op->getLoc()), (unsigned)events.size(), dynInterval,
                                           warpPhase});
    // What an integer atomic returns (a ticket), and which value a
    // compare-and-swap leaves, depend on the order the threads run in.
    if (auto a = dyn_cast<AtomicOp>(op)) {
      e->orderDependent = !result.use_empty() || a.getKind() == AtomicKind::Cas;
      // The old value is not modelled, so whether an integer atomic_add
      // wraps is not proven: said in the report, never silently assumed.
      int64_t k = 1;
      bool addsZero = value && value->simplify().is_numeral_i64(k) && k == 0;
      if (a.getKind() == AtomicKind::Add && isa<IntegerType>(mi.elemType) && !addsZero)
        trusted.insert("atomic_add on integer '" + mi.name +
                       "' does not overflow (the element's old value is not modelled; CUDA's "
                       "wraps)");
    }
    events.push_back(std::move(e));
  }
  if (kind == Event::Read) {
    z3::expr v = read(state.at(mem), idx);
    // An integer element holds a value of its type, whatever the memory
    // model knows of it (an input's `a[i] - 1` overflowed through a[i] = 2^31 + 1).
    if (z3::expr r = typeRange(v, mi.elemType); !r.is_true())
      termFacts.push_back({v, r});
    set(result, v);
    return;
  }
  if (kind == Event::Atomic) {
    z3::expr old = havoc("atomic_old", sortOf(mi.elemType));
    atomicResults.insert(Z3_get_func_decl_id(z, old.decl()));
    // (A fact about the term, not in `facts`: a check that does not use the
    // old value must not be taken to depend on it, see atomicDependence.)
    if (z3::expr r = typeRange(old, mi.elemType); !r.is_true())
      termFacts.push_back({old, r});
    set(result, old);
    auto node = std::make_shared<MemNode>();
    node->kind = MemNode::Base;
    node->id = nodeIds++;
    z3::sort_vector sorts(z);
    for (size_t i = 0; i < idx.size(); ++i)
      sorts.push_back(z.int_sort());
    node->fn = contentsFn(z.function((mi.name + "!atomic" + std::to_string(freshIds++)).c_str(), sorts,
                                     sortOf(mi.elemType)),
                          mi);
    atomicStates.insert(Z3_get_func_decl_id(z, *node->fn));
    state[mem] = node;
    return;
  }
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Store;
  node->id = nodeIds++;
  node->prev = state.at(mem);
  node->cond = pc;
  node->value = *value;
  node->idx = idx;
  state[mem] = node;
}

z3::expr SymExec::alignedBase(const void *mem, uint64_t bytes) {
  return z.bool_const((mems.at(mem).name + "!aligned" + std::to_string(bytes)).c_str());
}

/// An access marked `{align = A}` is at byte offset `offset * size` from a base
/// that is a multiple of A (kuiper.aligned, the one fact about addresses the
/// verifier has), and that offset is a multiple of A.
void SymExec::checkAlignment(Operation *op, const void *mem, const std::vector<z3::expr> &idx,
                             uint64_t align, const std::vector<Observable> &obs) {
  MemInfo &mi = mems.at(mem);
  if (mi.shared) {
    unsupported(op, "an aligned access of a shared array");
    return;
  }
  z3::expr offset = idx.empty() ? z.int_val(0) : idx[0];
  for (size_t d = 1; d < idx.size(); ++d)
    offset = offset * mi.dims[d] + idx[d];
  unsigned bits = mi.elemType.getIntOrFloatBitWidth();
  int64_t size = bits <= 8 ? 1 : bits / 8;
  z3::expr bytes = offset * z.int_val(size);
  z3::expr a = z.int_val((int64_t)align);
  addObligation(CheckId::Alignment, op->getLoc(),
                "the access of " + mi.name + " is aligned to " + std::to_string(align) + " bytes",
                "access of '" + mi.name + "' not aligned to " + std::to_string(align) + " bytes",
                alignedBase(mem, align) && z3::mod(bytes, a) == 0, {}, obs);
}

SymExec::AtomicDependence SymExec::atomicDependence(const Obligation &o) const {
  if (atomicResults.empty() && atomicStates.empty())
    return AtomicDependence::None;
  std::set<unsigned> terms, decls;
  collectTerms(*o.goal, terms, decls);
  for (const z3::expr &a : o.assumptions)
    collectTerms(a, terms, decls);
  for (unsigned d : decls)
    if (atomicResults.count(d))
      return AtomicDependence::Result;
  for (unsigned d : decls)
    if (atomicStates.count(d))
      return AtomicDependence::Contents;
  return AtomicDependence::None;
}
