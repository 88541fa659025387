//===- SolverTest.cpp - The solver layer on hand-written queries ----------===//
#include "verifier/solver/Solver.h"

#include <gtest/gtest.h>

using namespace kuiper::solver;

TEST(Solver, SmtTextIsWhatASolverPrints) {
  z3::context z;
  z3::expr x = z.int_const("x");
  std::string text = smtText(z, {x > 0, x < 5});
  EXPECT_NE(text.find("(declare-fun x () Int)"), std::string::npos) << text;
  EXPECT_NE(text.find("(check-sat)"), std::string::npos) << text;
  z3::expr_vector back = z.parse_string(text.c_str());
  EXPECT_EQ(back.size(), 2u);
}
