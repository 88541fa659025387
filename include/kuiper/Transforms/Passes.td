//===- Passes.td - kuiper dialect transformations ----------*- tablegen -*-===//
#ifndef KUIPER_TRANSFORMS_PASSES
#define KUIPER_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def KuiperEraseSpecs : Pass<"kuiper-erase-specs", "mlir::ModuleOp"> {
  let summary = "Erase the specifications and turn kuiper loops into scf loops";
  let description = [{
    The verifier has already read the contracts; code generation only needs
    the executable part of a kernel. This pass erases every specification op
    (`requires`, `ensures`, `assert`, `assume`, `access`, quantifiers, sums,
    `old`) with its region, empties loop invariants and barrier contracts,
    and rewrites `kuiper.for` as a signed `scf.for` and `kuiper.while` as an
    `scf.while` without loop-carried values. `kuiper.shape` and
    `kuiper.launch` stay: the conversion to LLVM reads them.

    ```mlir
    kuiper.for %i = %lo to %hi step %c1 : i32 invariants { ... } { ... }
    // becomes
    scf.for %i = %lo to %hi step %c1 : i32 { ... }
    ```
  }];
  let dependentDialects = ["mlir::scf::SCFDialect"];
}

#endif // KUIPER_TRANSFORMS_PASSES
