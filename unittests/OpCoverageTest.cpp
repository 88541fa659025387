//===- OpCoverageTest.cpp - Every op has a semantics in each engine -------===//
//
// Every registered op of the kuiper dialect, and every arith/math/scf/memref
// op the code generator can emit, must have a semantics in the CPU executor
// (runtime/interpreter/Semantics.h). The verifier's half of the test can
// reuse `kuiperOperations` and `codegenOperations`.
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/Semantics.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace kuiper;
using kuiper::interp::OpRole;

namespace {

/// A context with every dialect kuiper IR uses.
std::unique_ptr<mlir::MLIRContext> makeContext() {
  auto context = std::make_unique<mlir::MLIRContext>();
  context->loadDialect<KuiperDialect, mlir::arith::ArithDialect,
                       mlir::math::MathDialect, mlir::scf::SCFDialect,
                       mlir::memref::MemRefDialect>();
  return context;
}

/// Names of the registered ops of `dialect` ("kuiper.load", ...).
std::vector<std::string> registeredOperations(mlir::MLIRContext &context,
                                              llvm::StringRef dialect) {
  std::vector<std::string> names;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == dialect)
      names.push_back(name.getStringRef().str());
  return names;
}

/// Every op of the kuiper dialect.
std::vector<std::string> kuiperOperations(mlir::MLIRContext &context) {
  return registeredOperations(context, "kuiper");
}

/// "IndexCastUIOp" and "index_castui" both become "indexcastui".
std::string normalized(std::string name) {
  if (name.size() > 2 && name.compare(name.size() - 2, 2, "Op") == 0)
    name.resize(name.size() - 2);
  std::string out;
  for (char c : name)
    if (c != '_')
      out += (char)std::tolower((unsigned char)c);
  return out;
}

/// The arith, math, scf and memref ops compiler/codegen/MLIRGen.cpp creates
/// (`arith::AddIOp::create(`), as op names. Kuiper ops are all covered by
/// `kuiperOperations`. Adds a test failure for a class it cannot name.
std::vector<std::string> codegenOperations(mlir::MLIRContext &context) {
  std::ifstream file(KUIPER_SOURCE_DIR "/compiler/codegen/MLIRGen.cpp");
  EXPECT_TRUE(file) << "cannot read MLIRGen.cpp";
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  std::set<std::string> names;
  std::regex create(R"((arith|math|scf|memref)::(\w+)::create\()");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), create);
       it != std::sregex_iterator(); ++it) {
    std::string dialect = (*it)[1], className = (*it)[2];
    std::string found;
    for (const std::string &name : registeredOperations(context, dialect))
      if (normalized(name.substr(dialect.size() + 1)) == normalized(className))
        found = name;
    EXPECT_FALSE(found.empty())
        << dialect << "::" << className << " names no registered op";
    if (!found.empty())
      names.insert(found);
  }
  return {names.begin(), names.end()};
}

TEST(OpCoverage, EveryKuiperOpHasExecutorSemantics) {
  auto context = makeContext();
  std::vector<std::string> ops = kuiperOperations(*context);
  EXPECT_GE(ops.size(), 30u);
  for (const std::string &name : ops)
    EXPECT_TRUE(interp::hasSemantics(name))
        << name << " has no semantics in the CPU executor "
        << "(runtime/interpreter/KuiperOps.cpp)";
}

TEST(OpCoverage, EveryOpCodegenEmitsHasExecutorSemantics) {
  auto context = makeContext();
  std::vector<std::string> ops = codegenOperations(*context);
  EXPECT_GE(ops.size(), 50u);
  for (const std::string &name : ops)
    EXPECT_TRUE(interp::hasSemantics(name))
        << name << " is emitted by codegen but has no semantics in the CPU "
        << "executor (runtime/interpreter/ArithOps.cpp)";
}

// How the executor treats the kuiper ops that are not plain computations.
// Spec-only ops (the verifier's facts) are evaluated, not skipped: asserts,
// assumptions and invariants are checked when reached, quantifiers, sums and
// old() are evaluated inside clauses, requires/ensures/access are read by the
// launch setup (requires before the run, ensures after it).
TEST(OpCoverage, KuiperOpRoles) {
  const std::map<std::string, OpRole> expected = {
      {"kuiper.kernel", OpRole::Header},
      {"kuiper.shape", OpRole::Header},
      {"kuiper.launch", OpRole::Header},
      {"kuiper.access", OpRole::Header},
      {"kuiper.requires", OpRole::Header},
      {"kuiper.ensures", OpRole::Header},
      {"kuiper.return", OpRole::Terminator},
      {"kuiper.yield", OpRole::Terminator},
      {"kuiper.assert", OpRole::Specification},
      {"kuiper.assume", OpRole::Specification},
      {"kuiper.invariant", OpRole::Specification},
      {"kuiper.forall", OpRole::Specification},
      {"kuiper.exists", OpRole::Specification},
      {"kuiper.sum", OpRole::Specification},
      {"kuiper.reduce", OpRole::Specification},
      {"kuiper.old", OpRole::Specification},
      {"kuiper.for", OpRole::ControlFlow},
      {"kuiper.while", OpRole::ControlFlow},
      {"kuiper.barrier", OpRole::Suspends},
      {"kuiper.shfl", OpRole::Suspends},
      {"kuiper.vote", OpRole::Suspends},
      {"kuiper.syncwarp", OpRole::Suspends},
  };
  for (const auto &[name, role] : expected) {
    std::optional<OpRole> actual = interp::roleOf(name);
    ASSERT_TRUE(actual.has_value()) << name;
    EXPECT_EQ(*actual, role) << name;
  }
}

TEST(OpCoverage, SupportedOperationsAreSortedAndRegistered) {
  auto context = makeContext();
  std::vector<std::string> supported = interp::supportedOperations();
  EXPECT_TRUE(std::is_sorted(supported.begin(), supported.end()));
  std::set<std::string> registered;
  for (mlir::RegisteredOperationName name : context->getRegisteredOperations())
    registered.insert(name.getStringRef().str());
  for (const std::string &name : supported)
    EXPECT_TRUE(registered.count(name)) << name;
  EXPECT_FALSE(interp::hasSemantics("math.atan"));
}

} // namespace
