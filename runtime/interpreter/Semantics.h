//===- Semantics.h - The executor's table of op semantics -------*- C++ -*-===//
//
// Every op the CPU executor understands is registered exactly once, by its
// op class, with the handler that evaluates it. A kernel holding an op
// without an entry is rejected before it runs (`findUnsupportedOperation`).
// Internal to the runtime; OpCoverageTest checks the table against the
// kuiper dialect and what codegen emits.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_SEMANTICS_H
#define KUIPER_RUNTIME_INTERPRETER_SEMANTICS_H

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/TypeID.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <optional>
#include <string>
#include <vector>

namespace kuiper {
namespace interp {

class KernelInterpreter;
struct EvalContext;
struct Thread;

/// What the executor does with an op.
enum class OpRole {
  Computes,    ///< evaluated in place (arith, math, loads, stores, ...)
  ControlFlow, ///< a thread enters its regions (scf.if, kuiper.for/while)
  Suspends,    ///< a thread waits for others (barrier, warp collectives)
  Terminator,  ///< ends a region; handled by whoever runs the region
  Header,      ///< read once by the launch setup (shape, launch, clauses)
  Specification, ///< evaluated inside spec clauses (quantifiers, old, ...)
};

/// How the executor runs one op.
struct OpSemantics {
  /// Runs the op to completion (host, spec clause or thread).
  using Evaluate = bool (*)(KernelInterpreter &, mlir::Operation *,
                            EvalContext &);
  /// In a thread: enters a region or suspends, instead of `evaluate`.
  using ThreadStep = bool (KernelInterpreter::*)(Thread &, mlir::Operation *);

  llvm::StringRef name;
  OpRole role = OpRole::Computes;
  Evaluate evaluate = nullptr;
  ThreadStep threadStep = nullptr;
  /// A load, store or atomic (MemoryAccessOpInterface): the random schedule
  /// switches threads before it.
  bool accessesMemory = false;
};

/// Op class -> semantics.
class SemanticsTable {
public:
  /// Registers `OpTy`; each op is registered once.
  template <typename OpTy>
  void add(OpRole role, OpSemantics::Evaluate evaluate,
           OpSemantics::ThreadStep threadStep = nullptr) {
    bool inserted =
        entries
            .try_emplace(mlir::TypeID::get<OpTy>(),
                         OpSemantics{OpTy::getOperationName(), role, evaluate,
                                     threadStep, accessesMemory<OpTy>()})
            .second;
    assert(inserted && "op registered twice in the semantics table");
    (void)inserted;
  }
  /// The entry of `op`, or null.
  const OpSemantics *lookup(mlir::Operation *op) const {
    auto it = entries.find(op->getName().getTypeID());
    return it == entries.end() ? nullptr : &it->second;
  }
  const llvm::DenseMap<mlir::TypeID, OpSemantics> &all() const {
    return entries;
  }

private:
  template <typename OpTy> static constexpr bool accessesMemory() {
    return OpTy::template hasTrait<MemoryAccessOpInterface::Trait>();
  }

  llvm::DenseMap<mlir::TypeID, OpSemantics> entries;
};

/// The table, built on first use.
const SemanticsTable &semanticsTable();

/// The families' registrations (one per file).
void registerArithSemantics(SemanticsTable &table);
void registerMathSemantics(SemanticsTable &table);
void registerStructuredSemantics(SemanticsTable &table);
void registerKuiperSemantics(SemanticsTable &table);

/// How `op`, an arith.cmpi or arith.cmpf of a spec clause that came out
/// false, reads with its operands' current values ("y[3] = 1.5, expected 2"),
/// described only when the clause fails (ArithOps.cpp); nothing for another
/// op or one that holds.
std::optional<std::string> describeFalseComparisonOp(KernelInterpreter &in, mlir::Operation *op,
                                                     EvalContext &context);

/// Whether the executor has a semantics for `op` (ignoring its types).
bool hasSemantics(mlir::Operation *op);
/// Whether the executor has a semantics for the op named `operationName`
/// ("arith.addi").
bool hasSemantics(llvm::StringRef operationName);
/// The role of the op named `operationName`, if it has a semantics.
std::optional<OpRole> roleOf(llvm::StringRef operationName);
/// Names of every op with a semantics ("arith.addi", ...), sorted.
std::vector<std::string> supportedOperations();
/// Why the executor cannot run `root` and what it holds: "unsupported op
/// 'x.y' at file:line:col" for the first op without a semantics or with a
/// value type the executor does not model; nullopt when all is supported.
std::optional<std::string> findUnsupportedOperation(mlir::Operation *root);

} // namespace interp
} // namespace kuiper

#endif
