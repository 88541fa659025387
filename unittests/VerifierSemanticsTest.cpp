//===- VerifierSemanticsTest.cpp - Every op has a verifier semantics ------===//
//
// The verifier is complete by construction: every op of the kuiper dialect,
// and every arith/math/scf/memref op that codegen emits, is either executed
// symbolically or (for structural ops) handled by the execution itself. An op
// added to the dialect or to codegen without a verifier semantics fails here,
// not in a user's kernel as an "unknown" verdict.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "verifier/Verifier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// The ops of other dialects that compiler/codegen/MLIRGen.cpp creates.
const std::vector<std::string> &codegenOps() {
  static const std::vector<std::string> ops = {
      "arith.addf",    "arith.addi",    "arith.andi",    "arith.cmpf",    "arith.cmpi",
      "arith.constant", "arith.divf",   "arith.divsi",   "arith.divui",   "arith.extf",
      "arith.extsi",   "arith.extui",   "arith.fptosi",  "arith.fptoui",  "arith.maxnumf",
      "arith.maxsi",   "arith.maxui",   "arith.minnumf", "arith.minsi",   "arith.minui",
      "arith.mulf",    "arith.muli",    "arith.negf",    "arith.ori",     "arith.remf",
      "arith.remsi",   "arith.remui",   "arith.sitofp",  "arith.select",  "arith.shli",
      "arith.shrsi",   "arith.shrui",   "arith.subf",    "arith.subi",    "arith.truncf",
      "arith.trunci",  "arith.uitofp",  "arith.xori",    "math.absf",     "math.ceil",
      "math.erf",      "math.exp",      "math.floor",    "math.log",      "math.rsqrt",
      "math.sqrt",     "math.tanh",     "memref.alloca", "memref.load",   "memref.store",
      "scf.if"};
  return ops;
}

/// Ops the symbolic execution handles structurally rather than as a step:
/// the kernel itself and region terminators.
const std::set<std::string> structural = {"kuiper.kernel", "kuiper.return", "kuiper.yield",
                                          "scf.yield"};

class VerifierSemantics : public ::testing::Test {
protected:
  VerifierSemantics() {
    context.loadDialect<kuiper::KuiperDialect, arith::ArithDialect, math::MathDialect,
                        memref::MemRefDialect, scf::SCFDialect>();
    context.allowUnregisteredDialects(false);
  }

  /// Whether the verifier has a semantics for the op named `name` (an
  /// operand-less instance stands for it: only its kind is asked).
  bool hasSemantics(StringRef name) {
    OperationState state(UnknownLoc::get(&context), name);
    Operation *op = Operation::create(state);
    bool known = kuiper::verifier::hasSemantics(op);
    op->destroy();
    return known;
  }

  MLIRContext context;
};

TEST_F(VerifierSemantics, EveryKuiperOp) {
  unsigned count = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "kuiper")
      continue;
    ++count;
    std::string n = name.getStringRef().str();
    if (structural.count(n))
      continue;
    EXPECT_TRUE(hasSemantics(n)) << n << " has no verifier semantics";
  }
  EXPECT_GE(count, 30u); // the dialect was found and enumerated
}

TEST_F(VerifierSemantics, EveryOpCodegenEmits) {
  for (const std::string &n : codegenOps()) {
    ASSERT_TRUE(RegisteredOperationName::lookup(n, &context)) << n;
    EXPECT_TRUE(hasSemantics(n)) << n << " has no verifier semantics";
  }
}

TEST_F(VerifierSemantics, OpsOutsideTheLanguageAreRejected) {
  for (const char *n : {"arith.addui_extended", "math.powf", "memref.alloc", "scf.while"})
    EXPECT_FALSE(hasSemantics(n)) << n;
}

} // namespace
