//===- ModelText.h - Values of a Z3 model as people read them ---*- C++ -*-===//
#ifndef KUIPER_VERIFIER_SOLVER_MODELTEXT_H
#define KUIPER_VERIFIER_SOLVER_MODELTEXT_H

#include <z3++.h>

#include <set>
#include <string>
#include <vector>

namespace kuiper::solver {

/// A model value as text: integers in decimal (a negative one as the
/// unsigned integer of `unsignedBits` bits it encodes, where that is not 0),
/// floats as the shortest decimal that round-trips (NaN, inf, -0.0 by name),
/// reals as decimals.
std::string valueText(const z3::expr &value, unsigned unsignedBits = 0);

/// `name[i, j]` of a memory read `app` with its indices evaluated in `model`.
std::string readName(const z3::expr &app, const z3::model &model);

/// Collects the applications in `e` of uninterpreted functions named in
/// `memNames` (the memory reads a counterexample shows).
void collectReads(const z3::expr &e, std::set<unsigned> &seen, std::vector<z3::expr> &out,
                  const std::set<std::string> &memNames);

} // namespace kuiper::solver

#endif
