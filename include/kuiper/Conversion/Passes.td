//===- Passes.td - conversions out of the kuiper dialect ---*- tablegen -*-===//
#ifndef KUIPER_CONVERSION_PASSES
#define KUIPER_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertKuiperToLLVM : Pass<"convert-kuiper-to-llvm", "mlir::ModuleOp"> {
  let summary = "Convert kuiper kernels to LLVM dialect GPU kernels";
  let description = [{
    Turns every `kuiper.kernel` into an `llvm.func` with the kernel ABI of
    docs/abi.md (source-order parameters, buffers as `noalias` global
    pointers, bools as one byte) and every kuiper op in it into LLVM dialect
    ops and the target's ops (NVVM for `nvptx`). Math ops the target's math
    library has a function for become calls to it (libdevice for `nvptx`).
    arith, scf, cf and the remaining math ops are left for the upstream
    conversions. Specifications must have been erased first
    (`--kuiper-erase-specs`).

    ```mlir
    %t = kuiper.thread_id 0 : i32
    // becomes, in a kernel of 256 threads
    %t = nvvm.read.ptx.sreg.tid.x range <i32, 0, 256> : i32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"nvptx\"",
           "The GPU target whose ops and libraries the kernels use (nvptx)">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::NVVM::NVVMDialect",
    "mlir::arith::ArithDialect",
  ];
}

def ConvertMathToLibCall : Pass<"kuiper-math-to-libcall", "mlir::ModuleOp"> {
  let summary = "Math ops as calls of the target's math library, before any folding";
  let description = [{
    Turns the math ops the target's math library has a function for into
    calls of it (libdevice for `nvptx`), as `convert-kuiper-to-llvm` does,
    so that the canonicalizer after `--kuiper-erase-specs` cannot fold them:
    upstream's folders evaluate `math.erf`, `math.tanh`, `math.log` and
    `math.exp` of a constant with the host's C library, whose results differ
    from the library the kernel calls for other operands (`erf(0.3)` folded
    to 0x3EA841C5, `__nv_erff` gives 0x3EA841C4), while the proof takes both
    for the one function. Like `convert-kuiper-to-llvm`, it converts without
    the dialect conversion's default fold-before-patterns, which folds them
    too.

    ```mlir
    %e = math.erf %c : f32
    // becomes
    %e = llvm.call @__nv_erff(%c) : (f32) -> f32
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"nvptx\"",
           "The GPU target whose math library the kernels call (nvptx)">,
  ];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::arith::ArithDialect",
  ];
}

#endif // KUIPER_CONVERSION_PASSES
