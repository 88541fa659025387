//===- Semantics.cpp - The executor's table of op semantics ---------------===//
#include "runtime/interpreter/Semantics.h"
#include "runtime/interpreter/Values.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>

using namespace mlir;

namespace kuiper {
namespace interp {

const SemanticsTable &semanticsTable() {
  static const SemanticsTable table = [] {
    SemanticsTable t;
    registerArithSemantics(t);
    registerMathSemantics(t);
    registerStructuredSemantics(t);
    registerKuiperSemantics(t);
    return t;
  }();
  return table;
}

bool hasSemantics(Operation *op) {
  return semanticsTable().lookup(op) != nullptr;
}

static const OpSemantics *lookupByName(StringRef operationName) {
  for (const auto &entry : semanticsTable().all())
    if (entry.second.name == operationName)
      return &entry.second;
  return nullptr;
}

bool hasSemantics(StringRef operationName) {
  return lookupByName(operationName) != nullptr;
}

std::optional<OpRole> roleOf(StringRef operationName) {
  if (const OpSemantics *semantics = lookupByName(operationName))
    return semantics->role;
  return std::nullopt;
}

std::vector<std::string> supportedOperations() {
  std::vector<std::string> names;
  for (const auto &entry : semanticsTable().all())
    names.push_back(entry.second.name.str());
  std::sort(names.begin(), names.end());
  return names;
}

static std::optional<Type> unsupportedValueType(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (!isSupportedType(type))
      return type;
  for (Type type : op->getResultTypes())
    if (!isSupportedType(type))
      return type;
  return std::nullopt;
}

static std::string describeType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::optional<std::string> findUnsupportedOperation(Operation *root) {
  std::optional<std::string> problem;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    std::string where = locationOf(op);
    where = where.empty() ? "" : " at " + where;
    std::string name = op->getName().getStringRef().str();
    if (!hasSemantics(op)) {
      problem = "unsupported op '" + name + "'" + where +
                ": the CPU executor has no semantics for it";
      return WalkResult::interrupt();
    }
    if (std::optional<Type> type = unsupportedValueType(op)) {
      problem = "unsupported op '" + name + "'" + where +
                ": the CPU executor does not model values of type " +
                describeType(*type);
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return problem;
}

} // namespace interp
} // namespace kuiper
