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

def KuiperVectorize : Pass<"kuiper-vectorize", "mlir::ModuleOp"> {
  let summary = "Several elements per thread, with aligned accesses LLVM merges into vectors";
  let description = [{
    Rewrites each kernel of the shape `i = blockIdx.x * B + threadIdx.x;
    if i < n { body }` (a one-dimensional launch, no barriers, collectives,
    shared memory, atomics or gridDim) so that one thread runs V consecutive
    logical threads, V = `vector-bytes` / the widest element it moves, and
    the grid is divided by V. Where all V are in range and the buffers are
    aligned (`kuiper.aligned`), the loads of the V bodies run first and the
    stores last, the first of each run marked `{align = V * size}`; LLVM's
    load/store vectorizer then emits 128-bit accesses. Elsewhere each logical
    thread runs the source's code. The kernel gets
    `kuiper.elements_per_thread = V`, or `kuiper.not_vectorized = "why"`.

    The ops the rewrite creates are marked `kuiper.rewrite`; where the body
    has no loop the kernel is marked `kuiper.refines`: it refines the kernel
    as written wherever those ops' obligations and its alignment claims hold
    (docs/lowering.md). The result is not trusted: `kuiperc` proves those side
    conditions (or, without `kuiper.refines`, the whole rewritten kernel
    again) and lowers it only if every check is proven.
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "unsigned", /*default=*/"16",
           "Bytes per vector access (16: 128-bit)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

#endif // KUIPER_TRANSFORMS_PASSES
