//===- SolverTest.cpp - The solver layer on hand-written queries ----------===//
#include "verifier/solver/Solver.h"

#include <gtest/gtest.h>

using namespace kuiper::solver;

namespace {

Query query(z3::context &z, const std::vector<z3::expr> &asserts) {
  Query q;
  q.smt = smtText(z, asserts);
  q.hash = hashText(q.smt);
  return q;
}

} // namespace

TEST(Solver, IdenticalQueriesAreSolvedOnce) {
  z3::context z;
  z3::expr x = z.int_const("x");
  std::vector<Query> batch = {query(z, {x > 0, x < 0}), query(z, {x > 0, x < 0}),
                              query(z, {x > 0, x < 2})};
  ProofCache none("");
  BatchOptions opts;
  opts.jobs = 1;
  solveAll(batch, none, opts);
  EXPECT_EQ(batch[0].answer, Answer::Proved);
  EXPECT_EQ(batch[1].answer, Answer::Proved);
  EXPECT_EQ(batch[1].ms, 0); // took its twin's answer, not solved
  EXPECT_EQ(batch[2].answer, Answer::Failed);
}

TEST(Solver, SmtTextIsWhatASolverPrints) {
  z3::context z;
  z3::expr x = z.int_const("x");
  std::string text = smtText(z, {x > 0, x < 5});
  EXPECT_NE(text.find("(declare-fun x () Int)"), std::string::npos) << text;
  EXPECT_NE(text.find("(check-sat)"), std::string::npos) << text;
  z3::expr_vector back = z.parse_string(text.c_str());
  EXPECT_EQ(back.size(), 2u);
}
